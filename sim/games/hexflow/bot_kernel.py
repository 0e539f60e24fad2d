"""The compiled pieces HEXFLOW's bots share (race_bots.py, tri_bots.py, battle_bots.py): the 0-1
search over a link table (Battle's completion costs, Tri-Board's distance maps), the hex-set
search (`_sets`, `_bfs_sets`: Race's completion costs), each hex's arrival costs (`_arrive`,
`_arrive4`), the critical hexes (`_critical`, `_pair_through`), the open line ends
(`_open_ends`), the legal (hand pair) set of a hex (`_legal_set`) and the tie-breaking best
(`_running_best`). They read the board arrays kernel.py's docstring describes; no rule lives here.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.engine.jit import hot, hot_inline
from sim.engine.rng import below

from .kernel import INF, SET_W, _find, _hex_open, _tile_fits
from .tiles import BLOCK

# ---- the 0-1 search over a link table (Battle's completion costs, Tri-Board's distance maps) ---
# A queue entry is (cost << Q_BITS) | node: a node popped at a cost above its d is stale (it was
# reached more cheaply since it was queued) and is skipped.
Q_BITS = 16
Q_NODE = (1 << Q_BITS) - 1


@hot_inline
def _start01(d, dq):
    """Every node at INF and the queue empty: returns (head, tail), both in the middle of dq
    (int64[12 * nodes + 4]: cost-0 steps go in front of head, cost-1 steps after tail)."""
    nn = d.shape[0]
    for i in range(nn):
        d[i] = INF
    return nn * 6, nn * 6


@hot_inline
def _seed01(h, ttype, netm, d, dq, head, tail):
    """Hex h as a source of the search: an empty hex costs 1 (its node h * 2), a placed tile's
    networks 0. Returns the new (head, tail)."""
    if ttype[h] < 0:
        d[h * 2] = 1
        dq[tail] = (1 << Q_BITS) | (h * 2)
        tail += 1
    else:
        for j in range(2):
            if netm[h * 2 + j] != 0:
                d[h * 2 + j] = 0
                head -= 1
                dq[head] = h * 2 + j
    return head, tail


@hot_inline  # each caller's copy folds its constant arguments (Tri-Board: no goal, no blocked hex)
def _search01(lnk, blocked, goal, stop, d, dq, head, tail):
    """The 0-1 search (breadth first with a double-ended queue: an empty hex costs 1, a joined
    line 0) from the sources queued in dq[head:tail] (_start01, _seed01), stepping along the link
    table lnk (lnk[u * 6 + s]: node u's step across side s, as `_link` encodes it, -1 none) and
    never onto hex `blocked` (-1: none). d[node] receives the cost of the cheapest way to the node,
    the node's own hex included. Returns the cheapest cost of a node on a goal hex (goal[h] != 0;
    an empty goal array: no goal, INF); with `stop` it returns as soon as that cost is known,
    leaving d partly filled."""
    has_goal = goal.shape[0] > 0
    best = INF
    while head < tail:
        e = dq[head]
        head += 1
        u = e & Q_NODE
        du = e >> Q_BITS
        if du != d[u]:
            continue  # stale: expanded at its final cost already
        if has_goal and goal[u >> 1] != 0 and du < best:
            best = du
            if stop:
                return best
        b = u * 6
        for s in range(6):
            x = lnk[b + s]
            if x < 0 or x >> 2 == blocked:
                continue
            v = x >> 1
            nd = du + (x & 1)
            if nd < d[v]:
                d[v] = nd
                if x & 1:
                    dq[tail] = (nd << Q_BITS) | v
                    tail += 1
                else:
                    head -= 1
                    dq[head] = (nd << Q_BITS) | v
    return best


# the goal of a search without one (_search01)
NO_GOAL = np.zeros(0, np.int64)


@hot
def _sets(nbr, ttype, netm, par, g):
    """The board as hex sets for _bfs_sets; g: int64[sets_size(NH)], built once per board.

    Placed lines that touch are one union-find set (par): a line reaching one of its networks
    reaches them all at no cost, so each set is one component, and the search graph is the empty
    hexes (cost 1) and the components (cost 0). g holds, by offset (NN = 2 * NH):
      [0, 2NH)       each hex's neighbours as a hex set (two words: hexes below SET_W, the rest)
      2NH + 0..1     the empty hexes
      [2NH+2, +NN)   component of each network node (-1: an empty hex's node, no line)
      then           the number of components; per component the empty hexes its line ends point
                     into (two words, NN slots); the search's component costs (NN); per empty
                     hex the number of components it touches (NH) and them (6 slots each);
                     scratch for the roots (NN)."""
    nh = ttype.shape[0]
    nn = nh * 2
    o_cid = nn + 2
    o_touch = o_cid + nn + 1
    o_adjn = o_touch + nn * 3
    o_adjl = o_adjn + nh
    o_root = o_adjl + nh * 6
    for u in range(nn):
        g[o_cid + u] = -1
        g[o_root + u] = -1
    for h in range(nh):
        g[o_adjn + h] = 0
    g[nn] = 0
    g[nn + 1] = 0
    ncomp = 0
    for h in range(nh):
        g[h * 2] = 0
        g[h * 2 + 1] = 0
        for s in range(6):
            n = nbr[h, s]
            if n >= 0:
                w = 1 if n >= SET_W else 0
                g[h * 2 + w] |= 1 << (n - SET_W * w)
        if ttype[h] < 0:
            w = 1 if h >= SET_W else 0
            g[nn + w] |= 1 << (h - SET_W * w)
            continue
        for j in range(2):
            u = h * 2 + j
            m = netm[u]
            if m == 0:
                continue
            r = u
            while par[r] != r:
                r = par[r]
            c = g[o_root + r]
            if c < 0:
                c = ncomp
                ncomp += 1
                g[o_root + r] = c
                g[o_touch + c * 2] = 0
                g[o_touch + c * 2 + 1] = 0
            g[o_cid + u] = c
            for s in range(6):
                n = nbr[h, s]
                if (m >> s) & 1 and n >= 0 and ttype[n] < 0:
                    w = 1 if n >= SET_W else 0
                    g[o_touch + c * 2 + w] |= 1 << (n - SET_W * w)
                    g[o_adjl + n * 6 + g[o_adjn + n]] = c
                    g[o_adjn + n] += 1
    g[o_cid + nn] = ncomp


@hot
def _bfs_sets(src, dst, blocked, g, d, stop):
    """_bfs over the board's hex sets g (_sets), level by level: the hexes at cost k are one set,
    the next level is their neighbours' union (plus the line ends of the components they touch)
    less the hexes seen. Same results as _bfs (d for every node, the cost to dst; with `stop`,
    only the cost), for `blocked` an empty hex or -1."""
    nn = d.shape[0]
    nh = nn >> 1
    o_cid = nn + 2
    o_nc = o_cid + nn
    o_touch = o_nc + 1
    o_cd = o_touch + nn * 2
    o_adjn = o_cd + nn
    o_adjl = o_adjn + nh
    for i in range(nn):
        d[i] = INF
    if src == blocked or dst == blocked:
        return INF
    for c in range(g[o_nc]):
        g[o_cd + c] = INF
    a0 = g[nn]
    a1 = g[nn + 1]
    if blocked >= 0:
        w = 1 if blocked >= SET_W else 0
        if w:
            a1 &= ~(1 << (blocked - SET_W))
        else:
            a0 &= ~(1 << blocked)
    dc0 = g[o_cid + dst * 2]
    dc1 = g[o_cid + dst * 2 + 1]
    dw = 1 if dst >= SET_W else 0
    db = 1 << (dst - SET_W * dw)
    sw = 1 if src >= SET_W else 0
    f0 = 0
    f1 = 0
    if (g[nn + sw] >> (src - SET_W * sw)) & 1:  # an empty corner costs 1
        if sw:
            f1 = 1 << (src - SET_W)
        else:
            f0 = 1 << src
    else:  # a placed corner: its lines cost 0
        for j in range(2):
            c = g[o_cid + src * 2 + j]
            if c >= 0:
                g[o_cd + c] = 0
                if stop and (c == dc0 or c == dc1):
                    return 0
                f0 |= g[o_touch + c * 2] & a0
                f1 |= g[o_touch + c * 2 + 1] & a1
    s0 = 0
    s1 = 0
    k = 1
    while (f0 | f1) != 0:
        if stop and ((f1 if dw else f0) & db) != 0:
            return k
        s0 |= f0
        s1 |= f1
        n0 = 0
        n1 = 0
        while (f0 | f1) != 0:  # each hex of this level, lowest first
            if f0 != 0:
                h = trailing_zeros(f0)
                f0 &= f0 - 1
            else:
                h = trailing_zeros(f1) + SET_W
                f1 &= f1 - 1
            d[h * 2] = k
            n0 |= g[h * 2]
            n1 |= g[h * 2 + 1]
            for i in range(g[o_adjn + h]):
                c = g[o_adjl + h * 6 + i]
                if g[o_cd + c] > k:
                    g[o_cd + c] = k
                    if stop and (c == dc0 or c == dc1):
                        return k
                    n0 |= g[o_touch + c * 2]
                    n1 |= g[o_touch + c * 2 + 1]
        f0 = n0 & a0 & ~s0
        f1 = n1 & a1 & ~s1
        k += 1
    for u in range(nn):
        c = g[o_cid + u]
        if c >= 0:
            d[u] = g[o_cd + c]
    return min(d[dst * 2], d[dst * 2 + 1])


@hot_inline
def _two_least(m, a):
    """(least a[s], its side s, the next least) over the sides s in mask m (INF, -1, INF none)."""
    b = INF
    bs = -1
    c = INF
    for s in range(6):
        if (m >> s) & 1:
            x = a[s]
            if x < b:
                c = b
                b = x
                bs = s
            elif x < c:
                c = x
    return b, bs, c


@hot
def _pair_through(m, a1, a2, at1, at2):
    """Cheapest way through a network with side mask m: enter from one side with cost a1[s],
    leave by another with a2[s]; at1/at2: the hex is the path's own start/end corner."""
    if m == 0:
        return INF
    b1, b1s, c1 = _two_least(m, a1)
    b2, b2s, c2 = _two_least(m, a2)
    if at1:
        return b2
    if at2:
        return b1
    if b1s != b2s:
        v = b1 + b2
    else:
        v = min(b1 + c2, c1 + b2)
    return min(v, INF)


@hot
def _arrive(h, d, nbr, ttype, emask, netid, out):
    """out[s] = cost (map d) of the node across side s of empty hex h that a line on s would join."""
    for s in range(6):
        n = nbr[h, s]
        out[s] = INF
        if n < 0:
            continue
        if ttype[n] < 0:
            out[s] = d[n * 2]
        else:
            o = (s + 3) % 6
            if (emask[n] >> o) & 1:
                out[s] = d[n * 2 + netid[n * 6 + o]]


@hot
def _critical(dA, dB, D, nh, ttype, crit, cnt):
    """crit[h] = 1 if every cheapest way between the corners uses empty hex h (it is the only
    empty hex of its layer on such ways)."""
    for k in range(nh + 2):
        cnt[k] = 0
    for h in range(nh):
        crit[h] = 0
    if D >= INF:
        return
    for h in range(nh):
        if ttype[h] < 0 and dA[h * 2] + dB[h * 2] - 1 == D and dA[h * 2] <= nh:
            cnt[dA[h * 2]] += 1
    for h in range(nh):
        if ttype[h] < 0 and dA[h * 2] + dB[h * 2] - 1 == D and dA[h * 2] <= nh:
            if cnt[dA[h * 2]] == 1:
                crit[h] = 1


@hot_inline
def _running_best(rng, sc, best, nbest):
    """A bot's running best move: (keep, best, nbest) after a move scoring sc, where best is the
    best score so far and nbest how many moves share it. Kept when it scores above the best, or
    equals it and wins the draw (one draw per tie: 1 in nbest), so every move sharing the final
    best score is kept with the same chance."""
    if sc > best:
        return True, sc, np.int64(1)
    if sc == best:
        nbest += 1
        return below(rng, nbest) == 0, best, nbest
    return False, best, nbest


@hot
def _open_ends(c, nbr, ttype, emask, netm, par, need_c):
    """Empty hexes that the lines of the network on corner hex c (with everything joined to it)
    point into; need_c[n] = sides of n facing those line ends. Returns their number, -1 when
    the corner holds no line."""
    nh = ttype.shape[0]
    for n in range(nh):
        need_c[n] = 0
    if ttype[c] < 0 or emask[c] == 0:
        return -1
    r0 = _find(par, c * 2) if netm[c * 2] != 0 else -2
    r1 = _find(par, c * 2 + 1) if netm[c * 2 + 1] != 0 else -2
    count = 0
    for x in range(nh):
        if ttype[x] < 0 or emask[x] == 0:
            continue
        for j in range(2):
            m = netm[x * 2 + j]
            if m == 0:
                continue
            r = _find(par, x * 2 + j)
            if r != r0 and r != r1:
                continue
            for s in range(6):
                if (m >> s) & 1:
                    n = nbr[x, s]
                    if n >= 0 and ttype[n] < 0:
                        if need_c[n] == 0:
                            count += 1
                        need_c[n] |= 1 << ((s + 3) % 6)
    return count


@hot
def _legal_set(p, h, npairs, pt, pe, placed_any, corners, ttype, adj, need, block_connected):
    """The hand pairs seat p may place on hex h, as a bit set (bit i: pair i, type pt[i], side
    mask pe[i]): _legal for all pairs at once, the hex's part (`_hex_open`) tested once. One
    exit, so numba can drop the reference counts of its array arguments (see _fits)."""
    first = placed_any[p] == 0
    open_h = _hex_open(ttype[h] < 0, first, h == corners[p, 0] or h == corners[p, 1], adj[h])
    nd = need[h]
    bits = 0
    for i in range(npairs if open_h else 0):
        if _tile_fits(first, pe[i], nd, pt[i] == BLOCK, block_connected):
            bits |= 1 << i
    return bits


@hot
def _arrive4(h, maps, nbr, ttype, emask, netid, arr):
    """arr[k, s] = cost (map maps[k], k = 0..3) of the node across side s of empty hex h that a
    line on s would join: _arrive for the four maps, the neighbours looked up once."""
    for s in range(6):
        n = nbr[h, s]
        v = -1
        if n >= 0:
            if ttype[n] < 0:
                v = n * 2
            elif (emask[n] >> (s + 3 if s < 3 else s - 3)) & 1:
                v = n * 2 + netid[n * 6 + (s + 3 if s < 3 else s - 3)]
        for k in range(4):
            arr[k, s] = INF if v < 0 else maps[k, v]
