"""Every real game through the whole spine: runner tables identical for --jobs 1 and 2 and any
chunking, report rows the same from a stored table as from the raw chunk, replay draws the game
the table holds."""

import numpy as np
import pandas as pd
import pytest

import sim
from sim.games.base import end_reason_mask
from sim.runs.replay import replay

pytestmark = pytest.mark.slow  # real runs and reports end to end (make test-fast leaves it out)

STANDARD = ["hexflow/race", "flags/standard", "hexatile/standard", "hexatrex/standard"]


@pytest.mark.parametrize("spec", STANDARD)
def test_same_table_for_jobs_and_chunks(spec, tmp_path):
    v = sim.load_variant(spec)
    n = 24
    a = sim.run(v, n, seed=11, jobs=1, out=tmp_path / "a", chunk_size=n, progress=False).table()
    b = sim.run(v, n, seed=11, jobs=2, out=tmp_path / "b", chunk_size=5, progress=False).table()
    pd.testing.assert_frame_equal(a, b)
    assert a["game"].tolist() == list(range(n))


@pytest.mark.parametrize("spec", STANDARD)
def test_report_rows_same_from_stored_table_and_chunk(spec, tmp_path):
    v = sim.load_variant(spec)
    n = 30
    table = sim.run(v, n, seed=2, jobs=1, out=tmp_path / "r", progress=False).table()
    raw = pd.DataFrame(v.game.play_chunk(v.rules, list(v.seats.values()), 0, n, 2))
    assert table["end_reason"].astype(str).tolist() == [v.game.end_reasons[c] for c in raw["end_reason"]]
    for name in v.game.end_reasons:
        np.testing.assert_array_equal(end_reason_mask(table, v.game.end_reasons, name),
                                      end_reason_mask(raw, v.game.end_reasons, name))
    stored = v.game.report_metrics(table, v.rules)
    chunk = v.game.report_metrics(raw, v.rules)
    assert stored and [r["metric"] for r in stored] == [r["metric"] for r in chunk]
    for s, c in zip(stored, chunk, strict=True):
        assert s["value"] == pytest.approx(c["value"], nan_ok=True), s["metric"]


@pytest.mark.parametrize("spec", STANDARD)
def test_replay_is_the_tables_game(spec, tmp_path):
    v = sim.load_variant(spec)
    table = sim.run(v, 6, seed=4, jobs=1, out=tmp_path / "r", progress=False).table()
    png = tmp_path / "g.png"
    trace = replay(spec, 5, seed=4, out=png)
    row = table.iloc[5]
    assert trace.row["winner"] == row["winner"] and trace.row["turns"] == row["turns"]
    assert png.stat().st_size > 5000


def test_report_on_real_runs(tmp_path):
    runs = [sim.run(s, 40, jobs=2, out=tmp_path / s.replace("/", "-"), progress=False).path
            for s in STANDARD]
    res = sim.report(runs, tmp_path / "rep")
    md = res.markdown.read_text()
    for spec in STANDARD:
        assert spec in md
    summary = pd.read_csv(res.csv)
    # the main end-reason table counts every game once per variant
    ends = summary[summary["metric"].str.startswith("end_")]
    for spec in STANDARD:
        assert ends[ends["variant"] == spec]["successes"].sum() == 40
