"""HEXFLOW Race: the random bot's move sampling.

_random_move draws without listing pairs or calling _hand_pairs / _candidates / _legal (numba's
reference counting of their array arguments cost more than the move); it must make exactly the
draws of the listing algorithm it replaced, checked turn by turn on positions grown by its moves.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.engine.rng import below, new_state
from sim.games.hexflow import kernel as K
from sim.games.hexflow import race_bots, race_random
from sim.games.hexflow.board import BOARD
from tests.test_hexflow import KernelBoard

NH = BOARD.size


def listed_move(kb: KernelBoard, p: int, hand: np.ndarray, rng) -> tuple[bool, tuple, bool]:
    """The listing algorithm in plain Python: every (type, rotation) of the hand via _hand_pairs,
    the hexes via _candidates, 24 rejection tries, then count and walk. Returns (found, move,
    whether the exact enumeration was needed)."""
    pt, pr = np.zeros(hand.shape[1] * 6, np.int64), np.zeros(hand.shape[1] * 6, np.int64)
    npairs = K._hand_pairs(p, hand, kb.t.n_orient, kb.t.rot_of, pt, pr)
    cands, ncand = K._candidates(p, kb.placed_any, kb.t.corners, kb.ttype, kb.front,
                                 np.int64(kb.nfront), np.zeros(NH, np.int64))
    if npairs == 0 or ncand == 0:
        return False, (), False
    for _ in range(24):
        i = below(rng, npairs)
        h = cands[below(rng, ncand)]
        if kb.legal(p, h, pt[i], pr[i]):
            return True, (h, pt[i], pr[i]), False
    legal = [(cands[c], pt[i], pr[i]) for c in range(ncand) for i in range(npairs)
             if kb.legal(p, cands[c], pt[i], pr[i])]
    if not legal:
        return False, (), True
    return True, legal[below(rng, len(legal))], True


def kernel_move(kb: KernelBoard, p: int, hand: np.ndarray, rng) -> tuple[bool, tuple]:
    """race_random._random_move on the board with this hand (any width: the position and the scratch
    take its size)."""
    hs = hand.shape[1]
    s = race_bots.new_scratch(kb.rt).bots
    s = s._replace(pt=np.zeros(hs * 6, np.int64), pr=np.zeros(hs * 6, np.int64))
    ok = race_random._random_move(kb.rt, kb.p._replace(hand=hand), s, np.int64(p), kb.front, np.int64(kb.nfront), rng)
    return ok, tuple(int(x) for x in s.mv) if ok else ()


def play_both(seed: int, hand_size: int, block_connected: bool) -> int:
    """Turn after turn, the kernel's move and the listing algorithm's from the same generator
    state: same move, same state after it. Returns how often the exact enumeration decided."""
    kb = KernelBoard({"block_placement": "connected" if block_connected else "adjacent"})
    pick = np.random.default_rng(seed)
    enumerated = 0
    for turn in range(60):
        p = turn % 2
        # hands with repeats and empty slots, as refills late in a game leave them
        hand = pick.integers(-1, 11, size=(2, hand_size)).astype(np.int64)
        r1 = new_state(np.uint64(seed * 131 + turn))
        r2 = new_state(np.uint64(seed * 131 + turn))
        ok1, mv1, full = listed_move(kb, p, hand, r1)
        ok2, mv2 = kernel_move(kb, p, hand, r2)
        assert (ok1, tuple(int(x) for x in mv1)) == (ok2, mv2), f"turn {turn}"
        assert r1[0] == r2[0], f"turn {turn}: different number of draws"
        enumerated += full
        if ok2:
            kb.place(p, *mv2)
    return enumerated


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 4), st.booleans())
def test_random_move_makes_the_listing_algorithms_draws(seed, hand_size, block_connected):
    """On the first tiles (corners only), the open middle game and crowded late positions."""
    play_both(seed, hand_size, block_connected)


def test_random_move_exact_enumeration_is_reached():
    """One-tile hands in crowded positions miss 24 times: the enumeration path is exercised."""
    assert sum(play_both(seed, 1, False) for seed in range(4)) > 0
