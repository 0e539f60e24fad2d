"""Runner: parts + manifest, identical tables for any jobs/chunking, resume, refusal, crashes."""

import json

import numpy as np
import pandas as pd
import pytest

import sim
from sim.errors import UserError
from sim.runs.runner import GameCrash, play_frame
from sim.runs.variants import load

TEXT = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n[seats]\nA = "random"\nB = "greedy"\n'


@pytest.fixture
def variant(variant_file):
    return load(str(variant_file("v.toml", TEXT)))


def test_table_columns_and_manifest(variant, tmp_path):
    r = sim.run(variant, 100, seed=3, jobs=1, out=tmp_path / "r", chunk_size=30, progress=False)
    df = r.table()
    assert list(df.columns[:8]) == ["variant", "variant_hash", "game", "seed", "rotation",
                                    "bot_A", "bot_B", "first_seat"]
    assert {"winner", "end_reason", "turns", "score_A", "score_B", "racedice_margin"} <= set(df)
    assert df["game"].tolist() == list(range(100))
    assert set(df["end_reason"].astype(str)) <= {"goal", "turn_cap"}
    assert df["bot_B"].astype(str).unique().tolist() == ["greedy"]
    m = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert m["status"] == "complete" and m["games"] == 100 and m["seed"] == 3
    assert m["variant"]["rules"]["goal"] == 25 and m["variant_hash"] == variant.hash
    assert m["seat_labels"] == {"A": "random", "B": "greedy"}  # default bot parameters not repeated
    assert len(list((tmp_path / "r" / "games").glob("part-*.parquet"))) == 4
    assert m["timings"]["games_played_now"] == 100


def test_same_table_for_any_jobs_and_chunks(variant, tmp_path):
    a = sim.run(variant, 90, seed=1, jobs=1, out=tmp_path / "a", chunk_size=90, progress=False)
    b = sim.run(variant, 90, seed=1, jobs=2, out=tmp_path / "b", chunk_size=7, progress=False)
    c = sim.run(variant, 90, seed=1, jobs=2, out=tmp_path / "c", chunk_size=13,
                backend="threading", progress=False)
    pd.testing.assert_frame_equal(a.table(), b.table())
    pd.testing.assert_frame_equal(a.table(), c.table())
    d = sim.run(variant, 90, seed=2, jobs=1, out=tmp_path / "d", progress=False)
    assert not a.table()["seed"].equals(d.table()["seed"])


def test_rotate_seats_plays_every_seed_in_every_seat(variant, tmp_path):
    r = sim.run(variant, 20, jobs=1, out=tmp_path / "r", rotate_seats=True, progress=False)
    df = r.table()
    assert len(df) == 40
    assert (df.groupby("rotation")["seed"].apply(list).tolist()[0]
            == df.groupby("rotation")["seed"].apply(list).tolist()[1])
    rot1 = df[df.rotation == 1]
    assert set(rot1["bot_A"].astype(str)) == {"greedy"} and set(rot1["bot_B"].astype(str)) == {"random"}


def test_resume_keeps_finished_parts(variant, tmp_path):
    out = tmp_path / "r"
    full = sim.run(variant, 60, jobs=1, out=out, chunk_size=10, progress=False).table()
    parts = sorted((out / "games").glob("part-*"))
    keep_mtime = parts[0].stat().st_mtime_ns
    parts[3].unlink()
    parts[5].unlink()
    (out / "games" / ".part-r00-000000000010.parquet.tmp").write_text("half written")
    r = sim.run(variant, 60, jobs=1, out=out, progress=False)
    assert r.manifest["timings"]["games_resumed"] == 40
    assert r.manifest["timings"]["games_played_now"] == 20
    assert parts[0].stat().st_mtime_ns == keep_mtime
    assert not list((out / "games").glob(".*tmp"))
    pd.testing.assert_frame_equal(full, r.table())


def test_refuses_to_mix_runs(variant, tmp_path, variant_file):
    out = tmp_path / "r"
    sim.run(variant, 20, jobs=1, out=out, progress=False)
    with pytest.raises(UserError, match="seed = 0, this command asks for 1"):
        sim.run(variant, 20, seed=1, jobs=1, out=out, progress=False)
    other = load(str(variant_file("o.toml", TEXT.replace("goal = 25", "goal = 26"))))
    with pytest.raises(UserError, match="variant_hash"):
        sim.run(other, 20, jobs=1, out=out, progress=False)
    with pytest.raises(UserError, match="holds 20 games per rotation, this command asks for 10"):
        sim.run(variant, 10, jobs=1, out=out, progress=False)


@pytest.mark.parametrize("rotate", [False, True])
def test_a_run_grows_to_the_table_of_a_fresh_run(variant, tmp_path, rotate):
    """A larger --games on a finished folder plays only the missing games (the partial last
    chunk again), and the table equals a fresh run of the larger size."""
    out = tmp_path / "grow"
    small = sim.run(variant, 25, seed=4, jobs=1, out=out, chunk_size=10, rotate_seats=rotate,
                    progress=False)
    kept = out / "games" / "part-r00-000000000000.parquet"
    mtime = kept.stat().st_mtime_ns
    grown = sim.run(variant, 47, seed=4, jobs=2, out=out, rotate_seats=rotate, progress=False)
    rot = 2 if rotate else 1
    assert grown.manifest["games"] == 47 and grown.manifest["grown_from"] == [25]
    assert grown.manifest["timings"]["games_resumed"] == 20 * rot  # parts 0 and 10 kept
    assert grown.manifest["timings"]["games_played_now"] == 27 * rot
    assert kept.stat().st_mtime_ns == mtime
    fresh = sim.run(variant, 47, seed=4, jobs=1, out=tmp_path / "fresh", chunk_size=47,
                    rotate_seats=rotate, progress=False)
    pd.testing.assert_frame_equal(grown.table(), fresh.table())
    assert len(small.table()) == 47 * rot  # the same folder, now holding the grown table


def test_edited_rules_code_never_resumes_an_old_run(variant, tmp_path, monkeypatch):
    """A run folder played by other rules code is refused (its games would mix with the new
    code's); --replace-stale empties it and plays it again; a matching folder still resumes."""
    out = tmp_path / "r"
    sim.run(variant, 40, jobs=1, out=out, chunk_size=10, progress=False)
    cls = type(variant.game)
    monkeypatch.setattr(cls, "code_hash", lambda self: "0123456789abcdef")
    with pytest.raises(UserError, match="other racedice rules code .*its games would mix"):
        sim.run(variant, 40, jobs=1, out=out, progress=False)
    r = sim.run(variant, 40, jobs=1, out=out, progress=False, replace_stale=True)
    assert r.manifest["code_hash"] == "0123456789abcdef"
    assert r.manifest["timings"]["games_resumed"] == 0 and r.manifest["chunk_size"] == 250
    assert len(list((out / "games").glob("part-*"))) == 1
    again = sim.run(variant, 40, jobs=1, out=out, progress=False, replace_stale=True)
    assert again.manifest["timings"]["games_resumed"] == 40  # matching: resumed, not replayed
    m = json.loads((out / "manifest.json").read_text())
    del m["code_hash"]  # a folder written before manifests recorded the code
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(UserError, match="rules code .*None"):
        sim.run(variant, 40, jobs=1, out=out, progress=False)


def test_code_hash_follows_the_game_package(tmp_path, monkeypatch):
    """Editing any module of a game's package changes its code_hash; other games keep theirs."""
    import importlib
    import sys

    from sim import games

    pkg = tmp_path / "mygame"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .game import GAME\n")
    (pkg / "game.py").write_text("from sim.games.base import Game\n\nclass G(Game):\n    name = 'g'\n\n"
                                 "GAME = G()\n")
    (pkg / "kernel.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = importlib.import_module("mygame").GAME.code_hash()
    assert before == importlib.import_module("mygame").GAME.code_hash()
    (pkg / "kernel.py").write_text("X = 2\n")
    assert importlib.import_module("mygame").GAME.code_hash() != before
    hashes = {n: games.get(n).code_hash() for n in ("hexflow", "flags", "hexatile", "hexatrex")}
    assert len(set(hashes.values())) == 4
    for m in [m for m in sys.modules if m == "mygame" or m.startswith("mygame.")]:
        del sys.modules[m]


def test_crash_names_variant_game_and_seed(variant_file, tmp_path):
    v = load(str(variant_file("c.toml", TEXT.replace("goal = 25", "goal = 25\ncrash_at = 37"))))
    with pytest.raises(GameCrash, match=r"racedice/c: game 37 \(run seed 5.*ValueError: "
                                        r"deliberate crash.*hexsim replay racedice/c --game 37 --seed 5"):
        sim.run(v, 50, seed=5, jobs=1, out=tmp_path / "x", chunk_size=20, progress=False)
    m = json.loads((tmp_path / "x" / "manifest.json").read_text())
    assert m["status"] == "running"  # never looks complete


def test_play_frame_seeds_match_rng(variant):
    from sim.engine.rng import game_seed
    from sim.runs.runner import _Task, rotated

    t = _Task(variant.game, variant.name, variant.hash, variant.rules, rotated(variant.seats, 0),
              0, 5, 3, 9, None)
    f = play_frame(t)
    assert f["seed"].tolist() == [int(game_seed(9, i)) for i in (5, 6, 7)]
    assert f["seed"].dtype == np.uint64
