"""The CI gate on the committed baselines (run by `make test`): every shipped variant has a
current baseline; each one's stored games re-play exactly, its metric definitions are today's,
and a small statistical check on fresh seeds (500 games against the baseline, Fisher's exact
test where counts are small) finds no drift. A baseline left stale by a change of the games or
of a metric's definition fails here; re-save with `hexsim baseline save --shipped`."""

import pytest

from sim.runs.variants import list_shipped
from sim.stats import drift
from sim.workflows import baseline

COMMITTED = baseline.find_baselines(shipped=True) if baseline.BASELINES_DIR.is_dir() else []


def test_every_shipped_variant_has_a_current_baseline():
    found = {baseline.read(p).data["variant"]["name"]: baseline.read(p) for p in COMMITTED}
    assert sorted(found) == list_shipped()
    for name, b in found.items():
        d = b.data
        assert b.format == baseline.FORMAT, f"{name}: format {b.format}; re-save"
        des = d["design"]
        assert des["fresh_games"] == d["games"] and des["false_drift"] == drift.FALSE_DRIFT
        assert des["pass_unchanged_at_least"] >= 0.99
        assert des["power"] >= drift.POWER, f"{name}: power {des['power']} at {d['games']:,} games"


def test_committed_baselines_pass_together():
    """The joint pass probability the README describes, from the files that exist: one
    false-drift rate per committed baseline, summed (Bonferroni). At least 0.98 (49 or fewer
    baselines at 2e-4 would give 0.99; a larger set needs a smaller FALSE_DRIFT to keep it)."""
    count, prob = baseline.joint_pass()
    assert count == len(COMMITTED) > 0
    assert prob == pytest.approx(1 - count * drift.FALSE_DRIFT)
    assert prob >= 0.98, f"{count} baselines pass together with probability {prob:.4f}"


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(baseline.BASELINES_DIR)))
def test_shipped_baseline_holds(path):
    """Exact replay of every stored game, today's definitions, and the small statistical check."""
    rep = baseline.check([path], games=baseline.SMALL_CHECK, jobs=1)
    assert rep.ok, rep.summary()
    [r] = rep.results
    assert r.stats is not None and (r.stats["status"] == "ok").sum() >= 3


def _shipped(name: str):
    return baseline.BASELINES_DIR / f"{name}.json"


def test_race_rare_path_metrics_are_not_testable():
    """On a fresh clone the check once said "metric no longer produced" for Race: a run can
    hold no completed path (0.1-0.3% of games). Such a metric is "not testable" at this size."""
    [r] = baseline.check([_shipped("hexflow/race")], exact=False, definitions=False,
                         games=baseline.SMALL_CHECK, jobs=1).results
    assert r.ok, r.summary()
    st = r.stats.set_index("metric")
    for name in ("completed paths crossing a dot hex", "path completed", "end_path"):
        assert st.loc[name, "status"] == "not testable", name
    assert st.loc["winning path length (hexes), mean", "status"] == "not tested"


def test_four_flags_old_definition_is_stale_not_drift(monkeypatch):
    """On a fresh clone the check once said "ends by holding flags: baseline 0, now 1" for all
    Four flags baselines: the saving code compared end-reason names with integer codes (always
    0). With that old definition back, the check names the metric's definition, not drift."""
    from sim.games.flags import report

    mended = report.metrics

    def old(df, rules, end_reasons):
        rows = mended(df, rules, end_reasons)
        for r in rows:
            if r["metric"] == "ends by holding flags":
                r.update(value=0.0, successes=0)
        return rows

    monkeypatch.setattr(report, "metrics", old)
    [r] = baseline.check([_shipped("flags/standard")], exact=False, statistical=False).results
    assert r.status == "STALE" and len(r.stale) == 1
    assert r.stale[0].startswith("ends by holding flags: metric definition changed")
