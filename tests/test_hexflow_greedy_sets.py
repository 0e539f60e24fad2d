"""HEXFLOW Race greedy bot's bulk helpers against the plain ones they stand for, over positions
grown by random legal moves: _legal_set (all hand pairs of a hex at once) against _legal pair by
pair, _arrive4 (four maps at once) against _arrive map by map."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.hexflow import kernel as K
from sim.games.hexflow.board import BOARD, CORNERS
from sim.games.hexflow.tiles import BLOCK, TILE_TYPES
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
            bits = K._legal_set(seat, h, n, pt, pe, kb.placed_any, kb.t.corners, kb.ttype,
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
            K._bfs(CORNERS[q, c], CORNERS[q, 1 - c], K.NO_HEX, kb.t.nbr, kb.ttype, kb.emask,
                   kb.netid, kb.netm, maps[k], done, dq, K.FULL)
        for h in range(BOARD.size):
            if kb.ttype[h] >= 0:
                continue
            arr = np.zeros((4, 6), np.int64)
            K._arrive4(h, maps, kb.t.nbr, kb.ttype, kb.emask, kb.netid, arr)
            for k in range(4):
                one = np.zeros(6, np.int64)
                K._arrive(h, maps[k], kb.t.nbr, kb.ttype, kb.emask, kb.netid, one)
                assert arr[k].tolist() == one.tolist(), (BOARD.names[h], k, step)
            checked += 1
    assert checked > 100
