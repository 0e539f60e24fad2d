"""The balance report's sections below the verdict: why games end, the Ludii measures, play
metrics, comparisons, one section per variant, the appendix and the method notes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.games.base import NON_WIN_WORDS
from sim.reports.analysis import ALPHA, DOMINANT_SHARE, HEADLINE, LUDII, SPIKE_SHARE, Analysis, Comparison, groups_of
from sim.reports.document import (
    Doc,
    Group,
    ci,
    ci1,
    ci_pts,
    num,
    pct,
    prop_cells,
    pval,
    slug,
)
from sim.stats import intervals, metrics


def one_length(a: Analysis) -> bool:
    """Every game of the variant has the same length: its length histogram is one bar, so the
    report says it in words instead of drawing it."""
    return a.end_hist is not None and np.count_nonzero(a.end_hist[1].sum(axis=0)) == 1


def render_why(doc: Doc, analyses: Sequence[Analysis], pictures: dict[str, list]) -> None:
    doc.h(2, "Why games end")
    doc.p("Per mode, each variant's games by length, stacked by end reason; then the ways to end "
          "a game, the shortest game and a flag where a spike of short games or one end reason "
          "dominates (degenerate strategy?). Example games are drawn below each table with the "
          "command that replays them.")
    for group, items in groups_of(analyses).items():
        doc.h(3, group)
        doc.fig(f"ends_{slug(group)}", f"{group}: games per length, stacked by end reason")
        same: dict[tuple[int, str], list[str]] = {}
        for a in items:
            if one_length(a):
                same.setdefault((int(a.end_hist[0][a.end_hist[1].sum(axis=0) > 0][0]),
                                 a.ways[0]["reason"] if len(a.ways) == 1 else "several reasons"),
                                []).append(a.run.stem)
        if same:
            doc.p("Not drawn, every game the same length: " + "; ".join(
                f"{', '.join(stems)} ({turns} turns, {reason})"
                for (turns, reason), stems in same.items()) + ".")
        rows = []
        for a in items:
            if not a.ways:
                rows.append([a.run.stem, "no games", "", "", ""])
                continue
            common = a.ways[0]
            wins = [w for w in a.ways if not w["non_win"]]
            short = min(wins or a.ways, key=lambda w: w["shortest"])
            flag = []
            if a.spike:
                flag.append(f"{a.spike[1]:.0%} over by turn {a.spike[0]}")
            if a.dominant:
                flag.append(f"{a.dominant[1]:.0%} end by {a.dominant[0]}")
            rows.append([a.run.stem, f"{common['reason']} {pct(common['share'], 1)} "
                         f"(median {num(common['median'])})",
                         f"{short['reason']}: {short['shortest']} turns",
                         ", ".join(f"{w['reason']} {pct(w['share'], 1)}" for w in a.ways[1:4]) or "-",
                         ("degenerate strategy? " + "; ".join(flag)) if flag else ""])
        doc.table(["variant", "most common end (median turns)", "shortest win", "other ends",
                   "flag"], rows)
        shown = [(a, pictures.get(a.run.label, [])) for a in items]
        if any(p for _, p in shown):
            doc.fold(f"example games of {group} ({sum(len(p) for _, p in shown)} pictures)")
            for a, pics in shown:
                for pic in pics:
                    doc.picture(pic["key"], f"{a.run.stem}, {pic['title']}: game {pic['game']}, "
                                f"{pic['turns']} turns, {pic['reason']}", pic["command"])
            doc.endfold()
        notes = sorted({a.replay_note for a in items if a.replay_note})
        for note in notes:
            doc.p(note)


def render_ludii(doc: Doc, analyses: Sequence[Analysis]) -> None:
    doc.h(2, "Outcome metrics (Ludii)")
    doc.items([f"{k}: {v}." for k, v in LUDII.items()] + [
        "Balance: 1 - the gap between the highest and lowest seat win rate, with its interval and "
        "the average of a fair game of the same size (noise keeps it below 1); it can read as "
        "fair while the first mover wins most games, so the verdict above uses the first "
        "mover's share."])
    rows: list[Any] = []
    for group, items in groups_of(analyses).items():
        rows.append(Group(group))
        for a in items:
            cells = [a.run.stem]
            for name in LUDII:
                v, lo, hi = a.ludii.get(name, (math.nan, math.nan, math.nan))
                cells.append(f"{pct(v, 1)} {ci1(lo, hi)}" if name != "OutcomeUniformity"
                             else f"{v:.3f} {_ci3(lo, hi)}" if np.isfinite(v) else "n/a")
            cells.append(_balance_cell(a) if a.balance_ci is not None else "n/a")
            rows.append(cells)
    doc.table(["variant", *LUDII, "Balance"], rows)
    render_play(doc, analyses)


def render_play(doc: Doc, analyses: Sequence[Analysis]) -> None:
    """Ludii's play metrics over replayed games, per variant, with what each means."""
    from sim.stats.playmetrics import MEANING, METRICS

    shown = [a for a in analyses if a.play is not None and not a.play.summary.empty]
    missing: dict[str, list[str]] = {}
    for a in analyses:
        if a.play is not None and a.play.note:
            missing.setdefault(a.play.note, []).append(a.run.label)
    if not shown and not missing:
        return
    doc.h(3, "How games play (Ludii's play metrics)")
    doc.p("Each variant's first games (up to 200) re-played from their seeds, measured before every "
          "decision: the legal moves, and every seat's standing by the game's own evaluation (the one "
          "greedy plays by) as a rough chance of winning. Means over games, 95% intervals; "
          "decisiveness and drama over decisive games. A position's evaluation often favours the "
          "player who has just moved, so in games of alternating placements the lead changes at "
          "most decisions: compare lead change between variants of one game, not across games.")
    doc.items([f"{m.replace('_', ' ')}: {MEANING[m]}." for m in METRICS])
    rows: list[Any] = []
    for group, items in groups_of(shown).items():
        rows.append(Group(group))
        for a in items:
            cells = [a.run.stem]
            cells += [_play_cell(r) for r in a.play.summary.itertuples()]
            rows.append(cells)
    if rows:
        doc.table(["variant", *(m.replace("_", " ") for m in METRICS)], rows)
    for note, labels in missing.items():
        doc.p(f"Not measured for {', '.join(labels)}: {note}.")


def _play_cell(r) -> str:
    """A play metric's mean and interval, clipped to the metric's range."""
    from sim.stats.playmetrics import BOUNDS

    fmt = ("{:.1f}" if r.metric == "branching_factor" else "{:.2f}").format
    return "n/a" if not np.isfinite(r.value) else \
        f"{fmt(r.value)} {intervals.text(r.low, r.high, fmt, BOUNDS[r.metric])}".rstrip()


def _comparison_row(r: dict[str, Any]) -> list[str]:
    """A row of a folded comparison table: shares in points, other metrics in their units."""
    name = r["metric"].removeprefix("diff.")
    share = metrics.is_share(name)
    return [r["variant"], name, f"{100 * r['value']:+.2f} pts" if share else num(r["value"]),
            f"{intervals.points(r['ci_low'], r['ci_high'], 2)} pts" if share
            else ci(r["ci_low"], r["ci_high"], as_pct=False),
            pval(r["p_value"]), pval(r["p_holm"]), pval(r["p_bh"]), r["method"]]


def render_comparisons(doc: Doc, comps: Sequence[Comparison]) -> None:
    doc.h(2, "Within each mode, against its reference")
    doc.p("Each variant minus its mode's reference variant (--reference to choose another): "
          "difference in points with Newcombe's 95% interval (length: bootstrap), Holm-adjusted "
          "p over the mode's whole table. Games of different modes or games are never compared.")
    for c in comps:
        doc.h(3, f"{c.group}: against {c.baseline}")
        by: dict[str, dict[str, dict[str, Any]]] = {}
        for r in c.rows:
            by.setdefault(r["variant"], {})[r["metric"].removeprefix("diff.")] = r
        rows = []
        for label, ms in by.items():
            cells = [label.removesuffix(f" vs {c.baseline}").rsplit("/", 1)[-1]]
            for m in HEADLINE:
                r = ms.get(m)
                if r is None:
                    cells.append("-")
                    continue
                mark = " *" if r["p_holm"] < ALPHA else ""
                if m.startswith("turns"):
                    cells.append(f"{r['value']:+.1f} [{r['ci_low']:+.1f}, {r['ci_high']:+.1f}]{mark}")
                else:
                    cells.append(f"{100 * r['value']:+.1f} {ci_pts(r['ci_low'], r['ci_high'])}{mark}")
            rows.append(cells)
        doc.table(["variant", "first mover's share (pts)", "draws (pts)", "off the board (pts)",
                   "median turns"], rows)
        doc.p("* Holm-adjusted p < 0.05. Smallest seat win-rate change these sample sizes detect "
              f"with 80% power at the table's Holm level (5% / {len(c.rows)} tests, its strictest step): "
              + ", ".join(f"{pct(v, 1)}" for v in sorted(set(c.mde.values()))[:3]) + ".")
        doc.fold(f"every metric of {c.group} against {c.baseline} ({len(c.rows)} rows)")
        doc.table(["comparison", "metric", "difference", "95% CI", "p", "p (Holm)", "p (BH)", "method"],
                  [_comparison_row(r) for r in c.rows])
        doc.endfold()



def _ci3(lo: float, hi: float) -> str:
    """A [0, 1] index's interval with three decimals (Balance, OutcomeUniformity)."""
    return intervals.text(lo, hi, "{:.3f}".format, intervals.SHARE)


def _balance_cell(a: Analysis) -> str:
    b = a.balance_ci
    if a.decisive == 0:
        return f"{b.value:.3f} (no decisive games: says nothing)"
    return f"{b.value:.3f} {_ci3(b.low, b.high)} (a fair game: {b.fair_mean:.3f})"


def _mde_sentence(a: Analysis, k: int) -> str:
    if a.decisive == 0:
        return "No decisive games: no claim about a seat's edge is possible."
    level = f"{ALPHA:g}/{k} (Holm's strictest step over the {k} seats)"
    if math.isnan(a.mde):
        return (f"Minimum detectable effect: {num(a.decisive)} decisive games are too few for the "
                f"exact test at level {level} to find any edge with 80% power.")
    return (f"Minimum detectable effect: with {num(a.decisive)} decisive games, a seat whose true "
            f"share of decisive games is {pct(a.mde)} above the fair share {pct(1 / k)} would be "
            f"found with 80% power by the exact binomial test at level {level}.")


def render_variant(doc: Doc, a: Analysis) -> None:
    """One variant's numbers, folded behind a one-line summary (its description)."""
    run = a.run
    k = len(run.seats)
    desc = run.manifest["variant"].get("description", "")
    doc.fold(f"{run.stem}: {desc}" if desc else run.stem)
    doc.h(4, f"Variant {run.label}")
    doc.p(f"{desc} {num(a.n)} games ({num(a.decisive)} decisive) of {run.group}, seats "
          + ", ".join(f"{s} ({'rotated' if run.rotate else b})" for s, b in zip(run.seats, a.seat_bots,
                                                                               strict=True))
          + f"; run seed {run.manifest.get('seed', '?')}. " + _mde_sentence(a, k))
    doc.h(5, "Seats")
    doc.table(["seat", "bot", "wins", "win rate", "95% CI", "p vs fair share", "p (Holm)"],
              [[s, "rotated" if run.rotate else b, num(p.successes), *prop_cells(p), pval(pv), pval(ph)]
               for s, b, p, pv, ph in zip(run.seats, a.seat_bots, a.seat_rates, a.seat_p, a.seat_p_holm,
                                          strict=True)])
    doc.p(f"Tests: exact binomial test of each seat's share of the {num(a.decisive)} decisive games "
          f"against 1/{k}; Holm-adjusted across seats.")
    rows = [["draw rate", *prop_cells(a.draw)]]
    rows.append(["turn-cap rate", *prop_cells(a.turn_cap)] if a.turn_cap else
                ["turn-cap rate", "no turn cap", ""])
    rows.append(["first-player win rate (all games)", *prop_cells(a.first)])
    rows.append(["first-player share of decisive games", *prop_cells(a.first_decisive)])
    rows.append(["decided off the board", *prop_cells(a.off_board)])
    b = a.balance_ci
    rows.append([f"balance (Ludii: 1 - largest seat gap; a fair game of this size averages "
                 f"{b.fair_mean:.3f}; read with the first mover's share above)", f"{b.value:.4f}",
                 ci(b.low, b.high, False, intervals.SHARE) if a.decisive else "no decisive games"])
    doc.table(["metric", "value", "95% CI"], rows)
    fs = ", ".join(run.seats[i] if 0 <= i < k else str(i) for i in a.first_seats)
    fs = f"always {fs}" if len(a.first_seats) == 1 else f"varies over {fs}"
    if a.first_decisive is not None:
        doc.p(f"First-player advantage: the seat that moved first ({fs}) won "
              f"{pct(a.first_decisive.value)} of decisive games against a fair share of {pct(1 / k)}; "
              f"exact binomial test p = {pval(a.first_p)}."
              + (" The same seat always moves first, so this is also that seat's advantage."
                 if len(a.first_seats) == 1 else ""))
    if a.bots:
        doc.h(5, "Bots (seats rotated)")
        doc.table(["bot", "seat-games", "wins", "win rate", "95% CI", "p vs fair share"],
                  [[b, num(p.n), num(p.successes), *prop_cells(p), pval(pv)] for b, p, pv in a.bots])
        doc.p("A bot's rate counts every seat it held in a game; the test compares its share of "
              "decisive appearances with 1/seats.")
    doc.h(5, "How games end")
    doc.table(["end reason", "kind", "share", "95% CI", "games", "draws"],
              [[r, "non-win" if nw else "win", *prop_cells(p), num(p.successes), num(d)]
               for r, p, d, nw in a.end_rows])
    doc.h(5, "Game length (turns)")
    t = a.turns
    if t:
        doc.table(["p5", "p25", "median", "p75", "p95", "mean"],
                  [[num(t["p5"]), num(t["p25"]),
                    f"{num(t['median'])} {ci(*a.turns_median_ci[1:], False, intervals.COUNT)}",
                    num(t["p75"]), num(t["p95"]),
                    f"{t['mean']:.2f} {ci(a.turns_mean.low, a.turns_mean.high, False, intervals.COUNT)}"]])
    doc.h(5, "Scores")
    if a.scores:
        doc.table(["seat", "mean", "95% CI", "sd", "p5", "median", "p95"],
                  [[s, num(m.value), ci(m.low, m.high, False), num(m.sd), num(a.score_q[s]["p5"]),
                    num(a.score_q[s]["median"]), num(a.score_q[s]["p95"])] for s, m in a.scores.items()])
    else:
        doc.p("No score columns in the table.")
    doc.h(5, f"{run.game_name} metrics")
    if a.game_note:
        doc.p(a.game_note)
    if a.game_rows:
        doc.table(["metric", "value", "successes / n", "95% CI"],
                  [[r["metric"], pct(r["value"]) if r.get("n") is not None else num(r["value"]),
                    f"{num(r['successes'])} / {num(r['n'])}" if r.get("n") is not None else "",
                    ci(r.get("ci_low", math.nan), r.get("ci_high", math.nan),
                       as_pct=r.get("n") is not None)] for r in a.game_rows])
    doc.endfold()


def render_appendix(doc: Doc, analyses: Sequence[Analysis]) -> None:
    doc.h(2, "Appendix: runs and rule-text readings")
    doc.fold(f"the {len(analyses)} runs (seed, seats, commit, description)")
    doc.table(["variant", "games", "seats (bot)", "seed", "rotate seats", "commit", "description"],
              [[a.run.label, num(a.n),
                ", ".join(f"{s} ({b})" for s, b in zip(a.run.seats, a.seat_bots, strict=True)),
                a.run.manifest.get("seed", "?"), "yes" if a.run.rotate else "no",
                str(a.run.manifest.get("git_commit", "?"))[:10],
                a.run.manifest["variant"].get("description", "")] for a in analyses])
    doc.endfold()
    # rule-text warnings once each, naming the variants they apply to, folded per game
    text_warnings: dict[str, dict[str, list[str]]] = {}
    per_game: dict[str, int] = {}
    for a in analyses:
        per_game[a.run.game_name] = per_game.get(a.run.game_name, 0) + 1
        for w in a.run.manifest.get("warnings", []) or []:
            text_warnings.setdefault(a.run.game_name, {}).setdefault(w, []).append(a.run.label)
    if text_warnings:
        doc.p("Where the rule text contradicts itself, the parameter named decides (docs/rules/"
              "<game>.md quotes each sentence and its reading):")
        for game, readings in text_warnings.items():
            doc.fold(f"{game}: {len(readings)} rule-text reading{'s' if len(readings) != 1 else ''}")
            items = []
            for w, labels in readings.items():
                who = (f"all {game} variants" if len(labels) == per_game[game] > 1
                       else ", ".join(labels))
                items.append(f"rule text ({who}): {w}")
            doc.items(items)
            doc.endfold()


def render_methods(doc: Doc) -> None:
    doc.h(2, "Method notes")
    doc.items([
        "Proportions: 95% Wilson score intervals (statsmodels); the exact binomial test (scipy).",
        "Seat fairness and first-player advantage are tested on decisive games (draws removed) "
        "against 1/seats; rates are shown over all games. Balance (Ludii) = 1 - (highest - lowest "
        "seat win rate), with a seeded bootstrap interval and the mean balance of a fair game of the "
        "same size (sampling noise keeps it below 1): never a fairness verdict by itself. The "
        "largest seat gap's interval is the Wald interval of a difference of two shares of one "
        "multinomial sample.",
        "Minimum detectable effect: the share of decisive games the exact binomial seat test "
        "finds with 80% power (exact power) at its Holm-adjusted level, 5% / seats.",
        "Game length: quantiles by linear interpolation; the median's interval is a seeded "
        "percentile bootstrap, the mean's a Student-t interval.",
        "Non-win end reasons (decided off the board): the run's turn-cap reason, those a game "
        "declares, and names containing " + ", ".join(NON_WIN_WORDS) + ".",
        f"Degenerate strategy? is flagged when one game length holds at least {SPIKE_SHARE:.0%} of "
        f"games and is under half the median, or one end reason ends at least "
        f"{DOMINANT_SHARE:.0%} of games while others occur too (a way to win only when another "
        "way to win occurs too).",
        "Ludii outcome metrics as defined in Ludii's Evaluation/src/metrics, in floating point; "
        "OutcomeUniformity's interval is a seeded multinomial percentile bootstrap.",
    ])
