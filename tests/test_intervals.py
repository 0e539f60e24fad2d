"""Intervals clipped to a metric's range, a collapsed Elo interval said in words, one colour per
end reason on every page, and game-length panels that show every game."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from sim import stats
from sim.reports import balance as reporting
from sim.reports import ladder as ladder_report
from sim.reports import plots, sections
from sim.stats import intervals, playmetrics
from sim.workflows.ladder import skill_tables


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
    assert sections._play_cell(row) == f"0.92 [{raw.low:.2f}, 1.00]"
    assert all(r.low >= 0 for r in summary.itertuples())  # lead change, drama: not below 0


def _one_sided_pairing(n: int = 60):
    """random against greedy, greedy winning every game (seats rotated)."""
    seats = ["A", "B"]
    first = np.arange(n) % 2  # greedy in seat A on even games, in B on odd ones
    df = pd.DataFrame({"winner": first, "first_seat": np.zeros(n, dtype=int),
                       "bot_A": np.where(first == 0, "greedy", "random"),
                       "bot_B": np.where(first == 0, "random", "greedy")})
    return SimpleNamespace(df=df, seats=seats, seat_bots=["greedy", "random"])


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


def _colour_of_bars(fig) -> dict[str, str]:
    from matplotlib.colors import to_hex

    legend = fig.legends[0]
    return {t.get_text(): to_hex(h.get_facecolor()) for t, h in zip(legend.texts, legend.legend_handles,
                                                                     strict=True)}


def test_one_colour_per_end_reason_across_figures():
    reasons = ["path", "blocked", "self_blocked", "turn_cap"]
    counts = lambda used: np.array([[5, 3] if r in used else [0, 0] for r in reasons])  # noqa: E731
    a = plots.stacked_lengths([plots.Stacked("a", np.array([10, 11]), counts({"path", "turn_cap"}), reasons)],
                              "mode A", all_reasons=reasons)
    b = plots.stacked_lengths([plots.Stacked("b", np.array([10, 11]), counts({"blocked", "turn_cap"}),
                                             reasons)], "mode B", all_reasons=reasons)
    ca, cb = _colour_of_bars(a), _colour_of_bars(b)
    assert ca["turn_cap"] == cb["turn_cap"] == plots.REASON_COLOURS["turn_cap"]
    groups = {"path": ("path",), "blocking": ("blocked", "self_blocked"), "turn_cap": ("turn_cap",)}
    by_skill = pd.DataFrame({"bot": ["x", "y"], "elo": [0.0, 100.0]}
                            | {f"ends_{g}{s}": [0.5, 0.5] for g in groups for s in ("", "_low", "_high")})
    from matplotlib.colors import to_hex

    fig = ladder_report.end_reason_figure(SimpleNamespace(by_skill=by_skill, anchor="x"), groups)
    lines = {ln.get_label(): to_hex(ln.get_color()) for ln in fig.axes[0].get_lines()}
    # a group of reasons (the ladder reads blocking ends together) takes its first reason's colour
    assert lines["turn_cap"] == ca["turn_cap"] and lines["path"] == ca["path"]
    assert lines["blocking (blocked, self_blocked)"] == cb["blocked"]


@pytest.mark.parametrize("reasons", [
    ("path", "opponent_path", "blocked", "self_blocked", "both_blocked", "stalemate_closest",
     "stalemate_draw", "no_move_loss", "turn_cap", "stalemate_score"),
    ("flags", "turn_cap"), ("tiles_placed", "radian"), ("won", "stalemate"), ("goal", "turn_cap"),
    tuple(f"reason_{i}" for i in range(25)) + ("path", "turn_cap"),
])
def test_distinct_reasons_of_a_game_get_distinct_stable_colours(reasons):
    colours = plots.reason_colours(reasons)
    assert len(set(colours.values())) == len(reasons)
    assert plots.reason_colours(list(reversed(reasons))) == colours  # order does not matter


def test_every_length_panel_shows_all_its_games():
    reasons = ["path", "turn_cap"]

    def panel(name, lo, hi):
        turns = np.arange(lo, hi + 1)
        return plots.Stacked(name, turns, np.vstack([np.ones(len(turns)), np.zeros(len(turns))]), reasons)

    fig = plots.stacked_lengths([panel("random", 7, 42), panel("greedy", 10, 18), panel("one", 12, 13)], "m")
    for ax, (lo, hi) in zip(fig.axes, [(7, 42), (10, 18), (12, 13)], strict=False):
        x0, x1 = ax.get_xlim()
        assert x0 <= lo - 0.5 and x1 >= hi + 0.5, (ax.get_title(), ax.get_xlim())
    assert fig.axes[1].get_xlim()[1] - fig.axes[1].get_xlim()[0] < 20  # its own range, not random's
    fig = plots.stacked_lengths([panel("a", 10, 30), panel("b", 12, 34)], "m")  # comparable: shared
    assert fig.axes[0].get_xlim() == fig.axes[1].get_xlim() == (9.5, 34.5)
