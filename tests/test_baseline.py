"""baseline save / check: the record, exact replay, metric definitions, the statistical check,
JUnit XML, exit codes; `check` fails on a deliberately changed rule in the fixture game and passes
on the original; a changed metric definition is "stale, re-save", a rare metric "not testable",
never drift. The shipped baselines are checked in test_baselines_shipped.py; the statistics
in test_drift.py."""

import json
import xml.etree.ElementTree as ET

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

import sim
from sim.cli.workflows import register
from sim.errors import UserError
from sim.runs.variants import load
from sim.stats import drift
from sim.workflows import baseline

TEXT = ('game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
        '[seats]\nA = "random"\nB = "greedy"\n')
GAMES = 6000


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


def game_metrics(monkeypatch, racedice, rows):
    """Replace the fixture game's own report rows by `rows(df)`."""
    monkeypatch.setattr(type(racedice), "report_metrics", lambda self, df, rules: rows(df))


def test_baseline_record(saved, tmp_path):
    v, b = saved
    d = json.loads((tmp_path / "bl" / "v.json").read_text())
    assert d == json.loads(json.dumps(b.data))
    assert d["hexsim_baseline"] == baseline.FORMAT == 2
    assert d["variant"]["spec"] == str(v.resolve()) and d["variant"]["hash"] == load(str(v)).hash
    assert d["variant"]["resolved"]["rules"]["goal"] == 25
    assert d["games"] == GAMES and d["seed"] == 5 and d["code"]["package_version"] == sim.__version__
    # the design: its fresh games, levels and measured rates (6,000 games are too few for the
    # 2-point power, and the file says so)
    des = d["design"]
    assert des["fresh_games"] == GAMES and des["false_drift"] == drift.FALSE_DRIFT
    assert des["pass_unchanged_at_least"] >= 0.99 and 0 < des["power"] < 0.8
    assert "measured by simulation" in des["note"]
    m = {r["metric"]: r for r in d["metrics"]}
    assert m["win_rate_B"]["n"] == GAMES and m["win_rate_B"]["ci_low"] < m["win_rate_B"]["value"]
    assert m["turns_mean"]["sd"] > 0 and m["turns_mean"]["test"] == "mean"
    assert m["turns_p50"]["test"] == "quantile" and m["first_mover_share"]["test"] == "proportion"
    assert m["racedice_margin_mean"]["test"] is None  # a game value: definition checked only
    assert sum(d["histograms"]["turns"]["counts"]) == GAMES
    # the sample: the first 120 games plus rare outcomes and extremes, rebuilt as the table held them
    s = d["sample"]
    games = s["columns"]["game"]
    assert s["first_games"] == 120 and games[:120] == list(range(120)) and len(games) > 120
    assert games == sorted(games)
    t1 = sim.run(load(str(v)), GAMES, seed=5, jobs=1, out=tmp_path / "r1", chunk_size=GAMES,
                 progress=False).table()
    got = baseline.sample_table(b)
    want = t1.iloc[games].reset_index(drop=True)
    pd.testing.assert_frame_equal(got[list(want.columns)], want, check_categorical=False)
    assert got["end_reason"].dtype == want["end_reason"].dtype
    assert t1["turns"].max() in set(got["turns"]) and t1["turns"].min() in set(got["turns"])
    # every metric's definition fingerprint: its value on those rows
    assert m["win_rate_B"]["definition"]["n"] == len(games)
    assert m["win_rate_B"]["definition"]["successes"] == int((got["winner"] == 1).sum())
    # the digest is the digest of the very table the run writes, whatever its chunking
    t2 = sim.run(load(str(v)), GAMES, seed=5, jobs=2, out=tmp_path / "r2", chunk_size=333,
                 backend="threading", progress=False).table()
    assert baseline.table_digest(t1) == baseline.table_digest(t2) == d["table_digest"]
    t1.loc[7, "turns"] += 1
    assert baseline.table_digest(t1) != d["table_digest"]


def test_size_chosen_by_the_design(variant_file, tmp_path):
    """Without --games, a pilot run sizes the baseline so that a 2-point change of the first
    mover's share is caught with probability at least 0.8 (measured and stated)."""
    v = variant_file("v.toml", TEXT)
    [b] = baseline.save([str(v)], None, seed=2, out=tmp_path / "d.json", jobs=1)
    d = b.data
    assert d["games"] % drift.GAMES_STEP == 0 and d["design"]["fresh_games"] == d["games"]
    assert d["design"]["power"] >= drift.POWER and 20_000 <= d["games"] <= 40_000
    m = {r["metric"]: r for r in d["metrics"]}["first_mover_share"]
    p = m["value"]
    assert drift.design_games(p, m["n"] / d["games"]) <= d["games"]


def test_default_path_and_spec(variant_file, tmp_path):
    """A designer's (or a plug-in's) variant: its baseline goes under the working directory,
    never into hexsim's own data/baselines; a shipped variant's there."""
    v = load(str(variant_file("mine.toml", TEXT)))
    assert baseline.default_path(v) == baseline.LOCAL_DIR / "racedice" / "mine.json"
    assert baseline.default_path(v, tmp_path / "x") == tmp_path / "x" / "racedice" / "mine.json"
    assert not baseline.is_shipped(v) and baseline.is_shipped(load("hexflow/race"))
    assert baseline.default_path(load("hexflow/race")) == baseline.BASELINES_DIR / "hexflow" / "race.json"
    assert baseline.spec_of(v) == str(v.path.resolve())


def test_save_and_check_in_the_working_directory(app, variant_file, tmp_path, monkeypatch):
    """`hexsim baseline save` of a variant file outside the package writes ./baselines/...; a bare
    `hexsim check` there checks that one baseline only (not the shipped ones), after saying how
    many games it will play and about how long."""
    v = variant_file("mine.toml", TEXT)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    before = sorted(baseline.BASELINES_DIR.rglob("*.json"))
    r = CliRunner().invoke(app, ["baseline", "save", str(v), "--games", "300", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    [saved] = list(work.rglob("*.json"))
    assert saved == work / "baselines" / "racedice" / "mine.json"
    assert sorted(baseline.BASELINES_DIR.rglob("*.json")) == before
    assert baseline.read(saved).data["timings"]["games_per_second"] > 0
    r = CliRunner().invoke(app, ["check", "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert "check: 1 baseline(s), " in r.output and "games to play" in r.output
    assert "(an estimate from the speed 1 baseline(s) recorded when saved)" in r.output
    assert "[1/1] racedice/mine" in r.output and "1 baselines hold" in r.output
    assert r.output.index("an estimate") < r.output.index("[1/1]")
    # a baseline that recorded no speed: a short pilot times it
    b = baseline.read(saved)
    del b.data["timings"]
    line = baseline.estimate([(b, load(str(v)))], games=300, jobs=1)
    assert "1 baseline(s)" in line and "games to play" in line and "pilot of 1 variant(s)" in line
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["check"])
    assert r.exit_code == 2 and "no baselines/ folder here" in r.output and "--shipped" in r.output


def test_check_passes_on_the_original(saved, app, tmp_path):
    _, b = saved
    rep = baseline.check([b.path], full=True, jobs=1)
    [r] = rep.results
    assert rep.ok and r.exact_ok and r.digest_checked and r.exact_games == GAMES and not r.stale
    assert r.stats is not None and not r.stats["drifted"].any() and r.fresh_games == GAMES
    assert len(r.stats) == len(b.data["metrics"])
    st = r.stats.set_index("metric")
    assert st.loc["first_mover_share", "role"] == "primary"
    assert st.loc["first_mover_share", "level"] == pytest.approx(drift.FALSE_DRIFT / 2)
    assert st.loc["racedice_margin_mean", "status"] == "not tested"
    assert st.loc["cap_rate", "status"] == "not testable"  # no game reaches the cap
    ok = st[st["status"] == "ok"]
    assert len(ok) >= 9 and (ok["p_adjusted"] >= ok["p_value"] - 1e-12).all()
    res = CliRunner().invoke(app, ["check", str(tmp_path / "bl"), "--jobs", "1", "--junit",
                                   str(tmp_path / "j.xml")])
    assert res.exit_code == 0, res.output
    assert f"{len(b.data['sample']['columns']['game'])} sampled games replay identically" in res.output
    assert "1 baselines hold" in res.output
    # progress: which baseline, and games/s
    assert "[1/1] racedice/v" in res.output and "games/s" in res.output
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    assert suite.get("failures") == "0" and int(suite.get("tests")) == len(b.data["metrics"]) + 1


def test_check_fails_on_a_changed_rule(saved, app, tmp_path, monkeypatch, racedice):
    _, b = saved
    changed_rule(monkeypatch, racedice)
    rep = baseline.check([b.path], jobs=1)
    [r] = rep.results
    assert not rep.ok and not r.exact_ok and not r.variant_changed and r.status == "DRIFT"
    assert not r.stale  # the games changed, not the metric definitions
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
    last = max(b.data["sample"]["columns"]["game"])
    assert last < GAMES - 1
    changed_rule(monkeypatch, racedice, from_game=last + 1)
    assert baseline.check([b.path], statistical=False).ok  # only the sampled games are replayed
    rep = baseline.check([b.path], statistical=False, full=True)
    [r] = rep.results
    assert not rep.ok and "sampled games agree, another game differs" in r.exact_mismatches[0]


def test_a_rare_outcome_game_is_replayed(saved, monkeypatch, racedice):
    """The sample holds games beyond the first ones (rare outcomes, extremes): a change that
    only alters such a game is caught by the exact check."""
    _, b = saved
    extra = b.data["sample"]["columns"]["game"][120]
    cls = type(racedice)
    original = cls._play

    def play(self, rules, seats, index, run_seed, moves=None):
        if index == extra:
            rules = {**rules, "sides": rules["sides"] + 3}
        return original(self, rules, seats, index, run_seed, moves)

    monkeypatch.setattr(cls, "_play", play)
    [r] = baseline.check([b.path], statistical=False).results
    assert r.exact_differing == 1 and r.exact_mismatches[0].startswith(f"game {extra} ")


def test_only_the_statistical_check(saved, monkeypatch, racedice):
    _, b = saved
    assert baseline.check([b.path], exact=False, jobs=1, games=800, seed=99).ok
    changed_rule(monkeypatch, racedice)
    [r] = baseline.check([b.path], exact=False, jobs=1, games=800, seed=99).results
    assert r.exact_games == 0 and not r.stats_ok and r.fresh_games == 800
    p50 = r.stats.set_index("metric").loc["turns_p50"]
    assert "(pooled quantile)" in p50["note"]


def test_variant_file_edit_is_named(saved, monkeypatch):
    v, b = saved
    v.write_text(TEXT.replace("goal = 25", "goal = 27"))
    [r] = baseline.check([b.path], statistical=False).results
    assert r.variant_changed == ["rules.goal: 25 -> 27"]
    assert not r.ok and "the variant file changed" in r.summary()


def by_goal(df, right=True):
    """A game proportion whose saving code compared names with codes (always 0), as the Four
    flags "ends by holding flags" row once did; `right`: the mended definition."""
    k = int((df["end_reason"].astype(str) == "goal").sum()) if right else 0
    return [{"metric": "ends at the goal", "value": k / len(df), "successes": k, "n": len(df)},
            {"metric": "racedice_margin_mean", "value": float(df["racedice_margin"].mean())}]


def test_changed_metric_definition_is_stale_not_drift(variant_file, tmp_path, monkeypatch, racedice, app):
    v = variant_file("v.toml", TEXT)
    game_metrics(monkeypatch, racedice, lambda df: by_goal(df, right=False))
    [b] = baseline.save([str(v)], 3000, seed=1, out=tmp_path / "s.json", jobs=1)
    game_metrics(monkeypatch, racedice, by_goal)  # the code is mended; the games are the same
    [r] = baseline.check([b.path], jobs=1).results
    assert r.exact_ok and r.stats_ok and not r.ok and r.status == "STALE"
    assert len(r.stale) == 1 and r.stale[0].startswith("ends at the goal: metric definition changed")
    assert "0 of" in r.stale[0] and "then" in r.stale[0]
    row = r.stats.set_index("metric").loc["ends at the goal"]
    assert row["status"] == "definition changed" and not row["drifted"]
    res = CliRunner().invoke(app, ["check", str(b.path), "--jobs", "1"])
    assert res.exit_code == 1 and "STALE racedice/v" in res.output
    assert "1 of 1 baselines stale (re-save: hexsim baseline save --shipped)" in res.output
    assert "drifted" not in res.output.splitlines()[-1]
    # the games alone (a rules edit's gate): the definitions are not looked at
    assert baseline.check([b.path], statistical=False, definitions=False).ok
    # a metric the code now reports that the baseline does not hold: stale as well
    game_metrics(monkeypatch, racedice, lambda df: by_goal(df, right=False) + [
        {"metric": "new row", "value": 1.0}])
    [r] = baseline.check([b.path], statistical=False).results
    assert r.stale == ["new row: new metric, not in the baseline"]


def test_rare_metric_is_not_testable_not_drift(variant_file, tmp_path, monkeypatch, racedice):
    """Like Race's completed paths: a rate over a rare event, absent from a fresh run that holds
    no such event, is "not testable at this size", never "no longer produced"."""
    v = variant_file("v.toml", TEXT)

    def rows(df):
        long = df["turns"] >= 17  # a few games in thousands
        out = [{"metric": "racedice_margin_mean", "value": float(df["racedice_margin"].mean())}]
        if long.any():
            k = int((df.loc[long, "winner"] == 1).sum())
            out.append({"metric": "long games won by B", "value": k / int(long.sum()),
                        "successes": k, "n": int(long.sum())})
        return out

    game_metrics(monkeypatch, racedice, rows)
    [b] = baseline.save([str(v)], 3000, seed=1, out=tmp_path / "r.json", jobs=1)
    rare = {r["metric"]: r for r in b.data["metrics"]}["long games won by B"]
    assert 0 < rare["n"] < 30
    [r] = baseline.check([b.path], jobs=1, games=300).results
    assert r.ok, r.summary()
    row = r.stats.set_index("metric").loc["long games won by B"]
    assert row["status"] == "not testable" and "too few events" in row["note"]


def test_old_format_baseline_is_stale(saved, tmp_path):
    """A baseline saved by older code (format 1: no definitions, no design): its games are still
    replayed; the verdict is "re-save", not drift."""
    _, b = saved
    d = dict(b.data, hexsim_baseline=1)
    for k in ("design", "histograms", "definitions"):
        d.pop(k)
    d["metrics"] = [{k: v for k, v in r.items() if k not in ("definition", "test")} for r in d["metrics"]]
    d["sample"] = {"first_game": 0, "games": 120,
                   "columns": {c: v[:120] for c, v in d["sample"]["columns"].items()}}
    old = tmp_path / "old.json"
    old.write_text(json.dumps(d))
    [r] = baseline.check([old], jobs=1).results
    assert r.exact_ok and r.exact_games == 120 and r.stats is None
    assert r.status == "STALE" and "baseline format 1" in r.stale[0]


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
    for args, msg in ((["--jobs", "0"], "--jobs 0: must be at least 1"),
                      (["--false-drift", "2"], "--false-drift 2.0: must be in (0, 1)"),
                      (["--games", "0"], "--games 0: must be at least 1")):
        r = CliRunner().invoke(app, ["check", str(b.path), *args])
        assert r.exit_code == 2 and msg in r.output and "Traceback" not in r.output, r.output
    r = CliRunner().invoke(app, ["baseline", "save", str(v), "--jobs", "0"])
    assert r.exit_code == 2 and "--jobs 0" in r.output
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
    assert "racedice/w: 200 games" in r.output and "[1/1] racedice/w: 200 games in" in r.output
    d = baseline.read(tmp_path / "w.json").data
    assert d["games"] == 200 and d["sample"]["first_games"] == 50
    r = CliRunner().invoke(app, ["baseline", "save", str(v), "--shipped"])
    assert r.exit_code == 2
