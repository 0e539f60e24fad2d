"""HEXFLOW Battle's rules on the engine interface (sim/engine/drivers.py): tables, position, the rule
functions (new_position, to_move, legal_moves, apply, result, copy_position, sample_hidden), the
stalemate score, reset, and the seats' link tables built on first use (_relink_all); battle.py's
compiled helpers do the work. The bots, `evaluate`, `rollout` and Battle's registration with the
engine are in battle_bots.py.

The board is Race's (85 hexes, hex index = column by column, top to bottom, see board.py); Battle
splits it into territories by column and starts each seat from its own side:

      b1=9       d1=28      f1=47      h1=66
 a1=0       c1=19      e1=38      g1=57      i1=76     a1, a9: A's starting corners
      b2=10      d2=29      f2=48      h2=67             i1, i9: B's starting corners
 a2=1       c2=20      e2=39      g2=58      i2=77
      ...        ...        ...        ...
 a9=8       c9=27      e9=46      g9=65      i9=84
      b10=18     d10=37     f10=56     h10=75
 |--- A's territory ---|--- contested ---|--- B's territory ---|
      columns a-c          columns d-f          columns g-i

Sides of a hex: 0 T, 1 TR, 2 BR, 3 B, 4 BL, 5 TL (nbr[h, s] = the neighbour across side s).
A heads for column i (battle_goal = "edge") or B's corners, B for column a or A's corners.
Graph nodes: h*2 (the empty hex h, cost 1 to fill), h*2 + j (network j of the tile on h, cost 0).

The position has HEXFLOW's shared field names in their order (hx, netid, nets, bag, hand, wit,
lnk, sq, st, work) and Race's rows where the rule is the same (hx: ttype, trot, towner, emask,
need, the frontier, dots, mult; netid; nets row 0 = netm), and Battle's own: nown (seat q's tiles
next to each hex, hx rows H_NOWN + q), the union-find over line nodes in three views (nets rows
1-3: parents, 4-6: start / goal flags; view q < 2 = seat q under the transit rule, view 2 = any
tile; battle._uf_link), each seat's link table lnk (battle._relink: where a seat steps from each
node), tokens and captures. Battle keeps no witness way: wit is empty.

A move is one int64: kind k (0 = place on an empty hex, 1 = displace the opponent tile on h) of
tile type t in rotation r on hex h is `((k * nh + h) * n_types + t) * 6 + r`; `pass_move`
(= 2 * nh * n_types * 6) is the pass, the only legal move of a seat with no legal move.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from sim import engine
from sim.engine.jit import hot, hot_inline, kernel

from . import battle as BT
from . import kernel as K
from . import layout, race
from . import rules as R
from .board import DEFAULT_DOTS, board_of, non_corner_hexes
from .layout import (
    CONSEC,
    CUR,
    FIRST,
    H_DOTS,  # noqa: F401  (read as battle_engine.H_DOTS by game.py and the tests)
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
    Q_PLACED,
    REASON,
    TURN,
    W_SEEN,
    W_STACK,
    W_STAMP,
)
from .race import PASS_A, WINNER
from .tiles import orientation_tables

# position.st fields after Race's (PATH_OWNER: the seat whose path ended the game, -1 if none)
PATH_OWNER = race.PATH_OWNER
DISP_A, DISP_B, TBLOCK_A, TBLOCK_B, LNK_ON = range(10, 15)
N_ST = 15
# Battle's hx rows after Race's ten (Race's adj row is unused here): nown of seat 0 and 1
H_NOWN = 10
N_HX = 12
# position.sq rows after the shared ones (layout.py: bagn, placed_any, and Q_BLOCKED, which Battle
# leaves 0): tokens left, tiles captured
Q_TOKENS, Q_CAPTURES = 3, 4
N_Q = 5
# position.nets rows
N_NETM, N_PAR, N_FLG = 0, 1, 4
# rows of position.work (contents never carry from one call to the next; copies share them):
# layout.py's W_SEEN, W_STAMP, W_STACK first (the searches' marks, stamps and stack), then the
# move lists legal_moves builds with battle._gen_moves, the hand pairs, and the path search's
W_MK, W_MH, W_MT, W_MR, W_PT, W_PR, W_PNODE, W_PSIDE = range(3, 11)
N_W = 11


class Tables(NamedTuple):
    n_seats: np.int64
    max_moves: np.int64
    turn_cap: np.int64  # max_turns: a capped game is a draw (turn_cap)
    res_width: np.int64  # battle.N_BOUT
    nh: np.int64
    n_types: np.int64
    pass_move: np.int64
    hand_size: np.int64  # the larger seat's hand: the width of position.hand (hand_of per seat)
    no_move_loses: np.bool_  # rules.no_move == "lose"
    first: np.int64  # rules.first_player: kernel.FIRST_RANDOM / FIRST_A / FIRST_B
    dots_random: np.bool_  # rules.dots == "random"
    tokens: np.int64  # rules.battle_tokens
    stalemate_path: np.bool_  # rules.battle_stalemate_length == "path"
    eval_block_weight: np.float64  # greedy's defaults, for `evaluate`
    eval_stale_weight: np.float64
    tileset: np.ndarray  # int64[2, tiles]: each seat's tiles before the shuffle (rules.tile_sets)
    nbag: np.ndarray  # int64[2]: how many tiles each seat has (its row of tileset, -1 after)
    hand_of: np.ndarray  # int64[2]: each seat's hand size (rules.hand_size, per seat)
    dots_fixed: np.ndarray  # int64[nh]
    dot_pool: np.ndarray  # int64[13]: the dots laid at random with dots = "random"
    free_hexes: np.ndarray  # int64[nh - 4]
    dot_mult: np.ndarray  # int64[6]: stalemate multiplier by dots (rules.dot_multipliers)
    base_score: np.int64  # a path (or no-move) win's score (rules.base_score)
    lnk0: np.ndarray  # int64[nh * 12]: the empty board's link table (kernel.empty_links)
    br: BT.Rules  # the board and move tables (nbr, tz, startm ...) and capture_points: battle.py's
    # helpers read them as one value, and this module from here (t.br.nbr ...), each held once


# Battle's position is HEXFLOW's one layout (layout.Position), its rows named by the H_ / Q_ / N_ /
# W_ constants above:
#   hx     int64[N_HX, nh]
#   netid  int64[nh * 6]: network (0 / 1) owning side s of the tile on h
#   nets   int64[7, nh * 2]: netm, union-find parents (3 views), flags (3 views)
#   bag    int64[2, tiles]: each seat's shuffled bag; bag[q, :bagn[q]] still to draw
#   hand   int64[2, hand_size]: -1 = empty slot
#   wit    int64[2, 2, 0]: Battle keeps no witness way
#   lnk    int64[2, nh * 12]: each seat's link table, kept once st[LNK_ON] (greedy reads it)
#   sq     int64[N_Q, 2]: per seat bagn, placed_any, (Q_BLOCKED: 0), tokens, captures
#   st     int64[N_ST]
#   work   int64[N_W, max(max_moves, nh * 2 + 1)]
Position = layout.Position


def build_tables(rules: dict[str, Any]) -> Tables:
    """The Battle tables of a resolved rule set on the board of board_columns (battle.battle_tables:
    territories, starts and goals by its width), with each seat's tile set and hand size and the
    score tables (as race.build_tables)."""
    seats = ["A", "B"]
    cols = rules["board_columns"]
    nbr = board_of(cols).nbr.astype(np.int64)
    n_orient, rot_of, net_mask = (a.astype(np.int64) for a in orientation_tables())
    emask = (net_mask[:, :, 0] | net_mask[:, :, 1]).astype(np.int64)
    tz, startm, goalm, firstc, corner_any = BT.battle_tables(rules)
    cfg = BT._bcfg(rules)
    nh = nbr.shape[0]
    n_types = n_orient.shape[0]
    hand_of = np.array(R.hand_sizes(rules, seats), np.int64)
    hs = int(hand_of.max())
    tileset, nbag = R.tile_sets(rules, seats)
    greedy = next(b for b in R.BOTS if b.code == K.BOT_GREEDY)
    dflt = {p.name: p.default for p in greedy.params}
    return Tables(
        np.int64(2), np.int64(nh * hs * 6 + 1), np.int64(rules["max_turns"]), np.int64(BT.N_BOUT),
        np.int64(nh), np.int64(n_types), np.int64(2 * nh * n_types * 6), np.int64(hs),
        np.bool_(rules["no_move"] == "lose"), np.int64(cfg[BT.B_FIRST]), np.bool_(rules["dots"] == "random"),
        np.int64(rules["battle_tokens"]), np.bool_(rules["battle_stalemate_length"] == "path"),
        np.float64(dflt["block_weight"]), np.float64(dflt["stalemate_weight"]),
        tileset, nbag, hand_of, R.dots_for(rules),
        np.array([d for _, d in DEFAULT_DOTS], dtype=np.int64), non_corner_hexes(cols), R.dot_multiplier_table(rules),
        np.int64(rules["base_score"]), K.empty_links(nbr),
        BT.Rules(cfg, nbr, n_orient, rot_of, net_mask, emask, tz, startm, goalm, firstc, corner_any,
                 np.int64(rules["battle_capture_points"])))


tables = engine.per_rules(build_tables)


# ---- moves ----------------------------------------------------------------------------------
@hot_inline
def encode(t, kind, h, tile, r):
    """kind: battle.K_PLACE or K_DISPLACE."""
    return (((1 if kind == BT.K_DISPLACE else 0) * t.nh + h) * t.n_types + tile) * 6 + r


@hot_inline
def decode(t, move):
    """(kind, hex, tile type, rotation) of a move code other than the pass."""
    x = move // (t.n_types * 6)
    return (BT.K_DISPLACE if x >= t.nh else BT.K_PLACE), x % t.nh, (move // 6) % t.n_types, move % 6


# ---- the rule functions ---------------------------------------------------------------------
@hot_inline
def _empty_hex(pos, h):
    """Hex h's rows of an empty board (no tile, no tile next to it, off the frontier): the one
    reset of a hex, for a new position and for clearing a finished game in place."""
    hx = pos.hx
    for r in (H_TTYPE, H_TROT, H_TOWNER, H_FPOS):
        hx[r, h] = -1
    for r in (H_EMASK, H_NEED, H_NOWN, H_NOWN + 1):
        hx[r, h] = 0
    for s in range(6):
        pos.netid[h * 6 + s] = -1
    pos.nets[N_NETM, h * 2] = 0
    pos.nets[N_NETM, h * 2 + 1] = 0


@hot_inline
def _new_counters(t, pos):
    """The counters of a game before its set-up: st (no winner, no end, no link tables kept), and
    per seat bagn, placed_any and captures 0, tokens battle_tokens."""
    for i in range(N_ST):
        pos.st[i] = 0
    pos.st[WINNER] = -1
    pos.st[REASON] = -1
    pos.st[PATH_OWNER] = -1
    for q in range(2):
        for r in range(N_Q):
            pos.sq[r, q] = 0
        pos.sq[Q_TOKENS, q] = t.tokens


@kernel
def _blank_position(t):
    """An empty board before set-up (every array of a Position allocated here). The union-find
    rows (nets 1-6) need no reset: a hex's nodes are made singletons when a tile is put there."""
    nh = t.nh
    nn = nh * 2
    pos = Position(np.zeros((N_HX, nh), np.int64), np.empty(nh * 6, np.int64), np.zeros((7, nn), np.int64),
                   np.empty((2, t.tileset.shape[1]), np.int64), np.empty((2, t.hand_size), np.int64),
                   np.zeros((2, 2, 0), np.int64), np.empty((2, nh * 12), np.int64), np.zeros((N_Q, 2), np.int64),
                   np.zeros(N_ST, np.int64), np.empty((N_W, max(t.max_moves, nn + 1)), np.int64))
    for h in range(nh):
        _empty_hex(pos, h)
    _new_counters(t, pos)
    return pos


@hot
def _clear(t, pos):
    """Empty the board of a finished game in place for the next game of a chunk (`reset`): the
    hexes it filled and their neighbours (need, the frontier, nown), the counters. Hexes never
    empty during a game (a displacement replaces the tile), so no other hex changed; the frontier
    row is read only below st[NFRONT], the dots are laid and the bags and hands dealt afresh by
    _set_up, and the work rows carry nothing from one call to the next."""
    hx = pos.hx
    for h in range(t.nh):
        if hx[H_TTYPE, h] < 0:
            continue
        for s in range(6):  # the rows a tile changes on its neighbours (a full reset would empty a
            n = t.br.nbr[h, s]  # filled neighbour before its own neighbours are reached)
            if n >= 0:
                hx[H_NEED, n] = 0
                hx[H_FPOS, n] = -1
                hx[H_NOWN, n] = 0
                hx[H_NOWN + 1, n] = 0
        _empty_hex(pos, h)
    _new_counters(t, pos)


@kernel
def new_position(t, rng):
    pos = _blank_position(t)
    _set_up(t, pos, rng)
    return pos


@hot
def _set_up(t, pos, rng):
    """A game's set-up on an empty board (_blank_position, or _clear), in the order of the first
    chunk kernel (so the same games): coin flip, dots, then each seat's bag and hand."""
    race.set_up_two(t, pos, rng, pos.work[W_STACK, :t.free_hexes.shape[0]])


@hot
def to_move(t, pos):
    return -1 if pos.st[REASON] >= 0 else pos.st[CUR]


@hot_inline
def _board(pos):
    """The position's rows as battle.py's helpers read the board (battle.Board)."""
    hx = pos.hx
    return BT.Board(hx[H_TTYPE], hx[H_TROT], hx[H_TOWNER], hx[H_EMASK], pos.netid, pos.nets[N_NETM], hx[H_NEED],
                    hx[H_NOWN:H_NOWN + 2], hx[H_FPOS], hx[H_FRONT], hx[H_MULT])


@hot_inline
def _moves(pos):
    """The work rows battle.py's move generators write (battle.Moves: hand pairs, the move list)."""
    w = pos.work
    return BT.Moves(w[W_PT], w[W_PR], w[W_MK], w[W_MH], w[W_MT], w[W_MR])


@hot_inline
def _gen(t, pos, p, mv):
    """battle._gen_moves for seat p on the position (every legal move, in its order, into mv)."""
    return BT._gen_moves(t.br, _board(pos), p, pos.sq[Q_TOKENS], pos.sq[Q_PLACED], pos.hand, mv)


@hot
def legal_moves(t, pos, out):
    """Every legal move of the seat to move in battle._gen_moves' order; the pass alone if none."""
    if pos.st[REASON] >= 0:
        return 0
    mv = _moves(pos)
    k = _gen(t, pos, pos.st[CUR], mv)
    for i in range(k):
        out[i] = encode(t, mv.mk[i], mv.mh[i], mv.mt[i], mv.mr[i])
    return K._or_pass(out, k, t.pass_move)


@hot_inline
def _pass(t, pos, cur):
    """A seat with no legal move (race.pass_turn), ended by the stalemate score."""
    race.pass_turn(t, pos, cur, K.E_ST_SCORE)


@hot
def _relink_all(t, pos):
    """The seats' link tables from the board (the empty board's, then battle._relink for every
    tile): what keeping them move by move gives, since _relink rewrites every entry a changed hex
    touches from the board as it is."""
    hx = pos.hx
    for q in range(2):
        for i in range(t.lnk0.shape[0]):
            pos.lnk[q, i] = t.lnk0[i]
    for h in range(t.nh):
        if hx[H_TTYPE, h] >= 0:
            BT._relink(h, t.br.tz, t.br.nbr, hx[H_TTYPE], hx[H_TOWNER], hx[H_EMASK], pos.netid, pos.nets[N_NETM], pos.lnk)
    pos.st[LNK_ON] = 1


@hot
def apply(t, pos, move, rng):
    """One decision of the seat to move; Battle draws nothing here."""
    cur = pos.st[CUR]
    other = 1 - cur
    pos.st[TURN] += 1
    if move == t.pass_move:
        _pass(t, pos, cur)
        pos.st[CUR] = other
        return
    pos.st[CONSEC] = 0
    kind, h, tile, r = decode(t, move)
    hx = pos.hx
    ttype, towner, emask = hx[H_TTYPE], hx[H_TOWNER], hx[H_EMASK]
    netm = pos.nets[N_NETM]
    par = pos.nets[N_PAR:N_PAR + 3]
    flg = pos.nets[N_FLG:N_FLG + 3]
    if kind == BT.K_DISPLACE:
        pos.sq[Q_TOKENS][cur] -= 1
        pos.sq[Q_CAPTURES][cur] += 1
        pos.st[DISP_A + cur] += 1
    BT._set_owner(h, towner[h], cur, t.br.nbr, hx[H_NOWN:H_NOWN + 2])
    BT._put(cur, h, tile, r, t.br.net_mask, t.br.emask_t, ttype, hx[H_TROT], towner, emask, pos.netid, netm)
    if pos.st[LNK_ON]:
        BT._relink(h, t.br.tz, t.br.nbr, ttype, towner, emask, pos.netid, netm, pos.lnk)
    BT._set_need(h, t.br.nbr, emask, hx[H_NEED])
    pos.sq[Q_PLACED][cur] = 1
    pos.st[NFRONT] = K._frontier_take(h, t.br.nbr, ttype, hx[H_FRONT], hx[H_FPOS], pos.st[NFRONT])
    K._refill(cur, tile, pos.hand, pos.bag, pos.sq[Q_BAGN])
    if kind == BT.K_DISPLACE:
        BT._uf_rebuild(par, flg, t.br.startm, t.br.goalm, t.br.tz, t.br.nbr, ttype, towner, emask, pos.netid, netm)
    else:
        BT._uf_init(h, par, flg, t.br.startm, t.br.goalm)
        BT._uf_link(h, t.nh, par, flg, t.br.tz, t.br.nbr, ttype, towner, emask, pos.netid, netm)
    pos.st[CUR] = other
    js = BT._uf_joins(h, par, flg, t.br.tz, ttype, towner, netm)
    for k in range(2):
        q = cur if k == 0 else other
        if (js >> q) & 1:
            pos.st[WINNER] = q
            pos.st[REASON] = K.E_PATH if k == 0 else K.E_OPP_PATH
            pos.st[PATH_OWNER] = q
            return
        # a join along lines the transit rule does not count (bit 2 + q of battle._uf_joins)
        if (js >> (2 + q)) & 1:
            pos.st[TBLOCK_A + q] = 1


@hot
def stalemate_score(t, pos, q):
    """(score, L) of seat q: battle._path_score or _chain_score (battle_stalemate_length)."""
    w = pos.work
    lout = w[W_STAMP, t.nh:t.nh + 2]
    cap = pos.sq[Q_CAPTURES][q]
    if t.stalemate_path:
        sc = BT._path_score(q, cap, t.br, _board(pos), w[W_SEEN], w[W_PNODE], w[W_PSIDE], w[W_STAMP, :t.nh], lout)
    else:
        sc = BT._chain_score(q, cap, t.br, _board(pos), w[W_SEEN], w[W_STACK], w[W_STAMP, :t.nh], lout)
    return sc, lout[0]


@hot
def result(t, pos, capped, res):
    """The result row: the winner and end reason, the stalemate scores, the tallies."""
    winner, reason = K._result_start(res, pos.st[WINNER], pos.st[REASON], capped)
    for q in range(2):
        sc, ln = stalemate_score(t, pos, q)
        res[BT.O_CHAIN_A + q] = ln
        if reason == K.E_ST_SCORE:
            res[BT.O_SCORE_A + q] = sc
    if reason == K.E_ST_SCORE:
        if res[BT.O_SCORE_A] > res[BT.O_SCORE_B]:
            winner = 0
        elif res[BT.O_SCORE_B] > res[BT.O_SCORE_A]:
            winner = 1
    elif winner >= 0:
        res[BT.O_SCORE_A + winner] = t.base_score
    res[BT.O_WINNER] = winner
    res[BT.O_REASON] = reason
    res[BT.O_TURNS] = pos.st[TURN]
    res[BT.O_FIRST] = pos.st[FIRST]
    for q in range(2):
        res[BT.O_PASS_A + q] = pos.st[PASS_A + q]
        res[BT.O_DISP_A + q] = pos.st[DISP_A + q]
        res[BT.O_TBLOCK_A + q] = pos.st[TBLOCK_A + q]
    res[BT.O_COMPLETED] = 1 if pos.st[PATH_OWNER] >= 0 and not capped else 0


@kernel
def copy_position(t, pos):
    return Position(pos.hx.copy(), pos.netid.copy(), pos.nets.copy(), pos.bag.copy(), pos.hand.copy(), pos.wit,
                    pos.lnk.copy(), pos.sq.copy(), pos.st.copy(), pos.work)


@kernel
def sample_hidden(t, pos, seat, rng):
    """What `seat` cannot see, redrawn as Race does (race.sample_hidden: the order of its own bag,
    the opponent's hand and bag pooled; seat -1: every bag's order only); the tiles a seat
    captured are out of play and public."""
    race.sample_hidden(t, pos, seat, rng)



# ---- the next game in place -----------------------------------------------------------------
@hot
def reset(t, pos, rng, game_index):
    """As race.reset, on this mode's position."""
    _clear(t, pos)
    _set_up(t, pos, rng)
    return True
