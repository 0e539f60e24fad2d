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
    """Holm ("holm") or Benjamini-Hochberg ("bh") adjusted p-values (statsmodels multipletests).

    NaNs (untestable metrics) stay NaN and do not count towards the family.
    """
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, NAN)
    ok = ~np.isnan(p)
    if ok.any():
        sm = {"holm": "holm", "bh": "fdr_bh"}[method]
        out[ok] = multipletests(p[ok], method=sm)[1]
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


# ---- fairness by equivalence ------------------------------------------------------------------

VERDICTS = ("cannot tell", "fair", "unfair")  # the codes `verdict_codes` returns, in order


@dataclass(frozen=True)
class Fairness:
    """Is a share (e.g. the first mover's share of decisive games) fair, unfair, or undecided?

    `share` with its Wilson interval [`low`, `high`] at `conf`; `p_equivalence` is the exact
    two one-sided tests (TOST) p-value of "the true share lies within p0 +/- margin";
    `p_beyond` the exact one-sided p-value of "the true share lies within the margin" against
    "beyond it, on the side of the estimate"; `p_difference` the two-sided exact binomial
    p-value of "the true share is p0".

    The rule (alpha = 1 - conf), the same everywhere a verdict is printed (`verdict_codes`):
      - "fair" when TOST rejects at alpha: the data show the share is within the margin.
      - "unfair" when the share is shown beyond the margin: the exact (Clopper-Pearson) interval
        at `conf` lies wholly outside p0 +/- margin (p_beyond < alpha / 2), and so does the
        shown Wilson interval, so the sentence's interval and the verdict never disagree. A true
        share within the margin is called unfair with probability at most alpha / 2 at any n.
      - "cannot tell" otherwise (and with n = 0). When the interval excludes p0 the edge is
        detectable but not shown beyond the margin (`detectable`). `games_needed` estimates how
        many games of this kind would give a verdict with 80% probability if the true share
        were the observed one (p0 with n = 0; None once decided, and None when the observed
        share sits so close to the margin's edge that no affordable number of games decides:
        `games_to_decide`).
    """

    successes: int
    n: int
    p0: float
    margin: float
    conf: float
    share: float
    low: float
    high: float
    p_equivalence: float
    p_beyond: float
    p_difference: float
    verdict: str
    games_needed: int | None

    @property
    def detectable(self) -> bool:
        """The interval excludes the fair share (an edge is seen, whatever the verdict)."""
        return self.n > 0 and not self.low <= self.p0 <= self.high

    def sentence(self, what: str = "The first player", unit: str = "decisive games") -> str:
        if self.n == 0:
            return f"{what}: no {unit}: no claim possible."
        m = _points(self.margin)
        head = (f"{what} wins {100 * self.share:.1f}% of {unit} "
                f"({100 * self.low:.1f}-{100 * self.high:.1f})")
        off = _points(abs(self.share - self.p0))
        if self.verdict == "fair":
            extra = f" (a detectable edge of {off} points, inside the margin)" if self.detectable else ""
            return f"{head}: fair within +/-{m} points{extra}."
        if self.verdict == "unfair":
            return f"{head}: unfair, by about {off} points (beyond the +/-{m}-point margin)."
        edge = (f"a detectable edge of {off} points, not shown beyond the +/-{m}-point margin"
                if self.detectable else f"neither shown within nor beyond +/-{m} points")
        need = (f"; about {self.games_needed:,} {unit} would decide" if self.games_needed is not None
                else "; the edge sits at the margin, so no affordable number of games decides")
        return f"{head}: cannot tell: {edge}{need}."


def verdict_rule(margin: float) -> str:
    """The verdict rule in one sentence, as every page that prints a verdict states it."""
    m = _points(margin)
    return (f"fair = shown within +/-{m} points of the fair share (two one-sided exact tests); "
            f"unfair = shown beyond it (the 95% interval lies wholly outside fair +/-{m} points); "
            "otherwise cannot tell, with about how many games would decide")


def _points(x: float) -> str:
    """A share difference in percentage points, rounded as a sentence reads it (7, 1.5, 0.3)."""
    pts = 100 * float(x)
    return f"{pts:.0f}" if pts >= 3 else f"{pts:.1g}" if pts < 0.1 else f"{pts:.1f}".rstrip("0").rstrip(".")


def tost_binomial(successes, n: int, low: float, high: float) -> np.ndarray | float:
    """Exact two one-sided tests p-value of "low < p < high" for successes of n (vectorised over
    successes): max(P(X >= k | low), P(X <= k | high)). Same as statsmodels' `binom_tost`."""
    k = np.asarray(successes)
    p = np.maximum(sps.binom.sf(k - 1, n, low), sps.binom.cdf(k, n, high))
    return float(p) if p.ndim == 0 else p


def beyond_binomial(successes, n: int, low: float, high: float) -> np.ndarray | float:
    """Exact one-sided p-value of "low <= p <= high" against "p beyond it, on the estimate's
    side" (vectorised over successes): min(P(X >= k | high), P(X <= k | low)). Below alpha / 2
    exactly when the Clopper-Pearson interval at 1 - alpha lies wholly outside [low, high]."""
    k = np.asarray(successes)
    p = np.minimum(sps.binom.sf(k - 1, n, high), sps.binom.cdf(k, n, low))
    return float(p) if p.ndim == 0 else p


def verdict_codes(successes, n: int, p0: float, margin: float, conf: float = 0.95) -> np.ndarray:
    """The verdict of `Fairness` for each count in `successes` (0 cannot tell, 1 fair, 2 unfair;
    names in VERDICTS), vectorised so that its error rates can be computed exactly."""
    k = np.atleast_1d(np.asarray(successes))
    alpha = 1 - conf
    lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
    fair = tost_binomial(k, n, p0 - margin, p0 + margin) < alpha
    outside = (np.asarray(lo) > p0 + margin) | (np.asarray(hi) < p0 - margin)
    unfair = outside & (beyond_binomial(k, n, p0 - margin, p0 + margin) < alpha / 2)
    return np.where(fair, 1, np.where(unfair, 2, 0))


def decided_probability(share: float, n: float, p0: float, margin: float, alpha: float) -> float:
    """Normal approximation of P(verdict "fair" or "unfair") after n games whose true share is
    `share`: the estimate lands within margin - z_{1-alpha} se of p0 (equivalence shown) or
    beyond margin + z_{1-alpha/2} se of it (shown beyond the margin), se = sqrt(share (1 -
    share) / n). tests/test_stats.py checks it against the exact probability."""
    se = math.sqrt(max(share * (1 - share), 1e-12) / n)
    d = share - p0
    inner = margin - float(sps.norm.ppf(1 - alpha)) * se
    outer = margin + float(sps.norm.ppf(1 - alpha / 2)) * se
    fair = (sps.norm.cdf((inner - d) / se) - sps.norm.cdf((-inner - d) / se)) if inner > 0 else 0.0
    unfair = sps.norm.sf((outer - d) / se) + sps.norm.cdf((-outer - d) / se)
    return float(fair + unfair)


MAX_GAMES = 10**9  # beyond this many games a verdict is not "about N games away"


def games_to_decide(share: float, p0: float, margin: float, alpha: float,
                    power: float = POWER_DEFAULT) -> int | None:
    """About how many games of a true share `share` give a verdict ("fair" or "unfair", see
    `fairness`) with probability `power` (`decided_probability` solved for n); None when even
    MAX_GAMES do not (a share at the margin's edge is never shown on either side of it)."""
    f = lambda log_n: decided_probability(share, math.exp(log_n), p0, margin, alpha) - power
    if f(0.0) >= 0:
        return 1
    if f(math.log(MAX_GAMES)) < 0:
        return None
    return int(math.ceil(math.exp(brentq(f, 0.0, math.log(MAX_GAMES), xtol=1e-6))))


def fairness(successes: int, n: int, p0: float = 0.5, margin: float = 0.02,
             conf: float = 0.95) -> Fairness:
    """Fair, unfair or cannot tell: a share against p0 +/- margin (see `Fairness`)."""
    k, n = int(successes), int(n)
    if not 0 < p0 < 1 or not 0 < margin < min(p0, 1 - p0) or not 0 < conf < 1:
        raise ValueError(f"fairness: need 0 < p0 < 1, 0 < margin < min(p0, 1 - p0) and "
                         f"0 < conf < 1; got p0={p0}, margin={margin}, conf={conf}")
    if not 0 <= k <= n:
        raise ValueError(f"fairness: need 0 <= successes <= n, got {k} of {n}")
    alpha = 1 - conf
    if n == 0:
        return Fairness(k, n, p0, margin, conf, NAN, NAN, NAN, NAN, NAN, NAN, "cannot tell",
                        games_to_decide(p0, p0, margin, alpha))
    ci = wilson(k, n, conf)
    verdict = VERDICTS[int(verdict_codes(k, n, p0, margin, conf)[0])]
    need = None
    if verdict == "cannot tell":
        need = games_to_decide(k / n, p0, margin, alpha)
        need = None if need is None else max(need, n + 1)
    return Fairness(k, n, p0, margin, conf, ci.value, ci.low, ci.high,
                    float(tost_binomial(k, n, p0 - margin, p0 + margin)),
                    float(beyond_binomial(k, n, p0 - margin, p0 + margin)), binom_test(k, n, p0),
                    verdict, need)


# ---- does a verdict hold with stronger play? -----------------------------------------------------

SKILL_WORDS = ("holds with stronger play", "changes with stronger play", "cannot tell yet")


@dataclass(frozen=True)
class SkillAnswer:
    """The verdict of one line-up (`base`, e.g. greedy on every seat) against the same variant
    played by a stronger line-up (`strong`): `answer` is one of SKILL_WORDS; `diff` is the
    strong minus the base share (Newcombe interval, two-proportion test; independent games).

    The rule (in order; "side" is which player an edge favours):
      - both verdicts decided (fair or unfair): holds when they are the same word on the same
        side, changes otherwise;
      - one rung decided and the other's interval wholly outside what that verdict claims (e.g.
        greedy unfair for the first player, the strong rung's interval wholly below fair +
        margin; or greedy undecided at 52.8% (51.9-53.7) and the strong rung unfair for the
        second player): changes;
      - base unfair, strong undecided: holds when the strong interval still excludes the fair
        share on the base's side and the difference is not significant (the edge persists, no
        detectable change);
      - base fair, strong undecided: holds when the strong interval includes the fair share and
        the difference is not significant;
      - otherwise cannot tell yet.
    A true share that stays put is called "changes" with probability at most about alpha / 2
    (tests/test_stats.py simulates both errors)."""

    base: Fairness
    strong: Fairness
    diff: Difference
    answer: str

    def sentence(self, base_bot: str, strong_bot: str) -> str:
        s, d = self.strong, self.diff
        if s.n == 0:
            return f"{strong_bot} on every seat: no decisive games."
        return (f"With {strong_bot} on every seat the first mover wins {100 * s.share:.1f}% "
                f"({100 * s.low:.1f}-{100 * s.high:.1f}) of {s.n:,} decisive games ({s.verdict}); "
                f"{strong_bot} minus {base_bot}: {100 * d.value:+.1f} points "
                f"({100 * d.low:+.1f} to {100 * d.high:+.1f}, p = {d.p_value:.2g}): the verdict "
                f"{self.answer.replace('cannot tell yet', 'cannot be told yet')}.")


def _side(f: Fairness) -> int:
    return int(np.sign(f.share - f.p0)) if f.n else 0


def _shown_outside(decided: Fairness, other: Fairness) -> bool:
    """`other`'s interval lies wholly outside the region `decided`'s verdict claims (fair: the
    margin; unfair: beyond the margin on its side): the two rungs cannot share that verdict."""
    lo, hi = decided.p0 - decided.margin, decided.p0 + decided.margin
    if decided.verdict == "fair":
        return other.low > hi or other.high < lo
    return other.high <= hi if _side(decided) > 0 else other.low >= lo


def skill_answer(base: Fairness, strong: Fairness) -> SkillAnswer:
    """Does `base`'s verdict hold when the game is played by a stronger line-up (`strong`)?
    See `SkillAnswer` for the rule."""
    diff = newcombe_diff(strong.successes, strong.n, base.successes, base.n, base.conf)
    significant = not diff.low <= 0 <= diff.high
    decided = ("fair", "unfair")
    if base.n == 0 or strong.n == 0:
        answer = SKILL_WORDS[2]
    elif base.verdict in decided and strong.verdict in decided:
        same = strong.verdict == base.verdict and (base.verdict == "fair" or _side(strong) == _side(base))
        answer = SKILL_WORDS[0] if same else SKILL_WORDS[1]
    elif (base.verdict in decided and _shown_outside(base, strong)) or \
            (strong.verdict in decided and _shown_outside(strong, base)):
        answer = SKILL_WORDS[1]
    elif base.verdict == "unfair":
        persists = strong.detectable and _side(strong) == _side(base) and not significant
        answer = SKILL_WORDS[0] if persists else SKILL_WORDS[2]
    elif base.verdict == "fair":
        answer = SKILL_WORDS[0] if not strong.detectable and not significant else SKILL_WORDS[2]
    else:
        answer = SKILL_WORDS[2]
    return SkillAnswer(base, strong, diff, answer)


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


# ---- sequential testing and Elo (bot ladders) -----------------------------------------------

_SCORES = np.array([1.0, 0.5, 0.0])  # win, draw, loss


def elo_to_score(elo: float) -> float:
    """Expected score of a player `elo` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_interval(wins: int, draws: int, losses: int, conf: float = 0.95) -> tuple[float, float, float]:
    """(Elo, low, high) of a win/draw/loss record: normal interval on the mean score (trinomial
    variance), mapped through the logistic Elo curve."""
    n = wins + draws + losses
    if n == 0:
        return NAN, NAN, NAN
    s = (wins + 0.5 * draws) / n
    var = (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n
    half = float(sps.norm.ppf(0.5 + conf / 2)) * math.sqrt(var / n)
    return score_to_elo(s), score_to_elo(s - half), score_to_elo(s + half)


def _constrained_loglik(counts: np.ndarray, score: float) -> float:
    """Max log-likelihood of trinomial counts (win, draw, loss) over outcome probabilities with
    expected score `score` in (0, 1).

    Lagrange: p_i = n_i / (N (1 + lam d_i)), d_i = x_i - score, where lam keeps every
    1 + lam d_i >= 0 (KKT for unobserved outcomes) and solves sum n_i d_i / (1 + lam d_i) = 0.
    That sum decreases in lam; when it has no root inside the bracket the optimum sits on the
    bracket's end and the missing mass goes to the unobserved outcome that fixes it.
    """
    n = counts.sum()
    d = _SCORES - score
    lo = max(-1 / x for x in d if x > 0)
    hi = min(-1 / x for x in d if x < 0)
    live = counts > 0
    c, dl = counts[live], d[live]
    f = lambda lam: float(np.sum(c * dl / (1 + lam * dl)))
    eps = 1e-12 * max(1.0, abs(lo), abs(hi))
    if f(hi - eps) >= 0:
        lam = hi
    elif f(lo + eps) <= 0:
        lam = lo
    else:
        lam = brentq(f, lo + eps, hi - eps, xtol=1e-15)
    p = c / (n * (1 + lam * dl))
    return float(np.sum(c * np.log(p)))


@dataclass(frozen=True)
class SPRTResult:
    llr: float
    lower: float
    upper: float
    decision: str  # "H1" (elo >= elo1 accepted), "H0" (elo <= elo0 accepted) or "continue"
    elo0: float
    elo1: float


def gsprt(wins: int, draws: int, losses: int, elo0: float = 0.0, elo1: float = 10.0,
          alpha: float = 0.05, beta: float = 0.05) -> SPRTResult:
    """Generalised sequential probability ratio test on a win/draw/loss record, as chess-engine
    testing runs it: the log-likelihood ratio of "score = score(elo1)" against "score =
    score(elo0)", each side maximised over the draw rate (trinomial MLE), against Wald's bounds
    log(beta / (1 - alpha)) and log((1 - beta) / alpha). Stop at the first crossing."""
    counts = np.array([wins, draws, losses], dtype=np.float64)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    if counts.sum() == 0:
        return SPRTResult(0.0, lower, upper, "continue", elo0, elo1)
    llr = (_constrained_loglik(counts, elo_to_score(elo1))
           - _constrained_loglik(counts, elo_to_score(elo0)))
    decision = "H1" if llr >= upper else "H0" if llr <= lower else "continue"
    return SPRTResult(float(llr), lower, upper, decision, elo0, elo1)


def bradley_terry(wins: np.ndarray, iterations: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths of k bots as Elo ratings (mean 0) from a k x k matrix,
    wins[i, j] = games i won against j (count a draw as half a win to each side).

    Hunter's (2004) MM iteration: p_i <- W_i / sum_j n_ij / (p_i + p_j). A bot that never lost
    (or never won) has no finite rating; its entry is +inf (-inf).
    """
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    games = w + w.T
    total = w.sum(axis=1)
    lost = w.sum(axis=0)
    out = np.zeros(k)
    finite = (total > 0) & (lost > 0)
    out[(total > 0) & (lost == 0)] = math.inf
    out[total == 0] = -math.inf
    idx = np.flatnonzero(finite)
    if idx.size:
        g, t = games[np.ix_(idx, idx)], total[idx] - w[np.ix_(idx, ~finite)].sum(axis=1)
        p = np.ones(idx.size)
        for _ in range(iterations):
            denom = (g / (p[:, None] + p[None, :])).sum(axis=1)
            new = t / denom
            new /= np.exp(np.log(new).mean())
            if np.max(np.abs(new - p)) < tol:
                p = new
                break
            p = new
        r = 400 * np.log10(p)
        out[idx] = r - r.mean()
    return out
