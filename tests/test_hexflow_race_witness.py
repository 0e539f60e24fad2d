"""HEXFLOW Race: the blocked-player search (_side_order, _way, _new_witnesses).

Which way a witness follows is free (a seat is cut off exactly when no way is left, whatever the
witnesses were), so _way only has to agree with _reach on whether a way exists and return a real
way; the order table only steers it towards the goal.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.hexflow import kernel as K
from sim.games.hexflow.board import BOARD, CORNERS
from sim.rng import new_state
from tests.test_hexflow import KernelBoard

NH = BOARD.size
NN = 2 * NH


def side_order(kb: KernelBoard) -> np.ndarray:
    order = np.zeros((2, NH * 6), np.int64)
    K._side_order(CORNERS, kb.t.nbr, kb.t.dist, order)
    return order


class Search:
    """Scratch arrays of the searches, shared as in the kernel (one visit stamp)."""

    def __init__(self):
        self.seen = np.zeros(NN, np.int64)
        self.stamp = np.zeros(1, np.int64)
        self.stack = np.zeros(NN * 7, np.int64)
        self.pn = np.zeros(NN, np.int64)
        self.ps = np.zeros(NN, np.int64)

    def way(self, kb, order, q):
        return K._way(q, CORNERS, order, kb.t.nbr, kb.ttype, kb.emask, kb.netid, kb.netm,
                      self.seen, self.stamp, self.stack, self.pn, self.ps)

    def reach(self, kb, q):
        return K._reach(CORNERS[q, 0], CORNERS[q, 1], kb.t.nbr, kb.ttype, kb.emask, kb.netid,
                        kb.netm, kb.t.dist, self.seen, self.stamp, self.stack, self.pn, self.ps,
                        np.zeros(6, np.int64), np.zeros(6, np.int64))


def carries(kb: KernelBoard, u: int, s: int) -> bool:
    """Can a line leave node u across side s (an empty hex: any side; a network: its own)?"""
    h = u >> 1
    return kb.ttype[h] < 0 or bool((kb.netm[u] >> s) & 1)


def check_way(kb: KernelBoard, srch: Search, q: int, v: int) -> list[int]:
    """Walk the way back from node v to seat q's first corner: every step crosses a side both
    nodes can carry a line on, to the neighbouring hex, and no Block lies on it. A node comes once
    (a hex may twice: both lines of a crossing tile). Returns the nodes."""
    assert v >> 1 == CORNERS[q, 1]
    nodes = []
    while True:
        h = v >> 1
        assert kb.ttype[h] != K.BLOCK
        assert kb.ttype[h] >= 0 or v == h * 2
        nodes.append(v)
        u = srch.pn[v]
        if u == -1:
            break
        s = srch.ps[v]
        assert kb.t.nbr[u >> 1, s] == h
        assert carries(kb, u, s) and carries(kb, v, (s + 3) % 6)
        v = u
    assert nodes[-1] >> 1 == CORNERS[q, 0]
    assert len(set(nodes)) == len(nodes)
    return nodes


def test_side_order_lists_the_neighbours_nearest_to_the_goal_last():
    kb = KernelBoard()
    order = side_order(kb)
    for q in range(2):
        goal = CORNERS[q, 1]
        for h in range(NH):
            row = list(order[q, h * 6:h * 6 + 6])
            sides = [s for s in row if s >= 0]
            assert row == sides + [-1] * (6 - len(sides))  # the -1s come last
            assert sorted(sides) == [s for s in range(6) if kb.t.nbr[h, s] >= 0]
            d = [kb.t.dist[kb.t.nbr[h, s], goal] for s in sides]
            assert d == sorted(d, reverse=True)


def random_position(seed: int, turns: int, walls: int) -> KernelBoard:
    """Random-bot placements for both seats, then `walls` random empty hexes made Blocks."""
    kb = KernelBoard()
    rng = new_state(np.uint64(seed))
    pick = np.random.default_rng(seed)
    out = np.zeros(3, np.int64)
    for turn in range(turns):
        p = turn % 2
        hand = pick.integers(0, 11, size=(2, 3)).astype(np.int64)
        if K._random_move(p, rng, kb.block_connected, kb.t.corners, kb.t.n_orient, kb.t.rot_of,
                          kb.t.emask, kb.ttype, kb.adj, kb.need, kb.front, np.int64(kb.nfront),
                          kb.placed_any, hand, np.zeros(18, np.int64), np.zeros(18, np.int64),
                          np.zeros(NH, np.int64), out):
            kb.place(p, *(int(x) for x in out))
    empty = np.flatnonzero(kb.ttype < 0)
    for h in pick.choice(empty, size=min(walls, len(empty)), replace=False):
        kb.ttype[h] = K.BLOCK  # a wall that carries no line (as _new_witnesses lays them)
    return kb


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 60), st.integers(0, 30))
def test_way_finds_a_way_exactly_when_reach_does(seed, turns, walls):
    kb = random_position(seed, turns, walls)
    order = side_order(kb)
    srch = Search()
    for q in range(2):
        exists = srch.reach(kb, q) >= 0
        assert exists == (kb.cost(q) < K.INF)
        v = srch.way(kb, order, q)
        assert (v >= 0) == exists
        if v >= 0:
            check_way(kb, srch, q, v)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 60))
def test_new_witnesses_are_ways_and_the_second_avoids_the_first(seed, turns):
    kb = random_position(seed, turns, 0)
    order = side_order(kb)
    srch = Search()
    wit_in = np.full((2, 2, NH), -2, np.int64)
    wit_out = np.full((2, 2, NH), -2, np.int64)
    wpath = np.zeros((2, 2, NH), np.int64)
    wlen = np.zeros((2, 2), np.int64)
    wvalid = np.zeros((2, 2), np.int64)
    for q in range(2):
        before = kb.ttype.copy()
        dd = K._new_witnesses(q, CORNERS, order, kb.t.nbr, kb.ttype, kb.emask, kb.netid, kb.netm,
                              srch.seen, srch.stamp, srch.stack, srch.pn, srch.ps, wit_in, wit_out,
                              wpath, wlen, wvalid)
        assert np.array_equal(kb.ttype, before)  # the walls are taken down again
        assert (dd >= K.INF) == (kb.cost(q) >= K.INF)
        assert wvalid[q, 0] == (dd < K.INF)
        inner = [set(), set()]
        for k in range(2):
            if not wvalid[q, k]:
                continue
            on = set(int(h) for h in wpath[q, k, :wlen[q, k]])
            assert on == set(np.flatnonzero(wit_in[q, k] != -2))
            assert all(kb.ttype[h] < 0 for h in on)  # only empty hexes are recorded
            for h in on:
                if wit_in[q, k, h] >= 0 and wit_out[q, k, h] >= 0:
                    inner[k].add(h)
        assert not inner[0] & inner[1]
        # without a second way, every way runs through an inner hex of the first
        if wvalid[q, 0] and not wvalid[q, 1]:
            for h in inner[0]:
                kb.ttype[h] = K.BLOCK
            assert kb.cost(q) >= K.INF
            kb.ttype[:] = before
