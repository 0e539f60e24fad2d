"""HEXFLOW Battle's bots on the engine interface, over battle_engine.py's rules and battle.py's
helpers: the random bot (`_random_pick`, `_random_exact`), the greedy bot (`_greedy_pick` and its
steps: `_greedy_start`, `_hex_view`, `_move_costs`, `_displaced_cost`, the chain marks
`_mark_chains` and the link-table search `_cost_l`), greedy's measure of a position (`evaluate`),
the bots' scratch (`Scratch`, `new_scratch`), `bot_move` and `rollout` (a game of one bot on both
seats: the search's rollouts and the chunk driver's one-bot games); and Battle's registration with
the engine (`engine.implement`), which names battle_engine.py's rule functions and these.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim import engine
from sim.engine.jit import hot, hot_fused, hot_inline, kernel
from sim.engine.rng import below

from . import kernel as K
from .battle import B_BLOCK_CONNECTED, K_DISPLACE, K_PLACE, O_WINNER, _displace_ok, _displacer, _gen_moves, _target
from .battle_engine import (
    CUR,
    H_TOWNER,
    H_TTYPE,
    LNK_ON,
    N_NETM,
    NFRONT,
    Q_PLACED,
    Q_TOKENS,
    REASON,
    W_MK,
    Tables,
    _board,
    _gen,
    _moves,
    _relink_all,
    apply,
    copy_position,
    encode,
    legal_moves,
    new_position,
    reset,
    result,
    sample_hidden,
    stalemate_score,
    to_move,
)
from .bot_kernel import _arrive4, _critical, _pair_through, _search01, _seed01, _start01
from .kernel import INF, _hand_pairs, _six, _tile_fits
from .race import COST_CAP
from .tiles import BLOCK, STAR6


class Scratch(NamedTuple):
    """The bots' working arrays: greedy's maps (5 x 2 nh: from start and goal per seat, and one
    for the searches around a hex), search queue dq, arrivals arr (4 x 6), critical hexes crit
    and their counts cnt, cached costs avoid, chain marks mark and their stack, chain sizes cs;
    the random bot's targets targ and fit cache (64)."""

    maps: np.ndarray
    dq: np.ndarray
    arr: np.ndarray
    crit: np.ndarray
    cnt: np.ndarray
    avoid: np.ndarray
    mark: np.ndarray
    stack: np.ndarray
    cs: np.ndarray
    targ: np.ndarray
    fit: np.ndarray


@kernel
def new_scratch(t):
    nh = t.nh
    nn = nh * 2
    return Scratch(np.empty((5, nn), np.int64), np.empty(nn * 12 + 4, np.int64), np.empty((4, 6), np.int64),
                   np.empty((2, nh), np.int64), np.empty(nh + 2, np.int64), np.empty((2, nh), np.int64),
                   np.zeros((2, nn), np.int64), np.empty(nn, np.int64), np.zeros((2, 2), np.int64),
                   np.empty(nh, np.int64), np.empty(64, np.int64))

@hot
def _cost_l(q, blocked, stop, srcm, dstm, lnk, tz, ttype, towner, netm, d, dq):
    """Seat q's completion cost from its hexes srcm[q] to dstm[q] (kernel._search01 along its
    link table lnk[q], never onto hex `blocked`): a source hex is empty (cost 1) or holds a tile q
    may use under the transit rule (its lines cost 0). Tests hold it to the board-reading _cost
    in tests/hexflow_reference.py."""
    head, tail = _start01(d, dq)
    for h in range(ttype.shape[0]):
        if srcm[q, h] == 0 or h == blocked:
            continue
        if ttype[h] < 0 or towner[h] == q or tz[q, h]:
            head, tail = _seed01(h, ttype, netm, d, dq, head, tail)
    return _search01(lnk[q], blocked, dstm[q], stop, d, dq, head, tail)


@hot
def _mark_chains(q, br, b, mark, stack, out):
    """mark[node] = 1 for every placed line node joined (transit-valid for q) to one of q's
    start hexes; out[0] = hexes marked, out[1] = sum of their dot multipliers."""
    startm, tz, nbr = br.startm, br.tz, br.nbr
    mult, ttype, towner, emask, netid, netm = b.mult, b.ttype, b.towner, b.emask, b.netid, b.netm
    nh = ttype.shape[0]
    for i in range(2 * nh):
        mark[i] = 0
    top = 0
    for h in range(nh):
        if startm[q, h] and ttype[h] >= 0 and (towner[h] == q or tz[q, h]):
            for j in range(2):
                if netm[h * 2 + j] != 0:
                    mark[h * 2 + j] = 1
                    stack[top] = h * 2 + j
                    top += 1
    while top > 0:
        top -= 1
        u = stack[top]
        x = u >> 1
        m = netm[u]
        for s in range(6):
            if not (m >> s) & 1:
                continue
            n = nbr[x, s]
            if n < 0 or ttype[n] < 0:
                continue
            o = (s + 3) % 6
            if not (emask[n] >> o) & 1 or (towner[n] != q and tz[q, n] == 0):
                continue
            v = n * 2 + netid[n * 6 + o]
            if mark[v] == 0:
                mark[v] = 1
                stack[top] = v
                top += 1
    L = 0
    ms = 0
    for h in range(nh):
        if mark[h * 2] or mark[h * 2 + 1]:
            L += 1
            ms += mult[h]
    out[0] = L
    out[1] = ms


@hot
def _pair_fits(x, npairs, pt, pr, emask_t, block_conn, fit):
    """How many hand pairs may be placed on an empty frontier hex whose need is x; cached in
    fit[x] (-1 = not yet counted)."""
    if fit[x] < 0:
        c = 0
        for i in range(npairs):
            if _tile_fits(False, emask_t[pt[i], pr[i]], x, pt[i] == BLOCK, block_conn):
                c += 1
        fit[x] = c
    return fit[x]


@hot_fused  # once per random decision: no call
def _random_pick(br, b, p, rng, tokens, placed_any, hand, nfront, mv, s):
    """Uniform over the legal moves: up to 24 uniform draws from (tile pair x frontier hex) plus
    (displacer x target) checked for legality, then the k-th legal move in _gen_moves' order,
    k uniform, counted per need value on the frontier (_random_exact). Writes the move to
    mv.mk/mh/mt/mr[0]; returns False when there is none. need[h]: the sides of h where a neighbour's
    line ends (see _set_need); nown (see _set_owner); front[:nfront], the frontier."""
    pt, pr, mk, mh, mt, mr = mv
    cfg, emask_t, nbr, corner_any = br.cfg, br.emask_t, br.nbr, br.corner_any
    ttype, towner, emask, need, nown, front = b.ttype, b.towner, b.emask, b.need, b.nown, b.front
    targ = s.targ
    nh = ttype.shape[0]
    if placed_any[p] != 0:
        npairs = _hand_pairs(p, hand, br.n_orient, br.rot_of, pt, pr)
        block_conn = cfg[B_BLOCK_CONNECTED] != 0
        ncand = nfront  # the frontier: empty hexes next to a tile (occupancy only grows)
        ntarg = np.int64(0)  # typed counts: literal zeros compiled _random_exact a second time
        ndp = np.int64(0)  # displacer pairs first: pt/pr[0:ndp]
        if tokens[p] > 0:
            for i in range(npairs):
                if _displacer(pt[i], block_conn):
                    mk[ndp] = i
                    ndp += 1
        if ndp > 0:  # targets: opponent tiles off the corners next to one of p's tiles
            for h in range(nh):
                if _target(h, p, towner, corner_any, nown):
                    targ[ntarg] = h
                    ntarg += 1
        size = npairs * ncand + ndp * ntarg
        for _ in range(24 if size > 0 else 0):
            k = below(rng, size)
            if k < npairs * ncand:
                i = k // ncand
                h = front[k - i * ncand]  # k % ncand without a second division
                t = pt[i]
                r = pr[i]
                if not _tile_fits(False, emask_t[t, r], need[h], t == BLOCK, block_conn):
                    continue
                kind = K_PLACE
            else:
                k -= npairs * ncand
                i = k // ntarg
                h = targ[k - i * ntarg]
                i = mk[i]
                t = pt[i]
                r = pr[i]
                if not _displace_ok(h, t, emask_t[t, r], cfg, nbr, ttype, emask, need):
                    continue
                kind = K_DISPLACE
            mk[0] = kind
            mh[0] = h
            mt[0] = t
            mr[0] = r
            return True
        return _random_exact(br, b, p, rng, npairs, ndp, ntarg, nfront, mv, s)
    nm = _gen_moves(br, b, p, tokens, placed_any, hand, mv)
    if nm == 0:
        return False
    i = below(rng, nm)
    mk[0] = mk[i]
    mh[0] = mh[i]
    mt[0] = mt[i]
    mr[0] = mr[i]
    return True


@hot
def _random_exact(br, b, p, rng, npairs, ndp, ntarg, nfront, mv, s):
    """_random_pick when none of its draws was legal: the legal moves counted (placements per
    need value on the frontier, cached in s.fit; displacements by displacer pair mk[:ndp] and
    target s.targ[:ntarg]), one drawn uniformly and found in _gen_moves' order. Writes it to
    mv.mk/mh/mt/mr[0]; returns False when there is none."""
    pt, pr, mk, mh, mt, mr = mv
    cfg, emask_t, nbr = br.cfg, br.emask_t, br.nbr
    ttype, emask, need, fpos, front = b.ttype, b.emask, b.need, b.fpos, b.front
    targ, fit = s.targ, s.fit
    nh = ttype.shape[0]
    block_conn = cfg[B_BLOCK_CONNECTED] != 0
    # no draw was legal: count the legal moves, draw one, find it in _gen_moves' order
    # (placements by hex and pair, then displacements by displacer pair and target)
    for x in range(64):
        fit[x] = -1
    nplace = 0
    for j in range(nfront):
        nplace += _pair_fits(need[front[j]], npairs, pt, pr, emask_t, block_conn, fit)
    ndisp = 0
    for a in range(ndp):
        for c in range(ntarg):
            i = mk[a]
            if _displace_ok(targ[c], pt[i], emask_t[pt[i], pr[i]], cfg, nbr, ttype, emask,
                            need):
                ndisp += 1
    if nplace + ndisp == 0:
        return False
    k = below(rng, nplace + ndisp)
    if k < nplace:
        for h in range(nh):
            if fpos[h] < 0:  # the frontier, in hex order
                continue
            c = _pair_fits(need[h], npairs, pt, pr, emask_t, block_conn, fit)
            if k >= c:
                k -= c
                continue
            for i in range(npairs):
                t = pt[i]
                if _tile_fits(False, emask_t[t, pr[i]], need[h], t == BLOCK, block_conn):
                    if k == 0:
                        mk[0] = K_PLACE
                        mh[0] = h
                        mt[0] = t
                        mr[0] = pr[i]
                        return True
                    k -= 1
    k -= nplace
    for a in range(ndp):
        for c in range(ntarg):
            i = mk[a]
            h = targ[c]
            if _displace_ok(h, pt[i], emask_t[pt[i], pr[i]], cfg, nbr, ttype, emask, need):
                if k == 0:
                    mk[0] = K_DISPLACE
                    mh[0] = h
                    mt[0] = pt[i]
                    mr[0] = pr[i]
                    return True
                k -= 1
    return False


@hot_inline  # per displacement move: no call
def _displaced_cost(q, k, h, star, D, br, b, lnk, s):
    """Seat q's completion cost (as _cost) once the mover's Star-6 (`star`) or Block replaces
    the tile on hex h, from this turn's maps (maps[2k] from q's starts, maps[2k+1] from its
    goals; D = q's cost now; arr[2k], arr[2k+1]: their arrivals at h), without searching the
    changed board where it can.
    A Star-6 q may use is one node joined across every side, so it joins at least what the old
    tile did: the cost can only fall, to its best way through h, which enters from the cheapest
    side of the start map and leaves by the cheapest of the goal map (those minima may run
    through the old tile, but the side a way crosses before first entering h is a Star-6 side
    too, so they equal the minima of the board without h). A Block, or a Star-6 q may not use,
    takes h out of q's ways: the cost stays D unless a node of h lies on a cheapest way, and
    then one search leaving h out is cached in avoid[k, h]. (maps, arr, avoid, dq: Scratch s.)"""
    maps, arr, avoid, dq = s.maps, s.arr, s.avoid, s.dq
    startm, goalm, tz = br.startm, br.goalm, br.tz
    ttype, towner, netm = b.ttype, b.towner, b.netm
    if star and (k == 0 or tz[q, h]):
        x = 0
        y = 0
        if startm[q, h] == 0:
            x = INF
            for sd in range(6):
                x = min(x, arr[2 * k, sd])
        if goalm[q, h] == 0:
            y = INF
            for sd in range(6):
                y = min(y, arr[2 * k + 1, sd])
        return min(D, x + y)
    if avoid[k, h] < 0:
        dS = maps[2 * k]
        dG = maps[2 * k + 1]
        a = D
        for j in range(2):
            u = h * 2 + j
            if D < INF and netm[u] != 0 and dS[u] + dG[u] == D:
                a = _cost_l(q, h, 1, startm, goalm, lnk, tz, ttype, towner, netm, maps[4], dq)
                break
        avoid[k, h] = a
    return avoid[k, h]


@hot
def _greedy_start(br, b, p, lnk, s):
    """What greedy reads for every move of this turn: both seats' stalemate chains (s.mark rows
    0 = own, 1 = the opponent's; s.cs their sizes and dot multipliers), the four distance maps
    (s.maps[0/1]: seat p from start / goal; 2/3: the opponent), the critical hexes every cheapest
    way uses (s.crit) and an empty cache of searches around a hex (s.avoid). Returns (own cost,
    opponent's cost, own chain length, own chain's multipliers, opponent chain's multipliers)."""
    startm, goalm, tz = br.startm, br.goalm, br.tz
    ttype, towner, netm = b.ttype, b.towner, b.netm
    maps, crit, avoid, cs = s.maps, s.crit, s.avoid, s.cs
    o = 1 - p
    nh = ttype.shape[0]
    _mark_chains(p, br, b, s.mark[0], s.stack, cs[0])
    _mark_chains(o, br, b, s.mark[1], s.stack, cs[1])
    # A full search's result is the cheapest goal node of its map: the seat's completion cost now.
    dcur0 = INF
    dcur1 = INF
    for k in range(2):
        q = p if k == 0 else o
        best = _cost_l(q, -1, 0, startm, goalm, lnk, tz, ttype, towner, netm, maps[2 * k], s.dq)
        _cost_l(q, -1, 0, goalm, startm, lnk, tz, ttype, towner, netm, maps[2 * k + 1], s.dq)
        if k == 0:
            dcur0 = best
        else:
            dcur1 = best
        _critical(maps[2 * k], maps[2 * k + 1], best, nh, ttype, crit[k], s.cnt)
        for h in range(nh):
            avoid[k, h] = -1
    return dcur0, dcur1, cs[0, 0], cs[0, 1], cs[1, 1]


@hot_inline
def _hex_view(br, b, p, h, lnk, s):
    """Greedy's view of hex h, shared by every move there: the four maps' arrivals at h (s.arr),
    and the sides of h where a line of its own stalemate chain ends (returned). On an empty hex
    arrivals come from the seats' link tables (a step onto a tile the seat may not use is -1,
    where its map is INF anyway: its searches never enter one); a displacement target's own
    node steps only where its lines run, so _arrive4."""
    nbr = br.nbr
    ttype, emask, netid = b.ttype, b.emask, b.netid
    maps, arr = s.maps, s.arr
    o = 1 - p
    if ttype[h] >= 0:
        _arrive4(h, maps, nbr, ttype, emask, netid, arr)
    else:
        base = h * 12
        for sd in range(6):
            e = lnk[p, base + sd]
            arr[0, sd] = INF if e < 0 else maps[0, e >> 1]
            arr[1, sd] = INF if e < 0 else maps[1, e >> 1]
            e = lnk[o, base + sd]
            arr[2, sd] = INF if e < 0 else maps[2, e >> 1]
            arr[3, sd] = INF if e < 0 else maps[3, e >> 1]
    lm = 0
    for sd in range(6):
        n = nbr[h, sd]
        so = (sd + 3) % 6
        if n >= 0 and ttype[n] >= 0 and (emask[n] >> so) & 1 and s.mark[0, n * 2 + netid[n * 6 + so]]:
            lm |= 1 << sd
    return lm


@hot_fused
def _move_costs(br, b, p, kind, h, t, r, dcur0, dcur1, ways, lnk, s):
    """(own, opponent's) completion cost after the move (kind, h, t, r): a displacement by
    _displaced_cost; a placement as the cheaper of the way around h (the cost now, or a search
    without h when every cheapest way uses it, cached in s.avoid) and the way through the tile's
    lines (_pair_through over the arrivals `ways` = (own from start, own from goal, the
    opponent's two), as tuples: no arrays per call)."""
    o = 1 - p
    mine = INF
    theirs = INF
    if kind == K_DISPLACE:
        for k in range(2):  # one compiled _displaced_cost, not one per literal k
            c = _displaced_cost(p if k == 0 else o, k, h, t == STAR6, dcur0 if k == 0 else dcur1, br, b, lnk, s)
            if k == 0:
                mine = c
            else:
                theirs = c
        return mine, theirs
    own_s, own_g, opp_s, opp_g = ways
    for k in range(2):
        q = p if k == 0 else o
        if s.crit[k, h]:
            if s.avoid[k, h] < 0:
                s.avoid[k, h] = _cost_l(q, h, 1, br.startm, br.goalm, lnk, br.tz, b.ttype, b.towner, b.netm,
                                        s.maps[4], s.dq)
            rest = s.avoid[k, h]
        else:
            rest = dcur0 if k == 0 else dcur1
        via = INF
        if k == 0 or br.tz[q, h]:
            for j in range(2):
                m = br.net_mask[t, r, j]
                if m != 0:
                    c = _pair_through(m, own_s if k == 0 else opp_s, own_g if k == 0 else opp_g,
                                      br.startm[q, h] != 0, br.goalm[q, h] != 0)
                    if c < via:
                        via = c
        if k == 0:
            mine = min(rest, via)
        else:
            theirs = min(rest, via)
    return mine, theirs


@hot
def _greedy_pick(br, b, p, rng, par, nmoves, mv, lnk, s):
    """Index of the best move (par: the bot's block_weight, defense, token_cost,
    stalemate_weight): own completion cost down, the opponent's up (x block_weight), minus
    token_cost for a displacement, plus stalemate_weight x the stalemate score it gains (own chain
    grown, a capture, an opponent chain tile taken); a win at once beats everything, handing
    one over is last. Equal scores: a uniform draw among them."""
    w_block, token_cost, w_stale = par[0], par[2], par[3]
    mk, mh, mt, mr = mv.mk, mv.mh, mv.mt, mv.mr
    mult = b.mult
    dcur0, dcur1, own_l, own_ms, opp_ms = _greedy_start(br, b, p, lnk, s)
    best_sc = -1e18
    pick = -1
    nbest = 0
    ch = -1  # the hex whose arrivals and own-chain link sides (lm) are at hand
    lm = 0
    for i in range(nmoves):
        h = mh[i]
        t = mt[i]
        r = mr[i]
        if h != ch:  # placements come grouped by hex
            ch = h
            lm = _hex_view(br, b, p, h, lnk, s)
            ways = (_six(s.arr[0]), _six(s.arr[1]), _six(s.arr[2]), _six(s.arr[3]))
        mine, theirs = _move_costs(br, b, p, mk[i], h, t, r, dcur0, dcur1, ways, lnk, s)
        if mine == 0:
            sc = 1e12
        elif theirs == 0:
            sc = -1e12
        else:
            sc = -min(mine, 60) + w_block * min(theirs, 60)
            gain = 0.0
            em = br.emask_t[t, r]
            if em != 0 and (em & lm != 0 or (br.startm[p, h] and mk[i] == K_PLACE)):
                gain += (own_l + 1) * (1 + own_ms + mult[h]) - own_l * (1 + own_ms)
            if mk[i] == K_DISPLACE:
                sc -= token_cost
                gain += br.capture_points
                if s.mark[1, h * 2] or s.mark[1, h * 2 + 1]:
                    gain += 1 + opp_ms
            sc += w_stale * gain
        if sc > best_sc:
            best_sc = sc
            pick = i
            nbest = 1
        elif sc == best_sc:
            nbest += 1
            if below(rng, nbest) == 0:
                pick = i
    return pick


# ---- on the engine interface ------------------------------------------------------------------
@kernel
def _costs(t, pos, seat):
    """(own, opponent's) completion cost: _cost_l on the seats' link tables (its search
    arrays allocated here: `evaluate` runs at search cut-offs, not at every decision)."""
    if pos.st[LNK_ON] == 0:
        _relink_all(t, pos)
    hx = pos.hx
    nn = t.nh * 2
    d = np.empty(nn, np.int64)
    dq = np.empty(nn * 12 + 4, np.int64)
    mine = _cost_l(seat, -1, 1, t.br.startm, t.br.goalm, pos.lnk, t.br.tz, hx[H_TTYPE], hx[H_TOWNER], pos.nets[N_NETM],
                   d, dq)
    theirs = _cost_l(1 - seat, -1, 1, t.br.startm, t.br.goalm, pos.lnk, t.br.tz, hx[H_TTYPE], hx[H_TOWNER],
                     pos.nets[N_NETM], d, dq)
    return mine, theirs


@kernel
def evaluate(t, pos, seat):
    """Greedy's measure of a position: block_weight (its default, 1.5) x the opponent's completion
    cost minus the seat's own (empty hexes still to fill on the cheapest transit-valid way, each
    capped at 60 as greedy compares them), plus stalemate_weight (0.1) x the seat's stalemate
    score minus the opponent's; +-1e9 once the game is decided (by `result`'s winner)."""
    if pos.st[REASON] >= 0:
        res = pos.work[W_MK, :t.res_width]
        result(t, pos, np.bool_(False), res)
        w = res[O_WINNER]
        return 0.0 if w < 0 else (1e9 if w == seat else -1e9)
    mine, theirs = _costs(t, pos, seat)
    own, _ = stalemate_score(t, pos, seat)
    opp, _ = stalemate_score(t, pos, 1 - seat)
    return (t.eval_block_weight * min(theirs, COST_CAP) - min(mine, COST_CAP)
            + t.eval_stale_weight * (own - opp))


@hot_inline
def _greedy(t, pos, seat, par, s, rng):
    """battle._gen_moves then _greedy_pick (par: block_weight, defense, token_cost,
    stalemate_weight); the pass without a legal move."""
    if pos.st[LNK_ON] == 0:
        _relink_all(t, pos)
    mv = _moves(pos)
    nm = _gen(t, pos, seat, mv)
    if nm == 0:
        return t.pass_move
    i = _greedy_pick(t.br, _board(pos), seat, rng, par, nm, mv, pos.lnk, s)
    return encode(t, mv.mk[i], mv.mh[i], mv.mt[i], mv.mr[i])


@hot_inline
def _random(t, pos, seat, s, rng):
    """_random_pick: uniform over the legal moves; the pass without one."""
    mv = _moves(pos)
    if not _random_pick(t.br, _board(pos), seat, rng, pos.sq[Q_TOKENS], pos.sq[Q_PLACED], pos.hand, pos.st[NFRONT],
                        mv, s):
        return t.pass_move
    return encode(t, mv.mk[0], mv.mh[0], mv.mt[0], mv.mr[0])


# inline into the engine's bot_move forwarder (and the rollout): one compiled copy of the bots
# fewer (race_bots.py's bot_move says why)
@hot_fused
def bot_move(t, pos, seat, code, par, scratch, rng):
    """The random and greedy bots (_random_pick, _greedy_pick) on the position's arrays."""
    if code == K.BOT_GREEDY:
        return _greedy(t, pos, seat, par, scratch, rng)
    return _random(t, pos, seat, scratch, rng)


# ---- a game of one bot ------------------------------------------------------------------------
# the rule functions as compiled inside the loop (no call per decision: a call hands the tables'
# and the position's arrays on, which is most of a random decision's cost)
_apply = hot_inline(apply.py_func)


@hot
def rollout(t, pos, code, par, s, rng, cap):
    """Bot `code` for every seat from pos, at most cap decisions; True if the game ended
    (sim.engine.interface: the search's rollouts, and the chunk driver's games of one bot). The random
    bot and apply inline, and greedy's bot_move (inline too: one compiled copy of the bots)."""
    d = 0
    while pos.st[REASON] < 0:
        if d >= cap:
            return False
        cur = pos.st[CUR]
        if code == K.BOT_GREEDY:
            move = bot_move(t, pos, cur, code, par, s, rng)
        else:
            move = _random(t, pos, cur, s, rng)
        _apply(t, pos, move, rng)
        d += 1
    return True


engine.implement(Tables, no_alloc=True, new_position=new_position, to_move=to_move, legal_moves=legal_moves,
                 apply=apply, result=result, copy_position=copy_position, sample_hidden=sample_hidden,
                 evaluate=evaluate, new_scratch=new_scratch, bot_move=bot_move, reset=reset,
                 rollout=rollout,
                 rollout_bots=(K.BOT_RANDOM,))
