"""Faults: a killed run resumes with nothing lost or duplicated; a dying worker is retried;
an unwritable folder is a clear error with nothing looking complete."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import sim
from sim.errors import UserError
from sim.runs.variants import load

pytestmark = pytest.mark.slow  # kills and resumes real runs (make test-fast leaves it out)

ROOT = Path(__file__).resolve().parent.parent
TEXT = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'


def hexsim(*args, env_extra=None):
    env = dict(os.environ, HEXSIM_GAMES="tests.fixtures.race_dice", PYTHONPATH=str(ROOT))
    env.update(env_extra or {})
    return [sys.executable, "-m", "sim.cli", *args], env


def test_sigkill_mid_run_then_resume_equals_uninterrupted(variant_file, tmp_path):
    slow = variant_file("slow.toml", TEXT + "slow_ms = 20\n")
    out = tmp_path / "killed"
    cmd, env = hexsim("run", str(slow), "--games", "400", "--jobs", "2", "--chunk-size", "20",
                      "--out", str(out), "--no-progress")
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and len(_listed(out)) < 3:  # parts the manifest vouches for
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers, as a crash would
    proc.wait()
    parts = len(list((out / "games").glob("part-*")))
    assert 3 <= parts < 20, "the kill should land mid-run"
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    res = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    resumed = pd.read_parquet(out / "games")
    fresh = uninterrupted(tmp_path)
    assert resumed["game"].is_unique and len(resumed) == 400
    pd.testing.assert_frame_equal(resumed.drop(columns="variant_hash"), fresh)
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and m["timings"]["games_resumed"] >= 60


def test_ctrl_c_exits_130_and_keeps_every_finished_part(variant_file, tmp_path):
    """Ctrl-C: exit 130, one line, and every part the manifest lists is on disk; the rerun
    plays only the rest and gives the table of an uninterrupted run. The run starts with Ctrl-C's
    default action, as from a terminal: a suite started in the background (`make test &`)
    ignores SIGINT, and a child inherits that, so the run would play on to the end."""
    slow = variant_file("slow.toml", TEXT + "slow_ms = 50\n")
    out = tmp_path / "r"
    cmd, env = hexsim("run", str(slow), "--games", "400", "--jobs", "2", "--chunk-size", "20",
                      "--out", str(out), "--no-progress")
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60
    while time.time() < deadline and len(_listed(out)) < 3:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the run and its workers
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted; finished parts are kept" in err
    listed = _listed(out)
    assert 3 <= len(listed) < 20, "the interrupt should land mid-run"
    assert set(listed) <= {p.name for p in (out / "games").glob("part-*.parquet")}
    res = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    m = json.loads((out / "manifest.json").read_text())
    assert m["timings"]["games_resumed"] >= 20 * len(listed)
    fresh = uninterrupted(tmp_path)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "games").drop(columns="variant_hash"), fresh)


def uninterrupted(tmp_path) -> pd.DataFrame:
    """The 400 games in one chunk, without the sleep (slow_ms only paces the run, so only the
    variant's hash differs: that column is left out)."""
    fast = tmp_path / "unpaced" / "slow.toml"  # the same variant name
    fast.parent.mkdir()
    fast.write_text(TEXT)
    return sim.run(load(str(fast)), 400, jobs=1, out=tmp_path / "fresh", chunk_size=400,
                   progress=False).table().drop(columns="variant_hash")


def _listed(out: Path) -> dict:
    try:
        return json.loads((out / "manifest.json").read_text()).get("parts", {})
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def test_worker_killed_mid_chunk_is_retried(variant_file, tmp_path):
    marker = tmp_path / "killed-once"
    v = load(str(variant_file("k.toml", TEXT + f'kill_at = 33\nkill_once_file = "{marker}"\n')))
    r = sim.run(v, 80, jobs=2, out=tmp_path / "r", chunk_size=10, progress=False)
    assert marker.exists()  # a worker really died
    assert r.manifest["timings"]["worker_retries"] == 1
    df = r.table()
    assert df["game"].tolist() == list(range(80))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only modes")
def test_unwritable_output_is_a_clear_error(variant_file, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    with pytest.raises(UserError, match="cannot write"):
        sim.run(load(str(variant_file("v.toml", TEXT))), 10, jobs=1, out=ro / "r", progress=False)


def test_disk_full_leaves_nothing_looking_complete(variant_file, tmp_path, monkeypatch):
    from sim.runs import tables

    v = load(str(variant_file("v.toml", TEXT)))
    calls = {"n": 0}
    real = tables.write_part

    def full_after_two(path, frame):
        calls["n"] += 1
        if calls["n"] > 2:
            raise OSError(28, "No space left on device")
        real(path, frame)

    monkeypatch.setattr(tables, "write_part", full_after_two)
    out = tmp_path / "r"
    with pytest.raises(UserError, match="No space left on device.*rerun the same command"):
        sim.run(v, 50, jobs=1, out=out, chunk_size=10, progress=False)
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    assert len(list((out / "games").glob("part-*"))) == 2
    assert not list((out / "games").glob(".*"))
    monkeypatch.setattr(tables, "write_part", real)
    r = sim.run(v, 50, jobs=1, out=out, progress=False)
    assert r.manifest["status"] == "complete" and len(r.table()) == 50


def test_write_part_is_atomic_on_failure(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from sim.runs import tables

    def broken(table, where, **kw):
        Path(where).write_text("partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError):
        tables.write_part(tmp_path / "part-x.parquet", pd.DataFrame({"a": [1]}))
    assert list(tmp_path.iterdir()) == []
