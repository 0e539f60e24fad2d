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


def test_warm_compiles_the_search_each_mode_ships(monkeypatch):
    """Every game's warm-up seats the search bot, in every mode, with the parts of the search
    (`search.kit`) a seat resolved in that mode plays (its `bot_defaults`: tri2p's hybrid root is
    not tri's tree), so that a shipped search line-up never compiles during a run."""

    from sim import engine, games
    from sim.engine import search
    from sim.games.base import SeatBot

    def parts(seats, rules, n):
        codes, par = engine.bot_arrays(seats)
        return search.kit(None, codes, par, n)[search.KIT_UCT:]

    for name in games.available():
        g = games.get(name)
        if "mcts" not in {b.name for b in g.bots}:
            continue
        warmed = {}

        def record(self, rules, seats, *a, warmed=warmed):
            if any(s.bot.code == search.BOT_MCTS for s in seats):
                warmed.setdefault(rules.get("mode", ""), set()).add(parts(seats, rules, len(seats)))

        monkeypatch.setattr(type(g), "play_chunk", record)
        monkeypatch.setattr(type(g), "play_traced", record)
        monkeypatch.setattr(type(g), "verify_trace", lambda self, trace: None)
        g.warm()
        for _, overrides in g.modes():
            rules = g.resolve_rules(overrides, "test")
            mcts = g.bot("mcts", "test")
            shipped = SeatBot(mcts, g.bot_params(rules, mcts))
            n = len(g.seat_names(rules))
            greedy = g.bot("greedy", "test")
            others = [SeatBot(greedy, {p.name: p.default for p in greedy.params})] * (n - 1)
            assert parts([shipped] + others, rules, n) in warmed.get(rules.get("mode", ""), set()), \
                (name, overrides, warmed)


@pytest.mark.parametrize("spec", ["nim", "hex", "hexflow/race"])
def test_the_bare_loop_plays_the_runners_games(spec, tmp_path):
    """The bare loop the runner is measured against plays the same games (same rules, policy and
    draws): its sum of winners equals the run's, and the runner row names both timings."""
    import numpy as np

    from sim.perf.bare import bare_games, runner_against_bare
    from sim.runs.variants import load

    if spec in ("nim", "hex"):
        bench.bare_fixture(spec)
        path = tmp_path / f"{spec}.toml"
        path.write_text(f'game = "{spec}"\ndescription = "fixture"\n')
        spec = str(path)
    v = load(spec, {"seats.A": "random", "seats.B": "random"})
    seats = list(v.seats.values())
    cols = v.game.play_chunk(v.rules, seats, 0, 300, 1)
    t = v.game.tables(v.rules)
    from sim import engine

    par = engine.bot_arrays(seats)[1][0]
    by_rollout = engine.plays_by_rollout(type(t), seats[0].bot.code)
    assert bare_games(t, np.uint64(1), np.int64(0), np.int64(300), np.int64(seats[0].bot.code), par,
                      by_rollout) == cols["winner"].astype(np.int64).sum()
    # the row's contract only: a difference of two runs of a few hundred games is start-up noise
    # (the bench sizes its runs to seconds)
    row = runner_against_bare(v, 200, repeats=1)
    assert set(row) == {"variant", "bot", "games", "turns_per_game", "bare_us_per_game", "runner_us_per_game",
                        "runner_over_bare"}
    assert row["turns_per_game"] == round(float(cols["turns"][:200].mean()), 1)
    assert row["bare_us_per_game"] > 0 and row["games"] == 200 and row["bot"] == "random"


def test_openspiel_bench_times_the_fixtures_search_at_its_settings(monkeypatch):
    """hexsim's side of `make bench-openspiel` searches the Hex fixture with the bench's settings
    (OpenSpiel's side needs open_spiel, which only that target installs): every decision runs
    its iterations, and the positions after random stones are the fixture's own."""
    from sim.perf import openspiel

    res = openspiel.ours(size=5, iters=30, c=2.0, decisions=3, stones=4, seed=1)
    assert res["iterations"] == 90 and res["seconds"] > 0
    assert "RandomRolloutEvaluator(1" in openspiel.THEIRS and "hex(board_size=" in openspiel.THEIRS
