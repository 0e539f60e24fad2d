"""Report figures (matplotlib, Agg backend). Each function takes already-aggregated numbers (the
report computes them once from the outcome table) and returns a Figure; `png` turns it into bytes.
Many variants stay legible: forest plots (one row per variant or seat, grouped, the height grows
with the rows) and small multiples (one panel per variant, one shared legend), never one plot
with a legend entry per variant.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib
import matplotlib.colors
import matplotlib.patches
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402


def png(fig: Figure, dpi: int = 110) -> bytes:
    buf = io.BytesIO()
    # a constrained layout already fits every label and its outside legend in the figure: cropping
    # to the tight box would lay the small multiples out and draw them twice
    constrained = isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches=None if constrained else "tight")
    plt.close(fig)
    return buf.getvalue()


def _colors(n: int) -> list:
    cmap = plt.get_cmap("tab10")
    return [cmap(i % 10) for i in range(n)]


def score_distributions(scores: Mapping[str, Mapping[str, tuple[np.ndarray, np.ndarray]]],
                        cols: int = 4) -> Figure:
    """Score distributions as small multiples: one panel per variant, its seats overlaid (share
    of games per bin; a few seats, so a few clearly different colours and one legend).

    `scores[seat][variant] = (bin_edges, counts)`.
    """
    seats = list(scores)
    variants: list[str] = []
    for per in scores.values():
        variants += [v for v in per if v not in variants]
    colors = dict(zip(seats, _colors(len(seats)), strict=True))
    cols = max(1, min(cols, len(variants)))
    rows = -(-len(variants) // cols) or 1
    fig, axes = plt.subplots(rows, cols, figsize=(3.3 * cols, 1.6 * rows + 0.6), squeeze=False,
                             layout="constrained")
    for ax, variant in zip(axes.flat, variants, strict=False):
        for seat in seats:
            if variant in scores[seat]:
                edges, counts = scores[seat][variant]
                total = max(int(np.sum(counts)), 1)
                ax.stairs(np.asarray(counts) / total, edges, color=colors[seat], lw=1.3)
        ax.set_title(variant, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(variants):]:
        ax.axis("off")
    handles = [Line2D([], [], color=colors[s], lw=1.5, label=f"seat {s}") for s in seats]
    fig.legend(handles=handles, loc="outside upper center", ncol=min(len(seats), 6), fontsize=7,
               frameon=False, title="score distribution (share of games per score)", title_fontsize=8)
    return fig


def histogram(values: np.ndarray, max_bins: int = 60, lo: float | None = None,
              hi: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bin edges and counts: one bin per integer when the values are integers over a short range
    (game lengths, most scores), otherwise up to `max_bins` equal bins over [lo, hi]."""
    v = np.asarray(values)
    if v.size == 0:
        return np.array([0.0, 1.0]), np.array([0])
    lo = float(np.min(v)) if lo is None else lo
    hi = float(np.max(v)) if hi is None else hi
    integral = np.issubdtype(v.dtype, np.integer) or bool(np.all(np.mod(v, 1) == 0))
    if integral and hi - lo + 1 <= max_bins * 2:
        lo_i, hi_i = int(np.floor(lo)), int(np.ceil(hi))
        counts = np.bincount((v.astype(np.int64) - lo_i), minlength=hi_i - lo_i + 1)
        return np.arange(lo_i, hi_i + 2, dtype=np.float64) - 0.5, counts
    if hi <= lo:
        hi = lo + 1.0
    counts, edges = np.histogram(v, bins=max_bins, range=(lo, hi))
    return edges, counts


@dataclass
class Interval:
    """One row of a forest plot: a share with its interval and the line it is read against."""

    label: str
    value: float
    low: float
    high: float
    reference: float
    group: str = ""
    colour: str = ""


def forest(rows: Sequence[Interval], title: str, xlabel: str = "share of decisive games") -> Figure:
    """A forest plot: one row per entry (top to bottom in the given order), the point and its
    interval, the reference (fair share) as a dashed mark per row, groups separated by a gap and
    named on the left. Legible with dozens of rows: the height grows with them."""
    rows = list(rows)
    ys, labels, y, last = [], [], 0.0, None
    for r in rows:
        if last is not None and r.group != last:
            y += 0.8
        ys.append(y)
        labels.append(r.label)
        last = r.group
        y += 1
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.22 * max(y, 1)))
    for r, yy in zip(rows, ys, strict=True):
        colour = r.colour or ("#c0392b" if r.low > r.reference or r.high < r.reference else "#1f5fbf")
        ax.plot([r.low, r.high], [yy, yy], color=colour, lw=2.2, solid_capstyle="butt")
        ax.plot(r.value, yy, "o", color=colour, ms=4)
        ax.plot([r.reference, r.reference], [yy - 0.45, yy + 0.45], color="0.35", ls="--", lw=1)
    ax.set_yticks(ys, labels, fontsize=7)
    ax.set_ylim(max(ys, default=0) + 0.8, -0.8)
    ax.set_xlabel(xlabel + " (dashed: fair share)", fontsize=8)
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


@dataclass
class Stacked:
    """One variant's games per length, split by end reason: counts[reason, turn index]."""

    variant: str
    turns: np.ndarray
    counts: np.ndarray
    reasons: Sequence[str]


# one colour per end reason on every page, in every mode and game: the shipped games' reasons
# from a fixed table (related reasons in related hues, the turn cap grey), a plug-in's from a
# hash of the name into PALETTE, moved on past colours its game already uses
REASON_COLOURS = {
    "path": "#1f77b4", "opponent_path": "#aec7e8", "blocked": "#ff7f0e", "self_blocked": "#ffbb78",
    "both_blocked": "#8c564b", "stalemate_closest": "#9467bd", "stalemate_draw": "#c5b0d5",
    "stalemate_score": "#e377c2", "no_move_loss": "#d62728", "turn_cap": "#7f7f7f",
    "flags": "#2ca02c", "tiles_placed": "#bcbd22", "radian": "#17becf", "tiles_out": "#98df8a",
}
PALETTE = tuple(matplotlib.colors.to_hex(plt.get_cmap(name)(i)) for name in ("tab20", "tab20b")
                for i in range(20))


def reason_colours(reasons: Sequence[str]) -> dict[str, str]:
    """A fixed colour per end reason. Pass every reason of the game (Game.end_reasons), not only
    the ones a figure shows, so that a plug-in reason's colour is the same on every page; no two
    of the reasons share a colour (up to len(PALETTE) reasons)."""
    out = {r: REASON_COLOURS[r] for r in reasons if r in REASON_COLOURS}
    for r in sorted(set(reasons) - set(out)):
        start = int(hashlib.sha1(r.encode()).hexdigest(), 16) % len(PALETTE)
        taken = set(out.values())
        out[r] = next((c for i in range(len(PALETTE)) if (c := PALETTE[(start + i) % len(PALETTE)])
                       not in taken), PALETTE[start])
    return out


def length_limits(panels: Sequence[Stacked], pad: float = 3.0) -> list[tuple[float, float]]:
    """Each panel's x range: every one of its games, the turns around it when they span fewer
    than 4 turns. One shared range, the union, when every panel's range is at least half as wide
    as the union (comparable panels read against each other); otherwise each panel its own, so
    a panel of games 10-18 turns long never clips one of 7-42."""
    own = []
    for p in panels:
        t = np.asarray(p.turns, dtype=float)[np.asarray(p.counts).sum(axis=0) > 0] if len(p.turns) else \
            np.zeros(1)
        lo, hi = (float(t.min()), float(t.max())) if t.size else (0.0, 1.0)
        own.append((lo - pad, hi + pad) if hi - lo < 4 else (lo - 0.5, hi + 0.5))
    union = (min(lo for lo, _ in own), max(hi for _, hi in own)) if own else (0.0, 1.0)
    if all(hi - lo >= 0.5 * (union[1] - union[0]) for lo, hi in own):
        return [union] * len(own)
    return own


def stacked_lengths(panels: Sequence[Stacked], title: str, cols: int = 6,
                    all_reasons: Sequence[str] = ()) -> Figure:
    """Small multiples, one panel per variant: share of games per length (turns), stacked by end
    reason in one colour per reason (`reason_colours` of `all_reasons`, the game's, and the
    panels'), one legend for the figure. Six small panels a row, so a mode of a dozen variants
    takes two rows of the page; x ranges by `length_limits`."""
    reasons: list[str] = []
    for p in panels:
        used = [r for r, c in zip(p.reasons, p.counts.sum(axis=1), strict=True) if c > 0]
        reasons += [r for r in used if r not in reasons]
    colours = reason_colours([*dict.fromkeys([*all_reasons, *(r for p in panels for r in p.reasons)])])
    cols = max(1, min(cols, len(panels)))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.2 * cols, 1.05 * rows + 0.55), squeeze=False,
                             layout="constrained")
    for ax, p, lim in zip(axes.flat, panels, length_limits(panels), strict=False):
        _stacked_panel(ax, p, colours)
        ax.set_xlim(*lim)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("turns", fontsize=7)
    handles = [matplotlib.patches.Patch(color=colours[r], label=r) for r in reasons]
    fig.legend(handles=handles, loc="outside upper center", ncol=min(len(reasons), 8), fontsize=7,
               frameon=False, title=title + ": share of games per length, by end reason",
               title_fontsize=8)
    return fig


def _stacked_panel(ax, p: Stacked, colours: Mapping[str, str]) -> None:
    """One variant's share of games per length, stacked by end reason: one filled step outline
    per reason (p.turns are consecutive), not a bar per length, which costs a drawn artist each."""
    total = max(int(p.counts.sum()), 1)
    edges = np.append(p.turns - 0.5, p.turns[-1] + 0.5) if len(p.turns) else np.zeros(1)
    bottom = np.zeros(len(p.turns))
    for r, c in zip(p.reasons, p.counts, strict=True):
        if c.sum() == 0:
            continue
        top = bottom + c / total
        ax.stairs(top, edges, baseline=bottom, fill=True, color=colours[r], linewidth=0)
        bottom = top
    ax.set_title(p.variant, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))  # turns are whole
    ax.grid(axis="y", alpha=0.3)


def differences(rows: Sequence[tuple[str, float, float, float, bool]], title: str) -> Figure:
    """A difference plot: one row per (label, B - A, low, high, changed), in points, against a
    dashed line at 0; changed rows in red. Legible with dozens of rows."""
    rows = list(rows)
    fig, ax = plt.subplots(figsize=(7.5, 0.8 + 0.24 * max(len(rows), 1)))
    for i, (_, d, lo, hi, changed) in enumerate(rows):
        colour = "#c0392b" if changed else "#1f5fbf"
        ax.plot([100 * lo, 100 * hi], [i, i], color=colour, lw=2.2, solid_capstyle="butt")
        ax.plot(100 * d, i, "o", color=colour, ms=4)
    ax.axvline(0, color="0.35", ls="--", lw=1)
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.4, -0.6)
    ax.set_xlabel("difference in points (95% interval; red: changed after Holm)", fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig
