"""HEXFLOW Race greedy bot's bulk helpers against the plain ones they stand for, over positions
grown by random legal moves: _legal_set (all hand pairs of a hex at once) against _legal pair by
pair, _arrive4 (four maps at once) against _arrive map by map."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.hexflow import bot_kernel as BK
from sim.games.hexflow import kernel as K
from sim.games.hexflow.board import BOARD, CORNERS
from sim.games.hexflow.tiles import BLOCK, TILE_TYPES
from tests import hexflow_reference as R
from tests.test_hexflow import KernelBoard


def hand_pairs(kb, seat, hand):
    """The kernel's hand pairs (type, rotation) for `hand`, and their side masks."""
    hs = len(hand)
    h2 = np.full((2, hs), -1, np.int64)
    h2[seat] = hand
    pt, pr = np.zeros(hs * 6, np.int64), np.zeros(hs * 6, np.int64)
    n = K._hand_pairs(seat, h2, kb.t.n_orient, kb.t.rot_of, pt, pr)
    pe = np.array([kb.t.emask[pt[i], pr[i]] for i in range(n)], np.int64)
    return n, pt, pr, pe


def grow(kb, rng, moves):
    """Play up to `moves` random legal placements (both seats, random hands incl. Blocks)."""
    for i in range(moves):
        seat = i % 2
        hand = rng.integers(0, len(TILE_TYPES), 3)
        n, pt, pr, _ = hand_pairs(kb, seat, hand)
        legal = [(h, pt[k], pr[k]) for h in range(BOARD.size) for k in range(n)
                 if kb.legal(seat, h, pt[k], pr[k])]
        if not legal:
            return
        h, t, r = legal[int(rng.integers(len(legal)))]
        kb.place(seat, h, t, r)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 40),
       connected=st.booleans(), hand_size=st.integers(1, 6))
def test_legal_set_equals_legal_pair_by_pair(seed, moves, connected, hand_size):
    rng = np.random.default_rng(seed)
    kb = KernelBoard({"block_placement": "connected" if connected else "adjacent"})
    grow(kb, rng, moves)
    for seat in range(2):
        hand = rng.integers(0, len(TILE_TYPES), hand_size)
        hand[0] = BLOCK if rng.random() < 0.3 else hand[0]
        n, pt, pr, pe = hand_pairs(kb, seat, hand)
        for h in range(BOARD.size):
            bits = BK._legal_set(seat, h, n, pt, pe, kb.placed_any, kb.t.corners, kb.ttype,
                                kb.adj, kb.need, kb.block_connected)
            want = sum(1 << k for k in range(n) if kb.legal(seat, h, pt[k], pr[k]))
            assert bits == want, (seat, BOARD.names[h], moves)


@pytest.mark.parametrize("seed", range(6))
def test_arrive4_equals_arrive_for_each_map(seed):
    rng = np.random.default_rng(seed)
    kb = KernelBoard()
    nn = 2 * BOARD.size
    done, dq = np.zeros(nn, np.int64), np.zeros(nn * 12 + 4, np.int64)
    checked = 0
    for step in range(8):
        grow(kb, rng, 5)
        maps = np.zeros((4, nn), np.int64)
        for k, (q, c) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
            R._bfs(CORNERS[q, c], CORNERS[q, 1 - c], K.NO_HEX, kb.t.nbr, kb.ttype, kb.emask,
                   kb.netid, kb.netm, maps[k], done, dq, K.FULL)
        for h in range(BOARD.size):
            if kb.ttype[h] >= 0:
                continue
            arr = np.zeros((4, 6), np.int64)
            BK._arrive4(h, maps, kb.t.nbr, kb.ttype, kb.emask, kb.netid, arr)
            for k in range(4):
                one = np.zeros(6, np.int64)
                BK._arrive(h, maps[k], kb.t.nbr, kb.ttype, kb.emask, kb.netid, one)
                assert arr[k].tolist() == one.tolist(), (BOARD.names[h], k, step)
            checked += 1
    assert checked > 100


def reference_costs(kb, src, blocked):
    """Cost to every node from corner hex src, hex `blocked` removed: Dijkstra in plain Python
    over the rules' graph (a line runs on across a side into a placed line that fits there at
    cost 0, into an empty hex at cost 1)."""
    import heapq

    nbr, nn = kb.t.nbr, 2 * BOARD.size
    d = [K.INF] * nn
    if src == blocked:
        return d
    heap = []
    if kb.ttype[src] < 0:
        heap.append((1, src * 2))
    else:
        heap += [(0, src * 2 + j) for j in range(2) if kb.netm[src * 2 + j]]
    while heap:
        du, u = heapq.heappop(heap)
        if du >= d[u]:
            continue
        d[u] = du
        h = u // 2
        sides = range(6) if kb.ttype[h] < 0 else [s for s in range(6) if kb.netm[u] >> s & 1]
        for s in sides:
            n = int(nbr[h, s])
            if n < 0 or n == blocked:
                continue
            if kb.ttype[n] < 0:
                heapq.heappush(heap, (du + 1, n * 2))
            elif kb.emask[n] >> ((s + 3) % 6) & 1:
                heapq.heappush(heap, (du, n * 2 + int(kb.netid[n * 6 + (s + 3) % 6])))
    return d


@pytest.mark.parametrize("seed", range(4))
def test_link_table_search_equals_reference(seed):
    """_bfs_links over one _links table, from every corner with random hexes removed, gives
    every reachable node's cost of a plain Dijkstra; with `stop`, the cost to the other corner."""
    rng = np.random.default_rng(100 + seed)
    kb = KernelBoard()
    nn = 2 * BOARD.size
    d, done, dq = (np.zeros(nn, np.int64), np.zeros(nn, np.int64),
                   np.zeros(nn * 12 + 4, np.int64))
    lk = np.zeros(nn * 6, np.int64)
    for _ in range(6):
        grow(kb, rng, 7)
        R._links(kb.t.nbr, kb.ttype, kb.netid, kb.netm, kb.emask, lk)
        for q in range(2):
            for c in range(2):
                src, dst = CORNERS[q, c], CORNERS[q, 1 - c]
                for blocked in [-1, *rng.integers(0, BOARD.size, 3)]:
                    want = reference_costs(kb, src, blocked)
                    R._bfs_links(src, src, blocked, lk, kb.ttype, kb.netm, d, done, dq, K.FULL)
                    live = [u for u in range(nn) if kb.ttype[u // 2] >= 0 or u % 2 == 0]
                    assert [d[u] for u in live] == [want[u] for u in live]
                    goal = min(want[dst * 2 + j] for j in range(2)) if kb.ttype[dst] >= 0 \
                        else want[dst * 2]
                    if kb.ttype[dst] >= 0 and not kb.netm[dst * 2] | kb.netm[dst * 2 + 1]:
                        goal = K.INF
                    if blocked == dst:
                        goal = K.INF
                    got = R._bfs_links(src, dst, blocked, lk, kb.ttype, kb.netm, d, done, dq,
                                       K.STOP)
                    assert got == goal
