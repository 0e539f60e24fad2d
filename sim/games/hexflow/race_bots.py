"""HEXFLOW Race's bots on the engine interface, over race.py's rules: the random, greedy and
lookahead bots, greedy's measure of a position (`evaluate`), the bots' scratch (`new_scratch`),
`bot_move`, `costly_move` and `rollout` (a game of one bot on both seats: the search's rollouts
and the chunk driver's one-bot games); and Race's registration with the engine
(`engine.implement`), which names race.py's rule functions and these. They play exactly the games
of the first Race chunk kernel (the same bots, the same draws in the same order).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim import engine
from sim.engine.jit import hot, hot_fused, hot_inline, kernel
from sim.engine.rng import below

from . import bot_kernel as BK
from . import kernel as K
from . import race
from .race import (
    COST_CAP,
    CUR,
    H_ADJ,
    H_EMASK,
    H_FRONT,
    H_NEED,
    H_TTYPE,
    NFRONT,
    Q_PLACED,
    REASON,
    ST_TILES,
    W_PN,
    W_STACK,
    WINNER,
    Position,
    Tables,
    _blank_position,
    _reach_winner,
    _reading_allows,
    apply,
    encode,
    legal_moves,
)
from .race_random import _frontier, _random_bot, _uniform_legal


class BotScratch(NamedTuple):
    """The bots' working arrays: random and greedy's (as the first chunk kernel allocated them), then
    lookahead's move list and values."""

    pt: np.ndarray
    pr: np.ndarray
    pe: np.ndarray
    cand: np.ndarray
    g: np.ndarray
    mv: np.ndarray
    maps: np.ndarray
    sd: np.ndarray
    pn: np.ndarray
    dq: np.ndarray
    arr: np.ndarray
    carr: np.ndarray
    crit: np.ndarray
    cnt: np.ndarray
    need_c: np.ndarray
    gx: np.ndarray
    moves: np.ndarray  # int64[max_moves]: lookahead's legal moves,
    vals: np.ndarray  # float64[max_moves]: greedy's measure after each
    front: np.ndarray  # int64[nh]: the frontier without the opponent's corners (_frontier)


class Scratch(NamedTuple):
    """What `new_scratch` gives the engine: the bots' arrays, and lookahead's two trial positions
    apart from them. numba passes a NamedTuple argument as every field of every array it holds
    (a Position is 86 values), so the random and greedy functions take `bots` alone: with the
    positions in it, a first greedy run compiled 4-6% more."""

    bots: BotScratch
    p1: Position  # lookahead: the position after a move of its own,
    p2: Position  # and after a reply to it


@kernel
def evaluate(t, pos, seat):
    """Greedy's measure of a position: block_weight (its default, 1.5) x the opponent's completion
    cost minus the seat's own (empty hexes still to fill on the cheapest way between the corners,
    each capped at 60 as greedy compares them); +-1e9 once the game is decided."""
    if pos.st[REASON] >= 0:
        w = pos.st[WINNER]
        return 0.0 if w < 0 else (1e9 if w == seat else -1e9)
    return _measure(t, pos, seat, t.eval_block_weight)


@hot
def _measure(t, pos, seat, w_block):
    """w_block x the opponent's completion cost - the seat's own, each capped at COST_CAP (a game
    in progress; the hex sets and the search's costs in the work rows stack and pn)."""
    g = pos.work[W_STACK][:K.sets_size(t.nh)]
    d = pos.work[W_PN][:t.nh * 2]
    BK._sets(t.nbr, pos.hx[H_TTYPE], pos.nets[0], pos.nets[1], g)
    o = 1 - seat
    mine = BK._bfs_sets(t.corners[seat, 0], t.corners[seat, 1], K.NO_HEX, g, d, K.STOP)
    theirs = BK._bfs_sets(t.corners[o, 0], t.corners[o, 1], K.NO_HEX, g, d, K.STOP)
    return w_block * min(theirs, COST_CAP) - min(mine, COST_CAP)


@kernel
def new_scratch(t):
    nh = t.nh
    nn = nh * 2
    hs = t.hand_size
    bots = BotScratch(np.empty(hs * 6, np.int64), np.empty(hs * 6, np.int64), np.empty(hs * 6, np.int64),
                      np.empty(nh, np.int64), np.empty(K.sets_size(nh), np.int64),
                      np.empty(3, np.int64), np.empty((4, nn), np.int64), np.empty(nn, np.int64),
                      np.empty(nn, np.int64), np.empty(nn * 12 + 4, np.int64), np.empty((4, 6), np.int64),
                      np.empty((4, 6), np.int64), np.empty((2, nh), np.int64), np.empty(nh + 2, np.int64),
                      np.empty((2, nh), np.int64), np.empty((2, nh), np.int64),
                      np.empty(t.max_moves, np.int64), np.empty(t.max_moves, np.float64), np.empty(nh, np.int64))
    return Scratch(bots, _blank_position(t), _blank_position(t))


# ---- greedy: the cheapest completions of both seats, a move scored by how it changes them ----
class GreedyTurn(NamedTuple):
    """What greedy works out once a turn (`_greedy_turn`) and reads at every candidate hex: the
    seat p and its hand pairs (scratch pt, pr, pe), the corners, both seats' completion costs Dm,
    Do (empty hexes still to fill; INF cut off) and their capped values, the open line ends of
    p's two corner networks (kernel._open_ends, -1: no line there), p's cut hexes the opponent
    could fill next turn and whether p is in danger before the move."""

    p: np.int64
    npairs: np.int64
    cm1: np.int64
    cm2: np.int64
    co1: np.int64
    co2: np.int64
    Dm: np.int64
    Do: np.int64
    dm_c: np.int64
    do_c: np.int64
    open0: np.int64
    open1: np.int64
    n_cut_front: np.int64
    danger_now: np.bool_
    w_block: np.float64  # the bot's block_weight and defense
    defense: np.float64


class TurnWork(NamedTuple):
    """The scratch arrays `_greedy_turn` fills (BotScratch's fields of these names), as one small
    tuple: with the whole scratch as it then was (every array, and lookahead's two trial
    positions, each an argument of the compiled function) its compile took about a third longer."""

    pt: np.ndarray
    pr: np.ndarray
    pe: np.ndarray
    g: np.ndarray
    maps: np.ndarray
    sd: np.ndarray
    crit: np.ndarray
    cnt: np.ndarray
    need_c: np.ndarray
    gx: np.ndarray


class CutWork(NamedTuple):
    """`_through_cut`'s scratch arrays: the board's hex sets g, the searches' costs sd, a copy of
    the union-find pc (int64[NN]) and the hex sets of the board with the tile g2 (BotScratch's g,
    sd, pn, dq; one small tuple for the reason TurnWork gives: half as long again with BotScratch)."""

    g: np.ndarray
    sd: np.ndarray
    pc: np.ndarray
    g2: np.ndarray


class HexCosts(NamedTuple):
    """What `_greedy_hex` works out once per candidate hex h for its hand pairs: whether a tile
    there leaves each player's cost as it is (same_m, same_o), each player's cost avoiding h
    (ex_m, ex_o) and whether a tile on h leaves p in danger (dang_h)."""

    h: np.int64
    same_m: np.bool_
    same_o: np.bool_
    ex_m: np.int64
    ex_o: np.int64
    dang_h: np.bool_


@hot
def _greedy_move(t, pos, s, front, nfront, p, rng, w_block, defense):
    """Plays to win: cheapest completion (empty hexes still to fill) for both players, from both
    of each player's corners (4 distance maps per turn); a candidate is scored by how it changes
    own and opponent's completion cost: through the new tile (from the maps) or around it (exact
    re-search only where the hex is on every cheapest way). Wins at once when it can, never
    completes the opponent's path or cuts its own, takes an auto-win cut, blocks when that pays
    (w_block), and pays `defense` for leaving the opponent a hex that would cut it off: a cut
    hex next to a tile, or a corner network with a single open line end. The candidates are
    p's empty corners before its first tile, else front[:nfront]; the move goes to s.mv (hex,
    type, rotation), False if there is none. Steps: `_greedy_turn` (per turn), `_greedy_hex`
    (per candidate hex: `_keep_any` where every move there scores the same), `_pair_costs`,
    `_pair_score` and `_keep_best` (per hand pair)."""
    npairs = K._hand_pairs(p, pos.hand, t.n_orient, t.rot_of, s.pt, s.pr)
    cands, ncand = K._candidates(p, pos.sq[Q_PLACED], t.corners, pos.hx[H_TTYPE], front, nfront, s.cand)
    if npairs == 0 or ncand == 0:
        return False
    w = TurnWork(s.pt, s.pr, s.pe, s.g, s.maps, s.sd, s.crit, s.cnt, s.need_c, s.gx)
    g = _greedy_turn(t, pos, p, npairs, w, w_block, defense)
    best = -1e18
    nbest = np.int64(0)
    for ci in range(ncand):
        best, nbest = _greedy_hex(t, pos, s, g, cands[ci], rng, best, nbest)
    return nbest > 0


@hot
def _greedy_turn(t, pos, p, npairs, w, w_block, defense):
    """A turn's maps (w.maps: from p's corners, then the opponent's), the hexes on every cheapest
    way of each seat (w.crit), the open line ends of p's corner networks (w.need_c) and p's cut
    hexes (w.gx, `_cut_hexes`); every search on the board as it is now, as hex sets (w.g)."""
    pt, pr, pe, g, maps, sd, crit, cnt, need_c, gx = w
    ttype = pos.hx[H_TTYPE]
    netm = pos.nets[0]
    par = pos.nets[1]
    o = 1 - p
    for i in range(npairs):  # pe[:npairs]: side mask of each hand pair, for _legal_set
        pe[i] = t.emask_t[pt[i], pr[i]]
    BK._sets(t.nbr, ttype, netm, par, g)
    Dm = K.INF
    Do = K.INF
    for k in range(4):  # maps from own corner 1, 2, then the opponent's (one call site)
        q = p if k < 2 else o
        v = BK._bfs_sets(t.corners[q, k & 1], t.corners[q, 1 - (k & 1)], K.NO_HEX, g, maps[k], K.FULL)
        if k == 0:
            Dm = v
        elif k == 2:
            Do = v
    BK._critical(maps[0], maps[1], Dm, t.nh, ttype, crit[0], cnt)
    BK._critical(maps[2], maps[3], Do, t.nh, ttype, crit[1], cnt)
    cm1 = t.corners[p, 0]
    cm2 = t.corners[p, 1]
    open0 = BK._open_ends(cm1, t.nbr, ttype, pos.hx[H_EMASK], netm, par, need_c[0])
    open1 = BK._open_ends(cm2, t.nbr, ttype, pos.hx[H_EMASK], netm, par, need_c[1])
    n_cut_front = _cut_hexes(t, pos, p, Dm, g, sd, crit, gx)
    return GreedyTurn(p, npairs, cm1, cm2, t.corners[o, 0], t.corners[o, 1], Dm, Do, min(Dm, COST_CAP),
                      min(Do, COST_CAP), open0, open1, n_cut_front,
                      n_cut_front > 0 or open0 == 1 or open1 == 1, w_block, defense)


@hot_inline
def _cut_hexes(t, pos, p, Dm, g, sd, crit, gx):
    """gx[0, h]: p's cost avoiding h; gx[1, h] = 1: h is a cut (every way of p passes it).
    Only hexes a move can bring into reach are searched: the frontier and next to it. Returns
    how many cut hexes lie on the frontier (the opponent could fill one next turn)."""
    ttype = pos.hx[H_TTYPE]
    adj = pos.hx[H_ADJ]
    n_cut_front = 0
    for hh in range(t.nh):
        gx[0, hh] = Dm
        gx[1, hh] = 0
        if crit[0, hh] and Dm < K.INF:
            near = adj[hh] > 0 or pos.sq[Q_PLACED][p] == 0
            for side in range(6):
                n = t.nbr[hh, side]
                if n >= 0 and ttype[n] < 0 and adj[n] > 0:
                    near = True
            if not near:
                continue
            if adj[hh] > 0:  # a candidate: the exact cost around it is needed
                v = BK._bfs_sets(t.corners[p, 0], t.corners[p, 1], hh, g, sd, K.STOP)
            else:  # only whether it is a cut
                v = K.INF if BK._bfs_sets(t.corners[p, 0], t.corners[p, 1], hh, g, sd, K.STOP) >= K.INF else Dm + 1
            gx[0, hh] = v
            if v >= K.INF:
                gx[1, hh] = 1
                if adj[hh] > 0:
                    n_cut_front += 1
    return n_cut_front


@hot_fused
def _greedy_hex(t, pos, s, g, h, rng, best, nbest):
    """Score every legal hand pair on candidate hex h and keep the best in s.mv (best, nbest: the
    best score so far and how many moves share it; returned updated)."""
    hx = pos.hx
    ttype = hx[H_TTYPE]
    adj = hx[H_ADJ]
    arr = s.arr
    BK._arrive4(h, s.maps, t.nbr, ttype, hx[H_EMASK], pos.netid, arr)
    legal = BK._legal_set(g.p, h, g.npairs, s.pt, s.pe, pos.sq[Q_PLACED], t.corners, ttype, adj, hx[H_NEED],
                         t.block_connected)
    # no tile on h can shorten a player's way if even its best two sides cost too much, and
    # none can lengthen it unless h is on every cheapest way: that player's cost stays
    lb_m = 0 if h == g.cm1 else min(arr[0, 0], arr[0, 1], arr[0, 2], arr[0, 3], arr[0, 4], arr[0, 5])
    if h != g.cm2:
        lb_m += min(arr[1, 0], arr[1, 1], arr[1, 2], arr[1, 3], arr[1, 4], arr[1, 5])
    lb_o = 0 if h == g.co1 else min(arr[2, 0], arr[2, 1], arr[2, 2], arr[2, 3], arr[2, 4], arr[2, 5])
    if h != g.co2:
        lb_o += min(arr[3, 0], arr[3, 1], arr[3, 2], arr[3, 3], arr[3, 4], arr[3, 5])
    same_m = g.Dm < K.INF and s.crit[0, h] == 0 and lb_m >= g.Dm
    same_o = g.Do < K.INF and s.crit[1, h] == 0 and lb_o >= g.Do
    # a hex off every cheapest way of both players and off the own corner networks' ends: all
    # legal moves there score the same
    if g.Dm < K.INF and g.Do < K.INF and s.need_c[0, h] == 0 and s.need_c[1, h] == 0 and same_m and same_o:
        return _keep_any(t, pos, s, g, h, legal, rng, best, nbest)
    # the cost of each player's cheapest way that avoids h
    ex_m = s.gx[0, h]
    # own cut hexes open to the opponent after a tile on h (h itself is filled)
    dang_h = g.n_cut_front - (1 if s.gx[1, h] == 1 and adj[h] > 0 else 0) > 0
    for side in range(6):
        n = t.nbr[h, side]
        if n >= 0 and ttype[n] < 0 and adj[n] == 0 and s.gx[1, n] == 1:
            dang_h = True
    ex_o = g.Do
    if s.crit[1, h]:
        ex_o = BK._bfs_sets(g.co1, g.co2, h, s.g, s.sd, K.STOP)
    x = HexCosts(h, same_m, same_o, ex_m, ex_o, dang_h)
    # s.carr[0:2] / s.carr[2:4] hold the arrivals around h for own / opponent's ways once set
    cut_m = np.bool_(False)
    cut_o = np.bool_(False)
    for i in range(g.npairs):
        tile = s.pt[i]
        r = s.pr[i]
        if not (legal >> i) & 1:
            continue
        th_m, th_o, cut_m, cut_o = _pair_costs(t, pos, s, g, x, tile, r, cut_m, cut_o)
        sc = _pair_score(t, pos, s, g, x, tile, r, th_m, th_o)
        best, nbest = _keep_best(s, rng, sc, best, nbest, h, tile, r)
    return best, nbest


@hot_inline
def _keep_any(t, pos, s, g, h, legal, rng, best, nbest):
    """The legal moves on h (bits of `legal`) all score the same: 0, or -defense if p is in
    danger or a tile on h opens one of p's cut hexes to the opponent. Kept as one draw among all
    moves sharing the best score (returns best, nbest updated)."""
    ttype = pos.hx[H_TTYPE]
    adj = pos.hx[H_ADJ]
    k = 0
    for i in range(g.npairs):
        k += (legal >> i) & 1
    if k == 0:
        return best, nbest
    v0 = 0.0
    dn = g.danger_now
    for side in range(6):  # hexes next to h become placeable for the opponent
        n = t.nbr[h, side]
        if n >= 0 and ttype[n] < 0 and adj[n] == 0 and s.gx[1, n] == 1:
            dn = True
    if dn:
        v0 = -g.defense
    pick = -1
    if v0 > best:
        best = v0
        nbest = k
        pick = below(rng, k)
    elif v0 == best:
        nbest += k
        x = below(rng, nbest)
        if x < k:
            pick = x
    if pick >= 0:
        for i in range(g.npairs):
            if (legal >> i) & 1:
                if pick == 0:
                    s.mv[0] = h
                    s.mv[1] = s.pt[i]
                    s.mv[2] = s.pr[i]
                    break
                pick -= 1
    return best, nbest


@hot_inline
def _pair_costs(t, pos, s, g, x, tile, r, cut_m, cut_o):
    """Each player's cheapest way through tile (tile, r) on h, from the maps' arrivals (s.arr);
    where h is a cut of a player's ways the maps may route through h itself, so the cost through
    the tile is taken from maps that avoid h (or searched, `_through_cut`; cut_m / cut_o: those
    arrivals are in s.carr already; h, same_*, ex_*: the HexCosts x). Returns (own, opponent's,
    cut_m, cut_o)."""
    h = x.h
    arr = s.arr
    th_m = K.INF
    th_o = K.INF
    for j in range(2):
        m = t.net_mask[tile, r, j]
        if m == 0:
            continue
        if not x.same_m:
            v = BK._pair_through(m, arr[0], arr[1], h == g.cm1, h == g.cm2)
            if v < th_m:
                th_m = v
        if not x.same_o:
            v = BK._pair_through(m, arr[2], arr[3], h == g.co1, h == g.co2)
            if v < th_o:
                th_o = v
    one_line = t.net_mask[tile, r, 1] == 0
    cw = CutWork(s.g, s.sd, s.pn, s.dq)
    if x.ex_m >= K.INF and th_m > 0:
        th_m = _through_cut(t, pos, cw, h, tile, r, g.cm1, g.cm2, cut_m, s.carr[0], s.carr[1])
        cut_m = cut_m or one_line
    if x.ex_o >= K.INF and th_o > 0:
        th_o = _through_cut(t, pos, cw, h, tile, r, g.co1, g.co2, cut_o, s.carr[2], s.carr[3])
        cut_o = cut_o or one_line
    return th_m, th_o, cut_m, cut_o


@hot_inline
def _pair_score(t, pos, s, g, x, tile, r, th_m, th_o):
    """Greedy's score of a move on x.h from both players' costs after it (th_*: through the
    tile, x.ex_*: around h): a win 1e12, completing the opponent's path -1e12, cutting itself off -1e10 (-1e9
    with the opponent cut off too), an auto-win cut 1e10 (1e4 when blocked players do not
    lose), else w_block x the opponent's cost gained + its own saved (each capped at COST_CAP),
    less `defense` when the move leaves p in danger (`_corner_danger`, or x.dang_h)."""
    if th_m == 0:
        return 1e12
    if th_o == 0:
        return -1e12
    my_n = min(th_m, x.ex_m)
    op_n = min(th_o, x.ex_o)
    if my_n >= K.INF:
        return -1e10 if op_n < K.INF else -1e9
    if op_n >= K.INF and g.Do < K.INF:
        return 1e10 if t.blocked_loses else 1e4
    sc = g.w_block * (min(op_n, COST_CAP) - g.do_c) + (g.dm_c - my_n)
    if x.dang_h or _corner_danger(t, pos, s, g, x.h, tile, r):
        sc -= g.defense
    return sc


@hot_inline
def _corner_danger(t, pos, s, g, h, tile, r):
    """Whether tile (tile, r) on h leaves one of p's corner networks a single open line end (an
    opponent's Block there would seal it): the first tile on an empty own corner by its own open
    ends, else the network's open ends (s.need_c) less those the tile covers plus its new ones."""
    ttype = pos.hx[H_TTYPE]
    need_c = s.need_c
    for k in range(2):
        opn = g.open0 if k == 0 else g.open1
        if opn < 0:
            # the first tile on an empty own corner: its own open ends count
            if h == t.corners[g.p, k]:
                newc = 0
                for j in range(2):
                    m = t.net_mask[tile, r, j]
                    for side in range(6):
                        if (m >> side) & 1 and t.nbr[h, side] >= 0 and ttype[t.nbr[h, side]] < 0:
                            newc += 1
                if newc == 1:
                    return True
            continue
        if need_c[k, h] == 0:
            if opn == 1:
                return True
            continue
        newc = opn - 1
        for j in range(2):
            m = t.net_mask[tile, r, j]
            if (m & need_c[k, h]) == 0:
                continue
            for side in range(6):
                if (m >> side) & 1:
                    n = t.nbr[h, side]
                    if n >= 0 and ttype[n] < 0 and need_c[k, n] == 0:
                        newc += 1
        if newc == 1:
            return True
    return False


@hot_inline
def _keep_best(s, rng, sc, best, nbest, h, tile, r):
    """Keep move (h, tile, r) in s.mv if it scores best so far; ties at random (one draw each)."""
    keep, best, nbest = BK._running_best(rng, sc, best, nbest)
    if keep:
        s.mv[0] = h
        s.mv[1] = tile
        s.mv[2] = r
    return best, nbest


@hot
def _through_cut(t, pos, w, h, tile, r, c1, c2, mapped, a1, a2):
    """Exact cost c1 -> c2 through tile (tile, r) on cut hex h: from a1, a2 (arrivals over the
    board's hex sets g, filled here unless `mapped`) for a one-line tile. An X-Cross, whose two
    lines a way may both use, is searched: its lines join the union-find sets they touch in pc
    (int64[NN], a copy of the position's), the board with it goes to hex sets in g2
    (int64[sets_size(NH)] at least), and the board is restored (as the reference _cost_with in
    tests/hexflow_reference.py); sd receives the searches' costs (g, sd, pc, g2: the CutWork w)."""
    g, sd, pc, g2 = w
    hx = pos.hx
    ttype = hx[H_TTYPE]
    emask = hx[H_EMASK]
    netid = pos.netid
    netm = pos.nets[0]
    if t.net_mask[tile, r, 1] == 0:
        if not mapped:
            BK._bfs_sets(c1, c1, h, g, sd, K.FULL)  # dst = src: map only
            BK._arrive(h, sd, t.nbr, ttype, emask, netid, a1)
            BK._bfs_sets(c2, c2, h, g, sd, K.FULL)
            BK._arrive(h, sd, t.nbr, ttype, emask, netid, a2)
        return BK._pair_through(t.net_mask[tile, r, 0], a1, a2, h == c1, h == c2)
    for i in range(pc.shape[0]):
        pc[i] = pos.nets[1, i]
    em = K._write_tile(h, tile, r, t.net_mask, t.emask_t, ttype, emask, netm, netid, pc)
    for side in range(6):  # as _place joins them, on the copy
        n = t.nbr[h, side]
        o = (side + 3) % 6
        if (em >> side) & 1 and n >= 0 and ttype[n] >= 0 and (emask[n] >> o) & 1:
            x = h * 2 + netid[h * 6 + side]
            while pc[x] != x:
                x = pc[x]
            y = n * 2 + netid[n * 6 + o]
            while pc[y] != y:
                y = pc[y]
            if x != y:
                pc[x] = y
    BK._sets(t.nbr, ttype, netm, pc, g2)
    c = BK._bfs_sets(c1, c2, K.NO_HEX, g2, sd, K.STOP)
    ttype[h] = -1
    emask[h] = 0
    for j in range(2):
        netm[h * 2 + j] = 0
    for side in range(6):
        netid[h * 6 + side] = -1
    return c


@hot_inline
def _greedy(t, pos, seat, par, s, rng):
    """`_greedy_move` (par: block_weight, defense): its move code, the pass if it finds no legal
    placement. Under first_tile = "onto_board" a first tile greedy
    picks that the reading forbids (a Block, or lines only off the board: greedy scores every such
    tile a self cut-off, so it picks one only when every tile it holds is one) is replaced by a
    uniform legal move (often the pass)."""
    front, nfront = _frontier(t, pos, seat, s)
    ok = _greedy_move(t, pos, s, front, nfront, seat, rng, par[0], par[1])
    if t.first_onto and pos.sq[Q_PLACED][seat] == 0 and \
            (not ok or (t.emask_t[s.mv[1], s.mv[2]] & t.onboard[s.mv[0]]) == 0):
        return _uniform_legal(t, pos, s, rng)
    return encode(t, s.mv[0], s.mv[1], s.mv[2]) if ok else t.pass_move


# ---- lookahead: greedy that never hands the opponent an immediate win -----------------------
@hot_inline
def _copy_rows(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]


@hot
def _copy_into(a, b):
    """b := a, every array but the shared work rows (a position copy that allocates nothing)."""
    _copy_rows(a.hx, b.hx)
    for i in range(a.netid.shape[0]):
        b.netid[i] = a.netid[i]
    _copy_rows(a.nets, b.nets)
    _copy_rows(a.bag, b.bag)
    _copy_rows(a.hand, b.hand)
    _copy_rows(a.wit[0], b.wit[0])
    _copy_rows(a.wit[1], b.wit[1])
    _copy_rows(a.sq, b.sq)
    for i in range(a.st.shape[0]):
        b.st[i] = a.st[i]


@hot
def _holds(t, pos, q, tile, own):
    """May seat q place `tile` now, as the bot sees it: in its hand (own), or else among q's tiles
    not on the board (the opponent's hand and bag are hidden, their contents together are public)."""
    if own:
        for k in range(t.hand_size):
            if pos.hand[q, k] == tile:
                return True
        return False
    return t.tile_count[q, tile] > pos.st[ST_TILES + q * t.n_types + tile]


@hot
def _winning_move(t, pos, q, own, x, rng):
    """A placement with which q, to move, ends the game as its winner (`_reach_winner`), or -1.
    Tried only where one can: on a hex that finishes q's way when q's completion cost is one hex,
    and (blocked_player_loses) on a hex that every cheapest way of the opponent passes (a cut
    needs one); every tile q may hold (`_holds`) in every rotation that fits there, each played
    on the scratch position p2 (x: the whole Scratch)."""
    s = x.bots
    o = 1 - q
    ttype = pos.hx[H_TTYPE]
    g = s.g
    BK._sets(t.nbr, ttype, pos.nets[0], pos.nets[1], g)
    cq0 = t.corners[q, 0]
    cq1 = t.corners[q, 1]
    dq = BK._bfs_sets(cq0, cq1, K.NO_HEX, g, s.maps[0], K.FULL)
    BK._bfs_sets(cq1, cq0, K.NO_HEX, g, s.maps[1], K.FULL)
    do = BK._bfs_sets(t.corners[o, 0], t.corners[o, 1], K.NO_HEX, g, s.maps[2], K.FULL)
    BK._bfs_sets(t.corners[o, 1], t.corners[o, 0], K.NO_HEX, g, s.maps[3], K.FULL)
    BK._critical(s.maps[2], s.maps[3], do, t.nh, ttype, s.crit[1], s.cnt)
    first = pos.sq[Q_PLACED][q] == 0
    for c in range(2 if first else pos.st[NFRONT]):
        h = (cq0 if c == 0 else cq1) if first else pos.hx[H_FRONT][c]
        if ttype[h] >= 0:
            continue
        finish = dq == 1 and s.maps[0][h * 2] + s.maps[1][h * 2] - 1 == 1
        cut = t.blocked_loses and s.crit[1, h] == 1
        if not (finish or cut):
            continue
        for tile in range(t.n_types):
            if not _holds(t, pos, q, tile, own):
                continue
            for i in range(t.n_orient[tile]):
                r = t.rot_of[tile, i]
                if not (K._fits(True, first, h == cq0 or h == cq1, pos.hx[H_ADJ][h], pos.hx[H_NEED][h],
                                t.emask_t[tile, r], tile == K.BLOCK, t.block_connected)
                        and _reading_allows(t, q, h, t.emask_t[tile, r], first)):
                    continue
                m = encode(t, h, tile, r)
                _copy_into(pos, x.p2)
                apply(t, x.p2, m, rng)
                if x.p2.st[REASON] >= 0 and _reach_winner(t, x.p2, x.p2.work[W_STACK][:2]) == q:
                    return m
    return -1


@hot
def _safe(t, pos, seat, m, x, rng):
    """After move m (played on x.p1), the opponent has no winning reply (a game m ends is safe
    unless the opponent wins it)."""
    _copy_into(pos, x.p1)
    apply(t, x.p1, m, rng)
    if x.p1.st[REASON] >= 0:
        return _reach_winner(t, x.p1, x.p1.work[W_STACK][:2]) != 1 - seat
    return _winning_move(t, x.p1, 1 - seat, np.bool_(False), x, rng) < 0


@hot
def _lookahead(t, pos, seat, par, x, rng):
    """An immediate win if it has one; else greedy's move if the opponent has no winning reply
    to it; else, of the legal moves in decreasing order of greedy's measure of the position after
    them (`_measure` with this bot's block_weight; equal values in legal_moves' order), the first
    that leaves the opponent none; greedy's move if every move hands one over (x: the whole
    Scratch, its trial positions p1 and p2)."""
    s = x.bots
    m = _winning_move(t, pos, seat, np.bool_(True), x, rng)
    if m >= 0:
        return m
    mg = _greedy(t, pos, seat, par, s, rng)
    if mg == t.pass_move or _safe(t, pos, seat, mg, x, rng):
        return mg
    k = legal_moves(t, pos, s.moves)
    for i in range(k):
        _copy_into(pos, x.p1)
        apply(t, x.p1, s.moves[i], rng)
        if x.p1.st[REASON] >= 0:  # no move wins (above): this one loses or draws at once
            s.vals[i] = -np.inf if _reach_winner(t, x.p1, x.p1.work[W_STACK][:2]) != -1 else -1e18
        else:
            s.vals[i] = _measure(t, x.p1, seat, par[0])
    for _ in range(k):
        best = -1
        for i in range(k):
            if s.vals[i] > -np.inf and (best < 0 or s.vals[i] > s.vals[best]):
                best = i
        if best < 0:
            break
        if s.moves[best] != mg and _safe(t, pos, seat, s.moves[best], x, rng):
            return s.moves[best]
        s.vals[best] = -np.inf
    return mg


# bot_move and _greedy are compiled inline into their callers (the engine's bot_move forwarder,
# the rollout's greedy branch, lookahead): numba compiles every separate function with all it
# calls linked in and optimises and emits all of that again, so each layer between the driver
# and _greedy_move was a second copy of the greedy bot to compile (a first greedy run: 126,000
# LLVM instructions optimised before, 110,000 after).
@hot_inline
def bot_move(t, pos, seat, code, par, scratch, rng):
    """The random and greedy bots on the position's arrays; a bot that finds no legal placement
    passes. Lookahead is `costly_move`'s (the engine's drivers never ask this function for it)."""
    s = scratch.bots
    if code == K.BOT_GREEDY:
        return _greedy(t, pos, seat, par, s, rng)
    return _random_bot(t, pos, seat, s, rng)


@hot
def costly_move(t, pos, seat, code, par, scratch, rng):
    """Lookahead, the engine's costly bot of Race (sim.engine.interface `implement`'s costly_bots): its
    code (`_lookahead`, `_winning_move`, `_safe` and a second apply and legal_moves for its
    trial positions) is compiled only for a line-up that seats it."""
    return _lookahead(t, pos, seat, par, scratch, rng)


# apply compiled again to be inlined into a loop of decisions (one source), as the random bot is:
# numba passes a NamedTuple argument as every field of every array it holds, which a call per
# decision pays for. `rollout` (random-vs-random games and the search's rollouts) plays on it.
# Inlining the whole of bot_move instead (its greedy branch, and lookahead then, never taken in a
# random game) made the old chunk loop of random games 2% slower and its compile twice as long.
_apply = hot_inline(apply.py_func)


@hot
def rollout(t, pos, code, par, s, rng, cap):
    """Bot `code` for every seat from pos, at most cap decisions; True if the game ended
    (sim.engine.interface: the search's rollouts, and the chunk driver's games of one bot). The random
    bot and apply inline, and greedy's bot_move (inline too: one compiled copy of the bots).
    Never lookahead's, a costly bot (sim.engine.interface `implement`): one_bot refuses its line-ups."""
    d = 0
    while pos.st[REASON] < 0:
        if d >= cap:
            return False
        seat = pos.st[CUR]
        if code == K.BOT_GREEDY:
            m = bot_move(t, pos, seat, code, par, s, rng)
        else:
            m = _random_bot(t, pos, seat, s.bots, rng)
        _apply(t, pos, m, rng)
        d += 1
    return True


engine.implement(Tables, no_alloc=True, new_position=race.new_position, to_move=race.to_move,
                 legal_moves=legal_moves, apply=apply, result=race.result, copy_position=race.copy_position,
                 sample_hidden=race.sample_hidden, evaluate=evaluate, new_scratch=new_scratch, bot_move=bot_move,
                 reset=race.reset, copy_into=engine.copy_fields, winner=race.winner, rollout=rollout,
                 rollout_bots=(K.BOT_RANDOM,), costly_move=costly_move, costly_bots=(K.BOT_LOOKAHEAD,))
