"""Hexa-Trex on the engine interface: what a seat may know (sample_hidden), copies sharing the
side-walk store, and the search bot (never reads hidden tiles, 3-4 players, shared checks)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy import stats

from sim import engine
from sim.engine import search
from sim.games.base import SeatBot
from sim.games.hexatrex import GAME
from sim.games.hexatrex import game as G
from sim.games.hexatrex import state as S
from tests.game_checks import check_game, seats_for


def mcts(**kw) -> SeatBot:
    b = GAME.bot("mcts", "test")
    return SeatBot(b, {**{p.name: p.default for p in b.params}, **kw})


def mid_game(rules, seed=5, decisions=20, bots="greedy"):
    """A position after `decisions` decisions of a traced game (its recorded generator states
    replayed), and the seat to move."""
    tr = GAME.play_traced(rules, seats_for(GAME, rules, bots), seed, 3)
    tb = G.tables(rules)
    pos, rng = engine.start(tb, np.uint64(engine.game_seed(np.uint64(3), np.int64(seed))))
    for _, move, state in tr.data["rec"][:decisions]:
        rng[0] = np.int64(state).view(np.uint64)
        engine.play(tb, pos, np.int64(move), rng)
    return tb, pos, int(engine.seat_to_move(tb, pos))


def public(pos, seat):
    """What `seat` sees: the table, the frontier, the counters and tallies, its own hand, which
    seats hold a tile, the tiles drawn so far."""
    top = int(pos.st[S.TOP])
    st = np.delete(np.asarray(pos.st), S.ID)  # a copy's own number in the work area
    return (np.asarray(pos.sym).tobytes(), np.asarray(pos.order).tobytes(), np.asarray(pos.front).tobytes(),
            st.tobytes(), np.asarray(pos.tally).tobytes(), np.asarray(pos.hist).tobytes(),
            int(pos.hand[seat]), tuple(np.asarray(pos.hand) >= 0), np.asarray(pos.pile[:top]).tobytes())


def unseen(pos, seat):
    top = int(pos.st[S.TOP])
    others = [int(h) for s, h in enumerate(pos.hand) if s != seat and h >= 0]
    return sorted(others + [int(x) for x in pos.pile[top:]])


@pytest.mark.parametrize("players", [2, 4])
def test_sample_hidden_redraws_only_what_the_seat_cannot_see(players):
    """Own hand and everything public unchanged, the unseen multiset unchanged, and each unseen
    tile lands in another seat's hand as often as its share of the unseen tiles (chi-square)."""
    rules = GAME.resolve_rules({"players": players}, "t")
    tb, pos, seat = mid_game(rules, decisions=30, bots="random")
    other = (seat + 1) % players
    base_public, base_unseen = public(pos, seat), unseen(pos, seat)
    got = Counter()
    rng = engine.start(tb, np.uint64(1))[1]
    n = 3000
    for _ in range(n):
        p = engine.copy_of(tb, pos)
        engine.redraw_hidden(tb, p, seat, rng)
        assert public(p, seat) == base_public
        assert unseen(p, seat) == base_unseen
        got[int(p.hand[other])] += 1
    want = Counter(base_unseen)
    kinds = sorted(want)
    observed = [got[k] for k in kinds]
    expected = [n * want[k] / len(base_unseen) for k in kinds]
    assert stats.chisquare(observed, expected).pvalue > 1e-4
    # the real position is never touched by its copies' redraws
    assert public(pos, seat) == base_public and unseen(pos, seat) == base_unseen


def scramble(tb, pos, seat, seed):
    """The same position to `seat`'s eyes in another consistent world: the other hands and the
    face-down pile pooled and dealt anew by numpy's generator."""
    p = engine.copy_of(tb, pos)
    hand, pile = np.asarray(p.hand), np.asarray(p.pile)
    top = int(p.st[S.TOP])
    slots = [s for s in range(len(hand)) if s != seat and hand[s] >= 0]
    pool = np.random.default_rng(seed).permutation(np.concatenate([hand[slots].astype(np.int8), pile[top:]]))
    hand[slots] = pool[:len(slots)]
    pile[top:] = pool[len(slots):]
    return p


@pytest.mark.parametrize("players, root", [(2, "halving"), (3, "halving"), (2, "uct")])
def test_search_decisions_never_depend_on_hidden_tiles(players, root):
    """Change the other hands and the draw order consistently with what the seat saw: every
    decision of the search bot is the same (the default halving root and the tree)."""
    rules = GAME.resolve_rules({"players": players}, "t")
    codes, par = engine.bot_arrays([mcts(iterations=40, root=root)])
    for decisions in (6, 25):
        tb, pos, seat = mid_game(rules, decisions=decisions)
        seen = set()
        for s in range(4):
            world = scramble(tb, pos, seat, s) if s else pos
            assert public(world, seat) == public(pos, seat) and unseen(world, seat) == unseen(pos, seat)
            seen.add(int(engine.bot_choice(tb, world, seat, codes[0], par[0], engine.start(tb, np.uint64(9))[1])))
        assert len(seen) == 1, seen


def test_copies_share_the_store_and_score_like_the_dfs_finder():
    """Two copies of one position played alternately (each takes the store back from the other:
    roll back or rebuild) score every move as the DFS finder does on its own tables."""
    rules = GAME.resolve_rules({}, "t")
    tb, pos, _ = mid_game(rules, decisions=20, bots="random")
    dfs = S.build_tables(rules, 0, allow_join=False)
    rng = engine.start(tb, np.uint64(2))[1]
    pick = np.random.default_rng(4)
    copies = [engine.copy_of(tb, pos), engine.copy_of(tb, pos)]
    moves: list[list[int]] = [[], []]
    for _ in range(25):
        for k, p in enumerate(copies):
            legal = engine.moves_of(tb, p)
            m = int(legal[pick.integers(len(legal))])
            moves[k].append(m)
            engine.play(tb, p, np.int64(m), rng)
    for k, p in enumerate(copies):
        q = engine.copy_of(dfs, pos)
        for m in moves[k]:
            engine.play(dfs, q, np.int64(m), rng)
        np.testing.assert_array_equal(p.tally, q.tally)
        np.testing.assert_array_equal(p.hist, q.hist)
    assert copies[0].tally.sum() > 0


def test_search_bot_is_offered_and_passes_the_shared_checks():
    bot = GAME.bot("mcts", "t")
    assert bot.code == search.BOT_MCTS
    check_game(GAME, {}, [mcts(iterations=12), "greedy"], n=2, traced=1)
    for players in (3, 4):
        rules = GAME.resolve_rules({"players": players}, "t")
        seats = [mcts(iterations=8)] + seats_for(GAME, rules, "greedy")[1:]
        cols = check_game(GAME, rules, seats, n=1, traced=1)
        assert (cols["turns"] == sum(rules["tile_counts"])).all()
