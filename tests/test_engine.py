"""The engine interface (sim/engine/drivers.py) through its fixture game, Hex (tests/fixtures/hexgame):
ASCII scenarios of the rule functions, the interface's contract, the shared game checks, and
every workflow (run, report, compare, sweep, baseline save / check) on a game built from it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim import engine, games
from sim.games.base import SeatBot
from tests.fixtures.hexgame import GAME
from tests.fixtures.hexgame import kernel as hk
from tests.game_checks import check_game, seats_for

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(GAME)
    return GAME


def position(picture: str, to_move: int, swap: bool = False):
    """A Hex position from rows of `.`, `A`, `B` (row 0 first; indentation is decoration)."""
    rows = [r.split() for r in picture.strip().splitlines()]
    n = len(rows)
    t = hk.build_tables(n, swap, "A")
    board = np.full(n * n, hk.EMPTY, np.int8)
    for r, row in enumerate(rows):
        assert len(row) == n, picture
        for c, ch in enumerate(row):
            if ch != ".":
                board[r * n + c] = "AB".index(ch)
    st = np.zeros(7, np.int64)
    st[hk.TO_MOVE] = to_move
    st[hk.WINNER] = -1
    st[hk.DECISIONS] = int((board >= 0).sum())
    st[hk.STONES_A] = int((board == 0).sum())
    st[hk.STONES_B] = int((board == 1).sum())
    return t, hk.with_stones(t, board, st)


def greedy_choice(t, pos, seat, defense=1.0, seed=7):
    _, rng = engine.start(t, np.uint64(seed))
    return int(engine.bot_choice(t, pos, seat, hk.BOT_GREEDY, np.array([defense]), rng))


def test_legal_moves_are_the_empty_cells_and_a_win_ends_the_game():
    t, pos = position("""
        A . .
         A B .
          . B .
    """, to_move=0)
    assert list(engine.moves_of(t, pos)) == [1, 2, 5, 6, 8]
    assert engine.seat_to_move(t, pos) == 0
    _, rng = engine.start(t, np.uint64(1))
    engine.play(t, pos, np.int64(6), rng)  # A completes the column-0 chain: rows 0, 1, 2
    assert engine.seat_to_move(t, pos) == -1
    assert list(engine.moves_of(t, pos)) == []
    res = engine.outcome(t, pos, False)
    assert res[engine.WINNER] == 0 and res[engine.TURNS] == 5
    assert list(res[engine.SCORES:engine.SCORES + 2]) == [3, 2]


def test_greedy_takes_a_win_and_blocks_a_threat():
    t, pos = position("""
        A . .
         A B .
          . B .
    """, to_move=0)
    assert greedy_choice(t, pos, 0) == 6  # A wins at once
    t, pos = position("""
        A . .
         A B .
          . B .
    """, to_move=1)
    # B joins left to right through the middle row only via cell 5; A wins at 6, so B must take 6
    assert greedy_choice(t, pos, 1) == 6


def test_evaluate_is_the_distance_difference():
    t, pos = position("""
        . . .
         . A .
          . . .
    """, to_move=1)
    # A needs 2 more stones (top and bottom of the centre), B needs 3 (a whole row)
    assert engine.value_of(t, pos, 0) == 3 - 2
    assert engine.value_of(t, pos, 1) == 2 - 3


def test_swap_only_on_the_second_decision_and_mirrors_the_stone():
    t, pos = position("""
        . . .
         . . A
          . . .
    """, to_move=1, swap=True)
    moves = list(engine.moves_of(t, pos))
    assert 9 in moves  # the swap move, n * n
    _, rng = engine.start(t, np.uint64(1))
    engine.play(t, pos, np.int64(9), rng)
    board = np.asarray(pos.board)
    # A's stone at row 1, col 2 becomes B's at row 2, col 1
    assert board[2 * 3 + 1] == 1 and (board >= 0).sum() == 1
    assert pos.st[hk.STONES_A] == 0 and pos.st[hk.STONES_B] == 1
    assert 9 not in list(engine.moves_of(t, pos))


def test_copy_position_is_independent():
    t, pos = position(". . .\n. . .\n. . .", to_move=0)
    cp = engine.copy_of(t, pos)
    _, rng = engine.start(t, np.uint64(1))
    engine.play(t, cp, np.int64(4), rng)
    assert (np.asarray(pos.board) == hk.EMPTY).all() and np.asarray(cp.board)[4] == 0


def test_implement_refuses_an_incomplete_game():
    from typing import NamedTuple

    class T(NamedTuple):
        n_seats: int
        max_moves: int
        turn_cap: int
        res_width: int

    with pytest.raises(TypeError, match="missing"):
        engine.implement(T, new_position=hk.new_position)

    class Bad(NamedTuple):
        n: int

    fns = {name: getattr(hk, name) for name in engine.FUNCTIONS}
    with pytest.raises(TypeError, match="must start with the fields"):
        engine.implement(Bad, **fns)
    with pytest.raises(TypeError, match="rollout_bots without a rollout"):
        engine.implement(T, rollout_bots=(0,), **fns)
    with pytest.raises(TypeError, match="costly_bots and costly_move go together"):
        engine.implement(T, costly_bots=(2,), **fns)
    with pytest.raises(TypeError, match="costly_bots and costly_move go together"):
        engine.implement(T, costly_move=hk.costly_move, **fns)


def test_a_game_without_rollout_bots_plays_every_one_bot_line_up_by_its_rollout():
    """`implement`'s rollout_bots left out: every bot of the game's plays alone by its rollout;
    named: only those; a game without a rollout of its own: none (its default is the loop)."""
    from typing import NamedTuple

    class T(NamedTuple):
        n_seats: int
        max_moves: int
        turn_cap: int
        res_width: int

    class U(T):
        pass

    fns = {name: getattr(hk, name) for name in engine.FUNCTIONS}
    roll = {"rollout": hk.new_position}  # registration only: never compiled here
    engine.implement(T, **fns, **roll)
    engine.implement(U, rollout_bots=(3,), **fns, **roll)
    assert engine.plays_by_rollout(T, 1) and engine.plays_by_rollout(T, 3)
    assert engine.plays_by_rollout(U, 3) and not engine.plays_by_rollout(U, 1)
    assert not engine.plays_by_rollout(type(GAME.tables(GAME.resolve_rules({}, "t"))), 1)


@pytest.mark.parametrize("rules, bots", [
    ({}, "random"), ({}, "greedy"), ({"swap": True, "size": 4}, ["greedy", "random"]),
    ({"first": "random", "size": 7}, "random"), ({"size": 2}, "greedy"),
    ({"swap": True, "size": 4}, ["minimax", "greedy"]), ({"size": 3}, "minimax"),  # the costly bot
])
def test_hex_passes_the_shared_game_checks(rules, bots):
    cols = check_game(GAME, rules, bots, n=60, traced=5)
    assert (cols["winner"] >= 0).all()  # Hex is never drawn


def test_hex_passes_the_packaged_checks_in_full():
    """sim.testing as an outside game would run it: picture, Parquet round trip, report metrics
    and their replicates, warm-up."""
    from sim.testing import check_game as full_check

    full_check(GAME, {"swap": True}, ["greedy", "mcts"], n=24, traced=3, draw=True, table=True, warm=True)


def test_swap_is_used_and_verified():
    rules = GAME.resolve_rules({"swap": True, "size": 4}, "test")
    cols = GAME.play_chunk(rules, seats_for(GAME, rules, "greedy"), 0, 200, 3)
    assert cols["hex_swapped"].any()
    i = int(np.flatnonzero(cols["hex_swapped"])[0])
    trace = GAME.play_traced(rules, seats_for(GAME, rules, "greedy"), i, 3)
    assert trace.moves[1]["text"] == "swap"
    GAME.verify_trace(trace)


def test_verify_trace_catches_an_illegal_move_and_a_wrong_result():
    rules = GAME.resolve_rules({}, "test")
    trace = GAME.play_traced(rules, seats_for(GAME, rules, "random"), 0, 1)
    bad = trace.data["rec"].copy()
    bad[1, 1] = bad[0, 1]  # the second stone on the first one
    with pytest.raises(AssertionError, match="not legal"):
        GAME.verify_trace(type(trace)(**{**trace.__dict__, "data": {"rec": bad}}))
    wrong = dict(trace.row, winner=np.int8(1 - trace.row["winner"]))
    with pytest.raises(AssertionError, match="winner"):
        GAME.verify_trace(type(trace)(**{**trace.__dict__, "row": wrong}))


def test_bot_parameters_reach_the_kernel():
    rules = GAME.resolve_rules({"size": 6}, "test")
    greedy = GAME.bot("greedy", "test")
    a = GAME.play_chunk(rules, [SeatBot(greedy, {"defense": 1.0}), SeatBot(greedy, {"defense": 1.0})], 0, 100, 5)
    b = GAME.play_chunk(rules, [SeatBot(greedy, {"defense": 0.0}), SeatBot(greedy, {"defense": 1.0})], 0, 100, 5)
    assert (a["turns"] != b["turns"]).any()


def test_greedy_beats_random():
    rules = GAME.resolve_rules({"size": 6}, "test")
    cols = GAME.play_chunk(rules, seats_for(GAME, rules, ["greedy", "random"]), 0, 200, 9)
    assert (cols["winner"] == 0).mean() > 0.95


VARIANT = 'game = "hex"\ndescription = "Hex 5x5, greedy against greedy."\n[rules]\nsize = 5\n'


@pytest.fixture
def hex_env(monkeypatch, tmp_path):
    """Worker processes find the fixture as a plug-in, as an outside game would be found."""
    monkeypatch.setenv("HEXSIM_GAMES", "tests.fixtures.hexgame")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    v = tmp_path / "hex5.toml"
    v.write_text(VARIANT)
    return v


def test_same_table_for_any_jobs_and_chunking(hex_env, tmp_path):
    import sim

    v = sim.load_variant(str(hex_env))
    one = sim.run(v, 600, seed=4, jobs=1, out=tmp_path / "one", progress=False).table()
    two = sim.run(v, 600, seed=4, jobs=2, chunk_size=128, out=tmp_path / "two", progress=False).table()
    cols = [c for c in one.columns if c not in ("variant",)]
    pd.testing.assert_frame_equal(one[cols].reset_index(drop=True), two[cols].reset_index(drop=True))


def test_workflows_on_an_engine_game(hex_env, tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app

    cli = CliRunner()
    b = tmp_path / "hex5_swap.toml"
    b.write_text(VARIANT.replace("size = 5", "size = 5\nswap = true"))
    res = cli.invoke(app, ["run", str(hex_env), "--games", "300", "--jobs", "1", "--out",
                           str(tmp_path / "run"), "--no-progress"])
    assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "rep" / "report.html").exists()
    res = cli.invoke(app, ["compare", str(hex_env), str(b), "--games", "300", "--jobs", "1",
                           "--out", str(tmp_path / "cmp")])
    assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["sweep", str(hex_env), "--set", "rules.size=3,4", "--games", "200",
                           "--jobs", "1", "--out", str(tmp_path / "sw")])
    assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["baseline", "save", str(hex_env), "--games", "300", "--out", str(tmp_path / "bl")])
    assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["check", str(tmp_path / "bl")])
    assert res.exit_code == 0, res.output
    res = cli.invoke(app, ["replay", str(hex_env), "--game", "2", "--out", str(tmp_path / "g2.png")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "g2.png").stat().st_size > 0


def test_the_fixture_is_small():
    """The guide's claim: a complete game on the engine in a few hundred lines."""
    lines = sum(len(p.read_text().splitlines()) for p in (ROOT / "tests/fixtures/hexgame").glob("*.py"))
    assert lines < 450, lines


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
