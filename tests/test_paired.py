"""The paired comparison checked on synthetic outcomes (no games): Newcombe's paired interval
against the textbook formula and a paired bootstrap; coverage and type I error of the paired
methods under positive, zero and negative pairing; the paired MDEs have the power they claim."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from sim import stats
from sim.stats import metrics

REPS = 20_000  # coverage SE 0.0015: a band of +/-0.01 is a real check


def cells(pa: float, pb: float, rho: float) -> np.ndarray:
    """Cell probabilities (both, B only, A only, neither) of two Bernoullis correlated rho."""
    cov = rho * math.sqrt(pa * (1 - pa) * pb * (1 - pb))
    both = pa * pb + cov
    return np.array([both, pb - both, pa - both, 1 - pa - pb + both])


def test_newcombe_paired_is_method_10_by_hand():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(5, 3000))
        a, b, c, d = rng.multinomial(n, rng.dirichlet([1, 1, 1, 1]))
        pb, pa = (a + b) / n, (a + c) / n
        lb, ub = proportion_confint(a + b, n, method="wilson")
        la, ua = proportion_confint(a + c, n, method="wilson")
        den = math.sqrt((a + b) * (c + d) * (a + c) * (b + d))
        phi = (a * d - b * c) / den if den else 0.0
        lo = pb - pa - math.sqrt(max((pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2, 0))
        hi = pb - pa + math.sqrt(max((ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2, 0))
        got = stats.newcombe_paired(a, b, c, d)
        assert got == pytest.approx((pb - pa, max(lo, -1), min(hi, 1)), abs=1e-9)
        assert stats.mcnemar_exact(b, c) == pytest.approx(
            mcnemar([[a, c], [b, d]], exact=True).pvalue if b + c else 1.0, rel=1e-9)


@pytest.mark.parametrize("rho", [0.8, 0.0, -0.09])
def test_newcombe_paired_agrees_with_a_paired_bootstrap(rho):
    """On one large synthetic table, the score interval and the paired percentile bootstrap
    (pairs resampled together) agree to a tenth of the interval's width."""
    rng = np.random.default_rng(1)
    n = 4000
    t = rng.multinomial(n, cells(0.45, 0.48, rho))
    ha = np.repeat([True, False, True, False], t)
    hb = np.repeat([True, True, False, False], t)
    a = metrics.Metric("r", "proportion", ha.mean(), n, successes=int(ha.sum()), hits=ha)
    b = metrics.Metric("r", "proportion", hb.mean(), n, successes=int(hb.sum()), hits=hb)
    row = metrics.compare_metric(a, b, None, None, None, None, rng, paired=True)
    # the same shares as a paired bootstrap (a share over all games is a share with full scope)
    reps = metrics._paired_share_reps(*metrics._paired_share_cells(a, b), 20_000,
                                      np.random.default_rng(2))
    lo, hi = np.quantile(reps, [0.025, 0.975])
    width = row["ci_high"] - row["ci_low"]
    assert abs(row["ci_low"] - lo) < 0.1 * width and abs(row["ci_high"] - hi) < 0.1 * width
    assert row["method"].startswith("paired")
    # the independent interval is too wide under positive pairing, too narrow under negative
    d = stats.newcombe_diff(int(hb.sum()), n, int(ha.sum()), n)
    ind = (d.low, d.high)
    if rho > 0.5:
        assert ind[1] - ind[0] > 1.5 * width
    if rho < 0:
        assert ind[1] - ind[0] < width


@pytest.mark.parametrize("n", [300, 2000])
@pytest.mark.parametrize("rho", [0.8, 0.0, -0.09])
@pytest.mark.parametrize("pa, pb", [(0.45, 0.45), (0.45, 0.48), (0.3, 0.3)])
def test_paired_rate_coverage_and_type_one_error(n, rho, pa, pb):
    """Coverage of Newcombe's paired interval within 0.95 +/- 0.01; the exact McNemar test
    rejects a true "no change" at most 5% (+ noise; it is exact, so conservative: 3-5%)."""
    rng = np.random.default_rng([n, int(100 * rho) + 50, int(100 * pa), int(100 * pb)])
    t = rng.multinomial(n, cells(pa, pb, rho), size=REPS)
    _, lo, hi = stats.newcombe_paired(*t.T)
    cover = np.mean((lo <= pb - pa) & (pb - pa <= hi))
    assert 0.94 <= cover <= 0.96, cover
    if pa == pb:
        disc = t[:, 1] + t[:, 2]
        p = np.where(disc > 0, np.minimum(1, 2 * sps.binom.cdf(np.minimum(t[:, 1], t[:, 2]),
                                                               disc, 0.5)), 1.0)
        assert np.mean(p < 0.05) <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / REPS)


@pytest.mark.parametrize("rho", [0.8, 0.0, -0.3])
def test_paired_mean_coverage_and_type_one_error(rho):
    """Paired t over game-by-game differences of correlated, discrete (whole-turn) outcomes."""
    rng = np.random.default_rng(int(10 * rho) + 7)
    n = 200
    z = rng.standard_normal((2, REPS // 2, n))
    xa = np.round(20 + 4 * z[0])
    xb = np.round(20 + 4 * (rho * z[0] + math.sqrt(1 - rho ** 2) * z[1]))
    m, lo, hi, p = stats.paired_mean_diff(xb - xa)
    assert 0.94 <= np.mean((lo <= 0) & (0 <= hi)) <= 0.96
    assert 0.04 <= np.mean(p < 0.05) <= 0.06
    # the same numbers as scipy for one row
    r = sps.ttest_rel(xb[0], xa[0])
    ci = r.confidence_interval()
    assert (m[0], lo[0], hi[0], p[0]) == pytest.approx((xb[0].mean() - xa[0].mean(), ci.low,
                                                        ci.high, r.pvalue))


@pytest.mark.parametrize("n, r", [(2000, 0.1), (10_000, 0.02), (3000, 0.3)])
@pytest.mark.parametrize("level", [0.05, 0.05 / 20])
def test_mde_paired_has_80_percent_power(n, r, level):
    """A change of the paired MDE (discordance held at r) is found by the exact McNemar test
    with 80% +/- 3 points power, the number of discordant pairs varying from run to run."""
    delta = stats.mde_paired(int(n * r), n, level)
    assert 0 < delta <= r
    rng = np.random.default_rng(3)
    t = rng.multinomial(n, [(r + delta) / 2, (r - delta) / 2, 1 - r], size=REPS)
    disc = t[:, 0] + t[:, 1]
    p = np.minimum(1, 2 * sps.binom.cdf(np.minimum(t[:, 0], t[:, 1]), disc, 0.5))
    assert abs(np.mean(p < level) - 0.8) <= 0.03


@pytest.mark.parametrize("n", [300, 5000])
def test_mde_paired_with_no_discordant_pair(n):
    """No game differed: the MDE is the smallest change any discordance allows (all changed
    games one way), found with 80% power; never above 1, NaN when no change could be found."""
    level = 0.05 / 30
    delta = stats.mde_paired(0, n, level)
    rng = np.random.default_rng(4)
    up = rng.binomial(n, delta, REPS)  # every discordant pair goes B's way
    p = np.minimum(1, 2 * sps.binom.cdf(0, up, 0.5))
    assert abs(np.mean(p < level) - 0.8) <= 0.03
    assert math.isnan(stats.mde_paired(0, 5, level)) and math.isnan(stats.mde_paired(3, 5, level))


@pytest.mark.parametrize("n, sd", [(50, 3.0), (2000, 10.0)])
def test_paired_mean_mde_has_80_percent_power(n, sd):
    rng = np.random.default_rng(5)
    level = 0.05 / 25
    d0 = rng.normal(0, sd, n)
    a = metrics.Metric("x", "mean", 0.0, n, data=np.zeros(n))
    b = metrics.Metric("x", "mean", d0.mean(), n, data=d0)
    mde = metrics.compare_metric(a, b, None, None, None, None, rng, mde_alpha=level,
                                 paired=True)["mde"]
    d = rng.normal(mde, np.std(d0, ddof=1), (REPS // 4, n))
    p = stats.paired_mean_diff(d)[3]
    assert abs(np.mean(p < level) - 0.8) <= 0.03


@pytest.mark.parametrize("p, n", [(0.5, 2000), (0.2, 10_000), (0.05, 3000)])
def test_independent_mde_has_80_percent_power(p, n):
    """The two-sample MDE: the pooled score test finds a change of it (towards 1/2, the harder
    side) with 80% +/- 3 points power; far too few games give NaN, never a value above 1."""
    level = 0.05 / 20
    mde = stats.mde_difference(p, n, p, n, level)
    rng = np.random.default_rng(6)
    q = p + mde if p < 0.5 else p - mde
    ka, kb = rng.binomial(n, p, REPS), rng.binomial(n, q, REPS)
    pbar = (ka + kb) / (2 * n)
    z = (kb - ka) / n / np.sqrt(pbar * (1 - pbar) * 2 / n)
    assert abs(np.mean(2 * sps.norm.sf(np.abs(z)) < level) - 0.8) <= 0.03
    assert math.isnan(stats.mde_difference(0.5, 3, 0.5, 3, level))


@pytest.mark.parametrize("differ", [0.02, 0.05])
def test_paired_share_of_decisive_games_holds_its_level(differ):
    """The first mover's share of decisive games, paired: pairs whose outcomes are exchangeable
    between A and B (no change), a share `differ` of them redrawn in B (about 7 and 17 of 500
    pairs then differ). The paired share test rejects at most 5% + noise, and the paired
    bootstrap interval covers 0 at least 94% of the time (up to noise)."""
    rng = np.random.default_rng(int(differ * 1000))
    n, reps = 500, 500
    rejected = covered = 0
    for _ in range(reps):
        # per game: 0 draw, 1 first mover wins, 2 first mover loses; B differs from A sometimes
        a = rng.choice(3, n, p=[0.2, 0.45, 0.35])
        b = np.where(rng.random(n) < differ, rng.choice(3, n, p=[0.2, 0.45, 0.35]), a)
        swap = rng.random(n) < 0.5  # exchangeable: who is "A" is a coin flip per pair
        a, b = np.where(swap, b, a), np.where(swap, a, b)
        ma = metrics.Metric("s", "proportion", 0, int((a > 0).sum()), hits=a == 1, scope=a > 0,
                            successes=int((a == 1).sum()), fair=0.5)
        mb = metrics.Metric("s", "proportion", 0, int((b > 0).sum()), hits=b == 1, scope=b > 0,
                            successes=int((b == 1).sum()), fair=0.5)
        ma.value, mb.value = ma.successes / ma.n, mb.successes / mb.n
        row = metrics.compare_metric(ma, mb, None, None, None, None, rng, paired=True)
        rejected += row["p_value"] < 0.05
        covered += row["ci_low"] <= 0 <= row["ci_high"]
    assert rejected / reps <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / reps)
    assert covered / reps >= 0.94 - 2 * math.sqrt(0.05 * 0.95 / reps)


# ---- a share over a subset of games (the first mover's share of decisive games), paired --------
OUTCOME = np.array([0.2, 0.45, 0.35])  # per game: draw, first mover wins, first mover loses
KINDS = np.array([[a > 0, a == 1, b > 0, b == 1] for a in range(3) for b in range(3)], float)
TOWARDS_B = [(1, 0), (1, 2), (0, 2)]  # (A's outcome, B's): (win, draw), (win, loss), (draw, loss)


def pair_cells(differ: float, moved: float = 0.0) -> np.ndarray:
    """Cell probabilities of the 3 x 3 (A, B) outcomes of a pair: B redraws a share `differ` of
    the games (exchangeable: no change); `moved` of each kind that favours A turns to its mirror
    image (a change towards B that keeps the discordance, as the MDE's model does)."""
    p = (differ * np.outer(OUTCOME, OUTCOME) + (1 - differ) * np.diag(OUTCOME)).ravel()
    for a, b in TOWARDS_B:
        m = moved * p[3 * a + b]
        p[3 * a + b] -= m
        p[3 * b + a] += m
    return p


def share_diff(p: np.ndarray) -> float:
    """B's share minus A's of pair cell probabilities (the change `pair_cells` makes)."""
    u, x, v, y = p @ KINDS
    return y / v - x / u


def share_metrics(counts) -> tuple[metrics.Metric, metrics.Metric]:
    """A's and B's first-mover share Metrics of pairs counted by (A, B) outcome cell."""
    a = np.repeat(np.repeat(np.arange(3), 3), counts)
    b = np.repeat(np.tile(np.arange(3), 3), counts)
    return tuple(metrics.Metric("s", "proportion", float((x == 1).sum() / (x > 0).sum()),
                                int((x > 0).sum()), successes=int((x == 1).sum()), hits=x == 1,
                                scope=x > 0, fair=0.5) for x in (a, b))


def reported_mde(n: int, differ: float, level: float) -> float:
    """The MDE `compare_metric` reports for n pairs with the expected cell counts."""
    counts = np.round(n * pair_cells(differ)).astype(int)
    ma, mb = share_metrics(counts)
    return metrics.compare_metric(ma, mb, None, None, None, None, np.random.default_rng(0),
                                  mde_alpha=level, paired=True)["mde"]


def change_of(differ: float, delta: float) -> np.ndarray:
    """The cells of a change of B's share by delta (discordance held)."""
    from scipy.optimize import brentq

    return pair_cells(differ, brentq(lambda m: share_diff(pair_cells(differ, m)) - delta, 0, 1))


@pytest.mark.parametrize("n", [300, 2000])
@pytest.mark.parametrize("differ", [0.02, 0.1, 0.3])
def test_paired_share_test_holds_its_level(n, differ):
    """No change (pairs exchangeable): the paired share test rejects at most its level + 3 SE of
    the simulation at 0.05 and at a Bonferroni level 0.05 / 20; with 50 or more differing pairs
    expected it is not conservative either (at least 0.04 at 0.05)."""
    rng = np.random.default_rng([n, int(1000 * differ)])
    t = rng.multinomial(n, pair_cells(differ), size=REPS)
    p = stats.paired_share_test(KINDS, t)[2]
    for level in (0.05, 0.05 / 20):
        assert np.mean(p < level) <= level + 3 * math.sqrt(level * (1 - level) / REPS)
    if n * differ * (1 - OUTCOME @ OUTCOME) >= 50:
        assert np.mean(p < 0.05) >= 0.04


@pytest.mark.parametrize("n, differ, level", [(2000, 0.1, 0.05 / 20), (500, 0.1, 0.05 / 20),
                                              (2000, 0.3, 0.05), (300, 0.3, 0.05 / 25)])
def test_paired_share_mde_has_80_percent_power(n, differ, level):
    """A change of the MDE `compare_metric` reports ("could have seen a change of X") is found
    by its test at that level with 80% +/- 3 points power (20,000 runs: SE 0.3 points, the rest
    is the normal approximation). The old pair (a 2,000-resample swap test, MDE from the
    bootstrap SE): see the test below."""
    mde = reported_mde(n, differ, level)
    t = np.random.default_rng(9).multinomial(n, change_of(differ, mde), size=REPS)
    found = np.mean(stats.paired_share_test(KINDS, t)[2] < level)
    print(f"n {n}, differ {differ}, level {level:.4g}: MDE {mde:.4f}, power {found:.4f}")
    assert abs(found - 0.8) <= 0.03


@pytest.mark.parametrize("n, differ, level", [(500, 0.1, 0.05 / 20), (2000, 0.3, 0.05 / 40)])
def test_paired_share_power_through_compare(n, differ, level):
    """The same claim end to end, each run through `compare_metric` (500 runs: SE 1.8 points,
    band 3 SE). The old pair (swap test with 2,000 resamples, MDE from the bootstrap SE) missed
    it: 0.870 and 0.736 on these runs."""
    mde = reported_mde(n, differ, level)
    rng = np.random.default_rng(10)
    cells_ = change_of(differ, mde)
    found = [metrics.compare_metric(*share_metrics(rng.multinomial(n, cells_)), None, None, None,
                                    None, rng, mde_alpha=level, paired=True)["p_value"] < level
             for _ in range(500)]
    print(f"n {n}, differ {differ}: MDE {mde:.4f}, power through compare_metric {np.mean(found):.4f}")
    assert abs(np.mean(found) - 0.8) <= 3 * math.sqrt(0.16 / 500)


def test_paired_share_p_value_has_no_floor():
    """A large change gets a p-value far below 1 / 2001 (the old swap test's floor with 2,000
    resamples, which Holm over 20 metrics or 43 alternatives could never pass); over all games
    the test is McNemar's z (statsmodels, no continuity correction); no differing pair: p = 1."""
    from statsmodels.stats.contingency_tables import mcnemar

    counts = np.round(2000 * change_of(0.2, 0.06)).astype(int)
    row = metrics.compare_metric(*share_metrics(counts), None, None, None, None,
                                 np.random.default_rng(0), paired=True)
    assert row["p_value"] < 1e-6 and row["p_value"] * 43 < 0.05 / 1000
    full = np.array([[1, 1, 1, 1], [1, 1, 1, 0], [1, 0, 1, 1], [1, 0, 1, 0]], float)
    both, down, up, neither = 40, 31, 12, 17
    d, _, p = stats.paired_share_test(full, [both, down, up, neither])
    ref = mcnemar([[both, down], [up, neither]], exact=False, correction=False).pvalue
    assert d == pytest.approx((up - down) / 100) and p == pytest.approx(ref, rel=1e-12)
    assert stats.paired_share_test(KINDS, np.diag([3, 5, 7]).ravel())[2] == 1.0
