"""Hexa-Trex's expectimax bot, `expecti`: greedy's exact scores, looked at two and three turns
deep, with the expectation over the tile the next seat may hold.

Greedy computes the exact points of its tile on every frontier cell and takes the most. What it
does not see is what its cell leaves the next seat: a cell can open a spot where the next tile
scores 30, or take the spot the next seat was going to use. The opponent's tile is hidden, but
its distribution is not: it is one of the tiles the seat has not seen (the tile set minus the
table minus its own tile), each equally likely, so the expectation over the few tile kinds,
weighted by how many of each are unseen, is exact. The next seat is modelled as greedy (the
cell where its tile scores most), which the bots it is measured against are.

The move (two players; with three or four the next seat's reply only, weighted 1 / (players - 1),
and no follow-up):

1. `g(c)`: the points of the tile in hand on every frontier cell (one search, as greedy's).
2. Candidates: the `width` cells of most points, and the `block` cells the next seat would take
   now (its greedy cell for each unseen tile kind, ranked by expected points there): taking one
   is a block.
3. Depth 2, each candidate: `v2(c) = g(c) - reply x E_k[R(k; c)]`, R(k; c) the points of the
   next seat's greedy cell with a tile of kind k after our tile on c.
4. Depth 3 (`depth` 3), the `deep` best candidates by v2: after the next seat's greedy reply
   with each kind k, our own best points next turn with each kind k' we may draw (the unseen
   tiles less that k): `v3(c) = v2(c) + follow x E_k[E_k'[F(k'; c, k)]]`. The move is the best
   of them by v3 (by v2 at depth 2; ties: the earlier candidate, more points first).

Only the seat's own information is read: the table, its own tile and how many tiles are left
(from the turn number); the trial positions (two, in the bot's scratch) are copies of the table
with the face-down pile cut off (`TOP` at the end) and every other hand emptied, and a trial
tile is put in the mover's hand before each trial placement. The bot draws nothing from the
generator, so a game is a function of its seed and the decision depends on the seat's
information only (tests/test_hexatrex_expecti.py).

The searches are greedy's (`join._score_specials` over every frontier cell, the DFS finder where
the store overflows), on trial positions that share the side-walk store with the real one
(`Work.lineage`: each trial copy is pushed right above the position it was copied from).
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import entry, hot
from sim.games.base import Bot, Param, oracle_of
from sim.games.hexatrex.finder import Table, _find, _hexdist
from sim.games.hexatrex.join import _score_specials
from sim.games.hexatrex.rules import _found, _join_work, _lineage_index, _new_id, _sync, apply, new_scratch
from sim.games.hexatrex.state import (
    BOT_EXPECTI,
    FIRST,
    ID,
    LINEAGE_CAP,
    N_FRONT,
    N_OCC,
    TAG_ID,
    TOP,
    TURN,
    USE_JOIN,
)

# the bot's parameter row (Bot params in order)
P_WIDTH, P_BLOCK, P_DEPTH, P_DEEP, P_REPLY, P_FOLLOW, P_SEES = range(7)
SEES_OWN, SEES_ALL = 0, 1
KINDS = 14  # tile symbols 0..13 (the "=" is 14 and never in a hand)


@hot
def _best(tb, pos, tile, prune, out):
    """(points, cell) of `tile` on pos's best frontier cell (the first best in frontier order),
    with equations as long as the rules allow; out[i] the points on frontier cell i when it has
    rows (with prune, -1 on a cell whose bound is below the best before it: greedy's search)."""
    st = pos.st
    w = tb.work
    n_occ = st[N_OCC]
    n_front = st[N_FRONT]
    front = pos.front
    per = w.jscratch[9]
    shared = False
    if st[USE_JOIN] == 1:
        _sync(tb, pos)
        shared = _score_specials(tb.geo, Table(pos.sym, pos.order, pos.occ, n_occ), np.int64(tile), n_occ, front,
                                 n_front, tb.max_len, tb.cfg, _join_work(tb, pos.fpos),
                                 _found(w, w.no_walks, w.no_len), prune) >= 0
        w.tag[TAG_ID] = -1  # not the real position's search of its own tile: apply searches afresh
    best = -1
    cell = front[0]
    for fi in range(n_front):
        c = front[fi]
        sc = 0
        if shared:
            sc = per[1, fi]
        elif _hexdist(tb.cq, tb.cr, c, tb.center) + 2 <= tb.max_len:
            pos.sym[c] = tile
            pos.order[c] = n_occ
            pos.occ[n_occ] = c
            _, sc = _find(tb.geo, Table(pos.sym, pos.order, pos.occ, n_occ + 1), c, tb.max_len, tb.cfg,
                          _found(w, w.no_walks, w.no_len), w.fws)
            pos.sym[c] = -1
            pos.order[c] = -1
        if out.shape[0] > 0:
            out[fi] = sc
        if sc > best:
            best = sc
            cell = c
    return best, cell


@hot
def _trial(tb, dst, src, keep_seat):
    """Copy src's table into the trial position dst in place, with its own id pushed on the
    store's lineage right above src (as copy_position does). The pile is cut off (nothing is
    drawn in a trial) and every hand but keep_seat's is emptied (a trial sets the tile first)."""
    for i in range(src.sym.shape[0]):  # loops, not slice copies (which allocate: no reference counting here)
        dst.sym[i] = src.sym[i]
        dst.order[i] = src.order[i]
        dst.fpos[i] = src.fpos[i]
    for i in range(src.front.shape[0]):
        dst.front[i] = src.front[i]
    for i in range(src.occ.shape[0]):
        dst.occ[i] = src.occ[i]
    for r in range(src.tally.shape[0]):
        for s in range(src.tally.shape[1]):
            dst.tally[r, s] = src.tally[r, s]
    for i in range(src.hist.shape[0]):
        dst.hist[i] = src.hist[i]
    for i in range(src.st.shape[0]):
        dst.st[i] = src.st[i]
    dst.st[ID] = _new_id(tb)
    dst.st[TOP] = tb.n_tiles
    for s in range(tb.n_seats):
        dst.hand[s] = src.hand[s] if s == keep_seat else -1
    w = tb.work
    i = _lineage_index(w, src.st[ID])
    if i >= 0 and i + 1 < LINEAGE_CAP:
        w.lineage[i + 1] = dst.st[ID]
        w.lin_n[0] = i + 2


@hot
def _place_trial(tb, pos, cell, tile, rng):
    """The seat to move in trial position pos puts `tile` on `cell` (scored, no draw; apply
    draws nothing from rng)."""
    seat = (pos.st[FIRST] + pos.st[TURN]) % tb.n_seats
    pos.hand[seat] = tile
    apply(tb, pos, cell, rng)


@hot
def _unseen(tb, pos, seat, cnt):
    """cnt[k]: tiles of kind k the seat has not seen (the tile set less the table and its own
    tile); returns their number."""
    for k in range(cnt.shape[0]):
        cnt[k] = 0
    for i in range(tb.n_tiles):
        cnt[tb.tiles[i]] += 1
    for i in range(1, pos.st[N_OCC]):
        cnt[pos.sym[pos.occ[i]]] -= 1
    if pos.hand[seat] >= 0:
        cnt[pos.hand[seat]] -= 1
    n = 0
    for k in range(KINDS):
        n += cnt[k]
    return n


@hot
def _reply_kinds(pos, opp, known, cnt, rw):
    """rw[k]: the weight of tile kind k in the next seat's hand, and their sum. As the seat sees
    it: cnt, every unseen tile equally likely. `known` (the oracle, which sees every hand): the
    next seat's one tile, taken out of cnt, which then holds the tiles left to draw."""
    n = 0
    for k in range(rw.shape[0]):
        rw[k] = 0
    for k in range(KINDS):
        if not known:
            rw[k] = cnt[k]
            n += cnt[k]
    if known:
        rw[pos.hand[opp]] = 1
        cnt[pos.hand[opp]] -= 1
        n = 1
    return n


@hot
def _rank(idx, key, n):
    """idx[:n] = 0..n-1 ordered by key, highest first (a stable insertion sort: equal keys keep
    their order)."""
    for i in range(n):
        idx[i] = i
    for a in range(1, n):
        x = idx[a]
        b = a - 1
        while b >= 0 and key[idx[b]] < key[x]:
            idx[b + 1] = idx[b]
            b -= 1
        idx[b + 1] = x


@hot
def _promote_blocks(tb, pos, cand, val, rw, gain, n_c, n_block):
    """Blocks: the next seat's greedy cell now, per unseen kind, ranked by expected points
    there; the best `n_block` not among the first n_c candidates move up behind them. Returns
    the new number of candidates."""
    n_front = pos.st[N_FRONT]
    if n_block > 0:
        for i in range(n_front):
            val[i] = 0.0
        for k in range(KINDS):
            if rw[k] > 0:
                sc, c = _best(tb, pos, k, True, gain[:0])
                val[pos.fpos[c]] += rw[k] * sc
        for _ in range(n_block):
            bi, bv = -1, 0.0
            for i in range(n_front):
                if val[i] > bv:
                    bi, bv = i, val[i]
            if bi < 0:
                break
            val[bi] = 0.0
            known = False
            for j in range(n_c):
                known = known or cand[j] == bi
            if not known:  # move it up to position n_c (the others keep their order)
                j = n_c
                while cand[j] != bi:
                    j += 1
                while j > n_c:
                    cand[j] = cand[j - 1]
                    j -= 1
                cand[n_c] = bi
                n_c += 1
    return n_c


@hot
def expecti_move(tb, pos, seat, par, scratch, rng):
    """The expecti bot's cell for `seat` at the real position pos (never changed; rng is only
    handed to the trial placements' apply, which draws nothing from it)."""
    ex = scratch.ex
    gain, val, cand, order, rcell, cnt, rw = ex.gain, ex.val, ex.cand, ex.order, ex.rcell, ex.cnt, ex.rw
    pa, pb = ex.pa, ex.pb
    n_front = pos.st[N_FRONT]
    front = pos.front
    tile = pos.hand[seat]
    turn = pos.st[TURN]
    p = tb.n_seats
    _best(tb, pos, tile, False, gain)
    # candidates: frontier indices by points, more first (frontier order among equals)
    _rank(cand, gain, n_front)
    if turn + 1 >= tb.n_tiles or n_front == 1:  # nobody moves after this tile: greedy's cell
        return front[cand[0]]
    n_un = _unseen(tb, pos, seat, cnt)
    opp = (seat + 1) % p
    known = int(par[P_SEES]) == SEES_ALL and pos.hand[opp] >= 0
    n_r = _reply_kinds(pos, opp, known, cnt, rw)
    width = min(n_front, max(1, int(par[P_WIDTH])))
    n_c = width
    # blocks: the next seat's greedy cell now, per unseen kind, ranked by expected points there
    n_c = _promote_blocks(tb, pos, cand, val, rw, gain, n_c, int(par[P_BLOCK]))
    # depth 2: the next seat's expected greedy reply
    w_reply = par[P_REPLY] / (p - 1)
    for j in range(n_c):
        fi = cand[j]
        _trial(tb, pa, pos, seat)
        _place_trial(tb, pa, front[fi], tile, rng)
        r = 0.0
        for k in range(KINDS):
            rcell[j, k] = -1
            if rw[k] > 0:
                sc, c = _best(tb, pa, k, True, gain[:0])
                rcell[j, k] = c
                r += rw[k] * sc
        val[j] = gain[fi] - w_reply * r / n_r
    # order[q]: the candidates by v2, best first (stable: equal values keep their order)
    _rank(order, val, n_c)
    deep = min(n_c, int(par[P_DEEP]))
    if int(par[P_DEPTH]) < 3 or p != 2 or turn + 2 >= tb.n_tiles or deep <= 1 or n_un < 2:
        return front[cand[order[0]]]
    # depth 3: our best points next turn after each reply, over the kinds we may draw
    follow = par[P_FOLLOW]
    best_j, best_v = 0, -np.inf
    for q in range(deep):
        j = order[q]
        fi = cand[j]
        _trial(tb, pa, pos, seat)
        _place_trial(tb, pa, front[fi], tile, rng)
        f = 0.0
        for k in range(KINDS):
            if rw[k] == 0:
                continue
            _trial(tb, pb, pa, opp)
            _place_trial(tb, pb, rcell[j, k], k, rng)
            if not known:  # the reply's tile is no longer among those we may draw
                cnt[k] -= 1
            fk = 0.0
            for k2 in range(KINDS):
                if cnt[k2] > 0:
                    sc, _ = _best(tb, pb, k2, True, gain[:0])
                    fk += cnt[k2] * sc
            if not known:
                cnt[k] += 1
            f += rw[k] * fk / (n_un - 1)
        v = val[j] + follow * f / n_r
        if v > best_v:
            best_j, best_v = j, v
    return front[cand[best_j]]


@hot
def costly_move(tb, pos, seat, code, par, scratch, rng):
    """The engine's costly bot of Hexa-Trex (sim.engine.interface `implement`'s costly_bots): expecti,
    compiled only for a line-up that seats it (registered in game.py)."""
    return expecti_move(tb, pos, seat, par, scratch, rng)


@entry
def choice(tb, pos, seat, par):
    """The expecti bot's cell for `seat` at pos, from Python (tests): its own scratch."""
    return expecti_move(tb, pos, seat, par, new_scratch(tb), np.zeros(1, np.uint64))


EXPECTI = Bot(
    "expecti", BOT_EXPECTI,
    "expectimax over the next seat's hidden tile: its cell's points minus the next seat's expected "
    "greedy reply (over the unseen tile kinds, weighted by how many are unseen), plus its own expected "
    "best points the turn after (depth 3), on the cells of most points and the next seat's best cells",
    (Param("width", "int", 8, "candidates by this turn's points (the cells of most points)", low=1, high=1000),
     Param("block", "int", 4, "candidates added among the cells the next seat would take now (blocks)",
           low=0, high=1000),
     Param("depth", "int", 3, "2: points minus the next seat's expected reply; 3: plus our expected best "
           "points the turn after (two players)", choices=(2, 3)),
     Param("deep", "int", 3, "candidates, best by depth 2, that depth 3 looks at", low=1, high=1000),
     Param("reply", "float", 1.0, "weight of the next seat's expected reply", low=0.0, high=10.0),
     Param("follow", "float", 0.5, "weight of our expected best points the turn after (depth 3; 0.5: halfway "
           "between stopping after the next seat's reply and after our own next tile)", low=0.0, high=10.0),
     Param("sees", "str", "own", "'own': the next seat's tile is any unseen one; 'all': it is the tile the "
           "next seat holds (cheating, for the oracle; the draws stay random)", choices=("own", "all"))))

# Hexa-Trex's ceiling of skill (sim/stats/skill.py CEILING_BOTS): expecti seeing the next seat's tile.
# The search bot seeing every hand would bound little here: unseeing, it plays level with greedy.
ORACLE = oracle_of(EXPECTI, "expecti with the next seat's tile in view (sees = all; the draws stay random)")
