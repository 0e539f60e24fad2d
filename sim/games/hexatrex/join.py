"""Fast scorer for bots and the chunk kernel: equations as (left side, "=", right side) joins.

Every equation holds the single "=" exactly once, so it splits into two *side walks* leading
out of "=": the left side read towards "=", the right side read away from it. A side walk that
does not hold the tile just placed was already on the table last turn, so the game keeps a
store of every side walk of the table, keyed by value (a hash table, one list per value), and
adds the new side walks after each placement. Scoring a tile P then only needs the few side
walks through P: each is joined, on equal values, with the stored walks of the other side and
with the other new walks. A join is valid when the walk fits in max_len symbols, the two first
cells differ (they are 2 apart across "="), and under "never" the two sides share no tile.

This gives exactly the tile sets of `finder._find` (tests check both against each other and
against a brute force); `_find` stays the reference and the fallback for long equations.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.hexatrex.finder import S_NEG, S_NUM, S_OP, S_START, _eval_side, _hexdist, _popcount

MAX_SIDE = 6            # stores are used while max_equation_tiles - 2 <= MAX_SIDE
HASH_BITS = 12
STORE_CAP = 1 << 18
POOL_CAP = 1 << 18
NEW_CAP = 1 << 15        # > 23436 = side walks of <= 6 cells out of "=" on any table
CACHE_BITS = 16         # side-value cache: 65536 slots, shared by every game of a chunk
CACHE_POOL = 1 << 20
# reverse-reading states of a left side (read from "=" backwards)
R_START, R_NUM, R_OPNEED, R_MINUS = 0, 1, 2, 3


def new_store():
    """Side-walk store: head (2, 2**HASH_BITS) (0 = left sides, 1 = right sides), then per
    entry: value, next, length, first cell, mask lo, mask hi, binary-operator flag, cells."""
    return (np.full((2, 1 << HASH_BITS), -1, np.int64), np.zeros(STORE_CAP, np.int64),
            np.zeros(STORE_CAP, np.int64), np.zeros(STORE_CAP, np.int8),
            np.zeros(STORE_CAP, np.int64), np.zeros(STORE_CAP, np.uint64),
            np.zeros(STORE_CAP, np.uint64), np.zeros(STORE_CAP, np.int8),
            np.zeros((STORE_CAP, MAX_SIDE), np.int64), np.zeros(1, np.int64))


def new_scratch():
    """Per-call scratch: the new side walks of one tile and their values."""
    return (np.zeros((NEW_CAP, MAX_SIDE), np.int64), np.zeros((NEW_CAP, 8), np.int64),
            np.zeros((NEW_CAP, 2), np.uint64), np.zeros(POOL_CAP, np.int64),
            np.zeros((10, 16), np.int64), np.zeros((2, 16), np.uint64))


def new_cache():
    """Values of side symbol sequences already evaluated (the rules are fixed for a chunk):
    keys (length and 4-bit symbols packed), start and count in the value pool, pool use."""
    return (np.full(1 << CACHE_BITS, -1, np.int64), np.zeros(1 << CACHE_BITS, np.int64),
            np.zeros(1 << CACHE_BITS, np.int64), np.empty(CACHE_POOL, np.int64),
            np.zeros(2, np.int64))


@njit(cache=True)
def _side_values(side, k, six9, plus_t, any_br, neg0, lhs, ev, cache, pool, n_pool):
    """Append the values of side[0:k] to pool at n_pool (through the cache); returns the
    count, or -1 when the pool is full."""
    keys, cstart, ccount, cpool, used = cache
    key = k
    for j in range(k):
        key = (key << 4) | side[j]
    slot = np.int64((np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - CACHE_BITS))
    for _ in range(64):
        if keys[slot] == key:
            c = ccount[slot]
            if n_pool + c > pool.shape[0]:
                return -1
            b = cstart[slot]
            for j in range(c):
                pool[n_pool + j] = cpool[b + j]
            return c
        if keys[slot] < 0:
            break
        slot = (slot + 1) & ((1 << CACHE_BITS) - 1)
    n = _eval_side(side, k, six9, plus_t, any_br, neg0, lhs, ev)
    if n_pool + n > pool.shape[0]:
        return -1
    for j in range(n):
        pool[n_pool + j] = lhs[j]
    if keys[slot] < 0 and used[0] + n <= cpool.shape[0] and used[1] < (1 << (CACHE_BITS - 1)):
        keys[slot] = key
        cstart[slot] = used[0]
        ccount[slot] = n
        for j in range(n):
            cpool[used[0] + j] = lhs[j]
        used[0] += n
        used[1] += 1
    return n


@njit(cache=True)
def _keep_reachable(pool, start, n, lim):
    """Drop values the other side cannot reach: j symbols never make |value| >= 10**j (a
    number of d digits is < 10**d; a + b, a - b stay < 2 * 10**(j-2); a x b < 10**(j-1))."""
    kept = 0
    for j in range(n):
        v = pool[start + j]
        if -lim < v < lim:
            pool[start + kept] = v
            kept += 1
    return kept


@njit(cache=True)
def _bucket(v, length):
    """Chains are per (value, side length), so a join only walks partners short enough."""
    key = np.uint64(v * 8 + length)
    return np.int64((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - HASH_BITS))


@njit(cache=True)
def _check_side(side, n, lead0):
    """Is side[0:n] an expression? Returns (ok, has binary operator)."""
    i = 0
    nb = 0
    while True:
        if i < n and side[i] == 11:
            i += 1
        start = i
        while i < n and side[i] <= 9:
            i += 1
        if i == start:
            return False, False
        if i - start > 1 and side[start] == 0 and not lead0:
            return False, False
        if i == n:
            return True, nb > 0
        if side[i] > 13:
            return False, False
        nb += 1
        i += 1


@njit(cache=True)
def _new_sides(sym, order, nb_off, cq, cr, eq, p, max_side, cfg, cells, meta, masks, pool,
               st, mk, side, lhs, ev, cache):
    """Every side walk out of "=" through p, at most max_side long, readable as a right side
    (in walk order) or a left side (reversed). meta row: length, first, right binop, right
    value start, right count, left binop, left value start, left count. Returns the count,
    or -1 when the scratch buffers are full (the caller then uses the DFS finder)."""
    any_br = cfg[1] != 0
    lead0 = cfg[3] != 0
    six9 = cfg[4] != 0
    plus_t = cfg[5] != 0
    never = cfg[6] != 0
    neg0 = cfg[7] != 0
    if _hexdist(cq, cr, p, eq) > max_side:
        return 0
    walk = st[0]
    dirs = st[1]
    syn = st[2]
    nlen = st[3]
    zl = st[4]
    pc = st[5]
    nbin = st[6]
    rst = st[7]
    mlo = mk[0]
    mhi = mk[1]
    n_new = 0
    n_pool = 0
    for d0 in range(6):
        y = eq + nb_off[d0]
        s = sym[y]
        if s < 0:
            continue
        # first symbol next to "=": right reading starts here, left reading ends here
        if s <= 9:
            syn[0] = S_NUM
            nlen[0] = 1
            zl[0] = 1 if s == 0 else 0
            rst[0] = R_NUM
        elif s == 11:
            syn[0] = S_NEG
            nlen[0] = 0
            zl[0] = 0
            rst[0] = -1
        else:
            continue
        nbin[0] = 0
        pc[0] = 1 if y == p else 0
        if pc[0] == 0 and _hexdist(cq, cr, y, p) > max_side - 1:
            continue
        o = order[y]
        mlo[0] = np.uint64(1) << np.uint64(o) if o < 64 else np.uint64(0)
        mhi[0] = np.uint64(1) << np.uint64(o - 64) if o >= 64 else np.uint64(0)
        walk[0] = y
        dirs[0] = 0
        depth = 0
        fresh = True
        while depth >= 0:
            if fresh:
                fresh = False
                if pc[depth] > 0:
                    k = depth + 1
                    lim = 1
                    for _ in range(max_side + 1 - k):
                        lim *= 10
                    r_ok = syn[depth] == S_NUM
                    l_ok = rst[depth] == R_NUM or rst[depth] == R_MINUS
                    nr = 0
                    nl = 0
                    rb = False
                    lb = False
                    r0 = n_pool
                    if r_ok:
                        for j in range(k):
                            side[j] = sym[walk[j]]
                        nr = _side_values(side, k, six9, plus_t, any_br, neg0, lhs, ev, cache, pool,
                                          n_pool)
                        if nr < 0:
                            return -1
                        nr = _keep_reachable(pool, n_pool, nr, lim)
                        n_pool += nr
                        rb = nbin[depth] > 0
                    l0 = n_pool
                    if l_ok:
                        for j in range(k):
                            side[j] = sym[walk[k - 1 - j]]
                        ok, lb = _check_side(side, k, lead0)
                        if ok:
                            nl = _side_values(side, k, six9, plus_t, any_br, neg0, lhs, ev, cache,
                                              pool, n_pool)
                            if nl < 0:
                                return -1
                            nl = _keep_reachable(pool, n_pool, nl, lim)
                            n_pool += nl
                    if nr + nl > 0:
                        if n_new >= cells.shape[0]:
                            return -1
                        for j in range(k):
                            cells[n_new, j] = walk[j]
                        meta[n_new, 0] = k
                        meta[n_new, 1] = walk[0]
                        meta[n_new, 2] = rb
                        meta[n_new, 3] = r0
                        meta[n_new, 4] = nr
                        meta[n_new, 5] = lb
                        meta[n_new, 6] = l0
                        meta[n_new, 7] = nl
                        masks[n_new, 0] = mlo[depth]
                        masks[n_new, 1] = mhi[depth]
                        n_new += 1
            if dirs[depth] >= 6 or depth + 1 >= max_side:
                depth -= 1
                continue
            d = dirs[depth]
            dirs[depth] = d + 1
            nxt = walk[depth] + nb_off[d]
            ns = sym[nxt]
            if ns < 0 or ns == 14:
                continue
            if depth >= 1 and walk[depth - 1] == nxt:
                continue
            o = order[nxt]
            blo = np.uint64(1) << np.uint64(o) if o < 64 else np.uint64(0)
            bhi = np.uint64(1) << np.uint64(o - 64) if o >= 64 else np.uint64(0)
            if never and ((mlo[depth] & blo) | (mhi[depth] & bhi)) != np.uint64(0):
                continue
            npc = pc[depth] + (1 if nxt == p else 0)
            if npc == 0 and _hexdist(cq, cr, nxt, p) > max_side - depth - 2:
                continue
            # forward (right side) reading
            cs = syn[depth]
            fs = -1
            fnl = 0
            fzl = 0
            fnb = nbin[depth]
            if cs >= 0:
                if ns <= 9:
                    if cs == S_NUM:
                        if not (nlen[depth] == 1 and zl[depth] == 1 and not lead0):
                            fs = S_NUM
                            fnl = nlen[depth] + 1
                            fzl = zl[depth]
                    else:
                        fs = S_NUM
                        fnl = 1
                        fzl = 1 if ns == 0 else 0
                elif ns == 11:
                    if cs == S_NUM:
                        fs = S_OP
                        fnb += 1
                    elif cs == S_START or cs == S_OP:
                        fs = S_NEG
                elif cs == S_NUM:
                    fs = S_OP
                    fnb += 1
            # backward (left side) reading
            rs = rst[depth]
            nrs = -1
            if rs == R_NUM:
                if ns <= 9:
                    nrs = R_NUM
                elif ns == 11:
                    nrs = R_MINUS
                else:
                    nrs = R_OPNEED
            elif rs == R_OPNEED:
                if ns <= 9:
                    nrs = R_NUM
            elif rs == R_MINUS:
                if ns <= 9:
                    nrs = R_NUM
                else:
                    nrs = R_OPNEED
            if fs < 0 and nrs < 0:
                continue
            depth += 1
            walk[depth] = nxt
            dirs[depth] = 0
            syn[depth] = fs
            nlen[depth] = fnl
            zl[depth] = fzl
            nbin[depth] = fnb
            rst[depth] = nrs
            pc[depth] = npc
            mlo[depth] = mlo[depth - 1] | blo
            mhi[depth] = mhi[depth - 1] | bhi
            fresh = True
    return n_new


@njit(cache=True)
def _record(lo, hi, found_lo, found_hi, found_size, n_found):
    for j in range(n_found):
        if found_lo[j] == lo and found_hi[j] == hi:
            return n_found, 0, -1
    if n_found >= found_lo.shape[0]:
        raise ValueError("hexatrex join: more distinct equations than the buffer holds")
    size = _popcount(lo) + _popcount(hi)
    found_lo[n_found] = lo
    found_hi[n_found] = hi
    found_size[n_found] = size
    return n_found + 1, size, n_found


@njit(cache=True)
def _score_join(sym, order, nb_off, cq, cr, eq, p, max_len, cfg, store, scratch, cache,
                found_lo, found_hi, found_size, rec_walks, rec_len, side, lhs, ev):
    """Equations through p (already on the table, not yet in the store). Returns
    (distinct tile sets, score, new side walks); the new walks stay in scratch for _insert.
    (-1, 0, -1) when the scratch buffers overflow: score with `finder._find` instead."""
    head, val, nxt_e, ln, first, elo, ehi, ebin, ecells, _ = store
    cells, meta, masks, pool, st, mk = scratch
    req_op = cfg[2] != 0
    never = cfg[6] != 0
    eqbit = np.uint64(1) << np.uint64(order[eq])
    n_new = _new_sides(sym, order, nb_off, cq, cr, eq, p, max_len - 2, cfg, cells, meta, masks,
                       pool, st, mk, side, lhs, ev, cache)
    if n_new < 0:
        return -1, 0, -1
    n_found = 0
    total = 0
    rcap = rec_walks.shape[0]
    for i in range(n_new):
        k = meta[i, 0]
        # walk i as the right side: partners are stored left sides and new left sides
        for a in range(meta[i, 4]):
            v = pool[meta[i, 3] + a]
            for plen in range(1, max_len - k):
                e = head[0, _bucket(v, plen)]
                while e >= 0:
                    if val[e] == v and ln[e] == plen and first[e] != meta[i, 1] and \
                            (not req_op or meta[i, 2] or ebin[e]) and \
                            (not never or ((elo[e] & masks[i, 0]) | (ehi[e] & masks[i, 1])) == 0):
                        n_found, sz, slot = _record(elo[e] | masks[i, 0] | eqbit,
                                                    ehi[e] | masks[i, 1], found_lo, found_hi,
                                                    found_size, n_found)
                        total += sz
                        if slot >= 0 and slot < rcap:
                            for j in range(ln[e]):
                                rec_walks[slot, j] = ecells[e, ln[e] - 1 - j]
                            rec_walks[slot, ln[e]] = eq
                            for j in range(k):
                                rec_walks[slot, ln[e] + 1 + j] = cells[i, j]
                            rec_len[slot] = ln[e] + 1 + k
                    e = nxt_e[e]
            for j2 in range(n_new):
                k2 = meta[j2, 0]
                if k2 + k + 1 > max_len or meta[j2, 1] == meta[i, 1]:
                    continue
                if req_op and not (meta[i, 2] or meta[j2, 5]):
                    continue
                if never and ((masks[j2, 0] & masks[i, 0]) | (masks[j2, 1] & masks[i, 1])) != 0:
                    continue
                hit = False
                for b in range(meta[j2, 7]):
                    if pool[meta[j2, 6] + b] == v:
                        hit = True
                        break
                if hit:
                    n_found, sz, slot = _record(masks[j2, 0] | masks[i, 0] | eqbit,
                                                masks[j2, 1] | masks[i, 1],
                                                found_lo, found_hi, found_size, n_found)
                    total += sz
                    if slot >= 0 and slot < rcap:
                        for j in range(k2):
                            rec_walks[slot, j] = cells[j2, k2 - 1 - j]
                        rec_walks[slot, k2] = eq
                        for j in range(k):
                            rec_walks[slot, k2 + 1 + j] = cells[i, j]
                        rec_len[slot] = k2 + 1 + k
        # walk i as the left side, against stored right sides
        for a in range(meta[i, 7]):
            v = pool[meta[i, 6] + a]
            for plen in range(1, max_len - k):
                e = head[1, _bucket(v, plen)]
                while e >= 0:
                    if val[e] == v and ln[e] == plen and first[e] != meta[i, 1] and \
                            (not req_op or meta[i, 5] or ebin[e]) and \
                            (not never or ((elo[e] & masks[i, 0]) | (ehi[e] & masks[i, 1])) == 0):
                        n_found, sz, slot = _record(elo[e] | masks[i, 0] | eqbit,
                                                    ehi[e] | masks[i, 1], found_lo, found_hi,
                                                    found_size, n_found)
                        total += sz
                        if slot >= 0 and slot < rcap:
                            for j in range(k):
                                rec_walks[slot, j] = cells[i, k - 1 - j]
                            rec_walks[slot, k] = eq
                            for j in range(ln[e]):
                                rec_walks[slot, k + 1 + j] = ecells[e, j]
                            rec_len[slot] = k + 1 + ln[e]
                    e = nxt_e[e]
    return n_found, total, n_new


@njit(cache=True)
def _insert(store, scratch, n_new):
    """Add the new side walks left in scratch by _score_join to the store.
    Returns False when the store is full (the caller then falls back to the DFS finder)."""
    head, val, nxt_e, ln, first, elo, ehi, ebin, ecells, count = store
    cells, meta, masks, pool, st, mk = scratch
    n = count[0]
    for i in range(n_new):
        for kind in range(2):
            start = meta[i, 3] if kind == 1 else meta[i, 6]
            cnt = meta[i, 4] if kind == 1 else meta[i, 7]
            for a in range(cnt):
                if n >= val.shape[0]:
                    count[0] = n
                    return False
                v = pool[start + a]
                b = _bucket(v, meta[i, 0])
                val[n] = v
                nxt_e[n] = head[kind, b]
                head[kind, b] = n
                ln[n] = meta[i, 0]
                first[n] = meta[i, 1]
                elo[n] = masks[i, 0]
                ehi[n] = masks[i, 1]
                ebin[n] = meta[i, 2] if kind == 1 else meta[i, 5]
                for j in range(meta[i, 0]):
                    ecells[n, j] = cells[i, j]
                n += 1
    count[0] = n
    return True


@njit(cache=True)
def _clear(store):
    store[0][:, :] = -1
    store[9][0] = 0


def join_compiled(pos, placed, rules, max_len=None) -> dict:
    """Score `placed` on a `position.Position` the way the chunk kernel does (tests): every
    other tile is added to a store in placement order first. Returns
    {frozenset(cells): walk} like `finder.find_compiled`."""
    from sim.games.hexatrex.finder import POOL_PER, VALUE_CAP, find_cfg
    from sim.games.hexatrex.tiles import TEXT_SYMBOL, Board, hex_distance

    m = rules["max_equation_tiles"] if max_len is None else max_len
    if m - 2 > MAX_SIDE:
        raise ValueError("join scorer only for max_equation_tiles <= MAX_SIDE + 2")
    radius = max(hex_distance(c, (0, 0)) for c in pos.tiles) + 1
    board = Board(radius)
    sym = np.full(board.size, -1, np.int8)
    order = np.full(board.size, -1, np.int16)
    cfg = find_cfg(rules)
    store, scratch, cache = new_store(), new_scratch(), new_cache()
    cap = 4096
    lo, hi = np.zeros(cap, np.uint64), np.zeros(cap, np.uint64)
    size = np.zeros(cap, np.int64)
    walks, wlen = np.zeros((cap, 16), np.int64), np.zeros(cap, np.int64)
    side, lhs = np.zeros(16, np.int64), np.zeros(VALUE_CAP, np.int64)
    ev = np.zeros(256 + 64 * POOL_PER, np.int64)
    cells = [c for c in pos.order if c != placed] + [placed]
    n = 0
    for i, cell in enumerate(cells):
        idx = board.index(*cell)
        sym[idx] = TEXT_SYMBOL[pos.tiles[cell]]
        order[idx] = i
        if i == 0:
            continue
        n, _, n_new = _score_join(sym, order, board.nb_off, board.q, board.r, board.center, idx,
                                  np.int64(m), cfg, store, scratch, cache, lo, hi, size, walks, wlen,
                                  side, lhs, ev)
        assert n >= 0, "scratch overflow"
        if cell != placed:
            assert _insert(store, scratch, n_new)
    return {frozenset(board.coord(int(c)) for c in walks[e, : wlen[e]]):
            [board.coord(int(c)) for c in walks[e, : wlen[e]]] for e in range(n)}
