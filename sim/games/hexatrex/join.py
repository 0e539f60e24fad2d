"""Fast scorer for bots and the chunk kernel: equations as (left side, "=", right side) joins.

Every equation holds the single "=" exactly once, so it splits into two *side walks* leading
out of "=": the left side read towards "=", the right side read away from it. A side walk that
does not hold the tile just placed was already on the table last turn, so the game keeps a
store of every side walk of the table, keyed by value (a hash table, one list per value), and
adds the new side walks after each placement. Scoring a tile P then only needs the few side
walks through P: each is joined, on equal values, with the stored walks of the other side and
with the other new walks. A join is valid when the walk fits in max_len symbols, the two first
cells differ (they are 2 apart across "="), and under "never" the two sides share no tile.

The walk search scores many cells at once: the greedy bot tries its tile on every frontier
cell, and a side walk holds at most one of them (only one is placed), so one search over the
table with the tile on *every* frontier cell ("special" cells) lists the new side walks of all
candidates, sharing the walk prefixes over the table that most of them have in common; each
walk is tagged with its special cell and joined within its group. Scoring the placed tile is
the same search with one special cell, or, when the bot's search had the rules' reach, the
join of the chosen cell's group again (its walks are the ones that search would list). The
bot needs exact scores only for cells that could reach the best score of the cells before
them (ties draw lots in that order), so a cell whose cheap upper bound (`_bound`: partners
counted, not followed) is below that best is not joined. Readings come from the side trie
(`trie.py`).

This gives exactly the tile sets of `finder._find` (tests check both against each other and
against a brute force); `_find` stays the reference and the fallback for long equations.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.engine.jit import entry, kernel
from sim.games.hexatrex.finder import Table, _bits, _hexdist, _popcount
from sim.games.hexatrex.trie import (
    C_LBIN,
    C_LCOUNT,
    C_LSTART,
    C_RBIN,
    C_RCOUNT,
    C_RSTART,
    C_VKIDS,
    DEAD,
    FULL,
    UNSEEN,
    _reach_limit,
    _trie_child,
    _trie_clear,
    new_trie,  # noqa: F401  (re-exported for the kernel)
)

MAX_SIDE = 6            # stores are used while max_equation_tiles - 2 <= MAX_SIDE
HASH_BITS = 12
STORE_CAP = 1 << 18
POOL_CAP = 1 << 18
NEW_CAP = 1 << 15        # new side walks of one search (overflow: the caller uses the DFS finder)
SPECIAL_CAP = 1024       # special cells of one search (a frontier holds <= 6 x 128)
FAR = 1 << 20
GROUP_BITS = 8           # value buckets of one group's left sides in `_bound`
# columns of the per-cell reach table (`_reach`): distance, neighbour masks
R_DIST, R_TABLE, R_SPECIAL, R_NEAR = 0, 1, 2, 3
REACH_COLS = R_NEAR + MAX_SIDE - 1
# LOW_BIT[m]: the lowest set bit of a 6-bit direction mask; BACK[d]: the opposite direction
# (tiles.Board orders nb_off so that nb_off[(d + 3) % 6] == -nb_off[d])
LOW_BIT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 64)], np.int64)
BACK = np.array([3, 4, 5, 0, 1, 2], np.int64)
# a stored side walk: one 64-byte row, so following a chain reads one cache line per entry
E_VAL, E_NEXT, E_LEN, E_FIRST, E_LO, E_HI, E_BIN = 0, 1, 2, 3, 4, 5, 6  # E_LO, E_HI: uint64 view
E_KIND = 7  # 0 left side, 1 right side (for `_rollback`)
ENTRY = 8


@entry
def new_store():
    """Side-walk store: head (2, 2**HASH_BITS) (0 = left sides, 1 = right sides), the entries
    (STORE_CAP, ENTRY) int64 (columns E_*: value, next entry of the chain, length, first cell,
    tile mask lo / hi, binary-operator flag) and the same rows viewed as uint64 (for the masks),
    their cells; the entry count; per value bucket (`_vbucket`) a bit per side length stored,
    so a join skips the (value, length) chains that are surely empty; and per value bucket and
    length the number of entries (for `_bound`)."""
    ent = np.empty((STORE_CAP, ENTRY), np.int64)
    return (np.full((2, 1 << HASH_BITS), -1, np.int64), ent, ent.view(np.uint64),
            np.empty((STORE_CAP, MAX_SIDE), np.int64), np.zeros(1, np.int64),
            np.zeros((2, 1 << HASH_BITS), np.uint8),
            np.zeros((2, 1 << HASH_BITS, MAX_SIDE + 2), np.int32))


@entry
def new_scratch():
    """Per-search scratch: the new side walks (cells, meta, masks, values), the search stacks,
    walks grouped by special cell (index, group starts), the distance search's queue, and per
    special cell (rows): equations, score, the cell (for one special); the new-new partners of
    a walk; the group's left values counted by (value bucket, length) for `_bound`.
    meta row: length, first cell, right binop, right value start, right count, left binop,
    left value start, left count, special cell's index."""
    return (np.empty((NEW_CAP, MAX_SIDE), np.int64), np.empty((NEW_CAP, 9), np.int64),
            np.empty((NEW_CAP, 2), np.uint64), np.empty(POOL_CAP, np.int64),
            np.zeros((8, 16), np.int64), np.zeros((2, 16), np.uint64),
            np.empty(NEW_CAP, np.int64), np.zeros(SPECIAL_CAP + 1, np.int64),
            np.zeros(2 * SPECIAL_CAP, np.int64), np.zeros((3, SPECIAL_CAP), np.int64),
            np.empty(NEW_CAP, np.int64), np.zeros((1 << GROUP_BITS, MAX_SIDE + 2), np.int64))


@kernel
def _bucket(v, length):
    """Chains are per (value, side length), so a join only walks partners short enough."""
    key = np.uint64(v * 8 + length)
    return np.int64((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - HASH_BITS))


@kernel
def _vbucket(v):
    return np.int64((np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - HASH_BITS))


class JoinWork(NamedTuple):
    """The join scorer's store, search scratch and caches (state.Work holds the arrays)."""

    store: tuple  # new_store(): the side walks of the table
    scratch: tuple  # new_scratch(): one search's new side walks, groups, per-cell scores
    trie: tuple  # trie.new_trie(): the side strings
    mark: np.ndarray  # int32[cells]: special cell index, -1 elsewhere (and between searches)
    reach: np.ndarray  # int64[cells, REACH_COLS]: `_reach`'s table


@kernel
def _reach(geo, table, mark, spec, n_spec, reach, max_side, queue):
    """Where a walk may step, for every table tile and special cell c: reach[c, R_DIST] the
    fewest steps over table tiles to a special cell (a lower bound on what a walk from c needs
    to take one in; FAR beyond max_side), then c's neighbours as direction masks (bit d:
    c + nb_off[d]): R_TABLE table tiles (not "="), R_SPECIAL special cells, and R_NEAR + r
    the special cells and the table tiles within r steps of one (where a walk that holds no
    special cell yet may step when it has r steps left after that one)."""
    sym, occ, n_occ = table.sym, table.occ, table.n_occ
    nb_off, cq, cr, eq = geo.nb_off, geo.cq, geo.cr, geo.eq
    for i in range(n_occ):
        reach[occ[i], R_DIST] = FAR
    tail = 0
    for i in range(n_spec):
        c = spec[i]
        if _hexdist(cq, cr, c, eq) <= max_side:
            reach[c, R_DIST] = 0
            queue[tail] = c
            tail += 1
    head = 0
    while head < tail:
        c = queue[head]
        head += 1
        dc = reach[c, R_DIST] + 1
        if dc >= max_side:
            continue
        for d in range(6):
            x = c + nb_off[d]
            if sym[x] >= 0 and sym[x] != 14 and mark[x] < 0 and reach[x, R_DIST] > dc:
                reach[x, R_DIST] = dc
                queue[tail] = x
                tail += 1
    for i in range(n_occ + n_spec):
        c = occ[i] if i < n_occ else spec[i - n_occ]
        tmask = 0
        special = 0
        for r in range(max_side - 1):
            reach[c, R_NEAR + r] = 0
        for d in range(6):
            x = c + nb_off[d]
            if mark[x] >= 0:
                special |= 1 << d
            elif sym[x] >= 0 and sym[x] != 14:
                tmask |= 1 << d
                for r in range(reach[x, R_DIST], max_side - 1):
                    reach[c, R_NEAR + r] |= 1 << d
        reach[c, R_TABLE] = tmask
        reach[c, R_SPECIAL] = special
        for r in range(max_side - 1):
            reach[c, R_NEAR + r] |= special


@kernel(inline='always')
def _moves(reach, c, spc, r):
    """The directions a walk standing on c may take next (r steps left after that one): one
    that holds its special cell spc (>= 0) goes on over table tiles and back to spc (other
    special cells are refused step by step); one without goes where `_reach` allows."""
    if spc >= 0:
        if c == spc:
            return reach[c, R_TABLE]
        return reach[c, R_TABLE] | reach[c, R_SPECIAL]
    if r < 0:
        return 0
    return reach[c, R_NEAR + r]


@kernel(inline='always')
def _copy_values(src, start, count, dst, n, lim, refilter):
    """Append src[start:start+count] to dst at n (only |v| < lim when refilter); new n."""
    for j in range(count):
        v = src[start + j]
        if not refilter or -lim < v < lim:
            dst[n] = v
            n += 1
    return n


@kernel(inline='always')
def _keep_walk(trie, nd, k, walk, spm, lo, hi, lim, refilter, scratch, n_new, n_pool):
    """Add the side walk walk[:k] (its string: trie row nd, which holds values; special cell
    mark spm; tile mask lo / hi) as scratch row n_new, unless refilter leaves no value.
    Returns (rows, pool values); rows -1 when the scratch is full."""
    rows, values = trie[0], trie[1]
    cells, meta, masks, pool = scratch[0], scratch[1], scratch[2], scratch[3]
    rc = rows[nd, C_RCOUNT]
    lc = rows[nd, C_LCOUNT]
    if n_new >= cells.shape[0] or n_pool + rc + lc > pool.shape[0]:
        return -1, n_pool
    r0 = n_pool
    n_pool = _copy_values(values, rows[nd, C_RSTART], rc, pool, n_pool, lim, refilter)
    l0 = n_pool
    n_pool = _copy_values(values, rows[nd, C_LSTART], lc, pool, n_pool, lim, refilter)
    if n_pool == r0:
        return n_new, n_pool
    for j in range(k):
        cells[n_new, j] = walk[j]
    meta[n_new, 0] = k
    meta[n_new, 1] = walk[0]
    meta[n_new, 2] = rows[nd, C_RBIN]
    meta[n_new, 3] = r0
    meta[n_new, 4] = l0 - r0
    meta[n_new, 5] = rows[nd, C_LBIN]
    meta[n_new, 6] = l0
    meta[n_new, 7] = n_pool - l0
    meta[n_new, 8] = spm
    masks[n_new, 0] = lo
    masks[n_new, 1] = hi
    return n_new + 1, n_pool


@kernel(inline='always')
def _trie_step(rows, trie, nd, s, wsym, n, cfg):
    """The trie row of the string wsym[:n] + s, the child of row nd (parsed and evaluated the
    first time it is met): the row, DEAD, or FULL (the trie must be emptied). rows is trie[0],
    taken once by the caller: each take of a tuple's array in the search loop would count a
    reference."""
    c = rows[nd, s]
    if c == UNSEEN:
        text = trie[3][0]
        for j in range(n):
            text[j] = wsym[j]
        text[n] = s
        c = _trie_child(trie, nd, s, cfg)
    return c


@kernel
def _side_walks(geo, table, tile, bit, jw, max_side, cfg):
    """Every side walk out of "=", at most max_side cells, that takes exactly one special cell
    (jw.mark[c] >= 0; it holds `tile`, placement index `bit`, and may recur) and that reads as
    a right side (walk order) or a left side (reversed) with reachable values. Other cells are
    table tiles. jw.reach: from `_reach`. Rows go to jw.scratch (meta[:, 8] = mark of the
    special cell). Returns the row count, -1 when the scratch is full, FULL when the trie is.
    A walk of max_side cells (a leaf: half the walks met) is kept or dropped from its parent's
    row (C_VKIDS), without a step onto it."""
    sym, order, nb_off = table.sym, table.order, geo.nb_off
    mark, reach, trie, scratch = jw.mark, jw.reach, jw.trie, jw.scratch
    rows = trie[0]
    never = cfg[6] != 0
    refilter = max_side < trie[2][2]
    walk, cand, node, spc, wsym, lims = scratch[4][0], scratch[4][1], scratch[4][2], scratch[4][3], \
        scratch[4][4], scratch[4][5]  # cand: directions not tried yet, per depth
    mlo, mhi = scratch[5][0], scratch[5][1]
    for k in range(1, max_side + 1):
        lims[k] = _reach_limit(max_side, k)
    sbl, sbh = _bits(bit)
    n_new = 0
    n_pool = 0
    for d0 in range(6):
        y = geo.eq + nb_off[d0]
        sp = mark[y]
        s = tile if sp >= 0 else sym[y]
        if s < 0 or max_side < 1 or (sp < 0 and reach[y, R_DIST] > max_side - 1):
            continue
        c = _trie_step(rows, trie, np.int64(0), s, wsym, 0, cfg)
        if c == FULL:
            return FULL
        if c == DEAD:
            continue
        walk[0] = y
        wsym[0] = s
        node[0] = c
        spc[0] = y if sp >= 0 else -1
        mlo[0], mhi[0] = (sbl, sbh) if sp >= 0 else _bits(order[y])
        cand[0] = _moves(reach, y, spc[0], max_side - 2)  # "=" is in no mask
        # the walk to keep next (keep cells; 0: none): the one just stepped onto or a leaf
        keep = 1 if sp >= 0 and (rows[0, C_VKIDS] >> s) & 1 else 0
        knode, kspc, klo, khi = c, y, mlo[0], mhi[0]
        depth = 0
        while depth >= 0:
            if keep > 0:
                n_new, n_pool = _keep_walk(trie, knode, keep, walk, mark[kspc], klo, khi, lims[keep], refilter,
                                           scratch, n_new, n_pool)
                if n_new < 0:
                    return -1
                keep = 0
            m = cand[depth]  # never the cell before (BACK), "=", empty or too far cells
            if m == 0:
                depth -= 1
                continue
            d = LOW_BIT[m]
            cand[depth] = m & (m - 1)
            nxt = walk[depth] + nb_off[d]
            sp = mark[nxt]
            nspc = spc[depth]
            if sp >= 0:
                if nspc >= 0 and nspc != nxt:  # one special cell per walk
                    continue
                nspc = nxt
                ns = tile
                blo, bhi = sbl, sbh
            else:
                ns = sym[nxt]
                blo, bhi = _bits(order[nxt])
            if never and ((mlo[depth] & blo) | (mhi[depth] & bhi)) != np.uint64(0):
                continue
            nd = node[depth]
            c = _trie_step(rows, trie, nd, ns, wsym, depth + 1, cfg)
            if c == FULL:
                return FULL
            if c == DEAD:
                continue
            if nspc >= 0 and (rows[nd, C_VKIDS] >> ns) & 1:
                keep, knode, kspc, klo, khi = depth + 2, c, nspc, mlo[depth] | blo, mhi[depth] | bhi
            if depth + 2 >= max_side:  # a leaf: kept (at the loop's top) but never stepped on
                walk[depth + 1] = nxt
                continue
            depth += 1
            walk[depth] = nxt
            wsym[depth] = ns
            cand[depth] = _moves(reach, nxt, nspc, max_side - depth - 2) & ~(1 << BACK[d])
            node[depth] = c
            spc[depth] = nspc
            mlo[depth] = mlo[depth - 1] | blo
            mhi[depth] = mhi[depth - 1] | bhi
    return n_new


# The join's helpers are inlined (numba IR): as calls, the reference counting of the store and
# scratch arrays they take cost more than the join itself (measured: ~4 ms of ~8 per game).
@kernel(inline='always')
def _record(lo, hi, found, n_found):
    """Tile set lo / hi into found unless it is there: (distinct sets, points added, its slot
    or -1)."""
    flo, fhi = found.lo, found.hi
    for j in range(n_found):
        if flo[j] == lo and fhi[j] == hi:
            return n_found, 0, -1
    if n_found >= flo.shape[0]:
        raise ValueError("hexatrex join: more distinct equations than the buffer holds")
    size = _popcount(lo) + _popcount(hi)
    flo[n_found] = lo
    fhi[n_found] = hi
    found.size[n_found] = size
    return n_found + 1, size, n_found


@kernel(inline='always')
def _rec_walk(found, slot, lcells, lrow, llen, eq, rcells, rrow, rlen):
    """Write the equation (left walk read towards "=", "=", right walk) as found's slot."""
    rec_walks, rec_len = found.walks, found.wlen
    if slot < 0 or slot >= rec_walks.shape[0]:
        return
    for j in range(llen):
        rec_walks[slot, j] = lcells[lrow, llen - 1 - j]
    rec_walks[slot, llen] = eq
    for j in range(rlen):
        rec_walks[slot, llen + 1 + j] = rcells[rrow, j]
    rec_len[slot] = llen + 1 + rlen


@kernel(inline='always')
def _join_store(side, cells, meta, masks, store, eq, eqbit, max_len, cfg, found, n_found):
    """side = (kind, v, i): new walk i with value v as a right side (kind 0: partners are stored
    left sides) or as a left side (kind 1: stored right sides). Returns (distinct tile sets,
    points added).
    Inlined into `_join`, which takes the scratch's cells, meta and masks once (a take per
    value here would count references on them)."""
    kind, v, i = side
    head, ent, entu, ecells, _, lens, _ = store
    req_op = cfg[2] != 0
    never = cfg[6] != 0
    k = meta[i, 0]
    ibin = meta[i, 2] if kind == 0 else meta[i, 5]
    total = 0
    want = np.int64(lens[kind, _vbucket(v)]) & ((1 << (max_len - k)) - 2)
    if want == 0:
        return n_found, 0
    for plen in range(1, max_len - k):
        if (want >> plen) & 1 == 0:
            continue
        e = head[kind, _bucket(v, plen)]
        while e >= 0:
            if ent[e, E_VAL] == v and ent[e, E_LEN] == plen and ent[e, E_FIRST] != meta[i, 1] \
                    and (not req_op or ibin or ent[e, E_BIN]) and \
                    (not never or ((entu[e, E_LO] & masks[i, 0]) |
                                   (entu[e, E_HI] & masks[i, 1])) == 0):
                n_found, sz, slot = _record(entu[e, E_LO] | masks[i, 0] | eqbit, entu[e, E_HI] | masks[i, 1],
                                            found, n_found)
                total += sz
                if kind == 0:  # the stored walk is the left side
                    lcells, lrow, llen, rcells, rrow, rlen = ecells, e, plen, cells, i, k
                else:
                    lcells, lrow, llen, rcells, rrow, rlen = cells, i, k, ecells, e, plen
                _rec_walk(found, slot, lcells, lrow, llen, eq, rcells, rrow, rlen)
            e = ent[e, E_NEXT]
    return n_found, total


@kernel
def _join(a, b, scratch, store, eq, eqbit, max_len, cfg, found):
    """Equations of the new walks group[a:b] (one special cell; group = scratch[6]): each
    joined with the store and, as a right side, with the group's left sides. Returns
    (distinct tile sets, score)."""
    cells, meta, masks, pool, group, part = scratch[0], scratch[1], scratch[2], scratch[3], scratch[6], \
        scratch[10]
    req_op = cfg[2] != 0
    never = cfg[6] != 0
    n_found = 0
    total = 0
    for ii in range(a, b):
        i = group[ii]
        k = meta[i, 0]
        n_part = 0  # the group's left sides walk i can meet as a right side
        if meta[i, 4] > 0:
            for jj in range(a, b):
                j2 = group[jj]
                if meta[j2, 7] == 0 or meta[j2, 0] + k + 1 > max_len or meta[j2, 1] == meta[i, 1]:
                    continue
                if req_op and not (meta[i, 2] or meta[j2, 5]):
                    continue
                if never and ((masks[j2, 0] & masks[i, 0]) | (masks[j2, 1] & masks[i, 1])) != 0:
                    continue
                part[n_part] = j2
                n_part += 1
        # its right values (kind 0: stored left sides, then the group's), then its left
        # values (kind 1: stored right sides); one call site each keeps the compile short
        for kind in range(2):
            for x in range(meta[i, 4] if kind == 0 else meta[i, 7]):
                v = pool[meta[i, 3 if kind == 0 else 6] + x]
                n_found, sz = _join_store((kind, v, i), cells, meta, masks, store, eq, eqbit, max_len, cfg, found,
                                          n_found)
                total += sz
                for q in range(n_part if kind == 0 else 0):
                    j2 = part[q]
                    k2 = meta[j2, 0]
                    hit = False
                    for y in range(meta[j2, 7]):
                        if pool[meta[j2, 6] + y] == v:
                            hit = True
                            break
                    if hit:
                        n_found, sz, slot = _record(masks[j2, 0] | masks[i, 0] | eqbit, masks[j2, 1] | masks[i, 1],
                                                    found, n_found)
                        total += sz
                        _rec_walk(found, slot, cells, j2, k2, eq, cells, i, k)
    return n_found, total


@kernel(inline='always')
def _gbucket(v):
    return np.int64((np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - GROUP_BITS))


@kernel
def _bound(group, a, b, scratch, store, max_len, cap):
    """An upper bound on the score `_join` finds for group[a:b], following no chain: each
    equation is found as a walk i of the group (k cells) read with one of its values v, "=",
    and a partner of plen < max_len - k cells holding v (a stored side, or one of the group's
    left sides), and scores at most k + plen + 1 tiles; partners are counted by value bucket
    and length, which can only overcount. Stops adding once the sum reaches cap."""
    meta, pool, gcount = scratch[1], scratch[3], scratch[11]
    lcount = store[6]
    for ii in range(a, b):  # the group's left sides, counted by (value bucket, length)
        i = group[ii]
        for x in range(meta[i, 7]):
            gcount[_gbucket(pool[meta[i, 6] + x]), meta[i, 0]] += 1
    u = 0
    for ii in range(a, b):
        if u >= cap:
            break
        i = group[ii]
        k = meta[i, 0]
        for x in range(meta[i, 4]):  # as a right side: stored and new left sides
            v = pool[meta[i, 3] + x]
            vb = _vbucket(v)
            gb = _gbucket(v)
            for plen in range(1, max_len - k):
                u += (lcount[0, vb, plen] + gcount[gb, plen]) * (k + plen + 1)
        for x in range(meta[i, 7]):  # as a left side: stored right sides
            vb = _vbucket(pool[meta[i, 6] + x])
            for plen in range(1, max_len - k):
                u += lcount[1, vb, plen] * (k + plen + 1)
    for ii in range(a, b):  # leave the counts at zero for the next group
        i = group[ii]
        for x in range(meta[i, 7]):
            gcount[_gbucket(pool[meta[i, 6] + x]), meta[i, 0]] = 0
    return u


@kernel
def _join_groups(s0, s1, scratch, store, eq, eqbit, max_len, cfg, found, prune):
    """Join the groups s0 .. s1-1 of the last search (empty groups, most of them, without a
    call: a call costs more in reference counting of the ~20 arrays than most joins), writing
    n_eq[s], score[s] (scratch[9] rows 0 and 1); with prune, -1 for a cell whose `_bound` is
    below the best score of the cells before it (see `_score_specials`)."""
    group = scratch[6]
    start = scratch[7]
    n_eq, score = scratch[9][0], scratch[9][1]
    a = 0 if s0 == 0 else start[s0 - 1]
    best = np.int64(0)
    for s in range(s0, s1):
        b = start[s]
        if a == b:  # no new side walk: no equation
            n_eq[s], score[s] = 0, 0
        elif prune and best > 0 and _bound(group, a, b, scratch, store, max_len, best) < best:
            n_eq[s], score[s] = -1, -1
        else:
            n_eq[s], score[s] = _join(a, b, scratch, store, eq, eqbit, max_len, cfg, found)
            best = max(best, score[s])
        a = b


@kernel
def _score_specials(geo, table, tile, bit, spec, n_spec, max_len, cfg, jw, found, prune):
    """Score `tile` on each special cell spec[i] (jw.mark[spec[i]] == i; table tiles or empty
    cells; none in the store yet), every one as if it alone were placed, with placement index
    `bit`: jw.scratch[9][0, i] distinct tile sets, [1, i] points. found holds the last joined
    special's equations. With prune (the greedy bot's choice, which needs exact scores only
    where a cell could reach the best score of the cells before it), a cell whose `_bound` is
    below that best is not joined: its equations and points are -1.
    Returns the number of new side walks (left in scratch for _insert),
    or -1 when a buffer overflowed: score with `finder._find` instead."""
    if n_spec > SPECIAL_CAP:
        return -1
    scratch = jw.scratch
    max_side = max_len - 2
    _reach(geo, table, jw.mark, spec, n_spec, jw.reach, max_side, scratch[8])
    n_new = _side_walks(geo, table, tile, bit, jw, max_side, cfg)
    if n_new == FULL:  # the trie is a cache: empty it and search again
        _trie_clear(jw.trie)
        n_new = _side_walks(geo, table, tile, bit, jw, max_side, cfg)
    if n_new < 0:
        return -1
    meta = scratch[1]
    group = scratch[6]
    start = scratch[7]
    start[: n_spec + 1] = 0
    for i in range(n_new):  # walks grouped by special cell, in search order within a group
        start[meta[i, 8] + 1] += 1
    for s in range(n_spec):
        start[s + 1] += start[s]
    for i in range(n_new):
        s = meta[i, 8]
        group[start[s]] = i
        start[s] += 1
    eqbit = np.uint64(1) << np.uint64(table.order[geo.eq])
    _join_groups(np.int64(0), n_spec, scratch, jw.store, geo.eq, eqbit, max_len, cfg, found, prune)
    return n_new


@kernel
def _score_join(geo, table, p, max_len, cfg, jw, found):
    """Equations through p (already on the table, not yet in the store; jw.mark is -1
    everywhere and stays so). Returns (distinct tile sets, score, new side walks); the new
    walks stay in scratch for _insert. (-1, 0, -1) when a buffer overflows: score with
    `finder._find`."""
    per = jw.scratch[9]
    per[2, 0] = p
    jw.mark[p] = 0
    n_new = _score_specials(geo, table, np.int64(table.sym[p]), np.int64(table.order[p]), per[2], np.int64(1),
                            max_len, cfg, jw, found, np.bool_(False))
    jw.mark[p] = -1
    if n_new < 0:
        return -1, 0, -1
    return per[0, 0], per[1, 0], n_new


@kernel
def _score_group(s, jw, eq, order, max_len, cfg, found):
    """Join again the walks of special s of the last `_score_specials` (still in scratch):
    when s is the cell the tile is then placed on, these are exactly the walks `_score_join`
    would list for it, in the same order (the shared search visits the same walk tree, only
    wider), so this scores the placed tile without a second search. Returns (distinct tile
    sets, score, a, b): its walks are group[a:b] (`_insert` adds them to the store)."""
    start = jw.scratch[7]
    per = jw.scratch[9]
    eqbit = np.uint64(1) << np.uint64(order[eq])
    _join_groups(np.int64(s), np.int64(s + 1), jw.scratch, jw.store, eq, eqbit, max_len, cfg, found, np.bool_(False))
    return per[0, s], per[1, s], 0 if s == 0 else start[s - 1], start[s]


@kernel
def _insert(store, scratch, a, b):
    """Add the new side walks group[a:b] of the last search (`_score_join`: a = 0, b = its
    row count; `_score_group`: its range) to the store, in that order.
    Returns False when the store is full (the caller then falls back to the DFS finder)."""
    head, ent, entu, ecells, count, lens, lcount = store
    cells, meta, masks, pool, group = scratch[0], scratch[1], scratch[2], scratch[3], scratch[6]
    n = count[0]
    for ii in range(a, b):
        i = group[ii]
        for kind in range(2):
            start = meta[i, 3] if kind == 1 else meta[i, 6]
            n_val = meta[i, 4] if kind == 1 else meta[i, 7]
            for x in range(n_val):
                if n >= ent.shape[0]:
                    count[0] = n
                    return False
                v = pool[start + x]
                h = _bucket(v, meta[i, 0])
                vb = _vbucket(v)
                lens[kind, vb] |= np.uint8(1 << meta[i, 0])
                lcount[kind, vb, meta[i, 0]] += 1
                ent[n, E_VAL] = v
                ent[n, E_NEXT] = head[kind, h]
                head[kind, h] = n
                ent[n, E_LEN] = meta[i, 0]
                ent[n, E_FIRST] = meta[i, 1]
                entu[n, E_LO] = masks[i, 0]
                entu[n, E_HI] = masks[i, 1]
                ent[n, E_BIN] = meta[i, 2] if kind == 1 else meta[i, 5]
                ent[n, E_KIND] = kind
                for j in range(meta[i, 0]):
                    ecells[n, j] = cells[i, j]
                n += 1
    count[0] = n
    return True


@kernel
def _rollback(store, n):
    """Take the entries n.. back out of the store, last first: the store is then exactly what
    it was when it held n entries (chains, per-length bits and counts), so a position whose
    table it held then can use it again (the search bot's copies extend a shared store)."""
    head, ent, _, _, count, lens, lcount = store
    for e in range(count[0] - 1, n - 1, -1):
        kind = ent[e, E_KIND]
        v = ent[e, E_VAL]
        length = ent[e, E_LEN]
        head[kind, _bucket(v, length)] = ent[e, E_NEXT]
        vb = _vbucket(v)
        lcount[kind, vb, length] -= 1
        if lcount[kind, vb, length] == 0:
            lens[kind, vb] &= np.uint8(~(1 << length) & 0xFF)
    count[0] = min(count[0], n)


@kernel
def _clear(store):
    store[0][:, :] = -1
    store[4][0] = 0
    store[5][:, :] = 0
    store[6][:, :, :] = 0


def _replay(pos, cells, rules, m, trie=None, last=None):
    """Place the tiles of `cells` (a `position.Position`'s, in this order, "=" first) on a
    compiled board, scoring each with _score_join and storing its side walks, except those of
    `last` (tests). Returns (board, arrays, equations of the last tile scored); the arrays
    include the scorers' values "geo", "jw" and "found" (recording walks)."""
    from sim.games.hexatrex.finder import Found, find_cfg, geo_of
    from sim.games.hexatrex.tiles import TEXT_SYMBOL, Board, hex_distance
    from sim.games.hexatrex.trie import TRIE_CAP, TRIE_POOL

    if m - 2 > MAX_SIDE:
        raise ValueError("join scorer only for max_equation_tiles <= MAX_SIDE + 2")
    board = Board(max(hex_distance(c, (0, 0)) for c in pos.tiles) + 2)
    t = dict(sym=np.full(board.size, -1, np.int8), order=np.full(board.size, -1, np.int16),
             mark=np.full(board.size, -1, np.int32),
             reach=np.zeros((board.size, REACH_COLS), np.int64),
             occ=np.zeros(len(pos.order), np.int64), cfg=find_cfg(rules), store=new_store(),
             scratch=new_scratch(), lo=np.zeros(4096, np.uint64), hi=np.zeros(4096, np.uint64),
             size=np.zeros(4096, np.int64), walks=np.zeros((4096, 16), np.int64),
             wlen=np.zeros(4096, np.int64))
    t["trie"] = new_trie(m - 2, TRIE_CAP, TRIE_POOL) if trie is None else trie
    t["geo"] = geo_of(board)
    t["jw"] = JoinWork(t["store"], t["scratch"], t["trie"], t["mark"], t["reach"])
    t["found"] = Found(t["lo"], t["hi"], t["size"], t["walks"], t["wlen"])
    n = 0
    for i, cell in enumerate(cells):
        idx = board.index(*cell)
        t["sym"][idx] = TEXT_SYMBOL[pos.tiles[cell]]
        t["order"][idx] = i
        t["occ"][i] = idx
        if i == 0:
            continue
        n, _, n_new = _score_join(t["geo"], table_of(t, i + 1), idx, np.int64(m), t["cfg"], t["jw"], t["found"])
        if n < 0 or (cell != last and not _insert(t["store"], t["scratch"], 0, n_new)):
            return board, t, -1
        t["n_new"] = n_new
    return board, t, n


def table_of(t, n_occ) -> Table:
    """The table of `_replay`'s arrays with its first n_occ tiles."""
    return Table(t["sym"], t["order"], t["occ"], np.int64(n_occ))


def search_cells(board, t, tile, cells, n_occ, prune=False):
    """One `_score_specials` search of `tile` on every cell of `cells` (coords) over the table
    of `_replay`'s arrays (its n_occ tiles; no walks recorded): the new side walks (left in
    the scratch, grouped by cell), or -1 when a buffer overflowed. Per-cell results in
    t["scratch"][9][0:2] (tests, `score_cells_compiled`)."""
    from sim.games.hexatrex.finder import Found
    from sim.games.hexatrex.tiles import TEXT_SYMBOL

    spec = np.array([board.index(*c) for c in cells], np.int64)
    t["mark"][spec] = np.arange(len(cells), dtype=np.int32)
    found = Found(t["lo"], t["hi"], t["size"], t["walks"][:0], t["wlen"][:0])
    return _score_specials(t["geo"], table_of(t, n_occ), np.int64(TEXT_SYMBOL[tile]), np.int64(n_occ), spec,
                           len(cells), np.int64(t["cfg"][0]), t["cfg"], t["jw"], found, prune)


def join_compiled(pos, placed, rules, max_len=None) -> dict:
    """Score `placed` on a `position.Position` the way the chunk kernel does (tests): every
    other tile is added to a store in placement order first. Returns
    {frozenset(cells): walk} like `finder.find_compiled`."""
    m = rules["max_equation_tiles"] if max_len is None else max_len
    cells = [c for c in pos.order if c != placed] + [placed]
    board, t, n = _replay(pos, cells, rules, m, last=placed)
    assert n >= 0, "scratch overflow"
    walks, wlen = t["walks"], t["wlen"]
    return {frozenset(board.coord(int(c)) for c in walks[e, : wlen[e]]):
            [board.coord(int(c)) for c in walks[e, : wlen[e]]] for e in range(n)}


def score_cells_compiled(pos, tile, rules, trie=None, prune=False):
    """Score `tile` on every legal cell of a `position.Position` in one search, the way the
    greedy bot does (tests): the table's side walks are stored first, in placement order.
    Returns {cell: (distinct tile sets, score)} in the order the bot reads them, or None when
    a buffer overflowed. A trie may be passed in to be shared between calls (made with the
    rules' max_equation_tiles); prune: as the bot, (-1, -1) for cells that cannot be best."""
    m = rules["max_equation_tiles"]
    board, t, n = _replay(pos, pos.order, rules, m, trie)
    if n < 0:
        return None
    cells = sorted(pos.legal_cells())
    if search_cells(board, t, tile, cells, len(pos.order), prune) < 0:
        return None
    per = t["scratch"][9]
    return {c: (int(per[0, i]), int(per[1, i])) for i, c in enumerate(cells)}
