"""The balance report's verdict: one row per variant (is it fair, by how much, with which bots,
and whether it holds with stronger play), its forest of intervals, and the warnings above it."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import stats
from sim.reports.analysis import CONF, FAIR_MARGIN, Analysis, groups_of, reason_words
from sim.reports.document import (
    Doc,
    Group,
    Raw,
    ci1,
    ci_pts,
    num,
    pct,
    slug,
)
from sim.stats import skill as skill_mod

# ---- the verdict -----------------------------------------------------------------------------

def unfairness(a: Analysis) -> float:
    """Distance of the first mover's share of decisive games from the fair share (sort key; a
    line-up with a bot that cheats sorts last, as one without games)."""
    if cheating(a):
        return -1.0
    v = a.first_decisive.value if a.first_decisive else math.nan
    return abs(v - 1 / len(a.run.seats)) if np.isfinite(v) else -1.0


def fairness_of(a: Analysis) -> stats.Fairness | None:
    """The first mover's share of decisive games judged by an equivalence test against the fair
    share 1/seats +/- FAIR_MARGIN (stats.fairness): fair, unfair or cannot tell."""
    p = a.first_decisive
    if p is None or not p.n:
        return None
    return stats.fairness(p.successes, p.n, p0=1 / len(a.run.seats), margin=FAIR_MARGIN, conf=CONF)


def verdict_table(analyses: Sequence[Analysis]) -> pd.DataFrame:
    """The verdict as data (ReportResult.verdicts): per variant its line-up, the first mover's
    share of decisive games with its interval, the verdict, the games that would decide it and
    the sentence."""
    rows = []
    for a in analyses:
        f = fairness_of(a)
        word, sentence = fairness_verdict(a)
        rows.append({"variant": a.run.label, "bots": lineup_words(a), "decisive": f.n if f else 0,
                     "first_mover_share": f.share if f else math.nan, "ci_low": f.low if f else math.nan,
                     "ci_high": f.high if f else math.nan, "fair_share": 1 / len(a.run.seats),
                     "verdict": word, "games_needed": f.games_needed if f else None, "sentence": sentence}
                    | skill_columns(a.skill))
    return pd.DataFrame(rows)


def skill_columns(sk: skill_mod.Skill | None) -> dict[str, Any]:
    """The verdict table's skill columns: the strong rung, its share and verdict, the
    difference from the row's share and the answer (NaN / "" where no ladder played it)."""
    ans = sk.answer if sk else None
    s, d = (ans.strong, ans.diff) if ans else (None, None)
    return {"strong_bot": sk.strong_bot if sk else "", "strong_share": s.share if s else math.nan,
            "strong_low": s.low if s else math.nan, "strong_high": s.high if s else math.nan,
            "strong_decisive": s.n if s else 0, "strong_verdict": s.verdict if s else "",
            "skill_diff": d.value if d else math.nan, "skill_diff_low": d.low if d else math.nan,
            "skill_diff_high": d.high if d else math.nan, "skill_p": d.p_value if d else math.nan,
            "with_stronger_play": ans.answer if ans else ("strongest bot" if sk else "")}


SEAT_COUNT_WORDS = {2: "both seats", 3: "all three seats", 4: "all four seats"}


def lineup_words(a: Analysis) -> str:
    """Who played, in words: "greedy on both seats", "mcts on A, greedy on B" (", seats
    rotated" when every seed was played once per rotation)."""
    bots, seats = a.seat_bots, a.run.seats
    if len(set(bots)) == 1:
        words = f"{bots[0]} on {SEAT_COUNT_WORDS.get(len(seats), f'all {len(seats)} seats')}"
    else:
        words = ", ".join(f"{b} on {s}" for s, b in zip(seats, bots, strict=True))
    return words + (", seats rotated" if a.run.rotate else "")


def lineup_label(a: Analysis) -> str:
    """The line-up as a verdict row shows it: "greedy x2", "mcts / greedy"."""
    bots = a.seat_bots
    if len(set(bots)) == 1:
        return f"{bots[0]} x{len(bots)}"
    return " / ".join(bots) + (" (rotated)" if a.run.rotate else "")


def fairness_verdict(a: Analysis) -> tuple[str, str]:
    """(verdict word, sentence) about the first mover's share of decisive games, naming who
    played ("With greedy on both seats, the first player wins ...")."""
    f = fairness_of(a)
    who = f"With {lineup_words(a)}"
    if cheating(a):
        return CHEAT_VERDICT, (f"{who}: no verdict: {', '.join(cheating(a))} sees every hidden hand and what is "
                               "left to draw (it cheats), so these games do not measure the rules under fair "
                               "play; its ladder shows it as the ceiling of skill.")
    if f is None:
        return "no games", f"{who}: no decisive games: nothing to say about the first player."
    if a.repeats:
        return "cannot tell", (f"{who}: no verdict: {repeats_text(a)}. The first player wins "
                               f"{100 * f.share:.1f}% of decisive games, but not of independent ones.")
    return f.verdict, f.sentence(what=f"{who}, the first player", unit="decisive games")


CHEAT_VERDICT = "no verdict: a bot cheats"  # the verdict column of a line-up with a bot that sees hidden state


def cheating(a: Analysis) -> list[str]:
    """The bots of a run's line-up that see hidden state (sim.stats.skill.cheats), each once."""
    return list(dict.fromkeys(b for b in a.seat_bots if skill_mod.cheats(b)))


REPEAT_SHARE = 0.5  # fewer distinct games than this share of the replayed ones: the games repeat


def repeats_text(a: Analysis) -> str:
    d, n = a.repeats or (0, 0)
    return (f"only {d} distinct games among the first {n} replayed (a game without chance played by "
            "bots that always choose alike repeats itself), so its games are not independent trials "
            "and intervals over them would be far too narrow")


def mark_repeats(a: Analysis) -> None:
    """Count distinct games among the replayed ones (move sequences); when they are far fewer
    than the games replayed, refuse the verdict (fairness_verdict) and warn."""
    if a.play is None or not len(a.play.per_game):
        return
    replayed = len(a.play.per_game)
    a.add("distinct_games_replayed", a.play.distinct, n=replayed)
    if a.play.distinct < REPEAT_SHARE * replayed:
        a.repeats = (a.play.distinct, replayed)
        a.warn("repeats", f"{a.run.label}: {repeats_text(a)}: no verdict.")


def verdict_sentence(a: Analysis) -> str:
    _, first = fairness_verdict(a)
    if not a.n:
        return first
    parts = [first]
    if a.ways:
        w = a.ways[0]
        end = f"{w['share']:.0%} of games end by {reason_words(a.run, w['reason'])}"
        if a.spike:
            end += f", {a.spike[1]:.0%} by turn {a.spike[0]}"
        parts.append(end + ".")
    if a.draw and a.draw.value >= 0.05:
        parts.append(f"{a.draw.value:.0%} are draws.")
    if a.swap is not None:
        parts.append(f"Under the pie rule the second player took the opening in {a.swap.value:.0%} of games "
                     "(seats count by player: A is the player who opened).")
    if a.skill is not None:
        parts.append(a.skill.sentence(a.seat_bots[0]))
    return " ".join(parts)


VERDICT_COLOURS = {"unfair": "#c0392b", "fair": "#1e8449", "cannot tell": "#7f7f7f", CHEAT_VERDICT: "#7f7f7f"}
FOREST_WIDTH = 200  # px: with the bots and the skill columns the table fits 1,400 px


def forest_ticks(lo: float, hi: float) -> list[float]:
    """Round shares (every 5 or 10 points) to mark on the verdict's forest axis."""
    step = 0.05 if hi - lo <= 0.45 else 0.10
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + i * step, 4) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _forest_x(v: float, lo: float, hi: float, width: int) -> float:
    return 4 + (width - 8) * (min(max(v, lo), hi) - lo) / (hi - lo)


def forest_svg(a: Analysis, lo: float, hi: float, width: int = FOREST_WIDTH, height: int = 14) -> str:
    """One row of the verdict's forest plot: the interval and point of the first mover's share
    of decisive games on a shared axis [lo, hi] (faint lines at the axis ticks), with the fair
    share as a dashed line."""
    p = a.first_decisive
    fair = _forest_x(1 / len(a.run.seats), lo, hi, width)
    parts = [f"<svg class='forest' width='{width}' height='{height}' role='img' "
             f"aria-label='first mover share'>"]
    parts += [f"<line x1='{x:.1f}' y1='0' x2='{x:.1f}' y2='{height}' stroke='#e4e4e4'/>"
              for x in (_forest_x(t, lo, hi, width) for t in forest_ticks(lo, hi))]
    parts.append(f"<line x1='{fair:.1f}' y1='0' x2='{fair:.1f}' y2='{height}' stroke='#555' "
                 "stroke-dasharray='3,2'/>")
    if p is not None and p.n:
        colour = VERDICT_COLOURS.get(fairness_verdict(a)[0], "#777")
        y = height / 2
        x0, x1 = _forest_x(p.low, lo, hi, width), _forest_x(p.high, lo, hi, width)
        parts.append(f"<line x1='{x0:.1f}' y1='{y}' x2='{max(x1, x0 + 1):.1f}' y2='{y}' "
                     f"stroke='{colour}' stroke-width='3'/>")
        parts.append(f"<circle cx='{_forest_x(p.value, lo, hi, width):.1f}' cy='{y}' r='3.5' "
                     f"fill='{colour}'/>")
    parts.append("</svg>")
    return "".join(parts)


def forest_axis_svg(lo: float, hi: float, width: int = FOREST_WIDTH, height: int = 16) -> str:
    """The forest column's axis (its header): the tick shares in percent."""
    parts = [f"<svg class='forest-axis' width='{width}' height='{height}' role='img' "
             "aria-label='first mover share axis'>"]
    ticks = forest_ticks(lo, hi)
    for t in ticks:
        x = _forest_x(t, lo, hi, width)
        if 10 <= x <= width - 10:  # a label cut by the edge is left out, its line stays
            parts.append(f"<text x='{x:.1f}' y='12' font-size='10' text-anchor='middle' "
                         f"fill='#333'>{100 * t:.0f}%</text>")
    parts.append("</svg>")
    return "".join(parts)


def forest_axis(analyses: Sequence[Analysis]) -> tuple[float, float]:
    vals = [v for a in analyses if a.first_decisive and a.first_decisive.n
            for v in (a.first_decisive.low, a.first_decisive.high)]
    vals += [1 / len(a.run.seats) for a in analyses]
    lo, hi = min(vals), max(vals)
    pad = max(0.01, 0.05 * (hi - lo))
    return max(0.0, lo - pad), min(1.0, hi + pad)


def verdict_order(analyses: Sequence[Analysis]) -> list[tuple[str, list[Analysis]]]:
    """Groups (game and mode), most unfair first; within a group, most unfair first."""
    groups = [(g, sorted(v, key=lambda a: -unfairness(a))) for g, v in groups_of(analyses).items()]
    return sorted(groups, key=lambda gv: -max(unfairness(a) for a in gv[1]))


def verdict_counts(items: Sequence[Analysis]) -> str:
    """"3 unfair, 1 fair" for a group header: how many variants got each verdict."""
    counts: dict[str, int] = {}
    for a in items:
        word = fairness_verdict(a)[0]
        counts[word] = counts.get(word, 0) + 1
    fair = ", ".join(sorted({pct(1 / len(a.run.seats), 0) for a in items}))
    return (f"{len(items)} variant{'s' if len(items) != 1 else ''}: "
            + ", ".join(f"{c} {w}" for w, c in sorted(counts.items(), key=lambda wc: -wc[1]))
            + f"; fair share {fair}")


VERDICT_ROWS = 66  # rows (variants and group headers) the verdict table shows unfolded: the
# table then ends within the first 1,400 px of the page; beyond that each group shows its most
# and least unfair variant and its reference, the others folded in a table of their own


WORDS_SHOWN = 8  # up to this many variants, their verdict sentences are listed unfolded


def skill_cell(a: Analysis, out: Path) -> Raw:
    """The "with stronger play" cell: the answer and the strong rung's share, linking to its
    ladder page; empty where no ladder played the variant."""
    if a.skill is None:
        return Raw("", "")
    text = a.skill.cell()
    word = a.skill.answer.answer if a.skill.answer else ""
    cls = {"holds with stronger play": "vfair", "changes with stronger play": "vunfair"}.get(word, "")
    title = html.escape(a.skill.sentence(a.seat_bots[0]), quote=True)
    return Raw(f"<a class='{cls}' style='display:block;text-align:left' title='{title}' "
               f"href='{html.escape(a.skill.link(out), quote=True)}'>{html.escape(text)}</a>",
               f"[{text}]({a.skill.link(out)})")


def verdict_rows(items: Sequence[Analysis], lo: float, hi: float, out: Path | None = None) -> list[list[Any]]:
    """The verdict table's rows of these variants (with the skill column when `out`, the
    report's folder, is given)."""
    rows: list[list[Any]] = []
    for a in items:
        word, _ = fairness_verdict(a)
        p = a.first_decisive
        gap_ci = ci_pts(a.gap[1], a.gap[2])
        gap = (Raw(f"<span title='95% interval {html.escape(gap_ci, quote=True)}'>{100 * a.gap[0]:.1f} pts "
                   f"({a.gap[3]}-{a.gap[4]})</span>", f"{100 * a.gap[0]:.1f} pts ({a.gap[3]}-{a.gap[4]}) {gap_ci}")
               if np.isfinite(a.gap[0]) else "n/a")
        stem = a.run.stem + (f" ({a.run.partial})" if a.run.partial else "")
        name = Raw(f"<span title='{html.escape(verdict_sentence(a), quote=True)}'>"
                   f"{html.escape(stem)}</span>", stem)
        rows.append([name, lineup_label(a), f"{pct(p.value, 1)} {ci1(p.low, p.high)}" if p and p.n else "n/a",
                     Raw(forest_svg(a, lo, hi), ""), Raw(f"<b class='v{slug(word)}'>{word}</b>", word),
                     *([skill_cell(a, out)] if out is not None else []),
                     gap, pct(a.draw.value, 1), pct(a.off_board.value, 1) if a.off_board else "n/a",
                     num(a.turns.get("median", math.nan))])
    return rows


def render_verdict(doc: Doc, analyses: Sequence[Analysis], references: dict[str, str] | None = None,
                   out: Path = Path(".")) -> None:
    """The verdict table (one row per variant, grouped, most unfair first, with its forest
    column), then each variant's sentence. `references`: each group's reference variant label,
    kept in view when a long table folds."""
    doc.h(2, "Verdict")
    doc.p("The first mover's share of decisive games (draws left out) with its 95% interval, drawn "
          "on one axis for every row against the fair share 1/seats (dashed), with the bots that "
          f"played each row. Verdict: {stats.verdict_rule(FAIR_MARGIN)} (green: fair, red: "
          "unfair, grey: cannot tell). Grouped by game and mode, most unfair first; hover a "
          "variant for its sentence (all are listed below).")
    lo, hi = forest_axis(analyses)
    skill_out = out if any(a.skill for a in analyses) else None
    head = ["variant", "bots", "first mover's share", Raw(forest_axis_svg(lo, hi), f"forest ({pct(lo, 0)} "
            f"to {pct(hi, 0)})"), "verdict",
            *([Raw("with stronger play (<a href='ladders.html'>ladders</a>)",
                   "with stronger play ([ladders](ladders.html))")] if skill_out else []),
            Raw("<span title='the largest gap between two seats&#39; win rates (hover a cell for its 95% "
                "interval)'>seat gap</span>", "largest seat gap"), "draws", "off the board", "median turns"]
    order = verdict_order(analyses)
    fold = len(analyses) + len(order) > VERDICT_ROWS
    rows: list[Any] = []
    folded: list[tuple[str, list[Analysis]]] = []
    for group, items in order:
        shown = list(items)
        if fold and len(items) > 3:
            ref = (references or {}).get(group)
            keep = {id(items[0]), id(items[-1])} | {id(a) for a in items if a.run.label == ref or a.skill}
            shown = [a for a in items if id(a) in keep]
            folded.append((group, [a for a in items if id(a) not in keep]))
        more = f"; {len(items) - len(shown)} more folded below the table" if len(shown) < len(items) else ""
        rows.append(Group(f"{group} ({verdict_counts(items)}{more})"))
        rows += verdict_rows(shown, lo, hi, skill_out)
    doc.table(head, rows, cls="verdict")
    if skill_out:
        doc.p("With stronger play: the first mover's share with the strongest bot of the variant's "
              "skill ladder on every seat, judged by the same rule, against the row's (two-proportion "
              "test): holds, changes, or cannot tell yet (docs/glossary.md); each links to its ladder.")
    for group, rest in folded:
        doc.fold(f"{group}: the other {len(rest)} variants")
        doc.table(head, verdict_rows(rest, lo, hi, skill_out), cls="verdict")
        doc.endfold()
    doc.fig("forest", "First mover's share of decisive games per variant, 95% intervals "
                      "(dashed: fair share)", md_only=True)
    doc.h(3, "In words")
    if len(analyses) <= WORDS_SHOWN:  # a few sentences are read as they are, not folded
        doc.items([f"{a.run.label}: {verdict_sentence(a)}" for _, items in order for a in items])
        return
    for group, items in order:
        worst = items[0]
        doc.fold(f"{group}: {worst.run.stem}: {verdict_sentence(worst)}"
                 + (f" (and {len(items) - 1} more)" if len(items) > 1 else ""))
        doc.items([f"{a.run.label}: {verdict_sentence(a)}" for a in items])
        doc.endfold()


WARNING_KINDS = {"incomplete": "unfinished runs", "non_win": "decided mostly off the board",
                 "draws": "mostly draws", "degenerate": "a spike of short games (degenerate strategy?)",
                 "dominant": "one way to end dominates", "repeats": "games that repeat (no verdict)"}


def render_warnings(doc: Doc, analyses: Sequence[Analysis]) -> None:
    """Result warnings, one box per kind, naming every variant it applies to (in HTML the box
    is one line, the variants' texts folded inside it)."""
    kinds: dict[str, list[tuple[str, str]]] = {}
    for a in analyses:
        for kind, text in a.flags:
            kinds.setdefault(kind, []).append((a.run.label, text))
    for kind, found in kinds.items():
        texts = [t for _, t in found]
        if len(texts) == 1:
            doc.warn(texts[0])
        else:
            doc.warn(f"{len(texts)} variants: " + "; ".join(texts),
                     f"{WARNING_KINDS.get(kind, kind)} in {len(texts)} variants: "
                     + ", ".join(label for label, _ in found))
