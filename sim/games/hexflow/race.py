"""HEXFLOW Race on the engine interface (sim/engine.py): tables, position and the ten rule
functions, playing exactly the games of the Race chunk kernel (kernel.py: the same bots, the same
draws in the same order, the same incremental structures).

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
from numba import njit

from sim import engine
from sim.rng import below, shuffle

from . import kernel as K
from . import rules as R
from .board import DEFAULT_DOTS, board_of, corners_of, non_corner_hexes
from .tiles import orientation_tables

# position.st fields (then two counters per seat per tile type from ST_TILES)
CUR, TURN, CONSEC, WINNER, REASON, PATH_OWNER, FIRST, NFRONT, PASS_A, PASS_B, BLOCKS_A, \
    BLOCKS_B, ST_TILES = range(13)
# greedy's completion costs are capped at this many hexes when compared (kernel._greedy_move)
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


# rows of position.hx, .sq and .work
H_TTYPE, H_TROT, H_TOWNER, H_EMASK, H_ADJ, H_NEED, H_FRONT, H_FPOS, H_DOTS, H_MULT = range(10)
Q_BAGN, Q_PLACED, Q_BLOCKED, Q_WLEN = range(4)
W_SEEN, W_STAMP, W_STACK, W_PN, W_PS = range(5)


class Position(NamedTuple):
    """Few arrays, their rows named (every array of a NamedTuple costs a reference count at
    every call that passes it). Rows of hx, per hex h:
      ttype (tile type, -1 empty), trot (rotation), towner (seat that placed it), emask (sides
      carrying a line), adj (occupied neighbours of an empty hex), need (sides of an empty hex
      where a neighbour's line ends), front (the frontier: empty hexes next to a tile,
      front[:st[NFRONT]]), fpos (place of h in front, -1 absent), dots (this game's layout),
      mult (path multiplier)."""

    hx: np.ndarray  # int64[10, nh]: the H_* rows above
    netid: np.ndarray  # int64[nh * 6]: network (0 / 1) owning side s of the tile on h
    nets: np.ndarray  # int64[2, nh * 2]: netm (side mask of network j of the tile on h), par
    #                   (union-find over networks)
    bag: np.ndarray  # int64[2, tiles]: each seat's shuffled bag; bag[q, :bagn[q]] still to draw
    hand: np.ndarray  # int64[2, hand_size]: -1 = empty slot
    wit: np.ndarray  # int64[2, 2, nh]: wreq, wpath: each seat's witness way (kernel._new_witness)
    sq: np.ndarray  # int64[4, 2]: per seat bagn, placed_any, blocked (1 once cut off), wlen
    st: np.ndarray  # int64[ST_TILES + 2 * n_types]: the fields named above
    # the witness search's work rows (seen, stamp, stack, pn, ps): their contents never carry
    # from one call to the next (visit marks compare with a stamp that only grows), so copies
    # share them; the evaluation's hex sets and the result's searches use stack, pn and ps too
    work: np.ndarray  # int64[5, max(nh * 14, kernel.sets_size(nh))]


class Scratch(NamedTuple):
    """The bots' working arrays: random and greedy's (as kernel._play allocated them), then
    lookahead's two trial positions and its move list and values."""

    pt: np.ndarray
    pr: np.ndarray
    pe: np.ndarray
    cand: np.ndarray
    g: np.ndarray
    mv: np.ndarray
    maps: np.ndarray
    sd: np.ndarray
    pn: np.ndarray
    dq: np.ndarray
    arr: np.ndarray
    carr: np.ndarray
    crit: np.ndarray
    cnt: np.ndarray
    need_c: np.ndarray
    gx: np.ndarray
    p1: Position  # lookahead: the position after a move of its own,
    p2: Position  # and after a reply to it
    moves: np.ndarray  # int64[max_moves]: lookahead's legal moves,
    vals: np.ndarray  # float64[max_moves]: greedy's measure after each
    front: np.ndarray  # int64[nh]: the frontier without the opponent's corners (_frontier)


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
    if rules["blocked_player_loses"]:  # as kernel._play did once per chunk: the empty board's ways
        _empty_witnesses(corners, nbr, dist, order, wit0[0], wit0[1], wlen0)
    greedy = next(b for b in R.BOTS if b.code == K.BOT_GREEDY)
    onboard = np.array([sum(1 << s for s in range(6) if nbr[h, s] >= 0) for h in range(nh)], np.int64)
    return Tables(
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


tables = engine.per_rules(build_tables)


@njit(cache=True)
def _empty_witnesses(corners, nbr, dist, order, wreq0, wpath0, wlen0):
    nh = nbr.shape[0]
    nn = nh * 2
    ttype = np.full(nh, -1, np.int64)
    emask = np.zeros(nh, np.int64)
    netid = np.full(nh * 6, -1, np.int64)
    netm = np.zeros(nn, np.int64)
    K._side_order(corners, nbr, dist, order)
    seen = np.zeros(nn, np.int64)
    stamp = np.zeros(1, np.int64)
    stack = np.empty(nn * 7, np.int64)
    pn = np.empty(nn, np.int64)
    ps = np.empty(nn, np.int64)
    for q in range(2):
        K._new_witness(q, corners, order, nbr, ttype, emask, netid, netm, seen, stamp, stack, pn, ps,
                       wreq0, wpath0, wlen0)


# ---- moves ----------------------------------------------------------------------------------
@K.hot_inline
def encode(t, h, tile, r):
    return (h * t.n_types + tile) * 6 + r


@K.hot_inline
def decode(t, move):
    """(hex, tile type, rotation) of a placement code."""
    return move // (t.n_types * 6), (move // 6) % t.n_types, move % 6


# ---- the rule functions ---------------------------------------------------------------------
@njit(cache=True)
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
    sq[Q_WLEN, :] = t.wlen0
    nets = np.empty((2, nn), np.int64)
    for i in range(nn):
        nets[0, i] = 0
        nets[1, i] = i
    netid = np.empty(nh * 6, np.int64)
    netid[:] = -1
    pos = Position(hx, netid, nets, np.empty((2, t.tileset.shape[1]), np.int64),
                   np.empty((2, t.hand_size), np.int64), t.wit0.copy(), sq, st,
                   np.empty((5, max(nn * 7, K.sets_size(nh))), np.int64))
    pos.work[W_SEEN, :nn] = 0
    pos.work[W_STAMP, 0] = 0
    return pos


@njit(cache=True)
def new_position(t, rng):
    """Set-up in kernel._play's order: coin flip, dots, then each seat's bag and hand."""
    pos = _blank_position(t)
    st = pos.st
    if t.first == K.FIRST_RANDOM:
        st[FIRST] = below(rng, np.int64(2))
    else:
        st[FIRST] = 0 if t.first == K.FIRST_A else 1
    st[CUR] = st[FIRST]
    # random dots shuffle the free hexes in a work row (free_hexes is copied there first)
    shuf = pos.work[W_STACK, :t.free_hexes.shape[0]]
    K._lay_dots(rng, t.dots_random, t.free_hexes, t.dot_pool, t.dots_fixed, shuf, pos.hx[H_DOTS], pos.hx[H_MULT])
    for h in range(t.nh):  # the multipliers of dot_multipliers (the defaults: kernel._lay_dots')
        pos.hx[H_MULT][h] = t.dot_mult[pos.hx[H_DOTS][h]]
    for q in range(2):
        _deal(rng, q, t, pos)
    return pos


@njit(cache=True)
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


@K.hot
def to_move(t, pos):
    return -1 if pos.st[REASON] >= 0 else pos.st[CUR]


@K.hot_inline
def _reading_allows(t, p, h, em, first):
    """The two Race readings beyond kernel._fits: with opponent_corners = "reserved" no tile on
    the opponent's corners, with first_tile = "onto_board" a first tile only with a line end
    (sides em) facing a hex of the board. Both off (the defaults): always true."""
    ok = True
    if t.reserve_corners and (h == t.corners[1 - p, 0] or h == t.corners[1 - p, 1]):
        ok = False
    if t.first_onto and first and (em & t.onboard[h]) == 0:
        ok = False
    return ok


@K.hot
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


@K.hot_inline
def _pass(t, pos, cur):
    """kernel._play's pass: a loss under no_move = "lose" for a seat holding tiles, else counted;
    the second pass in a row ends the game by the stalemate rule."""
    has_tiles = False
    for k in range(t.hand_size):
        if pos.hand[cur, k] >= 0:
            has_tiles = True
    if has_tiles and t.no_move_loses:
        pos.st[WINNER] = 1 - cur
        pos.st[REASON] = K.E_NO_MOVE
        return
    pos.st[PASS_A + cur] += 1
    pos.st[CONSEC] += 1
    if pos.st[CONSEC] >= 2:
        pos.st[REASON] = K.E_ST_CLOSEST if t.stalemate_closest else K.E_ST_DRAW


@K.hot_inline
def _judge_blocked(t, pos, cur, h, tile):
    """The blocking rule after a placement on h: a seat whose witness way the tile breaks has its
    way searched again; a seat with none is cut off (ends the game by block_win_trigger)."""
    newly0 = False
    newly1 = False
    for q in range(2):
        if pos.sq[Q_BLOCKED][q]:
            continue
        req = pos.wit[0][q, h]  # does q's witness way survive this tile?
        if req == 0 or (pos.nets[0][h * 2] & req) == req or (pos.nets[0][h * 2 + 1] & req) == req:
            pos.wit[0][q, h] = 0
            continue
        w = pos.work
        if not K._new_witness(q, t.corners, t.order, t.nbr, pos.hx[H_TTYPE], pos.hx[H_EMASK], pos.netid,
                              pos.nets[0], w[W_SEEN], w[W_STAMP], w[W_STACK], w[W_PN], w[W_PS], pos.wit[0],
                              pos.wit[1], pos.sq[Q_WLEN]):
            pos.sq[Q_BLOCKED][q] = 1
            if q == 0:
                newly0 = True
            else:
                newly1 = True
    if not t.block_tile_only or tile == K.BLOCK:
        nb_cur = newly0 if cur == 0 else newly1
        nb_oth = newly1 if cur == 0 else newly0
        if nb_cur and nb_oth:
            pos.st[REASON] = K.E_BOTH_BLOCKED
        elif nb_oth:
            pos.st[WINNER] = cur
            pos.st[REASON] = K.E_BLOCKED
        elif nb_cur:
            pos.st[WINNER] = 1 - cur
            pos.st[REASON] = K.E_SELF_BLOCKED


@K.hot
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
    hx = pos.hx
    pos.st[NFRONT] = K._place(cur, h, tile, r, t.nbr, t.net_mask, t.emask_t, hx[H_TTYPE], hx[H_TROT],
                              hx[H_TOWNER], hx[H_EMASK], pos.netid, pos.nets[0], pos.nets[1], hx[H_ADJ],
                              hx[H_NEED], hx[H_FRONT], hx[H_FPOS], pos.st[NFRONT])
    pos.sq[Q_PLACED][cur] = 1
    pos.st[ST_TILES + cur * t.n_types + tile] += 1
    if tile == K.BLOCK:
        pos.st[BLOCKS_A + cur] += 1
    for k in range(t.hand_size):
        if pos.hand[cur, k] == tile:
            if pos.sq[Q_BAGN][cur] > 0:
                pos.sq[Q_BAGN][cur] -= 1
                pos.hand[cur, k] = pos.bag[cur, pos.sq[Q_BAGN][cur]]
            else:
                pos.hand[cur, k] = -1
            break
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


@njit(cache=True)
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
    return K._best_path(t.corners[q, 0], t.corners[q, 1], t.nbr, pos.hx[H_TTYPE], pos.hx[H_EMASK], pos.netid,
                        pos.nets[0], pos.nets[1], pos.hx[H_MULT], pn[:nn + 1], pn[nn + 1:2 * nn + 2], ps[:nn],
                        ps[nn:nn + nh], nodes)


@K.hot
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


@njit(cache=True)
def result(t, pos, capped, res):
    """kernel._play's resolution and score: the stalemate reach, the scored path, the tallies."""
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


@njit(cache=True)
def copy_position(t, pos):
    return Position(pos.hx.copy(), pos.netid.copy(), pos.nets.copy(), pos.bag.copy(), pos.hand.copy(),
                    pos.wit.copy(), pos.sq.copy(), pos.st.copy(), pos.work)


@njit(cache=True)
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


@njit(cache=True)
def sample_hidden(t, pos, seat, rng):
    """What `seat` cannot see: the order of its own bag, and every other seat's hand and bag. It knows
    the tile set, the board and its own hand, so its bag holds a known multiset (redrawn in a
    fresh order), and the opponent's hand and bag together hold the opponent's tiles not on the
    board (pooled, redrawn, and dealt back into the same hand slots and bag length: the counts are
    public). Each redraw starts from the sorted multiset, so the result depends on nothing the
    seat cannot see. What a pass reveals (the passer had no legal placement) is not conditioned
    on."""
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


@njit(cache=True)
def evaluate(t, pos, seat):
    """Greedy's measure of a position: block_weight (its default, 1.5) x the opponent's completion
    cost minus the seat's own (empty hexes still to fill on the cheapest way between the corners,
    each capped at 60 as greedy compares them); +-1e9 once the game is decided."""
    if pos.st[REASON] >= 0:
        w = pos.st[WINNER]
        return 0.0 if w < 0 else (1e9 if w == seat else -1e9)
    return _measure(t, pos, seat, t.eval_block_weight)


@K.hot
def _measure(t, pos, seat, w_block):
    """w_block x the opponent's completion cost - the seat's own, each capped at COST_CAP (a game
    in progress; the hex sets and the search's costs in the work rows stack and pn)."""
    g = pos.work[W_STACK][:K.sets_size(t.nh)]
    d = pos.work[W_PN][:t.nh * 2]
    K._sets(t.nbr, pos.hx[H_TTYPE], pos.nets[0], pos.nets[1], g)
    o = 1 - seat
    mine = K._bfs_sets(t.corners[seat, 0], t.corners[seat, 1], K.NO_HEX, g, d, K.STOP)
    theirs = K._bfs_sets(t.corners[o, 0], t.corners[o, 1], K.NO_HEX, g, d, K.STOP)
    return w_block * min(theirs, COST_CAP) - min(mine, COST_CAP)


@njit(cache=True)
def new_scratch(t):
    nh = t.nh
    nn = nh * 2
    hs = t.hand_size
    return Scratch(np.empty(hs * 6, np.int64), np.empty(hs * 6, np.int64), np.empty(hs * 6, np.int64),
                   np.empty(nh, np.int64), np.empty(K.sets_size(nh), np.int64),
                   np.empty(3, np.int64), np.empty((4, nn), np.int64), np.empty(nn, np.int64),
                   np.empty(nn, np.int64), np.empty(nn * 12 + 4, np.int64), np.empty((4, 6), np.int64),
                   np.empty((4, 6), np.int64), np.empty((2, nh), np.int64), np.empty(nh + 2, np.int64),
                   np.empty((2, nh), np.int64), np.empty((2, nh), np.int64), _blank_position(t), _blank_position(t),
                   np.empty(t.max_moves, np.int64), np.empty(t.max_moves, np.float64), np.empty(nh, np.int64))


@K.hot
def _frontier(t, pos, seat, s):
    """The hexes `seat` may try after its first tile: the frontier itself, or with
    opponent_corners = "reserved" a copy of it in scratch without the opponent's corners (the
    bots then never consider them). Returns (array, count)."""
    if not t.reserve_corners:
        return pos.hx[H_FRONT], pos.st[NFRONT]
    n = 0
    for i in range(pos.st[NFRONT]):
        h = pos.hx[H_FRONT][i]
        if h != t.corners[1 - seat, 0] and h != t.corners[1 - seat, 1]:
            s.front[n] = h
            n += 1
    return s.front, n


@K.hot
def _uniform_legal(t, pos, s, rng):
    """A legal move drawn uniformly from legal_moves (one draw): the bots' first tile under
    first_tile = "onto_board", which kernel's bots do not know."""
    k = legal_moves(t, pos, s.moves)
    return s.moves[below(rng, k)]


@K.hot
def _greedy(t, pos, seat, par, s, rng):
    """kernel._greedy_move on the position's arrays (par: block_weight, defense): its move code,
    the pass if it finds no legal placement. Under first_tile = "onto_board" a first tile greedy
    picks that the reading forbids (a Block, or lines only off the board: greedy scores every such
    tile a self cut-off, so it picks one only when every tile it holds is one) is replaced by a
    uniform legal move (often the pass)."""
    front, nfront = _frontier(t, pos, seat, s)
    ok = K._greedy_move(seat, rng, par[0], par[1], t.block_connected, t.blocked_loses, t.corners,
                        t.nbr, t.n_orient, t.rot_of, t.net_mask, t.emask_t, pos.hx[H_TTYPE], pos.hx[H_EMASK],
                        pos.netid, pos.nets[0], pos.nets[1], pos.hx[H_ADJ], pos.hx[H_NEED], front,
                        nfront, pos.sq[Q_PLACED], pos.hand, s.pt, s.pr, s.pe, s.cand, s.g, s.maps, s.sd,
                        s.pn, s.dq, s.arr, s.carr, s.crit, s.cnt, s.need_c, s.gx, s.mv)
    if t.first_onto and pos.sq[Q_PLACED][seat] == 0 and \
            (not ok or (t.emask_t[s.mv[1], s.mv[2]] & t.onboard[s.mv[0]]) == 0):
        return _uniform_legal(t, pos, s, rng)
    return encode(t, s.mv[0], s.mv[1], s.mv[2]) if ok else t.pass_move


# ---- lookahead: greedy that never hands the opponent an immediate win -----------------------
@K.hot_inline
def _copy_rows(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]


@K.hot
def _copy_into(a, b):
    """b := a, every array but the shared work rows (a position copy that allocates nothing)."""
    _copy_rows(a.hx, b.hx)
    for i in range(a.netid.shape[0]):
        b.netid[i] = a.netid[i]
    _copy_rows(a.nets, b.nets)
    _copy_rows(a.bag, b.bag)
    _copy_rows(a.hand, b.hand)
    _copy_rows(a.wit[0], b.wit[0])
    _copy_rows(a.wit[1], b.wit[1])
    _copy_rows(a.sq, b.sq)
    for i in range(a.st.shape[0]):
        b.st[i] = a.st[i]


@K.hot
def _holds(t, pos, q, tile, own):
    """May seat q place `tile` now, as the bot sees it: in its hand (own), or else among q's tiles
    not on the board (the opponent's hand and bag are hidden, their contents together are public)."""
    if own:
        for k in range(t.hand_size):
            if pos.hand[q, k] == tile:
                return True
        return False
    return t.tile_count[q, tile] > pos.st[ST_TILES + q * t.n_types + tile]


@K.hot
def _winning_move(t, pos, q, own, s, rng):
    """A placement with which q, to move, ends the game as its winner (`_reach_winner`), or -1.
    Tried only where one can: on a hex that finishes q's way when q's completion cost is one hex,
    and (blocked_player_loses) on a hex that every cheapest way of the opponent passes (a cut
    needs one); every tile q may hold (`_holds`) in every rotation that fits there, each played
    on the scratch position p2."""
    o = 1 - q
    ttype = pos.hx[H_TTYPE]
    g = s.g
    K._sets(t.nbr, ttype, pos.nets[0], pos.nets[1], g)
    cq0 = t.corners[q, 0]
    cq1 = t.corners[q, 1]
    dq = K._bfs_sets(cq0, cq1, K.NO_HEX, g, s.maps[0], K.FULL)
    K._bfs_sets(cq1, cq0, K.NO_HEX, g, s.maps[1], K.FULL)
    do = K._bfs_sets(t.corners[o, 0], t.corners[o, 1], K.NO_HEX, g, s.maps[2], K.FULL)
    K._bfs_sets(t.corners[o, 1], t.corners[o, 0], K.NO_HEX, g, s.maps[3], K.FULL)
    K._critical(s.maps[2], s.maps[3], do, t.nh, ttype, s.crit[1], s.cnt)
    first = pos.sq[Q_PLACED][q] == 0
    for c in range(2 if first else pos.st[NFRONT]):
        h = (cq0 if c == 0 else cq1) if first else pos.hx[H_FRONT][c]
        if ttype[h] >= 0:
            continue
        finish = dq == 1 and s.maps[0][h * 2] + s.maps[1][h * 2] - 1 == 1
        cut = t.blocked_loses and s.crit[1, h] == 1
        if not (finish or cut):
            continue
        for tile in range(t.n_types):
            if not _holds(t, pos, q, tile, own):
                continue
            for i in range(t.n_orient[tile]):
                r = t.rot_of[tile, i]
                if not (K._fits(True, first, h == cq0 or h == cq1, pos.hx[H_ADJ][h], pos.hx[H_NEED][h],
                                t.emask_t[tile, r], tile == K.BLOCK, t.block_connected)
                        and _reading_allows(t, q, h, t.emask_t[tile, r], first)):
                    continue
                m = encode(t, h, tile, r)
                _copy_into(pos, s.p2)
                apply(t, s.p2, m, rng)
                if s.p2.st[REASON] >= 0 and _reach_winner(t, s.p2, s.p2.work[W_STACK][:2]) == q:
                    return m
    return -1


@K.hot
def _safe(t, pos, seat, m, s, rng):
    """After move m (played on p1), the opponent has no winning reply (a game m ends is safe
    unless the opponent wins it)."""
    _copy_into(pos, s.p1)
    apply(t, s.p1, m, rng)
    if s.p1.st[REASON] >= 0:
        return _reach_winner(t, s.p1, s.p1.work[W_STACK][:2]) != 1 - seat
    return _winning_move(t, s.p1, 1 - seat, False, s, rng) < 0


@K.hot
def _lookahead(t, pos, seat, par, s, rng):
    """An immediate win if it has one; else greedy's move if the opponent has no winning reply
    to it; else, of the legal moves in decreasing order of greedy's measure of the position after
    them (`_measure` with this bot's block_weight; equal values in legal_moves' order), the first
    that leaves the opponent none; greedy's move if every move hands one over."""
    m = _winning_move(t, pos, seat, True, s, rng)
    if m >= 0:
        return m
    mg = _greedy(t, pos, seat, par, s, rng)
    if mg == t.pass_move or _safe(t, pos, seat, mg, s, rng):
        return mg
    k = legal_moves(t, pos, s.moves)
    for i in range(k):
        _copy_into(pos, s.p1)
        apply(t, s.p1, s.moves[i], rng)
        if s.p1.st[REASON] >= 0:  # no move wins (above): this one loses or draws at once
            s.vals[i] = -np.inf if _reach_winner(t, s.p1, s.p1.work[W_STACK][:2]) != -1 else -1e18
        else:
            s.vals[i] = _measure(t, s.p1, seat, par[0])
    for _ in range(k):
        best = -1
        for i in range(k):
            if s.vals[i] > -np.inf and (best < 0 or s.vals[i] > s.vals[best]):
                best = i
        if best < 0:
            break
        if s.moves[best] != mg and _safe(t, pos, seat, s.moves[best], s, rng):
            return s.moves[best]
        s.vals[best] = -np.inf
    return mg


@K.hot
def bot_move(t, pos, seat, code, par, scratch, rng):
    """The compiled random and greedy bots of kernel.py on the position's arrays, and lookahead;
    a bot that finds no legal placement passes."""
    s = scratch
    if code == K.BOT_GREEDY:
        return _greedy(t, pos, seat, par, s, rng)
    if code == K.BOT_LOOKAHEAD:
        return _lookahead(t, pos, seat, par, s, rng)
    if t.first_onto and pos.sq[Q_PLACED][seat] == 0:
        return _uniform_legal(t, pos, s, rng)
    front, nfront = _frontier(t, pos, seat, s)
    ok = K._random_move(seat, rng, t.block_connected, t.corners, t.n_orient, t.rot_of, t.emask_t,
                        pos.hx[H_TTYPE], pos.hx[H_ADJ], pos.hx[H_NEED], front, nfront,
                        pos.sq[Q_PLACED], pos.hand, s.pt, s.pr, s.cand, s.mv)
    if not ok:
        return t.pass_move
    return encode(t, s.mv[0], s.mv[1], s.mv[2])


engine.implement(Tables, no_alloc=True, new_position=new_position, to_move=to_move, legal_moves=legal_moves,
                 apply=apply, result=result, copy_position=copy_position, sample_hidden=sample_hidden,
                 evaluate=evaluate, new_scratch=new_scratch, bot_move=bot_move)
