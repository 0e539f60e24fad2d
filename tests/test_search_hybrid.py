"""The search bot's hybrid root (`root = "hybrid"`: sequential halving at the root, a UCT tree below
each candidate; sim/engine/search.py `_halving_move`) and progressive widening (`widening`), on
the engine's fixture game, Hex: every playout of a candidate past `tree_after` goes down its tree,
the tree stays within its nodes, widening keeps a looking node's children to what its visits
allow, and games are the same for any chunking. The win-and-block test over every root is
tests/test_search.py's; strength is measured in docs/rules/<game>.md, not here."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine, games
from sim.engine import search
from sim.games.base import SeatBot
from tests.fixtures.hexgame import GAME
from tests.test_engine import position
from tests.test_search import PICTURE, decide, greedy, mcts
from tests.test_search_prior import GAME_SCRATCH, assert_seat_refused, opening_positions


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(GAME)


def hybrid(**kw) -> SeatBot:
    return mcts(root="hybrid", win_check=0, **kw)


def searched(t, pos, seat, bot: SeatBot, nodes: int, seed=5):
    """The move of one hybrid search and the tree it leaves."""
    codes, par = engine.bot_arrays([bot])
    tree = search.new_tree(t, nodes)
    _, rng = engine.start(t, np.uint64(seed))
    move = search._halving_move(t, pos, seat, par[0], GAME_SCRATCH(t), tree, 1, 1, rng)
    return int(move), tree


def candidate_visits(tree, k):
    """Each root candidate's node visits (0 where it has no node), in tree.cand's order."""
    out = []
    for i in range(k):
        ch = search._child(tree.hnode, tree.hmove, tree.hchild, 0, tree.cand[i])
        out.append(tree.visits[ch] if ch >= 0 else 0.0)
    return np.array(out)


@pytest.mark.parametrize("tree_after", [0, 3])
def test_playouts_past_tree_after_go_down_the_candidates_tree(tree_after):
    """Every playout a candidate gets once it has had `tree_after` goes through its node, so the
    node's visits are its playouts less tree_after; the tree grows below the candidates (nodes at
    depth 2 and more), and the root itself is never a candidate's parent's statistics only."""
    for t, pos, seat in opening_positions(n=3):
        k = len(engine.moves_of(t, pos))
        move, tree = searched(t, pos, seat, hybrid(iterations=200, tree_after=tree_after), 201)
        assert move in engine.moves_of(t, pos)
        cn = tree.cn[:k]
        np.testing.assert_array_equal(candidate_visits(tree, k), np.maximum(cn - tree_after, 0.0))
        size = int(tree.size[0])
        assert size <= 201
        assert (tree.depth[:size] >= 2).sum() > 0
        assert tree.cand[0] == move


def test_halving_is_the_hybrid_with_no_tree():
    """With tree_after above any candidate's playouts the hybrid plays halving's playouts exactly:
    the same move and the same per-candidate sums from the same generator state."""
    t, pos, seat = opening_positions(n=1)[0]
    k = len(engine.moves_of(t, pos))
    move, tree = searched(t, pos, seat, hybrid(iterations=120, tree_after=10_000), 121)
    codes, par = engine.bot_arrays([mcts(root="halving", win_check=0, iterations=120)])
    other = search.new_tree(t, 121)
    _, rng = engine.start(t, np.uint64(5))
    assert search._halving_move(t, pos, seat, par[0], GAME_SCRATCH(t), other, 1, 1, rng) == move
    np.testing.assert_array_equal(tree.csum[:k], other.csum[:k])
    assert int(tree.size[0]) == 1  # the root alone


def test_a_full_tree_still_plays_every_playout():
    """A tree of 6 nodes holds the root and 5 more; the other playouts roll out from the
    candidate, and the search still counts every playout and plays a legal move."""
    t, pos, seat = opening_positions(n=1)[0]
    k = len(engine.moves_of(t, pos))
    move, tree = searched(t, pos, seat, hybrid(iterations=100), 6)
    assert move in engine.moves_of(t, pos)
    assert int(tree.size[0]) == 6
    assert tree.cn[:k].sum() >= 100 - k


def test_widening_keeps_a_looking_node_to_what_its_visits_allow():
    """At the root (it looks: prior_depth 1) a new move is expanded only while the children are
    fewer than 1 + widening * sqrt(visits): with widening 0.5 over 200 iterations that is at most
    1 + 0.5 * sqrt(200) + 1 children of 20-odd moves; without widening every move is expanded."""
    for t, pos, seat in opening_positions(n=3):
        k = len(engine.moves_of(t, pos))
        counts = {}
        for w in (0.0, 0.5):
            codes, par = engine.bot_arrays([mcts(iterations=200, prior_depth=1, widening=w, win_check=0)])
            tree = search.new_tree(t, 201)
            _, rng = engine.start(t, np.uint64(5))
            search.mcts_move(t, pos, seat, par[0], GAME_SCRATCH(t), search.kit(tree), rng)
            size = int(tree.size[0])
            counts[w] = int((tree.parent[1:size] == 0).sum())
            if w > 0:
                assert counts[w] <= 2 + w * np.sqrt(tree.visits[0])
        assert counts[0.0] == k > counts[0.5] >= 2


def test_same_games_for_any_chunking():
    rules = GAME.resolve_rules({"size": 4}, "test")
    s = [hybrid(iterations=40, prior_depth=2, widening=0.5, tree_after=2), SeatBot(greedy().bot, {"defense": 1.0})]
    whole = GAME.play_chunk(rules, s, 0, 8, 9)
    parts = [GAME.play_chunk(rules, s, i, 2, 9) for i in range(0, 8, 2)]
    for key in ("winner", "turns"):
        np.testing.assert_array_equal(whole[key], np.concatenate([p[key] for p in parts]))


def test_takes_the_win_with_the_win_check():
    t, pos = position(PICTURE, to_move=0)
    assert decide(t, pos, 0, mcts(root="hybrid", iterations=100)) == 6


def test_parameter_row_and_validation(tmp_path):
    codes, par = engine.bot_arrays([hybrid(iterations=40, widening=0.25, tree_after=7)])
    assert par[0, search.P_ROOT] == search.ROOT_HYBRID
    assert par[0, search.P_WIDEN] == 0.25 and par[0, search.P_TREE_AFTER] == 7
    assert par[0, search.P_ROLL_CODE] == GAME.bot("greedy", "test").code
    assert_seat_refused(tmp_path, 'A = { bot = "mcts", widening = -1 }', "widening")
