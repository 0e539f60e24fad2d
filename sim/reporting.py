"""The balance report: run folders in, `report.md`, a self-contained `report.html` and
`summary.csv` out.

`build_report(run_dirs, out_dir)` reads each run's `manifest.json` and only the outcome columns it
needs (pyarrow column selection), computes every number once into summary rows (metric, variant,
value, successes, n, ci_low, ci_high), then renders the same document blocks to Markdown and HTML.
It knows games only through the Game interface (`end_reasons`, `seat_names`, `report_metrics`);
when a game cannot be imported, its own section is skipped with a note and everything else stays.

Readings (documented in the report's method notes too):
- seat fairness and first-player advantage are tested on decisive games (draws removed) against
  the fair share 1/seats, so a drawish game does not look like a seat disadvantage; the rates shown
  are over all games;
- a "non-win" end reason (stalemate, turn cap, tie-break...) is the manifest's turn-cap reason,
  any name in the game's optional `non_win_end_reasons`, or a name containing one of
  `NON_WIN_WORDS`; when one decides more than half the games the report says so at the top;
- per-bot win rates (rotated seats) count one appearance per seat a bot holds in a game.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from sim import display, intervals, metrics, plots, stats, tables
from sim import skill as skill_mod
from sim.document import (  # noqa: F401  (re-exported: sim.reporting.Doc and the formats)
    CSS,
    Doc,
    Group,
    Raw,
    ci,
    ci1,
    ci_pts,
    num,
    pct,
    prop_cells,
    pval,
    slug,
)
from sim.errors import UserError
from sim.run_folder import (  # noqa: F401  (re-exported: sim.reporting.load_run and the run reader)
    Run,
    default_game_lookup,
    load_run,
    mode_of,
    non_win_reasons,
    read_games,
    read_manifest,
)

SUMMARY_COLUMNS = ["metric", "variant", "value", "successes", "n", "ci_low", "ci_high", "verdict", "bots"]
CONF = 0.95
FAIR_MARGIN = stats.FAIR_MARGIN
ALPHA = 0.05
POWER = 0.8


# ---- analysis: every number once, as summary rows --------------------------------------------

@dataclass
class Analysis:
    """One variant's numbers, as rows for summary.csv plus what the renderer and plots need."""

    run: Run
    rows: list[dict[str, Any]] = field(default_factory=list)
    seat_rates: list[stats.Proportion] = field(default_factory=list)
    seat_p: list[float] = field(default_factory=list)
    seat_p_holm: list[float] = field(default_factory=list)
    seat_bots: list[str] = field(default_factory=list)
    decisive: int = 0
    draw: stats.Proportion | None = None
    swap: stats.Proportion | None = None  # the pie rule: games where the second player swapped
    turn_cap: stats.Proportion | None = None
    first: stats.Proportion | None = None
    first_decisive: stats.Proportion | None = None
    first_p: float = math.nan
    first_seats: list[int] = field(default_factory=list)
    balance: float = math.nan
    balance_ci: stats.Balance | None = None
    turns: dict[str, float] = field(default_factory=dict)
    turns_mean: stats.MeanInterval | None = None
    turns_median_ci: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    scores: dict[str, stats.MeanInterval] = field(default_factory=dict)
    score_q: dict[str, dict[str, float]] = field(default_factory=dict)
    end_rows: list[tuple[str, stats.Proportion, int, bool]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    mde: float = math.nan
    bots: list[tuple[str, stats.Proportion, float]] = field(default_factory=list)
    game_rows: list[dict[str, Any]] = field(default_factory=list)
    game_note: str = ""
    # the verdict and why games end
    off_board: stats.Proportion | None = None
    gap: tuple[float, float, float, str, str] = (math.nan, math.nan, math.nan, "", "")
    ludii: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    end_hist: tuple[np.ndarray, np.ndarray] | None = None  # turn values, counts[reason, turn]
    ways: list[dict[str, Any]] = field(default_factory=list)
    spike: tuple[int, float] | None = None  # (turns, share of games ending there or sooner)
    dominant: tuple[str, float] | None = None  # one end reason deciding nearly every game
    examples: list[dict[str, Any]] = field(default_factory=list)
    flags: list[tuple[str, str]] = field(default_factory=list)  # (kind, text) for grouping
    replay_note: str = ""
    play: Any = None  # sim.playmetrics.PlayMetrics of replayed games, when computed
    skill: skill_mod.Skill | None = None  # the verdict with stronger play (`--ladders`)
    repeats: tuple[int, int] | None = None  # (distinct, replayed) when the games repeat

    @property
    def n(self) -> int:
        return len(self.run.df)

    def add(self, metric: str, value: float, successes: float = math.nan, n: float = math.nan,
            low: float = math.nan, high: float = math.nan) -> None:
        self.rows.append({"metric": metric, "variant": self.run.label, "value": value,
                          "successes": successes, "n": n, "ci_low": low, "ci_high": high})

    def add_prop(self, metric: str, p: stats.Proportion) -> None:
        self.add(metric, p.value, p.successes, p.n, p.low, p.high)

    def warn(self, kind: str, text: str) -> None:
        self.warnings.append(text)
        self.flags.append((kind, text))


def analyse(run: Run) -> Analysis:
    a = Analysis(run)
    df, seats, n = run.df, run.seats, len(run.df)
    k = len(seats)
    fair = 1.0 / k
    winner = df["winner"].to_numpy().astype(np.int64)
    a.add("games", n, n=n)
    # a run with rotated seats plays every game once per rotation
    expected = run.expected
    if n != expected:
        a.warn("incomplete", f"{run.label}: the table holds {n:,} games but the manifest asked for "
               f"{expected:,} (unfinished run? rerun the same command to finish it)")

    # seats
    counts = np.bincount(winner + 1, minlength=k + 1)
    draws = int(counts[0])
    a.decisive = n - draws
    a.seat_bots = run.seat_bots
    for i, s in enumerate(seats):
        p = stats.wilson(int(counts[i + 1]), n)
        a.seat_rates.append(p)
        a.seat_p.append(stats.binom_test(int(counts[i + 1]), a.decisive, fair))
        a.add_prop(f"win_rate_{s}", p)
    a.seat_p_holm = list(stats.adjust_pvalues(a.seat_p, "holm"))
    for s, p, ph in zip(seats, a.seat_p, a.seat_p_holm, strict=True):
        a.add(f"win_rate_{s}_p_value", p)
        a.add(f"win_rate_{s}_p_holm", ph)
    a.draw = stats.wilson(draws, n)
    a.add_prop("draw_rate", a.draw)
    if "swapped" in df.columns:  # the pie rule
        a.swap = stats.wilson(int(df["swapped"].to_numpy(dtype=bool).sum()), n)
        a.add_prop("swap_rate", a.swap)
    # end reasons through categorical codes: a million strings are never compared
    reason_cat = df["end_reason"].astype("category")
    reason_code = reason_cat.cat.codes.to_numpy().astype(np.int64)
    names = [str(c) for c in reason_cat.cat.categories]
    by_code = np.bincount(reason_code, minlength=len(names))
    draws_by_code = np.bincount(reason_code[winner < 0], minlength=len(names))
    reason_count = {r: int(c) for r, c in zip(names, by_code, strict=True)}
    reason_draws = {r: int(c) for r, c in zip(names, draws_by_code, strict=True)}
    if run.turn_cap_reason:
        a.turn_cap = stats.wilson(reason_count.get(run.turn_cap_reason, 0), n)
        a.add_prop("cap_rate", a.turn_cap)

    # first player
    first = df["first_seat"].to_numpy().astype(np.int64)
    first_wins = int(np.count_nonzero(winner == first))
    a.first_seats = sorted(set(np.unique(first).tolist()))
    a.first = stats.wilson(first_wins, n)
    a.first_decisive = stats.wilson(first_wins, a.decisive)
    a.first_p = stats.binom_test(first_wins, a.decisive, fair)
    a.add_prop("win_rate_first_mover", a.first)
    a.add_prop("first_mover_share", a.first_decisive)
    a.add("first_mover_share_p_value", a.first_p)

    a.balance_ci = stats.ludii_balance_interval(counts)
    a.balance = a.balance_ci.value
    a.add("balance", a.balance, low=a.balance_ci.low, high=a.balance_ci.high)

    _lengths_and_scores(a, df, seats, n)

    # end reasons
    non_win = non_win_reasons(run)
    for r in run.end_reasons:
        p = stats.wilson(reason_count.get(r, 0), n)
        a.end_rows.append((r, p, reason_draws.get(r, 0), r in non_win))
        a.add_prop(f"end_{r}", p)
        if r in non_win and p.value > 0.5:
            a.warn("non_win",
                   f"{run.label}: {p.value:.1%} of games (95% CI {p.low:.1%}-{p.high:.1%}) end by "
                   f"'{r}', not by a win on the board: the seat and length numbers mostly measure "
                   f"that rule")
    if a.draw.value > 0.5:
        a.warn("draws", f"{run.label}: {a.draw.value:.1%} of games are draws")
    off = sum(reason_count.get(r, 0) for r in run.end_reasons if r in non_win)
    a.off_board = stats.wilson(off, n)
    a.add_prop("decided_off_board", a.off_board)
    a.gap = seat_gap(a.seat_rates, seats, n)
    a.add("largest_seat_gap", a.gap[0], n=n, low=a.gap[1], high=a.gap[2])
    ludii_outcomes(a, winner, reason_count, reason_code, names)
    why_games_end(a, winner, reason_code, names, non_win)

    # the seat tests: exact binomial on decisive games, Holm over the k seats (strictest step
    # alpha / k), so the detectable edge is computed for exactly that test
    a.mde = stats.mde_share(a.decisive, fair, ALPHA / k, POWER)
    a.add("mde_seat_share", a.mde, n=a.decisive)

    if run.rotate:
        a.bots = bot_rates(df, seats, winner, fair)
        for b, p, pv in a.bots:
            a.add_prop(f"bot_win_rate_{b}", p)
            a.add(f"bot_win_rate_{b}_p_value", pv)

    game_section(a)
    return a


def _lengths_and_scores(a: Analysis, df: pd.DataFrame, seats: Sequence[str], n: int) -> None:
    """Game length (mean with its t interval, quantiles, the median's bootstrap interval) and each
    seat's score (mean and median)."""
    turns = df["turns"].to_numpy()
    a.turns = stats.quantiles(turns)
    a.turns_mean = stats.mean_interval(turns)
    a.turns_median_ci = stats.bootstrap_interval(turns, 0.5, seed=1)
    a.add("turns_mean", a.turns_mean.value, n=n, low=a.turns_mean.low, high=a.turns_mean.high)
    for name, _ in stats.QUANTILES:
        if name == "median":
            a.add("turns_p50", a.turns["median"], n=n, low=a.turns_median_ci[1],
                  high=a.turns_median_ci[2])
        else:
            a.add(f"turns_{name}", a.turns[name], n=n)

    for s in seats:
        col = f"score_{s}"
        if col in df:
            x = df[col].to_numpy()
            a.scores[s] = stats.mean_interval(x)
            a.score_q[s] = stats.quantiles(x)
            a.add(f"score_mean_{s}", a.scores[s].value, n=n, low=a.scores[s].low, high=a.scores[s].high)
            a.add(f"score_median_{s}", a.score_q[s]["median"], n=n)


def seat_gap(rates: Sequence[stats.Proportion], seats: Sequence[str],
             n: int) -> tuple[float, float, float, str, str]:
    """Largest gap between two seats' win rates (all games): top minus bottom seat, with the 95%
    Wald interval of a difference of two shares of one multinomial sample,
    var = (p1 + p2 - (p1 - p2)^2) / n (the shares are negatively correlated)."""
    if n == 0 or len(rates) < 2:
        return math.nan, math.nan, math.nan, "", ""
    vals = [p.value for p in rates]
    hi, lo = int(np.argmax(vals)), int(np.argmin(vals))
    d = vals[hi] - vals[lo]
    se = math.sqrt(max(vals[hi] + vals[lo] - d * d, 0.0) / n)
    z = float(norm.ppf(0.5 + CONF / 2))
    return d, *intervals.clip(d - z * se, d + z * se, intervals.SHARE), seats[hi], seats[lo]


LUDII = {
    "Completion": "share of games with a winner that did not hit the turn cap",
    "Drawishness": "share of games drawn without hitting the turn cap",
    "Timeouts": "share of games stopped by the turn cap",
    "OutcomeUniformity": "1 - the average over seats of the variance of a seat's result "
                         "(win 1, draw 0, loss -1/(seats-1)); 1 = every game has the same outcome "
                         "for each seat",
}


def outcome_uniformity(counts: np.ndarray) -> float:
    """Ludii's OutcomeUniformity from outcome counts [wins of seat 0..k-1, draws]: each seat's
    utility is 1 for a win, -1/(k-1) for a loss and 0 in a draw (Ludii's rank utilities), and
    the value is 1 - the mean over seats of its population variance."""
    counts = np.asarray(counts, dtype=np.float64)
    k, n = len(counts) - 1, counts.sum()
    if n == 0 or k < 1:
        return math.nan
    loss = -1.0 / (k - 1) if k > 1 else -1.0
    acc = 0.0
    for i in range(k):
        pw, pd_ = counts[i] / n, counts[k] / n
        pl = 1.0 - pw - pd_
        mean = pw + pl * loss
        acc += pw + pl * loss * loss - mean * mean
    return 1.0 - acc / k


def ludii_outcomes(a: Analysis, winner: np.ndarray, reason_count: dict[str, int],
                   reason_code: np.ndarray, names: list[str]) -> None:
    """Completion, Drawishness, Timeouts (Wilson) and OutcomeUniformity (multinomial percentile
    bootstrap over the outcome counts, seeded), as in Ludii's Evaluation metrics, computed in
    floating point (Ludii's versions divide integers in places)."""
    n, k = len(winner), len(a.run.seats)
    cap = a.run.turn_cap_reason
    capped = (reason_code == names.index(cap)) if cap in names else np.zeros(n, dtype=bool)
    props = {"Completion": stats.wilson(int(np.count_nonzero((winner >= 0) & ~capped)), n),
             "Drawishness": stats.wilson(int(np.count_nonzero((winner < 0) & ~capped)), n),
             "Timeouts": stats.wilson(int(np.count_nonzero(capped)), n)}
    for name, p in props.items():
        a.ludii[name] = (p.value, p.low, p.high)
        a.add_prop(f"ludii.{name}", p)
    counts = np.bincount(np.where(winner < 0, k, winner), minlength=k + 1)[: k + 1]
    value = outcome_uniformity(counts)
    low = high = math.nan
    if n:
        rng = np.random.default_rng(7)
        boot = [outcome_uniformity(c) for c in rng.multinomial(n, counts / n, size=1000)]
        low, high = (float(x) for x in np.quantile(boot, [(1 - CONF) / 2, (1 + CONF) / 2]))
    a.ludii["OutcomeUniformity"] = (value, low, high)
    a.add("ludii.OutcomeUniformity", value, n=n, low=low, high=high)


# end reasons in words, for the verdict sentences (a game may give its own: `end_reason_words`)
END_WORDS = {
    "path": "a completed path", "opponent_path": "a path the opponent's tile completed",
    "blocked": "a player being cut off", "self_blocked": "a player cutting themselves off",
    "both_blocked": "both players being cut off", "stalemate_closest": "the closest-reach "
    "tiebreak", "stalemate_draw": "a stalemate draw", "no_move_loss": "a player left without a "
    "legal placement", "turn_cap": "the turn cap", "stalemate_score": "the stalemate score count",
    "flags": "a player holding the flags", "tiles_placed": "points after every tile is placed",
    "radian": "a Radian", "tiles_out": "points when the tiles run out",
}
SPIKE_SHARE = 0.10  # a turn count this common, under half the median length: "degenerate?"
DOMINANT_SHARE = 0.90  # one end reason deciding this share of games


def reason_words(run: Run, reason: str) -> str:
    words = dict(END_WORDS) | dict(getattr(run.game, "end_reason_words", {}) or {})
    return words.get(reason, f"'{reason}'")


def why_games_end(a: Analysis, winner: np.ndarray, reason_code: np.ndarray, names: list[str],
                  non_win: set[str]) -> None:
    """End reasons over game length (counts per reason and turn), the ways to win (most common,
    shortest), spikes of short games and a dominating end reason, and the example games."""
    df, n = a.run.df, a.n
    if n == 0:
        return
    turns = df["turns"].to_numpy().astype(np.int64)
    t0, t1 = int(turns.min()), int(turns.max())
    grid = np.bincount(reason_code * (t1 - t0 + 1) + (turns - t0),
                       minlength=len(names) * (t1 - t0 + 1)).reshape(len(names), -1)
    a.end_hist = (np.arange(t0, t1 + 1), grid)
    decisive = winner >= 0
    for j, r in enumerate(names):
        m = reason_code == j
        cnt = int(np.count_nonzero(m))
        if not cnt:
            continue
        t = turns[m]
        a.ways.append({"reason": r, "games": cnt, "share": cnt / n, "wins": int(np.count_nonzero(
            m & decisive)), "median": float(np.median(t)), "shortest": int(t.min()),
            "non_win": r in non_win})
    a.ways.sort(key=lambda w: -w["games"])
    per_turn = grid.sum(axis=0)
    med = float(np.median(turns))
    top = int(np.argmax(per_turn))
    if per_turn[top] / n >= SPIKE_SHARE and t0 + top < med / 2:
        upto = t0 + top
        share = float(np.count_nonzero(turns <= upto)) / n
        a.spike = (upto, share)
        reason = names[int(np.argmax(grid[:, top]))]
        a.warn("degenerate", f"{a.run.label}: {share:.0%} of games are over by turn {upto} "
               f"(median {num(med)}), most of them by {reason_words(a.run, reason)}: degenerate "
               "strategy?")
    # one way to end dominates: an off-the-board end deciding nearly every game, or one way to
    # win doing so while another way to win is possible and seen (a game with a single way to
    # win, the rest caps and stalemates, is not flagged for winning that way)
    if (a.ways and a.ways[0]["share"] >= DOMINANT_SHARE and len(a.ways) > 1
            and (a.ways[0]["non_win"] or any(not w["non_win"] for w in a.ways[1:]))):
        a.dominant = (a.ways[0]["reason"], a.ways[0]["share"])
        a.warn("dominant", f"{a.run.label}: {a.ways[0]['share']:.0%} of games end by "
               f"{reason_words(a.run, a.ways[0]['reason'])}: one way to end dominates")
    a.examples = example_games(a, turns, reason_code, names)


def example_games(a: Analysis, turns: np.ndarray, reason_code: np.ndarray,
                  names: list[str]) -> list[dict[str, Any]]:
    """The shortest game, and a typical game (length nearest the median) of each of the two most
    common end reasons; each as the row's game index, rotation and length."""
    df = a.run.df
    if "game" not in df:
        return []
    games = df["game"].to_numpy()
    rot = df["rotation"].to_numpy() if "rotation" in df else np.zeros(len(df), dtype=np.int8)

    def pick(i: int, title: str) -> dict[str, Any]:
        return {"title": title, "game": int(games[i]), "rotation": int(rot[i]),
                "turns": int(turns[i]), "reason": names[int(reason_code[i])]}

    out = [pick(int(np.argmin(turns)), "shortest game")]
    for w in a.ways[:2]:
        idx = np.flatnonzero(reason_code == names.index(w["reason"]))
        i = int(idx[np.argmin(np.abs(turns[idx] - w["median"]))])
        if all(e["game"] != int(games[i]) or e["rotation"] != int(rot[i]) for e in out):
            out.append(pick(i, f"typical game ending by {w['reason']}"))
    return out


def bot_rates(df: pd.DataFrame, seats: Sequence[str], winner: np.ndarray,
              fair: float) -> list[tuple[str, stats.Proportion, float]]:
    """Per bot over every seat it held: wins / appearances (Wilson), and the binomial test of
    its share of decisive appearances against 1/seats."""
    appear: dict[str, int] = {}
    wins: dict[str, int] = {}
    decisive: dict[str, int] = {}
    for i, s in enumerate(seats):
        col = f"bot_{s}"
        if col not in df:
            continue
        cat = df[col].astype("category")
        codes = cat.cat.codes.to_numpy()
        m = len(cat.cat.categories)
        seen = np.bincount(codes, minlength=m)
        won = np.bincount(codes[winner == i], minlength=m)
        dec = np.bincount(codes[winner >= 0], minlength=m)
        for j, b in enumerate(cat.cat.categories.astype(str)):
            appear[b] = appear.get(b, 0) + int(seen[j])
            wins[b] = wins.get(b, 0) + int(won[j])
            decisive[b] = decisive.get(b, 0) + int(dec[j])
    return [(b, stats.wilson(wins[b], appear[b]), stats.binom_test(wins[b], decisive[b], fair))
            for b in sorted(appear) if appear[b] > 0]


def game_section(a: Analysis) -> None:
    run = a.run
    if run.game is None:
        a.game_note = (f"Game-specific section skipped: game {run.game_name!r} is not available "
                       f"({run.game_error}).")
        return
    try:
        rows = run.game.report_metrics(run.df, run.manifest["variant"].get("rules", {}))
    except Exception as e:  # noqa: BLE001 - a broken game hook must not lose the whole report
        a.game_note = f"Game-specific section skipped: report_metrics failed ({type(e).__name__}: {e})."
        return
    for row in rows or []:
        row = dict(row)
        metric = f"game.{row['metric']}"
        if row.get("successes") is not None and row.get("n") is not None:
            p = stats.wilson(int(row["successes"]), int(row["n"]))
            row.update(value=p.value, ci_low=p.low, ci_high=p.high)
            a.add_prop(metric, p)
        else:
            a.add(metric, float(row.get("value", math.nan)), low=row.get("ci_low", math.nan),
                  high=row.get("ci_high", math.nan))
        a.game_rows.append(row)
    if not a.game_rows:
        a.game_note = f"The game {run.game_name!r} reports no metrics of its own."


# ---- comparisons within a mode, against its reference variant --------------------------------

@dataclass
class Comparison:
    baseline: str
    rows: list[dict[str, Any]]  # metric, variant ("X vs base"), value, ci, p_value, p_holm, method
    mde: dict[str, float]
    group: str = ""


HEADLINE = ("first_mover_share", "draw_rate", "decided_off_board", "turns_p50")


def compare(analyses: Sequence[Analysis]) -> Comparison:
    """Every other variant against the first: proportions by Newcombe interval and two-proportion
    test, lengths by bootstrap (mean, median), Mann-Whitney and KS; Holm over the whole family."""
    base = analyses[0]
    out: list[dict[str, Any]] = []
    mde: dict[str, float] = {}

    def props(a: Analysis) -> dict[str, stats.Proportion]:
        d = {"first_mover_share": a.first_decisive}
        d |= {f"win_rate_{s}": p for s, p in zip(a.run.seats, a.seat_rates, strict=True)}
        d["draw_rate"] = a.draw
        d["decided_off_board"] = a.off_board
        d["win_rate_first_mover"] = a.first
        if a.turn_cap is not None:
            d["cap_rate"] = a.turn_cap
        for r, p, _, _ in a.end_rows:
            if r != a.run.turn_cap_reason:  # already there as cap_rate: test it once
                d[f"end_{r}"] = p
        return d

    pb = props(base)
    tb = base.run.df["turns"].to_numpy()
    sizes: dict[str, tuple[int, int, float]] = {}
    for a in analyses[1:]:
        label = f"{a.run.label} vs {base.run.label}"
        sizes[label] = (a.n, base.n, 1 / len(a.run.seats))
        pa = props(a)
        for metric in [m for m in pa if m in pb]:
            x, y = pa[metric], pb[metric]
            d = stats.newcombe_diff(x.successes, x.n, y.successes, y.n)
            out.append({"metric": f"diff.{metric}", "variant": label, "value": d.value, "ci_low": d.low,
                        "ci_high": d.high, "p_value": d.p_value, "method": "Newcombe / z-test"})
        ta = a.run.df["turns"].to_numpy()
        for stat, name in (("mean", "turns_mean"), (0.5, "turns_p50")):
            d = stats.bootstrap_diff(ta, tb, stat, seed=2)
            out.append({"metric": f"diff.{name}", "variant": label, "value": d.value, "ci_low": d.low,
                        "ci_high": d.high, "p_value": d.p_value, "method": "bootstrap"})
        mw, ks = stats.mann_whitney(ta, tb), stats.ks_test(ta, tb)
        out.append({"metric": "diff.turns_distribution", "variant": label, "value": ks.statistic,
                    "ci_low": math.nan, "ci_high": math.nan, "p_value": ks.p_value, "method": "KS"})
        out.append({"metric": "diff.turns_rank", "variant": label,
                    "value": mw.statistic / max(len(ta) * len(tb), 1), "ci_low": math.nan,
                    "ci_high": math.nan, "p_value": mw.p_value, "method": "Mann-Whitney (U/n1n2)"})
    holm = stats.adjust_pvalues([r["p_value"] for r in out], "holm")
    bh = stats.adjust_pvalues([r["p_value"] for r in out], "bh")
    for r, h, b in zip(out, holm, bh, strict=True):
        r["p_holm"], r["p_bh"] = float(h), float(b)
    # the change the table's verdicts (Holm over all its rows) find with 80% power: at Holm's
    # strictest step, 5% / rows, so the claim holds whichever step a change would meet
    for label, (n_a, n_b, p0) in sizes.items():
        mde[label] = stats.mde_difference(p0, n_a, p0, n_b, ALPHA / max(len(out), 1), POWER)
    return Comparison(base.run.label, out, mde, base.run.group)


def groups_of(analyses: Sequence[Analysis]) -> dict[str, list[Analysis]]:
    """Variants by game and mode, in the order their first variant was given."""
    out: dict[str, list[Analysis]] = {}
    for a in analyses:
        out.setdefault(a.run.group, []).append(a)
    return out


def reference_of(group: list[Analysis], references: Sequence[str] = ()) -> Analysis:
    """The variant the others of a mode are compared with: one named by --reference (label,
    name or file stem), else the mode's base variant (named like the mode, or "standard"),
    else the first given."""
    for ref in references:
        for a in group:
            if ref in (a.run.label, a.run.stem, str(a.run.path), a.run.path.name):
                return a
    mode = group[0].run.mode
    for want in (mode, "standard"):
        for a in group:
            if a.run.stem == want:
                return a
    return group[0]


def comparisons(analyses: Sequence[Analysis], references: Sequence[str] = ()) -> list[Comparison]:
    """One comparison per mode with two or more variants; never across modes or games."""
    known = {x for a in analyses for x in (a.run.label, a.run.stem, str(a.run.path), a.run.path.name)}
    for ref in references:
        if ref not in known:
            raise UserError(f"--reference {ref}: no such variant among the runs; given: "
                            + ", ".join(a.run.label for a in analyses))
    out = []
    for group in groups_of(analyses).values():
        if len(group) > 1:
            ref = reference_of(group, references)
            out.append(compare([ref] + [a for a in group if a is not ref]))
    return out


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
    """The bots of a run's line-up that see hidden state (sim.skill.cheats), each once."""
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
    from sim.playmetrics import MEANING, METRICS

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
    from sim.playmetrics import BOUNDS

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


# ---- writing the report ---------------------------------------------------------------------

@dataclass
class ReportResult:
    summary: pd.DataFrame
    out_dir: Path
    markdown: Path
    html: Path
    csv: Path
    figures: dict[str, Path]
    warnings: list[str]
    comparison: pd.DataFrame | None = None
    verdicts: pd.DataFrame | None = None  # one row per variant: `verdict_table`
    partial: dict[str, str] = field(default_factory=dict)  # label -> "partial: 200 of 3,000 games"

    def __repr__(self) -> str:
        return display.text(f"ReportResult: {self.summary['variant'].nunique()} variant(s) in {self.out_dir}", [
            f"report: {self.html}", f"metrics: {self.csv} (.summary)", *self.partial.values(),
            f"{len(self.warnings)} warnings (.warnings)" if self.warnings else ""])

    def _repr_html_(self) -> str:
        return display.html(f"ReportResult: {self.html}", self.verdicts,
                            ["variant", "bots", "first_mover_share", "ci_low", "ci_high", "verdict"])


def build_report(run_dirs: Sequence[str | Path], out_dir: str | Path,
                 game_lookup: Callable[[str], Any] = default_game_lookup,
                 references: Sequence[str] = (), replays: bool = True,
                 partial: bool = False, ladders: Sequence[str | Path] = ()) -> ReportResult:
    """Read the runs, compute every metric, write report.md, report.html, summary.csv, figures.

    `references`: variants (label, name or folder) the others of their mode are compared with;
    `replays`: draw example games (the shortest, a typical one per common end reason);
    `partial`: report unfinished runs too (marked "partial" in the verdict), else refuse them;
    `ladders`: ladder folders (`hexsim ladder`'s, or folders of them) whose strongest rung gives
    the verdict table its "with stronger play" column (`sim.skill`) and the ladders' index page."""
    if not run_dirs:
        raise UserError("report: give at least one run folder")
    runs = [load_run(d, game_lookup) for d in run_dirs]
    refuse_unfinished(runs, partial)
    lads = skill_mod.load_ladders(ladders) if ladders else []
    seen: dict[str, int] = {}
    for r in runs:  # the same variant twice (other seed, other commit): tell them apart
        seen[r.label] = seen.get(r.label, 0) + 1
    for r in runs:
        if seen[r.label] > 1:
            r.label = f"{r.label} ({r.path.name})"
    analyses = [analyse(r) for r in runs]
    play_rows = play_metric_rows(analyses) if replays else pd.DataFrame(columns=SUMMARY_COLUMNS)
    for a in analyses:
        mark_repeats(a)
        if not a.repeats and not cheating(a):
            a.skill = skill_mod.skill_of(a.run.manifest["variant"].get("name", ""),
                                         a.run.manifest.get("variant_hash", ""), a.seat_bots, fairness_of(a), lads)
    comps = comparisons(analyses, references)

    verdicts = verdict_table(analyses)
    rows = [row | {"verdict": v, "bots": b} for a, v, b in
            zip(analyses, verdicts["verdict"], verdicts["bots"], strict=True) for row in a.rows]
    for comparison in comps:
        for r in comparison.rows:
            base = {k: r[k] for k in ("metric", "variant", "value", "ci_low", "ci_high")}
            rows.append(base | {"successes": math.nan, "n": math.nan})
            for key in ("p_value", "p_holm"):
                rows.append({"metric": f"{r['metric']}_{key}", "variant": r["variant"],
                             "value": r[key], "successes": math.nan, "n": math.nan,
                             "ci_low": math.nan, "ci_high": math.nan})
        for label, m in comparison.mde.items():
            rows.append({"metric": "mde_diff_seat_win_rate", "variant": label, "value": m,
                         "successes": math.nan, "n": math.nan, "ci_low": math.nan, "ci_high": math.nan})
    summary = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)

    out = Path(out_dir)
    tables.make_dir(out)
    (out / "figures").mkdir(exist_ok=True)
    figs = make_figures(analyses)
    pictures = example_pictures(analyses, out / "figures") if replays else {}
    if replays:
        summary = pd.concat([summary, play_rows], ignore_index=True)
    for pics in pictures.values():
        for pic in pics:
            figs[pic["key"]] = pic["png"]
    fig_files = {}
    for key, data in figs.items():
        path = out / "figures" / f"{key}.png"
        path.write_bytes(data)
        fig_files[key] = path
    doc = render(analyses, comps, pictures, out)
    figs.update(_by_skill_section(doc, runs, out / "figures"))
    md_path, html_path, csv_path = out / "report.md", out / "report.html", out / "summary.csv"
    md_path.write_text(doc.markdown({k: f"figures/{k}.png" for k in figs}))
    if lads:
        write_ladder_index(lads, out)
    html_path.write_text(doc.html(figs, "hexsim balance report"))
    summary.to_csv(csv_path, index=False)
    warnings = [w for a in analyses for w in a.warnings]
    comp_df = pd.DataFrame([r for c in comps for r in c.rows]) if comps else None
    return ReportResult(summary, out, md_path, html_path, csv_path, fig_files, warnings, comp_df, verdicts,
                        {r.label: r.partial for r in runs if r.partial})


def refuse_unfinished(runs: Sequence[Run], partial: bool) -> None:
    """An unfinished run's verdict would read like a finished one's: it is reported only when
    asked for (`partial`), before anything is written."""
    unfinished = [f"{r.path} ({r.partial})" for r in runs if r.partial]
    if unfinished and not partial:
        raise UserError(f"unfinished run: {', '.join(unfinished)}; rerun the same `hexsim run` "
                        "command to finish it, or give --partial to report it as it is")


def write_ladder_index(lads: Sequence[skill_mod.Ladder], out: Path) -> Path:
    """ladders.html beside the report: every ladder it read, its answer in one sentence and a
    link to its page."""
    doc = Doc()
    doc.h(1, "Skill ladders")
    doc.p("Each ladder rates bots of one variant against each other and plays each bot against "
          "itself; its answer compares the first mover's share at its strongest rung with the "
          "variant's own bot's.")
    rows = [[lad.variant, lad.strongest,
             (lad.answer or {}).get("sentence", f"{lad.strongest} is the strongest bot of this ladder."),
             Raw(f"<a href='{html.escape(os.path.relpath(lad.path / 'ladder.html', out), quote=True)}'>page</a>",
                 f"[page]({os.path.relpath(lad.path / 'ladder.html', out)})")] for lad in lads]
    doc.table(["variant", "strongest bot", "answer", "ladder"], rows)
    path = out / "ladders.html"
    path.write_text(doc.html({}, "hexsim skill ladders"))
    return path


def _by_skill_section(doc: Doc, runs: Sequence[Run], fig_dir: Path) -> dict[str, bytes]:
    """The "by skill" section (sim/workflows/ladder_report.py) when the runs hold several bot line-ups of
    one variant; its figures are written into fig_dir and returned."""
    from sim.workflows.ladder_report import by_skill_section

    return by_skill_section(doc, runs, fig_dir)


def example_pictures(analyses: Sequence[Analysis], fig_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Each variant's example games re-played from their seeds and drawn (downscaled), with the
    exact `hexsim replay` command. A game without replays, or a variant whose file changed
    since the run (its hash differs), gets a note instead."""
    from sim.replay import draw_example

    out: dict[str, list[dict[str, Any]]] = {}
    for a in analyses:
        pics = []
        for ex in a.examples:
            try:
                pic = draw_example(a.run.manifest, ex, a.run.game)
            except UserError as e:
                a.replay_note = f"{a.run.label}: example games not drawn ({e})."
                break
            if pic is None:
                a.replay_note = (f"{a.run.label}: example games not drawn: game "
                                 f"{a.run.game_name!r} has no replay.")
                break
            pics.append(ex | pic | {"key": f"game_{slug(a.run.label)}_{ex['game']}_r{ex['rotation']}"})
        out[a.run.label] = pics
    return out


def play_metric_rows(analyses: Sequence[Analysis]) -> pd.DataFrame:
    """Ludii's play metrics (sim/playmetrics.py) of each variant, over its first replayed games;
    summary rows `play.<metric>`. A variant that cannot replay gets a note instead."""
    from sim import playmetrics
    from sim.replay import variant_spec
    from sim.variants import load

    rows = []
    for a in analyses:
        try:
            spec, overrides = variant_spec(a.run.manifest)
            v = load(spec, overrides or None)
        except UserError as e:
            a.play = playmetrics.PlayMetrics(pd.DataFrame(), pd.DataFrame(), str(e))
            continue
        a.play = playmetrics.play_metrics(v, int(a.run.manifest.get("seed", 0)),
                                          min(playmetrics.DEFAULT_GAMES, a.n))
        for r in a.play.summary.itertuples():
            rows.append({"metric": f"play.{r.metric}", "variant": a.run.label, "value": r.value,
                         "successes": math.nan, "n": r.games, "ci_low": r.low, "ci_high": r.high})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def make_figures(analyses: Sequence[Analysis]) -> dict[str, bytes]:
    figs: dict[str, bytes] = {}
    order = [a for _, items in verdict_order(analyses) for a in items]
    figs["forest"] = plots.png(plots.forest(
        [plots.Interval(a.run.label, a.first_decisive.value, a.first_decisive.low,
                        a.first_decisive.high, 1 / len(a.run.seats), a.run.group,
                        VERDICT_COLOURS.get(fairness_verdict(a)[0], ""))
         for a in order if a.first_decisive and a.first_decisive.n],
        "First mover's share of decisive games (95% Wilson)"))
    for group, items in groups_of(analyses).items():
        panels = [plots.Stacked(a.run.stem, a.end_hist[0], a.end_hist[1],
                                [str(c) for c in a.run.df["end_reason"].astype("category").cat.categories])
                  for a in items if a.end_hist is not None and not one_length(a)]
        if panels:
            game_reasons = [r for a in items for r in a.run.end_reasons]
            figs[f"ends_{slug(group)}"] = plots.png(plots.stacked_lengths(panels, group,
                                                                          all_reasons=game_reasons))
        scores = {}
        for a in items:
            for s in a.scores:
                if a.n:
                    scores.setdefault(s, {})[a.run.stem] = a.run.df[f"score_{s}"].to_numpy()
        if scores:
            hist = {}
            for s, per in scores.items():
                lo = min(float(v.min()) for v in per.values())
                hi = max(float(v.max()) for v in per.values())
                hist[s] = {k: plots.histogram(v, 60, lo, hi) for k, v in per.items()}
            figs[f"scores_{slug(group)}"] = plots.png(plots.score_distributions(hist))
        seat_bars = [plots.Interval(f"{a.run.stem}: {s}", p.value, p.low, p.high, 1 / len(a.run.seats),
                                    a.run.stem) for a in items for s, p in zip(a.run.seats, a.seat_rates,
                                                                              strict=True) if p.n]
        if seat_bars:
            figs[f"seats_{slug(group)}"] = plots.png(plots.forest(
                seat_bars, f"{group}: win rate per seat, all games (95% Wilson)", xlabel="win rate"))
    if any(a.bots for a in analyses):
        figs["bots"] = plots.png(plots.forest(
            [plots.Interval(f"{a.run.stem}: {b}", p.value, p.low, p.high, 1 / len(a.run.seats),
                            a.run.group) for a in analyses for b, p, _ in a.bots],
            "Win rate per bot, seats rotated (95% Wilson)", xlabel="share of seat-games"))
    return figs


def render(analyses: Sequence[Analysis], comps: Sequence[Comparison],
           pictures: dict[str, list] | None = None, out: Path = Path(".")) -> Doc:
    doc = Doc()
    doc.h(1, "Balance report")
    games = sorted({a.n for a in analyses})
    doc.p(f"{len(analyses)} variant(s) of {', '.join(dict.fromkeys(a.run.game_name for a in analyses))}"
          f", {' / '.join(num(g) for g in games[:3])}{'...' if len(games) > 3 else ''} games each. "
          "The verdict first, then why games end, the outcome metrics, each mode's variants "
          "against its reference, every variant in detail, and the rule-text readings. "
          "Terms: docs/glossary.md.")
    render_verdict(doc, analyses, {c.group: c.baseline for c in comps}, out)
    render_warnings(doc, analyses)
    render_why(doc, analyses, pictures or {})
    render_ludii(doc, analyses)
    if comps:
        render_comparisons(doc, comps)
    doc.h(2, "Variants in detail")
    for group, items in groups_of(analyses).items():
        doc.fold(f"{group}: {len(items)} variant{'s' if len(items) != 1 else ''} (seats, draws, "
                 "end reasons, length, scores, game metrics; figures)")
        doc.fold(f"{group}: win rate per seat and score distributions (figures)")
        doc.fig(f"seats_{slug(group)}", f"{group}: win rate per seat, all games (95% Wilson intervals)")
        doc.fig(f"scores_{slug(group)}", f"{group}: score distribution per seat")
        if any(a.bots for a in items):
            doc.fig("bots", "Win rate per bot, seats rotated (95% Wilson intervals)")
        doc.endfold()
        for a in items:
            render_variant(doc, a)
        doc.endfold()
    render_appendix(doc, analyses)
    render_methods(doc)
    return doc


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
        "declares, and names containing " + ", ".join(metrics.NON_WIN_WORDS) + ".",
        f"Degenerate strategy? is flagged when one game length holds at least {SPIKE_SHARE:.0%} of "
        f"games and is under half the median, or one end reason ends at least "
        f"{DOMINANT_SHARE:.0%} of games while others occur too (a way to win only when another "
        "way to win occurs too).",
        "Ludii outcome metrics as defined in Ludii's Evaluation/src/metrics, in floating point; "
        "OutcomeUniformity's interval is a seeded multinomial percentile bootstrap.",
    ])
