"""The equation finder: every valid equation through the tile just placed (compiled).

An equation is a walk through adjacent tiles, read in order (see docs/rules/hexatrex.md):
consecutive digits form numbers, exactly one "=" (the single centre tile), the placed tile at
least once, a tile never at distance 1 or 2 in the walk ("spaced") or never twice ("never").
Each walk is parsed by a tiny state machine while it grows, so a walk that can no longer be an
equation is cut at once, and also cut when the hex distance to the "=" or to the placed tile
already exceeds the symbols it has left (a walk needs at least that many steps).

The parse of a side is unique: "-" is a negative sign at the start of a side or after an
operator, a minus after a digit. What is free is the reading of each "6" (6 or 9) and each "+"
(plus or times) at each use, and, with bracketing "any", the brackets; a side therefore has a
small *set* of values, and an equation is valid when the two sets meet. All arithmetic is in
int64; by default every division must be exact (no fraction ever appears), and with
no_fractions = "result" it is exact rational arithmetic (numerator, denominator) in which only
a side's value must be whole. Either way a side's values are whole numbers, so the side trie,
the store and the join work on them unchanged.

Score: equations on the same tile set count once; each scores its number of distinct tiles.
Tile sets are bit masks over the placement order (<= 127 tiles: two uint64 words).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.engine.jit import kernel

# syntax states of the side being read
S_START, S_NEG, S_NUM, S_OP = 0, 1, 2, 3
MAX_TILES_CAP = 12       # longest walk allowed: keeps every value in int64 and buffers bounded
VALUE_CAP = 16384        # >= 2**10 readings x Catalan(4) bracketings of a 10-symbol side
POOL_PER = 132           # Catalan(6): values of one operand interval in the bracketing DP
CFG_LEN = 9
# cfg layout (int64): 0 max_len, 1 bracket_any, 2 require_operator, 3 leading_zero,
# 4 six_as_nine, 5 plus_as_times, 6 repeat_never, 7 negative_zero, 8 fractions allowed in
# between (no_fractions = "result")
# `_eval_side`'s scratch (ev) layout: per operand j (<= 16) its operator's position, sign,
# digit start and end, value and operator code; per interval a..b of the bracketing DP its
# pool start and size; per symbol its choice bit; then the pool (64 intervals x POOL_PER
# values) and, POOL_DEN further on, each pooled value's denominator
EV_OP, EV_SIGN, EV_START, EV_END, EV_VAL, EV_OPC = 0, 16, 32, 48, 80, 96
EV_ISTART, EV_ISIZE, EV_CHOICE, EV_POOL = 112, 176, 240, 256
POOL_DEN = 64 * POOL_PER
EV_LEN = EV_POOL + 2 * POOL_DEN


class Geo(NamedTuple):
    """The board as the scorers read it (tiles.Board: the index map is drawn in state.py)."""

    nb_off: np.ndarray  # int64[6]: neighbour offsets
    cq: np.ndarray  # int32[cells]: axial q of each cell
    cr: np.ndarray  # int32[cells]: axial r
    eq: np.int64  # the "=" cell


class Table(NamedTuple):
    """The tiles on the table."""

    sym: np.ndarray  # int8[cells]: symbol per cell, -1 empty
    order: np.ndarray  # int16[cells]: placement index, -1 empty ("=" 0)
    occ: np.ndarray  # int64[>= n_occ]: the occupied cells in placement order
    n_occ: np.int64


class Found(NamedTuple):
    """A scorer's output: the distinct tile sets found and the first walk of each."""

    lo: np.ndarray  # uint64[cap]: tile set, placement indices 0..63
    hi: np.ndarray  # uint64[cap]: 64..127
    size: np.ndarray  # int64[cap]: tiles in the set
    walks: np.ndarray  # int64[rows, 16]: the walk (cells) of tile set e, for e < rows (0 rows: none)
    wlen: np.ndarray  # int64[rows]


class FinderWork(NamedTuple):
    """`_find`'s scratch (allocated once per chunk, never per call)."""

    st: np.ndarray  # int64[8, 16]: per depth: walk, directions tried, syntax state, number
    # length, leading zero, placed-tile count, binary operators
    mk: np.ndarray  # uint64[2, 16]: per depth the walk's tile set (lo, hi)
    lhs: np.ndarray  # int64[VALUE_CAP]: the left side's values
    rhs: np.ndarray  # int64[VALUE_CAP]: the right side's
    side: np.ndarray  # int64[16]: one side's symbols
    ev: np.ndarray  # int64[EV_LEN]: `_eval_side`'s scratch


def workspace() -> FinderWork:
    return FinderWork(np.zeros((8, 16), np.int64), np.zeros((2, 16), np.uint64),
                      np.zeros(VALUE_CAP, np.int64), np.zeros(VALUE_CAP, np.int64),
                      np.zeros(16, np.int64), np.zeros(EV_LEN, np.int64))


@kernel
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@kernel
def _hexdist(cq, cr, a, b):
    dq = cq[a] - cq[b]
    dr = cr[a] - cr[b]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@kernel
def _fwd_step(cs, nlen, zl, nb, s, lead0):
    """One symbol s (not "=") read forwards after syntax state cs, whose number so far has nlen
    digits (zl: it starts with 0) and which holds nb binary operators. Returns the new
    (state, nlen, zl, nb); state -1 when s cannot follow. Shared by the finder and the side
    trie, so both parse a side the same way."""
    if s <= 9:
        if cs == S_NUM:
            if nlen == 1 and zl == 1 and not lead0:
                return -1, 0, 0, nb
            return S_NUM, nlen + 1, zl, nb
        return S_NUM, 1, 1 if s == 0 else 0, nb
    if s == 11:
        if cs == S_NUM:
            return S_OP, 0, 0, nb + 1
        if cs == S_START or cs == S_OP:
            return S_NEG, 0, 0, nb
        return -1, 0, 0, nb
    if cs == S_NUM:
        return S_OP, 0, 0, nb + 1
    return -1, 0, 0, nb


@kernel
def _reduced(n, d):
    """n / d (d != 0) in lowest terms with a positive denominator."""
    a = abs(n)
    b = abs(d)
    while b != 0:
        a, b = b, a % b
    if d < 0:
        a = -a
    return n // a, d // a


@kernel
def _apply(a, op, b):
    """a op b; returns (ok, value). op: 10 plus, 11 minus, 12 times, 13 divide (exact only)."""
    if op == 10:
        return True, a + b
    if op == 11:
        return True, a - b
    if op == 12:
        return True, a * b
    if b == 0 or a % b != 0:
        return False, 0
    return True, a // b


@kernel
def _apply_frac(an, ad, op, bn, bd):
    """an/ad op bn/bd in exact rational arithmetic (no_fractions = "result"); returns
    (ok, numerator, denominator) in lowest terms; division by zero is not ok."""
    if op == 10:
        n, d = an * bd + bn * ad, ad * bd
    elif op == 11:
        n, d = an * bd - bn * ad, ad * bd
    elif op == 12:
        n, d = an * bn, ad * bd
    else:
        if bn == 0:
            return False, 0, 1
        n, d = an * bd, ad * bn
    n, d = _reduced(n, d)
    return True, n, d


@kernel
def _add_value(out, n, v):
    if n < 64:  # small sets stay duplicate-free; big ones only need membership, so append
        for i in range(n):
            if out[i] == v:
                return n
    out[n] = v
    return n + 1


@kernel
def _operands(side, n, neg0, ev):
    """Split side[0:n] (syntax already checked) into operands: ev[EV_OP + j] the position of
    the j-th operator, ev[EV_SIGN + j] the sign and ev[EV_START + j] .. ev[EV_END + j] the
    digits of operand j. Returns the operand count, 0 when a "-0" is refused."""
    m = 0
    i = 0
    while i < n:
        sign = 1
        if side[i] == 11:
            sign = -1
            i += 1
        ev[EV_SIGN + m] = sign
        ev[EV_START + m] = i
        while i < n and side[i] <= 9:
            i += 1
        ev[EV_END + m] = i
        m += 1
        if i < n:
            ev[EV_OP + m - 1] = i
            i += 1
    if not neg0:  # "-0" is not a negative number
        for j in range(m):
            if ev[EV_SIGN + j] < 0:
                zero = True
                for p in range(ev[EV_START + j], ev[EV_END + j]):
                    if side[p] != 0:
                        zero = False
                if zero:
                    return 0
    return m


@kernel
def _read(side, m, combo, ev):
    """Operand values (ev[EV_VAL:]) and operator codes (ev[EV_OPC:]) under reading `combo`
    (bit ev[EV_CHOICE + p] of it: the symbol at p reads 9 for a 6, x for a +)."""
    for j in range(m):
        v = 0
        for p in range(ev[EV_START + j], ev[EV_END + j]):
            d = side[p]
            c = ev[EV_CHOICE + p]
            if c >= 0 and (combo >> c) & 1:
                d = 9
            v = v * 10 + d
        ev[EV_VAL + j] = v * ev[EV_SIGN + j]
    for j in range(m - 1):
        p = ev[EV_OP + j]
        o = side[p]
        c = ev[EV_CHOICE + p]
        if c >= 0 and (combo >> c) & 1:
            o = 12
        ev[EV_OPC + j] = o


@kernel
def _precedence(ev, m, frac):
    """The value of the read operands under the usual order of operations (x and / first,
    left to right): (ok, value). Every intermediate result must be whole unless frac, which
    computes in exact fractions and only asks the side's value to be whole."""
    acc_n, acc_d = 0, 1
    cur_n, cur_d = ev[EV_VAL], 1
    for j in range(1, m):
        o = ev[EV_OPC + j - 1]
        x = ev[EV_VAL + j]
        if o == 12:
            cur_n, cur_d = _reduced(cur_n * x, cur_d) if frac else (cur_n * x, 1)
        elif o == 13:
            if x == 0:
                return False, 0
            if frac:
                cur_n, cur_d = _reduced(cur_n, cur_d * x)
            elif cur_n % x != 0:
                return False, 0
            else:
                cur_n = cur_n // x
        else:
            if frac:
                _, acc_n, acc_d = _apply_frac(acc_n, acc_d, 10, cur_n, cur_d)
            else:
                acc_n += cur_n
            cur_n, cur_d = (x, 1) if o == 10 else (-x, 1)
    if frac:
        _, acc_n, acc_d = _apply_frac(acc_n, acc_d, 10, cur_n, cur_d)
        return acc_d == 1, acc_n
    return True, acc_n + cur_n


@kernel
def _brackets(ev, m, frac, out, cnt):
    """Every value of the read operands under every bracketing, added to out[:cnt] (returns
    the new count): an interval DP, the values of operands a..b at pool slot ev[EV_ISTART +
    8a + b] (ev[EV_ISIZE + 8a + b] of them); with frac their denominators POOL_DEN further on
    and only whole values in out."""
    pool = EV_POOL
    for length in range(1, m + 1):
        for a in range(0, m - length + 1):
            b = a + length - 1
            slot = a * 8 + b
            ev[EV_ISTART + slot] = pool
            sz = 0
            if length == 1:
                ev[pool] = ev[EV_VAL + a]
                ev[pool + POOL_DEN] = 1
                sz = 1
            for s in range(a, b):
                o = ev[EV_OPC + s]
                ls = ev[EV_ISTART + a * 8 + s]
                ln = ev[EV_ISIZE + a * 8 + s]
                rs = ev[EV_ISTART + (s + 1) * 8 + b]
                rn = ev[EV_ISIZE + (s + 1) * 8 + b]
                for x in range(ln):
                    for y in range(rn):
                        if frac:
                            ok, v, vd = _apply_frac(ev[ls + x], ev[ls + x + POOL_DEN], o, ev[rs + y],
                                                    ev[rs + y + POOL_DEN])
                        else:
                            ok, v = _apply(ev[ls + x], o, ev[rs + y])
                            vd = 1
                        if not ok:
                            continue
                        dup = False
                        for z in range(sz):
                            if ev[pool + z] == v and ev[pool + z + POOL_DEN] == vd:
                                dup = True
                                break
                        if not dup:
                            ev[pool + sz] = v
                            ev[pool + sz + POOL_DEN] = vd
                            sz += 1
            ev[EV_ISIZE + slot] = sz
            pool += POOL_PER
    top = ev[EV_ISTART + m - 1]
    for x in range(ev[EV_ISIZE + m - 1]):
        if ev[top + x + POOL_DEN] == 1:
            cnt = _add_value(out, cnt, ev[top + x])
    return cnt


@kernel
def _eval_side(side, n, cfg, out, ev):
    """All values of one side (symbols side[0:n], syntax already checked) -> count in out,
    under the rules packed in cfg (six_as_nine, plus_as_times, bracketing, negative_zero,
    no_fractions). ev: scratch of EV_LEN (layout: the EV_* offsets)."""
    m = _operands(side, n, cfg[7] != 0, ev)
    if m == 0:
        return 0
    six9 = cfg[4] != 0
    plus_t = cfg[5] != 0
    k = 0
    for p in range(n):
        s = side[p]
        ev[EV_CHOICE + p] = -1
        if (s == 6 and six9) or (s == 10 and plus_t):
            ev[EV_CHOICE + p] = k
            k += 1
    frac = cfg[8] != 0
    cnt = np.int64(0)
    for combo in range(1 << k):
        _read(side, m, combo, ev)
        if cfg[1] != 0:
            cnt = _brackets(ev, m, frac, out, cnt)
        else:
            ok, v = _precedence(ev, m, frac)
            if ok:
                cnt = _add_value(out, cnt, v)
    return cnt


@kernel
def _bits(o):
    """The tile-set bit of placement index o, as (lo, hi) words."""
    if o < 64:
        return np.uint64(1) << np.uint64(o), np.uint64(0)
    return np.uint64(0), np.uint64(1) << np.uint64(o - 64)


@kernel(inline='always')
def _start_need(geo, s, p_cell, d_pe):
    """Fewest symbols after the first a walk starting on s needs (through p_cell and "=")."""
    if s == p_cell:
        return d_pe + 1
    return min(_hexdist(geo.cq, geo.cr, s, p_cell) + d_pe + 1, _hexdist(geo.cq, geo.cr, s, geo.eq) + d_pe)


@kernel(inline='always')
def _need(geo, nxt, p_cell, d_pe, before_eq, npc, nsyn):
    """Fewest symbols a walk that just stepped onto nxt still needs: to "=" (before_eq) and
    the placed tile (npc times on the walk so far), or to end on a digit."""
    if before_eq:
        d_e = _hexdist(geo.cq, geo.cr, nxt, geo.eq)
        if npc == 0:
            return min(_hexdist(geo.cq, geo.cr, nxt, p_cell) + d_pe + 1, d_e + d_pe)
        return d_e + 1
    if npc == 0:
        return _hexdist(geo.cq, geo.cr, nxt, p_cell)
    return 0 if nsyn == S_NUM else 1


@kernel
def _left_values(sym, walk, depth, cfg, fws):
    """Values of the left side walk[:depth] (the walk has just stepped onto "=") -> fws.lhs."""
    side = fws.side
    for j in range(depth):
        side[j] = sym[walk[j]]
    return _eval_side(side, depth, cfg, fws.lhs, fws.ev)


@kernel
def _close(sym, walk, depth, eqpos, n_lhs, lo, hi, cfg, found, fws, n_found):
    """The walk walk[:depth + 1] (tile set lo / hi, "=" at eqpos) can end here: record it in
    found when its tile set is new and its right side meets a value of the left one (fws.lhs,
    n_lhs of them). Returns (distinct tile sets, points added)."""
    for j in range(n_found):
        if found.lo[j] == lo and found.hi[j] == hi:
            return n_found, 0
    side, lhs, rhs = fws.side, fws.lhs, fws.rhs
    nr = depth - eqpos
    for j in range(nr):
        side[j] = sym[walk[eqpos + 1 + j]]
    n_rhs = _eval_side(side, nr, cfg, rhs, fws.ev)
    hit = False
    for a in range(n_rhs):
        for b in range(n_lhs):
            if lhs[b] == rhs[a]:
                hit = True
                break
        if hit:
            break
    if not hit:
        return n_found, 0
    if n_found >= found.lo.shape[0]:
        raise ValueError("hexatrex finder: more distinct equations than the buffer holds")
    size = _popcount(lo) + _popcount(hi)
    found.lo[n_found] = lo
    found.hi[n_found] = hi
    found.size[n_found] = size
    if n_found < found.walks.shape[0]:
        for j in range(depth + 1):
            found.walks[n_found, j] = walk[j]
        found.wlen[n_found] = depth + 1
    return n_found + 1, size


@kernel
def _walks_from(geo, table, s, p_cell, d_pe, max_len, cfg, found, fws, n_found, total):
    """`_find`'s depth-first search over the walks that start on tile s: each step parsed
    (`_fwd_step`; "=" ends the left side, whose values `_left_values` computes once) and cut
    when the symbols left cannot reach "=" and the placed tile (`_need`); each walk that can
    end is tried by `_close`. Returns the running (n_found, total)."""
    lead0 = cfg[3] != 0
    never = cfg[6] != 0
    req_op = cfg[2] != 0
    sym, order = table.sym, table.order
    walk, dirs, syn, nlen, zl, pc, nbin = fws.st[0], fws.st[1], fws.st[2], fws.st[3], fws.st[4], fws.st[5], \
        fws.st[6]
    mlo, mhi = fws.mk[0], fws.mk[1]
    walk[0] = s
    dirs[0] = 0
    syn[0], nlen[0], zl[0], nbin[0] = _fwd_step(S_START, 0, 0, 0, sym[s], lead0)
    pc[0] = 1 if s == p_cell else 0
    mlo[0], mhi[0] = _bits(order[s])
    eqpos = np.int64(-1)
    n_lhs = np.int64(0)
    depth = 0
    while depth >= 0:
        if dirs[depth] >= 6 or depth + 1 >= max_len:
            if eqpos == depth:
                eqpos = -1
            depth -= 1
            continue
        d = dirs[depth]
        dirs[depth] = d + 1
        nxt = walk[depth] + geo.nb_off[d]
        ns = sym[nxt]
        if ns < 0 or (depth >= 1 and walk[depth - 1] == nxt):  # empty, or "a b a" (distance 2)
            continue
        blo, bhi = _bits(order[nxt])
        if never and ((mlo[depth] & blo) | (mhi[depth] & bhi)) != np.uint64(0):
            continue
        is_eq = ns == 14  # "=" ends the left side: the right side starts afresh
        if is_eq:
            if syn[depth] != S_NUM or eqpos >= 0:
                continue
            nsyn, nnl, nzl, nb = S_START, 0, 0, nbin[depth]
        else:
            nsyn, nnl, nzl, nb = _fwd_step(syn[depth], nlen[depth], zl[depth], nbin[depth], ns, lead0)
            if nsyn < 0:
                continue
        npc = pc[depth] + (1 if nxt == p_cell else 0)
        if _need(geo, nxt, p_cell, d_pe, eqpos < 0 and not is_eq, npc, nsyn) > max_len - (depth + 2):
            continue
        depth += 1
        walk[depth] = nxt
        dirs[depth] = 0
        syn[depth] = nsyn
        nlen[depth] = nnl
        zl[depth] = nzl
        pc[depth] = npc
        nbin[depth] = nb
        mlo[depth] = mlo[depth - 1] | blo
        mhi[depth] = mhi[depth - 1] | bhi
        if is_eq:
            eqpos = depth
            n_lhs = _left_values(sym, walk, depth, cfg, fws)
            if n_lhs == 0:  # the left side has no value: nothing to the right can help
                eqpos = -1
                depth -= 1
            continue
        if eqpos < 0 or nsyn != S_NUM or npc == 0 or (req_op and nb == 0):
            continue
        n_found, sz = _close(sym, walk, depth, eqpos, n_lhs, mlo[depth], mhi[depth], cfg, found, fws, n_found)
        total += sz
    return n_found, total


@kernel
def _find(geo, table, p_cell, max_len, cfg, found, fws):
    """Every equation through p_cell with at most max_len symbols.

    geo: the board (Geo); table: the tiles (Table: symbol and placement index per cell, -1
    empty; occ[:n_occ] the occupied cells); found: out (Found), one row per distinct tile set
    (capacity = len(found.lo)), and the first walk seen for each tile set in found.walks /
    wlen while they have rows; fws: `workspace()`.
    Returns (number of distinct tile sets, total score).
    """
    d_pe = _hexdist(geo.cq, geo.cr, p_cell, geo.eq)
    if d_pe + 2 > max_len:
        return 0, 0
    n_found = np.int64(0)
    total = np.int64(0)
    for si in range(table.n_occ):
        s = table.occ[si]
        ss = table.sym[s]
        if ss > 9 and ss != 11 or _start_need(geo, s, p_cell, d_pe) > max_len - 1:
            continue
        n_found, total = _walks_from(geo, table, s, p_cell, d_pe, max_len, cfg, found, fws, n_found, total)
    return n_found, total


def geo_of(board) -> Geo:
    """The scorers' view of a tiles.Board."""
    return Geo(board.nb_off, board.q, board.r, np.int64(board.center))


def find_cfg(rules) -> np.ndarray:
    cfg = np.zeros(CFG_LEN, np.int64)
    cfg[0] = rules["max_equation_tiles"]
    cfg[1] = rules["bracketing"] == "any"
    cfg[2] = rules["require_operator"]
    cfg[3] = rules["leading_zero"]
    cfg[4] = rules["six_as_nine"]
    cfg[5] = rules["plus_as_times"]
    cfg[6] = rules["tile_repeat"] == "never"
    cfg[7] = rules["negative_zero"]
    cfg[8] = rules.get("no_fractions", "every_step") == "result"
    return cfg


def find_compiled(pos, placed, rules, max_len=None) -> dict:
    """Run the compiled finder on a `position.Position` (tests, tools): returns
    {frozenset(cells): walk (list of cells)} for every equation through `placed`."""
    from sim.games.hexatrex.tiles import TEXT_SYMBOL, Board, hex_distance

    radius = max(hex_distance(c, (0, 0)) for c in pos.tiles) + 1
    board = Board(radius)
    sym = np.full(board.size, -1, np.int8)
    order = np.full(board.size, -1, np.int16)
    occ = np.zeros(len(pos.order), np.int64)
    for i, cell in enumerate(pos.order):
        idx = board.index(*cell)
        sym[idx] = TEXT_SYMBOL[pos.tiles[cell]]
        order[idx] = i
        occ[i] = idx
    cap = 4096
    lo, hi = np.zeros(cap, np.uint64), np.zeros(cap, np.uint64)
    size = np.zeros(cap, np.int64)
    walks, wlen = np.zeros((cap, 16), np.int64), np.zeros(cap, np.int64)
    m = rules["max_equation_tiles"] if max_len is None else max_len
    n, _ = _find(geo_of(board), Table(sym, order, occ, np.int64(len(occ))), board.index(*placed), np.int64(m),
                 find_cfg(rules), Found(lo, hi, size, walks, wlen), workspace())
    return {frozenset(board.coord(int(c)) for c in walks[e, : wlen[e]]):
            [board.coord(int(c)) for c in walks[e, : wlen[e]]] for e in range(n)}


def side_values_compiled(symbols: list[str], rules) -> set[int]:
    """Values of one side (a list of symbol texts) by the compiled evaluator, for tests."""
    from sim.games.hexatrex.tiles import TEXT_SYMBOL

    side = np.array([TEXT_SYMBOL[s] for s in symbols] + [0] * (16 - len(symbols)), np.int64)
    out = np.zeros(VALUE_CAP, np.int64)
    ev = np.zeros(EV_LEN, np.int64)
    n = _eval_side(side, len(symbols), find_cfg(rules), out, ev)
    return set(out[:n].tolist())
