"""Checked play (`hexsim run --check`, `sim.engine.checking`, `sim.testing.check_game`): a bot's
illegal move or an index out of bounds stops a run with one line naming the game, decision, seat
and move (exit 2), and the folder stays unfinished; unchecked, a move the engine can tell is
wrong stops the run the same way and a worker's segmentation fault is named by its chunk. The
faulty bots are tests/fixtures/badhex.py's (greedy goes wrong at decision 4 of game 1 of seed 0)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import sim
from sim import games
from sim.testing import check_game
from tests.fixtures.badhex import GAME as BAD
from tests.fixtures.hexgame import GAME as HEX

pytestmark = pytest.mark.slow  # compiles bounds-checked kernels in worker processes (make test-fast leaves it out)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def registered():
    games.register(BAD)
    games.register(HEX)


def hexsim(tmp_path: Path, fault: str, *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    """`hexsim run` of 40 Bad Hex 4x4 games (greedy going wrong as `fault` says) into tmp_path/run."""
    variant = tmp_path / f"{fault}.toml"
    variant.write_text(f'game = "badhex"\ndescription = "d"\n[rules]\nfault = "{fault}"\n')
    env = dict(os.environ, HEXSIM_GAMES="tests.fixtures.badhex", PYTHONPATH=str(ROOT))
    out = tmp_path / "run"
    res = subprocess.run([sys.executable, "-m", "sim.cli", "run", str(variant), "--games", "40", "--out", str(out),
                          "--no-progress", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    return res, out


def unfinished(out: Path) -> bool:
    return json.loads((out / "manifest.json").read_text())["status"] == "running"


def one_line(res: subprocess.CompletedProcess) -> str:
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    return lines[0]


def test_check_exits_2_naming_the_illegal_move(tmp_path):
    res, out = hexsim(tmp_path, "occupied", "--check", "--jobs", "1", "--chunk-size", "1")
    assert res.returncode == 2
    assert one_line(res) == ("hexsim: game stopped: badhex/occupied: game 1 (run seed 0), decision 4, seat A, "
                             "move 2: illegal move (legal_moves does not list it)")
    assert unfinished(out)
    with pytest.raises(sim.errors.UserError, match="unfinished run"):
        sim.report([out], out=tmp_path / "report")


def test_check_finds_an_index_out_of_bounds(tmp_path):
    """The workers' kernels are compiled with bounds checking: greedy's read past the board
    (harmless garbage unchecked) stops the run at the decision that made it."""
    res, out = hexsim(tmp_path, "read", "--check", "--jobs", "2", "--chunk-size", "20")
    assert res.returncode == 2
    assert one_line(res).endswith("game 1 (run seed 0), decision 4, seat A: IndexError while the bot chose its "
                                  "move: index is out of bounds")
    assert unfinished(out)


def test_unchecked_no_move_is_one_line(tmp_path):
    """A negative move code (a bot's "no move") is refused in every run, and located."""
    res, out = hexsim(tmp_path, "nomove", "--jobs", "1")
    assert res.returncode == 2
    line = one_line(res)
    assert "game 1 (run seed 0), decision 4, seat A, move -1: the bot returned no move" in line
    assert line.endswith("run with --check to test every move and index")
    assert unfinished(out)


def test_unchecked_segfault_names_the_chunk(tmp_path):
    """Unchecked, the illegal stone makes this game's apply write far outside the board: the
    worker dies of a segmentation fault, and the run names the chunk, without retrying it."""
    res, out = hexsim(tmp_path, "occupied", "--jobs", "2", "--chunk-size", "20")
    assert res.returncode == 1
    # both chunks crash; the one whose worker died first is named (the other is stopped with it)
    assert re.fullmatch(r"hexsim: game crashed: badhex/occupied: a worker died \(Segmentation fault\) playing "
                        r"games (0\.\.19|20\.\.39) \(run seed 0\); run with --check to find the move or index",
                        one_line(res)), one_line(res)
    assert unfinished(out)
    assert not list((out / "games").glob(".*")), "crash notes left behind"


def test_segfault_in_process_is_named_by_the_next_run(tmp_path):
    """--jobs 1 plays in the run's own process, which the segmentation fault kills; the next run
    of the folder names the chunk it died in."""
    res, out = hexsim(tmp_path, "occupied", "--jobs", "1")
    assert res.returncode in (-11, 139)
    assert unfinished(out)
    again, _ = hexsim(tmp_path, "occupied", "--jobs", "1")
    assert (f"hexsim: {out}: an earlier run died (Segmentation fault) playing the chunk from game 0 "
            "(part-r00-000000000000); playing it again" in again.stderr)


def test_check_game_fails_naming_the_move():
    with pytest.raises(AssertionError, match=r"badhex: game 1 \(run seed 0\), decision 4, seat A, move 2: illegal"):
        check_game(BAD, {"fault": "occupied"}, "greedy", n=8, run_seed=0, draw=False, table=False)


def test_checked_run_plays_the_same_games(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXSIM_GAMES", "tests.fixtures.hexgame")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    v = tmp_path / "hex4.toml"
    v.write_text('game = "hex"\ndescription = "Hex 4x4"\n[rules]\nsize = 4\n[seats]\nA = "greedy"\nB = "random"\n')
    checked = sim.run(str(v), 60, jobs=1, out=tmp_path / "checked", chunk_size=25, progress=False, check=True)
    plain = sim.run(str(v), 60, jobs=1, out=tmp_path / "plain", chunk_size=25, progress=False)
    assert checked.manifest["timings"]["checked"] and not plain.manifest["timings"]["checked"]
    pd.testing.assert_frame_equal(checked.table(), plain.table())
    with pytest.raises(sim.errors.UserError, match="--check plays in worker processes"):
        sim.run(str(v), 10, out=tmp_path / "t", backend="threading", progress=False, check=True)
