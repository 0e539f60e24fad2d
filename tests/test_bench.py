"""sim.bench: the timing loop (never timed here, only its contract)."""

from sim import bench


def test_rate_times_repeats_of_one_chunk_size(racedice):
    rules = racedice.resolve_rules({}, "t")
    r = bench.rate(racedice, rules, "random", 0.2, repeats=3)
    assert r["repeats"] == 3 and r["games"] >= 16
    assert r["games_per_second"] >= r["median_games_per_second"] > 0
    # seconds is rounded to ms: games / seconds agrees within that rounding
    assert r["games"] / (r["seconds"] + 0.0005) <= r["games_per_second"] <= r["games"] / (r["seconds"] - 0.0005)
