"""HEXFLOW Tri-Board's rules on the engine interface (sim/engine/interface.py), one module for both
Tri modes: "tri" (3 seats in the fixed order III, II, I, its own 18-tile bag with the Wildcard)
and "tri2p" (seats II and III, the Race bag, corner I cut out of the board, the blocked-player
loss). The modes differ only in table fields (tri_tables.py: seats, turn order, corners, bag,
board links, blocked_loses); the rule functions are the same code: the set-up (dots, then each
seat's bag; the rules draw nothing after it), legality, `apply` with the tiebreak (`_resolve`)
and the draw list (`_standing`), `result`, `winner`. The bots and the engine registration are in
tri_bots.py.

The board of side 14 (105 hexes; index = column by column, top to bottom, see triboard.py;
drawn as built, one side vertical):

    a1=0    b1=14   c1=27  ...  m1=102  n1=104      a1: corner II,  a14: corner III,
    a2=1    b2=15   c2=28  ...  m2=103              n1: corner I (in tri2p a dead hex: no
    ...     ...     ...                                 tile, no transit, cut out of nbr)
    a13=12  b13=26                                   centre hexes e5=54, e6=55, f5=64
    a14=13                                           (side 13: one centre hex e5=50)

Sides of a hex: 0 T, 1 TR, 2 BR, 3 B, 4 BL, 5 TL (nbr[h, s] = the neighbour across side s).
Graph nodes as in kernel.py: h*2 = empty hex h, h*2 + j = network j of the tile on h.

A move is one int64: seat to move places declared type d in rotation r on hex h, from its hand's
Wildcard when w = 1, as `((h * 2 + w) * n_types + d) * 6 + r`; `pass_move` (= nh * 2 * n_types *
6) is the pass, the only legal move of a seat with no legal placement.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim import engine
from sim.engine.jit import entry, hot, hot_inline, kernel

from . import kernel as K
from . import race
from .kernel import (  # noqa: F401  (E_*: read as tri_engine.E_* by the tests)
    E_BLOCKED,
    E_BOTH_BLOCKED,
    E_OPP_PATH,
    E_PATH,
    E_SELF_BLOCKED,
    E_ST_CLOSEST,
    E_ST_DRAW,
    E_TURN_CAP,
    INF,
    _best_path,
    _find,
    _lay_dots,
    _place,
)
from .layout import (  # Tri's fields: layout.py (wit int64[ns, nh], lnk int64[nh * 12])
    CONSEC,
    CUR,
    FIRST,
    NFRONT,
    REASON,
    TURN,
    W_SEEN,
    W_STACK,
    W_STAMP,
    Position,
)
from .race import (
    H_ADJ,
    H_DOTS,
    H_EMASK,
    H_FRONT,
    H_MULT,
    H_NEED,
    H_TOWNER,
    H_TTYPE,
    Q_BAGN,
    Q_BLOCKED,
    Q_PLACED,
)
from .rules import BOTS, WILD, tri_seats
from .tiles import BLOCK
from .tri_tables import (
    C_BLOCK_CHECK,
    C_BLOCK_CONNECTED,
    C_BLOCKED_LOSES,
    C_CORNER_BLOCK,
    C_DOTS_RANDOM,
    C_HAND,
    C_MAX_TURNS,
    C_SHARED,
    C_STALEMATE,
    C_WILD_BLOCK,
    Tables,
    TriTables,
)

# tiebreak levels (column hexflow_tiebreak)
TB_NONE, TB_POINTS, TB_DOTS, TB_ORDER = 0, 1, 2, 3
BOT_RANDOM, BOT_GREEDY = K.BOT_RANDOM, K.BOT_GREEDY
# the draw list's key of a seat: (INF - reach) << KEY_SHIFT * 2 | points << KEY_SHIFT | dot hexes,
# ordered as the tuple (-reach, points, dot hexes): points (at most 10 a tile, one tile a hex)
# and dot hexes stay below 1 << KEY_SHIFT on every allowed board (test_hexflow_tri_rules_data)
KEY_SHIFT = 12
# the result row: the engine's four columns and three score slots (tri2p leaves the third 0),
# then the game's own columns, three slots per per-seat tally
O_WINNER, O_REASON, O_TURNS, O_FIRST = range(4)
O_SCORE = 4
O_SHARED, O_NWIN, O_TIEBREAK = 7, 8, 9
O_PASS = 10
O_BLOCKS = 13
O_REACH = 16
O_WILD = 19
N_OUT = 22
# position.st fields (layout.py's CUR, TURN, CONSEC, REASON, FIRST, NFRONT among them): the
# winners' bit mask, the tiebreak level, the place in the turn order, the link table kept
WINS, TIEBREAK, OI, LINKED = 3, 5, 8, 9
N_ST = 10
# further rows of position.sq (after Race's Q_BAGN, Q_PLACED, Q_BLOCKED): per-seat tallies
Q_PASS, Q_BLOCKS, Q_WILD = 3, 4, 5
N_Q = 6
# rows of position.work (their contents never carry from one call to the next, so copies share
# them): _reach_goal's visit marks, stamp and stack; _best_path's stacks and marks; the tiebreak's
# multipliers and per-seat values; legal_moves' options; evaluate's distance map and queue
# (layout.py's W_SEEN, W_STAMP, W_STACK first)
W_SN, W_SS, W_ON, W_HC, W_BN, W_MULTS, W_SEATS, W_OPTS, W_D, W_DQ = range(3, 13)
N_W = 13


def build_tables(rules: dict[str, Any]) -> Tables:
    """The Tri-Board tables of a resolved rule set (TriTables' arrays, named)."""
    tb = TriTables(rules)
    cfg = tb.cfg
    ns = len(tb.seats)
    nh = tb.nbr.shape[0]
    n_types = tb.n_orient.shape[0]
    hs = int(cfg[C_HAND])
    order_pos = np.empty(ns, np.int64)
    order_pos[tb.order] = np.arange(ns)
    greedy = next(b for b in BOTS if b.code == K.BOT_GREEDY)
    return Tables(
        np.int64(ns), np.int64(nh * hs * 70 + 1), np.int64(cfg[C_MAX_TURNS]), np.int64(N_OUT),
        np.int64(nh), np.int64(n_types), np.int64(nh * 2 * n_types * 6), np.int64(hs),
        np.bool_(cfg[C_BLOCK_CONNECTED] != 0), np.bool_(cfg[C_BLOCKED_LOSES] != 0),
        np.bool_(cfg[C_BLOCK_CHECK] == 1), np.bool_(cfg[C_STALEMATE] == 0), np.bool_(cfg[C_SHARED] == 1),
        np.bool_(cfg[C_WILD_BLOCK] != 0), np.bool_(cfg[C_DOTS_RANDOM] != 0), np.bool_(cfg[C_CORNER_BLOCK] == 0),
        np.float64(greedy.params[0].default),
        tb.order, order_pos, tb.corners, tb.corner_owner, tb.centres, tb.is_centre, tb.dcen, tb.nbr, tb.dist,
        tb.n_orient, tb.rot_of, tb.net_mask, tb.emask, tb.points, tb.tilesets,
        tb.dots.astype(np.int64), tb.dot_pool.astype(np.int64), tb.free.astype(np.int64), tb.lnk0,
        tb.nbag, tb.hand_of, tb.dot_bonus, np.int64(tb.base_score), _empty_board_ways(tb))


def _empty_board_ways(tb) -> np.ndarray:
    """Each seat's witness way on the empty board (`_reach_goal`; the same every game: the dots
    do not matter to it), so the set-up copies it instead of searching."""
    nh = tb.nbr.shape[0]
    nn = nh * 2
    ways = np.zeros((len(tb.seats), nh), np.int64)
    ttype = np.full(nh, -1, np.int64)
    for q, c in enumerate(tb.corners):
        _reach_goal(c, tb.is_centre, tb.dcen, tb.nbr, ttype, np.zeros(nh, np.int64), np.full(nh * 6, -1, np.int64),
                    np.zeros(nn, np.int64), np.zeros(nn, np.int64), np.zeros(1, np.int64),
                    np.empty(nn * 8, np.int64), ways[q])
    return ways


tables = engine.per_rules(build_tables)


# ---- rule helpers ----------------------------------------------------------------------------
@hot
def _centre_mask(c, centres, ttype, netm, par):
    """Bit k set when the lines on corner hex c reach centre hex centres[k]."""
    out = 0
    if ttype[c] < 0:
        return 0
    for k in range(centres.shape[0]):
        x = centres[k]
        if ttype[x] < 0:
            continue
        if x == c:
            out |= 1 << k
            continue
        for i in range(2):
            if netm[c * 2 + i] == 0:
                continue
            a = _find(par, c * 2 + i)
            for j in range(2):
                if netm[x * 2 + j] != 0 and _find(par, x * 2 + j) == a:
                    out |= 1 << k
    return out


@hot
def _legal(p, h, t, r, placed_any, corners, corner_owner, ttype, adj, need, emask_t,
           block_connected):
    """May seat p place type t in rotation r on hex h? kernel._fits (its first tile on its own
    corner), and no corner reserved for another seat (corner_owner)."""
    co = corner_owner[h]
    return (co < 0 or co == p) and K._fits(ttype[h] < 0, placed_any[p] == 0, h == corners[p], adj[h], need[h],
                                           emask_t[t, r], t == BLOCK, block_connected)


@hot
def _options(p, hand, n_orient, rot_of, wild_block, ot, od, orr):
    """Distinct (hand tile, declared type, rotation) seat p could play; returns how many."""
    n = 0
    for k in range(hand.shape[1]):
        if not K._first_of_kind(hand, p, k):
            continue
        t = hand[p, k]
        lo = t
        hi = t + 1
        if t == WILD:
            lo = 0
            hi = WILD
        for d in range(lo, hi):
            if t == WILD and d == BLOCK and not wild_block:
                continue
            for o in range(n_orient[d]):
                ot[n] = t
                od[n] = d
                orr[n] = rot_of[d, o]
                n += 1
    return n


@hot
def _relink(h, nbr, ttype, emask, netid, netm, lnk):
    """Keep lnk[u * 6 + s] = _link(u, s) for every node after a tile landed on hex h: the tile's
    networks, and the nodes of its neighbours that stepped onto the empty hex h
    (kernel._relink_hex, every tile usable)."""
    K._relink_hex(h, K.NO_HEX, K.NO_TZ, K.NO_OWNER, nbr, ttype, emask, netid, netm, lnk)


@entry(_nrt=False)
def _reach_goal(c, is_centre, dcen, nbr, ttype, emask, netid, netm, seen, stamp, stack, wit):
    """Can a line still run from corner hex c to a centre hex? Depth-first, nearest-to-centre
    first. On success wit (cleared first) holds the way found as Race's witness is kept
    (kernel._witness_of): wit[h] = the sides by which it enters and leaves empty hex h (one side
    at either end), 0 off it. Which way is found is free: only whether one exists decides a
    game. stack: int64[16 * nh] (the stack, the way's hexes, ps and pn)."""
    nh = ttype.shape[0]
    for h in range(nh):
        wit[h] = 0
    stamp[0] += 1
    st = stamp[0]
    nn = seen.shape[0]
    ps = stack[nn * 6:nn * 7]
    pn = stack[nn * 7:]
    top = 0
    if ttype[c] < 0:
        stack[0] = c * 2
        top = 1
        seen[c * 2] = st
        pn[c * 2] = -1
    else:
        for j in range(2):
            if netm[c * 2 + j] != 0:
                stack[top] = c * 2 + j
                top += 1
                seen[c * 2 + j] = st
                pn[c * 2 + j] = -1
    while top > 0:
        top -= 1
        u = stack[top]
        h = u >> 1
        if is_centre[h]:
            K._witness_of(u, pn, ps, ttype, wit, stack[nn * 5:nn * 6])
            return True
        m = 63 if ttype[h] < 0 else netm[u]
        # push the farthest first so the nearest is searched first
        for pass_d in range(2):
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
                near = dcen[n] < dcen[h]
                if near != (pass_d == 1) or seen[v] == st:
                    continue
                seen[v] = st
                pn[v] = u
                ps[v] = s
                stack[top] = v
                top += 1
    return False


@hot
def _standing(q, c, centres, dist, points, dots, ttype, towner, netm, par, block_reaches):
    """Draw-list measures of seat q (corner c): hexes from its corner lines to the nearest
    centre hex (INF without a corner tile, or with a Block there unless block_reaches), tile
    points (points[placer, type]) and dot hexes of those lines."""
    if ttype[c] < 0 or (ttype[c] == BLOCK and not block_reaches):
        return INF, 0, 0
    r0 = _find(par, c * 2) if netm[c * 2] != 0 else -5
    r1 = _find(par, c * 2 + 1) if netm[c * 2 + 1] != 0 else -5
    best = INF
    pts = 0
    nd = 0
    for h in range(ttype.shape[0]):
        if ttype[h] < 0:
            continue
        on = h == c
        for j in range(2):
            if netm[h * 2 + j] != 0:
                r = _find(par, h * 2 + j)
                if r == r0 or r == r1:
                    on = True
        if not on:
            continue
        pts += points[towner[h], ttype[h]]
        if dots[h] >= 2:
            nd += 1
        for k in range(centres.shape[0]):
            if dist[h, centres[k]] < best:
                best = dist[h, centres[k]]
    return best, pts, nd


@hot
def _resolve(t, pos, wmask, cmask):
    """Several seats joined a centre hex with one placement: (the winners' bit mask, the tiebreak
    level). Seats whose reached centre hexes cmask[q] overlap (all of them when shared_all) are one
    contest: tile points of the best path, then dot hexes of the best path, then the earlier seat
    in turn order. Work rows: the two path multipliers, the per-seat groups and values."""
    ns = t.n_seats
    nh = t.nh
    ttype = pos.hx[H_TTYPE]
    dots = pos.hx[H_DOTS]
    pmult = pos.work[W_MULTS][:nh]
    dmult = pos.work[W_MULTS][nh:2 * nh]
    grp = pos.work[W_SEATS][ns:2 * ns]
    pts = pos.work[W_SEATS][2 * ns:3 * ns]
    ndh = pos.work[W_SEATS][3 * ns:4 * ns]
    for h in range(nh):
        pmult[h] = t.points[pos.hx[H_TOWNER][h], ttype[h]] if ttype[h] >= 0 else 0
        dmult[h] = 1 if dots[h] >= 2 else 0
    for q in range(ns):
        grp[q] = q
    for a in range(ns):
        for b in range(a + 1, ns):
            if (wmask >> a) & 1 and (wmask >> b) & 1:
                if t.shared_all or (cmask[a] & cmask[b]) != 0:
                    ga = grp[a]
                    gb = grp[b]
                    for q in range(ns):
                        if grp[q] == gb:
                            grp[q] = ga
    level = TB_NONE
    win = 0
    for g in range(ns):
        members = np.int64(0)
        cntm = 0
        for q in range(ns):
            if (wmask >> q) & 1 and grp[q] == g:
                members |= 1 << q
                cntm += 1
        if cntm == 0:
            continue
        if cntm == 1:
            win |= members
            continue
        for q in range(ns):
            if (members >> q) & 1:
                pts[q] = _path_value_of(t, pos, q, cmask[q], pmult)
                ndh[q] = _path_value_of(t, pos, q, cmask[q], dmult)
        bq, lv = _contest(t, members, pts, ndh)
        level = max(level, lv)
        win |= 1 << bq
    return win, level


@hot
def _contest(t, members, pts, ndh):
    """The winner of one contest among the seats of `members` and the level it was decided at."""
    bq = -1
    for q in range(t.n_seats):
        if not (members >> q) & 1:
            continue
        if bq < 0:
            bq = q
            continue
        if pts[q] != pts[bq]:
            if pts[q] > pts[bq]:
                bq = q
        elif ndh[q] != ndh[bq]:
            if ndh[q] > ndh[bq]:
                bq = q
        elif t.order_pos[q] < t.order_pos[bq]:
            bq = q
    n_p = 0
    n_d = 0
    for q in range(t.n_seats):
        if (members >> q) & 1 and pts[q] == pts[bq]:
            n_p += 1
            if ndh[q] == ndh[bq]:
                n_d += 1
    if n_p == 1:
        return bq, TB_POINTS
    if n_d == 1:
        return bq, TB_DOTS
    return bq, TB_ORDER


@hot
def _path_value_of(t, pos, q, cmask, mult):
    """Best sum of mult over a simple line path from seat q's corner to any centre hex its lines
    reach (cmask: bit k for centres[k]; kernel._best_path on the work rows)."""
    nn = t.nh * 2
    w = pos.work
    c = t.corners[q]
    best = 0
    for k in range(t.centres.shape[0]):
        if (cmask >> k) & 1:
            if t.centres[k] == c:
                v = mult[c]
            else:
                v, _, _ = _best_path(t, pos, c, t.centres[k], mult, w[W_SN][:nn + 1], w[W_SS][:nn + 1],
                                     w[W_ON][:nn], w[W_HC][:t.nh], w[W_BN][:nn + 1])
            if v > best:
                best = v
    return best


@hot_inline
def _reach_goal_of(t, pos, q):
    """_reach_goal for seat q (its witness way in pos.wit[q]) with the position's arrays."""
    w = pos.work
    return _reach_goal(t.corners[q], t.is_centre, t.dcen, t.nbr, pos.hx[H_TTYPE], pos.hx[H_EMASK], pos.netid,
                       pos.nets[0], w[W_SEEN][:t.nh * 2], w[W_STAMP][:1], w[W_STACK][:t.nh * 16], pos.wit[q])


# ---- moves ----------------------------------------------------------------------------------
@hot_inline
def encode(t, h, wild, d, r):
    return ((h * 2 + wild) * t.n_types + d) * 6 + r


@hot_inline
def decode(t, move):
    """(hex, 1 if from the Wildcard, declared type, rotation) of a placement code."""
    return move // (t.n_types * 12), (move // (t.n_types * 6)) % 2, (move // 6) % t.n_types, move % 6


# ---- the rule functions ---------------------------------------------------------------------
@kernel
def _blank_position(t):
    """An empty board before set-up (every array of a Position allocated here)."""
    nh = t.nh
    ns = t.n_seats
    pos = Position(np.zeros((10, nh), np.int64), np.empty(nh * 6, np.int64), np.empty((2, nh * 2), np.int64),
                   np.empty((ns, t.tileset.shape[1]), np.int64), np.empty((ns, t.hand_size), np.int64),
                   np.zeros((ns, nh), np.int64), np.empty(nh * 12, np.int64), np.empty((N_Q, ns), np.int64),
                   np.empty(N_ST, np.int64), np.empty((N_W, max(nh * 24 + 4, 3 * t.hand_size * 70)), np.int64))
    nn = nh * 2
    pos.work[W_SEEN, :nn] = 0
    pos.work[W_STAMP, 0] = 0
    pos.work[W_ON, :nn] = 0
    pos.work[W_HC, :nh] = 0
    _clear(t, pos)
    return pos


@hot
def _clear(t, pos):
    """Empty the board of a position in place (`reset`: the chunk driver reuses one position for
    every game of a chunk): the tile rows, networks and counters; the frontier rows are read only below
    st[NFRONT] (0 here), the dots are laid and the bags and hands dealt afresh by `_set_up`, the
    witness ways are searched afresh there, and the work rows carry nothing from one call to the
    next (visit marks compare with a stamp that only grows; the path search restores its marks)."""
    hx = pos.hx
    for h in range(t.nh):
        race.empty_hex(hx, h)
    for i in range(t.nh * 6):
        pos.netid[i] = -1
    for i in range(t.nh * 2):
        pos.nets[0, i] = 0
        pos.nets[1, i] = i
    for q in range(t.n_seats):
        for k in range(N_Q):
            pos.sq[k, q] = 0
    for k in range(N_ST):
        pos.st[k] = 0
    pos.st[REASON] = -1


# race._deal compiled into _set_up, without reference counting (one source): _set_up runs once per
# game and seat, and a call with reference counting adds and drops a reference to every array of
# the tables and the position. Inlined rather than a second dispatcher of race._deal's function:
# numba's cache keys an entry by the function and its argument types, not by the compile options.
_deal = hot_inline(race._deal.py_func)


@hot
def _set_up(t, pos, rng):
    """Set-up in the chunk kernel's order: dots, then each seat's bag and hand (and, with the
    blocked player's loss, each seat's witness way on the empty board, t.wit0)."""
    shuf = pos.work[W_STACK, :t.free_hexes.shape[0]]
    _lay_dots(rng, t.dots_random, t.free_hexes, t.dot_pool, t.dots_fixed, shuf, pos.hx[H_DOTS], pos.hx[H_MULT])
    for h in range(t.nh):  # the bonuses of dot_bonuses (the defaults: kernel._lay_dots')
        pos.hx[H_MULT][h] = t.dot_bonus[pos.hx[H_DOTS][h]]
    for q in range(t.n_seats):
        _deal(rng, q, t, pos)  # kernel._deal's draws for each seat's own set and hand size
        if t.blocked_loses:
            for h in range(t.nh):
                pos.wit[q, h] = t.wit0[q, h]
    pos.st[CUR] = t.order[0]
    pos.st[FIRST] = t.order[0]


@kernel
def new_position(t, rng):
    pos = _blank_position(t)
    _set_up(t, pos, rng)
    return pos


@hot
def to_move(t, pos):
    return -1 if pos.st[REASON] >= 0 else pos.st[CUR]


@hot
def legal_moves(t, pos, out):
    """Every distinct legal (hex, hand tile, declared type, rotation) of the seat to move, the
    pass alone if none: the options of its hand (`_options`' order) on its corner (first tile)
    or each frontier hex."""
    if pos.st[REASON] >= 0:
        return 0
    p = pos.st[CUR]
    hs3 = t.hand_size * 70
    ow = pos.work[W_OPTS]
    ot = ow[:hs3]
    od = ow[hs3:2 * hs3]
    orr = ow[2 * hs3:3 * hs3]
    nopt = _options(p, pos.hand, t.n_orient, t.rot_of, t.wild_block, ot, od, orr)
    first = pos.sq[Q_PLACED][p] == 0
    ncand = 1 if first else pos.st[NFRONT]
    hx = pos.hx
    k = 0
    for c in range(ncand):
        h = t.corners[p] if first else hx[H_FRONT][c]
        for i in range(nopt):
            if _legal(p, h, od[i], orr[i], pos.sq[Q_PLACED], t.corners, t.corner_owner, hx[H_TTYPE], hx[H_ADJ],
                      hx[H_NEED], t.emask_t, t.block_connected):
                out[k] = encode(t, h, 1 if ot[i] == WILD else 0, od[i], orr[i])
                k += 1
    return K._or_pass(out, k, t.pass_move)


@hot_inline
def _pass(t, pos, cur):
    """A pass: counted; the ns-th pass in a row ends the game by the stalemate rule."""
    pos.sq[Q_PASS][cur] += 1
    pos.st[CONSEC] += 1
    if pos.st[CONSEC] >= t.n_seats:
        pos.st[REASON] = E_ST_CLOSEST if t.stalemate_closest else E_ST_DRAW


@hot_inline
def _judge_blocked(t, pos, cur, h, tile):
    """tri2p's blocking rule after a placement on h: a seat whose witness way the tile breaks
    (kernel._broken_ways) has a way searched again (_reach_goal_of); one with none is cut off,
    and kernel._blocked_end says how the game ends (block_win_trigger)."""
    broken = K._broken_ways(pos.wit, pos.sq[Q_BLOCKED], pos.nets[0], h)
    newly = np.int64(0)
    for q in range(t.n_seats):
        if ((broken >> q) & 1) != 0 and not _reach_goal_of(t, pos, q):
            pos.sq[Q_BLOCKED][q] = 1
            newly |= 1 << q
    reason, wins = K._blocked_end(newly, cur, t.n_seats, tile, t.block_tile_only)
    if reason >= 0:
        pos.st[REASON] = reason
        if wins != 0:
            pos.st[WINS] = wins


@hot
def apply(t, pos, move, rng):
    """One decision of the seat to move; the rules draw nothing (a hand
    refills from the top of the seat's shuffled bag)."""
    cur = pos.st[CUR]
    pos.st[TURN] += 1
    pos.st[OI] = (pos.st[OI] + 1) % t.n_seats
    pos.st[CUR] = t.order[pos.st[OI]]
    if move == t.pass_move:
        _pass(t, pos, cur)
        return
    pos.st[CONSEC] = 0
    h, wild, tile, r = decode(t, move)
    hx = pos.hx
    _place(t, pos, cur, h, tile, r)
    if pos.st[LINKED]:
        _relink(h, t.nbr, hx[H_TTYPE], hx[H_EMASK], pos.netid, pos.nets[0], pos.lnk)
    pos.sq[Q_PLACED][cur] = 1
    if tile == BLOCK:
        pos.sq[Q_BLOCKS][cur] += 1
    if wild:
        pos.sq[Q_WILD][cur] += 1
    K._refill(cur, WILD if wild else tile, pos.hand, pos.bag, pos.sq[Q_BAGN])
    cmask = pos.work[W_SEATS][:t.n_seats]
    wmask = np.int64(0)  # typed from the start: a literal 0 compiles _resolve once more
    for q in range(t.n_seats):
        cmask[q] = _centre_mask(t.corners[q], t.centres, hx[H_TTYPE], pos.nets[0], pos.nets[1])
        if cmask[q] != 0:
            wmask |= 1 << q
    if wmask != 0:
        wins = wmask
        if wmask & (wmask - 1):
            wins, pos.st[TIEBREAK] = _resolve(t, pos, wmask, cmask)
        pos.st[WINS] = wins
        pos.st[REASON] = E_PATH if (wins >> cur) & 1 else E_OPP_PATH
    elif t.blocked_loses:
        _judge_blocked(t, pos, cur, h, tile)


@hot_inline
def _draw_key(d, pt, nd):
    """One int64 ordered as the draw list orders (-d, pt, nd): nearer first, then more points,
    then more dot hexes (KEY_SHIFT bounds pt and nd)."""
    return (((INF - d) << KEY_SHIFT | pt) << KEY_SHIFT) | nd


@hot
def _outcome(t, pos, capped, reach):
    """(winners' mask, end reason) of a finished game, as `result` declares them: the end the
    rules reached or the turn cap (no winner), the draw list where the game stalled (nearest to a
    centre hex, then tile points, then dot hexes of the corner's lines; a tie leaves no winner).
    reach[q] receives each seat's distance to a centre hex (`_standing`)."""
    ns = t.n_seats
    reason = pos.st[REASON]
    wins = pos.st[WINS]
    if capped:
        reason = E_TURN_CAP
        wins = 0
    key = pos.work[W_SEATS][4 * ns:5 * ns]
    for q in range(ns):
        d, pt, nd = _standing(q, t.corners[q], t.centres, t.dist, t.points, pos.hx[H_DOTS], pos.hx[H_TTYPE],
                              pos.hx[H_TOWNER], pos.nets[0], pos.nets[1], t.corner_block_reaches)
        reach[q] = d
        key[q] = _draw_key(d, pt, nd)
    if reason == E_ST_CLOSEST or (reason == E_BOTH_BLOCKED and t.stalemate_closest):
        bd = key[0]
        for q in range(ns):
            bd = max(bd, key[q])
        nb = 0
        for q in range(ns):
            if key[q] == bd:
                nb += 1
        if nb == 1:
            for q in range(ns):
                if key[q] == bd:
                    wins = 1 << q
        if reason == E_ST_CLOSEST and wins == 0:
            reason = E_ST_DRAW
    return wins, reason


@hot
def result(t, pos, capped, res):
    """The resolution and scores: the draw list, the winner (first of the winners in turn
    order), 10 + the path's dot bonus for a path win, 10 otherwise, and the tallies."""
    for c in range(res.shape[0]):
        res[c] = 0
    ns = t.n_seats
    reach = res[O_REACH:O_REACH + ns]
    wins, reason = _outcome(t, pos, capped, reach)
    for q in range(ns):
        reach[q] = min(reach[q], 99)
    winner = -1
    nwin = 0
    for k in range(ns):
        q = t.order[k]
        if (wins >> q) & 1:
            nwin += 1
            if winner < 0:
                winner = q
            if reason == E_PATH or reason == E_OPP_PATH:
                cq = _centre_mask(t.corners[q], t.centres, pos.hx[H_TTYPE], pos.nets[0], pos.nets[1])
                res[O_SCORE + q] = t.base_score + _path_value_of(t, pos, q, cq, pos.hx[H_MULT])
            else:
                res[O_SCORE + q] = t.base_score
    res[O_WINNER] = winner
    res[O_REASON] = reason
    res[O_TURNS] = pos.st[TURN]
    res[O_FIRST] = t.order[0]
    res[O_SHARED] = wins if nwin > 1 else 0
    res[O_NWIN] = nwin
    res[O_TIEBREAK] = pos.st[TIEBREAK]
    for q in range(ns):
        res[O_PASS + q] = pos.sq[Q_PASS][q]
        res[O_BLOCKS + q] = pos.sq[Q_BLOCKS][q]
        res[O_WILD + q] = pos.sq[Q_WILD][q]


@kernel
def copy_position(t, pos):
    return Position(pos.hx.copy(), pos.netid.copy(), pos.nets.copy(), pos.bag.copy(), pos.hand.copy(),
                    pos.wit.copy(), pos.lnk.copy(), pos.sq.copy(), pos.st.copy(), pos.work)


@hot
def winner(t, pos, res):
    """`result`'s winner alone, for the search's playouts: the first of the winners in turn order,
    the seats' standings (`_outcome`) worked out only where the draw list decides; res unused
    (the path values and tallies a result row adds do not change who won)."""
    ns = t.n_seats
    wins = pos.st[WINS]
    reason = pos.st[REASON]
    if reason == E_ST_CLOSEST or (reason == E_BOTH_BLOCKED and t.stalemate_closest):
        wins, _ = _outcome(t, pos, np.bool_(False), pos.work[W_SEATS][6 * ns:7 * ns])
    for k in range(ns):
        q = t.order[k]
        if (wins >> q) & 1:
            return q
    return -1


@kernel
def sample_hidden(t, pos, seat, rng):
    """What `seat` cannot see: the order of its own bag, and every other seat's hand and bag. It
    knows the tile set, the board (a Wildcard on the board shows as one) and its own hand, so its
    bag holds a known multiset (redrawn in a fresh order), and each other seat's hand and bag
    together hold that seat's tiles not on the board (pooled per seat, redrawn, and dealt back
    into the same hand slots and bag length: the counts are public). Each redraw starts from the
    sorted multiset (race._sorted_shuffle), so the result depends on nothing the seat cannot see.
    What a pass reveals (the passer had no legal placement) is not conditioned on. Seat -1 (what
    nobody has seen): only the order of every seat's bag."""
    race.sample_hidden(t, pos, seat, rng)


# ---- Python side: the outcome columns of result rows -------------------------------------------
def columns(rules) -> list[tuple[str, int, object]]:
    """(column, index in a result row, dtype) of the outcome columns the runner stores."""
    seats = tri_seats(rules)
    cols = [("winner", O_WINNER, np.int8), ("end_reason", O_REASON, np.int8),
            ("turns", O_TURNS, np.int32), ("first_seat", O_FIRST, np.int8)]
    cols += [(f"score_{s}", O_SCORE + q, np.int32) for q, s in enumerate(seats)]
    cols += [("hexflow_shared_mask", O_SHARED, np.int8), ("hexflow_winners", O_NWIN, np.int8),
             ("hexflow_tiebreak", O_TIEBREAK, np.int8)]
    for what, base, dt in (("passes", O_PASS, np.int16), ("blocks", O_BLOCKS, np.int8),
                           ("reach", O_REACH, np.int8), ("wildcards", O_WILD, np.int8)):
        cols += [(f"hexflow_{what}_{s}", base + q, dt) for q, s in enumerate(seats)]
    return cols


def outcome_columns(rules, rows) -> dict[str, np.ndarray]:
    """Result rows by seat -> the outcome columns by seat."""
    return {name: rows[:, idx].astype(dt) for name, idx, dt in columns(rules)}


def by_player(rules, cols: dict[str, np.ndarray], swapped) -> dict[str, np.ndarray]:
    """tri2p columns from the position's seats to the players' where the pie rule swapped them
    (engine.exchange_seats, and the two bits of hexflow_shared_mask); the same call turns them
    back."""
    out = engine.exchange_seats(cols, swapped, list(tri_seats(rules)))
    m = np.asarray(cols["hexflow_shared_mask"])
    flipped = ((m & 1) << 1) | ((m >> 1) & 1)
    out["hexflow_shared_mask"] = np.where(swapped, flipped, m).astype(m.dtype)
    return out


@hot
def reset(t, pos, rng, game_index):
    """As race.reset, on this mode's position."""
    _clear(t, pos)
    _set_up(t, pos, rng)
    return True

