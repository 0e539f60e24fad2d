"""What the search bot backs up and when it stops searching: a move that wins at once is played
(`win_check`), two seats are zero-sum at a rollout cut-off, and with three or more seats `backup`
is max-n (each seat its own evaluation) or paranoid (every other seat 1 minus the searching
seat's reward). On the engine's fixture game, Hex, and HEXFLOW's 3-player Tri-Board."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from sim import engine, games
from sim.engine import interface, search
from tests.fixtures.hexgame import GAME
from tests.test_engine import position
from tests.test_search import PICTURE, decide, mcts
from tests.test_search_prior import assert_seat_refused

VALUE = njit(lambda t, pos, seat: interface.evaluate(t, pos, seat))


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(GAME)


def logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.mark.parametrize("root", ["uct", "halving"])
def test_a_move_that_wins_at_once_is_played(root):
    """With win_check on, one iteration is enough to play the win (the root's look finds it);
    with it off, one iteration expands one move drawn uniformly, which is not the win for every
    generator."""
    t, pos = position(PICTURE, to_move=0)
    for seed in range(6):
        assert decide(t, pos, 0, mcts(iterations=2, root=root, win_check=1), seed=seed) == 6
    if root == "uct":
        off = {decide(t, pos, 0, mcts(iterations=1, win_check=0), seed=seed) for seed in range(6)}
        assert off != {6}, off


def score(t, pos, seat, paranoid, scale=2.0):
    tree = search.new_tree(t, 2)
    search._score(t, pos, False, scale, seat, paranoid, tree.res, tree.reward)
    return tree.reward.copy()


def test_two_seats_are_zero_sum_at_a_cut_off():
    """The cut-off reward of seat i is the logistic of (its evaluation less the other's) over
    2 eval_scale, the other's is 1 minus it, whichever seat searches (either backup)."""
    t, pos = position(PICTURE, to_move=1)
    e0, e1 = float(VALUE(t, pos, 0)), float(VALUE(t, pos, 1))
    assert e0 != -e1 or e0 != 0.0
    for seat in (0, 1):
        for paranoid in (False, True):
            r = score(t, pos, seat, paranoid)
            assert r[0] + r[1] == pytest.approx(1.0)
            assert r[0] == pytest.approx(logistic((e0 - e1) / 4.0))


def tri_position():
    game = games.get("hexflow")
    rules = game.resolve_rules({"mode": "tri"}, "test")
    greedy = game.bot("greedy", "test")
    from sim.games.base import SeatBot

    seats = [SeatBot(greedy, {p.name: p.default for p in greedy.params}) for _ in game.seat_names(rules)]
    t, rec = game.engine_replay(rules, seats, 1, 3)
    from sim.engine.rng import game_seed

    pos, rng = engine.start_at(t, np.uint64(game_seed(np.uint64(3), np.int64(1))), np.int64(1))
    for i in range(min(9, len(rec) - 1)):
        rng[0] = np.uint64(rec[i, 2])
        engine.play(t, pos, np.int64(rec[i, 1]), rng)
    return t, pos


def test_three_seats_back_up_max_n_or_paranoid():
    t, pos = tri_position()
    assert t.n_seats == 3
    e = np.array([float(VALUE(t, pos, i)) for i in range(3)])
    np.testing.assert_allclose(score(t, pos, 0, False), logistic(e / 2.0))
    for seat in range(3):
        r = score(t, pos, seat, True)
        others = [i for i in range(3) if i != seat]
        assert r[seat] == pytest.approx(logistic((e[seat] - e[others].mean()) / 4.0))
        for i in others:
            assert r[i] == pytest.approx(1.0 - r[seat])


def test_the_new_parameters_are_validated(tmp_path):
    codes, par = engine.bot_arrays([mcts(backup="paranoid", sees="all", win_check=0, policy_temp=2.5)])
    row = par[0]
    assert row[search.P_BACKUP] == search.BACKUP_PARANOID and row[search.P_SEES] == search.SEES_ALL
    assert row[search.P_WIN] == 0 and row[search.P_TEMP] == 2.5
    assert_seat_refused(tmp_path, 'A = { bot = "mcts", backup = "minimax" }', "backup")
    assert_seat_refused(tmp_path, 'A = { bot = "mcts", sees = "mine" }', "sees")
