"""HEXFLOW Race: the blocked-player search (kernel._side_order, race._way, race._new_witness).

Which way a witness follows is free (a seat is cut off exactly when no way is left, whatever the
witnesses were), so _way only has to agree with a plain depth-first search (reach_oracle) on
whether a way exists and return a real way; the order table only steers it towards the goal.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from sim.engine.rng import new_state
from sim.games.hexflow import kernel as K
from sim.games.hexflow import race
from sim.games.hexflow.board import BOARD, CORNERS
from tests.test_hexflow import KernelBoard
from tests.test_hexflow_race_random import kernel_move

NH = BOARD.size
NN = 2 * NH


@njit(cache=True)
def reach_oracle(src, dst, nbr, ttype, emask, netid, netm, dist, seen, stamp, stack, pn, ps, cv, cd):
    """The oracle (the kernel's search before _way, kept here to check it). Can a line still run
    from corner hex src to corner hex dst (through empty hexes and placed lines that fit)?
    Depth-first, always trying the neighbour nearest to dst first. Returns the node reached on
    dst (-1: none); pn/ps hold the way back (parent node, side taken from it). seen/stamp: visit
    marks without clearing; cv, cd: int64[6] scratch."""
    stamp[0] += 1
    st = stamp[0]
    top = 0
    if ttype[src] < 0:
        stack[0] = src * 2
        top = 1
        seen[src * 2] = st
        pn[src * 2] = -1
    else:
        for j in range(2):
            if netm[src * 2 + j] != 0:
                stack[top] = src * 2 + j
                top += 1
                seen[src * 2 + j] = st
                pn[src * 2 + j] = -1
    while top > 0:
        top -= 1
        u = stack[top]
        h = u >> 1
        if h == dst:
            return u
        m = 63 if ttype[h] < 0 else netm[u]
        k = 0
        for s in range(6):
            if not (m >> s) & 1:
                continue
            n = nbr[h, s]
            if n < 0:
                continue
            if ttype[n] < 0:
                v = n * 2
            else:
                o = (s + 3) % 6
                if not (emask[n] >> o) & 1:
                    continue
                v = n * 2 + netid[n * 6 + o]
            if seen[v] == st:
                continue
            seen[v] = st
            pn[v] = u
            ps[v] = s
            # insert by distance to dst, farthest first (the nearest is pushed last)
            dv = dist[n, dst]
            i = k
            while i > 0 and cd[i - 1] < dv:
                cv[i] = cv[i - 1]
                cd[i] = cd[i - 1]
                i -= 1
            cv[i] = v
            cd[i] = dv
            k += 1
        for i in range(k):
            stack[top] = cv[i]
            top += 1
    return -1


def side_order(kb: KernelBoard) -> np.ndarray:
    order = np.zeros((2, NH * 6), np.int64)
    K._side_order(CORNERS, kb.t.nbr, kb.t.dist, order)
    return order


class Search:
    """The searches' work rows of the board's position (race.W_*), shared as in the kernel (one
    visit stamp)."""

    def __init__(self, kb):
        w = kb.p.work
        self.seen = w[race.W_SEEN, :NN]
        self.stamp = w[race.W_STAMP, :1]
        self.stack = w[race.W_STACK, :NN * 7]
        self.pn = w[race.W_PN, :NN]
        self.ps = w[race.W_PS, :NN]

    def way(self, kb, order, q):
        assert np.array_equal(order, kb.rt.order)  # the tables' side order steers race._way
        return race._way(kb.rt, kb.p, q)

    def reach(self, kb, q):
        return reach_oracle(CORNERS[q, 0], CORNERS[q, 1], kb.t.nbr, kb.ttype, kb.emask, kb.netid,
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
    for turn in range(turns):
        p = turn % 2
        hand = pick.integers(0, 11, size=(2, 3)).astype(np.int64)
        ok, mv = kernel_move(kb, p, hand, rng)
        if ok:
            kb.place(p, *mv)
    empty = np.flatnonzero(kb.ttype < 0)
    for h in pick.choice(empty, size=min(walls, len(empty)), replace=False):
        kb.ttype[h] = K.BLOCK  # a wall: no line crosses it
    return kb


# random positions: seed, turns of random-bot play, walls
POSITIONS = (st.integers(0, 2**32), st.integers(0, 60), st.integers(0, 30))


def searchable(seed: int, turns: int, walls: int) -> tuple[KernelBoard, np.ndarray, Search]:
    kb = random_position(seed, turns, walls)
    return kb, side_order(kb), Search(kb)


@settings(max_examples=60, deadline=None)
@given(*POSITIONS)
def test_way_finds_a_way_exactly_when_reach_does(seed, turns, walls):
    kb, order, srch = searchable(seed, turns, walls)
    for q in range(2):
        exists = srch.reach(kb, q) >= 0
        assert exists == (kb.cost(q) < K.INF)
        v = srch.way(kb, order, q)
        assert (v >= 0) == exists
        if v >= 0:
            check_way(kb, srch, q, v)


@settings(max_examples=40, deadline=None)
@given(*POSITIONS)
def test_new_witness_stores_the_sides_of_a_way_through_empty_hexes(seed, turns, walls):
    kb, order, srch = searchable(seed, turns, walls)
    wreq, wpath, wlen = kb.p.wit[0], kb.p.wit[1], kb.p.sq[race.Q_WLEN]
    wreq[:], wpath[:], wlen[:] = 0, 0, 0
    for q in range(2):
        # a stale witness first: the new one must replace it, not add to it
        stale = np.flatnonzero(kb.ttype < 0)[:3]
        wlen[q] = len(stale)
        wpath[q, :len(stale)] = stale
        wreq[q, stale] = 63
        found = race._new_witness(kb.rt, kb.p, q)
        assert found == (kb.cost(q) < K.INF)
        on = [int(h) for h in wpath[q, :wlen[q]]]
        assert sorted(on) == sorted(np.flatnonzero(wreq[q]))
        if not found:
            assert not on
            continue
        # the recorded sides are those of the way _way left in pn/ps
        nodes = check_way(kb, srch, q, srch.way(kb, order, q))
        expect = {}
        for i, v in enumerate(nodes):  # nodes run from the goal back to the start
            h = v >> 1
            if kb.ttype[h] >= 0:
                continue
            m = 0
            if i > 0:
                m |= 1 << srch.ps[nodes[i - 1]]
            if i + 1 < len(nodes):
                m |= 1 << (srch.ps[v] + 3) % 6
            expect[h] = m
        assert {h: int(wreq[q, h]) for h in on} == expect
        assert all(bin(m).count("1") == (1 if h in CORNERS[q] else 2) for h, m in expect.items())
