"""Best-reply search (`backup = "brs"`, sim/engine/search.py `_brs_step`) on HEXFLOW's 3-player
Tri-Board: the other seats' turns between two of the searching seat's are one tree node whose
children are each opponent's moves (the others playing greedy's move), the rewards are paranoid,
the bot plays legal moves only and the same games for any chunking, and what the seat cannot see
does not move its decisions. Its strength is measured in docs/rules/hexflow.md, not here."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import engine, games
from sim.engine import search
from sim.games.base import SeatBot
from tests.game_checks import check_game
from tests.test_search_backup import tri_position
from tests.test_search_hidden import decide, positions, redrawn

SCRATCH = njit(lambda t: engine.new_scratch(t))
GAME = games.get("hexflow")
TRI = GAME.resolve_rules({"mode": "tri"}, "test")


def brs(**kw) -> SeatBot:
    b = GAME.bot("mcts", "test")
    return SeatBot(b, {**{p.name: p.default for p in b.params}, **GAME.bot_defaults(TRI, "mcts"),
                       "backup": "brs", **kw})


def searched(t, pos, seat, bot: SeatBot, seed=4):
    codes, par = engine.bot_arrays([bot])
    tree = search.new_tree(t, int(par[0, search.P_ITER]) + 1)
    _, rng = engine.start(t, np.uint64(seed))
    search._search(t, pos, seat, par[0], SCRATCH(t), tree, 1, rng)
    return tree, int(tree.size[0])


def test_the_other_seats_round_is_one_node_of_every_opponents_replies():
    """Below each of the searching seat's moves comes one level for the other two seats' turns:
    its children are (opponent r, move) coded r * max_moves + move, chosen by the seat that
    plays them, and both opponents' replies are searched; the level after it is the searching
    seat's own again."""
    t, pos = tri_position()
    seat = int(engine.seat_to_move(t, pos))
    tree, n = searched(t, pos, seat, brs(iterations=300))
    assert n == 301
    depth, parent, move, chooser = tree.depth[:n], tree.parent[:n], tree.move[:n], tree.seat[:n]
    m = int(t.max_moves)
    assert (chooser[depth == 1] == seat).all()
    replies = np.flatnonzero(depth == 2)
    assert len(replies) > 0
    assert (chooser[replies] != seat).all()
    assert set((move[replies] // m).tolist()) == {0, 1}  # both opponents' replies were searched
    first = {int(chooser[i]) for i in replies if move[i] // m == 0}
    second = {int(chooser[i]) for i in replies if move[i] // m == 1}
    assert len(first) == len(second) == 1 and first != second  # each slot is one opponent
    assert (chooser[depth == 3] == seat).all()
    assert (tree.parent[replies] > 0).all() and (depth[parent[replies]] == 1).all()


def test_brs_backs_up_paranoid_rewards():
    """Every node's value for each other seat is its visits less the searching seat's value."""
    t, pos = tri_position()
    seat = int(engine.seat_to_move(t, pos))
    tree, n = searched(t, pos, seat, brs(iterations=120))
    for other in range(3):
        if other != seat:
            np.testing.assert_allclose(tree.value[:n, other], tree.visits[:n] - tree.value[:n, seat])


def test_brs_plays_legal_games_the_same_for_any_chunking():
    seats = [brs(iterations=30), "greedy", "greedy"]
    check_game(GAME, {"mode": "tri"}, seats, n=4, traced=2)
    s = [brs(iterations=20)] + [SeatBot(GAME.bot("greedy", "test"), {}) for _ in range(2)]
    s[1].params = s[2].params = {p.name: p.default for p in GAME.bot("greedy", "test").params}
    whole = GAME.play_chunk(TRI, s, 0, 4, 9)
    parts = [GAME.play_chunk(TRI, s, i, 2, 9) for i in range(0, 4, 2)]
    for key in ("winner", "turns"):
        np.testing.assert_array_equal(whole[key], np.concatenate([p[key] for p in parts]))


def test_brs_decisions_never_change_with_what_the_seat_cannot_see():
    """Power first: at some position the decision moves with the search's own generator; then,
    for one generator, worlds redrawn for the seat (other hands, the bag's order) give the same
    decision at every position."""
    bot = brs(iterations=60)
    by_seed, by_world = [], []
    for t, pos, seat in positions(GAME, TRI):
        by_seed.append(len({decide(t, pos, seat, bot, s) for s in (1, 2, 3, 4)}) > 1)
        worlds = [pos] + [redrawn(t, pos, seat, s) for s in (11, 12, 13)]
        by_world.append(len({decide(t, w, seat, bot, 7) for w in worlds}) == 1)
    assert any(by_seed), by_seed
    assert all(by_world), by_world


def test_the_backup_parameter_offers_brs():
    codes, par = engine.bot_arrays([brs(iterations=10)])
    assert par[0, search.P_BACKUP] == search.BACKUP_BRS
