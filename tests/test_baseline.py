"""baseline save / check: the record, exact replay, the statistical check, JUnit XML, exit
codes; `check` fails on a deliberately changed rule in the fixture game and passes on the
original. The last test re-plays every committed baseline's sample (the CI regression gate)."""

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

import sim
from sim import baseline
from sim.cli_workflows import register
from sim.errors import UserError
from sim.variants import load

TEXT = ('game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
        '[seats]\nA = "random"\nB = "greedy"\n')
GAMES = 1500


@pytest.fixture
def app():
    a = typer.Typer()
    register(a)
    return a


@pytest.fixture
def saved(variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    [b] = baseline.save([str(v)], GAMES, seed=5, out=tmp_path / "bl" / "v.json", sample=120, jobs=1)
    return v, b


def changed_rule(monkeypatch, racedice, from_game=0):
    """A deliberate rule change in the game's code (the variant file stays the same): from game
    `from_game` on, the die has one more side than the rules say."""
    cls = type(racedice)
    original = cls._play

    def play(self, rules, seats, index, run_seed, moves=None):
        if index >= from_game:
            rules = {**rules, "sides": rules["sides"] + 1}
        return original(self, rules, seats, index, run_seed, moves)

    monkeypatch.setattr(cls, "_play", play)


def test_baseline_record(saved, tmp_path):
    v, b = saved
    d = json.loads((tmp_path / "bl" / "v.json").read_text())
    assert d == json.loads(json.dumps(b.data))
    assert d["variant"]["spec"] == str(v.resolve()) and d["variant"]["hash"] == load(str(v)).hash
    assert d["variant"]["resolved"]["rules"]["goal"] == 25
    assert d["games"] == GAMES and d["seed"] == 5 and d["code"]["package_version"] == sim.__version__
    assert d["sample"]["games"] == 120 and len(d["sample"]["columns"]["winner"]) == 120
    assert {"winner", "turns", "score_A", "score_B", "seed", "game"} <= set(d["sample"]["columns"])
    m = {r["metric"]: r for r in d["metrics"]}
    assert m["win_rate_B"]["n"] == GAMES and m["win_rate_B"]["ci_low"] < m["win_rate_B"]["value"]
    assert m["turns_p50"]["cdf_successes"] >= GAMES // 2 and m["turns_mean"]["sd"] > 0
    # the digest is the digest of the very table the run writes, whatever its chunking
    t1 = sim.run(load(str(v)), GAMES, seed=5, jobs=1, out=tmp_path / "r1", chunk_size=GAMES,
                 progress=False).table()
    t2 = sim.run(load(str(v)), GAMES, seed=5, jobs=2, out=tmp_path / "r2", chunk_size=333,
                 backend="threading", progress=False).table()
    assert baseline.table_digest(t1) == baseline.table_digest(t2) == d["table_digest"]
    t1.loc[7, "turns"] += 1
    assert baseline.table_digest(t1) != d["table_digest"]


def test_default_path_and_spec(variant_file):
    v = load(str(variant_file("mine.toml", TEXT)))
    assert baseline.default_path(v) == baseline.BASELINES_DIR / "racedice" / "mine.json"
    assert baseline.spec_of(v) == str(v.path.resolve())


def test_check_passes_on_the_original(saved, app, tmp_path):
    _, b = saved
    rep = baseline.check([b.path], full=True, jobs=1)
    [r] = rep.results
    assert rep.ok and r.exact_ok and r.digest_checked and r.exact_games == GAMES
    assert r.stats is not None and not r.stats["drifted"].any()
    assert len(r.stats) == len(b.data["metrics"])
    assert (r.stats["p_adjusted"] >= r.stats["p_value"] - 1e-12).all()
    res = CliRunner().invoke(app, ["check", str(tmp_path / "bl"), "--jobs", "1", "--junit",
                                   str(tmp_path / "j.xml")])
    assert res.exit_code == 0, res.output
    assert "games 0-119 replay identically" in res.output and "1 baselines hold" in res.output
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    assert suite.get("failures") == "0" and int(suite.get("tests")) == len(b.data["metrics"]) + 1


def test_check_fails_on_a_changed_rule(saved, app, tmp_path, monkeypatch, racedice):
    _, b = saved
    changed_rule(monkeypatch, racedice)
    rep = baseline.check([b.path], jobs=1)
    [r] = rep.results
    assert not rep.ok and not r.exact_ok and not r.variant_changed
    assert r.exact_differing > 10
    first = r.exact_mismatches[0]
    stored = b.data["sample"]["columns"]
    i = next(i for i in range(120) if f"game {stored['game'][i]} " in first)
    assert first.startswith(f"game {stored['game'][i]} (seed {stored['seed'][i]}): ")
    assert any(k in first for k in ("winner", "turns", "score_A", "score_B"))
    winners = [m for m in r.exact_mismatches if "winner" in m]
    for m in winners:  # seats by name
        assert any(f"winner {x} -> {y}" in m for x, y in (("A", "B"), ("B", "A")))
    assert "rules code changed behaviour" in r.summary()
    drifted = set(r.stats.loc[r.stats["drifted"], "metric"])
    assert "turns_mean" in drifted  # a bigger die: shorter races
    res = CliRunner().invoke(app, ["check", str(b.path), "--jobs", "1", "--junit",
                                   str(tmp_path / "j.xml")])
    assert res.exit_code == 1
    assert "DRIFT racedice/v" in res.output and "1 of 1 baselines drifted" in res.output
    root = ET.parse(tmp_path / "j.xml").getroot()
    fails = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert fails[0].get("name") == "exact replay" and len(fails) >= 2
    assert "game " in fails[0].find("failure").text


def test_exact_sample_misses_a_late_change_but_full_digest_finds_it(saved, monkeypatch, racedice):
    _, b = saved
    changed_rule(monkeypatch, racedice, from_game=1000)
    assert baseline.check([b.path], statistical=False).ok  # only games 0-119 are replayed
    rep = baseline.check([b.path], statistical=False, full=True)
    [r] = rep.results
    assert not rep.ok and "the first 120 games agree, a later game differs" in r.exact_mismatches[0]


def test_only_the_statistical_check(saved, monkeypatch, racedice):
    _, b = saved
    assert baseline.check([b.path], exact=False, jobs=1, games=800, seed=99).ok
    changed_rule(monkeypatch, racedice)
    [r] = baseline.check([b.path], exact=False, jobs=1, games=800, seed=99).results
    assert r.exact_games == 0 and not r.stats_ok
    p50 = r.stats.set_index("metric").loc["turns_p50"]
    assert "share of games <=" in p50["note"]


def test_variant_file_edit_is_named(saved, monkeypatch):
    v, b = saved
    v.write_text(TEXT.replace("goal = 25", "goal = 27"))
    [r] = baseline.check([b.path], statistical=False).results
    assert r.variant_changed == ["rules.goal: 25 -> 27"]
    assert not r.ok and "the variant file changed" in r.summary()


def test_bad_input_exit_2(app, tmp_path, saved):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = CliRunner().invoke(app, ["check", str(bad)])
    assert r.exit_code == 2 and "not a baseline" in r.output
    r = CliRunner().invoke(app, ["check", str(tmp_path / "nowhere")])
    assert r.exit_code == 2 and "no such baseline file or folder" in r.output
    (tmp_path / "other.json").write_text('{"a": 1}')
    r = CliRunner().invoke(app, ["check", str(tmp_path / "other.json")])
    assert r.exit_code == 2 and "not a hexsim baseline" in r.output
    v, b = saved
    with pytest.raises(UserError, match="only with a single variant"):
        baseline.save([str(v), str(v)], 10, out=tmp_path / "x.json")
    v.unlink()
    r = CliRunner().invoke(app, ["check", str(b.path)])
    assert r.exit_code == 2 and "its variant cannot be loaded" in r.output
    (tmp_path / "empty").mkdir()
    r = CliRunner().invoke(app, ["check", str(tmp_path / "empty")])
    assert r.exit_code == 2 and "no baselines found" in r.output


def test_cli_baseline_save(app, variant_file, tmp_path):
    v = variant_file("w.toml", TEXT)
    r = CliRunner().invoke(app, ["baseline", "save", str(v), "--games", "200", "--jobs", "1",
                                 "--out", str(tmp_path / "w.json"), "--sample", "50"])
    assert r.exit_code == 0, r.output
    assert "racedice/w: 200 games" in r.output
    d = baseline.read(tmp_path / "w.json").data
    assert d["games"] == 200 and d["sample"]["games"] == 50
    r = CliRunner().invoke(app, ["baseline", "save", str(v), "--shipped"])
    assert r.exit_code == 2


COMMITTED = baseline.find_baselines() if baseline.BASELINES_DIR.is_dir() else []


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(baseline.BASELINES_DIR)))
def test_committed_baseline_replays_exactly(path):
    """The CI gate: every committed baseline's first games re-play identically."""
    rep = baseline.check([path], statistical=False, sample=50)
    assert rep.ok, rep.summary()


def test_tolerance_tests_against_scipy_and_statsmodels():
    """The drift tests are two one-sided tests of |now - baseline| > tolerance: references are
    Welch's t-test on the raw data shifted by the tolerance, and statsmodels' score test."""
    from scipy import stats as sps
    from statsmodels.stats.proportion import test_proportions_2indep

    from sim.metrics import Metric

    rng = np.random.default_rng(8)
    base, now = rng.normal(10, 3, 700), rng.normal(10.6, 3, 900)
    row = {"kind": "mean", "value": base.mean(), "sd": base.std(ddof=1), "n": len(base)}
    m = Metric("x", "mean", now.mean(), len(now), data=now)
    p, tol, _ = baseline.tolerance_p(row, m, 0.01, 0.02)
    assert tol == pytest.approx(0.02 * base.mean())
    ref = [sps.ttest_ind(now - tol, base, equal_var=False, alternative="greater").pvalue,
           sps.ttest_ind(now + tol, base, equal_var=False, alternative="less").pvalue]
    assert p == pytest.approx(min(1.0, 2 * min(ref)), rel=1e-9)
    row = {"kind": "proportion", "value": 0.5, "successes": 500, "n": 1000}
    m = Metric("y", "proportion", 0.55, 1000, successes=550)
    p, tol, _ = baseline.tolerance_p(row, m, 0.01, 0.02)
    up = test_proportions_2indep(550, 1000, 500, 1000, value=0.01, method="score", correction=False,
                                 alternative="larger").pvalue
    assert p == pytest.approx(min(1.0, 2 * up), rel=1e-9)
    m = Metric("y", "proportion", 0.5, 1000, successes=500)
    assert baseline.tolerance_p(row, m, 0.01, 0.02)[0] == 1.0
