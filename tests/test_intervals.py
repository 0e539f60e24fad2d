"""Intervals clipped to a metric's range, a collapsed Elo interval said in words."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from sim import intervals, ladder_report, playmetrics, reporting, stats
from sim.ladder import skill_tables


def test_clip_and_text_keep_an_interval_inside_its_range():
    assert intervals.clip(0.12, 1.04, intervals.SHARE) == (0.12, 1.0)
    assert intervals.clip(-3.0, 5.0, intervals.COUNT) == (0.0, 5.0)
    assert intervals.clip(-2.0, 2.0) == (-2.0, 2.0)  # no range: untouched
    assert all(math.isnan(x) for x in intervals.clip(math.nan, math.nan, intervals.SHARE))
    assert intervals.text(0.12, 1.04, "{:.2f}".format, intervals.SHARE) == "[0.12, 1.00]"
    assert intervals.text(math.nan, 1.0, empty="n/a") == "n/a"
    assert reporting.ci(-0.01, 1.2) == "[0.00%, 100.00%]"
    assert reporting.ci(-2.0, 7.5, False, intervals.COUNT) == "[0, 7.5]"
    assert reporting.ci1(0.95, 1.02) == "(95.0-100.0)"
    assert reporting.ci_pts(-1.3, 0.2) == "[-100.0, +20.0]"


def test_play_metrics_intervals_stay_in_range():
    """The path that printed decisiveness [0.12, 1.04]: a Student-t interval over a few games
    near 1, summarised and printed in "how games play"."""
    dec = np.array([1.0] * 8 + [0.6] * 2)
    per_game = pd.DataFrame({"decision_moves": np.ones(10), "branching_factor": np.r_[np.ones(9), 9.0],
                             "lead_change": np.r_[np.zeros(9), 0.5], "decisiveness": dec,
                             "drama": np.r_[np.zeros(9), 0.4], "winner": np.zeros(10, dtype=int)})
    raw = stats.mean_interval(dec)
    assert raw.high > 1 and raw.low > 0  # unclipped: [0.80, 1.04]
    summary = playmetrics.summarise(per_game)
    for r in summary.itertuples():
        lo, hi = playmetrics.BOUNDS[r.metric]
        assert lo <= r.low <= r.value <= r.high <= hi, r
    row = next(r for r in summary.itertuples() if r.metric == "decisiveness")
    assert row.high == 1.0 and row.low == pytest.approx(raw.low)
    assert reporting._play_cell(row) == f"0.92 [{raw.low:.2f}, 1.00]"
    assert all(r.low >= 0 for r in summary.itertuples())  # lead change, drama: not below 0


def _one_sided_pairing(n: int = 60):
    """random against greedy, greedy winning every game (seats rotated)."""
    seats = ["A", "B"]
    first = np.arange(n) % 2  # greedy in seat A on even games, in B on odd ones
    df = pd.DataFrame({"winner": first, "first_seat": np.zeros(n, dtype=int),
                       "bot_A": np.where(first == 0, "greedy", "random"),
                       "bot_B": np.where(first == 0, "random", "greedy")})
    return SimpleNamespace(df=df, seats=seats, manifest={"seat_labels": {"A": "greedy", "B": "random"}})


def test_a_collapsed_elo_interval_is_not_printed_as_precise():
    t = skill_tables({("random", "greedy"): [_one_sided_pairing()]}, {}, ["random", "greedy"], set(),
                     n_boot=50)
    g = t.ratings.set_index("bot").loc["greedy"]
    assert g["elo_low"] == g["elo_high"]  # every replicate the same: greedy won every game
    doc = reporting.Doc()
    ladder_report._rating_blocks(doc, t, 2)
    md = doc.markdown({})
    elo = f"{g['elo']:.0f}"
    assert f"[{elo}, {elo}]" not in md
    assert "unbounded (one-sided games)" in md and "none (the anchor)" in md
    assert intervals.elo_text(100.0, 180.0) == "[100, 180]"
