"""HEXFLOW Tri-Board on the engine interface (sim/engine/drivers.py), one module for both Tri modes:
"tri" (3 seats in the fixed order III, II, I, its own 18-tile bag with the Wildcard) and "tri2p"
(seats II and III, the Race bag, corner I cut out of the board, the blocked-player loss). The
modes differ only in table fields (seats, turn order, corners, bag, board links, blocked_loses);
the rule functions are the same code. They play exactly the games of the chunk kernel the
engine was ported from: the same bots, the same draws in the same order (dots, then each seat's bag, then the
bots' draws; the rules draw nothing after the set-up).

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

from typing import Any, NamedTuple

import numpy as np

from sim import engine
from sim.engine.jit import entry, hot, hot_inline, kernel
from sim.engine.rng import below

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
    _critical,
    _find,
    _lay_dots,
    _link,
    _pair_through,
    _place,
    _six,
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
from .rules import WILD, tri_seats, tri_tile_sets  # noqa: F401 (tri_tile_sets: tri.py, game.py)
from .tiles import BLOCK

# tiebreak levels (column hexflow_tiebreak)
TB_NONE, TB_POINTS, TB_DOTS, TB_ORDER = 0, 1, 2, 3
BOT_RANDOM, BOT_GREEDY = K.BOT_RANDOM, K.BOT_GREEDY
# TriTables.cfg indices (build_tables reads cfg)
C_HAND, C_BLOCK_CONNECTED, C_BLOCKED_LOSES, C_BLOCK_CHECK, C_MAX_TURNS, C_DOTS_RANDOM, \
    C_SHARED, C_WILD_BLOCK, C_STALEMATE, C_CORNER_BLOCK = range(10)
N_CFG = 10
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


class Tables(NamedTuple):
    n_seats: np.int64
    max_moves: np.int64
    turn_cap: np.int64  # max_turns: a capped game has no winner (turn_cap)
    res_width: np.int64
    nh: np.int64  # hexes
    n_types: np.int64  # standard tile types (the Wildcard is hand tile WILD = n_types)
    pass_move: np.int64
    hand_size: np.int64  # the largest seat's hand: the width of position.hand (hand_of per seat)
    block_connected: np.bool_  # rules.block_placement == "connected"
    blocked_loses: np.bool_  # tri2p and rules.blocked_player_loses
    block_tile_only: np.bool_  # rules.block_win_trigger == "block_tile"
    stalemate_closest: np.bool_  # rules.stalemate_rule == "closest"
    shared_all: np.bool_  # rules.shared_victory == "tiebreak": every joined seat is one contest
    wild_block: np.bool_  # rules.wildcard_block: a Wildcard may be declared a Block
    dots_random: np.bool_  # rules.dots == "random"
    corner_block_reaches: np.bool_  # rules.corner_block == "reaches": a Block on its corner counts
    eval_block_weight: np.float64  # greedy's default block_weight, for `evaluate`
    order: np.ndarray  # int64[ns]: seats in turn order (III first)
    order_pos: np.ndarray  # int64[ns]: place of each seat in `order`
    corners: np.ndarray  # int64[ns]: each seat's corner hex
    corner_owner: np.ndarray  # int64[nh]: the seat a corner is reserved for, -1 elsewhere
    centres: np.ndarray  # int64[1 or 3]: the centre hexes (the goals)
    is_centre: np.ndarray  # int64[nh]
    dcen: np.ndarray  # int64[nh]: hex distance to the nearest centre hex
    nbr: np.ndarray  # int64[nh, 6], -1 off the board (and at tri2p's dead corner)
    dist: np.ndarray  # int64[nh, nh]: hex distance
    n_orient: np.ndarray  # int64[n_types]: distinct rotations of each type
    rot_of: np.ndarray  # int64[n_types, 6]: those rotations
    net_mask: np.ndarray  # int64[n_types, 6, 2]: side mask of each network of (type, rotation)
    emask_t: np.ndarray  # int64[n_types, 6]: sides carrying a line of (type, rotation)
    points: np.ndarray  # int64[ns, n_types]: tile points of each seat's tiles (the tiebreak, the draw list)
    tileset: np.ndarray  # int64[ns, tiles]: each seat's tiles before the shuffle (WILD = the Wildcard, -1 after)
    dots_fixed: np.ndarray  # int64[nh]: the fixed dot layout (zeros with dots = "none")
    dot_pool: np.ndarray  # int64[k]: the dots laid at random with dots = "random"
    free_hexes: np.ndarray  # int64: the hexes random dots may land on
    lnk0: np.ndarray  # int64[nh * 12]: the empty board's link table (kernel.empty_links)
    nbag: np.ndarray  # int64[ns]: how many tiles each seat has (its row of tileset)
    hand_of: np.ndarray  # int64[ns]: each seat's hand size (rules.hand_size, per seat)
    dot_bonus: np.ndarray  # int64[6]: a path's flat bonus by dots (rules.dot_bonuses)
    base_score: np.int64  # rules.base_score: what a win is worth before the dot bonuses
    wit0: np.ndarray  # int64[ns, nh]: each seat's witness way on the empty board (position.wit at the set-up)


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


class TriTables:
    """Every array of the Tri-Board tables, built once per rule set (build_tables names them;
    `tileset` is seat 0's set, `tilesets` every seat's)."""

    def __init__(self, rules):
        from .rules import dot_multiplier_table, hand_sizes, tile_points
        from .tiles import orientation_tables
        from .triboard import tri_board

        tb = tri_board(rules["board_side"])
        self.tb = tb
        seats = tri_seats(rules)
        self.seats = seats
        self.n_orient, self.rot_of, self.net_mask = (a.astype(np.int64)
                                                     for a in orientation_tables())
        self.emask = (self.net_mask[:, :, 0] | self.net_mask[:, :, 1]).astype(np.int64)
        nbr = tb.board.nbr.astype(np.int64)
        self.dead = -1
        if rules["mode"] == "tri2p":  # corner I: no tile, no transit
            self.dead = tb.corner["I"]
            nbr[self.dead, :] = -1
            nbr[nbr == self.dead] = -1
        self.nbr = nbr
        self.lnk0 = K.empty_links(nbr)
        self.dist = tb.board.dist.astype(np.int64)
        self.corners = np.array([tb.corner[s] for s in seats], dtype=np.int64)
        self.corner_owner = np.full(tb.size, -1, dtype=np.int64)
        for q, c in enumerate(self.corners):
            self.corner_owner[c] = q
        self.order = np.array([seats.index(s) for s in ("III", "II", "I") if s in seats],
                              dtype=np.int64)
        self.centres = np.array(tb.centres, dtype=np.int64)
        self.is_centre = np.zeros(tb.size, dtype=np.int64)
        self.is_centre[self.centres] = 1
        self.dcen = self.dist[:, self.centres].min(axis=1).copy()
        self.points = tile_points(rules, list(seats))
        self.tilesets, self.nbag = tri_tile_sets(rules, list(seats))
        self.tileset = self.tilesets[0, :self.nbag[0]].copy()
        self.hand_of = np.array(hand_sizes(rules, list(seats)), np.int64)
        self.dot_bonus = dot_multiplier_table(rules, "dot_bonuses")
        self.base_score = int(rules["base_score"])
        default = tb.default_dots()
        self.dots = default if rules["dots"] in ("default", "random") else np.zeros_like(default)
        self.dot_pool = np.sort(default[default > 0])[::-1].copy()
        free = tb.free_hexes()
        self.free = free[free != self.dead].copy()
        cfg = np.zeros(N_CFG, dtype=np.int64)
        cfg[C_HAND] = self.hand_of.max()
        cfg[C_BLOCK_CONNECTED] = rules["block_placement"] == "connected"
        cfg[C_BLOCKED_LOSES] = rules["mode"] == "tri2p" and rules["blocked_player_loses"]
        cfg[C_BLOCK_CHECK] = ("any_tile", "block_tile").index(rules["block_win_trigger"])
        cfg[C_MAX_TURNS] = rules["max_turns"]
        cfg[C_DOTS_RANDOM] = rules["dots"] == "random"
        cfg[C_SHARED] = ("shared", "tiebreak").index(rules["shared_victory"])
        cfg[C_WILD_BLOCK] = rules["wildcard_block"]
        cfg[C_STALEMATE] = ("closest", "draw").index(rules["stalemate_rule"])
        cfg[C_CORNER_BLOCK] = ("reaches", "no_path").index(rules["corner_block"])
        self.cfg = cfg


def build_tables(rules: dict[str, Any]) -> Tables:
    """The Tri-Board tables of a resolved rule set (TriTables' arrays, named)."""
    from .rules import BOTS

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


@hot
def _dist_map(src, nsrc, lnk, ttype, netm, d, dq):
    """0-1 BFS from the hexes src[:nsrc] (empty: cost 1, placed: each network cost 0) over the
    potential graph; d[node] = empty hexes to fill on the cheapest way, the node's own included.
    Steps come from the link table (`_relink`); the search is kernel._search01 with no goal.
    dq: int64[12 * 2 * NH + 4]. (Race's `kernel._bfs` is the one-source, one-goal case.)"""
    head, tail = K._start01(d, dq)
    for k in range(nsrc):
        head, tail = K._seed01(src[k], ttype, netm, d, dq, head, tail)
    K._search01(lnk, K.NO_HEX, K.NO_GOAL, K.FULL, d, dq, head, tail)


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
    ne = max(0, K._open_ends(t.corners[p], t.nbr, hx[H_TTYPE], hx[H_EMASK], pos.nets[0], pos.nets[1], s.endm))
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
    pass alone if none: the options of its hand (tri._options' order) on its corner (first tile)
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
    reach[q] receives each seat's distance to a centre hex (tri._standing)."""
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
    corner to the nearest centre hex, tri._dist_map over the link table); d, dq its work."""
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
    """Greedy's measure of a position (tri._greedy_move's score without the move's own terms):
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


# ---- Python side: chunks, traced games and outcome columns through the engine's drivers --------
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


def _bots(rules, seats):
    """(tables, bot codes, bot parameters, the pie rule's policy)."""
    t = tables(rules)
    if len(seats) != t.n_seats:
        raise ValueError(f"hexflow {rules['mode']} needs {t.n_seats} seats, got {len(seats)}")
    codes, par = engine.bot_arrays(seats)
    return t, codes, par, engine.swap_policy(rules["swap"], seats)


def chunk_rows(rules, seats, first_game, n_games, run_seed, swapped=None) -> np.ndarray:
    """Result rows (by seat) of games first_game .. first_game + n_games - 1 through
    engine.play_chunk; `swapped` (bool[n_games]) receives which games the pie rule swapped."""
    t, codes, par, swap = _bots(rules, seats)
    rows = np.zeros((n_games, t.res_width), np.int64)
    if swapped is None:
        swapped = np.zeros(n_games, np.bool_)
    engine.play_chunk(t, np.uint64(run_seed), np.int64(first_game), np.int64(n_games), codes, par, swap, rows,
                      swapped)
    return rows


def by_player(rules, cols: dict[str, np.ndarray], swapped) -> dict[str, np.ndarray]:
    """tri2p columns from the position's seats to the players' where the pie rule swapped them
    (engine.exchange_seats, and the two bits of hexflow_shared_mask); the same call turns them
    back."""
    out = engine.exchange_seats(cols, swapped, list(tri_seats(rules)))
    m = np.asarray(cols["hexflow_shared_mask"])
    flipped = ((m & 1) << 1) | ((m >> 1) & 1)
    out["hexflow_shared_mask"] = np.where(swapped, flipped, m).astype(m.dtype)
    return out


def row_columns(rules, rows, swapped) -> dict[str, np.ndarray]:
    """Outcome columns of result rows: by player, plus `swapped`, under the pie rule."""
    cols = {name: rows[:, idx].astype(dt) for name, idx, dt in columns(rules)}
    if not rules["swap"]:
        return cols
    cols = by_player(rules, cols, swapped)
    cols["swapped"] = np.asarray(swapped, np.bool_).copy()
    return cols


def chunk(rules, seats, first_game, n_games, run_seed) -> dict[str, np.ndarray]:
    swapped = np.zeros(n_games, np.bool_)
    rows = chunk_rows(rules, seats, first_game, n_games, run_seed, swapped)
    return row_columns(rules, rows, swapped)


def replay(rules, seats, game_index, run_seed):
    """(tables, decision records, result row by seat, swapped) of one game through
    engine.play_traced (a pie-rule swap is a record with move engine.SWAP_MOVE)."""
    t, codes, par, swap = _bots(rules, seats)
    rec, res, swapped = engine.play_traced(t, np.uint64(run_seed), np.int64(game_index), codes, par, swap,
                                           np.int64(rules["max_turns"] + 2))
    return t, rec, res, swapped


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


@hot
def reset(t, pos, rng, game_index):
    """As race.reset, on this mode's position."""
    _clear(t, pos)
    _set_up(t, pos, rng)
    return True


# copies share the work rows (Position), as copy_fields keeps them
engine.implement(Tables, no_alloc=True, new_position=new_position, to_move=to_move, legal_moves=legal_moves,
                 apply=apply, result=result, copy_position=copy_position, sample_hidden=sample_hidden,
                 evaluate=evaluate, new_scratch=new_scratch, bot_move=bot_move, reset=reset,
                 copy_into=engine.copy_fields, winner=winner, rollout=rollout,
                 rollout_bots=(K.BOT_RANDOM,))
