"""HEXFLOW Tri-Board's bots on the engine interface, over tri_engine.py's rules (both Tri modes):
the random bot, the distance-map greedy (`_greedy_move`), greedy's measure of a position
(`evaluate`), the bots' scratch (`new_scratch`), `bot_move` and `rollout` (a game of one bot on
every seat: the search's rollouts and the chunk driver's one-bot games); the registration of
the Tri modes with the engine (`engine.implement`, naming tri_engine.py's rule functions and
these). The game object plays them through the engine's drivers (game.py, engine.EngineGame).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim import engine
from sim.engine.jit import hot, hot_inline, kernel
from sim.engine.rng import below

from . import bot_kernel as BK
from . import kernel as K
from .bot_kernel import _critical, _pair_through
from .kernel import INF, _find, _link, _six
from .layout import CUR, NFRONT, REASON
from .race import H_ADJ, H_EMASK, H_FRONT, H_NEED, H_TTYPE, Q_PLACED
from .rules import WILD
from .tiles import BLOCK
from .tri_engine import (
    BOT_GREEDY,
    LINKED,
    W_D,
    W_DQ,
    W_SEATS,
    _legal,
    _options,
    _outcome,
    apply,
    copy_position,
    encode,
    legal_moves,
    new_position,
    reset,
    result,
    sample_hidden,
    to_move,
    winner,
)
from .tri_tables import Tables


class Scratch(NamedTuple):
    """The bots' working arrays (allocated once per chunk)."""

    ot: np.ndarray  # options: hand tile, declared type, rotation
    od: np.ndarray
    orr: np.ndarray
    fit: np.ndarray
    mv: np.ndarray
    dfw: np.ndarray
    dgo: np.ndarray
    dq: np.ndarray
    crit: np.ndarray
    cnt: np.ndarray
    a1: np.ndarray
    a2: np.ndarray
    src: np.ndarray
    newc: np.ndarray
    wq: np.ndarray
    endm: np.ndarray


@hot
def _dist_map(src, nsrc, lnk, ttype, netm, d, dq):
    """0-1 BFS from the hexes src[:nsrc] (empty: cost 1, placed: each network cost 0) over the
    potential graph; d[node] = empty hexes to fill on the cheapest way, the node's own included.
    Steps come from the link table (`_relink`); the search is kernel._search01 with no goal.
    dq: int64[12 * 2 * NH + 4]. (Race's `kernel._bfs` is the one-source, one-goal case.)"""
    head, tail = BK._start01(d, dq)
    for k in range(nsrc):
        head, tail = BK._seed01(src[k], ttype, netm, d, dq, head, tail)
    BK._search01(lnk, K.NO_HEX, BK.NO_GOAL, K.FULL, d, dq, head, tail)


@hot
def _n_fits(p, h, nopt, corner_owner, need, emask_t, od, orr, fit, block_connected):
    """How many of the turn's options seat p may place on frontier hex h (empty, next to a
    tile): those kernel._tile_fits lets onto a hex whose need is need[h], none on a corner
    reserved for another seat. fit[x] caches the count per need value x (-1 = not yet counted)."""
    co = corner_owner[h]
    if co >= 0 and co != p:
        return 0
    x = need[h]
    if fit[x] < 0:
        c = 0
        for k in range(nopt):
            t = od[k]
            if K._tile_fits(False, emask_t[t, orr[k]], x, t == BLOCK, block_connected):
                c += 1
        fit[x] = c
    return fit[x]


@hot_inline
def _nth_legal(t, pos, s, p, h, i, nopt):
    """s.mv = (h, tile, declared type, rotation) of the i-th legal option on hex h (0-based, in
    option order); False if h has i or fewer. The random bot's fallback after failed draws."""
    hx = pos.hx
    for k in range(nopt):
        if _legal(p, h, s.od[k], s.orr[k], pos.sq[Q_PLACED], t.corners, t.corner_owner, hx[H_TTYPE], hx[H_ADJ],
                  hx[H_NEED], t.emask_t, t.block_connected):
            if i == 0:
                s.mv[0] = h
                s.mv[1] = s.ot[k]
                s.mv[2] = s.od[k]
                s.mv[3] = s.orr[k]
                return True
            i -= 1
    return False


@hot_inline
def _random_move(t, pos, s, p, rng):
    """Uniform over legal (hex, hand tile, declared type, rotation), into s.mv: rejection
    sampling over (frontier hex, option) pairs, then, when 24 tries fail, the i-th of all legal
    pairs in (frontier order, option order) with i uniform. Legality on a frontier hex depends
    only on need[h] (and the reserved corners), so the pairs are counted per need value (`_n_fits`)
    rather than tested one by one."""
    nopt = _options(p, pos.hand, t.n_orient, t.rot_of, t.wild_block, s.ot, s.od, s.orr)
    if nopt == 0:
        return False
    hx = pos.hx
    placed_any = pos.sq[Q_PLACED]
    nfront = pos.st[NFRONT]
    if placed_any[p] != 0 and nfront > 0:
        for _ in range(24):
            h = hx[H_FRONT][below(rng, nfront)]
            k = below(rng, nopt)
            if _legal(p, h, s.od[k], s.orr[k], placed_any, t.corners, t.corner_owner, hx[H_TTYPE], hx[H_ADJ],
                      hx[H_NEED], t.emask_t, t.block_connected):
                s.mv[0] = h
                s.mv[1] = s.ot[k]
                s.mv[2] = s.od[k]
                s.mv[3] = s.orr[k]
                return True
    if placed_any[p] == 0:  # the first tile: only the own corner
        h = t.corners[p]
        n = 0
        for k in range(nopt):
            if _legal(p, h, s.od[k], s.orr[k], placed_any, t.corners, t.corner_owner, hx[H_TTYPE], hx[H_ADJ],
                      hx[H_NEED], t.emask_t, t.block_connected):
                n += 1
        if n == 0:
            return False
        return _nth_legal(t, pos, s, p, h, below(rng, n), nopt)
    return _random_fallback(t, pos, s, p, rng, nopt)


@hot
def _random_fallback(t, pos, s, p, rng, nopt):
    """The random bot after 24 failed draws: the i-th legal pair, i uniform over all of them."""
    hx = pos.hx
    nfront = pos.st[NFRONT]
    for x in range(64):
        s.fit[x] = -1
    n = 0
    for j in range(nfront):
        n += _n_fits(p, hx[H_FRONT][j], nopt, t.corner_owner, hx[H_NEED], t.emask_t, s.od, s.orr, s.fit,
                     t.block_connected)
    if n == 0:
        return False
    i = below(rng, n)
    for j in range(nfront):
        h = hx[H_FRONT][j]
        c = _n_fits(p, h, nopt, t.corner_owner, hx[H_NEED], t.emask_t, s.od, s.orr, s.fit, t.block_connected)
        if i >= c:
            i -= c
            continue
        return _nth_legal(t, pos, s, p, h, i, nopt)
    return False


@hot
def _ends_after(t, pos, p, h, d, r, first, end, ne):
    """Open line ends of p's corner network after tile (d, r) lands on h (end: kernel._open_ends'
    map before it, ne: its count)."""
    ttype = pos.hx[H_TTYPE]
    nbr = t.nbr
    if first:
        k = 0
        for j in range(2):
            m = t.net_mask[d, r, j]
            for s in range(6):
                if (m >> s) & 1 and nbr[h, s] >= 0 and ttype[nbr[h, s]] < 0:
                    k += 1
        return k
    if end[h] == 0:
        return ne
    par = pos.nets[1]
    netm = pos.nets[0]
    c = t.corners[p]
    r0 = _find(par, c * 2) if netm[c * 2] != 0 else -5
    r1 = _find(par, c * 2 + 1) if netm[c * 2 + 1] != 0 else -5
    k = ne - 1
    for j in range(2):
        m = t.net_mask[d, r, j]
        if m == 0:
            continue
        joined = False
        for s in range(6):
            e = _link(h * 2, s, nbr, ttype, pos.hx[H_EMASK], pos.netid) if (m >> s) & 1 else -1
            if e >= 0 and (e & 1) == 0:  # a placed line across s
                rr = _find(par, e >> 1)
                if rr == r0 or rr == r1:
                    joined = True
        if joined:
            for s in range(6):
                if (m >> s) & 1:
                    n = nbr[h, s]
                    if n >= 0 and ttype[n] < 0 and end[n] == 0:
                        k += 1
    return k


@hot
def _upper(p, cp, wo, wq, ns):
    """The greedy's score for p's new cost cp when every opponent q keeps wo[q] (its cost
    avoiding the hex): an upper bound on the real score once cp > 0 (INF when cp = 0, a win).
    The kernel passes wo and wq as 3-tuples (no reference counting per call)."""
    if cp == 0:
        return 1e18
    sc = 0.0
    sc = -min(cp, 30)
    for q in range(ns):
        if q != p:
            sc += wq[q] * min(wo[q], 30)
    return sc


@hot
def _greedy_move(t, pos, s, p, rng, block_weight, defense):
    """Distance-map player. Per turn, for every seat q: cheapest completion D[q] (empty hexes
    still to fill from q's corner to a centre hex) and maps from the corner (dfw[q]) and from the
    centre hexes (dgo; the same for every seat). A placement on h then gives q
    min(way through the new tile, D[q] or D[q] + 1 if h was on every cheapest way) - exact for
    completion (0). Score = -own + block_weight * (nearest opponent + half the other): wins at
    once, never hands a win over, blocks the most dangerous opponent; pays `defense` when its
    corner network is left with one open line end (an opponent's Block there seals it; half
    with two in a 3-player game, where two opponents move before it; three times with none).
    The move goes to s.mv (hex, hand tile, declared type, rotation); False if it has none.
    Steps: `_greedy_maps` (per turn), `_greedy_hex` (per candidate hex), `_option_score` and
    `_keep_best` (per option)."""
    nopt = _options(p, pos.hand, t.n_orient, t.rot_of, t.wild_block, s.ot, s.od, s.orr)
    if nopt == 0:
        return False
    _greedy_maps(t, pos, s, p, block_weight)
    hx = pos.hx
    first = pos.sq[Q_PLACED][p] == 0
    block_opt = False  # an option fitting a hex no line points into (only a Block can): else only
    for k in range(nopt):  # hexes a line points into can take a tile
        if K._tile_fits(False, t.emask_t[s.od[k], s.orr[k]], 0, s.od[k] == BLOCK, t.block_connected):
            block_opt = True
    # the open line ends of p's corner network: s.endm[h] != 0 where one points into empty hex h
    ne = max(0, BK._open_ends(t.corners[p], t.nbr, hx[H_TTYPE], hx[H_EMASK], pos.nets[0], pos.nets[1], s.endm))
    # bounds: a candidate leaves each opponent q at most `without` (its cost avoiding h), and p at
    # least the cheapest pair of arrivals; one scoring below the best so far (strictly: ties draw
    # from rng) is skipped without its opponents' searches. Float rounding is monotone, so the
    # bound summed in the score's order never undercuts the score.
    prune = block_weight >= 0.0 and defense >= 0.0
    g = GreedyTurn(p, nopt, first, ne, prune, defense)
    bestsc = -1e18
    nbest = 0
    nfront = pos.st[NFRONT]
    for i in range(nfront + 1):
        if first:
            if i > 0:
                break
            h = t.corners[p]
        else:
            if i == nfront:
                break
            h = hx[H_FRONT][i]
            if hx[H_NEED][h] == 0 and not block_opt:
                continue
        bestsc, nbest = _greedy_hex(t, pos, s, g, h, rng, bestsc, nbest)
    return nbest > 0


@hot
def _greedy_maps(t, pos, s, p, block_weight):
    """The greedy's maps of a turn: s.dgo from the centre hexes, s.dfw[q] from each seat's corner,
    each seat's completion cost dmin[q] (s.newc[ns:2ns]), the hexes on all its cheapest ways
    (s.crit[q]) and the opponent weights s.wq: an opponent weighs fully when level with or ahead
    of p (or one tile from the centre), a quarter otherwise (block only when threatened)."""
    ns = t.n_seats
    nc = t.centres.shape[0]
    ttype = pos.hx[H_TTYPE]
    netm = pos.nets[0]
    for k in range(nc):
        s.src[k] = t.centres[k]
    _dist_map(s.src, nc, pos.lnk, ttype, netm, s.dgo, s.dq)
    dmin = s.newc[ns:]
    for q in range(ns):
        s.src[0] = t.corners[q]
        _dist_map(s.src, np.int64(1), pos.lnk, ttype, netm, s.dfw[q], s.dq)
        best = INF
        for k in range(nc):
            x = t.centres[k]
            if ttype[x] < 0:
                best = min(best, s.dfw[q, x * 2])
            else:
                for j in range(2):
                    if netm[x * 2 + j] != 0:
                        best = min(best, s.dfw[q, x * 2 + j])
        dmin[q] = best
        _critical(s.dfw[q], s.dgo, best, t.nh, ttype, s.crit[q], s.cnt)
    for q in range(ns):
        s.wq[q] = block_weight if dmin[q] < dmin[p] or dmin[q] <= 2 else 0.25 * block_weight


class GreedyTurn(NamedTuple):
    """What the greedy works out once a turn (`_greedy_move`) and reads at every candidate hex:
    the seat p, its options (s.ot, s.od, s.orr[:nopt]), whether this is its first tile, the open
    line ends of its corner network (ne), whether the score bound prunes, and `defense`."""

    p: np.int64
    nopt: np.int64
    first: np.bool_
    ne: np.int64
    prune: np.bool_
    defense: np.float64


@hot_inline
def _greedy_hex(t, pos, s, g, h, rng, bestsc, nbest):
    """Score every option of the turn (g) on candidate hex h and keep the best (bestsc, nbest:
    the best score so far and how many options share it; returned updated)."""
    p = g.p
    first = g.first
    prune = g.prune
    ns = t.n_seats
    hx = pos.hx
    # _legal's test of the hex itself, once for all the options
    co = t.corner_owner[h]
    if (co >= 0 and co != p) or not K._hex_open(hx[H_TTYPE][h] < 0, first, h == t.corners[p], hx[H_ADJ][h]):
        return bestsc, nbest
    dmin = s.newc[ns:]
    wo = s.newc[2 * ns:]
    for q in range(ns):
        wo[q] = INF if h == t.corners[q] else dmin[q] + s.crit[q, h]
    wot = (wo[0], wo[1], wo[ns - 1])  # ns = 2 or 3; _upper reads the first ns
    wqt = (s.wq[0], s.wq[1], s.wq[ns - 1])
    at1 = h == t.corners[p]
    at2 = t.is_centre[h] == 1
    # arrivals (the cost of the node a line on side s would join, INF: none) read from the
    # link table here and handed to _pair_through as tuples: a call with array arguments
    # pays numba's reference counting, which cost more than its work
    b = h * 12
    for side in range(6):
        e = pos.lnk[b + side]
        s.a1[p, side] = INF if e < 0 else s.dfw[p, e >> 1]
        s.a2[side] = INF if e < 0 else s.dgo[e >> 1]
    own = _six(s.a1[p])
    cen = _six(s.a2)
    if prune:
        m1 = INF
        m2 = INF
        for side in range(6):
            m1 = min(m1, s.a1[p, side])
            m2 = min(m2, s.a2[side])
        lb = m2 if at1 else (m1 if at2 else m1 + m2)
        if _upper(p, min(lb, wo[p]), wot, wqt, ns) < bestsc:
            return bestsc, nbest
    have_opp = False
    nd = hx[H_NEED][h]
    for k in range(g.nopt):
        d = s.od[k]
        r = s.orr[k]
        if not K._tile_fits(first, t.emask_t[d, r], nd, d == BLOCK, t.block_connected):
            continue  # _legal's test of the option
        via = INF
        for j in range(2):
            via = min(via, _pair_through(t.net_mask[d, r, j], own, cen, at1, at2))
        s.newc[p] = min(via, wo[p])
        if prune and _upper(p, s.newc[p], wot, wqt, ns) < bestsc:
            continue
        if not have_opp:
            have_opp = True
            for q in range(ns):
                if q != p:
                    for side in range(6):
                        e = pos.lnk[b + side]
                        s.a1[q, side] = INF if e < 0 else s.dfw[q, e >> 1]
        for q in range(ns):
            if q != p:
                via = INF
                theirs = _six(s.a1[q])
                for j in range(2):
                    via = min(via, _pair_through(t.net_mask[d, r, j], theirs, cen, h == t.corners[q], at2))
                s.newc[q] = min(via, wo[q])
        sc = _option_score(t, pos, s, g, h, d, r)
        bestsc, nbest = _keep_best(s, rng, sc, bestsc, nbest, h, k)
    return bestsc, nbest


@hot_inline
def _option_score(t, pos, s, g, h, d, r):
    """The greedy's score of type d in rotation r on h, once s.newc[:ns] holds every seat's new
    completion cost: a win 1e9 (less 1e6 per opponent it completes too), else -own cost +
    weighted opponents' (each capped at 30), -1e8 if it hands a win over, less `defense` for
    the open line ends it leaves p's corner network."""
    p = g.p
    first = g.first
    ne = g.ne
    defense = g.defense
    ns = t.n_seats
    if s.newc[p] == 0:
        sc = 1e9
        for q in range(ns):
            if q != p and s.newc[q] == 0:
                sc -= 1e6
        return sc
    hand_over = False
    sc = 0.0 - min(s.newc[p], 30)
    for q in range(ns):
        if q == p:
            continue
        if s.newc[q] == 0:
            hand_over = True
        sc += s.wq[q] * min(s.newc[q], 30)
    if hand_over:
        sc -= 1e8
    ea = ne  # a tile off the corner network's open ends leaves them as they are
    if first or s.endm[h] != 0:
        ea = _ends_after(t, pos, p, h, d, r, first, s.endm, ne)
    if ea == 0:
        sc -= 3.0 * defense
    elif ea == 1:
        sc -= defense
    elif ea == 2 and ns == 3:
        sc -= 0.5 * defense
    return sc


@hot_inline
def _keep_best(s, rng, sc, bestsc, nbest, h, k):
    """Keep option k on h in s.mv if it scores best so far; ties at random (one draw each)."""
    if sc > bestsc:
        bestsc = sc
        nbest = 1
    elif sc == bestsc:
        nbest += 1
        if below(rng, nbest) != 0:
            return bestsc, nbest
    else:
        return bestsc, nbest
    s.mv[0] = h
    s.mv[1] = s.ot[k]
    s.mv[2] = s.od[k]
    s.mv[3] = s.orr[k]
    return bestsc, nbest


@hot
def _linked(t, pos):
    """The link table, brought up to date once (from scratch: kernel._link for every node and
    side) the first time the greedy or the evaluation reads it; `apply` keeps it so from then on
    (random games never pay for it)."""
    if pos.st[LINKED]:
        return
    ttype = pos.hx[H_TTYPE]
    netm = pos.nets[0]
    for h in range(t.nh):
        for j in range(2):
            u = h * 2 + j
            m = (63 if j == 0 else 0) if ttype[h] < 0 else netm[u]
            for s in range(6):
                pos.lnk[u * 6 + s] = _link(u, s, t.nbr, ttype, pos.hx[H_EMASK], pos.netid) if (m >> s) & 1 else -1
    pos.st[LINKED] = 1


@hot
def _costs(t, pos, d, dq, dmin):
    """dmin[q] = the greedy's completion cost of every seat q (empty hexes still to fill from its
    corner to the nearest centre hex, `_dist_map` over the link table); d, dq its work."""
    _linked(t, pos)
    ttype = pos.hx[H_TTYPE]
    netm = pos.nets[0]
    src = pos.work[W_SEATS][5 * t.n_seats:5 * t.n_seats + 1]
    for q in range(t.n_seats):
        src[0] = t.corners[q]
        _dist_map(src, np.int64(1), pos.lnk, ttype, netm, d, dq)
        best = INF
        for k in range(t.centres.shape[0]):
            x = t.centres[k]
            if ttype[x] < 0:
                best = min(best, d[x * 2])
            else:
                for j in range(2):
                    if netm[x * 2 + j] != 0:
                        best = min(best, d[x * 2 + j])
        dmin[q] = best


@kernel
def evaluate(t, pos, seat):
    """Greedy's measure of a position (`_greedy_move`'s score without the move's own terms):
    minus the seat's completion cost plus each opponent's, weighted by block_weight (its default,
    1.5) for an opponent level with or ahead of the seat or one tile from a centre hex and a
    quarter of it otherwise, each cost capped at 30 as greedy compares them; +-1e9 once the game
    is decided (a winner of a shared victory counts as winning, a draw 0)."""
    ns = t.n_seats
    if pos.st[REASON] >= 0:
        wins, _ = _outcome(t, pos, np.bool_(False), pos.work[W_SEATS][6 * ns:7 * ns])
        return 0.0 if wins == 0 else (1e9 if (wins >> seat) & 1 else -1e9)
    dmin = pos.work[W_SEATS][6 * ns:7 * ns]
    _costs(t, pos, pos.work[W_D][:t.nh * 2], pos.work[W_DQ][:t.nh * 24 + 4], dmin)
    bw = t.eval_block_weight
    sc = -min(dmin[seat], 30.0)
    for q in range(ns):
        if q != seat:
            wq = bw if dmin[q] < dmin[seat] or dmin[q] <= 2 else 0.25 * bw
            sc += wq * min(dmin[q], 30)
    return sc


@kernel
def new_scratch(t):
    nh = t.nh
    nn = nh * 2
    ns = t.n_seats
    nopt = t.hand_size * 70
    return Scratch(np.empty(nopt, np.int64), np.empty(nopt, np.int64), np.empty(nopt, np.int64),
                   np.empty(64, np.int64), np.empty(4, np.int64), np.empty((ns, nn), np.int64), np.empty(nn, np.int64),
                   np.empty(nn * 12 + 4, np.int64), np.zeros((ns, nh), np.int64), np.empty(nh + 2, np.int64),
                   np.empty((ns, 6), np.int64), np.empty(6, np.int64), np.empty(max(3, t.centres.shape[0]), np.int64),
                   np.empty(3 * ns, np.int64), np.empty(ns, np.float64), np.zeros(nh, np.int64))


# inline into the engine's bot_move forwarder (and the rollout): one compiled copy of the bots
# fewer (race_bots.py's bot_move says why)
@hot_inline
def bot_move(t, pos, seat, code, par, scratch, rng):
    """The random and greedy bots on the position's arrays (par: block_weight, defense);
    a bot that finds no legal placement passes."""
    s = scratch
    if code == BOT_GREEDY:
        _linked(t, pos)
        ok = _greedy_move(t, pos, s, seat, rng, par[0], par[1])
    else:
        ok = _random_move(t, pos, s, seat, rng)
    if not ok:
        return t.pass_move
    return encode(t, s.mv[0], 1 if s.mv[1] == WILD else 0, s.mv[2], s.mv[3])


# ---- Python side: chunks and traced games through the engine's drivers ---------------------------
# bot_move and apply compiled again to be inlined into a loop of decisions (one source): numba
# passes a NamedTuple argument as every field of every array it holds, which a call per decision
# pays for. `rollout` (the chunk driver's games of one bot, the search's rollouts) plays on them.
_apply_inline = hot_inline(apply.py_func)
_bot_move_inline = hot_inline(bot_move.py_func)


@hot
def rollout(t, pos, code, par, s, rng, cap):
    """Bot `code` for every seat from pos, at most cap decisions; True if the game ended
    (sim.engine.interface: the search's rollouts, and the chunk driver's games of one bot)."""
    d = 0
    while pos.st[REASON] < 0:
        if d >= cap:
            return False
        _apply_inline(t, pos, _bot_move_inline(t, pos, pos.st[CUR], code, par, s, rng), rng)
        d += 1
    return True



# copies share the work rows (Position), as copy_fields keeps them
engine.implement(Tables, no_alloc=True, new_position=new_position, to_move=to_move, legal_moves=legal_moves,
                 apply=apply, result=result, copy_position=copy_position, sample_hidden=sample_hidden,
                 evaluate=evaluate, new_scratch=new_scratch, bot_move=bot_move, reset=reset,
                 copy_into=engine.copy_fields, winner=winner, rollout=rollout,
                 rollout_bots=(K.BOT_RANDOM,))
