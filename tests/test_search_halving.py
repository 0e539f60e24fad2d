"""The search bot's sequential-halving root (`root = "halving"`, sim/engine/search.py `_halving_move`)
on the engine's fixture game, Hex: it plays greedy's move when the budget cannot tell moves apart,
compares the moves on the same worlds, plays the same games for any chunking, and is validated and
listed like the other parameters (its win-and-block test is tests/test_search.py's, over both
roots). Its strength in the real games is measured in docs/rules/<game>.md, not here."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine, games
from sim.engine import search
from sim.games.base import SeatBot
from tests.fixtures.hexgame import GAME
from tests.test_engine import position
from tests.test_search import PICTURE, decide, greedy, mcts
from tests.test_search_prior import GAME_SCRATCH, after_each_move, assert_seat_refused, opening_positions, rules_listing


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(GAME)


def halving(**kw) -> SeatBot:
    return mcts(root="halving", **kw)


def test_a_strong_prior_keeps_the_move_of_highest_p():
    """The bias prior * p / (playouts + 1) is above any reward gap (rewards lie in [0, 1]) while a
    candidate of the look's best (a cold softmax, policy_temp 0.001: p = 1 shared by the moves of
    the best evaluation) has few playouts: one of the best moves survives every round and is played. Without the look the
    search plays its own choice, not always that one."""
    same_with, same_without = [], []
    for t, pos, seat in opening_positions():
        moves, values = after_each_move(t, pos, seat)
        best = set(moves[values == values.max()].tolist())
        same_with.append(decide(t, pos, seat, halving(iterations=40, prior_depth=1, prior=60.0,
                                                      policy_temp=0.001)) in best)
        same_without.append(decide(t, pos, seat, halving(iterations=40, prior_depth=0)) in best)
    assert len(same_with) >= 3
    assert all(same_with), same_with
    assert not all(same_without), same_without


def test_the_root_looks_in_a_redrawn_world():
    """The halving root's look and its playouts are taken after sample_hidden: on the fixture
    (nothing hidden) the generator's first draws are the look's, so two searches from the same
    state agree, and a root with a winning move plays it at once (win_check)."""
    t, pos = position(PICTURE, to_move=0)
    assert decide(t, pos, 0, halving(iterations=2, prior_depth=1)) == 6
    assert decide(t, pos, 0, halving(iterations=2, prior_depth=0, win_check=1)) == 6


def test_the_moves_are_compared_on_the_same_worlds():
    """Common random numbers: after the search every surviving candidate has the same number of
    playouts, and two searches from the same generator state choose alike and leave the same
    per-candidate sums (the worlds are drawn from the game's generator, the candidates' playouts
    from each world's seed)."""
    t, pos = position(PICTURE, to_move=0)
    codes, par = engine.bot_arrays([halving(iterations=120, win_check=0)])
    scratch = GAME_SCRATCH(t)
    runs = []
    for _ in range(2):
        tree = search.new_tree(t, 121)
        _, rng = engine.start(t, np.uint64(5))
        move = search._halving_move(t, pos, 0, par[0], scratch, tree, 1, 1, rng)
        runs.append((move, tree.csum.copy(), tree.cn.copy()))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    k = len(engine.moves_of(t, pos))
    # the last round's two candidates were played equally often, and more than a first-round loser
    assert runs[0][2][0] == runs[0][2][1] > runs[0][2][k - 1] >= 1


def test_same_games_for_any_chunking():
    rules = GAME.resolve_rules({"size": 4}, "test")
    s = [halving(iterations=30, prior_depth=1), SeatBot(greedy().bot, {"defense": 1.0})]
    whole = GAME.play_chunk(rules, s, 0, 8, 9)
    parts = [GAME.play_chunk(rules, s, i, 2, 9) for i in range(0, 8, 2)]
    for key in ("winner", "turns"):
        np.testing.assert_array_equal(whole[key], np.concatenate([p[key] for p in parts]))


def test_parameter_row_and_validation(tmp_path):
    codes, par = engine.bot_arrays([halving(iterations=40)])
    assert par[0, search.P_ROOT] == search.ROOT_HALVING
    assert par[0, search.P_ROLL_CODE] == GAME.bot("greedy", "test").code
    codes, par = engine.bot_arrays([mcts(iterations=40)])
    assert par[0, search.P_ROOT] == search.ROOT_UCT
    assert_seat_refused(tmp_path, 'A = { bot = "mcts", root = "alphabeta" }', "root")


def test_rules_listing_names_the_root():
    assert "root=uct" in rules_listing()
