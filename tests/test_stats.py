"""sim.stats against scipy/statsmodels and against the textbook formulas they implement."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from sim import stats
from sim.stats import estimators, ratings

Z95 = sps.norm.ppf(0.975)

counts = st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


def wilson_by_hand(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@settings(max_examples=60, deadline=None)
@given(counts)
def test_wilson_matches_formula_and_statsmodels(kn):
    k, n = kn
    r = stats.wilson(k, n)
    lo, hi = wilson_by_hand(k, n)
    assert r.value == k / n and r.successes == k and r.n == n
    assert r.low == pytest.approx(max(lo, 0.0), abs=1e-12)
    assert r.high == pytest.approx(min(hi, 1.0), abs=1e-12)
    assert r.low <= r.value <= r.high


@settings(max_examples=60, deadline=None)
@given(counts)
def test_clopper_pearson_is_the_beta_interval(kn):
    k, n = kn
    r = stats.clopper_pearson(k, n)
    lo = 0.0 if k == 0 else sps.beta.ppf(0.025, k, n - k + 1)
    hi = 1.0 if k == n else sps.beta.ppf(0.975, k + 1, n - k)
    assert r.low == pytest.approx(lo, abs=1e-9) and r.high == pytest.approx(hi, abs=1e-9)
    sm_lo, sm_hi = proportion_confint(k, n, method="beta")
    assert r.low == pytest.approx(sm_lo, abs=1e-9) and r.high == pytest.approx(sm_hi, abs=1e-9)
    assert r.low <= r.value <= r.high


@settings(max_examples=40, deadline=None)
@given(counts, st.sampled_from([0.5, 1 / 3, 0.25, 0.1]))
def test_binom_test_matches_pmf_sum(kn, p0):
    k, n = kn
    pmf = sps.binom.pmf(np.arange(n + 1), n, p0)
    by_hand = min(1.0, pmf[pmf <= pmf[k] * (1 + 1e-7)].sum())
    assert stats.binom_test(k, n, p0) == pytest.approx(by_hand, rel=1e-6, abs=1e-12)


def test_wilson_coverage_near_nominal():
    """Seeded synthetic binomial data: the 95% Wilson interval covers the true p ~95% of the time."""
    rng = np.random.default_rng(2024)
    for p, n in [(0.5, 200), (0.3, 500), (0.1, 300), (0.02, 1000)]:
        ks = rng.binomial(n, p, size=3000)
        cover = {k: (lambda r: r.low <= p <= r.high)(stats.wilson(k, n)) for k in np.unique(ks)}
        rate = np.mean([cover[k] for k in ks])
        assert 0.93 <= rate <= 0.97, (p, n, rate)


@settings(max_examples=60, deadline=None)
@given(counts, counts)
def test_newcombe_matches_hand_formula(a, b):
    (k1, n1), (k2, n2) = a, b
    r = stats.newcombe_diff(k1, n1, k2, n2)
    l1, u1 = stats.wilson(k1, n1).low, stats.wilson(k1, n1).high
    l2, u2 = stats.wilson(k2, n2).low, stats.wilson(k2, n2).high
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    assert r.value == pytest.approx(d)
    assert r.low == pytest.approx(lo, abs=1e-9) and r.high == pytest.approx(hi, abs=1e-9)
    assert 0.0 <= r.p_value <= 1.0


@settings(max_examples=60, deadline=None)
@given(counts, counts)
def test_two_proportion_test_is_uncorrected_chi_square(a, b):
    (k1, n1), (k2, n2) = a, b
    table = np.array([[k1, n1 - k1], [k2, n2 - k2]])
    p = stats.two_proportion_test(k1, n1, k2, n2)
    if (table.sum(axis=0) == 0).any():
        assert p == 1.0  # all successes or all failures in both: nothing to tell apart
    else:
        expected = sps.chi2_contingency(table, correction=False).pvalue
        assert p == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_empty_proportions_are_nan():
    assert math.isnan(stats.wilson(0, 0).value)
    assert math.isnan(stats.clopper_pearson(0, 0).low)
    assert math.isnan(stats.binom_test(0, 0, 0.5))
    assert math.isnan(stats.newcombe_diff(1, 0, 1, 2).value)


def test_mean_interval_is_student_t():
    x = np.random.default_rng(1).normal(3.0, 2.0, 57)
    r = stats.mean_interval(x)
    lo, hi = sps.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
    assert (r.low, r.high) == pytest.approx((lo, hi))
    c = stats.mean_interval(np.full(10, 7.0))
    assert c.value == c.low == c.high == 7.0


def test_quantiles_match_numpy():
    x = np.random.default_rng(2).integers(5, 90, 1001)
    q = stats.quantiles(x)
    assert q["median"] == np.median(x) and q["mean"] == pytest.approx(x.mean())
    assert q["p5"] == np.quantile(x, 0.05) and q["p95"] == np.quantile(x, 0.95)


@pytest.mark.parametrize("stat", ["mean", 0.5, 0.05, 0.9])
def test_count_compressed_bootstrap_equals_plain_resampling(stat):
    """The multinomial shortcut for few distinct values gives the same replicate distribution as
    resampling rows (different random streams: equal within Monte Carlo error)."""
    x = np.random.default_rng(3).poisson(20, 400).astype(float)
    fast = estimators._resample_stat(x, stat, 4000, np.random.default_rng(1), max_unique=5000)
    slow = estimators._resample_stat(x, stat, 4000, np.random.default_rng(2), max_unique=0)
    assert fast.mean() == pytest.approx(slow.mean(), abs=0.05 * slow.std() + 1e-9)
    assert fast.std() == pytest.approx(slow.std(), rel=0.08)
    if stat != "mean":  # quantiles of integer data take few values: compare their frequencies
        vals = np.union1d(fast, slow)
        f = np.array([(fast == v).mean() for v in vals])
        s = np.array([(slow == v).mean() for v in vals])
        assert np.abs(f - s).max() < 0.04
    # and every replicate of the shortcut is a statistic some resample of x really has
    assert fast.min() >= x.min() and fast.max() <= x.max()


def test_one_sample_bootstrap_interval_matches_scipy():
    x = np.random.default_rng(11).poisson(30, 800)
    for stat, fn in [("mean", np.mean), (0.5, np.median)]:
        est, lo, hi = stats.bootstrap_interval(x, stat, n_resamples=4000, seed=3)
        ref = sps.bootstrap((x,), fn, method="percentile", n_resamples=4000,
                            rng=np.random.default_rng(4)).confidence_interval
        assert est == fn(x)
        assert lo <= est <= hi
        assert abs(lo - ref.low) <= 0.15 * (ref.high - ref.low) + 0.5 * (stat != "mean")
        assert abs(hi - ref.high) <= 0.15 * (ref.high - ref.low) + 0.5 * (stat != "mean")


def test_bootstrap_diff_same_interval_either_path():
    rng = np.random.default_rng(3)
    x, y = rng.poisson(20, 400), rng.poisson(21, 300)
    fast = stats.bootstrap_diff(x, y, "mean", n_resamples=3000, seed=1)
    slow = stats.bootstrap_diff(x, y, "mean", n_resamples=3000, seed=1, max_unique=0)
    width = slow.high - slow.low
    assert fast.value == slow.value
    assert abs(fast.low - slow.low) <= 0.1 * width and abs(fast.high - slow.high) <= 0.1 * width


def test_bootstrap_matches_scipy_percentile_interval():
    rng = np.random.default_rng(4)
    x = rng.exponential(3.0, 250)
    y = rng.exponential(2.5, 200)
    ours = stats.bootstrap_diff(x, y, "mean", n_resamples=4000, seed=7)
    ref = sps.bootstrap((x, y), lambda a, b, axis: a.mean(axis) - b.mean(axis), method="percentile",
                        n_resamples=4000, vectorized=True, rng=np.random.default_rng(8)).confidence_interval
    width = ref.high - ref.low
    assert abs(ours.low - ref.low) < 0.1 * width and abs(ours.high - ref.high) < 0.1 * width
    assert ours.value == pytest.approx(x.mean() - y.mean())
    again = stats.bootstrap_diff(x, y, "mean", n_resamples=4000, seed=7)
    assert again == ours  # seeded: reproducible


def test_bootstrap_detects_a_shift_and_not_its_absence():
    rng = np.random.default_rng(5)
    x = rng.integers(10, 40, 2000)
    shifted = stats.bootstrap_diff(x + 3, x, 0.5, seed=1)
    assert shifted.value == 3 and shifted.low > 0 and shifted.p_value < 0.01
    same = stats.bootstrap_diff(x, rng.permutation(x), "mean", seed=1)
    assert same.value == 0 and same.low < 0 < same.high and same.p_value > 0.5


def test_rank_and_ks_tests_are_scipys():
    rng = np.random.default_rng(6)
    x, y = rng.normal(0, 1, 300), rng.normal(0.2, 1, 250)
    assert stats.mann_whitney(x, y).p_value == pytest.approx(
        sps.mannwhitneyu(x, y, alternative="two-sided").pvalue)
    assert stats.ks_test(x, y).p_value == pytest.approx(sps.ks_2samp(x, y).pvalue)
    assert stats.ks_test(x, y).statistic == pytest.approx(sps.ks_2samp(x, y).statistic)
    assert stats.mann_whitney(np.ones(5), np.ones(7)).p_value == 1.0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(1e-6, 1.0), min_size=1, max_size=30))
def test_holm_and_bh_match_hand_procedures(ps):
    p = np.array(ps)
    m = p.size
    order = np.argsort(p)
    holm = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        holm[i] = running
    bh = np.empty(m)
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, p[i] * m / (rank + 1))
        bh[i] = min(1.0, running)
    np.testing.assert_allclose(stats.adjust_pvalues(p, "holm"), holm, rtol=1e-12)
    np.testing.assert_allclose(stats.adjust_pvalues(p, "bh"), bh, rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 0.01, 0.05, 0.5, 1.0])), min_size=1, max_size=40))
def test_holm_is_statsmodels_holm(ps):
    """The written-out Holm (no garbage collection per call) is statsmodels', ties and zeros too."""
    p = np.array(ps)
    np.testing.assert_allclose(estimators.holm(p), statsmodels_holm(p)[1], rtol=1e-12, atol=0)


def statsmodels_holm(p, alpha=0.05):
    """statsmodels' multipletests "holm" (rejections, adjusted p-values) without the full garbage
    collection it runs on every call (half a second in a test worker's large heap)."""
    import gc
    from unittest import mock

    from statsmodels.stats.multitest import multipletests

    with mock.patch.object(gc, "collect", return_value=0):
        return multipletests(p, alpha=alpha, method="holm")[:2]


def test_adjust_keeps_nan_out_of_the_family():
    out = stats.adjust_pvalues([0.01, float("nan"), 0.04], "holm")
    assert math.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2]], [0.02, 0.04])


@pytest.mark.parametrize("n", [100, 1000, 20000, 1_000_000])
@pytest.mark.parametrize("p0", [0.5, 1 / 3, 0.25])
def test_mde_agrees_with_normal_approximation(n, p0):
    """Closed form: Cohen's h = (z_{1-a/2} + z_power) / sqrt(n), p1 = sin^2(asin sqrt p0 + h/2).
    The library also counts the far rejection tail, so it may be a hair smaller."""
    h = (Z95 + sps.norm.ppf(0.8)) / math.sqrt(n)
    p1 = math.sin(math.asin(math.sqrt(p0)) + h / 2) ** 2
    mde = stats.mde_proportion(n, p0)
    assert mde == pytest.approx(p1 - p0, rel=1e-3)
    # power of the one-sample z test (arcsine scale) at p0 + mde is the requested 80%
    h_at = 2 * math.asin(math.sqrt(p0 + mde)) - 2 * math.asin(math.sqrt(p0))
    power = sps.norm.sf(Z95 - h_at * math.sqrt(n)) + sps.norm.cdf(-Z95 - h_at * math.sqrt(n))
    assert power == pytest.approx(0.8, abs=1e-3)  # the library's root finder tolerance


def test_two_sample_mde_is_sqrt2_wider_for_equal_groups():
    one = stats.mde_proportion(5000, 0.5)
    two = stats.mde_difference(0.5, 5000, 0.5, 5000)
    assert two == pytest.approx((Z95 + sps.norm.ppf(0.8)) * math.sqrt(2 * 0.25 / 5000), rel=0.01)
    assert two / one == pytest.approx(math.sqrt(2), rel=0.01)
    assert stats.mde_proportion(4 * 5000) == pytest.approx(one / 2, rel=0.01)


def test_mde_is_empirically_detected():
    """Simulated: at p0 + MDE a two-sided binomial test at 5% rejects about 80% of the time."""
    n, p0 = 2000, 0.5
    p1 = p0 + stats.mde_proportion(n, p0)
    ks = np.random.default_rng(9).binomial(n, p1, 2000)
    pv = {k: stats.binom_test(k, n, p0) for k in np.unique(ks)}
    rejected = np.mean([pv[k] < 0.05 for k in ks])
    assert 0.76 <= rejected <= 0.84


def test_ludii_balance():
    assert stats.ludii_balance([0.5, 0.5]) == 1.0
    assert stats.ludii_balance([0.7, 0.3]) == pytest.approx(0.6)
    assert stats.ludii_balance([0.2, 0.5, 0.25]) == pytest.approx(0.7)
    assert stats.ludii_balance([1.0, 0.0]) == 0.0
    assert math.isnan(stats.ludii_balance([]))


# ---- Elo, GSPRT, Bradley-Terry --------------------------------------------------------------

def test_elo_score_curve():
    assert stats.elo_to_score(0) == 0.5
    assert stats.elo_to_score(400) == pytest.approx(10 / 11)
    for e in (-300.0, -12.5, 0.0, 7.0, 250.0):
        assert stats.score_to_elo(stats.elo_to_score(e)) == pytest.approx(e, abs=1e-9)
    assert stats.score_to_elo(1.0) == math.inf and stats.score_to_elo(0.0) == -math.inf


def test_elo_interval_is_the_mapped_score_interval():
    w, d, loss = 520, 130, 350
    n = w + d + loss
    s = (w + d / 2) / n
    sd = np.std(np.r_[np.ones(w), np.full(d, 0.5), np.zeros(loss)])
    elo, lo, hi = stats.elo_interval(w, d, loss)
    assert elo == pytest.approx(stats.score_to_elo(s))
    assert lo == pytest.approx(stats.score_to_elo(s - Z95 * sd / math.sqrt(n)))
    assert hi == pytest.approx(stats.score_to_elo(s + Z95 * sd / math.sqrt(n)))


def loglik_by_draw_rate(counts, score):
    """Reference: with the expected score fixed, the trinomial has one free parameter (the draw
    rate q: p_win = score - q/2, p_loss = 1 - score - q/2); maximise over it numerically."""
    from scipy.optimize import minimize_scalar

    w, d, loss = counts
    qmax = min(2 * score, 2 * (1 - score))

    def nll(q):
        p = np.array([score - q / 2, q, 1 - score - q / 2])
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(np.array(counts) > 0, np.array(counts) * np.log(p), 0.0)
        return -terms.sum()

    r = minimize_scalar(nll, bounds=(0, qmax), method="bounded", options={"xatol": 1e-12})
    return -min(r.fun, nll(0.0), nll(qmax))


@settings(max_examples=60, deadline=None)
@given(st.tuples(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300)).filter(lambda c: sum(c) > 0),
       st.floats(0.05, 0.95))
def test_constrained_trinomial_likelihood(counts, score):
    ours = ratings._constrained_loglik(np.array(counts, dtype=float), score)
    assert ours == pytest.approx(loglik_by_draw_rate(counts, score), rel=1e-6, abs=1e-6)


def test_gsprt_matches_normal_approximation_and_decides():
    w, d, loss = 31000, 40000, 29000
    n = w + d + loss
    s = (w + d / 2) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + loss * s ** 2) / n
    s0, s1 = stats.elo_to_score(0), stats.elo_to_score(5)
    approx = n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)  # fishtest's simplified LLR
    r = stats.gsprt(w, d, loss, 0, 5)
    assert r.llr == pytest.approx(approx, rel=0.02)
    assert (r.lower, r.upper) == (pytest.approx(math.log(0.05 / 0.95)), pytest.approx(math.log(0.95 / 0.05)))
    assert r.decision == "H1"
    assert stats.gsprt(29000, 40000, 31000, 0, 5).decision == "H0"
    assert stats.gsprt(12, 10, 9, 0, 5).decision == "continue"


def test_gsprt_error_rates_by_simulation():
    """Wald's bounds: testing elo0=0 vs elo1=40 on games from a 0-Elo bot accepts H1 rarely."""
    rng = np.random.default_rng(12)
    wrong = 0
    for _ in range(60):
        w = d = loss = 0
        for _ in range(20000):
            o = rng.choice(3, p=[0.35, 0.3, 0.35])
            w, d, loss = w + (o == 0), d + (o == 1), loss + (o == 2)
            if (w + d + loss) % 25 == 0:
                r = stats.gsprt(w, d, loss, 0, 40)
                if r.decision != "continue":
                    wrong += r.decision == "H1"
                    break
    assert wrong <= 8  # nominal 5% of 60 = 3


def test_bradley_terry_two_players_closed_form_and_mle():
    r = stats.bradley_terry(np.array([[0, 30], [10, 0]]))
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    rng = np.random.default_rng(13)
    w = rng.integers(1, 40, (4, 4)).astype(float)
    np.fill_diagonal(w, 0)
    ours = stats.bradley_terry(w)
    from scipy.optimize import minimize

    def nll(theta):
        t = np.r_[0.0, theta]
        diff = t[:, None] - t[None, :]
        return -(w * (diff - np.logaddexp(0, diff))).sum()

    ref = minimize(nll, np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
    ref = np.r_[0.0, ref] * 400 / math.log(10)
    np.testing.assert_allclose(ours, ref - ref.mean(), atol=1e-3)
    assert abs(ours.sum()) < 1e-9


def test_bradley_terry_unbeaten_and_winless():
    r = stats.bradley_terry(np.array([[0, 5, 5], [0, 0, 3], [0, 2, 0]]))
    assert r[0] == math.inf and np.isfinite(r[1:]).all()
    assert r[1] - r[2] == pytest.approx(400 * math.log10(1.5), abs=1e-6)


# ---- fairness by equivalence ------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(counts, st.sampled_from([(0.5, 0.02), (0.5, 0.05), (1 / 3, 0.02)]))
def test_fairness_matches_statsmodels_tost_scipy_binomtest_and_wilson(kn, pm):
    from statsmodels.stats.proportion import binom_tost

    k, n = kn
    p0, margin = pm
    f = stats.fairness(k, n, p0, margin)
    assert f.p_equivalence == pytest.approx(float(binom_tost(k, n, p0 - margin, p0 + margin)[0]),
                                            rel=1e-9, abs=1e-15)
    assert f.p_difference == pytest.approx(sps.binomtest(k, n, p0).pvalue, rel=1e-9, abs=1e-15)
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert (f.low, f.high) == pytest.approx((lo, hi), abs=1e-12)
    assert f.share == k / n
    cp = stats.clopper_pearson(k, n)
    assert f.p_beyond == pytest.approx(min(sps.binomtest(k, n, p0 + margin, "greater").pvalue,
                                           sps.binomtest(k, n, p0 - margin, "less").pvalue), rel=1e-9, abs=1e-15)
    # the documented rule: unfair only when both the exact and the shown interval lie beyond the margin
    outside = lambda lo, hi: lo > p0 + margin or hi < p0 - margin  # noqa: E731
    if f.p_equivalence < 0.05:
        assert f.verdict == "fair"
    elif outside(cp.low, cp.high) and outside(f.low, f.high):
        assert f.verdict == "unfair"
    else:
        assert f.verdict == "cannot tell"
    if f.games_needed is not None:
        assert f.verdict == "cannot tell" and f.games_needed > n


def test_fairness_sentences():
    s = stats.fairness(5680, 10000).sentence()
    assert s == ("The first player wins 56.8% of decisive games (55.8-57.8): unfair, by about 7 points "
                 "(beyond the +/-2-point margin).")
    assert stats.fairness(5030, 10000).sentence().endswith(": fair within +/-2 points.")
    big = stats.fairness(50800, 100000)  # detectably off, but inside the margin
    assert big.verdict == "fair" and big.p_difference < 0.05 and big.detectable
    assert "fair within +/-2 points (a detectable edge of 0.8 points, inside the margin)" in big.sentence()
    # 48.7% (47.8-49.6) of 12,000: an edge is seen, but not beyond the margin: not "unfair"
    edge = stats.fairness(5844, 12000)
    assert edge.verdict == "cannot tell" and edge.detectable
    assert ("cannot tell: a detectable edge of 1.3 points, not shown beyond the +/-2-point margin; "
            f"about {edge.games_needed:,} decisive games would decide.") in edge.sentence()
    small = stats.fairness(150, 300)
    assert small.verdict == "cannot tell" and not small.detectable
    assert small.sentence("Seat A", "games").endswith(
        f"cannot tell: neither shown within nor beyond +/-2 points; about {small.games_needed:,} games would decide.")
    at_edge = stats.fairness(5200, 10000)  # the estimate on the margin's edge: no n decides
    assert at_edge.verdict == "cannot tell" and at_edge.games_needed is None
    assert at_edge.sentence().endswith("the edge sits at the margin, so no affordable number of games decides.")
    none = stats.fairness(0, 0)
    assert none.verdict == "cannot tell"
    assert none.sentence() == "The first player: no decisive games: no claim possible."
    with pytest.raises(ValueError, match="margin"):
        stats.fairness(5, 10, margin=0.6)
    with pytest.raises(ValueError, match="successes"):
        stats.fairness(11, 10)


def _verdict_law(n: int, true: float, p0: float = 0.5, margin: float = 0.02) -> dict[str, float]:
    """P(each verdict) after n decisive games of true share `true`: exact, over every count."""
    ks = np.arange(n + 1)
    codes = stats.verdict_codes(ks, n, p0, margin)
    pmf = sps.binom.pmf(ks, n, true)
    return {w: float(pmf[codes == i].sum()) for i, w in enumerate(stats.VERDICTS)}


NS = [20, 100, 500, 2000, 12_000, 50_000, 120_000, 400_000]


@pytest.mark.parametrize("true, p0", [(0.5, 0.5), (0.513, 0.5), (0.5199, 0.5), (0.48, 0.5),
                                      (1 / 3 + 0.0199, 1 / 3)])
def test_unfair_is_said_of_an_edge_inside_the_margin_at_most_2_5_percent_of_the_time(true, p0):
    """Exact: a true share within the margin is called "unfair" with probability <= 0.025 at
    every n (the old rule, "the interval excludes p0", called 51.3% unfair with probability 0.55
    at 12,000 decisive games and 0.9999 at 120,000)."""
    for n in NS:
        assert _verdict_law(n, true, p0)["unfair"] <= 0.025, n


def test_the_old_rule_fails_the_same_check():
    """The same exact computation for the rule before: interval excludes p0 -> "unfair"."""
    n, true = 12_000, 0.513
    ks = np.arange(n + 1)
    lo, hi = proportion_confint(ks, n, alpha=0.05, method="wilson")
    old_unfair = ((lo > 0.5) | (hi < 0.5)) & (stats.tost_binomial(ks, n, 0.48, 0.52) >= 0.05)
    assert sps.binom.pmf(ks, n, true)[old_unfair].sum() > 0.5


@pytest.mark.parametrize("true, right", [(0.5, "fair"), (0.513, "fair"), (0.485, "fair"),
                                         (0.53, "unfair"), (0.56, "unfair"), (0.46, "unfair")])
def test_verdicts_only_move_towards_the_truth_as_n_grows(true, right):
    """Exact: the wrong decided verdict stays rare at every n (unfair <= 2.5% inside the margin,
    fair <= 5% outside it), the right one grows with n (up to the binomial law's discreteness,
    0.02), and at 400,000 decisive games it is reached almost surely."""
    wrong = "unfair" if right == "fair" else "fair"
    law = [_verdict_law(n, true) for n in NS]
    assert all(x[wrong] <= (0.025 if wrong == "unfair" else 0.05) for x in law)
    assert all(b[right] >= a[right] - 0.02 for a, b in zip(law, law[1:], strict=False))
    assert law[-1][right] > 0.99


@pytest.mark.slow
@pytest.mark.parametrize("n", [300, 2000, 10000])
def test_fairness_error_rates_exactly_and_by_simulation(n):
    """P("fair") when the true share sits on the margin, and P("unfair") when it is p0: both at
    most 5%. Exact (summing the binomial law over every possible count) and by simulation."""
    p0, margin = 0.5, 0.02
    # the verdict of every count within 9 standard deviations of the three true shares; the
    # binomial mass beyond them is below 1e-15, so the sums below cannot miss a verdict
    sd = math.sqrt(n / 4)
    lo, hi = max(0, int(n * (p0 - margin) - 9 * sd)), min(n, int(n * (p0 + margin) + 9 * sd) + 1)
    verdicts = np.full(n + 1, "beyond", dtype=object)
    verdicts[lo:hi + 1] = [stats.fairness(k, n, p0, margin).verdict for k in range(lo, hi + 1)]
    ks = np.arange(n + 1)
    for true in (p0 - margin, p0, p0 + margin):
        assert sps.binom.cdf(lo - 1, n, true) + sps.binom.sf(hi, n, true) < 1e-15
    rng = np.random.default_rng(n)
    for true, bad, limit in ((p0 - margin, "fair", 0.05), (p0 + margin, "fair", 0.05),
                             (p0, "unfair", 0.05)):
        exact = sps.binom.pmf(ks, n, true)[verdicts == bad].sum()
        assert exact <= limit
        sim = (verdicts[rng.binomial(n, true, 20_000)] == bad).mean()
        assert sim <= limit + 3 * math.sqrt(limit * (1 - limit) / 20_000)
    # and the test has power where it should: a fair game at 10,000 games is called fair
    if n == 10000:
        assert sps.binom.pmf(ks, n, p0)[verdicts == "fair"].sum() > 0.95


@pytest.mark.parametrize("share, p0", [(0.5, 0.5), (0.51, 0.5), (0.53, 0.5), (0.45, 0.5),
                                       (0.34, 1 / 3)])
def test_games_needed_gives_a_verdict_80_percent_of_the_time(share, p0):
    """'would need about N games': with N games of that true share, fairness() reaches "fair"
    or "unfair" with probability 80% (+/- 3 points plus Monte Carlo noise)."""
    n = stats.games_to_decide(share, p0, 0.02, 0.05)
    ks, counts = np.unique(np.random.default_rng(1).binomial(n, share, 4000), return_counts=True)
    decided = sum(c for k, c in zip(ks, counts, strict=True)
                  if stats.fairness(int(k), n, p0).verdict != "cannot tell") / 4000
    assert abs(decided - 0.8) <= 0.03 + 2 * math.sqrt(0.16 / 4000)


# ---- does the verdict hold with stronger play? -------------------------------------------------

def test_skill_answer_words():
    greedy = stats.fairness(6888, 12000)  # 57.4%: unfair
    holds = stats.skill_answer(greedy, stats.fairness(600, 1100))  # 54.5% (51.6-57.5): edge persists
    assert holds.answer == "holds with stronger play" and holds.strong.verdict == "cannot tell"
    assert holds.sentence("greedy", "mcts").startswith("With mcts on every seat the first mover wins 54.5%")
    assert "the verdict holds with stronger play." in holds.sentence("greedy", "mcts")
    gone = stats.skill_answer(greedy, stats.fairness(550, 1100))  # 50.0% (47.0-53.0): fair-ish
    assert gone.answer == "cannot tell yet"  # the interval still reaches past 52%
    gone = stats.skill_answer(greedy, stats.fairness(1100, 2200))  # 50.0%: shown fair
    assert gone.strong.verdict == "fair" and gone.answer == "changes with stronger play"
    assert stats.skill_answer(greedy, stats.fairness(5000, 10000)).answer == "changes with stronger play"
    assert stats.skill_answer(greedy, stats.fairness(400, 1100)).answer == "changes with stronger play"
    fair = stats.fairness(6000, 12000)
    assert stats.skill_answer(fair, stats.fairness(560, 1100)).answer == "holds with stronger play"
    assert stats.skill_answer(fair, stats.fairness(660, 1100)).answer == "changes with stronger play"
    assert stats.skill_answer(stats.fairness(60, 120), stats.fairness(560, 1100)).answer == "cannot tell yet"


@pytest.mark.slow
@pytest.mark.parametrize("base, strong, bad, limit", [
    (0.57, 0.57, "changes with stronger play", 0.025),  # nothing changes: never say it does
    (0.50, 0.50, "changes with stronger play", 0.025),
    (0.528, 0.528, "changes with stronger play", 0.025),  # greedy undecided, nothing moves
    (0.52, 0.52, "changes with stronger play", 0.025),  # on the margin's edge
    (0.57, 0.505, "holds with stronger play", 0.05),  # the edge is gone: rarely say it holds
    (0.50, 0.56, "holds with stronger play", 0.05),
])
def test_skill_answer_errors_by_simulation(base, strong, bad, limit):
    """make run's sizes (12,000 games with greedy, 1,100 at the strong rung): the wrong answer
    is rare. Simulated over 3,000 pairs of runs."""
    rng = np.random.default_rng(7)
    kb, ks = rng.binomial(12_000, base, 3000), rng.binomial(1_100, strong, 3000)
    fb = {int(k): stats.fairness(int(k), 12_000) for k in np.unique(kb)}  # each count's verdict once
    fs = {int(k): stats.fairness(int(k), 1_100) for k in np.unique(ks)}
    words = [stats.skill_answer(fb[int(b)], fs[int(s)]).answer for b, s in zip(kb, ks, strict=True)]
    assert np.mean([w == bad for w in words]) <= limit


def test_skill_answer_sees_a_change_from_an_undecided_base():
    """Greedy 52.8% (51.9-53.7) of 12,000 decides nothing, but the strong rung's 42.4% of 1,175
    is unfair to the first player, a region greedy's interval lies wholly outside: changes
    (make run's HEXFLOW Battle)."""
    ans = stats.skill_answer(stats.fairness(6336, 12000), stats.fairness(498, 1175))
    assert ans.base.verdict == "cannot tell" and ans.strong.verdict == "unfair"
    assert ans.answer == "changes with stronger play"
