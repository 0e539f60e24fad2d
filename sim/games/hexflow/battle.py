"""HEXFLOW Battle mode: its territory tables and the compiled helpers its rule functions
(battle_engine.py) are made of: move generation, the union-find over lines, the seats' link
tables, the stalemate scores; and the outcome columns of its result rows. The bots' helpers are in
battle_bots.py, the pure-Python position that verifies traces in battle_verify.py.

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

from typing import Any, NamedTuple

import numpy as np

from sim.engine.jit import hot, hot_inline

from .board import board_of
from .kernel import _hand_pairs, _relink_hex, _tile_fits
from .tiles import BLOCK, STAR6

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
    set (battle_engine.Tables.br)."""

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
    """The board as the helpers read it: rows of the engine position (battle_engine._board), or
    the tests' own arrays; per hex h ttype (-1 empty), trot, towner, emask, need (_set_need), fpos
    (place on the frontier, -1 off it), mult (stalemate multiplier); netid[h*6 + s], netm[h*2 + j]
    (the tile's line networks); nown[q, h] (_set_owner); front[:nfront] the frontier."""

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


# ---- compiled rule helpers --------------------------------------------------------------------
@hot
def _relink(h, tz, nbr, ttype, towner, emask, netid, netm, lnk):
    """Keep both seats' link tables (lnk[q]: kernel._relink_hex under the transit rule for seat q:
    a step onto a tile q may not use is -1) after the tile on hex h changed, placed or displaced.
    lnk: int64[2, 12 NH], the empty board's (kernel.empty_links) at the start of a game."""
    for q in range(2):
        _relink_hex(h, q, tz, towner, nbr, ttype, emask, netid, netm, lnk[q])


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
def _displace_ok(h, t, em, cfg, nbr, ttype, emask, need):
    """May a displacer (t, side mask em) replace the target tile on h? It must fit h as a tile
    placed there would (kernel._tile_fits: a Star-6 must meet a line); with battle_orphan = "line"
    no neighbour may lose its last line connection."""
    if not _tile_fits(False, em, need[h], t == BLOCK, cfg[B_BLOCK_CONNECTED] != 0):
        return False
    return not (cfg[B_ORPHAN] == 0 and _orphans(h, em, nbr, ttype, emask))


# ---- stalemate scores ------------------------------------------------------------------------
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


# ---- Python side: the cfg row and the outcome columns -----------------------------------------
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
