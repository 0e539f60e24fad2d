"""HEXFLOW Race's random bot and the move lists the bots start from: the hexes a seat may try
(`_frontier`), a move drawn uniformly from the engine's legal_moves (`_uniform_legal`, the bots'
first tile under first_tile = "onto_board"), and the random bot (`_random_bot` over
`_random_move`). race_bots.py's `bot_move` and `rollout` call them.
"""

from __future__ import annotations

from sim import engine
from sim.engine.jit import hot, hot_inline
from sim.engine.rng import below

from . import kernel as K
from .race import H_ADJ, H_FRONT, H_NEED, H_TTYPE, NFRONT, Q_PLACED, _reserved, encode


@hot
def _frontier(t, pos, seat, s):
    """The hexes `seat` may try after its first tile: the frontier itself, or with
    opponent_corners = "reserved" a copy of it in scratch without the hexes `_reserved` bars (the
    bots then never consider them). Returns (array, count)."""
    if not t.reserve_corners:
        return pos.hx[H_FRONT], pos.st[NFRONT]
    n = 0
    for i in range(pos.st[NFRONT]):
        h = pos.hx[H_FRONT][i]
        if not _reserved(t, seat, h):
            s.front[n] = h
            n += 1
    return s.front, n


@hot
def _uniform_legal(t, pos, s, rng):
    """A legal move drawn uniformly from legal_moves (one draw): the bots' first tile under
    first_tile = "onto_board", which kernel's bots do not know. Through the engine's legal_moves,
    which the drivers' uniform bot compiles too (a direct call compiled this function's own copy
    of it: 1.2 s of a first greedy run)."""
    k = engine.legal_moves(t, pos, s.moves)
    return s.moves[below(rng, k)]


@hot
def _random_move(t, pos, s, p, front, nfront, rng):
    """The random bot's move for seat p into s.mv (hex, type, rotation), uniform over legal
    (hex, type, rotation) with the hexes front[:nfront] after p's first tile: rejection
    sampling, then exact enumeration. False if there is none.

    The same draws as over kernel._hand_pairs' list (pair i: distinct hand types in hand order,
    each with its n_orient rotations) and kernel._candidates' hexes, without calling either and
    with one exit (see kernel._fits). s.pt[:nt] holds the distinct types, s.pr[:nt] the list
    index of each one's first rotation; s.cand the empty corners before the seat's first tile."""
    hand = pos.hand
    ttype = pos.hx[H_TTYPE]
    adj = pos.hx[H_ADJ]
    need = pos.hx[H_NEED]
    n_orient = t.n_orient
    corners = t.corners
    pt = s.pt
    pr = s.pr
    cand = s.cand
    out = s.mv
    nt = 0
    npairs = 0
    for k in range(hand.shape[1]):
        tile = hand[p, k]
        fresh = tile >= 0
        for k2 in range(k):
            if hand[p, k2] == tile:
                fresh = False
        if fresh:
            pt[nt] = tile
            pr[nt] = npairs
            nt += 1
            npairs += n_orient[tile]
    first = pos.sq[Q_PLACED, p] == 0
    ncand = nfront
    if first:
        ncand = 0
        for k in range(2):
            if ttype[corners[p, k]] < 0:
                cand[ncand] = corners[p, k]
                ncand += 1
    c0 = corners[p, 0]
    c1 = corners[p, 1]
    # 24 tries of a uniform (pair, hex); if all miss, one sweep over every (hex, pair) in the
    # list's order counts the legal ones and a second walks to a uniformly drawn one. One flat
    # loop per sweep, left by its condition: nested loops or a break here defeat the pruning.
    found = False
    count = 0
    k = -1
    for sweep in range(3 if npairs > 0 and ncand > 0 else 0):
        if sweep == 2:
            k = below(rng, count) if count > 0 else -1
        nx = 24 if sweep == 0 else ncand * npairs
        x = 0
        while x < nx and not found:
            if sweep == 0:
                i = below(rng, npairs)
                c = below(rng, ncand)
            else:
                i = x % npairs
                c = x // npairs
            h = cand[c] if first else front[c]
            tt = -1
            r = -1
            for j in range(nt):
                if pr[j] <= i < pr[j] + n_orient[pt[j]]:
                    tt = pt[j]
                    r = t.rot_of[tt, i - pr[j]]
            if K._fits(ttype[h] < 0, first, h == c0 or h == c1, adj[h], need[h], t.emask_t[tt, r],
                       tt == K.BLOCK, t.block_connected):
                if sweep == 1:
                    count += 1
                elif sweep == 0 or k == 0:
                    out[0] = h
                    out[1] = tt
                    out[2] = r
                    found = True
                k -= 1
            x += 1
    return found


@hot_inline
def _random_bot(t, pos, seat, s, rng):
    """The random bot: kernel._random_move on the position's arrays (the bots' first tile under
    first_tile = "onto_board" uniform over legal_moves); the pass if it finds no legal placement."""
    if t.first_onto and pos.sq[Q_PLACED][seat] == 0:
        return _uniform_legal(t, pos, s, rng)
    front, nfront = _frontier(t, pos, seat, s)
    ok = _random_move(t, pos, s, seat, front, nfront, rng)
    if not ok:
        return t.pass_move
    return encode(t, s.mv[0], s.mv[1], s.mv[2])
