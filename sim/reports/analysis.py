"""The balance report's numbers: every number of a run once, as summary rows (`analyse`), and
the comparisons of a mode's variants with its reference variant (`comparisons`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from sim import stats
from sim.errors import UserError
from sim.reports.document import (
    num,
)
from sim.runs.folder import (
    Run,
    non_win_reasons,
)
from sim.stats import intervals
from sim.stats import skill as skill_mod

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
    play: Any = None  # sim.stats.playmetrics.PlayMetrics of replayed games, when computed
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
