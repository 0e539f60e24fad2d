"""Estimators and tests for balance reports: thin, checked wrappers over scipy and statsmodels.

Everything returns plain floats or small frozen dataclasses and never prints. Inputs are counts
(successes, n) for proportions and 1-D arrays for distributions. Where a function is written by
hand (the count-compressed bootstrap, the Ludii balance), tests/test_stats.py checks it against the
library it stands in for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps
from scipy.optimize import brentq
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    proportion_confint,
    proportions_ztest,
)

NAN = float("nan")
POWER_DEFAULT = 0.8
FAIR_MARGIN = 0.02  # a first-mover share within 2 points of the fair share counts as fair


@dataclass(frozen=True)
class Proportion:
    """successes / n with a confidence interval (method: "wilson" or "exact")."""

    successes: int
    n: int
    value: float
    low: float
    high: float
    method: str


@dataclass(frozen=True)
class Difference:
    """A difference (first minus second) with its interval and a two-sided p-value."""

    value: float
    low: float
    high: float
    p_value: float
    method: str


@dataclass(frozen=True)
class TestResult:
    statistic: float
    p_value: float
    method: str


@dataclass(frozen=True)
class MeanInterval:
    value: float
    low: float
    high: float
    sd: float
    n: int


# ---- one proportion -------------------------------------------------------------------------

def wilson(successes: int, n: int, conf: float = 0.95) -> Proportion:
    """Wilson score interval (statsmodels `proportion_confint(method="wilson")`)."""
    k, n = int(successes), int(n)
    if n <= 0:
        return Proportion(k, n, NAN, NAN, NAN, "wilson")
    lo, hi = proportion_confint(k, n, alpha=1 - conf, method="wilson")
    # statsmodels' rounding can put the bound 1e-17 past the estimate at k = 0 or k = n
    return Proportion(k, n, k / n, min(float(lo), k / n), max(float(hi), k / n), "wilson")


def clopper_pearson(successes: int, n: int, conf: float = 0.95) -> Proportion:
    """Exact (Clopper-Pearson) interval, from scipy's `binomtest(...).proportion_ci("exact")`."""
    k, n = int(successes), int(n)
    if n <= 0:
        return Proportion(k, n, NAN, NAN, NAN, "exact")
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=conf, method="exact")
    return Proportion(k, n, k / n, float(ci.low), float(ci.high), "exact")


def binom_test(successes: int, n: int, p0: float, alternative: str = "two-sided") -> float:
    """Exact binomial test p-value of successes/n against p0 (scipy `binomtest`)."""
    if n <= 0:
        return NAN
    return float(sps.binomtest(int(successes), int(n), p0, alternative=alternative).pvalue)


# ---- two proportions ------------------------------------------------------------------------

def two_proportion_test(k1: int, n1: int, k2: int, n2: int) -> float:
    """Pooled two-proportion z-test p-value (statsmodels `proportions_ztest`), two-sided.

    Equal to Pearson's chi-square test of the 2x2 table without continuity correction. When both
    proportions are 0 or both are 1 the variance is zero; the samples agree exactly, so p = 1.
    """
    if n1 <= 0 or n2 <= 0:
        return NAN
    if (k1 == 0 and k2 == 0) or (k1 == n1 and k2 == n2):
        return 1.0
    _, p = proportions_ztest([int(k1), int(k2)], [int(n1), int(n2)])
    return float(p)


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, conf: float = 0.95) -> Difference:
    """p1 - p2 with Newcombe's hybrid score interval (statsmodels, method="newcomb") and the
    pooled two-proportion test p-value."""
    if n1 <= 0 or n2 <= 0:
        return Difference(NAN, NAN, NAN, NAN, "newcombe")
    lo, hi = confint_proportions_2indep(int(k1), int(n1), int(k2), int(n2), method="newcomb",
                                        compare="diff", alpha=1 - conf)
    return Difference(k1 / n1 - k2 / n2, float(lo), float(hi), two_proportion_test(k1, n1, k2, n2),
                      "newcombe")


# ---- two proportions on paired games ------------------------------------------------------------

def mcnemar_exact(up: int, down: int) -> float:
    """Exact McNemar p-value (statsmodels `mcnemar(exact=True)`: the two-sided binomial test of
    the discordant pairs, `up` = B yes / A no, `down` = B no / A yes); 1 with no discordant pair."""
    from statsmodels.stats.contingency_tables import mcnemar

    if up + down == 0:
        return 1.0
    return float(mcnemar([[0, int(down)], [int(up), 0]], exact=True).pvalue)


def newcombe_paired(both, up, down, neither, conf: float = 0.95):
    """Newcombe's (1998, method 10) score interval for p_B - p_A from paired games, vectorised:
    `both` = yes in A and B, `up` = yes in B only, `down` = yes in A only, `neither`. Two Wilson
    intervals combined with the pairs' phi correlation (phi set to 0 when a margin is empty).
    Returns (difference, low, high) as floats or arrays."""
    a, b, c, d = (np.asarray(x, dtype=np.float64) for x in (both, up, down, neither))
    n = a + b + c + d
    with np.errstate(all="ignore"):
        pb, pa = (a + b) / n, (a + c) / n
        lb, ub = proportion_confint(a + b, n, alpha=1 - conf, method="wilson")
        la, ua = proportion_confint(a + c, n, alpha=1 - conf, method="wilson")
        lb, ub = np.minimum(lb, pb), np.maximum(ub, pb)
        la, ua = np.minimum(la, pa), np.maximum(ua, pa)
        den = np.sqrt((a + b) * (c + d) * (a + c) * (b + d))
        phi = np.where(den > 0, (a * d - b * c) / np.where(den > 0, den, 1.0), 0.0)
        diff = pb - pa
        low = diff - np.sqrt(np.maximum((pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa)
                                        + (ua - pa) ** 2, 0.0))
        high = diff + np.sqrt(np.maximum((ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la)
                                         + (pa - la) ** 2, 0.0))
    out = (diff, np.maximum(low, -1.0), np.minimum(high, 1.0))
    return tuple(float(x) for x in out) if np.ndim(diff) == 0 else out


def paired_mean_diff(d, conf: float = 0.95):
    """Mean of game-by-game differences with its paired-t interval and two-sided p-value,
    vectorised over the rows of `d` (scipy `ttest_rel` / `t.ppf`). Returns (mean, low, high, p)
    as floats for a 1-D input, arrays for a 2-D one. Needs at least 2 pairs and some spread."""
    d = np.asarray(d, dtype=np.float64)
    n = d.shape[-1]
    m = d.mean(axis=-1)
    se = d.std(axis=-1, ddof=1) / math.sqrt(n)
    half = float(sps.t.ppf(0.5 + conf / 2, n - 1)) * se
    with np.errstate(all="ignore"):
        p = 2 * sps.t.sf(np.abs(m / se), n - 1)
    out = (m, m - half, m + half, p)
    return tuple(float(x) for x in out) if d.ndim == 1 else out


def paired_share_test(rows, counts):
    """Two-sided test of "B's share equals A's" for two shares over subsets of the same n paired
    games (the first mover's share of decisive games, A and B played from the same seeds), by the
    delta method on the two ratio estimators, vectorised over the leading axes of `counts`.

    `rows` (k, 4): kinds of pair as 0/1 (in A's scope, A's hit, in B's scope, B's hit); `counts`
    (..., k): pairs of each kind. Pair i adds e_i = (y_i - p v_i) / mean(v) - (x_i - p u_i) /
    mean(u) (u, x: A's scope and hit; v, y: B's; p the pooled share), whose mean is the
    difference D. The variance is the null's, sum(e^2) / n^2 uncentred, a score test: with both
    scopes all games it is McNemar's (b - c) / sqrt(b + c), and it holds its level with a few
    differing pairs where the centred (Wald) variance would not. An analytic p-value has no
    resampling floor, so a strict Holm or Bonferroni level can still be met. Returns (D, se, p)
    as floats or arrays; p is 1 when no pair differs, NaN when a scope is empty."""
    r = np.asarray(rows, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    n = c.sum(axis=-1)
    u, x, v, y = (c @ r[:, j] for j in range(4))
    with np.errstate(all="ignore"):
        pooled = (x + y) / (u + v)
        e = ((r[:, 3] - pooled[..., None] * r[:, 2]) / (v / n)[..., None]
             - (r[:, 1] - pooled[..., None] * r[:, 0]) / (u / n)[..., None])
        se = np.sqrt((c * e ** 2).sum(axis=-1)) / n
        diff = y / v - x / u
        p = np.where(se > 0, 2 * sps.norm.sf(np.abs(diff) / se), 1.0)
    p = np.where(np.isfinite(diff), p, NAN)
    out = (diff, se, p)
    return tuple(float(z) for z in out) if np.ndim(diff) == 0 else out


def mde_paired_share(se: float, differing: int, alpha: float = 0.05,
                     power: float = POWER_DEFAULT) -> float:
    """Smallest change of a share that `paired_share_test` at level alpha finds with `power`,
    from the test's null spread `se` on the observed games and the number of pairs whose A and
    B outcomes differ.

    As `mde_paired` holds the discordance, the change turns differing pairs from A's way to B's:
    their number and the test's se stay, and z = D / se is normal around delta / se with the
    variance of a split of the m differing pairs, 1 - delta^2 / (m se^2) (McNemar's normal
    approximation when the shares are over all games). The power |z| > z_{1-alpha/2}, solved
    for delta; NaN when no pair differed or no change reaches that power."""
    if not differing > 0 or not se > 0:
        return NAN
    z, top = float(sps.norm.isf(alpha / 2)), min(1.0, se * math.sqrt(differing) * (1 - 1e-12))

    def pw(d: float) -> float:
        s = math.sqrt(1 - d * d / (differing * se * se))
        return float(sps.norm.sf((z - d / se) / s) + sps.norm.cdf((-z - d / se) / s))

    if pw(top) < power:
        return NAN
    return float(brentq(lambda d: pw(d) - power, 0.0, top, xtol=1e-10))


def _exact_critical(d: int, alpha: float) -> int | None:
    """Smallest count c > d/2 whose two-sided exact binomial(d, 1/2) p-value is below alpha
    (the test rejects for c or more, or d - c or fewer, of d); None if no count is that extreme."""
    if d <= 0:
        return None
    c = np.arange(d // 2 + 1, d + 1)
    ok = np.minimum(1.0, 2 * sps.binom.sf(c - 1, d, 0.5)) < alpha
    return int(c[np.argmax(ok)]) if ok.any() else None


def mde_paired(discordant: int, n: int, alpha: float = 0.05, power: float = POWER_DEFAULT) -> float:
    """Smallest change of a rate that the exact McNemar test at level alpha detects with `power`
    on n paired games of which `discordant` came out differently.

    With the discordance held at its observed share r = discordant / n, a change delta moves the
    discordant pairs' split to (1/2 + delta / 2r); the exact power of the binomial test on those
    pairs is solved for 80%. When that many discordant pairs could never reject (too few), the
    smallest change any discordance allows is returned instead: a change delta needs at least
    n delta discordant pairs, all one way, and is found when at least the critical number of
    them shows up, P(Binomial(n, delta) >= c) = power. NaN when even delta = 1 is not found.
    Never above 1."""
    from scipy.optimize import brentq

    n, dis = int(n), int(discordant)
    if n <= 0:
        return NAN
    c = _exact_critical(dis, alpha)
    if c is not None:
        def pw(s: float) -> float:
            return float(sps.binom.sf(c - 1, dis, 0.5 + s) + sps.binom.cdf(dis - c, dis, 0.5 + s))
        if pw(0.5) >= power:
            s = brentq(lambda s: pw(s) - power, 0.0, 0.5, xtol=1e-10)
            return 2 * s * dis / n
    c_min = next(k for k in range(1, 200) if 2 * 0.5 ** k < alpha)
    if c_min > n:
        return NAN
    return float(brentq(lambda dl: float(sps.binom.sf(c_min - 1, n, dl)) - power, 1e-12, 1.0,
                        xtol=1e-12))


# ---- distributions --------------------------------------------------------------------------

def mean_interval(x: np.ndarray, conf: float = 0.95) -> MeanInterval:
    """Mean with a Student-t interval (n > 1; a constant sample gives a zero-width interval)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n == 0:
        return MeanInterval(NAN, NAN, NAN, NAN, 0)
    m = float(x.mean())
    if n == 1:
        return MeanInterval(m, NAN, NAN, NAN, 1)
    sd = float(x.std(ddof=1))
    half = float(sps.t.ppf(0.5 + conf / 2, n - 1)) * sd / math.sqrt(n)
    return MeanInterval(m, m - half, m + half, sd, n)


QUANTILES = (("p5", 0.05), ("p25", 0.25), ("median", 0.5), ("p75", 0.75), ("p95", 0.95))


def quantiles(x: np.ndarray) -> dict[str, float]:
    """p5, p25, median, p75, p95 (numpy's default linear interpolation) and mean."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return {name: NAN for name, _ in QUANTILES} | {"mean": NAN}
    qs = np.quantile(x, [q for _, q in QUANTILES])
    return {name: float(v) for (name, _), v in zip(QUANTILES, qs, strict=True)} | {"mean": float(x.mean())}


def _stat_from_counts(values: np.ndarray, counts: np.ndarray, n: int, stat) -> np.ndarray:
    """Statistic of samples given as counts over sorted unique values; counts is (B, k).

    Quantiles follow numpy's default (linear) rule: position h = (n - 1) q in the sorted sample.
    """
    if stat == "mean":
        return counts @ values / n
    h = (n - 1) * float(stat)
    lo = int(math.floor(h))
    frac = h - lo
    cum = np.cumsum(counts, axis=1)
    # sorted sample element j is values[number of cumulative counts <= j]
    i_lo = (cum <= lo).sum(axis=1)
    i_hi = (cum <= min(lo + 1, n - 1)).sum(axis=1)
    return values[i_lo] + frac * (values[i_hi] - values[i_lo])


def _resample_stat(x: np.ndarray, stat, n_resamples: int, rng: np.random.Generator,
                   max_unique: int) -> np.ndarray:
    values, counts = np.unique(x, return_counts=True)
    n = x.size
    if values.size <= max_unique:
        # Bootstrapping a sample with few distinct values (game lengths, scores) is a multinomial
        # draw of counts over those values: exact, and O(B k) instead of O(B n).
        draws = rng.multinomial(n, counts / n, size=n_resamples).astype(np.float64)
        return _stat_from_counts(values.astype(np.float64), draws, n, stat)
    out = np.empty(n_resamples)
    for b in range(n_resamples):
        s = x[rng.integers(0, n, n)]
        out[b] = s.mean() if stat == "mean" else np.quantile(s, float(stat))
    return out


def bootstrap_diff(x: np.ndarray, y: np.ndarray, stat: str | float = "mean", conf: float = 0.95,
                   n_resamples: int = 2000, seed: int = 0, max_unique: int = 5000) -> Difference:
    """Percentile bootstrap interval of stat(x) - stat(y); stat is "mean" or a quantile in [0, 1].

    Independent resamples of each sample (seeded, so a report is reproducible). The p-value is the
    two-sided bootstrap p-value of "difference = 0": twice the smaller tail share, floored at
    1 / (B + 1).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.size == 0 or y.size == 0:
        return Difference(NAN, NAN, NAN, NAN, "bootstrap")
    if stat != "mean" and not 0.0 <= float(stat) <= 1.0:
        raise ValueError(f"stat must be 'mean' or a quantile in [0, 1], got {stat!r}")
    rng = np.random.default_rng(seed)
    bx = _resample_stat(x, stat, n_resamples, rng, max_unique)
    by = _resample_stat(y, stat, n_resamples, rng, max_unique)
    d = bx - by
    point = (x.mean() - y.mean()) if stat == "mean" else \
        float(np.quantile(x, float(stat)) - np.quantile(y, float(stat)))
    lo, hi = np.quantile(d, [(1 - conf) / 2, (1 + conf) / 2])
    tail = min((d <= 0).mean(), (d >= 0).mean())
    p = min(1.0, max(2 * tail, 1 / (n_resamples + 1)))
    return Difference(float(point), float(lo), float(hi), float(p), "bootstrap")


def bootstrap_interval(x: np.ndarray, stat: str | float = 0.5, conf: float = 0.95,
                       n_resamples: int = 2000, seed: int = 0,
                       max_unique: int = 5000) -> tuple[float, float, float]:
    """(estimate, low, high): percentile bootstrap interval of one sample's mean or quantile."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return NAN, NAN, NAN
    b = _resample_stat(x, stat, n_resamples, np.random.default_rng(seed), max_unique)
    point = float(x.mean()) if stat == "mean" else float(np.quantile(x, float(stat)))
    lo, hi = np.quantile(b, [(1 - conf) / 2, (1 + conf) / 2])
    return point, float(lo), float(hi)


def mann_whitney(x: np.ndarray, y: np.ndarray) -> TestResult:
    """Two-sided Mann-Whitney U test (scipy; asymptotic with tie correction for large samples)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.size == 0 or y.size == 0:
        return TestResult(NAN, NAN, "mann-whitney")
    if np.all(x == x.flat[0]) and np.all(y == x.flat[0]):
        return TestResult(x.size * y.size / 2, 1.0, "mann-whitney")
    r = sps.mannwhitneyu(x, y, alternative="two-sided")
    return TestResult(float(r.statistic), float(r.pvalue), "mann-whitney")


def ks_test(x: np.ndarray, y: np.ndarray) -> TestResult:
    """Two-sample Kolmogorov-Smirnov test (scipy `ks_2samp`, two-sided)."""
    x, y = np.asarray(x), np.asarray(y)
    if x.size == 0 or y.size == 0:
        return TestResult(NAN, NAN, "ks")
    # scipy's "auto" goes exact up to 10,000 per sample; beyond that the exact path is slow
    r = sps.ks_2samp(x, y, method="auto" if max(x.size, y.size) <= 10_000 else "asymp")
    return TestResult(float(r.statistic), float(r.pvalue), "ks")


# ---- multiple comparisons -------------------------------------------------------------------

def adjust_pvalues(p: Sequence[float], method: str = "holm") -> np.ndarray:
    """Holm ("holm") or Benjamini-Hochberg ("bh", statsmodels multipletests) adjusted p-values.

    NaNs (untestable metrics) stay NaN and do not count towards the family.
    """
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, NAN)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = holm(p[ok]) if method == "holm" else multipletests(p[ok], method={"bh": "fdr_bh"}[method])[1]
    return out


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values: the i-th smallest times (m - i), running maximum,
    capped at 1 (statsmodels' multipletests "holm" gives the same; tests/test_stats.py checks it).
    Written out because multipletests runs a full garbage collection on every Holm call, about
    0.1 s each in a report's process (a 64-variant report made 66 of them)."""
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1)))
    out = np.empty_like(adj)
    out[order] = adj
    return out


# ---- power ----------------------------------------------------------------------------------

def _h_to_p(p0: float, h: float) -> float:
    """The proportion at Cohen's h above p0 (h = 2 asin sqrt p1 - 2 asin sqrt p0), capped at 1."""
    a = math.asin(math.sqrt(p0)) + h / 2
    return 1.0 if a >= math.pi / 2 else math.sin(a) ** 2


def mde_proportion(n: int, p0: float = 0.5, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest upward shift from p0 that a two-sided level-alpha test of one proportion detects
    with the given power after n games (arcsine effect size, statsmodels NormalIndPower)."""
    if n <= 0:
        return NAN
    h = NormalIndPower().solve_power(effect_size=None, nobs1=n, alpha=alpha, power=power, ratio=0,
                                     alternative="two-sided")
    return _h_to_p(p0, float(h)) - p0


def mde_share(n: int, p0: float, alpha: float = 0.05, power: float = POWER_DEFAULT) -> float:
    """Smallest upward shift of a share from p0 that the exact binomial test (equal tails, each
    alpha/2; the same region as scipy's two-sided test at p0 = 1/2) finds with the given power
    after n trials (e.g. a seat's share of n decisive games): the exact power, solved. NaN when
    n is 0 or no share up to 1 reaches that power."""
    if n <= 0:
        return NAN
    k_hi = int(sps.binom.isf(alpha / 2, n, p0)) + 1  # smallest k with P(X >= k) <= alpha / 2
    while k_hi > 0 and sps.binom.sf(k_hi - 2, n, p0) <= alpha / 2:
        k_hi -= 1
    k_lo = int(sps.binom.ppf(alpha / 2, n, p0)) - 1  # largest k with P(X <= k) <= alpha / 2
    while k_lo + 1 <= n and sps.binom.cdf(k_lo + 1, n, p0) <= alpha / 2:
        k_lo += 1

    def pw(s: float) -> float:
        p = min(p0 + s, 1.0)
        return float(sps.binom.sf(k_hi - 1, n, p) + (sps.binom.cdf(k_lo, n, p) if k_lo >= 0 else 0))

    if k_hi > n or pw(1 - p0) < power:
        return NAN
    return float(brentq(lambda s: pw(s) - power, 0.0, 1 - p0, xtol=1e-10))


def mde_difference(p_a: float, n_a: int, p_b: float, n_b: int, alpha: float = 0.05,
                   power: float = 0.8) -> float:
    """Smallest change of a rate between two independent tables (p_a of n_a games, p_b of n_b)
    that a two-sided two-proportion test detects with `power` in either direction
    (statsmodels' power function, solved with brentq; a rate never seen counts as one event).
    Towards 1/2 the variance grows, so that side decides. NaN when no change inside [0, 1]
    reaches that power (too few games): never above the range."""
    from scipy.optimize import brentq
    from statsmodels.stats.proportion import power_proportions_2indep

    if min(n_a, n_b) <= 0:
        return float("nan")
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
    return float(max(found)) if found else float("nan")


# ---- balance --------------------------------------------------------------------------------

def ludii_balance(win_rates: Sequence[float]) -> float:
    """Ludii's balance: 1 minus the largest gap between any two seats' win rates (1 = fair)."""
    r = np.asarray(win_rates, dtype=np.float64)
    if r.size == 0 or np.isnan(r).any():
        return NAN
    return float(1.0 - (r.max() - r.min()))


@dataclass(frozen=True)
class Balance:
    """Ludii's balance with a percentile bootstrap interval and what a perfectly fair game of
    the same size and draw rate averages (the statistic is biased below 1: sampling noise always
    opens a gap between seats)."""

    value: float
    low: float
    high: float
    fair_mean: float


def ludii_balance_interval(counts: Sequence[int], conf: float = 0.95, n_resamples: int = 2000,
                           seed: int = 0) -> Balance:
    """Balance of outcome counts [draws, wins of seat 0, ..., wins of seat k-1]: the value, a
    seeded bootstrap interval (games resampled: a multinomial draw of the counts) and the mean
    balance of games whose decisive share splits evenly between seats."""
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    if n == 0 or c.size < 3:
        return Balance(NAN, NAN, NAN, NAN)
    rng = np.random.default_rng(seed)

    def bal(draws: np.ndarray) -> np.ndarray:
        rates = draws[:, 1:] / n
        return 1.0 - (rates.max(axis=1) - rates.min(axis=1))

    reps = bal(rng.multinomial(n, c / n, size=n_resamples))
    k = c.size - 1
    fair_p = np.concatenate([[c[0] / n], np.full(k, (1 - c[0] / n) / k)])
    fair = bal(rng.multinomial(n, fair_p, size=n_resamples))
    lo, hi = np.quantile(reps, [(1 - conf) / 2, (1 + conf) / 2])
    return Balance(ludii_balance(c[1:] / n), float(lo), float(hi), float(fair.mean()))
