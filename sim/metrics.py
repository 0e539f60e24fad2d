"""The metrics a designer compares, and the few statistics the workflows need.

Every metric of an outcome table is one `Metric`: a proportion (successes of n games), a mean or a
quantile of a per-game column, or a game-specific value computed by `Game.report_metrics`.
Intervals and tests come from statsmodels / scipy; the one thing written here is a bootstrap that
resamples value counts (a multinomial draw over the distinct values: the same distribution as
resampling games, at a cost independent of the number of games), so a million-game table
bootstraps in milliseconds. Quantiles are `inverted_cdf` quantiles: always an actual game length.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from sim import stats

ALPHA = 0.05
POWER = 0.8
BOOT = 2000  # bootstrap resamples for means and quantiles
BOOT_VALUE = 200  # resamples of a whole table for game-specific values (each calls the game)
VALUE_SUBSAMPLE = 20_000  # above this many games, game values bootstrap m-out-of-n (see below)
QUANTILES = (0.1, 0.5, 0.9)


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


# ---- the metrics of one table ------------------------------------------------------------------
def outcome_metrics(df: pd.DataFrame, variant) -> list[Metric]:
    """Every metric of a variant's outcome table: seat win rates, first-mover rate and share of
    decisive games, draw and cap rates, end reasons, length mean and quantiles, mean score per
    seat, then the game's own `report_metrics` rows."""
    game, seats = variant.game, variant.seat_names
    n = len(df)
    winner = df["winner"].to_numpy()
    first = df["first_seat"].to_numpy()
    reasons = df["end_reason"].astype(str).to_numpy()
    out: list[Metric] = []

    def prop(name, mask, fair=None):
        mask = np.asarray(mask, dtype=bool)
        out.append(Metric(name, "proportion", float(mask.mean()) if mask.size else float("nan"),
                          int(mask.size), successes=int(mask.sum()), fair=fair))

    for i, s in enumerate(seats):
        prop(f"win_rate_{s}", winner == i)
    prop("win_rate_first_mover", winner == first)
    decisive = winner >= 0
    prop("first_mover_share", (winner == first)[decisive], fair=1.0 / len(seats))
    prop("draw_rate", winner == -1)
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


def quantile(x: np.ndarray, q: float) -> float:
    return float(np.quantile(x, q, method="inverted_cdf"))


# ---- intervals for one table -------------------------------------------------------------------
def wilson(successes: int, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    ci = stats.wilson(successes, n, conf=1 - alpha)
    return ci.low, ci.high


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


def metric_table(df: pd.DataFrame, variant, seed: int = 0, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per metric: value, 95% interval (Wilson / bootstrap), successes, n, sd, fair share,
    and whether the interval includes the fair share."""
    rng = np.random.default_rng(seed)
    ms = outcome_metrics(df, variant)
    attach_value_replicates(ms, df, variant, rng)
    rows = []
    for m in ms:
        row: dict[str, Any] = {"metric": m.name, "kind": m.kind, "value": m.value, "n": m.n,
                               "successes": m.successes, "sd": None, "se": None, "q": m.q,
                               "cdf_successes": None, "fair": m.fair}
        if m.kind == "proportion":
            row["ci_low"], row["ci_high"] = wilson(m.successes, m.n, alpha)
        else:
            reps = m.reps if m.kind == "value" else _boot_stat(m.data, m.kind, m.q, BOOT, rng)
            row["ci_low"], row["ci_high"] = _percentile(reps, alpha)
            row["se"] = float(np.nanstd(reps, ddof=1))
            if m.kind == "mean":
                row["sd"] = float(np.std(m.data, ddof=1)) if m.n > 1 else 0.0
            if m.kind == "quantile":
                row["cdf_successes"] = int((m.data <= m.value).sum())
        row["fair_in_ci"] = (None if m.fair is None or np.isnan(row["ci_low"])
                             else bool(row["ci_low"] <= m.fair <= row["ci_high"]))
        rows.append(row)
    return pd.DataFrame(rows)


def _percentile(reps: np.ndarray, alpha: float) -> tuple[float, float]:
    reps = reps[~np.isnan(reps)]
    if reps.size == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


# ---- two tables --------------------------------------------------------------------------------
def newcombe_diff(k_b: int, n_b: int, k_a: int, n_a: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Newcombe (Wilson score hybrid) interval for p_b - p_a."""
    d = stats.newcombe_diff(k_b, n_b, k_a, n_a, conf=1 - alpha)
    return d.low, d.high


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


def mde_proportion(p_a: float, n_a: int, p_b: float, n_b: int, alpha=ALPHA, power=POWER) -> float:
    """Smallest change of the rate that a two-sided two-proportion test of these sizes detects
    with `power` in either direction (statsmodels' power function, solved with brentq; a rate
    never seen counts as one event). Towards 1/2 the variance grows, so that side decides."""
    from scipy.optimize import brentq
    from statsmodels.stats.proportion import power_proportions_2indep

    pbar = (p_a * n_a + p_b * n_b) / (n_a + n_b)
    pbar = min(max(pbar, 1 / (n_a + n_b)), 1 - 1 / (n_a + n_b))

    def pw(d):
        with np.errstate(all="ignore"):
            return float(power_proportions_2indep(d, pbar, n_b, ratio=n_a / n_b, alpha=alpha).power)

    found = []
    for sign, room in ((1, 1 - pbar), (-1, pbar)):
        top = room - 1e-9
        if top > 1e-9 and pw(sign * top) >= power:
            found.append(brentq(lambda d, s=sign: pw(s * d) - power, 1e-9, top, xtol=1e-7))
    if found:
        return float(max(found))
    return z_power(alpha, power) * float(np.sqrt(pbar * (1 - pbar) * (1 / n_a + 1 / n_b)))


def compare_metric(ma: Metric, mb: Metric, df_a, df_b, var_a, var_b, rng,
                   alpha: float = ALPHA, mde_alpha: float | None = None) -> dict[str, Any]:
    """Both values, b - a with a 95% interval, a p-value and the MDE (at level `mde_alpha`,
    default alpha) of one metric."""
    mde_alpha = alpha if mde_alpha is None else mde_alpha
    row: dict[str, Any] = {"metric": ma.name, "kind": ma.kind, "value_a": ma.value,
                           "value_b": mb.value, "diff": mb.value - ma.value}
    if ma.kind == "proportion":
        row.update(successes_a=ma.successes, n_a=ma.n, successes_b=mb.successes, n_b=mb.n)
        if min(ma.n, mb.n) == 0:
            return {**row, "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan, "mde": np.nan}
        row["ci_low"], row["ci_high"] = newcombe_diff(mb.successes, mb.n, ma.successes, ma.n, alpha)
        row["p_value"] = prop_test(mb.successes, mb.n, ma.successes, ma.n)
        row["mde"] = mde_proportion(ma.value, ma.n, mb.value, mb.n, mde_alpha)
        return row
    b = BOOT_VALUE if ma.kind == "value" else BOOT
    rb, ra = boot_replicates(mb, df_b, var_b, b, rng), boot_replicates(ma, df_a, var_a, b, rng)
    k = min(rb.size, ra.size)  # the many-distinct-values path draws fewer replicates
    reps = rb[:k] - ra[:k]
    row["ci_low"], row["ci_high"] = _percentile(reps, alpha)
    se = float(np.nanstd(reps, ddof=1))
    if ma.kind == "mean":
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # constant columns: handled below
            p = sps.ttest_ind(mb.data, ma.data, equal_var=False).pvalue
        row["p_value"] = float(p) if np.isfinite(p) else (0.0 if mb.value != ma.value else 1.0)
    else:  # bootstrap z-test: the difference over its bootstrap standard error
        row["p_value"] = (float(2 * sps.norm.sf(abs(row["diff"]) / se)) if se > 0
                          else (0.0 if row["diff"] != 0 else 1.0))
    row["mde"] = z_power(mde_alpha) * (se if se > 0 else _resolution(ma, mb))
    return row


def _resolution(ma: Metric, mb: Metric) -> float:
    """A zero bootstrap spread (every game alike): the smallest step the data could show."""
    if ma.data is None:
        return 0.0
    vals = np.unique(np.concatenate([ma.data, mb.data]))
    step = np.diff(vals).min() if vals.size > 1 else 1.0
    return float(step / np.sqrt(min(ma.n, mb.n)))


def verdict(p_adjusted: float, mde: float, alpha: float = ALPHA, unit: str = "") -> str:
    if np.isnan(p_adjusted):
        return "not tested (no games)"
    if p_adjusted < alpha:
        return "changed"
    return f"no detectable change; this run could have seen a change of {mde:.3g}{unit}"


def compare_tables(df_a: pd.DataFrame, df_b: pd.DataFrame, var_a, var_b, seed: int = 0,
                   alpha: float = ALPHA) -> pd.DataFrame:
    """The comparison table of two outcome tables (same game): one row per metric of both,
    Holm-adjusted p-values and a verdict with the minimum detectable effect.

    `mde` is the change this run detects with 80% power at the Bonferroni level alpha/m over the
    m metrics (the strictest step of Holm's procedure), so "could have seen a change of X" holds
    after the correction too."""
    rng = np.random.default_rng(seed)
    la, lb = outcome_metrics(df_a, var_a), outcome_metrics(df_b, var_b)
    attach_value_replicates(la, df_a, var_a, rng)
    attach_value_replicates(lb, df_b, var_b, rng)
    ma, mb = {m.name: m for m in la}, {m.name: m for m in lb}
    common = [k for k in ma if k in mb and ma[k].kind == mb[k].kind]
    rows = [compare_metric(ma[k], mb[k], df_a, df_b, var_a, var_b, rng, alpha,
                           mde_alpha=alpha / max(len(common), 1)) for k in common]
    out = pd.DataFrame(rows)
    out["p_adjusted"] = holm(out["p_value"])
    out["verdict"] = [verdict(p, d, alpha) for p, d in zip(out["p_adjusted"], out["mde"], strict=True)]
    cols = ["metric", "kind", "value_a", "value_b", "diff", "ci_low", "ci_high", "p_value",
            "p_adjusted", "verdict", "mde", "successes_a", "n_a", "successes_b", "n_b"]
    for c in cols:
        if c not in out:
            out[c] = np.nan
    return out[cols]
