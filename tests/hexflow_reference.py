"""Reference searches the HEXFLOW kernels were replaced by, kept as test oracles only: the
link-table search (_links/_bfs_links) and the plain board search (_bfs) that the greedy bot's
hex-set search (kernel._sets/_bfs_sets) is held to, the tile-by-tile cost through a cut hex
(_cost_with, _cut_arrivals) that kernel._through_cut is held to, and Battle's board-reading
search (_cost) that battle_bots._cost_l is held to. No production code calls them."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.hexflow.bot_kernel import _arrive
from sim.games.hexflow.kernel import FULL, INF, NO_HEX, STOP, _link


@njit(cache=True)
def _links(nbr, ttype, netid, netm, emask, lk):
    """The potential graph of the board as a table: lk[u * 6 + s] = _link(u, s) where node u
    has a way out across side s (an empty hex h is node h*2 on all six sides; h*2 + 1 has none),
    else -1; lk: int64[12 * NH]. Built once per board and shared by every search on it
    (_bfs_links); Tri keeps the same table up to date as tiles land (tri_engine._relink)."""
    nh = ttype.shape[0]
    for h in range(nh):
        for j in range(2):
            u = h * 2 + j
            if ttype[h] < 0:
                m = 63 if j == 0 else 0
            else:
                m = netm[u]
            for s in range(6):
                lk[u * 6 + s] = _link(u, s, nbr, ttype, emask, netid) if (m >> s) & 1 else -1


@njit(cache=True)
def _bfs(src, dst, blocked, nbr, ttype, emask, netid, netm, d, done, dq, stop):
    """0-1 BFS from corner hex `src` over the potential graph (hex `blocked` removed).

    d: int64[2 * NH] distance; done: int64[2 * NH] scratch (node expanded); dq: int64[24 * NH].
    Returns the number of empty hexes still to fill on the cheapest way to corner `dst` (INF if
    none); a placed start/end network costs 0, an empty corner 1. With `stop`, the search ends
    as soon as dst is reached (d is then only partly filled). One search: _links, then
    _bfs_links (which several searches on one board share).
    """
    lk = np.empty(d.shape[0] * 6, np.int64)
    _links(nbr, ttype, netid, netm, emask, lk)
    return _bfs_links(src, dst, blocked, lk, ttype, netm, d, done, dq, stop)


@njit(cache=True)
def _bfs_links(src, dst, blocked, lk, ttype, netm, d, done, dq, stop):
    """_bfs over the board's link table lk (_links)."""
    nn = d.shape[0]
    for i in range(nn):
        d[i] = INF
        done[i] = 0
    if src == blocked or dst == blocked:
        return INF
    head = nn * 6
    tail = head
    if ttype[src] < 0:
        d[src * 2] = 1
        dq[tail] = src * 2
        tail += 1
    else:
        for j in range(2):
            if netm[src * 2 + j] != 0:
                d[src * 2 + j] = 0
                dq[tail] = src * 2 + j
                tail += 1
    while head < tail:
        u = dq[head]
        head += 1
        if done[u]:
            continue  # queued again after a cheaper way was found: already expanded
        done[u] = 1
        du = d[u]
        if stop and u >> 1 == dst:
            return du  # a 0-1 BFS pops nodes in order of cost: this one is final
        for s in range(6):
            e = lk[u * 6 + s]
            if e < 0:
                continue
            v = e >> 1
            if v >> 1 == blocked:
                continue
            if e & 1:
                if du + 1 < d[v]:
                    d[v] = du + 1
                    dq[tail] = v
                    tail += 1
            elif du < d[v]:
                d[v] = du
                head -= 1
                dq[head] = v
    if ttype[dst] < 0:
        return d[dst * 2]
    best = INF
    for j in range(2):
        if netm[dst * 2 + j] != 0 and d[dst * 2 + j] < best:
            best = d[dst * 2 + j]
    return best


@njit(cache=True)
def _cost_with(h, t, r, src, dst, nbr, net_mask, emask_t, ttype, emask, netid, netm, d, done,
               dq):
    """Exact completion cost src -> dst if tile (t, r) stood on empty hex h (state restored)."""
    ttype[h] = t
    emask[h] = emask_t[t, r]
    for j in range(2):
        m = net_mask[t, r, j]
        netm[h * 2 + j] = m
        for s in range(6):
            if (m >> s) & 1:
                netid[h * 6 + s] = j
    lk = np.empty(d.shape[0] * 6, np.int64)
    _links(nbr, ttype, netid, netm, emask, lk)
    c = _bfs_links(src, dst, NO_HEX, lk, ttype, netm, d, done, dq, STOP)
    ttype[h] = -1
    emask[h] = 0
    for j in range(2):
        netm[h * 2 + j] = 0
    for s in range(6):
        netid[h * 6 + s] = -1
    return c


@njit(cache=True)
def _cut_arrivals(h, c1, c2, nbr, ttype, emask, netid, netm, sd, done, dq, a1, a2):
    """a1[s] / a2[s]: cost from corner c1 / c2 to the node across side s of empty hex h by ways
    that avoid h. When h is a cut (every way passes it), a way through a one-line tile on h
    passes h exactly once, so _pair_through over a1, a2 is the exact cost through that tile:
    two searches per hex instead of one per tile and rotation (_cost_with). The greedy bot
    reads them from its hex sets (_through_cut); this link-table version is what its tests hold
    that one to."""
    lk = np.empty(sd.shape[0] * 6, np.int64)
    _links(nbr, ttype, netid, netm, emask, lk)
    _bfs_links(c1, c1, h, lk, ttype, netm, sd, done, dq, FULL)  # dst = src: map only
    _arrive(h, sd, nbr, ttype, emask, netid, a1)
    _bfs_links(c2, c2, h, lk, ttype, netm, sd, done, dq, FULL)
    _arrive(h, sd, nbr, ttype, emask, netid, a2)


@njit(cache=True)
def _cost(q, allow_empty, transit, blocked, stop, srcm, dstm, tz, nbr, ttype, towner, emask,
          netid, netm, d, dq):
    """0-1 BFS for seat q from the hexes with srcm[q, h] to those with dstm[q, h]: the number of
    empty hexes still to fill (INF: none). `allow_empty` = 0: placed lines only (0 = complete);
    `transit` = 0: ignore the transit rule; hex `blocked` is left out. d: int64[2 NH] (filled
    with every node's cost when not `stop`); dq: int64[12 NH + 4], entries (cost << 8) | node
    (NH <= 127), so each node is expanded once, at its final cost."""
    nh = ttype.shape[0]
    nn = nh * 2
    for i in range(nn):
        d[i] = INF
    head = nn * 6
    tail = head
    for h in range(nh):
        if srcm[q, h] == 0 or h == blocked:
            continue
        if ttype[h] < 0:
            if allow_empty:
                d[h * 2] = 1
                dq[tail] = (1 << 8) | (h * 2)
                tail += 1
        elif not transit or towner[h] == q or tz[q, h]:
            for j in range(2):
                if netm[h * 2 + j] != 0:
                    d[h * 2 + j] = 0
                    head -= 1
                    dq[head] = h * 2 + j
    best = INF
    while head < tail:
        e = dq[head]
        head += 1
        u = e & 255
        du = e >> 8
        if du != d[u]:
            continue  # a stale entry: u was reached more cheaply since, and expanded then
        h = u >> 1
        if dstm[q, h] and du < best:
            best = du
            if stop:
                return best
        m = 63 if ttype[h] < 0 else netm[u]
        for s in range(6):
            if not (m >> s) & 1:
                continue
            n = nbr[h, s]
            if n < 0 or n == blocked:
                continue
            if ttype[n] < 0:
                if not allow_empty:
                    continue
                v = n * 2
                w = 1
            else:
                o = (s + 3) % 6
                if not (emask[n] >> o) & 1:
                    continue
                if transit and towner[n] != q and tz[q, n] == 0:
                    continue
                v = n * 2 + netid[n * 6 + o]
                w = 0
            nd = du + w
            if nd < d[v]:
                d[v] = nd
                if w == 0:
                    head -= 1
                    dq[head] = (nd << 8) | v
                else:
                    dq[tail] = (nd << 8) | v
                    tail += 1
    return best
