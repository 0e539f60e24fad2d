"""HEXFLOW Battle mode: the compiled helpers its rule functions (battle_engine.py) are made of
(move generators, the random and greedy bots, the union-find over lines, the link tables, the
stalemate scores), its territory tables, and a pure-Python position written separately (endpoint
search, no shared code with the kernels) that verifies traces.

Same 85-hex board as Race (index map in board.py). A starts from the left corners a1 / a9 and
heads for the right edge (column i), B from i1 / i9 to the left edge (column a).
Territory: columns a-c are A's, d-f contested, g-i B's. Transit: a seat's path may use its own
tiles anywhere, any tile in the contested zone, any tile on its own starting corners, and
(default) an opponent tile in the seat's own territory; never an opponent tile in the opponent's
territory. `tz[p, h]` = 1 where any tile is transit-valid for p whatever its owner.

Board arrays (Board: flat int64 arrays, as in kernel.py): ttype[h] (-1 empty), trot, towner,
emask, netid[h*6+s], netm[h*2+j]. Graph nodes h*2 (empty hex, cost 1) and h*2+j (network j,
cost 0). A displacement replaces a tile, which a union-find cannot undo, so the line components
are rebuilt after one (_uf_rebuild) and merged after a placement (_uf_link).

Move kinds: K_PLACE on an empty hex, K_DISPLACE (Block / Star-6 replaces an adjacent opponent
tile, which goes to the mover's capture pile); battle_engine encodes them and the pass.
"""

from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple

import numpy as np

from sim.engine.jit import hot, hot_fused, hot_inline, kernel
from sim.engine.rng import below

from .board import board_of, multiplier
from .kernel import (
    INF,
    _arrive4,
    _critical,
    _hand_pairs,
    _pair_through,
    _relink_hex,
    _search01,
    _seed01,
    _six,
    _start01,
    _tile_fits,
)
from .position import TileLines
from .report import proportion_rows
from .rules import dot_multiplier_table, hand_sizes, tile_counts, unfillable
from .tiles import BLOCK, STAR6, TILE_TYPES, networks, orientations

SEATS = ("A", "B")

# cfg indices (the rules the move generators read; battle_engine.Tables names the others)
B_BLOCK_CONNECTED, B_FIRST, B_ORPHAN = range(3)
N_BCFG = 3
# steps the stalemate path search may take per seat (battle_stalemate_length = "path")
PATH_BUDGET = 2_000_000
# outputs
(O_WINNER, O_REASON, O_TURNS, O_FIRST, O_SCORE_A, O_SCORE_B, O_PASS_A, O_PASS_B, O_DISP_A,
 O_DISP_B, O_CHAIN_A, O_CHAIN_B, O_TBLOCK_A, O_TBLOCK_B, O_COMPLETED) = range(15)
N_BOUT = 15
K_PLACE, K_PASS, K_DISPLACE = 0, 1, 2


class Rules(NamedTuple):
    """The tables Battle's move generators, bots and stalemate scores read, built once per rule
    set (battle_engine.Tables.br; the chunk kernel reads them from there too)."""

    cfg: np.ndarray  # int64[N_BCFG]: _bcfg
    nbr: np.ndarray  # int64[nh, 6], -1 off the board
    n_orient: np.ndarray  # int64[n_types]: distinct rotations of each type
    rot_of: np.ndarray  # int64[n_types, 6]: those rotations
    net_mask: np.ndarray  # int64[n_types, 6, 2]: side mask of each network of (type, rotation)
    emask_t: np.ndarray  # int64[n_types, 6]: sides carrying a line of (type, rotation)
    tz: np.ndarray  # int64[2, nh]: any tile on h is transit-valid for seat q (battle_tables)
    startm: np.ndarray  # int64[2, nh]: start hexes of each seat
    goalm: np.ndarray  # int64[2, nh]: goal hexes of each seat
    firstc: np.ndarray  # int64[2, 2]: each seat's starting corners
    corner_any: np.ndarray  # int64[nh]: 1 on the four corners (never displaced)
    capture_points: np.int64  # rules.battle_capture_points


class Board(NamedTuple):
    """The board as the helpers read it: the chunk kernel's arrays, or rows of the engine
    position (battle_engine._board); per hex h ttype (-1 empty), trot, towner, emask, need
    (_set_need), fpos (place on the frontier, -1 off it), mult (stalemate multiplier); netid[h*6 + s],
    netm[h*2 + j] (the tile's line networks); nown[q, h] (_set_owner); front[:nfront] the frontier."""

    ttype: np.ndarray
    trot: np.ndarray
    towner: np.ndarray
    emask: np.ndarray
    netid: np.ndarray
    netm: np.ndarray
    need: np.ndarray
    nown: np.ndarray
    fpos: np.ndarray
    front: np.ndarray
    mult: np.ndarray


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
def new_scratch(nh):
    nn = nh * 2
    return Scratch(np.empty((5, nn), np.int64), np.empty(nn * 12 + 4, np.int64), np.empty((4, 6), np.int64),
                   np.empty((2, nh), np.int64), np.empty(nh + 2, np.int64), np.empty((2, nh), np.int64),
                   np.zeros((2, nn), np.int64), np.empty(nn, np.int64), np.zeros((2, 2), np.int64),
                   np.empty(nh, np.int64), np.empty(64, np.int64))


# ---- tables -----------------------------------------------------------------------------------
def board_columns(rules: dict[str, Any]) -> int:
    return rules.get("board_columns", 9)


def start_corners(cols: int = 9) -> dict[str, tuple[str, str]]:
    """Each seat's starting corners on a board of `cols` columns: A the top and bottom hexes of
    the left column, B those of the right column (a1 / a9, i1 / i9 on the card's board)."""
    last = chr(ord("a") + cols - 1)
    return {"A": ("a1", "a9"), "B": (f"{last}1", f"{last}9")}


def column_of(h: int, cols: int = 9) -> int:
    return board_of(cols).cells[h][0]


def zone_of_column(c: int, cols: int = 9) -> int:
    """0 = A's territory, 1 = contested, 2 = B's: the middle three columns are contested (the
    card's d-f of 9), the columns left of them A's and right of them B's (5 columns: a | b-d | e;
    7: a-b | c-e | f-g; 9: a-c | d-f | g-i; 11: a-d | e-g | h-k)."""
    own = (cols - 3) // 2
    return 0 if c < own else (2 if c >= cols - own else 1)


def zone_of(h: int, cols: int = 9) -> int:
    """The zone (zone_of_column) of hex h."""
    return zone_of_column(column_of(h, cols), cols)


def zone_letters(cols: int = 9) -> tuple[str, str, str]:
    """The column letters of A's territory, the contested zone and B's, e.g. 'a-c', 'd-f', 'g-i'."""
    out = []
    for z in range(3):
        cs = [chr(ord("a") + c) for c in range(cols) if zone_of_column(c, cols) == z]
        out.append(cs[0] if len(cs) == 1 else f"{cs[0]}-{cs[-1]}")
    return out[0], out[1], out[2]


def battle_tables(rules: dict[str, Any]):
    """tz, startm, goalm, firstc, corner_any (see the module docstring) on the board of
    board_columns."""
    cols = board_columns(rules)
    board = board_of(cols)
    nh = board.size
    tz = np.zeros((2, nh), np.int64)
    startm = np.zeros((2, nh), np.int64)
    goalm = np.zeros((2, nh), np.int64)
    corners = start_corners(cols)
    firstc = np.array([[board.hex_id(n) for n in corners[s]] for s in SEATS], np.int64)
    corner_any = np.zeros(nh, np.int64)
    corner_any[firstc.ravel()] = 1
    home_ok = rules["battle_transit_home"] == "allowed"
    for p in range(2):
        own_zone = 0 if p == 0 else 2
        own_col, far_col = (0, cols - 1) if p == 0 else (cols - 1, 0)
        for h in range(nh):
            z = zone_of(h, cols)
            if z == 1 or (home_ok and z == own_zone) or h in firstc[p]:
                tz[p, h] = 1
            col = column_of(h, cols)
            if rules["battle_start"] == "corners":
                startm[p, h] = h in firstc[p]
            else:
                startm[p, h] = col == own_col
            if rules["battle_goal"] == "edge":
                goalm[p, h] = col == far_col
            else:
                goalm[p, h] = h in firstc[1 - p]
    return tz, startm, goalm, firstc, corner_any


# ---- kernel -----------------------------------------------------------------------------------
@hot
def _relink(h, tz, nbr, ttype, towner, emask, netid, netm, lnk):
    """Keep both seats' link tables (lnk[q]: kernel._relink_hex under the transit rule for seat q:
    a step onto a tile q may not use is -1) after the tile on hex h changed, placed or displaced.
    lnk: int64[2, 12 NH], the empty board's (kernel.empty_links) at the start of a game."""
    for q in range(2):
        _relink_hex(h, q, tz, towner, nbr, ttype, emask, netid, netm, lnk[q])


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
def _uf_find(par, v, x):
    while par[v, x] != x:
        par[v, x] = par[v, par[v, x]]
        x = par[v, x]
    return x


@hot
def _uf_link(h, lim, par, flg, tz, nbr, ttype, towner, emask, netid, netm):
    """Join the networks of the tile on hex h to the lines of its placed neighbours below hex
    lim, in every view that may use both tiles (view q < 2: seat q under the transit rule;
    view 2: any tile). A root's flags are the OR of its members' start / goal bits."""
    for v in range(3):
        if v < 2 and towner[h] != v and tz[v, h] == 0:
            continue
        em = emask[h]
        for s in range(6):
            if not (em >> s) & 1:
                continue
            n = nbr[h, s]
            o = (s + 3) % 6
            if n < 0 or n >= lim or ttype[n] < 0 or not (emask[n] >> o) & 1:
                continue
            if v < 2 and towner[n] != v and tz[v, n] == 0:
                continue
            a = _uf_find(par, v, h * 2 + netid[h * 6 + s])
            b = _uf_find(par, v, n * 2 + netid[n * 6 + o])
            if a != b:
                par[v, a] = b
                flg[v, b] |= flg[v, a]


@hot
def _uf_init(h, par, flg, startm, goalm):
    """Hex h's two network nodes become singletons in every view, flagged with bit 2q (a start
    hex of seat q) and bit 2q + 1 (a goal hex of seat q)."""
    f = startm[0, h] | (goalm[0, h] << 1) | (startm[1, h] << 2) | (goalm[1, h] << 3)
    for v in range(3):
        for j in range(2):
            par[v, h * 2 + j] = h * 2 + j
            flg[v, h * 2 + j] = f


@hot
def _uf_rebuild(par, flg, startm, goalm, tz, nbr, ttype, towner, emask, netid, netm):
    """Line components from scratch: a displacement removes a tile, which a union-find cannot
    undo (at most battle_tokens x 2 times a game)."""
    nh = ttype.shape[0]
    for h in range(nh):
        if ttype[h] >= 0:
            _uf_init(h, par, flg, startm, goalm)
    for h in range(nh):
        if ttype[h] >= 0:  # each touching pair once, from its higher hex
            _uf_link(h, h, par, flg, tz, nbr, ttype, towner, emask, netid, netm)


@hot
def _uf_joins(h, par, flg, tz, ttype, towner, netm):
    """Which start-to-goal joins run through the tile just placed on hex h: bit q = seat q's,
    along lines usable under the transit rule; bit 2 + q = seat q's along any lines. Before a
    move nobody is joined and a removal joins no one, so a new path must run through h."""
    out = 0
    if ttype[h] < 0:
        return 0
    for v in range(3):
        if v < 2 and towner[h] != v and tz[v, h] == 0:
            continue
        f = 0
        for j in range(2):
            if netm[h * 2 + j] != 0:
                f |= flg[v, _uf_find(par, v, h * 2 + j)]
                # two networks of one tile are two components: a seat is joined only if one
                # of them holds both its start and goal bits
                if v < 2 and (f >> (2 * v)) & 3 == 3:
                    out |= 1 << v
                if v == 2:
                    for q in range(2):
                        if (f >> (2 * q)) & 3 == 3:
                            out |= 1 << (2 + q)
                f = 0
    return out


@hot
def _put(p, h, t, r, net_mask, emask_t, ttype, trot, towner, emask, netid, netm):
    ttype[h] = t
    trot[h] = r
    towner[h] = p
    emask[h] = emask_t[t, r]
    for s in range(6):
        netid[h * 6 + s] = -1
    for j in range(2):
        m = net_mask[t, r, j]
        netm[h * 2 + j] = m
        for s in range(6):
            if (m >> s) & 1:
                netid[h * 6 + s] = j


@hot
def _set_need(h, nbr, emask, need):
    """need[n] = sides of hex n where a neighbour's line ends (a tile on n links a line iff it
    covers one); after the tile on h changed, only the bit of each neighbour facing h moves."""
    em = emask[h]
    for s in range(6):
        n = nbr[h, s]
        if n >= 0:
            o = (s + 3) % 6
            need[n] = (need[n] & ~(1 << o)) | (((em >> s) & 1) << o)


@hot
def _set_owner(h, old, new, nbr, nown):
    """nown[q, n] = tiles of seat q next to hex n; the tile on h passes from seat old (-1: h was
    empty) to seat new."""
    for s in range(6):
        n = nbr[h, s]
        if n >= 0:
            if old >= 0:
                nown[old, n] -= 1
            nown[new, n] += 1


@hot
def _orphans(h, em_new, nbr, ttype, emask):
    """Would replacing the tile on h by one with side mask em_new leave a neighbour that had a
    line connection with no line connection at all?"""
    em_old = emask[h]
    for s in range(6):
        n = nbr[h, s]
        if n < 0 or ttype[n] < 0:
            continue
        o = (s + 3) % 6
        if not (emask[n] >> o) & 1 or not (em_old >> s) & 1 or (em_new >> s) & 1:
            continue  # the link across s is unchanged (or never was)
        other = False
        for s2 in range(6):
            if s2 == o or not (emask[n] >> s2) & 1:
                continue
            n2 = nbr[n, s2]
            if n2 >= 0 and ttype[n2] >= 0 and (emask[n2] >> ((s2 + 3) % 6)) & 1:
                other = True
                break
        if not other:
            return True
    return False


class Moves(NamedTuple):
    """A seat's hand pairs (pt, pr) and its move list (kind, hex, tile, rotation) as the move
    generators write them."""

    pt: np.ndarray
    pr: np.ndarray
    mk: np.ndarray
    mh: np.ndarray
    mt: np.ndarray
    mr: np.ndarray


@hot_inline
def _displacer(t, block_conn):
    """May tile type t displace (Battle)? A Star-6, or a Block unless block_placement =
    "connected" (then a Block is never placed at all)."""
    return t == STAR6 or (t == BLOCK and not block_conn)


@hot_inline
def _target(h, p, towner, corner_any, nown):
    """May seat p displace the tile on hex h? An opponent's tile (towner 1 - p: an empty hex's is
    -1) off the four corners, next to one of p's own tiles (nown, _set_owner)."""
    return towner[h] == 1 - p and nown[p, h] > 0 and corner_any[h] == 0


@hot
def _gen_moves(br, b, p, tokens, placed_any, hand, mv):
    """Every legal move of seat p (distinct kind, hex, tile, rotation), placements by hex then
    pair, displacements by pair then target; returns the count. The board is read through what
    the kernel and the position keep: the frontier (fpos[h] >= 0: h is empty and next to a
    tile), need (_set_need) and nown (_set_owner). Writes the hand pairs to mv.pt / mv.pr and
    the moves to mv.mk / mh / mt / mr."""
    pt, pr, mk, mh, mt, mr = mv
    cfg, n_orient, rot_of, emask_t, nbr, firstc, corner_any = (br.cfg, br.n_orient, br.rot_of, br.emask_t, br.nbr,
                                                               br.firstc, br.corner_any)
    ttype, towner, emask, need, nown, fpos = b.ttype, b.towner, b.emask, b.need, b.nown, b.fpos
    nh = ttype.shape[0]
    block_conn = cfg[B_BLOCK_CONNECTED] != 0
    npairs = _hand_pairs(p, hand, n_orient, rot_of, pt, pr)
    n = 0
    if npairs == 0:
        return 0
    if placed_any[p] == 0:
        for k in range(2):
            h = firstc[p, k]
            if ttype[h] >= 0:
                continue
            for i in range(npairs):
                if not _tile_fits(True, emask_t[pt[i], pr[i]], 0, pt[i] == BLOCK, block_conn):
                    continue
                mk[n] = K_PLACE
                mh[n] = h
                mt[n] = pt[i]
                mr[n] = pr[i]
                n += 1
        return n
    for h in range(nh):
        if fpos[h] < 0:
            continue
        nd = need[h]
        for i in range(npairs):
            t = pt[i]
            if not _tile_fits(False, emask_t[t, pr[i]], nd, t == BLOCK, block_conn):
                continue
            mk[n] = K_PLACE
            mh[n] = h
            mt[n] = t
            mr[n] = pr[i]
            n += 1
    if tokens[p] <= 0:
        return n
    for i in range(npairs):
        t = pt[i]
        if not _displacer(t, block_conn):
            continue
        em = emask_t[t, pr[i]]
        for h in range(nh):
            if not _target(h, p, towner, corner_any, nown):
                continue
            if not _displace_ok(h, t, em, cfg, nbr, ttype, emask, need):
                continue
            mk[n] = K_DISPLACE
            mh[n] = h
            mt[n] = t
            mr[n] = pr[i]
            n += 1
    return n


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
def _displace_ok(h, t, em, cfg, nbr, ttype, emask, need):
    """May a displacer (t, side mask em) replace the target tile on h? It must fit h as a tile
    placed there would (kernel._tile_fits: a Star-6 must meet a line); with battle_orphan = "line"
    no neighbour may lose its last line connection."""
    if not _tile_fits(False, em, need[h], t == BLOCK, cfg[B_BLOCK_CONNECTED] != 0):
        return False
    return not (cfg[B_ORPHAN] == 0 and _orphans(h, em, nbr, ttype, emask))


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


@hot
def _chain_score(q, captures, br, b, seen, stack, hstamp, out):
    """Stalemate score of seat q: best over its transit-valid line chains that touch a start hex
    of L + capture points x captures + L x (sum of dot multipliers on it), L = tiles in the chain.
    out[0] = L of the best chain. seen: int64[2 NH], stack: int64[2 NH], hstamp: int64[NH]."""
    cap_pts, startm, tz, nbr = br.capture_points, br.startm, br.tz, br.nbr
    mult, ttype, towner, emask, netid, netm = b.mult, b.ttype, b.towner, b.emask, b.netid, b.netm
    nh = ttype.shape[0]
    for i in range(2 * nh):
        seen[i] = 0
    for h in range(nh):
        hstamp[h] = 0
    best = cap_pts * captures
    out[0] = 0
    comp = 0
    for h0 in range(nh):
        if startm[q, h0] == 0 or ttype[h0] < 0:
            continue
        if towner[h0] != q and tz[q, h0] == 0:
            continue
        for j0 in range(2):
            u0 = h0 * 2 + j0
            if netm[u0] == 0 or seen[u0]:
                continue
            comp += 1
            seen[u0] = 1
            stack[0] = u0
            top = 1
            L = 0
            ms = 0
            while top > 0:
                top -= 1
                u = stack[top]
                h = u >> 1
                if hstamp[h] != comp:
                    hstamp[h] = comp
                    L += 1
                    ms += mult[h]
                m = netm[u]
                for s in range(6):
                    if not (m >> s) & 1:
                        continue
                    n = nbr[h, s]
                    if n < 0 or ttype[n] < 0:
                        continue
                    o = (s + 3) % 6
                    if not (emask[n] >> o) & 1:
                        continue
                    if towner[n] != q and tz[q, n] == 0:
                        continue
                    v = n * 2 + netid[n * 6 + o]
                    if seen[v] == 0:
                        seen[v] = 1
                        stack[top] = v
                        top += 1
            sc = L + cap_pts * captures + L * ms
            if sc > best or (sc == best and L > out[0]):
                best = sc
                out[0] = L
    return best


@hot
def _path_score(q, captures, br, b, on, node, side, hexcnt, out):
    """Stalemate score of seat q under battle_stalemate_length = "path": best over simple
    transit-valid line paths from a start hex (a path visits each line of a tile at most once;
    a hex crossed on two separate lines of one tile counts once) of L + cap_pts x captures +
    L x (sum of dot multipliers on it), L = hexes on the path. Extending a path only adds, so
    the depth-first search scores every prefix. out[0] = L of the best path, out[1] = 1 when
    the search ran out of PATH_BUDGET steps (the score is then the best found).
    on: int64[2 NH]; node, side: int64[2 NH + 1]; hexcnt: int64[NH]."""
    cap_pts, startm, tz, nbr = br.capture_points, br.startm, br.tz, br.nbr
    mult, ttype, towner, emask, netid, netm = b.mult, b.ttype, b.towner, b.emask, b.netid, b.netm
    nh = ttype.shape[0]
    for i in range(2 * nh):
        on[i] = 0
    for h in range(nh):
        hexcnt[h] = 0
    cap = cap_pts * captures
    best = cap
    out[0] = 0
    out[1] = 0
    budget = PATH_BUDGET
    for h0 in range(nh):
        if startm[q, h0] == 0 or ttype[h0] < 0 or towner[h0] != q and tz[q, h0] == 0:
            continue
        for j0 in range(2):
            u0 = h0 * 2 + j0
            if netm[u0] == 0:
                continue
            depth = 0
            node[0] = u0
            side[0] = 0
            on[u0] = 1
            hexcnt[h0] = 1
            L = 1
            ms = mult[h0]
            while depth >= 0:
                if side[depth] == 0:  # just arrived: score this path
                    sc = L + cap + L * ms
                    if sc > best or sc == best and L > out[0]:
                        best = sc
                        out[0] = L
                budget -= 1
                if budget < 0:
                    out[1] = 1
                    break
                u = node[depth]
                h = u >> 1
                m = netm[u]
                advanced = False
                while side[depth] < 6:
                    sd = side[depth]
                    side[depth] += 1
                    if not (m >> sd) & 1:
                        continue
                    n = nbr[h, sd]
                    if n < 0 or ttype[n] < 0:
                        continue
                    o = (sd + 3) % 6
                    if not (emask[n] >> o) & 1 or towner[n] != q and tz[q, n] == 0:
                        continue
                    v = n * 2 + netid[n * 6 + o]
                    if on[v]:
                        continue
                    on[v] = 1
                    if hexcnt[n] == 0:
                        L += 1
                        ms += mult[n]
                    hexcnt[n] += 1
                    depth += 1
                    node[depth] = v
                    side[depth] = 0
                    advanced = True
                    break
                if not advanced:
                    on[u] = 0
                    hexcnt[h] -= 1
                    if hexcnt[h] == 0:
                        L -= 1
                        ms -= mult[h]
                    depth -= 1
            if out[1]:
                break
        if out[1]:
            break
    for i in range(2 * nh):
        on[i] = 0
    for h in range(nh):
        hexcnt[h] = 0
    return best


# ---- pure-Python position (verification, tests, designers) ------------------------------------
class BattlePosition(TileLines):
    """A Battle-mode board, searched over line endpoints (hex, side); independent of the kernel.

    tiles: {hex: (seat, type, rotation)}; captures / tokens per seat.
    """

    def __init__(self, rules: dict[str, Any], dots=None):
        self.rules = rules
        self.board = board_of(board_columns(rules))
        self.dot_mult = dot_multiplier_table(rules)
        self.dots = list(dots) if dots is not None else [0] * self.board.size
        self.tiles: dict[int, tuple[int, int, int]] = {}
        self.placed_any = [False, False]
        self.tokens = [rules["battle_tokens"]] * 2
        self.captures = [0, 0]
        self.captured: list[list[int]] = [[], []]
        (self.tz, self.startm, self.goalm, self.firstc, self.corner_any) = battle_tables(rules)

    def mult(self, h: int) -> int:
        """The stalemate multiplier of hex h by its dots (dot_multipliers; 0 on a plain hex)."""
        return int(self.dot_mult[self.dots[h]])

    def _linked(self, h: int, ends: int) -> bool:
        for s in range(6):
            n = int(self.board.nbr[h, s])
            if (ends >> s) & 1 and n >= 0 and (self.ends(n) >> ((s + 3) % 6)) & 1:
                return True
        return False

    def why_illegal(self, seat: int, kind: int, h: int, t: int, r: int) -> str | None:
        block_conn = self.rules["block_placement"] == "connected"
        if t == BLOCK and block_conn:
            return "Blocks are never placeable (block_placement = 'connected')"
        ends = 0
        for m in networks(t, r):
            ends |= m
        if kind == K_PLACE:
            if h in self.tiles:
                return "hex is occupied"
            if not self.placed_any[seat]:
                return None if h in self.firstc[seat] else "first tile must go on an own corner"
            if not any(int(n) in self.tiles for n in self.board.nbr[h] if n >= 0):
                return "not adjacent to a tile"
            if t != BLOCK and not self._linked(h, ends):
                return "no line connects"
            return None
        if t not in (BLOCK, STAR6):
            return "only Block and Star-6 displace"
        if self.tokens[seat] <= 0:
            return "no displacement token left"
        if h not in self.tiles or self.tiles[h][0] == seat:
            return "target is not an opponent tile"
        if self.corner_any[h]:
            return "target is on a starting corner"
        if not any(n >= 0 and int(n) in self.tiles and self.tiles[int(n)][0] == seat
                   for n in self.board.nbr[h]):
            return "target is not adjacent to an own tile"
        if t != BLOCK and not self._linked(h, ends):
            return "no line connects"
        if self.rules["battle_orphan"] == "line":
            before = self.tiles[h]
            linked_before = {n: self._linked(n, self.ends(n)) for n in self._nbrs(h)}
            self.tiles[h] = (seat, t, r)
            try:
                for n, was in linked_before.items():
                    if was and not self._linked(n, self.ends(n)):
                        return f"displacement orphans the tile on {self.board.names[n]}"
            finally:
                self.tiles[h] = before
        return None

    def _nbrs(self, h: int) -> list[int]:
        return [int(n) for n in self.board.nbr[h] if n >= 0 and int(n) in self.tiles]

    def legal_moves(self, seat: int, hand) -> list[tuple[int, int, int, int]]:
        out = []
        for t in sorted(set(hand)):
            for r in orientations(t):
                for kind in (K_PLACE, K_DISPLACE):
                    for h in range(self.board.size):
                        if self.why_illegal(seat, kind, h, t, r) is None:
                            out.append((kind, h, t, r))
        return out

    def play(self, seat: int, kind: int, h: int, t: int, r: int) -> None:
        why = self.why_illegal(seat, kind, h, t, r)
        if why:
            raise ValueError(f"illegal: {SEATS[seat]} {TILE_TYPES[t].name} on {self.board.names[h]}: "
                             f"{why}")
        if kind == K_DISPLACE:
            self.captured[seat].append(self.tiles[h][1])
            self.captures[seat] += 1
            self.tokens[seat] -= 1
        self.tiles[h] = (seat, t, r % 6)
        self.placed_any[seat] = True

    def _path_stalemate(self, seat: int, cap: int) -> tuple[int, int]:
        return _line_path_best(self, seat, cap)

    def usable(self, seat: int, h: int) -> bool:
        """Transit rule for the tile on hex h."""
        return self.tiles[h][0] == seat or bool(self.tz[seat, h])

    def _walk(self, seat: int, transit: bool) -> set[tuple[int, int]]:
        """Endpoints (hex, side) reachable along placed lines from seat's start hexes."""
        ok = (lambda h: self.usable(seat, h)) if transit else (lambda h: True)
        todo = deque((h, s) for h in self.tiles if self.startm[seat, h] and ok(h)
                     for m in self.nets(h) for s in range(6) if (m >> s) & 1)
        seen = set(todo)
        while todo:
            h, s = todo.popleft()
            for m in self.nets(h):
                if (m >> s) & 1:
                    for s2 in range(6):
                        if (m >> s2) & 1 and (h, s2) not in seen:
                            seen.add((h, s2))
                            todo.append((h, s2))
            n = int(self.board.nbr[h, s])
            o = (s + 3) % 6
            if n >= 0 and n in self.tiles and ok(n) and (self.ends(n) >> o) & 1 \
                    and (n, o) not in seen:
                seen.add((n, o))
                todo.append((n, o))
        return seen

    def joined(self, seat: int, transit: bool = True) -> bool:
        return any(self.goalm[seat, h] for h, _ in self._walk(seat, transit))

    def judge(self, mover: int) -> tuple[int | None, str | None, list[bool]]:
        """After mover's placement: (winner, 'path' / 'opponent_path' / None, transit-blocked
        flags). Only transit-valid paths count, the mover's first: a mover whose joined line is
        transit-invalid hands the win to an opponent whose path is valid."""
        tblock = [False, False]
        for k, who in enumerate((mover, 1 - mover)):
            if self.joined(who):
                return who, ("path", "opponent_path")[k], tblock
            if self.joined(who, transit=False):
                tblock[who] = True
        return None, None, tblock

    def stalemate_score(self, seat: int) -> tuple[int, int]:
        """(score, L): best transit-valid chain from a start hex (see the kernel's _chain_score),
        or with battle_stalemate_length = "path" the best simple line path (_path_stalemate)."""
        cap = self.rules["battle_capture_points"] * self.captures[seat]
        if self.rules.get("battle_stalemate_length", "chain") == "path":
            return self._path_stalemate(seat, cap)
        best, best_l = cap, 0
        reach = self._walk(seat, True)
        done: set[tuple[int, int]] = set()
        for start in sorted(reach):
            if start in done or not self.startm[seat, start[0]]:
                continue
            # the chain of this start endpoint: endpoints joined to it
            comp = {start}
            todo = [start]
            while todo:
                h, s = todo.pop()
                nxt = [(h, s2) for m in self.nets(h) if (m >> s) & 1 for s2 in range(6)
                       if (m >> s2) & 1]
                n = int(self.board.nbr[h, s])
                if n >= 0 and n in self.tiles and self.usable(seat, n) and \
                        (self.ends(n) >> ((s + 3) % 6)) & 1:
                    nxt.append((n, (s + 3) % 6))
                for e in nxt:
                    if e not in comp:
                        comp.add(e)
                        todo.append(e)
            done |= comp
            hexes = {h for h, _ in comp}
            length = len(hexes)
            sc = length + cap + length * sum(self.mult(h) for h in hexes)
            if sc > best or (sc == best and length > best_l):
                best, best_l = sc, length
        return best, best_l


def _line_path_best(pos: BattlePosition, seat: int, cap: int) -> tuple[int, int]:
    """Every simple transit-valid line path from a start hex, searched exhaustively: a path is a
    sequence of (hex, line) with each line of a tile used at most once; its hexes count once."""
    best = [cap, 0]

    def score(hexes):
        n = len(hexes)
        return n + cap + n * sum(pos.mult(h) for h in hexes)

    def dfs(h, m, on, hexes):
        sc = score(hexes)
        if sc > best[0] or (sc == best[0] and len(hexes) > best[1]):
            best[0], best[1] = sc, len(hexes)
        for s in range(6):
            if not (m >> s) & 1:
                continue
            n = int(pos.board.nbr[h, s])
            o = (s + 3) % 6
            if n < 0 or n not in pos.tiles or not pos.usable(seat, n) or not (pos.ends(n) >> o) & 1:
                continue
            m2 = next(x for x in pos.nets(n) if (x >> o) & 1)
            if (n, m2) not in on:
                dfs(n, m2, on | {(n, m2)}, hexes | {n})

    for h in pos.tiles:
        if pos.startm[seat, h] and pos.usable(seat, h):
            for m in pos.nets(h):
                dfs(h, m, {(h, m)}, {h})
    return best[0], best[1]


def stalemate_score(length: int, captures: int, dot_counts, capture_points: int = 2) -> int:
    """The card's formula: L + capture_points x captures + L x (sum of the dot multipliers)."""
    return length + capture_points * captures + length * sum(multiplier(d) for d in dot_counts)


# ---- Python side: thin wrappers the Game object dispatches to ---------------------------------
def _bcfg(rules: dict[str, Any]) -> np.ndarray:
    cfg = np.zeros(N_BCFG, np.int64)
    cfg[B_BLOCK_CONNECTED] = rules["block_placement"] == "connected"
    cfg[B_FIRST] = ("random", "A", "B").index(rules["first_player"])
    cfg[B_ORPHAN] = ("line", "off").index(rules["battle_orphan"])
    return cfg


COLUMNS = (("winner", O_WINNER, np.int8), ("end_reason", O_REASON, np.int8),
           ("turns", O_TURNS, np.int32), ("first_seat", O_FIRST, np.int8),
           ("score_A", O_SCORE_A, np.int32), ("score_B", O_SCORE_B, np.int32),
           ("hexflow_passes_A", O_PASS_A, np.int16), ("hexflow_passes_B", O_PASS_B, np.int16),
           ("hexflow_battle_displacements_A", O_DISP_A, np.int8),
           ("hexflow_battle_displacements_B", O_DISP_B, np.int8),
           ("hexflow_battle_chain_A", O_CHAIN_A, np.int16),
           ("hexflow_battle_chain_B", O_CHAIN_B, np.int16),
           ("hexflow_battle_transit_blocked_A", O_TBLOCK_A, np.bool_),
           ("hexflow_battle_transit_blocked_B", O_TBLOCK_B, np.bool_),
           ("hexflow_path_completed", O_COMPLETED, np.bool_))


def columns(res: np.ndarray) -> dict[str, np.ndarray]:
    return {name: res[:, idx].astype(dt) for name, idx, dt in COLUMNS}


def replay(trace):
    """Yield (BattlePosition, move) before and after every move of a Battle trace."""
    pos = BattlePosition(trace.rules, dots=trace.data["dots"])
    yield pos, None
    for mv in trace.moves:
        if mv["kind"] != "pass":
            kind = K_DISPLACE if mv["kind"] == "displace" else K_PLACE
            pos.play(SEATS.index(mv["seat"]), kind, pos.board.hex_id(mv["hex"]),
                     _type(mv["tile"]), mv["rotation"])
        yield pos, mv


def _type(name: str) -> int:
    return next(i for i, t in enumerate(TILE_TYPES) if t.name == name)


def verify(trace, end_reasons) -> None:
    """Replay with BattlePosition: hands from the recorded bags (each seat's own tile set and
    hand size), every move legal and from the mover's hand, passes only without a legal move,
    tiles conserved (board + hand + bag + the opponent's capture pile), declared winner, reason,
    scores and columns right."""
    from sim.engine import exchange_seats

    from . import verify as V

    rules = trace.rules
    row = V.row_by_seat(trace, lambda cols, swapped: exchange_seats(cols, swapped, list(SEATS)))
    counts = tile_counts(rules, list(SEATS))
    full = [np.repeat(np.arange(len(TILE_TYPES)), counts[q]).tolist() for q in range(2)]
    bags, hands = V.deal(trace, full, hand_sizes(rules, list(SEATS)), SEATS)
    pos = BattlePosition(rules, dots=trace.data["dots"])
    winner, reason = None, None
    turns = V.PassRule(2, rules["no_move"] == "lose")
    tblock = [False, False]
    for i, mv in enumerate(trace.moves):
        assert reason is None, f"move {i} after the end ({reason})"
        q = SEATS.index(mv["seat"])
        V.check_alternation(i, q, trace.moves, row["first_seat"], SEATS)
        if mv["kind"] == "pass":
            reason = turns.passed(i, pos, q, hands[q], mv["seat"])
            if reason == "no_move_loss":
                winner = 1 - q
            elif reason == "stalemate":
                reason = "stalemate_score"
            continue
        turns.placed()
        t = _type(mv["tile"])
        assert t in hands[q], f"move {i}: {mv['tile']} not in hand {hands[q]}"
        kind = K_DISPLACE if mv["kind"] == "displace" else K_PLACE
        pos.play(q, kind, pos.board.hex_id(mv["hex"]), t, mv["rotation"])  # raises if illegal
        V.draw_after(hands, bags, q, t)
        winner, reason, tb = pos.judge(q)
        tblock = [a or b for a, b in zip(tblock, tb, strict=True)]
        if reason is not None:
            break
    reason = V.capped(reason, trace.moves, rules)
    passes = turns.passes
    for q in range(2):
        on_board = [t for (s, t, _) in pos.tiles.values() if s == q]
        assert sorted(on_board + hands[q] + bags[q] + pos.captured[1 - q]) == full[q], \
            f"seat {q}: tiles not conserved"
        col = f"hexflow_passes_{SEATS[q]}"
        assert row[col] == passes[q], f"{col} = {row[col]}, replay gives {passes[q]}"
        assert row[f"hexflow_battle_displacements_{SEATS[q]}"] == pos.captures[q]
        assert bool(row[f"hexflow_battle_transit_blocked_{SEATS[q]}"]) == tblock[q]
        assert pos.tokens[q] >= 0
    scores = [pos.stalemate_score(q) for q in range(2)]
    for q in range(2):
        assert row[f"hexflow_battle_chain_{SEATS[q]}"] == scores[q][1]
    if reason == "stalemate_score":
        a, b = scores[0][0], scores[1][0]
        winner = None if a == b else (0 if a > b else 1)
        assert (row["score_A"], row["score_B"]) == (a, b)
    else:  # a path or no-move win scores base_score (the card gives no Battle path score)
        won = [0, 0] if winner is None else [rules["base_score"] * (q == winner) for q in range(2)]
        assert (row["score_A"], row["score_B"]) == tuple(won), (row["score_A"], row["score_B"], won)
    assert end_reasons[row["end_reason"]] == reason, \
        f"declared {end_reasons[row['end_reason']]}, replay gives {reason}"
    assert row["winner"] == (-1 if winner is None else winner)
    assert row["turns"] == len(trace.moves)
    assert bool(row["hexflow_path_completed"]) == (reason in ("path", "opponent_path"))


def metrics(df, rules: dict[str, Any], end_reasons) -> list[dict[str, Any]]:
    """Battle report rows: end reasons, displacements and captures, transit-blocked paths."""
    n = len(df)
    out: list[dict[str, Any]] = []
    if n == 0:
        return out

    prop = proportion_rows(out, n)

    prop("path completed", df["hexflow_path_completed"].astype(bool))
    # the runner's tables hold end reasons as names (categorical); play_chunk columns as codes
    reasons = df["end_reason"]
    by_name = not np.issubdtype(np.asarray(reasons).dtype, np.integer)
    for code, name in enumerate(end_reasons):
        if name in ("path", "opponent_path", "no_move_loss", "turn_cap", "stalemate_score"):
            prop(f"end: {name}", (reasons.astype(str) == name) if by_name else (reasons == code))
    disp = df["hexflow_battle_displacements_A"] + df["hexflow_battle_displacements_B"]
    prop("games with a displacement", disp > 0)
    for seat in SEATS:
        d = df[f"hexflow_battle_displacements_{seat}"]
        out.append({"metric": f"displacements used per game, {seat}", "value": float(d.mean())})
        out.append({"metric": f"capture points per game, {seat}",
                    "value": float(d.mean()) * rules["battle_capture_points"]})
        prop(f"transit-blocked path (joined line the transit rule refuses), {seat}",
             df[f"hexflow_battle_transit_blocked_{seat}"].astype(bool))
        out.append({"metric": f"stalemate chain length (tiles), {seat}, mean",
                    "value": float(df[f"hexflow_battle_chain_{seat}"].mean())})
    decided = df[df["winner"] >= 0]
    if len(decided):
        won = sum(int(decided[f"hexflow_battle_displacements_{s}"][decided["winner"] == i].sum())
                  for i, s in enumerate(SEATS))
        out.append({"metric": "displacements by the winner, share of all in decided games",
                    "value": won / max(1, int((decided["hexflow_battle_displacements_A"]
                                              + decided["hexflow_battle_displacements_B"]).sum()))})
    return out


def warnings(rules: dict[str, Any]) -> list[str]:
    return [
        "hexflow battle: the transit-valid list (own tiles, contested zone, own corners) and the "
        "transit-invalid rule (opponent tiles in THEIR territory) disagree on opponent tiles in "
        f"your own territory; battle_transit_home = {rules['battle_transit_home']!r} decides.",
    ] + unfillable(rules, "hexflow battle", "the card's 'If all 85 hexes fill'",
                   "the stalemate score is taken when neither player can place.") + [
        "hexflow battle: the card says the Block 'Displaces any adjacent opponent tile' but also "
        "'Block immunity: the Block tile cannot carry any path': a displacing Block takes the "
        "target's hex and carries no line.",
    ]


# ---- pictures ---------------------------------------------------------------------------------
_PLAYER_TINT = ("#1f5fbf", "#c0392b")  # player A blue, B red
_TINT_NAME = ("blue", "red")


def _overlay(ax, pos: BattlePosition, captured_hexes, small: bool, players=(0, 1)) -> None:
    """Territory shading (A's columns blue, B's red: by the player in the seat, `players`) and
    rings on hexes where a tile was taken."""
    import math

    from matplotlib.patches import RegularPolygon

    cols = board_columns(pos.rules)
    for h in range(pos.board.size):
        x, y = pos.board.centre[h]
        zone = zone_of(h, cols)
        tint = None if zone == 1 else _PLAYER_TINT[players[zone // 2]]
        if tint:
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.97, orientation=math.pi / 6,
                                        facecolor=tint, alpha=0.13, edgecolor="none", zorder=4))
        if h in captured_hexes:
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.8, orientation=math.pi / 6,
                                        facecolor="none", edgecolor="#8e44ad", linestyle="--",
                                        linewidth=1.2 if small else 2.2, zorder=6))


def draw_battle(trace, path: str, every_move: bool = False) -> None:
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sim.games.seating import mover, players

    from .draw import _board, headline, move_grid, move_list, note

    cols = board_columns(trace.rules)
    corner_names = start_corners(cols)
    row = trace.row
    seated = players(trace)  # seat -> its player at the end
    head = (f"{headline(trace, 'battle')},\n"  # two lines: one is wider than the board
            f"score A {row['score_A']} / B {row['score_B']}, displacements "
            f"A {row['hexflow_battle_displacements_A']} / B {row['hexflow_battle_displacements_B']}")
    frames = []
    taken: set[int] = set()
    for pos, mv in replay(trace):
        if mv is not None and mv["kind"] == "displace":
            taken.add(pos.board.hex_id(mv["hex"]))
        if mv is not None and every_move:
            frames.append((dict(pos.tiles), set(taken), mv, len(frames)))
    if every_move:

        def one(ax, k, frame):
            tiles, tk, mv, i = frame
            pos.tiles = tiles
            _board(ax, pos, (), f"{k + 1}. {mover(trace, i)} {mv['move']}", small=True,
                   corner_names=corner_names, players=players(trace, i))
            _overlay(ax, pos, tk, True, players(trace, i))

        fig = move_grid(plt, frames, one)
        fig.suptitle(head + note(trace), fontsize=9)
    else:
        fig = plt.figure(figsize=(11, 8))
        ax = fig.add_axes((0.0, 0.0, 0.68, 0.95))
        _board(ax, pos, (), head, corner_names=corner_names, players=seated)
        _overlay(ax, pos, taken, False, seated)
        za, zc, zb = zone_letters(cols)
        pa, pb = (SEATS[p] for p in seated)
        legend = (textwrap.fill(note(trace).strip(), 42) + "\n\n" if note(trace) else "") + (
            f"territory: {pa} {za} ({_TINT_NAME[seated[0]]}), contested {zc},\n{pb} {zb} "
            f"({_TINT_NAME[seated[1]]}); dashed purple ring =\na tile was displaced there\n\n")
        fig.text(0.70, 0.95, legend + "moves (tile code + rotation, hex)\n\n" + move_list(trace), va="top",
                 family="monospace", fontsize=7)
    fig.savefig(path, dpi=110)
    plt.close(fig)
