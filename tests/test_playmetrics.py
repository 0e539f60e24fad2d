"""Ludii's play metrics over replayed games (sim/stats/playmetrics.py): the definitions on hand-made
games, the replay against the engine's own functions, and the variants that cannot replay."""

import math

import numpy as np

from sim import engine, games
from sim.runs.variants import load
from sim.stats import playmetrics
from sim.stats.playmetrics import game_measures
from sim.testing import seats_for

SCALE = 1.0


def logit(p):
    return math.log(p / (1 - p))


def values(rows):
    """Evaluations whose standings (logistic, scale 1) are exactly `rows`."""
    return np.array([[logit(p) for p in r] for r in rows])


def test_definitions_on_a_hand_made_game():
    # standings of seats 0 and 1 before each of 5 decisions; seat 1 wins
    st = [(0.6, 0.4), (0.7, 0.3), (0.45, 0.55), (0.8, 0.2), (0.1, 0.9)]
    legal = np.array([5, 1, 3, 2, 1])
    m = game_measures(legal, values(st), 1, SCALE)
    assert m["decisions"] == 5
    assert m["decision_moves"] == 3 / 5
    assert m["branching_factor"] == 12 / 5
    # leaders: 0, 0, 1, 0, 1: changes between consecutive decisions 3 of 4
    assert m["lead_change"] == 3 / 4
    # threshold = best standing of the loser (seat 0) anywhere: 0.8; the winner first exceeds it
    # at decision 4 (0-based), so 4 / 5 of the way in
    assert abs(m["decisiveness"] - 4 / 5) < 1e-12
    # drama: the winner's gap to the leader: 0.2, 0.4, 0, 0.6, 0 -> mean 0.24
    assert abs(m["drama"] - 0.24) < 1e-12


def test_a_winner_never_clear_of_the_threshold_and_a_draw():
    st = [(0.5, 0.5), (0.9, 0.1), (0.6, 0.4)]
    m = game_measures(np.array([2, 2, 2]), values(st), 1, SCALE)
    assert m["decisiveness"] == 1.0  # never above the loser's best, 0.9
    # a tie for the lead counts both seats as leaders: (both) -> (0) -> (0): one change of two
    assert m["lead_change"] == 1 / 2
    d = game_measures(np.array([2, 2, 2]), values(st), -1, SCALE)
    assert math.isnan(d["decisiveness"]) and math.isnan(d["drama"]) and d["lead_change"] == 1 / 2


def test_pie_rule_rows_are_not_decisions():
    st = [(0.6, 0.4), (0.6, 0.4), (0.3, 0.7)]
    legal = np.array([4, -1, 3])
    m = game_measures(legal, values(st), 1, SCALE)
    assert m["decisions"] == 2 and m["branching_factor"] == 3.5


def test_the_replay_measures_what_the_engine_functions_say():
    """replay_stats' legal counts and evaluations equal engine.moves_of / value_of along the
    traced game, and its result row is the game's (by seat)."""
    g = games.get("hexatile", "test")
    rules = g.resolve_rules({}, "test")
    seats = seats_for(g, rules, "greedy")
    for i in range(3):
        t, rec = g.engine_replay(rules, seats, i, 5)
        seed = np.uint64(engine.game_seed(np.uint64(5), np.int64(i)))
        legal, vals, res = engine.replay_stats(t, seed, np.int64(i), rec)
        pos, rng = engine.start(t, seed)
        for k, (_seat, move, state) in enumerate(rec):
            assert legal[k] == len(engine.moves_of(t, pos))
            assert np.allclose(vals[k], [engine.value_of(t, pos, s) for s in range(2)])
            rng[0] = np.int64(state).view(np.uint64)
            engine.play(t, pos, np.int64(move), rng)
        assert (res == engine.outcome(t, pos, False)).all()
        row = g.play_chunk(rules, seats, i, 1, 5)
        assert res[engine.WINNER] == row["winner"][0]


def test_play_metrics_of_a_variant_and_of_one_that_cannot_replay(coin_file):
    pm = playmetrics.play_metrics(load("hexatile/standard"), seed=1, games=30)
    assert len(pm.per_game) == 30 and not pm.note
    s = pm.summary.set_index("metric")
    assert s.loc["decision_moves", "value"] == 1.0  # every HEXATILE placement has a choice
    assert 30 < s.loc["branching_factor", "value"] < 200
    for m in ("lead_change", "decisiveness", "drama"):
        assert 0 <= s.loc[m, "low"] <= s.loc[m, "value"] <= s.loc[m, "high"] <= 1
    assert s.loc["drama", "games"] == int((pm.per_game["winner"] >= 0).sum())
    none = playmetrics.play_metrics(load(str(coin_file)), games=5)  # a game off the engine
    assert none.summary.empty and none.note == playmetrics.NOT_ON_ENGINE
