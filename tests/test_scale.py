"""sim.perf.scale: the memory/throughput recorder behind the 1M/10M scale check (issue 8)."""

import json
import os
import sys

import pandas as pd

from sim.perf import scale
from tests.conftest import ROOT

TEXT = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'


def test_tree_and_memory_of_a_child():
    """A sleeping child that holds 200 MB shows in the tree's RSS and PSS."""
    code = "import time; b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096]); time.sleep(3)"
    res = scale.watch([sys.executable, "-c", code], 0.1)
    assert res["seconds"] >= 3
    assert res["peak_rss_mb"] > 200 and 200 < res["peak_pss_mb"] <= res["peak_rss_mb"]
    assert os.getpid() in scale.tree(os.getppid())


def test_phases_split_the_run_in_fifths():
    # (t, rss, pss, games done): 100 games/s throughout, memory flat
    timeline = [[t, 50.0, 40.0, min(1000, 100 * t)] for t in range(12)]
    fifths = scale.phases(timeline, 1000)["fifths"]
    assert [f["games_from"] for f in fifths] == [0, 200, 400, 600, 800]
    assert all(f["games_per_second"] == 100.0 for f in fifths)
    assert all(f["peak_rss_mb"] == 50.0 for f in fifths)


def test_main_runs_and_reports(tmp_path, monkeypatch, capsys):
    v = tmp_path / "v.toml"
    v.write_text(TEXT)
    monkeypatch.setenv("HEXSIM_GAMES", "tests.fixtures.race_dice")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    out, js = tmp_path / "run", tmp_path / "scale.json"
    assert scale.main([str(v), "--games", "3000", "--jobs", "1", "--out", str(out), "--report",
                       "--interval", "0.05", "--json", str(js)]) == 0
    result = json.loads(js.read_text())
    assert result["run"]["peak_rss_mb"] > 0 and result["report"]["seconds"] > 0
    assert len(pd.read_parquet(out / "games")) == 3000
    assert (tmp_path / "run-report" / "report.md").exists()
    assert "games/s" in capsys.readouterr().out


def test_a_failed_or_killed_run_is_still_recorded(tmp_path, capsys):
    """The child exits non-zero (here: an unknown variant): the tool says so, writes what it
    measured up to there with the exit code, and returns 1."""
    js = tmp_path / "s.json"
    assert scale.main(["nosuchgame/x", "--games", "10", "--jobs", "1", "--out", str(tmp_path / "r"),
                       "--json", str(js), "--interval", "0.05"]) == 1
    result = json.loads(js.read_text())
    assert result["run"]["exit_code"] == 2 and result["run"]["games_done"] == 0
    assert "recording the run up to there" in capsys.readouterr().err
