"""The search bot's prior (`prior`, `prior_depth`, `policy_temp`), on the engine's fixture game,
Hex: a node within prior_depth looks one ply ahead and scores every legal move by a softmax of the
evaluation after it; the move of highest p is expanded first and kept among equal visits, the bias
neither swamps the search nor stops it from taking a win or a block, the parameters are validated
and listed, and the hash look-up of children plays the same games as a walk of the sibling list
would."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from sim import engine, games
from sim.engine import interface, search
from sim.games.base import SeatBot
from sim.runs.variants import VariantError
from tests.fixtures.hexgame import GAME
from tests.test_engine import position
from tests.test_search import PICTURE, decide, greedy, mcts

GAME_SCRATCH = njit(lambda t: engine.new_scratch(t))


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(GAME)


def opening_positions(n=6, plies=3, size=5):
    """Positions a few random moves into games of `size`, with the seat to move."""
    rules = GAME.resolve_rules({"size": size}, "test")
    t = GAME.tables(rules)
    out = []
    for seed in range(n):
        pos, rng = engine.start(t, np.uint64(100 + seed))
        for _ in range(plies + seed % 3):
            moves = engine.moves_of(t, pos)
            engine.play(t, pos, moves[seed * 7 % len(moves)], rng)
        out.append((t, pos, int(engine.seat_to_move(t, pos))))
    return out


VALUE = njit(lambda t, pos, seat: interface.evaluate(t, pos, seat))


def after_each_move(t, pos, seat):
    """The legal moves and the evaluation for `seat` after each (the fixture has no chance)."""
    moves = engine.moves_of(t, pos)
    values = []
    for m in moves:
        p = engine.copy_of(t, pos)
        engine.play(t, p, np.int64(m), np.array([1], np.uint64))
        values.append(float(VALUE(t, p, seat)))
    return moves, np.array(values)


def look(t, pos, seat, **kw):
    """The root's one-ply look as the search computes it: p of each legal move (legal order)."""
    codes, par = engine.bot_arrays([mcts(**kw)])
    tree = search.new_tree(t, 2)
    k = len(engine.moves_of(t, pos))
    tree.legal[:k] = engine.moves_of(t, pos)
    search._look(t, tree, pos, seat, k, par[0], GAME_SCRATCH(t), np.array([3], np.uint64))
    return tree.pbuf[:k].copy()


def test_the_look_is_a_softmax_of_the_evaluation_over_every_legal_move():
    for t, pos, seat in opening_positions(n=3):
        moves, values = after_each_move(t, pos, seat)
        for temp in (0.5, 2.0):
            p = look(t, pos, seat, policy_temp=temp)
            want = np.exp((values - values.max()) / temp)
            np.testing.assert_allclose(p, want / want.sum(), rtol=1e-9)
        # policy_temp 0: the temperature is eval_scale
        np.testing.assert_allclose(look(t, pos, seat, eval_scale=2.0), look(t, pos, seat, policy_temp=2.0))


def test_policy_greedy_gives_its_share_to_greedys_move():
    """p = (1 - w) softmax + w on greedy's move (the fixture's greedy plays a move of best
    evaluation, ties drawn)."""
    for t, pos, seat in opening_positions(n=3):
        moves, values = after_each_move(t, pos, seat)
        soft = look(t, pos, seat)
        extra = look(t, pos, seat, policy_greedy=0.25) - 0.75 * soft
        assert extra.sum() == pytest.approx(0.25) and np.count_nonzero(extra > 1e-12) == 1
        assert values[np.argmax(extra)] == values.max()


def test_one_iteration_with_a_root_look_plays_a_move_of_highest_p():
    """One iteration expands one root child: the move of highest p (the best evaluation after it),
    which is then the most visited. Without the look the one child is drawn uniformly, and over
    these positions it is not always a best one."""
    best_with, best_without = [], []
    for t, pos, seat in opening_positions():
        moves, values = after_each_move(t, pos, seat)
        best = set(moves[values == values.max()].tolist())
        best_with.append(decide(t, pos, seat, mcts(iterations=1, prior_depth=1)) in best)
        best_without.append(decide(t, pos, seat, mcts(iterations=1)) in best)
    assert all(best_with), best_with
    assert not all(best_without), best_without


def test_a_few_iterations_stay_on_the_move_of_highest_p():
    """Fewer iterations than moves: every visited child has one visit, and the root keeps a
    move of highest p among them (the tie rule), whatever the others' rewards."""
    for t, pos, seat in opening_positions():
        moves, values = after_each_move(t, pos, seat)
        assert len(moves) > 5
        best = set(moves[values == values.max()].tolist())
        assert decide(t, pos, seat, mcts(iterations=5, prior_depth=1, prior=0.0)) in best


def test_the_soft_prior_does_not_swamp_the_search():
    """A prior of 1 leans the search towards the look's favourites without dictating: over these
    positions the search at 400 iterations sometimes plays a move other than the look's best one
    (a one-hot bonus on greedy's move kept it there at almost every decision)."""
    with_prior = []
    for t, pos, seat in opening_positions(n=8):
        moves, values = after_each_move(t, pos, seat)
        best = set(moves[values == values.max()].tolist())
        with_prior.append(decide(t, pos, seat, mcts(iterations=400, prior_depth=1, prior=1.0)) in best)
    assert not all(with_prior), with_prior


@pytest.mark.parametrize("depth", [1, 3])
def test_the_prior_does_not_hide_a_win_or_a_block(depth):
    t, pos = position(PICTURE, to_move=0)
    assert decide(t, pos, 0, mcts(iterations=300, prior_depth=depth, prior=1.0)) == 6
    t, pos = position(PICTURE, to_move=1)
    assert decide(t, pos, 1, mcts(iterations=300, prior_depth=depth, prior=1.0)) == 6


def test_parameter_row_and_validation(tmp_path):
    codes, par = engine.bot_arrays([mcts(iterations=40, prior=0.5, prior_depth=2)])
    assert par[0, search.P_PRIOR] == 0.5 and par[0, search.P_PRIOR_DEPTH] == 2
    assert par[0, search.P_ROLL_CODE] == GAME.bot("greedy", "test").code
    # a game without a greedy bot still looks ahead (the look asks the game's evaluation)
    plain = search.mcts_bot(None)
    assert next(p for p in plain.params if p.name == "prior_depth").high > 0
    assert_seat_refused(tmp_path, 'A = { bot = "mcts", prior_depth = -1 }', "prior_depth")


def assert_seat_refused(tmp_path, seat_line: str, match: str) -> None:
    """A Hex variant whose seat A is `seat_line` is refused, naming `match`."""
    import sim

    v = tmp_path / "hex_seat.toml"
    v.write_text('game = "hex"\ndescription = "d"\n[rules]\nsize = 4\n'
                 f'[seats]\n{seat_line}\nB = "greedy"\n')
    with pytest.raises(VariantError, match=match):
        sim.load_variant(str(v))


def rules_listing(game: str = "hex") -> str:
    """What `hexsim rules GAME` prints (it must succeed)."""
    from typer.testing import CliRunner

    from sim.cli import app

    res = CliRunner().invoke(app, ["rules", game])
    assert res.exit_code == 0, res.output
    return res.output


def test_rules_listing_names_the_prior():
    out = rules_listing()
    assert "prior_depth=0" in out and "softmax" in out and "policy_temp" in out


def test_bot_text_says_what_each_games_prior_defaults_do():
    """prior_depth = 0 looks nowhere; games that look at the root say so."""
    from sim import games
    from sim.engine.search import prior_doc

    def doc(game: str) -> str:
        return next(b.doc for b in games.get(game, "t").bots if b.name == "mcts")

    for game in ("hexatile", "flags", "hexatrex", "hexflow"):
        assert "look one ply ahead" in doc(game) or "looks one ply ahead" in doc(game) or "no node looks ahead" in doc(game), game
    assert "halving root looks one ply ahead" in doc("hexatrex")
    assert "In tri2p, by default the hybrid root halves its moves" in doc("hexflow")
    assert "first 2 levels look one ply ahead" in doc("hexflow")
    assert "1 + 0.3 * sqrt(visits)" in doc("hexflow")
    assert "first 2 levels" in prior_doc({"prior_depth": 2, "prior": 0.0, "root": "uct", "eval_scale": 1.0})
    assert "no bias" in prior_doc({"prior_depth": 2, "prior": 0.0, "root": "uct", "eval_scale": 1.0})
    assert "no node looks ahead" in prior_doc({"prior_depth": 0, "prior": 0.0, "root": "uct", "eval_scale": 1.0})


def test_same_games_for_any_chunking_with_the_prior():
    rules = GAME.resolve_rules({"size": 4}, "test")
    s = [mcts(iterations=30, prior_depth=2, prior=0.5), SeatBot(greedy().bot, {"defense": 1.0})]
    whole = GAME.play_chunk(rules, s, 0, 8, 9)
    parts = [GAME.play_chunk(rules, s, i, 2, 9) for i in range(0, 8, 2)]
    for key in ("winner", "turns"):
        np.testing.assert_array_equal(whole[key], np.concatenate([p[key] for p in parts]))


def test_the_hash_finds_every_child_of_the_tree():
    """After a search, each node is found from its parent and move, and no move a node has not
    expanded is (the hash table that replaced walking the sibling lists)."""
    t, pos = position(PICTURE, to_move=0)
    codes, par = engine.bot_arrays([mcts(iterations=200, prior_depth=2, prior=0.5, win_check=0)])
    tree = search.new_tree(t, 201)
    _, rng = engine.start(t, np.uint64(4))
    scratch = GAME_SCRATCH(t)
    search._search(t, pos, 0, par[0], scratch, tree, 1, rng)
    n = int(tree.size[0])
    assert 10 < n <= 201  # an iteration that reaches the end of the game adds no node

    def child(node, move):
        return search._child(tree.hnode, tree.hmove, tree.hchild, node, move)

    for i in range(1, n):
        assert child(int(tree.parent[i]), int(tree.move[i])) == i
    for node in range(n):
        kids = set()
        ch = tree.child[node]
        while ch >= 0:
            kids.add(int(tree.move[ch]))
            ch = tree.sibling[ch]
        for m in range(25):
            if m not in kids:
                assert child(node, m) == -1


def test_a_reused_tree_searches_as_a_new_one():
    """A search empties only the hash slots the last search took (not the whole table): on a
    tree that searched another position first it builds the same tree as on a new tree, and the
    table holds its own entries alone."""
    t, pos = position(PICTURE, to_move=0)
    codes, par = engine.bot_arrays([mcts(iterations=120, prior_depth=2, prior=0.5)])
    scratch = GAME_SCRATCH(t)
    used = search.new_tree(t, 121)
    other = engine.copy_of(t, pos)
    engine.play(t, other, np.int64(engine.moves_of(t, other)[3]), np.zeros(1, np.uint64))
    search._search(t, other, 1, par[0], scratch, used, 1, np.array([9], np.uint64))
    trees = [used, search.new_tree(t, 121)]
    for tree in trees:
        search._search(t, pos, 0, par[0], scratch, tree, 1, np.array([5], np.uint64))
    n = int(trees[1].size[0])
    assert int(trees[0].size[0]) == n
    for field in ("move", "parent", "visits", "value", "policy"):
        np.testing.assert_array_equal(getattr(trees[0], field)[:n], getattr(trees[1], field)[:n])
    for tree in trees:
        assert int((tree.hnode >= 0).sum()) == int(tree.hused[0])


def test_the_hash_table_is_sized_for_the_looks_the_search_can_make():
    """Only the root looks where prior_depth <= 1, so the table holds one look of max_moves
    entries (at half load); deeper looks keep room for LOOK_NODES - 1 more of up to LOOK_MOVES."""
    t, _ = position(PICTURE, to_move=0)
    for depth, looks in ((0, 1), (1, 1), (2, search.LOOK_NODES)):
        codes, par = engine.bot_arrays([mcts(iterations=100, prior_depth=depth)])
        assert search.tree_looks(codes, par) == looks
        h = search.new_tree(t, search.tree_nodes(codes, par), looks).hnode.shape[0]
        m = int(t.max_moves)
        need = 2 * (101 + m + min(m, search.LOOK_MOVES) * (looks - 1))
        assert need <= h < 2 * need
