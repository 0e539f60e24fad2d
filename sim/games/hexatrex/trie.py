"""Side strings in a trie: every symbol string a side walk reads, parsed and evaluated once per
rule set and process (compiled).

A side walk out of "=" is read forwards as a right side and backwards as a left side; both
readings depend on its symbol string alone, and the string grows one symbol per step of the
walk. So the walk searches of `join.py` keep a trie node per step: the next node is one row
lookup, and a string met for the first time is parsed and evaluated here, once, then kept (the
rules are fixed for a trie). A string neither reading can complete is a DEAD child: the search
does not go on through it.

Row layout (int32; the children and the mask of children with values share the first 64 bytes):

    [0:14] child per symbol 0..13 ("=" never is one): UNSEEN, DEAD or the child's row
    [14] a bit per symbol: that child has values (either reading), so a search can skip a
    leaf without reading its row   [15] unused
    [16] right count   [17] left count   [18] right start   [19] left start (in the pool)
    [20] right side has a binary operator   [21] left side has one   [22] length
    [23] forward syntax state (finder.S_*, -1 none)   [24] digits of its number so far
    [25] that number starts with 0   [26] binary operators so far   [27] reverse state (R_*)

Values are kept only if the other side can reach them: with j symbols a side never makes
|value| >= 10**j (a number of d digits is < 10**d; a + b, a - b stay < 2 * 10**(j-2); a x b
< 10**(j-1)), and the other side of a k-symbol side has at most max_side + 1 - k symbols.
The trie keeps them for its max_side; a search with a shorter reach filters them again.
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import entry, kernel
from sim.games.hexatrex.finder import EV_LEN, S_NUM, S_START, VALUE_CAP, _eval_side, _fwd_step

UNSEEN, DEAD, FULL = -1, -2, -3
ROW = 32
C_VKIDS = 14
C_RCOUNT, C_LCOUNT, C_RSTART, C_LSTART, C_RBIN, C_LBIN = 16, 17, 18, 19, 20, 21
C_LEN, C_SYN, C_NLEN, C_ZL, C_NB, C_REV = 22, 23, 24, 25, 26, 27
TRIE_CAP = 1 << 19       # every live string of <= 5 symbols (254k with the default rules)
TRIE_POOL = 1 << 20
# reverse-reading states of a left side (read from "=" backwards)
R_START, R_NUM, R_OPNEED, R_MINUS = 0, 1, 2, 3


@entry
def new_trie(max_side, cap, pool):
    """An empty trie for sides of at most max_side symbols, with room for cap strings and pool
    values: rows, value pool, use (rows, pool values, max_side, times emptied), two strings and the
    evaluator's scratch. (TRIE_CAP, TRIE_POOL) hold every string a side of <= 5 symbols can
    read (max_equation_tiles 7), so a trie kept by a process (`game.side_trie`) stops growing;
    rows are allocated but untouched until used."""
    trie = (np.empty((cap, ROW), np.int32), np.empty(pool, np.int64), np.zeros(4, np.int64),
            np.zeros((2, 16), np.int64), np.zeros(VALUE_CAP, np.int64),
            np.zeros(EV_LEN, np.int64))
    trie[2][2] = max_side
    _trie_clear(trie)
    trie[2][3] = 0
    return trie


@kernel
def _trie_clear(trie):
    """Forget every string (the trie is a cache: results never depend on what it holds)."""
    rows, _, use, _, _, _ = trie
    rows[0, :] = 0
    rows[0, :14] = UNSEEN
    rows[0, C_SYN] = S_START
    rows[0, C_REV] = R_START
    use[0] = 1
    use[1] = 0
    use[3] += 1


@kernel
def _rev_step(rs, s):
    """One more symbol s in front of a left side read backwards from "=" (state rs); -1 when
    no left side can end like that."""
    if rs == R_START:
        return R_NUM if s <= 9 else -1
    if rs == R_NUM:
        if s <= 9:
            return R_NUM
        return R_MINUS if s == 11 else R_OPNEED
    if rs == R_OPNEED:
        return R_NUM if s <= 9 else -1
    if rs == R_MINUS:
        return R_NUM if s <= 9 else R_OPNEED
    return -1


@kernel
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


@kernel
def _reach_limit(max_side, k):
    """Values of a k-symbol side the other side (<= max_side + 1 - k symbols) can reach are
    strictly inside (-lim, lim)."""
    lim = 1
    for _ in range(max_side + 1 - k):
        lim *= 10
    return lim


@kernel
def _keep_values(trie, side, k, lim, cfg):
    """Evaluate side[0:k] and append its reachable values to the pool: (start, count), or
    (-1, 0) when the pool is full."""
    _, pool, use, _, vals, ev = trie
    n = _eval_side(side, k, cfg, vals, ev)
    start = use[1]
    if start + n > pool.shape[0]:
        return -1, 0
    kept = 0
    for j in range(n):
        v = vals[j]
        if -lim < v < lim:
            pool[start + kept] = v
            kept += 1
    use[1] = start + kept
    return start, kept


@kernel
def _trie_child(trie, node, s, cfg):
    """The child of row `node` by symbol s; its whole string must be in trie[3][0, :length].
    Parses and evaluates it the first time. Returns the row, DEAD, or FULL (nothing stored:
    clear the trie and start the search again)."""
    rows, _, use, strs, _, _ = trie
    lead0 = cfg[3] != 0
    syn = -1
    nlen = 0
    zl = 0
    nb = 0
    if rows[node, C_SYN] >= 0:
        syn, nlen, zl, nb = _fwd_step(rows[node, C_SYN], rows[node, C_NLEN], rows[node, C_ZL],
                                      rows[node, C_NB], s, lead0)
    rev = _rev_step(rows[node, C_REV], s)
    if syn < 0 and rev < 0:
        rows[node, s] = DEAD
        return DEAD
    c = use[0]
    if c >= rows.shape[0]:
        return FULL
    k = rows[node, C_LEN] + 1
    lim = _reach_limit(use[2], k)
    row = rows[c]
    row[:] = 0
    row[:14] = UNSEEN
    row[C_LEN] = k
    row[C_SYN] = syn
    row[C_NLEN] = nlen
    row[C_ZL] = zl
    row[C_NB] = nb
    row[C_REV] = rev
    fwd = strs[0]
    if syn == S_NUM:
        start, n = _keep_values(trie, fwd, k, lim, cfg)
        if start < 0:
            return FULL
        row[C_RSTART] = start
        row[C_RCOUNT] = n
        row[C_RBIN] = nb > 0
    if rev == R_NUM or rev == R_MINUS:
        back = strs[1]
        for j in range(k):
            back[j] = fwd[k - 1 - j]
        ok, lb = _check_side(back, k, lead0)
        if ok:
            start, n = _keep_values(trie, back, k, lim, cfg)
            if start < 0:
                return FULL
            row[C_LSTART] = start
            row[C_LCOUNT] = n
            row[C_LBIN] = lb
    use[0] = c + 1
    rows[node, s] = c
    if row[C_RCOUNT] + row[C_LCOUNT] > 0:
        rows[node, C_VKIDS] |= 1 << s
    return c


def trie_side(trie, symbols, cfg):
    """Follow (or build) the trie along a list of symbols (tests): returns the row of the whole
    string, or DEAD."""
    node = 0
    for i, s in enumerate(symbols):
        trie[3][0, i] = s
        nxt = int(trie[0][node, s])
        if nxt == UNSEEN:
            nxt = int(_trie_child(trie, node, s, cfg))
        assert nxt != FULL, "trie full"
        if nxt == DEAD:
            return DEAD
        node = nxt
    return node
