"""The metrics a designer compares, and the few statistics the workflows need.

Every metric of an outcome table is one `Metric`: a proportion (successes of n games), a mean or a
quantile of a per-game column, or a game-specific value computed by `Game.report_metrics`.
Intervals and tests come from statsmodels / scipy; the one thing written here is a bootstrap that
resamples value counts (a multinomial draw over the distinct values: the same distribution as
resampling games, at a cost independent of the number of games), so a million-game table
bootstraps in milliseconds. Quantiles are `inverted_cdf` quantiles: always an actual game length.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from sim import stats
from sim.errors import UserError

ALPHA = 0.05
POWER = 0.8
BOOT = 2000  # bootstrap resamples for means and quantiles
BOOT_VALUE = 200  # resamples of a whole table for game-specific values (each calls the game)
VALUE_SUBSAMPLE = 20_000  # above this many games, game values bootstrap m-out-of-n (see below)
QUANTILES = (0.1, 0.5, 0.9)


# The balance report's summary.csv used names of its own until the report was computed from
# these definitions; a name in the old spelling is still understood where hexsim reads a metric
# name (`current_name`), with a deprecation warning.
RENAMED = {"first_player_share_of_decisive": "first_mover_share", "first_player_win_rate": "win_rate_first_mover",
           "turn_cap_rate": "cap_rate", "turns.mean": "turns_mean", "turns.median": "turns_p50",
           "mde.seat_share_of_decisive": "mde_seat_share", "mde.diff_seat_win_rate": "mde_diff_seat_win_rate"}
_RENAMED_PATTERNS = ((r"win_rate\.([^.]+)$", r"win_rate_\1"), (r"end_reason\.(.+)$", r"end_\1"),
                     (r"score\.([^.]+)\.(mean|median)$", r"score_\2_\1"), (r"turns\.(p\d+)$", r"turns_\1"),
                     (r"bot_win_rate\.(.+)$", r"bot_win_rate_\1"))


def current_name(name: str) -> str:
    """The metric's name today: an old summary.csv spelling (`first_player_share_of_decisive`,
    `win_rate.A`, `turns.median`, ...) becomes its current name, with a DeprecationWarning."""
    new = RENAMED.get(name)
    for pattern, repl in _RENAMED_PATTERNS if new is None else ():
        if re.fullmatch(pattern, name):
            new = re.sub(pattern, repl, name)
            break
    if new is None:
        return name
    warnings.warn(f"metric {name!r} is now called {new!r}", DeprecationWarning, stacklevel=2)
    return new


def is_share(metric: str) -> bool:
    """Whether a metric is a share of games (shown in percent, its changes in points): the one
    test every table and page uses."""
    return (metric.startswith(("win_rate_", "end_", "decided_", "bot_win_rate_")) or
            metric in ("first_mover_share", "draw_rate", "cap_rate", "swap_rate"))

@dataclass
class Metric:
    """One number of a table. `kind`: proportion | mean | quantile | value."""

    name: str
    kind: str
    value: float
    n: int
    successes: int | None = None  # proportions
    data: np.ndarray | None = field(default=None, repr=False)  # per-game values (mean, quantile)
    q: float | None = None  # quantiles
    fair: float | None = None  # the share a fair game gives (first-mover share)
    reps: np.ndarray | None = field(default=None, repr=False)  # bootstrap replicates (values)
    hits: np.ndarray | None = field(default=None, repr=False)  # per-game indicator (proportions)
    scope: np.ndarray | None = field(default=None, repr=False)  # games the share is over (None: all)


# ---- the metrics of one table ------------------------------------------------------------------
def outcome_metrics(df: pd.DataFrame, variant) -> list[Metric]:
    """Every metric of a variant's outcome table: seat win rates, first-mover rate and share of
    decisive games, draw and cap rates, end reasons, length mean and quantiles, mean score per
    seat, then the game's own `report_metrics` rows.

    A shared victory (a game column ending in `_shared_mask`, bit q set for every seat q that
    shares the win, 0 when one seat wins alone; e.g. HEXFLOW Tri-Board) counts as a win for every
    sharing seat, in the seat win rates and in the first mover's rate and share."""
    game, seats = variant.game, variant.seat_names
    n = len(df)
    winner = df["winner"].to_numpy()
    first = df["first_seat"].to_numpy()
    reasons = df["end_reason"].astype(str).to_numpy()
    out: list[Metric] = []

    def prop(name, hits, scope=None, fair=None):
        hits = np.asarray(hits, dtype=bool)
        sel = hits if scope is None else hits[scope]
        out.append(Metric(name, "proportion", float(sel.mean()) if sel.size else float("nan"),
                          int(sel.size), successes=int(sel.sum()), fair=fair, hits=hits,
                          scope=scope))

    won = seat_wins(df, len(seats))
    for i, s in enumerate(seats):
        prop(f"win_rate_{s}", won[i])
    first_won = won[np.clip(first, 0, len(seats) - 1), np.arange(n)] & (first >= 0)
    prop("win_rate_first_mover", first_won)
    prop("first_mover_share", first_won, scope=winner >= 0, fair=1.0 / len(seats))
    prop("draw_rate", winner == -1)
    if "swapped" in df.columns:  # the pie rule: how often the second player took the opening
        prop("swap_rate", df["swapped"].to_numpy(dtype=bool))
    if "turn_cap" in game.end_reasons:
        prop("cap_rate", reasons == "turn_cap")
    if len(game.end_reasons) > 1:
        for r in game.end_reasons:
            if r != "turn_cap":
                prop(f"end_{r}", reasons == r)
    turns = df["turns"].to_numpy(dtype=np.float64)
    out.append(Metric("turns_mean", "mean", float(turns.mean()), n, data=turns))
    for q in QUANTILES:
        out.append(Metric(f"turns_p{round(q * 100)}", "quantile", quantile(turns, q), n,
                          data=turns, q=q))
    for s in seats:
        sc = df[f"score_{s}"].to_numpy(dtype=np.float64)
        out.append(Metric(f"score_mean_{s}", "mean", float(sc.mean()), n, data=sc))
    for row in game.report_metrics(df, variant.rules):
        if _is_proportion(row):
            k, m = int(row["successes"]), int(row["n"])
            out.append(Metric(row["metric"], "proportion", k / m if m else float("nan"), m,
                              successes=k))
        else:
            out.append(Metric(row["metric"], "value", float(row["value"]), n))
    return out


def _is_proportion(row: dict[str, Any]) -> bool:
    """A `report_metrics` row given as successes of n (its `value`, if any, is not used)."""
    return row.get("successes") is not None and row.get("n") is not None


def _values(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The value rows of a `report_metrics` answer (proportion rows may carry no `value`)."""
    return {r["metric"]: float(r["value"]) for r in rows if not _is_proportion(r)}


def seat_wins(df: pd.DataFrame, seats: int) -> np.ndarray:
    """(seats, games) bool: seat q won game i, alone or sharing the victory (see
    `outcome_metrics`)."""
    winner = df["winner"].to_numpy()
    won = winner[None, :] == np.arange(seats)[:, None]
    shared = [c for c in df.columns if str(c).endswith("_shared_mask")]
    if shared:
        mask = df[shared[0]].to_numpy().astype(np.int64)
        won |= ((mask[None, :] >> np.arange(seats)[:, None]) & 1).astype(bool)
    return won


def quantile(x: np.ndarray, q: float) -> float:
    return float(np.quantile(x, q, method="inverted_cdf"))


# ---- intervals for one table -------------------------------------------------------------------
def _support(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    vals, counts = np.unique(np.asarray(x, dtype=np.float64), return_counts=True)
    return vals, counts


def _boot_stat(x: np.ndarray, stat: str, q: float | None, b: int, rng) -> np.ndarray:
    """`b` bootstrap replicates of the mean or the q-quantile of x (resampling games)."""
    n = len(x)
    vals, counts = _support(x)
    if len(vals) > 20_000:  # many distinct values: resample games (m-out-of-n when many)
        m = min(n, VALUE_SUBSAMPLE)
        reps = np.empty(min(b, BOOT_VALUE))
        for i in range(reps.size):
            s = x[rng.integers(0, n, m)]
            reps[i] = s.mean() if stat == "mean" else quantile(s, q)
        if m < n:
            full = x.mean() if stat == "mean" else quantile(x, q)
            reps = full + (reps - reps.mean()) * np.sqrt(m / n)
        return reps
    draws = rng.multinomial(n, counts / n, size=b)  # (b, distinct values)
    if stat == "mean":
        return draws @ vals / n
    k = max(1, int(np.ceil(n * q - 1e-9)))  # inverted_cdf: the k-th smallest game
    return vals[np.argmax(np.cumsum(draws, axis=1) >= k, axis=1)]


def boot_replicates(m: Metric, df: pd.DataFrame | None, variant, b: int, rng) -> np.ndarray:
    """Bootstrap replicates of one metric (games resampled with replacement)."""
    if m.kind in ("mean", "quantile"):
        return _boot_stat(m.data, m.kind, m.q, b, rng)
    if m.kind == "value":
        if m.reps is None:
            m.reps = _value_replicates(df, variant, [m.name], b, rng)[m.name]
        return m.reps
    raise ValueError(m.kind)


def attach_value_replicates(ms: list[Metric], df, variant, rng) -> None:
    """Bootstrap every game-specific value of a table at once (one game call per resample)."""
    values = [m for m in ms if m.kind == "value"]
    if values:
        reps = _value_replicates(df, variant, [m.name for m in values], BOOT_VALUE, rng)
        for m in values:
            m.reps = reps[m.name]


def _value_replicates(df, variant, names, b, rng) -> dict[str, np.ndarray]:
    """Replicates of the game's `report_metrics` values over resampled tables. A large table is
    resampled m-out-of-n (m = VALUE_SUBSAMPLE games) and the spread scaled by sqrt(m / n),
    which is right for the smooth statistics (rates, means, ratios) games report and keeps the
    cost independent of the number of games."""
    reps = {k: np.empty(b) for k in names}
    n = len(df)
    m = min(n, VALUE_SUBSAMPLE)
    for i in range(b):
        rows = variant.game.report_metrics(df.iloc[rng.integers(0, n, m)].reset_index(drop=True),
                                           variant.rules)
        got = _values(rows)
        for k in names:
            reps[k][i] = got.get(k, np.nan)
    if m < n:
        full = _values(variant.game.report_metrics(df, variant.rules))
        scale = np.sqrt(m / n)
        for k in names:
            reps[k] = full.get(k, np.nan) + (reps[k] - np.nanmean(reps[k])) * scale
    return reps


MARGIN = 0.02  # the designer's fairness margin: a share within +/-2 points of fair is fair


def metric_table(df: pd.DataFrame, variant, seed: int = 0, alpha: float = ALPHA,
                 margin: float = MARGIN) -> pd.DataFrame:
    """One row per metric: value, 95% interval (Wilson / bootstrap), successes, n, sd, fair share,
    and for a metric with a fair share (the first mover's share of decisive games) the verdict of
    `stats.fairness` against fair +/- margin: `fairness` ("fair" only by the equivalence test,
    "unfair" or "cannot tell"), `p_equivalence`, `p_difference`, `games_needed` and the sentence;
    none (the sentence says why) when a seat's bot sees hidden state (sim.stats.skill.cheats)."""
    from sim.stats.skill import cheats as sees_hidden

    rng = np.random.default_rng(seed)
    ms = outcome_metrics(df, variant)
    seats = getattr(variant, "seats", None) or {}
    cheats = list(dict.fromkeys(b.bot.name for b in seats.values() if sees_hidden(b.bot.name)))
    attach_value_replicates(ms, df, variant, rng)
    rows = []
    for m in ms:
        row: dict[str, Any] = {"metric": m.name, "kind": m.kind, "value": m.value, "n": m.n,
                               "successes": m.successes, "sd": None, "se": None, "q": m.q,
                               "cdf_successes": None, "fair": m.fair, "fairness": None,
                               "p_equivalence": None, "p_difference": None, "games_needed": None,
                               "fairness_sentence": None}
        if m.kind == "proportion":
            ci = stats.wilson(m.successes, m.n, conf=1 - alpha)
            row["ci_low"], row["ci_high"] = ci.low, ci.high
        else:
            reps = m.reps if m.kind == "value" else _boot_stat(m.data, m.kind, m.q, BOOT, rng)
            row["ci_low"], row["ci_high"] = _percentile(reps, alpha)
            row["se"] = float(np.nanstd(reps, ddof=1))
            if m.kind == "mean":
                row["sd"] = float(np.std(m.data, ddof=1)) if m.n > 1 else 0.0
            if m.kind == "quantile":
                row["cdf_successes"] = int((m.data <= m.value).sum())
        if m.fair is not None and cheats:
            row["fairness_sentence"] = (f"No verdict: {', '.join(cheats)} sees every hidden hand (it cheats), so "
                                        "these games do not measure the rules under fair play.")
        elif m.fair is not None:
            f = stats.fairness(m.successes, m.n, m.fair, margin, 1 - alpha)
            row.update(fairness=f.verdict, p_equivalence=f.p_equivalence,
                       p_difference=f.p_difference, games_needed=f.games_needed,
                       fairness_sentence=f.sentence("The first mover"))
        rows.append(row)
    return pd.DataFrame(rows)


def check_margin(margin: float, seats: int) -> None:
    """A fairness margin must leave room on both sides of the fair share 1/seats."""
    top = min(1 / seats, 1 - 1 / seats)
    if not 0 < margin < top:
        raise UserError(f"--margin {margin}: must be above 0 and below {top:.3g} (a share, "
                        "e.g. 0.02 for +/-2 points)")


def _percentile(reps: np.ndarray, alpha: float) -> tuple[float, float]:
    reps = reps[~np.isnan(reps)]
    if reps.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


# ---- two tables --------------------------------------------------------------------------------
def prop_test(k_b: int, n_b: int, k_a: int, n_a: int, value: float = 0.0,
              alternative: str = "two-sided") -> float:
    """Score test of p_b - p_a = value (statsmodels); 1.0 when both sides never or always hit."""
    from statsmodels.stats.proportion import test_proportions_2indep

    if k_a + k_b in (0, n_a + n_b) and value == 0:
        return 1.0
    with np.errstate(all="ignore"):
        p = test_proportions_2indep(k_b, n_b, k_a, n_a, value=value, method="score", correction=False,
                                    compare="diff", alternative=alternative).pvalue
    return float(p) if np.isfinite(p) else 1.0


def holm(pvalues: Sequence[float]) -> np.ndarray:
    return stats.adjust_pvalues(pvalues, "holm")


def z_power(alpha: float = ALPHA, power: float = POWER) -> float:
    """(z_{1-alpha/2} + z_power): the MDE is this many standard errors of the difference."""
    return float(sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(power))


def pairing(df_a: pd.DataFrame, df_b: pd.DataFrame, var_a=None, var_b=None) -> str | None:
    """None when game i of A and game i of B were played from the same seed (and rotation) with
    the same seats, so the games pair; otherwise why they do not."""
    if var_a is not None and var_b is not None and \
            len(var_a.seat_names) != len(var_b.seat_names):
        return (f"A has {len(var_a.seat_names)} seats and B {len(var_b.seat_names)}: games do not "
                "pair")
    if len(df_a) != len(df_b):
        return f"A has {len(df_a):,} games and B {len(df_b):,}: games do not pair"
    for col in ("seed", "rotation"):
        if col in df_a and col in df_b and \
                not np.array_equal(df_a[col].to_numpy(), df_b[col].to_numpy()):
            return f"the {col}s of A's and B's games differ (no common seeds): games do not pair"
    return None


def _paired_categories(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of the per-game columns and how many games have each (for resampling
    pairs as a multinomial over the few distinct combinations)."""
    stacked = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns])
    rows, counts = np.unique(stacked, axis=0, return_counts=True)
    return rows, counts


def _paired_share_cells(ma: Metric, mb: Metric) -> tuple[np.ndarray, np.ndarray]:
    """The kinds of pair of two shares over subsets of games (columns: in A's scope, A hit, in
    B's scope, B hit; at most nine kinds) and how many pairs are of each."""
    sa = np.ones(ma.hits.size, bool) if ma.scope is None else ma.scope
    sb = np.ones(mb.hits.size, bool) if mb.scope is None else mb.scope
    return _paired_categories(sa, ma.hits & sa, sb, mb.hits & sb)


def _paired_share_reps(rows: np.ndarray, counts: np.ndarray, b: int, rng) -> np.ndarray:
    """Paired bootstrap (games resampled together in A and B) of share_b - share_a for shares
    over a subset of games (e.g. decisive games), from `_paired_share_cells`: exact as a
    multinomial over the kinds of pair."""
    draws = rng.multinomial(int(counts.sum()), counts / counts.sum(), size=b).astype(np.float64)
    return _shares_diff(rows, draws)


def _shares_diff(rows: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """share_b - share_a of pair-category counts (columns of rows: in A's scope, A hit, in B's
    scope, B hit)."""
    with np.errstate(all="ignore"):
        return draws @ rows[:, 3] / (draws @ rows[:, 2]) - draws @ rows[:, 1] / (draws @ rows[:, 0])


def _paired_stat_reps(xa: np.ndarray, xb: np.ndarray, stat: str, q: float | None, b: int,
                      rng) -> np.ndarray:
    """Paired bootstrap of stat(B) - stat(A) (mean or inverted-cdf quantile), pairs resampled
    together: a multinomial over the distinct (A, B) value pairs, in chunks."""
    rows, counts = _paired_categories(xa, xb)
    n = int(counts.sum())
    if rows.shape[0] > 20_000:  # many distinct pairs: resample game indices
        reps = np.empty(min(b, BOOT_VALUE))
        for i in range(reps.size):
            idx = rng.integers(0, n, n)
            reps[i] = (xb[idx].mean() - xa[idx].mean() if stat == "mean" else
                       quantile(xb[idx], q) - quantile(xa[idx], q))
        return reps
    out = []
    for start in range(0, b, 250):
        draws = rng.multinomial(n, counts / n, size=min(250, b - start)).astype(np.float64)
        if stat == "mean":
            out.append(draws @ (rows[:, 1] - rows[:, 0]) / n)
            continue
        k = max(1, int(np.ceil(n * q - 1e-9)))
        side = []
        for col in (0, 1):
            vals, inv = np.unique(rows[:, col], return_inverse=True)
            agg = np.zeros((draws.shape[0], vals.size))
            np.add.at(agg.T, inv, draws.T)
            side.append(vals[np.argmax(np.cumsum(agg, axis=1) >= k, axis=1)])
        out.append(side[1] - side[0])
    return np.concatenate(out)


def _resolution(xa: np.ndarray, xb: np.ndarray) -> float:
    """The data's step: the smallest gap between distinct values (1 when all values are one)."""
    vals = np.unique(np.concatenate([xa, xb]))
    return float(np.diff(vals).min()) if vals.size > 1 else 1.0


def _boot_p(diff: float, reps: np.ndarray) -> tuple[float, float]:
    """(p, se): the bootstrap z-test of "no change", the difference over its bootstrap SE."""
    reps = reps[np.isfinite(reps)]
    se = float(np.std(reps, ddof=1)) if reps.size > 1 else 0.0
    if se > 0:
        return float(2 * sps.norm.sf(abs(diff) / se)), se
    return (0.0 if diff != 0 else 1.0), se


def compare_metric(ma: Metric, mb: Metric, df_a, df_b, var_a, var_b, rng,
                   alpha: float = ALPHA, mde_alpha: float | None = None,
                   paired: bool = False) -> dict[str, Any]:
    """Both values, b - a with intervals at 1 - alpha and at 1 - mde_alpha (the level the
    verdicts' strictest step uses), a p-value, the method and the MDE (80% power at
    `mde_alpha`, default alpha) of one metric. `paired`: game i of A and of B share their seed.

    Methods. Proportions over all games, paired: exact McNemar test, Newcombe's paired score
    interval, MDE from the discordant pairs (`stats.mde_paired`); shares over a subset of games
    (decisive games), paired: paired bootstrap interval, the delta-method score test of the
    two ratio estimators and its MDE (`stats.paired_share_test`, `stats.mde_paired_share`: an
    analytic p-value, no resampling floor); otherwise two-sample score test and Newcombe
    interval. Means: paired t over game-by-game differences (or Welch's t with a bootstrap
    interval). Quantiles: the test is the proportion test of "games at or below the
    pooled q-quantile" (McNemar paired, score test otherwise), so its p-value is never finer
    than the data; the interval is a (paired) bootstrap; the MDE is the shift that moves that
    proportion by its MDE, at least one step of the data. Game values: (paired) bootstrap.
    """
    mde_alpha = alpha if mde_alpha is None else mde_alpha
    row: dict[str, Any] = {"metric": ma.name, "kind": ma.kind, "value_a": ma.value,
                           "value_b": mb.value, "diff": mb.value - ma.value, "discordant": np.nan,
                           "note": ""}
    levels = (alpha, mde_alpha)
    if ma.kind == "proportion":
        row.update(successes_a=ma.successes, n_a=ma.n, successes_b=mb.successes, n_b=mb.n)
        if min(ma.n, mb.n) == 0:
            unit = "decisive games" if ma.scope is not None else "games"
            return {**row, "method": "none", "ci_low": np.nan, "ci_high": np.nan,
                    "ci_low_adj": np.nan, "ci_high_adj": np.nan, "p_value": np.nan, "mde": np.nan,
                    "note": f"no {unit}: no claim possible"}
        have = paired and ma.hits is not None and mb.hits is not None
        if have and ma.scope is None and mb.scope is None:
            ha, hb = ma.hits, mb.hits
            cells = (int((ha & hb).sum()), int((hb & ~ha).sum()), int((ha & ~hb).sum()),
                     int((~ha & ~hb).sum()))
            row["discordant"] = cells[1] + cells[2]
            for key, lev in zip(("", "_adj"), levels, strict=True):
                _, row[f"ci_low{key}"], row[f"ci_high{key}"] = stats.newcombe_paired(*cells, 1 - lev)
            row["p_value"] = stats.mcnemar_exact(cells[1], cells[2])
            row["mde"] = stats.mde_paired(row["discordant"], ma.n, mde_alpha)
            row["method"] = "paired: exact McNemar, Newcombe paired interval"
            if row["discordant"] == 0:
                row["note"] = f"no game of {ma.n:,} differed"
            return row
        if have:
            rows, counts = _paired_share_cells(ma, mb)
            reps = _paired_share_reps(rows, counts, BOOT, rng)
            for key, lev in zip(("", "_adj"), levels, strict=True):
                row[f"ci_low{key}"], row[f"ci_high{key}"] = _percentile(reps, lev)
            _, se, row["p_value"] = stats.paired_share_test(rows, counts)
            row["discordant"] = int(counts[(rows[:, :2] != rows[:, 2:]).any(axis=1)].sum())
            row["mde"] = stats.mde_paired_share(se, row["discordant"], mde_alpha, POWER)
            row["method"] = "paired bootstrap interval, paired delta-method (score) z test"
            if se == 0:
                row["note"] = "no game differed"
            return row
        for key, lev in zip(("", "_adj"), levels, strict=True):
            d = stats.newcombe_diff(mb.successes, mb.n, ma.successes, ma.n, conf=1 - lev)
            row[f"ci_low{key}"], row[f"ci_high{key}"] = d.low, d.high
        row["p_value"] = prop_test(mb.successes, mb.n, ma.successes, ma.n)
        row["mde"] = stats.mde_difference(ma.value, ma.n, mb.value, mb.n, mde_alpha, POWER)
        row["method"] = "two-sample score test, Newcombe interval"
        return row
    if ma.kind == "value":
        ra = boot_replicates(ma, df_a, var_a, BOOT_VALUE, rng)
        rb = boot_replicates(mb, df_b, var_b, BOOT_VALUE, rng)
        k = min(ra.size, rb.size)
        reps = rb[:k] - ra[:k]
        for key, lev in zip(("", "_adj"), levels, strict=True):
            row[f"ci_low{key}"], row[f"ci_high{key}"] = _percentile(reps, lev)
        row["p_value"], se = _boot_p(row["diff"], reps)
        row["mde"] = z_power(mde_alpha) * se if se > 0 else np.nan
        row["method"] = ("paired bootstrap (same games resampled), z-test" if paired
                         else "bootstrap, z-test")
        if se == 0:
            row["note"] = "no game differed" if paired else "no spread in the bootstrap"
        return row
    xa, xb = ma.data, mb.data
    paired = paired and xa.size == xb.size
    if ma.kind == "mean":
        return {**row, **_compare_means(xa, xb, levels, rng, paired)}
    return {**row, **_compare_quantiles(xa, xb, ma.q, levels, rng, paired)}


def _two_sample_reps(xa, xb, stat, q, rng) -> np.ndarray:
    """Independent bootstrap replicates of stat(B) - stat(A) (the many-distinct-values path
    draws fewer replicates on one side: trimmed to the shorter)."""
    rb, ra = _boot_stat(xb, stat, q, BOOT, rng), _boot_stat(xa, stat, q, BOOT, rng)
    k = min(rb.size, ra.size)
    return rb[:k] - ra[:k]


def _compare_means(xa, xb, levels, rng, paired) -> dict[str, Any]:
    from statsmodels.stats.power import TTestIndPower, TTestPower

    alpha, mde_alpha = levels
    diff = float(xb.mean() - xa.mean())
    row: dict[str, Any] = {"note": ""}
    span = float(max(xa.max(), xb.max()) - min(xa.min(), xb.min())) if xa.size else 0.0
    if paired:
        d = xb - xa
        n = d.size
        sd = float(d.std(ddof=1)) if n > 1 else 0.0
        row["method"] = "paired t over game-by-game differences"
        if sd == 0:
            row.update(p_value=0.0 if diff != 0 else 1.0, mde=np.nan,
                       note=f"every one of {n:,} games changed by {diff:g}" if diff else
                       f"no game of {n:,} differed")
            for key in ("", "_adj"):
                row[f"ci_low{key}"] = row[f"ci_high{key}"] = diff
            return row
        for key, lev in zip(("", "_adj"), levels, strict=True):
            _, row[f"ci_low{key}"], row[f"ci_high{key}"], row["p_value"] = \
                stats.paired_mean_diff(d, 1 - lev)
        es = TTestPower().solve_power(nobs=n, alpha=mde_alpha, power=POWER) if n > 2 else np.nan
        mde = float(es) * sd
    else:
        reps = _two_sample_reps(xa, xb, "mean", None, rng)
        for key, lev in zip(("", "_adj"), levels, strict=True):
            row[f"ci_low{key}"], row[f"ci_high{key}"] = _percentile(reps, lev)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # constant columns: handled below
            p = sps.ttest_ind(xb, xa, equal_var=False).pvalue
        row["p_value"] = float(p) if np.isfinite(p) else (0.0 if diff != 0 else 1.0)
        row["method"] = "Welch t, bootstrap interval"
        sd = float(np.sqrt((xa.var(ddof=1) * (xa.size - 1) + xb.var(ddof=1) * (xb.size - 1))
                           / (xa.size + xb.size - 2))) if xa.size + xb.size > 2 else 0.0
        if sd == 0:
            row.update(mde=np.nan, note="every game had the same value")
            return row
        es = TTestIndPower().solve_power(nobs1=xa.size, ratio=xb.size / xa.size, alpha=mde_alpha,
                                         power=POWER)
        mde = float(es) * sd
    row["mde"] = mde if np.isfinite(mde) and mde <= max(span, _resolution(xa, xb)) else np.nan
    return row


def _compare_quantiles(xa, xb, q, levels, rng, paired) -> dict[str, Any]:
    alpha, mde_alpha = levels
    pooled = np.concatenate([xa, xb])
    cut = quantile(pooled, q)
    ia, ib = xa <= cut, xb <= cut
    row: dict[str, Any] = {"note": ""}
    if paired:
        up, down = int((ib & ~ia).sum()), int((ia & ~ib).sum())
        row["p_value"] = stats.mcnemar_exact(up, down)
        row["discordant"] = up + down
        dp = stats.mde_paired(up + down, xa.size, mde_alpha)
        reps = _paired_stat_reps(xa, xb, "quantile", q, BOOT, rng)
        row["method"] = f"exact McNemar on games <= the pooled quantile {cut:g}; paired bootstrap"
    else:
        ka, kb = int(ia.sum()), int(ib.sum())
        row["p_value"] = prop_test(kb, xb.size, ka, xa.size)
        dp = stats.mde_difference(ka / xa.size, xa.size, kb / xb.size, xb.size, mde_alpha, POWER)
        reps = _two_sample_reps(xa, xb, "quantile", q, rng)
        row["method"] = f"score test on games <= the pooled quantile {cut:g}; bootstrap interval"
    for key, lev in zip(("", "_adj"), levels, strict=True):
        row[f"ci_low{key}"], row[f"ci_high{key}"] = _percentile(reps, lev)
    # the shift of the distribution that moves the share at or below the quantile by dp
    shifts = [abs(quantile(pooled, min(max(q + s * dp, 0.0), 1.0)) - cut)
              for s in (1, -1) if np.isfinite(dp) and 0 <= q + s * dp <= 1]
    row["mde"] = max(max(shifts), _resolution(xa, xb)) if shifts else np.nan
    return row


def verdict(p_adjusted: float, mde: float, alpha: float = ALPHA, unit: str = "",
            note: str = "") -> str:
    """"changed" (adjusted p < alpha), or "no detectable change" with the change this run could
    have seen (80% power at the family's strictest level); when no change is detectable at all
    at this size, or the data cannot support a claim, it says so."""
    if np.isnan(p_adjusted):
        return f"not tested: {note}" if note else "not tested (no games)"
    if p_adjusted < alpha:
        return "changed"
    extra = f" ({note})" if note else ""
    if np.isnan(mde) and note:
        return f"no detectable change; {note}"
    if np.isnan(mde):
        return "no detectable change; too few games to detect any change at this level"
    return f"no detectable change; this run could have seen a change of {mde:.3g}{unit}{extra}"


def hypotheses(la: dict[str, Metric], lb: dict[str, Metric], names: list[str]) -> dict[str, str]:
    """Metric -> the metric whose hypothesis it repeats: proportions over all games whose per-game
    indicators are equal or complementary in both tables (two seats of a game without draws, the
    first mover and the seat that always moves first) are one hypothesis, tested once. Metrics
    that never (or always) happen in both tables are not merged: their sameness says nothing."""
    seen: dict[bytes, str] = {}
    same: dict[str, str] = {}
    for k in names:
        ma, mb = la[k], lb[k]
        if ma.kind != "proportion" or ma.hits is None or mb.hits is None or \
                ma.scope is not None or mb.scope is not None or ma.hits.size == 0:
            continue
        ha, hb = ma.hits, mb.hits
        if (ha.all() and hb.all()) or not (ha.any() or hb.any()):
            continue
        if ha[0]:
            ha, hb = ~ha, ~hb
        key = np.packbits(ha).tobytes() + b"|" + np.packbits(hb).tobytes()
        if key in seen:
            same[k] = seen[key]
        else:
            seen[key] = k
    return same


def compare_tables(df_a: pd.DataFrame, df_b: pd.DataFrame, var_a, var_b, seed: int = 0,
                   alpha: float = ALPHA, paired: bool | None = None,
                   margin: float = MARGIN) -> pd.DataFrame:
    """The comparison table of two outcome tables (same game): one row per metric of both,
    Holm-adjusted p-values and a verdict with the minimum detectable effect.

    `paired` (default: whenever `pairing` finds the games pair) selects the paired methods of
    `compare_metric`. Metrics that repeat another's hypothesis (`hypotheses`) share its p-value
    and do not count towards the Holm family. `mde` is the change this run detects with 80%
    power at the Bonferroni level alpha/m over the m hypotheses (the strictest step of Holm's
    procedure), so "could have seen a change of X" holds after the correction too; `ci_low_adj`,
    `ci_high_adj` are the intervals at that level (simultaneous), `ci_low`, `ci_high` the
    unadjusted 1 - alpha ones. `fairness_a`, `fairness_b`: for a share with a fair value (the
    first mover's), each side's `stats.fairness` sentence against fair +/- margin."""
    why = pairing(df_a, df_b, var_a, var_b)
    paired = (why is None) if paired is None else (paired and why is None)
    la, lb = outcome_metrics(df_a, var_a), outcome_metrics(df_b, var_b)
    if paired:  # the same resampled games in both tables: a paired bootstrap of game values
        attach_value_replicates(la, df_a, var_a, np.random.default_rng([seed, 1]))
        attach_value_replicates(lb, df_b, var_b, np.random.default_rng([seed, 1]))
    else:
        attach_value_replicates(la, df_a, var_a, np.random.default_rng([seed, 1]))
        attach_value_replicates(lb, df_b, var_b, np.random.default_rng([seed, 2]))
    rng = np.random.default_rng(seed)
    ma, mb = {m.name: m for m in la}, {m.name: m for m in lb}
    common = [k for k in ma if k in mb and ma[k].kind == mb[k].kind]
    same = hypotheses(ma, mb, common)
    family = max(len(common) - len(same), 1)
    rows = [compare_metric(ma[k], mb[k], df_a, df_b, var_a, var_b, rng, alpha,
                           mde_alpha=alpha / family, paired=paired) for k in common]
    out = pd.DataFrame(rows)
    tested = out["metric"].map(lambda k: k not in same).to_numpy()
    adj = np.full(len(out), np.nan)
    adj[tested] = holm(out.loc[tested, "p_value"])
    by_name = dict(zip(out["metric"], adj, strict=True))
    for i, k in enumerate(out["metric"]):
        if k in same:
            adj[i] = by_name[same[k]]
            out.loc[i, "note"] = "; ".join(x for x in (out.loc[i, "note"],
                                                         f"same hypothesis as {same[k]}") if x)
    out["p_adjusted"] = adj
    out["same_as"] = [same.get(k, "") for k in out["metric"]]
    out["paired"] = paired
    out["verdict"] = [verdict(p, d, alpha, note=nt) for p, d, nt in
                      zip(out["p_adjusted"], out["mde"], out["note"], strict=True)]
    for side, ms in (("a", ma), ("b", mb)):  # a share with a fair value: is each side fair?
        out[f"fairness_{side}"] = [
            stats.fairness(ms[k].successes, ms[k].n, ms[k].fair, margin, 1 - alpha).sentence(
                f"{side.upper()}: the first mover") if ms[k].fair is not None else ""
            for k in out["metric"]]
    cols = ["metric", "kind", "value_a", "value_b", "diff", "ci_low", "ci_high", "ci_low_adj",
            "ci_high_adj", "p_value", "p_adjusted", "verdict", "mde", "method", "discordant",
            "same_as", "paired", "fairness_a", "fairness_b", "successes_a", "n_a", "successes_b",
            "n_b"]
    for c in cols:
        if c not in out:
            out[c] = np.nan
    out.attrs["pairing"] = why
    out.attrs["family"] = family
    return out[cols]
