"""HEXFLOW Race greedy bot's hex-set search (_sets + _bfs_sets) against the link-table search
(_links + _bfs_links) it replaced, over positions grown by random legal moves: the same cost to
every node (maps), the same cost to the other corner (with and without `stop`), around any
empty hex removed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.hexflow import GAME, race, race_bots
from sim.games.hexflow import bot_kernel as BK
from sim.games.hexflow import kernel as K
from sim.games.hexflow.board import BOARD, CORNERS
from tests import hexflow_reference as R
from tests.test_hexflow import KernelBoard
from tests.test_hexflow_greedy_sets import grow


def race_view(kb):
    """The KernelBoard's board as race.py's tables, a Position holding copies of its arrays (the
    hexes, networks and union-find) and the bots' scratch arrays, for race_bots._through_cut."""
    t = race.tables(GAME.resolve_rules({}, "test"))
    pos = race._blank_position(t)
    pos.hx[race.H_TTYPE] = kb.ttype
    pos.hx[race.H_EMASK] = kb.emask
    pos.netid[:] = kb.netid
    pos.nets[0] = kb.netm
    pos.nets[1] = kb.par
    return t, pos, race_bots.new_scratch(t).bots


def both_searches(kb, rng, n_blocked):
    """Every corner to every corner, with no hex and with random empty hexes removed: yields
    (old map, new map, old cost, new cost, old stop cost, new stop cost, what)."""
    nh, nn = BOARD.size, 2 * BOARD.size
    lk = np.zeros(nn * 6, np.int64)
    R._links(kb.t.nbr, kb.ttype, kb.netid, kb.netm, kb.emask, lk)
    g = np.full(K.sets_size(nh), -7, np.int64)  # garbage in: _sets must set what it reads
    BK._sets(kb.t.nbr, kb.ttype, kb.netm, kb.par.copy(), g)
    d1, d2 = np.zeros(nn, np.int64), np.zeros(nn, np.int64)
    done, dq = np.zeros(nn, np.int64), np.zeros(nn * 12 + 4, np.int64)
    empty = [h for h in range(nh) if kb.ttype[h] < 0]
    extra = list(rng.choice(empty, min(n_blocked, len(empty)), replace=False)) if empty else []
    for src in CORNERS.ravel():
        for dst in CORNERS.ravel():
            for blocked in [-1, *extra]:
                old = R._bfs_links(src, dst, blocked, lk, kb.ttype, kb.netm, d1, done, dq, K.FULL)
                new = BK._bfs_sets(src, dst, blocked, g, d2, K.FULL)
                old_s = R._bfs_links(src, dst, blocked, lk, kb.ttype, kb.netm, d1.copy(), done,
                                     dq, K.STOP)
                new_s = BK._bfs_sets(src, dst, blocked, g, np.zeros(nn, np.int64), K.STOP)
                yield d1, d2, old, new, old_s, new_s, (src, dst, blocked)


def check(kb, rng, n_blocked=3):
    n = 0
    for d1, d2, old, new, old_s, new_s, what in both_searches(kb, rng, n_blocked):
        assert list(d2) == list(d1), what
        assert new == old and new_s == old_s == old, what
        n += 1
    return n


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 50), connected=st.booleans())
def test_hex_set_search_equals_link_table_search(seed, moves, connected):
    rng = np.random.default_rng(seed)
    kb = KernelBoard({"block_placement": "connected" if connected else "adjacent"})
    grow(kb, rng, moves)
    assert check(kb, rng) > 0


@pytest.mark.parametrize("seed", range(3))
def test_hex_set_search_along_growing_games(seed):
    """Positions one move apart, up to a crowded board: the tables are rebuilt from scratch each
    time (garbage in), and path-halved union-find roots give the same components."""
    rng = np.random.default_rng(500 + seed)
    kb = KernelBoard()
    for _ in range(30):
        grow(kb, rng, 2)
        check(kb, rng, 2)
        for h in range(BOARD.size):  # compress some paths: roots stay, the tree changes
            if kb.ttype[h] >= 0:
                K._find(kb.par, h * 2)
        check(kb, rng, 1)


@pytest.mark.parametrize("seed", range(3))
def test_cut_arrivals_from_hex_sets_equal_link_table_ones(seed):
    """_through_cut with a one-line tile fills the arrivals around h from the hex sets: the same
    as _cut_arrivals' link-table searches, and so the same cost through the tile."""
    rng = np.random.default_rng(900 + seed)
    kb = KernelBoard()
    nh, nn = BOARD.size, 2 * BOARD.size
    sd, done, dq = np.zeros(nn, np.int64), np.zeros(nn, np.int64), np.zeros(nn * 12 + 4, np.int64)
    nm = kb.t.net_mask
    one_line = [(t, kb.t.rot_of[t, o]) for t in range(kb.t.n_orient.shape[0])
                for o in range(kb.t.n_orient[t])
                if nm[t, kb.t.rot_of[t, o], 1] == 0 and nm[t, kb.t.rot_of[t, o], 0] != 0]
    compared = 0
    for _ in range(8):
        grow(kb, rng, 4)
        rt, pos, sc = race_view(kb)
        BK._sets(kb.t.nbr, kb.ttype, kb.netm, kb.par, sc.g)
        empty = [h for h in range(nh) if kb.ttype[h] < 0]
        for h in rng.choice(empty, 6, replace=False):
            t, r = one_line[int(rng.integers(len(one_line)))]
            for q in range(2):
                c1, c2 = CORNERS[q]
                want = np.zeros((2, 6), np.int64)
                got = np.zeros((2, 6), np.int64)
                R._cut_arrivals(h, c1, c2, kb.t.nbr, kb.ttype, kb.emask, kb.netid, kb.netm, sd,
                                done, dq, want[0], want[1])
                cw = race_bots.CutWork(sc.g, sc.sd, sc.pn, sc.dq)
                cost = race_bots._through_cut(rt, pos, cw, h, t, r, c1, c2, False, got[0], got[1])
                assert (got == want).all(), (seed, BOARD.names[h], q)
                assert cost == BK._pair_through(nm[t, r, 0], want[0], want[1], h == c1, h == c2)
                compared += int((want < K.INF).sum())
    assert compared > 0


@pytest.mark.parametrize("seed", range(3))
def test_cost_through_an_x_cross_on_hex_sets_equals_link_table_search(seed):
    """_through_cut with an X-Cross (its lines joined into a copy of the union-find, the board
    restored) against _cost_with for every two-line tile and rotation on random empty hexes."""
    rng = np.random.default_rng(700 + seed)
    kb = KernelBoard()
    nh, nn = BOARD.size, 2 * BOARD.size
    d, done, dq = np.zeros(nn, np.int64), np.zeros(nn, np.int64), np.zeros(nn * 12 + 4, np.int64)
    a1, a2 = np.zeros(6, np.int64), np.zeros(6, np.int64)
    nm = kb.t.net_mask
    two_line = [(t, kb.t.rot_of[t, o]) for t in range(kb.t.n_orient.shape[0])
                for o in range(kb.t.n_orient[t]) if nm[t, kb.t.rot_of[t, o], 1] != 0]
    assert two_line
    tried = 0
    for _ in range(6):
        grow(kb, rng, 5)
        rt, pos, sc = race_view(kb)
        BK._sets(kb.t.nbr, kb.ttype, kb.netm, kb.par, sc.g)
        before = [np.array(a, copy=True) for a in (pos.hx, pos.netid, pos.nets)]
        near = [h for h in range(nh) if kb.ttype[h] < 0 and kb.adj[h] > 0]
        for h in rng.choice(near, min(6, len(near)), replace=False):
            for t, r in two_line:
                for q in range(2):
                    c1, c2 = CORNERS[q]
                    args = (h, t, r, c1, c2, kb.t.nbr, kb.t.net_mask, kb.t.emask, kb.ttype,
                            kb.emask, kb.netid, kb.netm)
                    want = R._cost_with(*args, d, done, dq)
                    cw = race_bots.CutWork(sc.g, sc.sd, sc.pn, sc.dq)
                    got = race_bots._through_cut(rt, pos, cw, h, t, r, c1, c2, False, a1, a2)
                    assert got == want, (seed, BOARD.names[h], t, r, q)
                    tried += 1
        after = (pos.hx, pos.netid, pos.nets)  # the position restored after every X-Cross tried
        assert all((x == y).all() for x, y in zip(before, after, strict=True))
    assert tried > 0


def test_race_board_fits_two_set_words():
    """_sets/_bfs_sets hold a hex set in two int64 words of SET_W bits (bit 63 stays clear so
    shifts never touch the sign): the board must fit, and the table size follows the layout."""
    assert BOARD.size <= 2 * K.SET_W and K.SET_W <= 63
    nh = BOARD.size
    assert K.sets_size(nh) == 2 * nh + 2 + (2 * nh + 1) + 2 * nh * 2 + 2 * nh + nh + 6 * nh + 2 * nh
