"""The sequential test: LLR against a reference computation, Wald's bounds, error rates and
average sample size on synthetic paired outcomes, and the live comparison on fixture variants."""

import math

import numpy as np
import pandas as pd
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from typer.testing import CliRunner

from sim.cli.workflows import register
from sim.errors import UserError
from sim.workflows.sequential import (
    SequentialTest,
    gsprt_llr,
    operating_characteristics,
    sequential_compare,
    simulate_paired,
    wald_bounds,
)

TEXT = ('game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
        '[seats]\nA = "random"\nB = "greedy"\n')


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=5, max_size=300),
       st.floats(0.005, 0.3))
def test_llr_is_the_normal_likelihood_ratio(d, margin):
    """Reference: the log ratio of normal likelihoods (mean margin vs 0, the ML variance)."""
    d = np.array(d)
    n = len(d)
    var = max(d.var(), 1.0 / n)  # the documented floor
    ref = (sps.norm.logpdf(d, margin, math.sqrt(var)) - sps.norm.logpdf(d, 0.0, math.sqrt(var))).sum()
    assert gsprt_llr(n, d.sum(), (d * d).sum(), 0.0, margin) == pytest.approx(ref, rel=1e-9, abs=1e-9)


def test_wald_bounds_and_updates():
    lo, hi = wald_bounds(0.05, 0.1)
    assert lo == pytest.approx(math.log(0.1 / 0.975)) and hi == pytest.approx(math.log(0.9 / 0.025))
    t = SequentialTest(0.1, 0.05, 0.1)
    assert t.update(np.zeros(10)) is None or t.n == 10
    t2 = SequentialTest(0.1)
    for _ in range(50):  # B wins every pair: "up" must be decided
        if t2.update(np.ones(20)) is not None:
            break
    assert t2.decision() == "changed: win rate went up" and t2.trace[-1][1] >= t2.upper
    t3 = SequentialTest(0.1)
    while t3.update(-np.ones(20)) is None:
        pass
    assert t3.decision() == "changed: win rate went down"


def test_synthetic_outcomes_are_simulated_as_specified():
    rng = np.random.default_rng(0)
    d = simulate_paired(0.1, 0.3, 200_000, rng)
    assert set(np.unique(d)) <= {-1.0, 0.0, 1.0}
    assert d.mean() == pytest.approx(0.1, abs=0.005)
    assert (d != 0).mean() == pytest.approx(0.3, abs=0.005)


@pytest.mark.parametrize("margin, discordance, alpha, beta", [(0.05, 0.3, 0.05, 0.05),
                                                              (0.03, 0.1, 0.05, 0.1)])
def test_error_rates_within_nominal_and_fewer_games_than_fixed(margin, discordance, alpha, beta):
    """Measured on synthetic paired outcomes: false "changed" under delta = 0 at most alpha,
    missed changes at delta = margin at most beta (up to Monte Carlo error), and the average
    number of games is below what a fixed-size test with the same alpha and power needs."""
    reps = 600
    oc = operating_characteristics(margin, alpha, beta, discordance, reps=reps, batch=50, seed=7)
    slack = 2 * math.sqrt(alpha * (1 - alpha) / reps)
    assert oc.type1 <= alpha + slack, oc.summary()
    assert oc.type2 <= beta + 2 * math.sqrt(beta * (1 - beta) / reps), oc.summary()
    assert oc.undecided == 0
    assert oc.asn_h0 < oc.fixed_n and oc.asn_h1 < oc.fixed_n, oc.summary()
    # the fixed-size reference: ((z_{1-a/2} + z_{1-b}) sigma / D)^2 with sigma^2 = discordance
    z = sps.norm.ppf(1 - alpha / 2) + sps.norm.ppf(1 - beta)
    assert oc.fixed_n == pytest.approx((z / margin) ** 2 * discordance, rel=0.01)
    print(oc.summary())


def test_bad_parameters():
    with pytest.raises(UserError, match="--margin"):
        SequentialTest(0.0)
    with pytest.raises(UserError, match="--alpha"):
        SequentialTest(0.1, alpha=0.7)


# ---- live comparison on the fixture game -------------------------------------------------------
def test_identical_variants_stop_with_no_change(variant_file, tmp_path):
    a = variant_file("a.toml", TEXT)
    res = sequential_compare(str(a), str(a), margin=0.1, batch=200, max_games=5000,
                             out=tmp_path / "s")
    assert res.decision == "no change" and res.rate_a == res.rate_b
    assert res.games == 200  # common seeds: every pair equal, decided at the first look
    tr = pd.read_csv(tmp_path / "s" / "sequential.csv")
    assert tr["games"].tolist() == [200]
    assert (tmp_path / "s" / "sequential.png").stat().st_size > 1000
    assert "no change of 0.1 or more" in res.summary()


def test_a_stronger_bot_is_detected_and_paired(variant_file, tmp_path):
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace('A = "random"', 'A = { bot = "greedy", bonus = 3 }'))
    res = sequential_compare(str(a), str(b), margin=0.1, batch=100, max_games=4000, target="A",
                             out=tmp_path / "s")
    assert res.decision == "changed: win rate went up"
    assert res.games < 4000 and res.rate_b - res.rate_a > 0.1
    tr = res.test.trace_frame()
    assert tr["games"].is_monotonic_increasing and tr["llr_up"].iloc[-1] >= res.test.upper
    # the same numbers as the fixed tables of a normal run on the same seeds
    import sim
    from sim.runs.variants import load

    ta = sim.run(load(str(a)), res.games, jobs=1, out=tmp_path / "ra", progress=False).table()
    assert res.rate_a == pytest.approx((ta["winner"] == 0).mean())


def test_undecided_at_max_games(variant_file):
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace("goal = 25", "goal = 26"))
    res = sequential_compare(str(a), str(b), margin=0.02, batch=100, max_games=300)
    assert res.decision == "undecided" and res.games == 300
    assert "undecided after 300 games" in res.summary()


def test_cli_sequential(variant_file, tmp_path):
    app = typer.Typer()
    register(app)
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace('B = "greedy"', 'B = { bot = "greedy", bonus = 4 }'))
    r = CliRunner().invoke(app, ["compare", str(a), str(b), "--sequential", "--margin", "0.1",
                                 "--batch", "100", "--max-games", "3000", "--seat", "B",
                                 "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert "GSPRT" in r.output and "changed: win rate went up" in r.output
    assert (tmp_path / "o" / "sequential.png").exists()
    r = CliRunner().invoke(app, ["compare", str(a), str(b), "--sequential", "--margin", "0.1",
                                 "--seat", "Z"])
    assert r.exit_code == 2 and "--seat Z" in r.output


def test_parallel_batches_give_the_same_trace(variant_file):
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace("goal = 25", "goal = 30"))
    one = sequential_compare(str(a), str(b), margin=0.05, batch=150, max_games=300, jobs=1)
    two = sequential_compare(str(a), str(b), margin=0.05, batch=150, max_games=300, jobs=2)
    assert one.test.trace == two.test.trace and one.decision == two.decision


def test_no_decision_without_discordant_evidence():
    """50 identical pairs are no evidence against a 3-point change (0.97^50 = 0.22): the test
    goes on. Ruling a change out from identical pairs needs a likelihood ratio of 1 / beta."""
    t = SequentialTest(0.03)
    assert t.update(np.zeros(50)) is None and t.discordant == 0
    for _ in range(3):  # 5 discordant pairs, balanced: still too little for the normal GSPRT
        assert t.update(np.array([1.0, -1.0] + [0.0] * 48)) is None or t.discordant >= 10
    # identical pairs until a change of 0.03 is ruled out by the discordance alone
    t2 = SequentialTest(0.03, beta=0.05)
    while t2.update(np.zeros(10)) is None:
        assert t2.n < 1000
    assert t2.decision() == "no change"
    ratio = math.log(0.997 / 0.97)  # the likelihood ratio of discordance 0.003 against 0.03
    assert t2.n * ratio >= math.log(20) > (t2.n - 10) * ratio
    # a few differing pairs all one way: not "changed" before min_discordant pairs differed
    t3 = SequentialTest(0.2, min_discordant=10)
    assert t3.update(np.ones(9)) is None
    assert t3.update(np.ones(20)) == "changed: win rate went up"


def test_minimum_evidence_keeps_error_rates_at_low_discordance():
    """Synthetic outcomes with few discordant pairs (down to the change itself: every differing
    pair goes one way): false 'changed' and false 'no change' stay within nominal."""
    reps = 400
    for disc in (0.02, 0.04):
        oc = operating_characteristics(0.02, 0.05, 0.05, discordance=disc, reps=reps, batch=50,
                                       seed=3)
        assert oc.type1 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / reps), oc.summary()
        assert oc.type2 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / reps), oc.summary()
