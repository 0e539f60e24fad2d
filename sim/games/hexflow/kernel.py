"""HEXFLOW's compiled board helpers: placement (`_place`) and the best path (`_best_path`) on a
layout.Position with the mode's tables (t.nbr, t.net_mask, t.emask_t; numba compiles them once
per mode's position type), and on loose arrays the union-find over line networks, the link
steps and the placement rule. Every mode's rules and bots call them; the pieces only bots use
(distance searches, critical hexes) are in bot_kernel.py.

Board state (NH hexes, index map in board.py) as flat int64 arrays:
  ttype[h]   tile type on hex h, -1 = empty          towner[h]  seat that placed it
  trot[h]    rotation (0..5)                          emask[h]   sides carrying a line (6 bits)
  netid[h*6 + s]  which network (0/1) of the tile on h owns side s, -1 = none
  netm[h*2 + j]   side mask of network j of the tile on h
  par[h*2 + j]    union-find over networks: placed lines that touch are one set
  adj[h]     number of occupied neighbours of an empty hex
  need[h]    sides of an empty hex where a neighbour's line ends (a new tile must cover one)
  front[:nfront]  empty hexes with an occupied neighbour (pos[h] = place in front, -1 = absent)

Graph nodes (for distances and blocking): node h*2 is an empty hex (any line can still pass:
cost 1 to fill), node h*2 + j is network j of a placed tile (cost 0). Two nodes touch across a
side when both can carry a line there.

Blocked players: each seat keeps one witness way between its corners (per empty hex on it: the
sides the way enters and leaves by); a placement can only cut a seat off if it breaks it, and
only then is a way searched again (race._way: depth first, heading for the goal by a side order
fixed per rule set). Which way is kept never changes a game, only how often the search runs.

cfg (int64, rules.Tables) indices are the C_* constants below; a result row is one int64 row per
game (O_* columns).
"""

from __future__ import annotations

import numpy as np

from sim.engine.jit import entry, hot, hot_inline, kernel
from sim.engine.rng import shuffle

from .layout import H_ADJ, H_EMASK, H_FPOS, H_FRONT, H_NEED, H_TOWNER, H_TROT, H_TTYPE, NFRONT
from .tiles import BLOCK

INF = 1 << 20
# typed (not literal) call arguments: numba compiles a callee once per distinct argument type,
# and a literal -1 / True / 0 is a type of its own
NO_HEX = np.int64(-1)
STOP = np.bool_(True)
FULL = np.bool_(False)
# hexes per word of a hex set (_sets): two int64 words, bit 63 unused, boards up to 124 hexes
SET_W = 62

# The functions run at every Race decision (the rules, the random and greedy bots and what they
# call) allocate nothing and are compiled without numba's reference counting: each takes a dozen
# to forty arrays, and with reference counting every call adds and drops a reference to each of
# them (two atomic operations per array), which cost more than the rules (Race on the engine ran
# at 0.28x the games/s of a chunk kernel holding every array as a local). Battle and Tri-Board
# call some of them too, which changes nothing there but the counting. (`hot`, `hot_inline`,
# `hot_fused`: sim/engine/jit.py.)

# cfg indices
C_HAND, C_BLOCK_CONNECTED, C_BLOCKED_LOSES, C_STALEMATE, C_NO_MOVE, C_FIRST, C_MAX_TURNS, \
    C_DOTS_RANDOM, C_BLOCK_CHECK = range(9)
N_CFG = 9
# stalemate rules, first player, block check
ST_CLOSEST, ST_DRAW = 0, 1
FIRST_RANDOM, FIRST_A, FIRST_B = 0, 1, 2
BC_ANY, BC_BLOCK_TILE = 0, 1
# end reasons: a result row's end_reason is an index into END_REASONS (every mode's; rules.py
# and the Game's end_reasons are this tuple), and each E_* is the index of its name
END_REASONS = ("path", "opponent_path", "blocked", "self_blocked", "both_blocked",
               "stalemate_closest", "stalemate_draw", "no_move_loss", "turn_cap", "stalemate_score")
E_PATH = END_REASONS.index("path")
E_OPP_PATH = END_REASONS.index("opponent_path")
E_BLOCKED = END_REASONS.index("blocked")
E_SELF_BLOCKED = END_REASONS.index("self_blocked")
E_BOTH_BLOCKED = END_REASONS.index("both_blocked")
E_ST_CLOSEST = END_REASONS.index("stalemate_closest")
E_ST_DRAW = END_REASONS.index("stalemate_draw")
E_NO_MOVE = END_REASONS.index("no_move_loss")
E_TURN_CAP = END_REASONS.index("turn_cap")
E_ST_SCORE = END_REASONS.index("stalemate_score")
# output columns
O_WINNER, O_REASON, O_TURNS, O_FIRST, O_SCORE_A, O_SCORE_B, O_PASS_A, O_PASS_B, O_BLOCKS_A, \
    O_BLOCKS_B, O_COMPLETED, O_PATH_LEN, O_PATH_DOT_HEXES, O_PATH_DOTS, O_DIST_A, O_DIST_B, \
    O_TILES = range(17)
# bots
BOT_RANDOM, BOT_GREEDY, BOT_LOOKAHEAD = 0, 1, 2  # lookahead: Race only (race.py)
# recorded move: seat, kind (0 place, 1 pass), hex, type, rotation, turn
R_SEAT, R_KIND, R_HEX, R_TYPE, R_ROT, R_TURN = range(6)


@kernel
def _deal(rng, q, tileset, nbag, bag, bagn, hand, hand_size, record, rec_bag):
    """Seat q's bag: the tile set shuffled (recorded when tracing), then its opening hand drawn
    from the top (-1 = empty slot). Shared by the Race, Battle and Tri-Board kernels."""
    for i in range(nbag):
        bag[q, i] = tileset[i]
    shuffle(rng, bag[q])
    if record:
        for i in range(nbag):
            rec_bag[q, i] = bag[q, i]
    bagn[q] = nbag
    for k in range(hand_size):
        if bagn[q] > 0:
            bagn[q] -= 1
            hand[q, k] = bag[q, bagn[q]]
        else:
            hand[q, k] = -1


@hot
def _lay_dots(rng, random_dots, free_hexes, dot_pool, dots_fixed, shuf, dots, mult):
    """This game's dot hexes (dot_pool shuffled over free_hexes, or the fixed layout) and the
    path multiplier of each hex (dot value + 1 from a 2-dot on, else 0)."""
    nh = dots.shape[0]
    if random_dots:
        for h in range(nh):
            dots[h] = 0
        for i in range(free_hexes.shape[0]):
            shuf[i] = free_hexes[i]
        shuffle(rng, shuf)
        for i in range(dot_pool.shape[0]):
            dots[shuf[i]] = dot_pool[i]
    else:
        for h in range(nh):
            dots[h] = dots_fixed[h]
    for h in range(nh):
        mult[h] = dots[h] + 1 if dots[h] >= 2 else 0


@kernel
def _six(a):
    """The six values of a side-indexed row as a tuple (passed on without reference counting)."""
    return (a[0], a[1], a[2], a[3], a[4], a[5])


def empty_links(nbr: np.ndarray) -> np.ndarray:
    """lnk of the empty board (see `_link`): every hex's empty node steps to its neighbours'."""
    nh = nbr.shape[0]
    lnk = np.full(nh * 12, -1, np.int64)
    for h in range(nh):
        for s in range(6):
            if nbr[h, s] >= 0:
                lnk[h * 12 + s] = (int(nbr[h, s]) * 2) << 1 | 1
    return lnk


@hot
def _find(par, x):
    while par[x] != x:
        par[x] = par[par[x]]
        x = par[x]
    return x


@hot_inline
def _or_pass(out, k, pass_move):
    """The end of every mode's legal_moves: the k moves listed in out, or the pass alone when
    there are none (a seat with no legal placement passes)."""
    if k == 0:
        out[0] = pass_move
        return 1
    return k


@hot_inline  # a leaf called per node and side: no call cost
def _link(u, s, nbr, ttype, emask, netid):
    """The step from node u (an empty hex, or a network with a line end on side s) across side s
    of its hex: (v << 1) | w for node v at cost w (1: an empty hex to fill, 0: a line joined),
    -1 when no line can cross there."""
    h = u >> 1
    n = nbr[h, s]
    if n < 0:
        return -1
    if ttype[n] < 0:
        return (n * 2) << 1 | 1
    o = (s + 3) % 6
    if (emask[n] >> o) & 1:
        return (n * 2 + netid[n * 6 + o]) << 1
    return -1


@hot_inline
def _relink_hex(h, q, tz, towner, nbr, ttype, emask, netid, netm, lnk):
    """Keep a link table (lnk[u * 6 + s] = the step of node u across side s) after the tile on
    hex h changed (placed, or replaced by a displacement): h's own nodes step across the sides
    their lines cover (none elsewhere), and each neighbour's node facing h steps again. Steps come
    from `_link`; for q >= 0 (Battle's seat q) a step onto a tile the transit rule keeps q off
    (not q's, and tz[q, hex] == 0) is -1; for q < 0 every tile may be used (tz and towner unread)."""
    for j in range(2):
        u = h * 2 + j
        m = netm[u]
        for s in range(6):
            lnk[u * 6 + s] = _step_of(q, u, s, tz, towner, nbr, ttype, emask, netid) if (m >> s) & 1 else -1
    for s in range(6):
        n = nbr[h, s]
        if n < 0:
            continue
        o = (s + 3) % 6
        if ttype[n] < 0:
            u = n * 2
        elif (emask[n] >> o) & 1:
            u = n * 2 + netid[n * 6 + o]
        else:
            continue
        lnk[u * 6 + o] = _step_of(q, u, o, tz, towner, nbr, ttype, emask, netid)


@hot_inline
def _step_of(q, u, s, tz, towner, nbr, ttype, emask, netid):
    """`_link`, and for q >= 0 the transit rule: -1 onto a tile of another seat where tz[q] is 0."""
    e = _link(u, s, nbr, ttype, emask, netid)
    if q >= 0 and e >= 0 and (e & 1) == 0:
        n = e >> 2
        if towner[n] != q and tz[q, n] == 0:
            return -1
    return e


@hot_inline
def _result_start(res, winner, reason, capped):
    """The opening of Race's and Battle's `result`: the row zeroed, and the (winner, end reason)
    the result starts from: the position's, or a draw by the turn cap."""
    for c in range(res.shape[0]):
        res[c] = 0
    if capped:
        return np.int64(-1), np.int64(E_TURN_CAP)
    return winner, reason


# tz and towner of a link table without the transit rule (_relink_hex with q < 0 reads neither)
NO_TZ = np.zeros((1, 1), np.int64)
NO_OWNER = np.zeros(1, np.int64)

@kernel
def sets_size(nh):
    """Length of the int64 table _sets fills for a board of nh hexes."""
    return nh * 19 + 3


@entry
def _side_order(corners, nbr, dist, order):
    """order[q, h*6 : h*6 + 6]: the sides of hex h with a neighbour, the one nearest to seat q's
    second corner last (ties: higher side last), then -1s; _way pushes them in this order."""
    nh = nbr.shape[0]
    for q in range(2):
        dst = corners[q, 1]
        for h in range(nh):
            k = 0
            for s in range(6):
                n = nbr[h, s]
                if n >= 0:
                    dv = dist[n, dst]
                    i = k
                    while i > 0 and dist[nbr[h, order[q, h * 6 + i - 1]], dst] < dv:
                        order[q, h * 6 + i] = order[q, h * 6 + i - 1]
                        i -= 1
                    order[q, h * 6 + i] = s
                    k += 1
            for i in range(k, 6):
                order[q, h * 6 + i] = -1


@hot_inline
def _witness_of(v, pn, ps, ttype, wreq, wpath):
    """Store the way a search found, ending at node v (pn[x]: the node before x, -1 at the start;
    ps[x]: the side stepped over into x): wreq[h] = the sides by which it enters and leaves each
    empty hex h on it (one side at either end), wpath[:n] those hexes. Returns n (0: v = -1, no
    way). Race's witness (race._new_witness) and Tri-Board's (tri_engine._reach_goal)."""
    n = 0
    out = 0
    while v >= 0:
        h = v >> 1
        u = pn[v]
        if ttype[h] < 0:
            wreq[h] = out | (1 << (ps[v] + 3) % 6 if u >= 0 else 0)
            wpath[n] = h
            n += 1
        out = 1 << ps[v] if u >= 0 else 0
        v = u
    return n


@hot_inline
def _broken_ways(wreq, blocked, netm, h):
    """The blocking rule's first half after a tile landed on hex h: the bit mask of the seats q
    not cut off yet (blocked[q] == 0) whose witness way the tile breaks. wreq[q, h] holds the
    sides q's way uses on h (0: h is off it); the way survives when one network of the tile
    carries all of them (that hex leaves the way: wreq[q, h] = 0). A seat in the mask has its way
    searched again by its mode (race._new_witness, tri_engine._reach_goal_of)."""
    broken = np.int64(0)
    for q in range(wreq.shape[0]):
        req = wreq[q, h]
        if blocked[q] or req == 0:
            continue
        if (netm[h * 2] & req) == req or (netm[h * 2 + 1] & req) == req:
            wreq[q, h] = 0
        else:
            broken |= 1 << q
    return broken


@hot_inline
def _blocked_end(newly, cur, ns, tile, block_tile_only):
    """The blocking rule's verdict (Race and tri2p): (end reason, winners' bit mask) after seat
    cur's `tile` cut off the seats of the bit mask `newly` (of ns seats), or (-1, 0) when the game
    goes on (nobody newly cut off, or block_win_trigger = "block_tile" and the tile is no Block).
    Both the mover and another seat cut off: both_blocked (no winner here: the stalemate rule
    decides); another seat: blocked, the mover wins; the mover alone: self_blocked, every other
    seat wins."""
    reason = np.int64(-1)
    wins = np.int64(0)
    if newly != 0 and (not block_tile_only or tile == BLOCK):
        others = newly & ~(1 << cur)
        if (newly >> cur) & 1 and others != 0:
            reason = np.int64(E_BOTH_BLOCKED)
        elif others != 0:
            reason = np.int64(E_BLOCKED)
            wins = np.int64(1) << cur
        else:
            reason = np.int64(E_SELF_BLOCKED)
            wins = ((np.int64(1) << ns) - 1) & ~(np.int64(1) << cur)
    return reason, wins


# Reference counting: numba counts a reference to every array argument of a call on entry and
# drops it on exit (two atomic calls per array), unless its pruning pass can pair them up, which
# it cannot across a call to another compiled function or a `break` / inner `return` of a loop.
# The random bot's hot path (~20 moves and ~80 legality tests a game) is therefore written with
# plain-value helpers, no calls and a single exit: this alone was ~20% of a random game.


@hot_inline
def _hex_open(empty, first, at_corner, adj_h):
    """The hex's part of the placement rule: an empty hex, on one of the seat's corners for its
    first tile (at_corner), next to a tile (adj_h occupied neighbours) for every later one."""
    return empty and (at_corner if first else adj_h != 0)


@hot_inline
def _tile_fits(first, em, need_h, is_block, block_connected):
    """The tile's part of the placement rule, the Block rule among it: a Block (no lines) fits an
    open hex unless block_placement = "connected" (then never); any other tile fits the seat's
    first hex, and later a hex where one of its line ends (sides em) meets a neighbour's line end
    (need_h: the sides of the hex where one ends). Every mode's test: Race's and Tri's through
    `_fits`, `_legal_set`, tri_engine's option counts, Battle's move generators and displacers."""
    return (not block_connected) if is_block else (first or (em & need_h) != 0)


@hot_inline
def _fits(empty, first, at_corner, adj_h, need_h, em, is_block, block_connected):
    """The placement rule on plain values (no arrays, so nothing to count): the hex open to the
    seat (`_hex_open`) and the tile fitting it (`_tile_fits`). The one test of Race's legal moves
    and bots and of Tri's `_legal`; the modes add only their reserved corners (race._reserved,
    tri_engine's corner_owner)."""
    ok = False
    if _hex_open(empty, first, at_corner, adj_h):
        ok = _tile_fits(first, em, need_h, is_block, block_connected)
    return ok


@hot
def _legal(p, h, t, r, placed_any, corners, ttype, adj, need, emask_t, block_connected):
    return _fits(ttype[h] < 0, placed_any[p] == 0, h == corners[p, 0] or h == corners[p, 1],
                 adj[h], need[h], emask_t[t, r], t == BLOCK, block_connected)


@hot_inline  # the tile-writing part of _place and of _through_cut
def _write_tile(h, t, r, net_mask, emask_t, ttype, emask, netm, netid, par):
    """Write tile (t, r) on hex h: its type, side mask and networks, each network its own
    union-find set in par. Returns the side mask."""
    ttype[h] = t
    em = emask_t[t, r]
    emask[h] = em
    for j in range(2):
        m = net_mask[t, r, j]
        netm[h * 2 + j] = m
        par[h * 2 + j] = h * 2 + j
        for s in range(6):
            if (m >> s) & 1:
                netid[h * 6 + s] = j
    return em


@hot
def _place(t, pos, p, h, tile, r):
    """Put tile (tile, r) of seat p on empty hex h of a layout.Position (Race's or Tri-Board's:
    numba compiles it per position type): the tile's rows, the frontier (st[NFRONT]), the
    neighbours' adjacency and open line ends, and the union of the lines it joins."""
    hx = pos.hx
    ttype = hx[H_TTYPE]
    emask = hx[H_EMASK]
    netid = pos.netid
    par = pos.nets[1]
    em = _write_tile(h, tile, r, t.net_mask, t.emask_t, ttype, emask, pos.nets[0], netid, par)
    hx[H_TROT, h] = r
    hx[H_TOWNER, h] = p
    pos.st[NFRONT] = _frontier_take(h, t.nbr, ttype, hx[H_FRONT], hx[H_FPOS], pos.st[NFRONT])
    for s in range(6):
        n = t.nbr[h, s]
        if n < 0:
            continue
        o = (s + 3) % 6
        if ttype[n] < 0:
            hx[H_ADJ, n] += 1
            if (em >> s) & 1:
                hx[H_NEED, n] |= 1 << o
        elif (em >> s) & 1 and (emask[n] >> o) & 1:
            a = _find(par, h * 2 + netid[h * 6 + s])
            b = _find(par, n * 2 + netid[n * 6 + o])
            if a != b:
                par[a] = b


@hot_inline
def _connected(c1, c2, ttype, netm, par):
    """Do placed lines join corner hex c1 to corner hex c2? (An empty hex or a Block has no
    network: netm is 0. One flat loop and one exit: see _fits.)"""
    joined = False
    for x in range(4):
        a = c1 * 2 + (x >> 1)
        b = c2 * 2 + (x & 1)
        if netm[a] != 0 and netm[b] != 0 and _find(par, a) == _find(par, b):
            joined = True
    return joined


@hot
def _best_path(t, pos, c1, c2, mult, stack_n, stack_s, on, hexcnt, best_nodes):
    """Best-scoring simple path of placed lines of a layout.Position from corner c1 to corner c2
    (depth-first search over networks, pruned by the dots still reachable). Score = sum of
    multipliers of the distinct hexes on it; ties go to the shorter path. Returns (score, length,
    n_nodes in best_nodes). stack_n, stack_s: int64[nn + 1]; on: int64[nn]; hexcnt: int64[nh]
    (both all 0 on entry and on return)."""
    ttype = pos.hx[H_TTYPE]
    emask = pos.hx[H_EMASK]
    netid = pos.netid
    netm = pos.nets[0]
    par = pos.nets[1]
    nn = netm.shape[0]
    for i in range(nn):
        on[i] = 0
    for h in range(hexcnt.shape[0]):
        hexcnt[h] = 0
    # the dots of every hex the corner's lines reach bound what any path can collect
    total = 0
    root0 = _find(par, c1 * 2) if netm[c1 * 2] != 0 else -1
    root1 = _find(par, c1 * 2 + 1) if netm[c1 * 2 + 1] != 0 else -1
    for h in range(hexcnt.shape[0]):
        if ttype[h] >= 0:
            for j in range(2):
                if netm[h * 2 + j] != 0:
                    r = _find(par, h * 2 + j)
                    if r == root0 or r == root1:
                        total += mult[h]
                        break
    best_score = -1
    best_len = INF
    best_n = 0
    budget = 200000
    for j0 in range(2):
        if netm[c1 * 2 + j0] == 0:
            continue
        depth = 0
        stack_n[0] = c1 * 2 + j0
        stack_s[0] = 0
        on[c1 * 2 + j0] = 1
        hexcnt[c1] += 1
        score = mult[c1]
        nhex = 1
        while depth >= 0:
            budget -= 1
            if budget < 0:
                break
            u = stack_n[depth]
            h = u >> 1
            if h == c2:
                if score > best_score or (score == best_score and nhex < best_len):
                    best_score = score
                    best_len = nhex
                    best_n = depth + 1
                    for k in range(depth + 1):
                        best_nodes[k] = stack_n[k]
                s = 6
            else:
                s = stack_s[depth]
            advanced = False
            while s < 6:
                m = netm[u]
                e = _link(u, s, t.nbr, ttype, emask, netid) if (m >> s) & 1 else -1
                if e >= 0 and (e & 1) == 0:  # a placed line joins across s
                    n = e >> 2
                    v = e >> 1
                    if on[v] == 0:
                        if total > best_score or (total == best_score and nhex + 1 < best_len):
                            stack_s[depth] = s + 1
                            depth += 1
                            stack_n[depth] = v
                            stack_s[depth] = 0
                            on[v] = 1
                            if hexcnt[n] == 0:
                                nhex += 1
                                score += mult[n]
                            hexcnt[n] += 1
                            advanced = True
                            break
                s += 1
            if not advanced:
                # pop u
                on[u] = 0
                hexcnt[h] -= 1
                if hexcnt[h] == 0:
                    nhex -= 1
                    score -= mult[h]
                depth -= 1
        # clean up after a budget stop
        for i in range(nn):
            on[i] = 0
        for hh in range(hexcnt.shape[0]):
            hexcnt[hh] = 0
    return best_score, best_len, best_n


@hot
def _reaches(corners, dist, ttype, netm, par, roots, out):
    """Stalemate measure for both seats: out[p] = smallest hex distance from the lines joined to
    one of p's corners to p's other corner (INF if p holds lines on neither corner)."""
    nh = ttype.shape[0]
    for q in range(2):  # roots[seat, corner, network] of the lines on each corner
        out[q] = INF
        for k in range(2):
            roots[q, k, 0] = -2
            roots[q, k, 1] = -2
            c = corners[q, k]
            if ttype[c] >= 0:
                for j in range(2):
                    if netm[c * 2 + j] != 0:
                        roots[q, k, j] = _find(par, c * 2 + j)
    for h in range(nh):
        if ttype[h] < 0:
            continue
        for i in range(2):
            if netm[h * 2 + i] == 0:
                continue
            r = _find(par, h * 2 + i)
            for q in range(2):
                for k in range(2):
                    if r == roots[q, k, 0] or r == roots[q, k, 1]:
                        d = dist[h, corners[q, 1 - k]]
                        if d < out[q]:
                            out[q] = d


@hot_inline
def _first_of_kind(hand, p, k):
    """Whether slot k of seat p's hand holds a tile no earlier slot holds (the first of its kind:
    a move generator lists each kind of tile in hand once)."""
    t = hand[p, k]
    if t < 0:
        return False
    for k2 in range(k):
        if hand[p, k2] == t:
            return False
    return True


@hot
def _hand_pairs(p, hand, n_orient, rot_of, pt, pr):
    """Distinct (type, rotation) pairs seat p could play from its hand; returns how many."""
    n = 0
    for k in range(hand.shape[1]):
        if not _first_of_kind(hand, p, k):
            continue
        t = hand[p, k]
        for o in range(n_orient[t]):
            pt[n] = t
            pr[n] = rot_of[t, o]
            n += 1
    return n


@hot
def _candidates(p, placed_any, corners, ttype, front, nfront, cand):
    """Hexes seat p may try: its empty corners before its first tile (written to cand), else the
    frontier itself. Returns (array, count)."""
    if placed_any[p] == 0:
        n = 0
        for k in range(2):
            c = corners[p, k]
            if ttype[c] < 0:
                cand[n] = c
                n += 1
        return cand, n
    return front, nfront


@hot
def path_dots(nodes, npath, mult, dots):
    """(dotted hexes, dots) on a completed path: nodes[:npath] are hex * 2 + side, a hex counted
    once however often the path passes it, and only where its dots multiply (mult > 0)."""
    ndh = 0
    nd = 0
    for k in range(npath):
        hh = nodes[k] >> 1
        dup = False
        for k2 in range(k):
            if nodes[k2] >> 1 == hh:
                dup = True
        if not dup and mult[hh] > 0:
            ndh += 1
            nd += dots[hh]
    return ndh, nd

# ---- shared by the modes on the engine interface (battle_engine.py) ---------------------------
@hot_inline
def _frontier_take(h, nbr, ttype, front, fpos, nfront):
    """Hex h was just filled: it leaves the frontier (front[:nfront], fpos[x] = place of x, -1
    absent) and its empty neighbours join it, in side order; returns the new frontier size
    (_place's, and Battle's, which writes tiles on its own)."""
    if fpos[h] >= 0:
        last = front[nfront - 1]
        front[fpos[h]] = last
        fpos[last] = fpos[h]
        fpos[h] = -1
        nfront -= 1
    for s in range(6):
        n = nbr[h, s]
        if n >= 0 and ttype[n] < 0 and fpos[n] < 0:
            fpos[n] = nfront
            front[nfront] = n
            nfront += 1
    return nfront


@hot_inline
def _refill(q, tile, hand, bag, bagn):
    """Seat q played `tile` (the hand tile: tri's Wildcard is WILD): the first hand slot holding
    it takes the top of q's bag (bag[q, :bagn[q]]), -1 once the bag is empty. The hand refill of
    every mode (Race's, Battle's and the Tri modes' `apply`)."""
    for k in range(hand.shape[1]):
        if hand[q, k] == tile:
            if bagn[q] > 0:
                bagn[q] -= 1
                hand[q, k] = bag[q, bagn[q]]
            else:
                hand[q, k] = -1
            return


@hot_inline
def _holds_tiles(hand, q):
    """Whether seat q has a tile in hand."""
    for k in range(hand.shape[1]):
        if hand[q, k] >= 0:
            return True
    return False
