"""The search bot's random rollout (sim/engine/search.py, `_rollout`) plays the game's own random bot,
the policy its random-vs-random games play, through the game's `rollout` (by default `bot_move`
per decision): the parameter row carries the random bot's code for every game that has one, the
fixture game (no random bot of its own) keeps the engine's uniform bot, and one search iteration
takes exactly the draws of a rollout by the random bot (not those of `uniform_move`)."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine, games
from sim.engine import search
from sim.engine.rng import below, game_seed
from sim.games.base import SeatBot
from tests.fixtures.hexgame import GAME as HEX
from tests.test_search import decide
from tests.test_search_prior import opening_positions


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(HEX)


def seat_of(bot, **kw) -> SeatBot:
    return SeatBot(bot, {**{p.name: p.default for p in bot.params}, **kw})


# every game and mode with a random bot of its own: (game, rule overrides, whether its draws differ
# from uniform_move's; Hexa-Trex's random bot draws one of the listed legal cells, as uniform_move)
MODES = [("hexflow", {}, True), ("hexflow", {"mode": "battle"}, True), ("hexflow", {"mode": "tri"}, True),
         ("hexflow", {"mode": "tri2p"}, True), ("hexatile", {}, True), ("hexatrex", {}, False)]


@pytest.mark.parametrize("name", ["hexflow", "hexatile", "hexatrex", "flags"])
def test_the_parameter_row_carries_the_games_random_bot(name):
    game = games.get(name)
    rand = game.bot("random", "test")
    _, par = engine.bot_arrays([seat_of(game.bot("mcts", "test"))])
    # Four flags' random bot is the engine's uniform one (code BOT_UNIFORM): the same either way
    assert par[0, search.P_RAND_CODE] == rand.code
    assert par[0, search.P_ROLL_CODE] == game.bot("greedy", "test").code
    greedy = game.bot("greedy", "test")
    assert par[0, search.P_RAND_PAR] == search.P_ROLL_PAR + len(greedy.params)
    assert list(par[0, search.P_ROLL_PAR:search.P_ROLL_PAR + len(greedy.params)]) == \
        [float(p.default) for p in greedy.params]


def test_without_a_random_bot_the_rollout_is_uniform():
    _, par = engine.bot_arrays([seat_of(HEX.bot("mcts", "test"))])
    assert par[0, search.P_RAND_CODE] == engine.BOT_UNIFORM
    # a random bot of the uniform code is the same as none
    assert search.mcts_bot(HEX.bot("greedy", "test"), random=HEX.bot("random", "test")).random_bot is None


def test_a_random_rollout_plays_the_bot_it_is_given():
    """Hex's search seated with greedy as its "random" bot: rollout = "random" then decides as
    rollout = "greedy" does, move for move (the same bot, parameters and draws), and the uniform
    rollout does not at every position."""
    greedy = HEX.bot("greedy", "test")
    as_random = search.mcts_bot(greedy, random=greedy)
    plain = HEX.bot("mcts", "test")
    same_as_greedy, same_as_uniform = [], []
    for t, pos, seat in opening_positions(n=5):
        by_random = decide(t, pos, seat, seat_of(as_random, iterations=60, rollout="random"))
        same_as_greedy.append(by_random == decide(t, pos, seat, seat_of(plain, iterations=60, rollout="greedy")))
        same_as_uniform.append(by_random == decide(t, pos, seat, seat_of(plain, iterations=60)))
    assert all(same_as_greedy), same_as_greedy
    assert not all(same_as_uniform), same_as_uniform


def first_position(game, rules, plies=3):
    """The tables and the position after `plies` greedy decisions of game 5 of run seed 2, and the
    seat to move there."""
    greedy = game.bot("greedy", "test")
    seats = [seat_of(greedy) for _ in game.seat_names(rules)]
    t, rec = game.engine_replay(rules, seats, 5, 2)
    pos, rng = engine.start_at(t, np.uint64(game_seed(np.uint64(2), np.int64(5))), np.int64(5))
    for i in range(plies):
        rng[0] = np.uint64(rec[i, 2])
        engine.play(t, pos, np.int64(rec[i, 1]), rng)
    return t, pos, int(engine.seat_to_move(t, pos))


def one_iteration_by_hand(t, pos, seat, code, rng):
    """What one search iteration draws, replayed through the engine functions: redraw what the
    seat cannot see, expand a root move drawn uniformly (no look, no win check), then play `code`'s bot to the
    end. Returns the generator after it."""
    world = engine.copy_of(t, pos)
    engine.redraw_hidden(t, world, seat, rng)
    moves = engine.moves_of(t, world)
    engine.play(t, world, np.int64(moves[below(rng, np.int64(len(moves)))]), rng)
    while (mover := int(engine.seat_to_move(t, world))) >= 0:
        engine.play(t, world, np.int64(engine.bot_choice(t, world, mover, code, np.zeros(1), rng)), rng)
    return rng


@pytest.mark.parametrize("name, overrides, differs", MODES)
def test_one_iteration_takes_the_random_bots_draws(name, overrides, differs):
    """The generator after a one-iteration search (random rollout to the end) is the one a rollout
    by the game's random bot leaves, and (where the two policies draw differently) not the one a
    uniform rollout would: every draw of the rollout is the random bot's."""
    game = games.get(name)
    rules = game.resolve_rules(overrides, "test")
    t, pos, seat = first_position(game, rules)
    codes, par = engine.bot_arrays([seat_of(game.bot("mcts", "test"), iterations=1, rollout="random",
                                            rollout_depth=0, prior_depth=0, prior=0.0, root="uct",
                                            win_check=0)])
    searched = np.array([77], np.uint64)
    engine.bot_choice(t, pos, seat, codes[0], par[0], searched)
    by_random = one_iteration_by_hand(t, pos, seat, game.bot("random", "test").code, np.array([77], np.uint64))
    by_uniform = one_iteration_by_hand(t, pos, seat, engine.BOT_UNIFORM, np.array([77], np.uint64))
    assert searched[0] == by_random[0]
    assert (by_uniform[0] != by_random[0]) == differs


def test_the_bench_times_playouts_at_positions_of_greedy_games():
    """`make bench`'s playout measure (never timed here, only its contract): positions where a
    seat is to move, spread over greedy games, and a rate over all their iterations."""
    from sim.perf import bench

    rules = HEX.resolve_rules({"size": 4}, "test")
    positions = bench.playout_positions(HEX, rules, 6)
    assert len(positions) == 6
    assert all(int(engine.seat_to_move(t, pos)) == seat >= 0 for t, pos, seat in positions)
    assert len({np.asarray(pos.board).tobytes() for _, pos, _ in positions}) == 6
    r = bench.playout_rate(HEX, rules, bench.mcts_seats(HEX, rules), 0.05, repeats=1)
    assert r["positions"] >= 4 and r["iterations"] == HEX.bot("mcts", "test").params[0].default
    assert r["playouts_per_second"] > 0
    # the random games timed in the same rounds (the fixture has a random bot): with one round the
    # headline is that round's ratio to 2 decimals; the listed ratio is already rounded to 3, so
    # rounding it again can land a step away (0.8654 -> 0.87, but 0.865 -> 0.86)
    assert len(r["paired_ratios"]) == 1 and r["over_random_games_paired"] > 0
    assert abs(r["over_random_games_paired"] - r["paired_ratios"][0]) <= 0.0055


def test_the_bench_counts_search_iterations_on_the_games_it_timed(monkeypatch):
    """`make bench`'s iterations/s of the search bot (never timed here, only its contract): the
    search seat's decisions are counted on the traces of exactly the games the timed chunks
    played (FIRST .. FIRST + n - 1 of run seed 1), and the rate is decisions x iterations over the
    chunks' time (their fastest call, as games/s)."""
    from sim.perf import bench

    rules = HEX.resolve_rules({"size": 4}, "test")
    s = bench.mcts_seats(HEX, rules)
    s[0] = seat_of(s[0].bot, iterations=4)
    traced = []
    play_traced = type(HEX).play_traced

    def spy(self, rules, seats, game_index, run_seed):
        traced.append((game_index, run_seed))
        return play_traced(self, rules, seats, game_index, run_seed)

    monkeypatch.setattr(type(HEX), "play_traced", spy)
    r = bench.mcts_rate(HEX, rules, s, 0.05, repeats=1)
    n = r["games"]
    assert traced == [(bench.FIRST + i, 1) for i in range(n)]
    # each game's first seat: its moves in the traces (the fixture records every move with its seat)
    mine = sum(sum(1 for m in play_traced(HEX, rules, s, bench.FIRST + i, 1).moves if m.get("seat") in (0, "A"))
               for i in range(n))
    assert r["mcts_decisions"] == mine > 0 and r["iterations"] == 4
    assert r["iterations_per_second"] == round(mine * 4 / r["seconds"], 1)


def test_the_bench_times_rollouts_alone_and_counts_their_decisions():
    """`make bench`'s rollouts alone (the playout without the search): a rate, and decisions per
    rollout and per whole random game; a game whose search rolls out by the engine's uniform bot
    (the fixture) gets none."""
    from sim.perf import bench

    game = games.get("hexatile")
    rules = game.resolve_rules({}, "test")
    positions = bench.playout_positions(game, rules, 4)
    r = bench.rollouts_alone(game, rules, bench.mcts_seats(game, rules)[0].bot, positions, 3, 1)
    assert r["rollouts_per_second"] > 0
    assert 0 < r["rollout_decisions"] and 0 < r["game_decisions"]
    hex_rules = HEX.resolve_rules({"size": 4}, "test")
    assert bench.rollouts_alone(HEX, hex_rules, HEX.bot("mcts", "test"), bench.playout_positions(HEX, hex_rules, 2),
                                3, 1) == {}
