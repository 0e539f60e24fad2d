"""sim.perf.bench: the timing loop (never timed here, only its contract)."""

import pytest

from sim.perf import bench

pytestmark = pytest.mark.slow  # compiles and times the games (make test-fast leaves it out)


def test_rate_times_repeats_of_one_chunk_size(racedice):
    rules = racedice.resolve_rules({}, "t")
    r = bench.rate(racedice, rules, "random", 0.2, repeats=3)
    assert r["repeats"] == 3 and r["games"] >= 16
    assert r["games_per_second"] >= r["median_games_per_second"] > 0
    # seconds is rounded to ms: games / seconds agrees within that rounding
    assert r["games"] / (r["seconds"] + 0.0005) <= r["games_per_second"] <= r["games"] / (r["seconds"] - 0.0005)


def test_warm_parts_cover_every_mode_and_warm_one_part(monkeypatch):
    """`hexsim warm` and the bench compile a game part by part: the parts must cover every mode,
    and warming one part plays only that part's modes (tri2p comes with tri: same kernels)."""
    from sim import games

    for name in games.available():
        g = games.get(name)
        parts = [p for p, _ in g.warm_parts]
        assert len(set(parts)) == len(parts) and all(s > 0 for _, s in g.warm_parts)
    hexflow = games.get("hexflow")
    played = []
    monkeypatch.setattr(type(hexflow), "play_chunk", lambda self, rules, seats, *a: played.append(
        (rules["mode"], "+".join(sorted({s.bot.name for s in seats})))))
    hexflow.warm("battle")
    # the decision loop (mixed bots), the random games by rollout, greedy under the pie rule (the
    # drivers compiled with it), then the search bot's chunk
    assert played == [("battle", "greedy+random"), ("battle", "random"), ("battle", "greedy"), ("battle", "greedy+mcts")]
    played.clear()
    hexflow.warm("tri")
    # each Tri mode's two plain drivers, then the search bot's chunks of both
    assert played == [("tri", "greedy+random"), ("tri", "random"), ("tri2p", "greedy+random"),
                      ("tri2p", "random"), ("tri", "greedy+mcts"), ("tri2p", "greedy+mcts")]
    played.clear()
    hexflow.warm()
    # every mode's two plain drivers, then the engine path's search chunks
    # ... Race's and Battle's under the pie rule, and Race's with its costly bot, lookahead
    assert [m for m, _ in played] == ["race", "race", "race", "race", "battle", "battle", "battle", "tri", "tri",
                                      "tri2p", "tri2p", "race", "battle", "tri", "tri2p"]
    assert played[2] == ("race", "greedy") and played[3] == ("race", "greedy+lookahead")
