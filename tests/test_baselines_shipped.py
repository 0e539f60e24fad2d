"""The CI gate on the committed baselines (run by `make test`): every shipped variant has a
current baseline; each one's stored games re-play exactly, its metric definitions are today's,
and a small statistical check on fresh seeds (500 games against the baseline, Fisher's exact
test where counts are small) finds no drift. A baseline left stale by a change of the games or
of a metric's definition fails here; re-save with `hexsim baseline save --shipped`."""

import pytest

from sim import baseline, drift
from sim.variants import list_shipped

COMMITTED = baseline.find_baselines() if baseline.BASELINES_DIR.is_dir() else []


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


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(baseline.BASELINES_DIR)))
def test_shipped_baseline_holds(path):
    """Exact replay of every stored game, today's definitions, and the small statistical check."""
    rep = baseline.check([path], games=baseline.SMALL_CHECK, jobs=1)
    assert rep.ok, rep.summary()
    [r] = rep.results
    assert r.stats is not None and (r.stats["status"] == "ok").sum() >= 3
