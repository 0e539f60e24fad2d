"""What the report's sentences claim, checked: the minimum detectable effect has the power it
states for the test it names (synthetic outcomes, exact test), there is no MDE claim without
decisive games, and Ludii's balance comes with an interval, a fair-game reference and the first
mover's share, never bare."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy import stats as sps

from sim import stats
from sim.reports import balance as report
from tests.test_report import make_run, toy_lookup


@pytest.mark.parametrize("n, p0, k", [(300, 0.5, 2), (2500, 0.5, 2), (1200, 1 / 3, 3),
                                      (5000, 0.25, 4)])
def test_mde_share_has_80_percent_power(n, p0, k):
    """A seat whose true share of n decisive games is p0 + MDE is found by scipy's two-sided
    exact binomial test at the Holm step 0.05 / k with 80% +/- 3 points (exact over all counts,
    and by simulation)."""
    level = 0.05 / k
    mde = stats.mde_share(n, p0, level)
    assert 0 < mde < 1 - p0
    ks = np.arange(n + 1)
    reject = np.array([sps.binomtest(int(x), n, p0).pvalue < level for x in ks])
    exact = sps.binom.pmf(ks, n, p0 + mde)[reject].sum()
    assert abs(exact - 0.8) <= 0.03
    sim = reject[np.random.default_rng(n).binomial(n, p0 + mde, 20_000)].mean()
    assert abs(sim - 0.8) <= 0.03
    # the old sentence's MDE (all games with 50% draws, unadjusted 5%) is well short of 80%
    old = stats.mde_proportion(2 * n, p0, 0.05)
    assert sps.binom.pmf(ks, n, p0 + old)[reject].sum() < 0.7


def test_mde_share_without_enough_games():
    assert math.isnan(stats.mde_share(0, 0.5))
    assert math.isnan(stats.mde_share(5, 0.5, 0.025))  # 5 of 5 is p = 0.0625: never rejects


def test_balance_interval_and_fair_reference():
    b = stats.ludii_balance_interval([0, 5690, 4310], n_resamples=4000)
    assert b.value == pytest.approx(1 - (0.569 - 0.431))
    assert b.low < b.value < b.high and b.high < b.fair_mean
    # a fair game's average balance sits below 1, as the statistic is biased: check by simulation
    rng = np.random.default_rng(0)
    w = rng.multinomial(10_000, [0.5, 0.25, 0.25], size=4000)[:, 1:] / 10_000
    fair = stats.ludii_balance_interval([5000, 2500, 2500], n_resamples=4000)
    assert fair.fair_mean == pytest.approx((1 - np.abs(w[:, 0] - w[:, 1])).mean(), abs=0.002)
    assert fair.fair_mean < 0.995
    none = stats.ludii_balance_interval([100, 0, 0])
    assert none.value == 1.0 and none.fair_mean == 1.0


def test_report_sentences(tmp_path):
    make_run(tmp_path / "run", 2000)
    make_run(tmp_path / "draws", 500, p_win=(0.0, 0.0), name="draws", seed=1)
    res = report.build_report([tmp_path / "run", tmp_path / "draws"], tmp_path / "out",
                              game_lookup=toy_lookup)
    md = res.markdown.read_text()
    assert "No decisive games: no claim about a seat's edge is possible." in md
    assert "would be found with 80% power by the exact binomial test at level 0.05/2" in md
    assert "at the 5% level" not in md
    assert "(no decisive games: says nothing)" in md
    # Balance sits in the Ludii outcome table, beside the verdict's first-mover share above it
    assert re.search(r"\| Balance \|", md) and "so the verdict above uses the first mover's share" in md
    assert re.search(r"\| 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \(a fair game: 0\.\d{3}\) \|", md), md


def test_comparison_section_mde_has_its_claimed_power_at_the_tables_holm_level():
    """The report's comparison table claims: a seat win-rate change of `mde` is found with 80%
    power at 5% / rows (Holm's strictest step). Simulated with the table's own test (pooled
    two-proportion z-test, as stats.two_proportion_test), vectorised."""
    from scipy.stats import norm

    from sim import stats

    rng = np.random.default_rng(11)
    for n_a, n_b, p0, rows in ((12_000, 12_000, 0.5, 20), (3_000, 5_000, 1 / 3, 35)):
        level = 0.05 / rows
        d = stats.mde_difference(p0, n_a, p0, n_b, level, 0.8)
        reps = 40_000
        ka = rng.binomial(n_a, p0 + d, reps)
        kb = rng.binomial(n_b, p0, reps)
        pool = (ka + kb) / (n_a + n_b)
        z = (ka / n_a - kb / n_b) / np.sqrt(pool * (1 - pool) * (1 / n_a + 1 / n_b))
        power = (2 * norm.sf(np.abs(z)) < level).mean()
        assert abs(power - 0.8) < 0.03, (n_a, n_b, p0, rows, power)
