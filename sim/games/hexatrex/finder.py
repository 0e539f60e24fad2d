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
int64 and every division must be exact (no fraction ever appears).

Score: equations on the same tile set count once; each scores its number of distinct tiles.
Tile sets are bit masks over the placement order (<= 127 tiles: two uint64 words).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# syntax states of the side being read
S_START, S_NEG, S_NUM, S_OP = 0, 1, 2, 3
MAX_TILES_CAP = 12       # longest walk allowed: keeps every value in int64 and buffers bounded
VALUE_CAP = 16384        # >= 2**10 readings x Catalan(4) bracketings of a 10-symbol side
POOL_PER = 132           # Catalan(6): values of one operand interval in the bracketing DP
CFG_LEN = 8
# cfg layout (int64): 0 max_len, 1 bracket_any, 2 require_operator, 3 leading_zero,
# 4 six_as_nine, 5 plus_as_times, 6 repeat_never, 7 negative_zero


def workspace():
    """Scratch arrays for `_find` (allocated once per chunk, never per call)."""
    return (np.zeros((8, 16), np.int64), np.zeros((2, 16), np.uint64),
            np.zeros(VALUE_CAP, np.int64), np.zeros(VALUE_CAP, np.int64),
            np.zeros(16, np.int64), np.zeros(256 + 64 * POOL_PER, np.int64))


@njit(cache=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _hexdist(cq, cr, a, b):
    dq = cq[a] - cq[b]
    dr = cr[a] - cr[b]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _add_value(out, n, v):
    if n < 64:  # small sets stay duplicate-free; big ones only need membership, so append
        for i in range(n):
            if out[i] == v:
                return n
    out[n] = v
    return n + 1


@njit(cache=True)
def _eval_side(side, n, six9, plus_t, any_br, neg0, out, ev):
    """All values of one side (symbols side[0:n], syntax already checked) -> count in out.

    ev layout: [0:16] op positions, [16:32] operand sign, [32:48] operand start,
    [48:64] operand end, [80:96] operand values, [96:112] op codes, [112:176] interval
    start in pool, [176:240] interval size, [240:256] choice bit of each position, [256:] pool.
    """
    m = 0
    i = 0
    while i < n:
        sign = 1
        if side[i] == 11:
            sign = -1
            i += 1
        ev[16 + m] = sign
        ev[32 + m] = i
        while i < n and side[i] <= 9:
            i += 1
        ev[48 + m] = i
        m += 1
        if i < n:
            ev[m - 1] = i
            i += 1
    if not neg0:  # "-0" is not a negative number
        for j in range(m):
            if ev[16 + j] < 0:
                zero = True
                for p in range(ev[32 + j], ev[48 + j]):
                    if side[p] != 0:
                        zero = False
                if zero:
                    return 0
    k = 0
    for p in range(n):
        s = side[p]
        ev[240 + p] = -1
        if (s == 6 and six9) or (s == 10 and plus_t):
            ev[240 + p] = k
            k += 1
    cnt = 0
    for combo in range(1 << k):
        # operand values and operators under this reading
        for j in range(m):
            v = 0
            for p in range(ev[32 + j], ev[48 + j]):
                d = side[p]
                c = ev[240 + p]
                if c >= 0 and (combo >> c) & 1:
                    d = 9
                v = v * 10 + d
            ev[80 + j] = v * ev[16 + j]
        for j in range(m - 1):
            p = ev[j]
            o = side[p]
            c = ev[240 + p]
            if c >= 0 and (combo >> c) & 1:
                o = 12
            ev[96 + j] = o
        if not any_br:
            acc = 0
            cur = ev[80]
            ok = True
            for j in range(1, m):
                o = ev[96 + j - 1]
                x = ev[80 + j]
                if o == 12:
                    cur = cur * x
                elif o == 13:
                    if x == 0 or cur % x != 0:
                        ok = False
                        break
                    cur = cur // x
                elif o == 10:
                    acc += cur
                    cur = x
                else:
                    acc += cur
                    cur = -x
            if ok:
                cnt = _add_value(out, cnt, acc + cur)
        else:
            # interval DP: values of operands i..j under every bracketing
            pool = 256
            for length in range(1, m + 1):
                for a in range(0, m - length + 1):
                    b = a + length - 1
                    slot = a * 8 + b
                    ev[112 + slot] = pool
                    sz = 0
                    if length == 1:
                        ev[pool] = ev[80 + a]
                        sz = 1
                    else:
                        for s in range(a, b):
                            o = ev[96 + s]
                            ls = ev[112 + a * 8 + s]
                            ln = ev[176 + a * 8 + s]
                            rs = ev[112 + (s + 1) * 8 + b]
                            rn = ev[176 + (s + 1) * 8 + b]
                            for x in range(ln):
                                for y in range(rn):
                                    ok, v = _apply(ev[ls + x], o, ev[rs + y])
                                    if ok:
                                        dup = False
                                        for z in range(sz):
                                            if ev[pool + z] == v:
                                                dup = True
                                                break
                                        if not dup:
                                            ev[pool + sz] = v
                                            sz += 1
                    ev[176 + slot] = sz
                    pool += POOL_PER
            top = ev[112 + m - 1]
            for x in range(ev[176 + m - 1]):
                cnt = _add_value(out, cnt, ev[top + x])
    return cnt


@njit(cache=True)
def _find(sym, order, nb_off, cq, cr, occ, n_occ, eq_cell, p_cell, max_len, cfg,
          found_lo, found_hi, found_size, rec_walks, rec_len, st, mk, lhs, rhs, side, ev):
    """Every equation through p_cell with at most max_len symbols.

    sym, order: int8 / int16 per board cell (symbol, placement index; -1 empty).
    occ[0:n_occ]: occupied cells. found_*: out, one row per distinct tile set (capacity = len).
    rec_walks (cap, 16) / rec_len: the first walk seen for each tile set, if cap > 0.
    Returns (number of distinct tile sets, total score).
    """
    any_br = cfg[1] != 0
    req_op = cfg[2] != 0
    lead0 = cfg[3] != 0
    six9 = cfg[4] != 0
    plus_t = cfg[5] != 0
    never = cfg[6] != 0
    neg0 = cfg[7] != 0
    n_found = 0
    total = 0
    d_pe = _hexdist(cq, cr, p_cell, eq_cell)
    if d_pe + 2 > max_len:
        return 0, 0
    walk = st[0]
    dirs = st[1]
    syn = st[2]
    nlen = st[3]
    zl = st[4]
    pc = st[5]
    nbin = st[6]
    mlo = mk[0]
    mhi = mk[1]
    cap = found_lo.shape[0]
    rcap = rec_walks.shape[0]
    n_lhs = 0
    for si in range(n_occ):
        s = occ[si]
        ss = sym[s]
        if ss > 9 and ss != 11:
            continue
        p0 = 1 if s == p_cell else 0
        if p0 == 0:
            need = min(_hexdist(cq, cr, s, p_cell) + d_pe + 1,
                       _hexdist(cq, cr, s, eq_cell) + d_pe)
        else:
            need = d_pe + 1
        if need > max_len - 1:
            continue
        walk[0] = s
        dirs[0] = 0
        syn[0], nlen[0], zl[0], nbin[0] = _fwd_step(S_START, 0, 0, 0, ss, lead0)
        pc[0] = p0
        o = order[s]
        if o < 64:
            mlo[0] = np.uint64(1) << np.uint64(o)
            mhi[0] = np.uint64(0)
        else:
            mlo[0] = np.uint64(0)
            mhi[0] = np.uint64(1) << np.uint64(o - 64)
        eqpos = -1
        depth = 0
        while depth >= 0:
            if dirs[depth] >= 6 or depth + 1 >= max_len:
                if eqpos == depth:
                    eqpos = -1
                depth -= 1
                continue
            d = dirs[depth]
            dirs[depth] = d + 1
            nxt = walk[depth] + nb_off[d]
            ns = sym[nxt]
            if ns < 0:
                continue
            if depth >= 1 and walk[depth - 1] == nxt:  # "a b a": distance 2 (1 is impossible)
                continue
            o = order[nxt]
            if o < 64:
                blo = np.uint64(1) << np.uint64(o)
                bhi = np.uint64(0)
            else:
                blo = np.uint64(0)
                bhi = np.uint64(1) << np.uint64(o - 64)
            if never and ((mlo[depth] & blo) | (mhi[depth] & bhi)) != np.uint64(0):
                continue
            # --- syntax step ("=" ends the left side: the right side starts afresh)
            is_eq = ns == 14
            if is_eq:
                if syn[depth] != S_NUM or eqpos >= 0:
                    continue
                nsyn, nnl, nzl, nb = S_START, 0, 0, nbin[depth]
            else:
                nsyn, nnl, nzl, nb = _fwd_step(syn[depth], nlen[depth], zl[depth], nbin[depth], ns,
                                               lead0)
                if nsyn < 0:
                    continue
            npc = pc[depth] + (1 if nxt == p_cell else 0)
            # --- can the walk still reach "=" and the placed tile in the symbols left?
            rem = max_len - (depth + 2)
            if eqpos < 0 and not is_eq:
                d_e = _hexdist(cq, cr, nxt, eq_cell)
                if npc == 0:
                    need = min(_hexdist(cq, cr, nxt, p_cell) + d_pe + 1, d_e + d_pe)
                else:
                    need = d_e + 1
            elif npc == 0:
                need = _hexdist(cq, cr, nxt, p_cell)
            else:
                need = 0 if nsyn == S_NUM else 1
            if need > rem:
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
                for j in range(depth):
                    side[j] = sym[walk[j]]
                n_lhs = _eval_side(side, depth, six9, plus_t, any_br, neg0, lhs, ev)
                if n_lhs == 0:  # the left side has no value: nothing to the right can help
                    eqpos = -1
                    depth -= 1
                continue
            if eqpos < 0 or nsyn != S_NUM or npc == 0 or (req_op and nb == 0):
                continue
            lo = mlo[depth]
            hi = mhi[depth]
            seen = False
            for j in range(n_found):
                if found_lo[j] == lo and found_hi[j] == hi:
                    seen = True
                    break
            if seen:
                continue
            nr = depth - eqpos
            for j in range(nr):
                side[j] = sym[walk[eqpos + 1 + j]]
            n_rhs = _eval_side(side, nr, six9, plus_t, any_br, neg0, rhs, ev)
            hit = False
            for a in range(n_rhs):
                va = rhs[a]
                for b in range(n_lhs):
                    if lhs[b] == va:
                        hit = True
                        break
                if hit:
                    break
            if not hit:
                continue
            if n_found >= cap:
                raise ValueError("hexatrex finder: more distinct equations than the buffer holds")
            size = _popcount(lo) + _popcount(hi)
            found_lo[n_found] = lo
            found_hi[n_found] = hi
            found_size[n_found] = size
            if n_found < rcap:
                for j in range(depth + 1):
                    rec_walks[n_found, j] = walk[j]
                rec_len[n_found] = depth + 1
            n_found += 1
            total += size
    return n_found, total


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
    n, _ = _find(sym, order, board.nb_off, board.q, board.r, occ, len(occ), board.center,
                 board.index(*placed), np.int64(m), find_cfg(rules), lo, hi, size, walks, wlen,
                 *workspace())
    return {frozenset(board.coord(int(c)) for c in walks[e, : wlen[e]]):
            [board.coord(int(c)) for c in walks[e, : wlen[e]]] for e in range(n)}


def side_values_compiled(symbols: list[str], rules) -> set[int]:
    """Values of one side (a list of symbol texts) by the compiled evaluator, for tests."""
    from sim.games.hexatrex.tiles import TEXT_SYMBOL

    side = np.array([TEXT_SYMBOL[s] for s in symbols] + [0] * (16 - len(symbols)), np.int64)
    out = np.zeros(VALUE_CAP, np.int64)
    ev = np.zeros(256 + 64 * POOL_PER, np.int64)
    n = _eval_side(side, len(symbols), rules["six_as_nine"], rules["plus_as_times"],
                   rules["bracketing"] == "any", rules["negative_zero"], out, ev)
    return set(out[:n].tolist())
