"""HEXFLOW Race's rules on the engine interface (sim/engine/drivers.py): tables, position and the
rule functions (set-up, legal moves, apply, the blocking rule, result, sample_hidden), `winner`
and `reset` (the chunk driver's position, set up in place for each game). The bots, greedy's
`evaluate`, `bot_move`, `rollout` and the registration with the engine are in race_bots.py. They
play exactly the games of the first Race chunk kernel (the same draws in the same order, the same
incremental structures: kernel.py's board helpers, called on the position's rows).

The Race board (85 hexes; hex index = column by column, top to bottom, see board.py):

      b1=9       d1=28      f1=47      h1=66
 a1=0       c1=19      e1=38      g1=57      i1=76     a1: B's first corner, i1: A's second
      b2=10      d2=29      f2=48      h2=67
 a2=1       c2=20      e2=39      g2=58      i2=77
      ...        ...        ...        ...
 a9=8       c9=27      e9=46      g9=65      i9=84     a9: A's first corner, i9: B's second
      b10=18     d10=37     f10=56     h10=75

Sides of a hex: 0 T, 1 TR, 2 BR, 3 B, 4 BL, 5 TL (nbr[h, s] = the neighbour across side s).
Per hex h the position keeps (kernel.py's docstring has the full story): ttype, trot, towner,
emask; netid[h*6 + s] and netm[h*2 + j] for the tile's line networks; par, the union-find over
networks; adj, need and the frontier (front[:nfront], fpos) for the placement rule; each seat's
witness way (wreq, wpath, wlen) for the blocking rule.

A move is one int64: a placement of tile type t in rotation r on hex h is
`(h * n_types + t) * 6 + r`; `pass_move` (= nh * n_types * 6) is the pass, the only legal
move of a seat with no legal placement.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from sim import engine
from sim.engine.jit import entry, hot, hot_inline, kernel
from sim.engine.rng import below, shuffle

from . import kernel as K
from . import rules as R
from .board import DEFAULT_DOTS, board_of, corners_of, non_corner_hexes
from .layout import (  # noqa: F401  (re-exported: game.py and the tests read race.H_* ...)
    CONSEC,
    CUR,
    FIRST,
    H_ADJ,
    H_DOTS,
    H_EMASK,
    H_FPOS,
    H_FRONT,
    H_MULT,
    H_NEED,
    H_TOWNER,
    H_TROT,
    H_TTYPE,
    NFRONT,
    Q_BAGN,
    Q_BLOCKED,
    Q_PLACED,
    REASON,
    TURN,
    W_SEEN,
    W_STACK,
    W_STAMP,
    Position,
)
from .tiles import orientation_tables

# position.st fields (layout.py's CUR, TURN, CONSEC, REASON, FIRST, NFRONT among them; then two
# counters per seat per tile type from ST_TILES)
WINNER, PATH_OWNER = 3, 5
PASS_A, PASS_B, BLOCKS_A, BLOCKS_B, ST_TILES = range(8, 13)
# greedy's completion costs are capped at this many hexes when compared (_pair_score)
COST_CAP = 60


class Tables(NamedTuple):
    n_seats: np.int64
    max_moves: np.int64
    turn_cap: np.int64  # max_turns: a capped game is a draw (turn_cap)
    res_width: np.int64
    nh: np.int64  # hexes
    n_types: np.int64
    pass_move: np.int64
    hand_size: np.int64  # the larger seat's hand: the width of position.hand (hand_of per seat)
    block_connected: np.bool_  # rules.block_placement == "connected"
    blocked_loses: np.bool_  # rules.blocked_player_loses
    block_tile_only: np.bool_  # rules.block_win_trigger == "block_tile"
    stalemate_closest: np.bool_  # rules.stalemate_rule == "closest"
    no_move_loses: np.bool_  # rules.no_move == "lose"
    first: np.int64  # rules.first_player: kernel.FIRST_RANDOM / FIRST_A / FIRST_B
    dots_random: np.bool_  # rules.dots == "random"
    eval_block_weight: np.float64  # greedy's default block_weight, for `evaluate`
    corners: np.ndarray  # int64[2, 2]: each seat's two corner hexes
    nbr: np.ndarray  # int64[nh, 6], -1 off the board
    dist: np.ndarray  # int64[nh, nh]: hex distance
    n_orient: np.ndarray  # int64[n_types]: distinct rotations of each type
    rot_of: np.ndarray  # int64[n_types, 6]: those rotations
    net_mask: np.ndarray  # int64[n_types, 6, 2]: side mask of each network of (type, rotation)
    emask_t: np.ndarray  # int64[n_types, 6]: sides carrying a line of (type, rotation)
    tileset: np.ndarray  # int64[2, tiles]: each seat's tiles before the shuffle (rules.tile_sets)
    nbag: np.ndarray  # int64[2]: how many tiles each seat has (its row of tileset, -1 after)
    tile_count: np.ndarray  # int64[2, n_types]: how many of each type each seat's set holds
    dots_fixed: np.ndarray  # int64[nh]: the fixed dot layout
    dot_pool: np.ndarray  # int64[13]: the dots laid at random with dots = "random"
    free_hexes: np.ndarray  # int64[nh - 4]: the hexes random dots may land on
    order: np.ndarray  # int64[2, nh * 6]: kernel._side_order, for the witness search
    wit0: np.ndarray  # int64[2, 2, nh]: the empty board's witness ways (wreq, wpath)
    wlen0: np.ndarray  # int64[2]: their lengths
    hand_of: np.ndarray  # int64[2]: each seat's hand size (rules.hand_size, per seat)
    dot_mult: np.ndarray  # int64[6]: path multiplier by dots (rules.dot_multipliers)
    base_score: np.int64  # rules.base_score
    reserve_corners: np.bool_  # rules.opponent_corners == "reserved"
    first_onto: np.bool_  # rules.first_tile == "onto_board"
    onboard: np.ndarray  # int64[nh]: the sides of each hex that face a hex of the board


# rows of position.sq and .work beyond the shared ones (layout.py)
Q_WLEN = 3
W_PN, W_PS = 3, 4


def build_tables(rules: dict[str, Any]) -> Tables:
    """The Race tables of a resolved rule set: rules.Tables' arrays (the old kernel's) on the board
    of board_columns, with the per-seat tile sets and hand sizes and the score tables."""
    seats = ["A", "B"]
    cols = rules["board_columns"]
    board = board_of(cols)
    corners = corners_of(cols)
    nbr = board.nbr.astype(np.int64)
    dist = board.dist.astype(np.int64)
    n_orient, rot_of, net_mask = (a.astype(np.int64) for a in orientation_tables())
    emask = (net_mask[:, :, 0] | net_mask[:, :, 1]).astype(np.int64)
    nh = nbr.shape[0]
    n_types = n_orient.shape[0]
    hand_of = np.array(R.hand_sizes(rules, seats), np.int64)
    hs = int(hand_of.max())
    tileset, nbag = R.tile_sets(rules, seats)
    order = np.zeros((2, nh * 6), np.int64)
    wit0 = np.zeros((2, 2, nh), np.int64)
    wlen0 = np.zeros(2, np.int64)
    if rules["blocked_player_loses"]:  # the witness search's side order, once per rule set
        K._side_order(corners, nbr, dist, order)
    greedy = next(b for b in R.BOTS if b.code == K.BOT_GREEDY)
    onboard = np.array([sum(1 << s for s in range(6) if nbr[h, s] >= 0) for h in range(nh)], np.int64)
    t = Tables(
        np.int64(2), np.int64(nh * hs * 6 + 1), np.int64(rules["max_turns"]), np.int64(R.N_OUT),
        np.int64(nh), np.int64(n_types), np.int64(nh * n_types * 6), np.int64(hs),
        np.bool_(rules["block_placement"] == "connected"), np.bool_(rules["blocked_player_loses"]),
        np.bool_(rules["block_win_trigger"] == "block_tile"), np.bool_(rules["stalemate_rule"] == "closest"),
        np.bool_(rules["no_move"] == "lose"), np.int64(("random", "A", "B").index(rules["first_player"])),
        np.bool_(rules["dots"] == "random"), np.float64(greedy.params[0].default),
        corners, nbr, dist, n_orient, rot_of, net_mask, emask, tileset, nbag,
        R.tile_counts(rules, seats), R.dots_for(rules), np.array([d for _, d in DEFAULT_DOTS], dtype=np.int64),
        non_corner_hexes(cols), order, wit0, wlen0, hand_of, R.dot_multiplier_table(rules),
        np.int64(rules["base_score"]), np.bool_(rules["opponent_corners"] == "reserved"),
        np.bool_(rules["first_tile"] == "onto_board"), onboard)
    if rules["blocked_player_loses"]:
        _empty_witnesses(t)  # the empty board's ways, into t.wit0 and t.wlen0
    return t


tables = engine.per_rules(build_tables)


@entry
def _empty_witnesses(t):
    """The empty board's witness ways into t.wit0 and t.wlen0 (built zero; once per rule set)."""
    pos = _blank_position(t)
    for q in range(2):
        _new_witness(t, pos, q)
    for q in range(2):  # element by element: docs/writing-a-game.md, "Compile time"
        t.wlen0[q] = pos.sq[Q_WLEN, q]
        for k in range(2):
            for h in range(t.nh):
                t.wit0[q, k, h] = pos.wit[q, k, h]


# ---- moves ----------------------------------------------------------------------------------
@hot_inline
def encode(t, h, tile, r):
    return (h * t.n_types + tile) * 6 + r


@hot_inline
def decode(t, move):
    """(hex, tile type, rotation) of a placement code."""
    return move // (t.n_types * 6), (move // 6) % t.n_types, move % 6


# ---- the rule functions ---------------------------------------------------------------------
@kernel
def _blank_position(t):
    """An empty board before set-up (every array of a Position allocated here)."""
    nh = t.nh
    nn = nh * 2
    st = np.zeros(ST_TILES + 2 * t.n_types, np.int64)
    st[WINNER] = -1
    st[REASON] = -1
    st[PATH_OWNER] = -1
    hx = np.zeros((10, nh), np.int64)
    for r in (H_TTYPE, H_TROT, H_TOWNER, H_FPOS):
        hx[r, :] = -1
    sq = np.zeros((4, 2), np.int64)
    for q in range(2):
        sq[Q_WLEN, q] = t.wlen0[q]
    nets = np.empty((2, nn), np.int64)
    for i in range(nn):
        nets[0, i] = 0
        nets[1, i] = i
    netid = np.empty(nh * 6, np.int64)
    netid[:] = -1
    pos = Position(hx, netid, nets, np.empty((2, t.tileset.shape[1]), np.int64),
                   np.empty((2, t.hand_size), np.int64), t.wit0.copy(), np.empty(0, np.int64), sq, st,
                   np.empty((5, max(nn * 7, K.sets_size(nh))), np.int64))
    pos.work[W_SEEN, :nn] = 0
    pos.work[W_STAMP, 0] = 0
    return pos


@kernel
def new_position(t, rng):
    pos = _blank_position(t)
    _set_up(t, pos, rng)
    return pos


@hot
def _set_up(t, pos, rng):
    """A game's set-up on an empty board (_blank_position, or _clear): coin flip, dots, then each
    seat's bag and hand, in the order of the first chunk kernel (so the same games)."""
    # random dots shuffle the free hexes in a work row (free_hexes is copied there first)
    set_up_two(t, pos, rng, pos.work[W_STACK, :t.free_hexes.shape[0]])


@hot_inline
def set_up_two(t, pos, rng, shuf):
    """The set-up of the two-seat modes (Race's _set_up and battle_engine._set_up), in this order:
    the first seat (coin flip, or t.first's fixed seat), the dots (random ones shuffled in the
    work row shuf), each seat's bag and hand (its own set and hand size: _deal)."""
    st = pos.st
    if t.first == K.FIRST_RANDOM:
        st[FIRST] = below(rng, np.int64(2))
    else:
        st[FIRST] = 0 if t.first == K.FIRST_A else 1
    st[CUR] = st[FIRST]
    K._lay_dots(rng, t.dots_random, t.free_hexes, t.dot_pool, t.dots_fixed, shuf, pos.hx[H_DOTS], pos.hx[H_MULT])
    for h in range(t.nh):  # the multipliers of dot_multipliers (the defaults: kernel._lay_dots')
        pos.hx[H_MULT][h] = t.dot_mult[pos.hx[H_DOTS][h]]
    for q in range(2):
        _deal(rng, q, t, pos)


@hot_inline
def empty_hex(hx, h):
    """Hex h's rows of an empty board (no tile, no adjacency, off the frontier): the one reset
    of a hex, for Race's and Tri-Board's in-place board clearing."""
    hx[H_TTYPE, h] = -1
    hx[H_TROT, h] = -1
    hx[H_TOWNER, h] = -1
    hx[H_EMASK, h] = 0
    hx[H_ADJ, h] = 0
    hx[H_NEED, h] = 0
    hx[H_FPOS, h] = -1


@hot
def _clear(t, pos):
    """Empty the board of a finished game in place for the next game of a chunk (`reset`): the
    hexes it filled and their neighbours, each seat's witness way back to the empty board's
    (t.wit0), the counters. The frontier row is read only below st[NFRONT] (0 again), the dots
    are laid and the bags and hands dealt afresh by `_set_up`, and the work rows carry nothing
    from one call to the next (see Position)."""
    hx = pos.hx
    netm = pos.nets[0]
    par = pos.nets[1]
    for h in range(t.nh):
        if hx[H_TTYPE, h] < 0:
            continue
        for s in range(6):
            pos.netid[h * 6 + s] = -1
            n = t.nbr[h, s]
            if n >= 0:
                hx[H_ADJ, n] = 0
                hx[H_NEED, n] = 0
                hx[H_FPOS, n] = -1
        for j in range(2):
            netm[h * 2 + j] = 0
            par[h * 2 + j] = h * 2 + j
        empty_hex(hx, h)
    wreq = pos.wit[0]
    wpath = pos.wit[1]
    for q in range(2):
        for i in range(pos.sq[Q_WLEN, q]):
            wreq[q, wpath[q, i]] = 0
        pos.sq[Q_WLEN, q] = t.wlen0[q]
        for i in range(t.wlen0[q]):
            h = t.wit0[1, q, i]
            wpath[q, i] = h
            wreq[q, h] = t.wit0[0, q, h]
        pos.sq[Q_PLACED, q] = 0
        pos.sq[Q_BLOCKED, q] = 0
    for k in range(pos.st.shape[0]):
        pos.st[k] = 0
    pos.st[WINNER] = -1
    pos.st[REASON] = -1
    pos.st[PATH_OWNER] = -1


@hot
def _deal(rng, q, t, pos):
    """kernel._deal for seat q's own tile set and hand size: the set shuffled into the bag
    (bag[q, :nbag[q]]), the opening hand drawn from its top, hand slots beyond the seat's hand
    size (or the bag) left empty (-1). The same draws as kernel._deal when the seats' sets and
    hands are alike."""
    n = t.nbag[q]
    for i in range(n):
        pos.bag[q, i] = t.tileset[q, i]
    for i in range(n, pos.bag.shape[1]):
        pos.bag[q, i] = -1
    shuffle(rng, pos.bag[q, :n])
    pos.sq[Q_BAGN][q] = n
    for k in range(t.hand_size):
        if k < t.hand_of[q] and pos.sq[Q_BAGN][q] > 0:
            pos.sq[Q_BAGN][q] -= 1
            pos.hand[q, k] = pos.bag[q, pos.sq[Q_BAGN][q]]
        else:
            pos.hand[q, k] = -1


@hot
def to_move(t, pos):
    return -1 if pos.st[REASON] >= 0 else pos.st[CUR]


@hot_inline
def _reserved(t, p, h):
    """opponent_corners = "reserved": is h one of the opponent's corners, which seat p may never
    fill? (Always false under "open", the default.)"""
    return t.reserve_corners and (h == t.corners[1 - p, 0] or h == t.corners[1 - p, 1])


@hot_inline
def _reading_allows(t, p, h, em, first):
    """The two Race readings beyond kernel._fits: with opponent_corners = "reserved" no tile on
    the opponent's corners (_reserved), with first_tile = "onto_board" a first tile only with a
    line end (sides em) facing a hex of the board. Both off (the defaults): always true."""
    ok = True
    if _reserved(t, p, h):
        ok = False
    if t.first_onto and first and (em & t.onboard[h]) == 0:
        ok = False
    return ok


@hot
def legal_moves(t, pos, out):
    """Every distinct legal (hex, type, rotation) of the seat to move; the pass alone if none."""
    if pos.st[REASON] >= 0:
        return 0
    p = pos.st[CUR]
    first = pos.sq[Q_PLACED][p] == 0
    c0 = t.corners[p, 0]
    c1 = t.corners[p, 1]
    ncand = 2 if first else pos.st[NFRONT]
    k = 0
    for slot in range(t.hand_size):
        tile = pos.hand[p, slot]
        fresh = tile >= 0
        for s2 in range(slot):
            if pos.hand[p, s2] == tile:
                fresh = False
        if not fresh:
            continue
        for o in range(t.n_orient[tile]):
            r = t.rot_of[tile, o]
            em = t.emask_t[tile, r]
            for c in range(ncand):
                h = (c0 if c == 0 else c1) if first else pos.hx[H_FRONT][c]
                if K._fits(pos.hx[H_TTYPE][h] < 0, first, h == c0 or h == c1, pos.hx[H_ADJ][h], pos.hx[H_NEED][h], em,
                           tile == K.BLOCK, t.block_connected) and _reading_allows(t, p, h, em, first):
                    out[k] = encode(t, h, tile, r)
                    k += 1
    return K._or_pass(out, k, t.pass_move)


@hot_inline
def pass_turn(t, pos, cur, stalemate):
    """The pass rule of the two-seat modes (Race, and Battle's battle_engine._pass): a seat
    holding tiles loses under no_move = "lose"; otherwise the pass is counted and the second in a
    row ends the game with end reason `stalemate` (the mode's stalemate rule)."""
    if K._holds_tiles(pos.hand, cur) and t.no_move_loses:
        pos.st[WINNER] = 1 - cur
        pos.st[REASON] = K.E_NO_MOVE
        return
    pos.st[PASS_A + cur] += 1
    pos.st[CONSEC] += 1
    if pos.st[CONSEC] >= 2:
        pos.st[REASON] = stalemate


@hot_inline
def _pass(t, pos, cur):
    """A pass (pass_turn), ended by the closest-network stalemate rule or a draw."""
    pass_turn(t, pos, cur, K.E_ST_CLOSEST if t.stalemate_closest else K.E_ST_DRAW)


@hot_inline
def _judge_blocked(t, pos, cur, h, tile):
    """The blocking rule after a placement on h: a seat whose witness way the tile breaks
    (kernel._broken_ways) has its way searched again (_new_witness); a seat with none is cut off,
    and kernel._blocked_end says how the game ends (block_win_trigger)."""
    broken = K._broken_ways(pos.wit[0], pos.sq[Q_BLOCKED], pos.nets[0], h)
    newly = np.int64(0)
    for q in range(2):
        if ((broken >> q) & 1) != 0 and not _new_witness(t, pos, q):
            pos.sq[Q_BLOCKED][q] = 1
            newly |= 1 << q
    reason, wins = K._blocked_end(newly, cur, np.int64(2), tile, t.block_tile_only)
    if reason >= 0:
        pos.st[REASON] = reason
        if wins != 0:
            pos.st[WINNER] = cur if (wins >> cur) & 1 else 1 - cur


@hot
def _way(t, pos, q):
    """Can a line still run from seat q's first corner to its second (through empty hexes and
    placed lines that fit)? Depth-first with the neighbour order precomputed (t.order,
    kernel._side_order: nearest to the goal popped first). Returns the node reached on the
    second corner (-1: none); the work rows pn/ps hold the way back. Which way it finds is free
    (any way is a witness); only whether one exists matters."""
    ttype = pos.hx[H_TTYPE]
    emask = pos.hx[H_EMASK]
    netm = pos.nets[0]
    order = t.order
    w = pos.work
    seen = w[W_SEEN]
    stack = w[W_STACK]
    pn = w[W_PN]
    ps = w[W_PS]
    src = t.corners[q, 0]
    dst = t.corners[q, 1]
    w[W_STAMP, 0] += 1
    st = w[W_STAMP, 0]
    top = 0
    for j in range(1 if ttype[src] < 0 else 2):
        u = src * 2 + j
        if ttype[src] < 0 or netm[u] != 0:
            stack[top] = u
            top += 1
            seen[u] = st
            pn[u] = -1
    found = -1
    while top > 0 and found < 0:
        top -= 1
        u = stack[top]
        h = u >> 1
        if h == dst:
            found = u
        m = 63 if ttype[h] < 0 else netm[u]
        i = 0
        s = order[q, h * 6]
        while i < 6 and s >= 0:  # the order lists only sides with a neighbour
            if (m >> s) & 1:
                e = K._link(u, s, t.nbr, ttype, emask, pos.netid)
                v = e >> 1 if e >= 0 else -1
                if v >= 0 and seen[v] != st:
                    seen[v] = st
                    pn[v] = u
                    ps[v] = s
                    stack[top] = v
                    top += 1
            i += 1
            s = order[q, h * 6 + i] if i < 6 else -1
    return found


@hot
def _new_witness(t, pos, q):
    """Search seat q's witness way anew (_way) and store it: wreq[q, h] = the sides by which it
    enters and leaves empty hex h (one side on a corner, 0 = not on it); wpath[q, :wlen[q]] lists
    those hexes, so only they are cleared again (pos.wit = wreq, wpath; wlen = sq[Q_WLEN]). A
    placement can only cut q off if it breaks the witness, so the search runs again only then.
    Returns False when q is cut off."""
    v = _way(t, pos, q)
    wreq = pos.wit[0]
    wpath = pos.wit[1]
    wlen = pos.sq[Q_WLEN]
    for i in range(wlen[q]):
        wreq[q, wpath[q, i]] = 0
    wlen[q] = K._witness_of(v, pos.work[W_PN], pos.work[W_PS], pos.hx[H_TTYPE], wreq[q], wpath[q])
    return v >= 0


@hot
def apply(t, pos, move, rng):
    """One decision of the seat to move; Race draws nothing here (a hand refills from the top
    of the seat's shuffled bag)."""
    cur = pos.st[CUR]
    other = 1 - cur
    pos.st[TURN] += 1
    if move == t.pass_move:
        _pass(t, pos, cur)
        pos.st[CUR] = other
        return
    pos.st[CONSEC] = 0
    h, tile, r = decode(t, move)
    K._place(t, pos, cur, h, tile, r)
    pos.sq[Q_PLACED][cur] = 1
    pos.st[ST_TILES + cur * t.n_types + tile] += 1
    if tile == K.BLOCK:
        pos.st[BLOCKS_A + cur] += 1
    K._refill(cur, tile, pos.hand, pos.bag, pos.sq[Q_BAGN])
    pos.st[CUR] = other
    if K._connected(t.corners[cur, 0], t.corners[cur, 1], pos.hx[H_TTYPE], pos.nets[0], pos.nets[1]):
        pos.st[WINNER] = cur
        pos.st[REASON] = K.E_PATH
        pos.st[PATH_OWNER] = cur
    elif K._connected(t.corners[other, 0], t.corners[other, 1], pos.hx[H_TTYPE], pos.nets[0], pos.nets[1]):
        pos.st[WINNER] = other
        pos.st[REASON] = K.E_OPP_PATH
        pos.st[PATH_OWNER] = other
    elif t.blocked_loses:
        _judge_blocked(t, pos, cur, h, tile)


@hot
def path_nodes(t, pos, nodes):
    """The scored path of the winner's joined corners: (score, hexes, n) with the path's network
    nodes in nodes[:n] (kernel._best_path, its search stacks in the work rows pn and ps);
    (-1, 0, 0) without a completed path."""
    q = pos.st[PATH_OWNER]
    if q < 0:
        return -1, 0, 0
    nh = t.nh
    nn = nh * 2
    pn = pos.work[W_PN]
    ps = pos.work[W_PS]
    return K._best_path(t, pos, t.corners[q, 0], t.corners[q, 1], pos.hx[H_MULT], pn[:nn + 1],
                        pn[nn + 1:2 * nn + 2], ps[:nn], ps[nn:nn + nh], nodes)


@hot
def _reach_winner(t, pos, reach):
    """The winner of a finished game as `result` declares it (-1: a draw): the seat that ended it,
    or under the stalemate rule (and both players cut off, with stalemate_rule = "closest") the
    seat whose lines reach closer to its far corner. reach[:2] receives both reaches
    (kernel._reaches; its corner roots in the work row stack, from offset 2)."""
    K._reaches(t.corners, t.dist, pos.hx[H_TTYPE], pos.nets[0], pos.nets[1],
               pos.work[W_STACK][2:10].reshape((2, 2, 2)), reach)
    winner = pos.st[WINNER]
    reason = pos.st[REASON]
    if reason == K.E_ST_CLOSEST or (reason == K.E_BOTH_BLOCKED and t.stalemate_closest):
        if reach[0] < reach[1]:
            winner = 0
        elif reach[1] < reach[0]:
            winner = 1
    return winner


@hot
def winner(t, pos, res):
    """`result`'s winner alone, for the search's playouts (res unused): the seat that ended the
    game, the reaches worked out only where the stalemate rule compares them."""
    reason = pos.st[REASON]
    if reason == K.E_ST_CLOSEST or (reason == K.E_BOTH_BLOCKED and t.stalemate_closest):
        return _reach_winner(t, pos, pos.work[W_STACK][:2])
    return pos.st[WINNER]


@hot
def result(t, pos, capped, res):
    """The resolution and score: the stalemate reach, the scored path, the tallies."""
    winner, reason = K._result_start(res, pos.st[WINNER], pos.st[REASON], capped)
    # work rows (their contents never carry from one call to the next, see Position): the
    # stalemate reach (_reach_winner), the scored path's nodes
    w = pos.work[W_STACK]
    reach = w[:2]
    by_reach = _reach_winner(t, pos, reach)
    if not capped:
        winner = by_reach
    res[K.O_DIST_A] = min(reach[0], 99)
    res[K.O_DIST_B] = min(reach[1], 99)
    if pos.st[PATH_OWNER] >= 0 and not capped:
        nodes = w[10:10 + t.nh * 2 + 1]
        sc, ln, npath = path_nodes(t, pos, nodes)
        res[K.O_COMPLETED] = 1
        res[K.O_PATH_LEN] = ln
        ndh, nd = K.path_dots(nodes, npath, pos.hx[H_MULT], pos.hx[H_DOTS])
        res[K.O_PATH_DOT_HEXES] = ndh
        res[K.O_PATH_DOTS] = nd
        res[K.O_SCORE_A + winner] = t.base_score * sc if sc > 0 else t.base_score
    elif winner >= 0:
        res[K.O_SCORE_A + winner] = t.base_score
    res[K.O_WINNER] = winner
    res[K.O_REASON] = reason
    res[K.O_TURNS] = pos.st[TURN]
    res[K.O_FIRST] = pos.st[FIRST]
    res[K.O_PASS_A] = pos.st[PASS_A]
    res[K.O_PASS_B] = pos.st[PASS_B]
    res[K.O_BLOCKS_A] = pos.st[BLOCKS_A]
    res[K.O_BLOCKS_B] = pos.st[BLOCKS_B]
    for i in range(2 * t.n_types):
        res[K.O_TILES + i] = pos.st[ST_TILES + i]


@kernel
def copy_position(t, pos):
    return Position(pos.hx.copy(), pos.netid.copy(), pos.nets.copy(), pos.bag.copy(), pos.hand.copy(),
                    pos.wit.copy(), pos.lnk, pos.sq.copy(), pos.st.copy(), pos.work)


@kernel
def _sorted_shuffle(rng, a):
    """Shuffle a into an order that depends only on its multiset and rng: sorted first, so the
    order it held (which the redrawing seat must not see) cannot leak into the draw."""
    for i in range(1, a.shape[0]):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x
    shuffle(rng, a)


@kernel
def sample_hidden(t, pos, seat, rng):
    """What `seat` cannot see: the order of its own bag, and every other seat's hand and bag. It knows
    the tile set, the board and its own hand, so its bag holds a known multiset (redrawn in a
    fresh order), and the opponent's hand and bag together hold the opponent's tiles not on the
    board (pooled, redrawn, and dealt back into the same hand slots and bag length: the counts are
    public). Each redraw starts from the sorted multiset, so the result depends on nothing the
    seat cannot see. What a pass reveals (the passer had no legal placement) is not conditioned
    on. Seat -1 (what nobody has seen): only the order of every seat's bag, hands kept."""
    if seat < 0:
        for o in range(t.n_seats):
            nb = pos.sq[Q_BAGN][o]
            bag = pos.bag[o, :nb].copy()
            _sorted_shuffle(rng, bag)
            for i in range(nb):
                pos.bag[o, i] = bag[i]
        return
    n = pos.sq[Q_BAGN][seat]
    own = pos.bag[seat, :n].copy()
    _sorted_shuffle(rng, own)
    for i in range(n):
        pos.bag[seat, i] = own[i]
    for o in range(t.n_seats):  # every other seat (Tri-Board's three too: tri_engine)
        if o == seat:
            continue
        nb = pos.sq[Q_BAGN][o]
        pool = np.empty(nb + t.hand_size, np.int64)
        for i in range(nb):
            pool[i] = pos.bag[o, i]
        k = nb
        for s in range(t.hand_size):
            if pos.hand[o, s] >= 0:
                pool[k] = pos.hand[o, s]
                k += 1
        pool = pool[:k].copy()
        _sorted_shuffle(rng, pool)
        for i in range(nb):
            pos.bag[o, i] = pool[i]
        k = nb
        for s in range(t.hand_size):
            if pos.hand[o, s] >= 0:
                pos.hand[o, s] = pool[k]
                k += 1


@hot
def reset(t, pos, rng, game_index):
    """The chunk driver's next game on a finished game's position (sim.engine.interface): the board
    emptied in place (`_clear`) and set up as new_position does, from the same draws."""
    _clear(t, pos)
    _set_up(t, pos, rng)
    return True
