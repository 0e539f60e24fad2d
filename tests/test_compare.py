"""compare: intervals and tests against statsmodels / scipy / hand references, coverage of the
win-rate interval, the MDE's power, and the comparison of two fixture variants end to end."""

import numpy as np
import pandas as pd
import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.proportion import power_proportions_2indep, proportion_confint
from typer.testing import CliRunner

from sim import stats
from sim.cli.workflows import register
from sim.stats import metrics
from sim.workflows.compare import CSV_COLUMNS, compare

TEXT = ('game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
        '[seats]\nA = "random"\nB = "greedy"\n')


@pytest.fixture
def cli_app():
    app = typer.Typer()
    register(app)
    return app


# ---- statistics against references ---------------------------------------------------------------
counts = st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@settings(max_examples=60, deadline=None)
@given(counts, counts)
def test_newcombe_is_wilson_hybrid(b, a):
    """Newcombe's method 10 by hand from two Wilson intervals (p_b - p_a)."""
    (kb, nb), (ka, na) = b, a
    pb, pa = kb / nb, ka / na
    lb, ub = proportion_confint(kb, nb, method="wilson")
    la, ua = proportion_confint(ka, na, method="wilson")
    d = pb - pa
    ref = (d - np.sqrt((pb - lb) ** 2 + (ua - pa) ** 2), d + np.sqrt((ub - pb) ** 2 + (pa - la) ** 2))
    d = stats.newcombe_diff(kb, nb, ka, na)
    assert np.allclose((d.low, d.high), ref, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(counts, counts)
def test_two_proportion_score_test_is_pearson_chi2(b, a):
    (kb, nb), (ka, na) = b, a
    p = metrics.prop_test(kb, nb, ka, na)
    table = np.array([[kb, nb - kb], [ka, na - ka]])
    if (table.sum(axis=0) == 0).any():
        assert p == 1.0  # nothing to test: both samples all-success or all-failure
        return
    ref = sps.chi2_contingency(table, correction=False).pvalue
    assert p == pytest.approx(ref, rel=1e-6, abs=1e-12)


def test_holm_matches_step_down_by_hand():
    rng = np.random.default_rng(5)
    for _ in range(40):
        p = rng.uniform(0, 0.2, size=rng.integers(1, 12))
        order = np.argsort(p)
        m = len(p)
        adj = np.empty(m)
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (m - rank) * p[i]))
            adj[i] = running
        assert np.allclose(metrics.holm(p), adj)


def test_wilson_coverage_near_95_percent():
    """Synthetic binomial data: the win-rate interval covers the true rate ~95% of the time."""
    rng = np.random.default_rng(11)
    for p, n in ((0.5, 100), (0.3, 400), (0.06, 250)):
        k = rng.binomial(n, p, size=4000)
        lo, hi = proportion_confint(k, n, method="wilson")
        cover = np.mean((lo <= p) & (p <= hi))
        assert 0.93 <= cover <= 0.97, (p, n, cover)
        # the same through the metric table's own function
        ci = stats.wilson(int(k[0]), n)
        assert (ci.low, ci.high) == pytest.approx((lo[0], hi[0]))


def test_newcombe_difference_coverage():
    rng = np.random.default_rng(12)
    pa, pb, n = 0.45, 0.52, 300
    ka, kb = rng.binomial(n, pa, 2000), rng.binomial(n, pb, 2000)
    cover = np.mean([lo <= pb - pa <= hi for lo, hi in
                     ((d.low, d.high) for d in (stats.newcombe_diff(b, n, a, n) for a, b in zip(ka, kb, strict=True)))])
    assert 0.93 <= cover <= 0.975


@pytest.mark.parametrize("stat, q", [("mean", None), ("quantile", 0.5), ("quantile", 0.9)])
def test_count_bootstrap_agrees_with_scipy(stat, q):
    """The value-count bootstrap gives scipy.stats.bootstrap's percentile interval."""
    rng = np.random.default_rng(3)
    x = rng.poisson(12, size=400).astype(float)
    if stat == "mean":
        f = np.mean
    else:
        def f(s, axis=-1):
            return np.quantile(s, q, axis=axis, method="inverted_cdf")
    ref = sps.bootstrap((x,), f, n_resamples=4000, method="percentile", random_state=1,
                        vectorized=True).confidence_interval
    reps = metrics._boot_stat(x, stat, q, 4000, np.random.default_rng(2))
    lo, hi = metrics._percentile(reps, 0.05)
    step = 0.15 if stat == "mean" else 1.0  # quantiles move in whole turns
    assert abs(lo - ref.low) <= step and abs(hi - ref.high) <= step
    if stat == "quantile":
        assert metrics.quantile(x, q) == np.quantile(x, q, method="inverted_cdf")


def test_bootstrap_mean_interval_matches_normal_theory():
    rng = np.random.default_rng(4)
    x = rng.exponential(3.0, size=50_000)  # many distinct values: m-out-of-n index resampling
    reps = metrics._boot_stat(x, "mean", None, 300, np.random.default_rng(0))
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert np.std(reps, ddof=1) == pytest.approx(se, rel=0.15)
    assert np.mean(reps) == pytest.approx(x.mean())
    # one side on that path, the other on the value-count path: still a difference interval
    a = metrics.Metric("x", "mean", x.mean(), len(x), data=x)
    y = np.round(x)
    b = metrics.Metric("x", "mean", y.mean(), len(y), data=y)
    row = metrics.compare_metric(a, b, None, None, None, None, np.random.default_rng(1))
    assert row["ci_low"] < row["diff"] < row["ci_high"]


@pytest.mark.parametrize("p, n", [(0.5, 2000), (0.2, 10_000), (0.05, 50_000), (0.8, 300),
                                  (0.03, 400), (0.0, 500)])
def test_mde_has_the_stated_power(p, n):
    """A change of the MDE is detected with 80% power in the harder direction (towards 1/2) and
    at least 80% in the other (statsmodels' power function); also at a corrected level."""
    for alpha in (0.05, 0.05 / 14):
        mde = stats.mde_difference(p, n, p, n, alpha)
        pbar = max(p, 1 / (2 * n))
        powers = [power_proportions_2indep(s * mde, pbar, n, ratio=1, alpha=alpha).power
                  for s in (1, -1) if 0 <= pbar + s * mde <= 1]
        assert min(powers) == pytest.approx(0.8, abs=0.005)
        assert max(powers) >= 0.795


# ---- comparing two variants -------------------------------------------------------------------
def test_compare_detects_a_longer_race(variant_file, tmp_path):
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace("goal = 25", "goal = 40"))
    res = compare(str(a), str(b), games=600, jobs=1, out=tmp_path / "cmp")
    t = res.table.set_index("metric")
    for m in ("turns_mean", "turns_p50", "score_mean_A", "score_mean_B"):
        assert t.loc[m, "verdict"] == "changed" and t.loc[m, "diff"] > 0
        assert t.loc[m, "ci_low"] > 0
    assert t.loc["turns_mean", "value_b"] == pytest.approx(res.run_b.table()["turns"].mean())
    # every metric of the report is there, with both sides' counts for proportions
    assert {"win_rate_A", "win_rate_B", "win_rate_first_mover", "first_mover_share", "draw_rate",
            "cap_rate", "end_goal", "turns_p10", "turns_p90", "racedice_margin_mean"} <= set(t.index)
    assert t.loc["win_rate_B", "n_a"] == 600 and t.loc["win_rate_B", "successes_b"] == \
        (res.run_b.table()["winner"] == 1).sum()
    assert (t["p_adjusted"] >= t["p_value"] - 1e-12).all()
    # intervals at the verdicts' level (Bonferroni over the family) hold the 95% ones
    ok = t["ci_low"].notna()
    assert (t.loc[ok, "ci_low_adj"] <= t.loc[ok, "ci_low"] + 1e-12).all()
    assert (t.loc[ok, "ci_high_adj"] >= t.loc[ok, "ci_high"] - 1e-12).all()
    assert t.loc["turns_mean", "ci_low_adj"] > 0  # a clear change shows at that level too
    csv = pd.read_csv(tmp_path / "cmp" / "comparison.csv")
    assert list(csv.columns[:13]) == CSV_COLUMNS[:13] and len(csv) == len(t)
    md = (tmp_path / "cmp" / "comparison.md").read_text()
    assert "turns_mean" in md and "Holm" in md and "distributions.png" in md
    assert 0 <= res.identical < 0.5
    assert f"{res.identical_games:,} of 600 games ({res.identical:.1%}) came out identically" in md
    assert "Paired analysis" in md and "adjusted interval" in md
    assert t.loc["first_mover_share", "fairness_a"].startswith("A: the first mover wins ")
    assert t.loc["first_mover_share", "fairness_a"] in md and t.loc["turns_mean", "fairness_a"] == ""
    assert t["paired"].all() and t.loc["win_rate_A", "method"].startswith("paired: exact McNemar")
    page = (tmp_path / "cmp" / "comparison.html").read_text()
    assert "<table>" in page and "A = racedice/a" in page and "B = racedice/b" in page
    assert page.index("Headline metrics") < page.index("<details>")  # the rest is folded
    assert (tmp_path / "cmp" / "differences.png").stat().st_size > 1000


def test_same_variant_on_common_seeds_shows_no_change(variant_file, tmp_path):
    """Common random numbers: game i of A and of B share the seed, so identical variants give
    identical tables; the comparison is paired, nothing changes, and every verdict states what
    could have been seen or that no game differed."""
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace('description = "d"', 'description = "copy"'))
    res = compare(str(a), str(b), games=300, jobs=1, out=tmp_path / "cmp")
    ta, tb = res.run_a.table(), res.run_b.table()
    assert (ta["seed"].to_numpy() == tb["seed"].to_numpy()).all()
    assert (ta["winner"].to_numpy() == tb["winner"].to_numpy()).all()
    assert (res.table["diff"] == 0).all() and res.identical == 1.0 and res.identical_games == 300
    assert res.table["paired"].all() and res.pairing is None
    assert not (res.table["verdict"] == "changed").any()
    t = res.table.set_index("metric")
    props = t[(t["kind"] == "proportion") & t["method"].str.startswith("paired: exact McNemar")]
    assert len(props) >= 5 and (props["discordant"] == 0).all()
    for v, mde in zip(props["verdict"], props["mde"], strict=True):
        assert v.startswith("no detectable change; this run could have seen a change of")
        assert 0 < mde <= 1
    # the MDE with no discordant pair: a change of mde needs >= c pairs all one way, found with
    # 80% probability, at the Bonferroni level over the family
    fam = len(t) - (t["same_as"] != "").sum()
    c = next(k for k in range(1, 100) if 2 * 0.5 ** k < 0.05 / fam)
    assert sps.binom.sf(c - 1, 300, props["mde"].iloc[0]) == pytest.approx(0.8, abs=1e-6)
    assert t.loc["turns_mean", "verdict"] == "no detectable change; no game of 300 differed"
    # two seats of a game without draws are one hypothesis
    if t.loc["draw_rate", "value_a"] == 0:
        assert t.loc["win_rate_B", "same_as"] == "win_rate_A"
        assert t.loc["win_rate_B", "p_adjusted"] == t.loc["win_rate_A", "p_adjusted"]


def test_a_real_win_rate_change_is_flagged(variant_file, tmp_path):
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace('B = "greedy"', 'B = { bot = "greedy", bonus = 4 }'))
    res = compare(str(a), str(b), games=500, jobs=1, out=tmp_path / "c", write=False)
    t = res.table.set_index("metric")
    assert t.loc["win_rate_B", "verdict"] == "changed"
    assert t.loc["win_rate_B", "ci_low"] > 0.05
    assert not res.files


def test_cli_compare(cli_app, variant_file, tmp_path):
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace("goal = 25", "goal = 30"))
    res = CliRunner().invoke(cli_app, ["compare", str(a), str(b), "--games", "200", "--jobs", "1",
                                       "--out", str(tmp_path / "o"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "comparison.html" in res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("A = ") and lines[1].startswith("B = ")
    assert any(x.startswith("length, mean turns") for x in lines)
    assert any(x.startswith("first mover's share of decisive games") and " pts [" in x for x in lines)
    assert (tmp_path / "o" / "comparison.csv").exists()


def test_cli_compare_bad_input(cli_app, variant_file, tmp_path):
    a = variant_file("a.toml", TEXT)
    r = CliRunner().invoke(cli_app, ["compare", str(a), str(tmp_path / "none.toml")])
    assert r.exit_code == 2 and "no such variant file" in r.output
    r = CliRunner().invoke(cli_app, ["compare", str(a), str(a), "--margin", "0.1"])
    assert r.exit_code == 2 and "--margin: only with --sequential" in r.output
    r = CliRunner().invoke(cli_app, ["compare", str(a), str(a), "--sequential"])
    assert r.exit_code == 2 and "needs --margin" in r.output
    assert "Traceback" not in r.output


def test_game_value_bootstrap_m_out_of_n(variant_file, monkeypatch):
    """Large tables bootstrap game values on subsamples with the spread rescaled: the standard
    error agrees with the full bootstrap and with the standard error of the mean."""
    from sim.runs.variants import load
    from sim.workflows.baseline.check import _play

    v = load(str(variant_file("a.toml", TEXT)))
    df = _play(v, 0, 3000, 0)
    full = metrics._value_replicates(df, v, ["racedice_margin_mean"], 300,
                                     np.random.default_rng(1))["racedice_margin_mean"]
    monkeypatch.setattr(metrics, "VALUE_SUBSAMPLE", 300)
    sub = metrics._value_replicates(df, v, ["racedice_margin_mean"], 300,
                                    np.random.default_rng(2))["racedice_margin_mean"]
    se = df["racedice_margin"].std() / np.sqrt(len(df))
    assert np.std(full, ddof=1) == pytest.approx(se, rel=0.2)
    assert np.std(sub, ddof=1) == pytest.approx(se, rel=0.2)
    assert np.mean(sub) == pytest.approx(df["racedice_margin"].mean(), abs=1e-9)


def test_rerun_after_an_edit_or_with_more_games(variant_file, tmp_path):
    """The designer's loop: compare, edit B, compare again into the same folder."""
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace("goal = 25", "goal = 30"))
    first = compare(str(a), str(b), games=100, jobs=1, out=tmp_path / "c", write=False)
    b.write_text(TEXT.replace("goal = 25", "goal = 35"))
    second = compare(str(a), str(b), games=150, jobs=1, out=tmp_path / "c", write=False)
    assert second.run_a.manifest["games"] == 150 and second.variant_b.rules["goal"] == 35
    assert first.run_b.path != second.run_b.path
    again = compare(str(a), str(b), games=150, jobs=1, out=tmp_path / "c", write=False)
    assert again.run_b.manifest["timings"]["games_resumed"] == 150


def test_constant_and_shifted_columns():
    """Degenerate inputs: every game alike on both sides (no spread) and a pure shift, paired
    and independent."""

    class V:  # the parts of a Variant that compare_metric uses for means / quantiles
        pass

    rng = np.random.default_rng(0)
    same = np.full(300, 7.0)
    for paired in (False, True):
        for kind, q in (("mean", None), ("quantile", 0.5)):
            a = metrics.Metric("x", kind, 7.0, 300, data=same, q=q)
            b = metrics.Metric("x", kind, 7.0, 300, data=same.copy(), q=q)
            row = metrics.compare_metric(a, b, None, None, V, V, rng, paired=paired)
            assert row["p_value"] == 1.0 and row["diff"] == 0
            # no spread: a mean states why it has no MDE; a quantile's is one step of the data
            assert (np.isnan(row["mde"]) and row["note"]) if kind == "mean" else row["mde"] >= 1
            shifted = metrics.Metric("x", kind, 8.0, 300, data=same + 1, q=q)
            row = metrics.compare_metric(a, shifted, None, None, V, V, rng, paired=paired)
            assert row["p_value"] < 1e-12 and row["ci_low"] == row["ci_high"] == 1.0
    x = rng.poisson(10, 500).astype(float)
    for paired in (False, True):
        a = metrics.Metric("x", "quantile", metrics.quantile(x, 0.5), 500, data=x, q=0.5)
        b = metrics.Metric("x", "quantile", metrics.quantile(x + 3, 0.5), 500, data=x + 3, q=0.5)
        row = metrics.compare_metric(a, b, None, None, V, V, rng, paired=paired)
        assert row["diff"] == 3 and row["p_value"] < 1e-6 and row["ci_low"] <= 3 <= row["ci_high"]
        assert row["mde"] >= 1  # never finer than the data's one-step resolution


def test_unpaired_when_seeds_or_seats_differ(variant_file, tmp_path):
    """--no-common-seeds plays B on other seeds: the comparison says it is not paired and uses
    two-sample methods; different seat counts never pair."""
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace("goal = 25", "goal = 30"))
    res = compare(str(a), str(b), games=300, jobs=1, out=tmp_path / "c", common_seeds=False)
    assert res.pairing is not None and "no common seeds" in res.pairing
    assert res.identical is None and res.identical_games is None
    t = res.table.set_index("metric")
    assert not t["paired"].any()
    assert t.loc["win_rate_A", "method"] == "two-sample score test, Newcombe interval"
    assert t.loc["turns_mean", "method"] == "Welch t, bootstrap interval"
    assert t.loc["turns_p50", "method"].startswith("score test on games <= the pooled quantile")
    assert "Not paired (the seeds of A's and B's games differ" in \
        (tmp_path / "c" / "comparison.md").read_text()

    class Seats:
        def __init__(self, k):
            self.seat_names = list("ABCD"[:k])

    da = res.run_a.table()
    assert metrics.pairing(da, da, Seats(2), Seats(2)) is None
    assert metrics.pairing(da, da, Seats(2), Seats(3)).startswith("A has 2 seats and B 3")
    assert "games do not pair" in metrics.pairing(da, da.iloc[:-1], Seats(2), Seats(2))


def test_cli_compare_no_common_seeds(cli_app, variant_file, tmp_path):
    a = variant_file("a.toml", TEXT)
    r = CliRunner().invoke(cli_app, ["compare", str(a), str(a), "--games", "100", "--jobs", "1",
                                     "--no-common-seeds", "--out", str(tmp_path / "o"),
                                     "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "not paired: the seeds of A's and B's games differ" in r.output


@pytest.mark.parametrize("paired", [False, True])
def test_quantile_test_holds_its_level_and_mde_its_power(paired, monkeypatch):
    """Whole-turn game lengths, no change: the quantile test (proportion at or below the pooled
    quantile) rejects at most 5% + noise (the old bootstrap z-test: 10-13%); its MDE is never
    below the one-turn resolution, and a shift of the MDE (here one turn) is found with at least
    80% power (up to Monte Carlo noise)."""
    monkeypatch.setattr(metrics, "BOOT", 50)  # the interval is not under test here: fast
    rng = np.random.default_rng(8 + paired)
    reps, n = 300, 500
    found = {0: 0, 1: 0}
    for shift in (0, 1):
        for _ in range(reps):
            xa = rng.poisson(20, n).astype(float)
            if paired:  # most games alike, some a few turns off
                xb = xa + (rng.random(n) < 0.3) * rng.integers(-2, 3, n) + shift
            else:
                xb = rng.poisson(20, n).astype(float) + shift
            a = metrics.Metric("t", "quantile", metrics.quantile(xa, 0.5), n, data=xa, q=0.5)
            b = metrics.Metric("t", "quantile", metrics.quantile(xb, 0.5), n, data=xb, q=0.5)
            row = metrics.compare_metric(a, b, None, None, None, None, rng, paired=paired)
            assert row["mde"] >= 1
            found[shift] += row["p_value"] < 0.05
    assert found[0] / reps <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / reps)
    assert found[1] / reps >= 0.8 - 2 * np.sqrt(0.8 * 0.2 / reps)  # 80% up to Monte Carlo noise
