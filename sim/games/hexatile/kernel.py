"""HEXATILE on the engine interface (sim/engine/drivers.py): the engine functions for the tables and
position of state.py (board index map, move codes and the position's fields are drawn there).

A turn is one to three decisions of the engine: under bag draws the tile is drawn when the turn
begins (`_begin_turn`, a chance event at the end of `apply` or in `new_position`), then the
mover may put it back once (PH_REDRAW: KEEP / RETURN, the second draw inside `apply`); under
opponent picks the previous seat picks the kind (PH_PICK, `to_move` is the picker); then the
mover places (PH_PLACE). The generator is drawn in the order the rules ask: the island, the
turn's draw, the redraw decision, the second draw, the placement.
"""

from __future__ import annotations

import numpy as np

from sim import engine
from sim.engine.jit import hot, hot_inline, kernel
from sim.engine.rng import below
from sim.games.hexatile import bots
from sim.games.hexatile.rules import (
    draw_tile,
    empty_position,
    legal_cells,
    new_rope_work,
    new_score_work,
    points_winner,
    put,
    radian_winner,
    score_board,
)
from sim.games.hexatile.state import (
    BOT_GREEDY,
    DRAWN,
    END,
    END_RADIAN,
    IS_CENTRE,
    IS_RANDOM,
    ISLAND_CELL,
    KEEP,
    LAST,
    PH_OVER,
    PH_PICK,
    PH_PLACE,
    PH_REDRAW,
    PHASE,
    PICK,
    PICKER,
    REDRAWN,
    RETURN,
    SCORE_W,
    TC_BAG,
    TC_OPPONENT,
    TILE,
    TURN,
    WINNER,
    Position,
    Scratch,
    Tables,
)


@hot_inline
def _begin_turn(tb, pos, rng):
    """Set up the decisions of the turn of the tile pos.st[TURN] (the bag draw happens here)."""
    st = pos.st
    n = tb.n_seats
    both = pos.rem[0] > 0 and pos.rem[1] > 0
    st[TILE] = -1
    st[DRAWN] = -1
    st[REDRAWN] = 0
    st[PICKER] = -1
    st[PHASE] = PH_PLACE
    if tb.tile_choice == TC_BAG:
        st[TILE] = draw_tile(pos, rng)
        st[DRAWN] = st[TILE]
        if tb.must_use == 0 and both:
            st[PHASE] = PH_REDRAW  # the drawn tile may go back once (the second draw must be used)
    elif tb.tile_choice == TC_OPPONENT and both:
        st[PICKER] = (st[TURN] % n + n - 1) % n
        st[PHASE] = PH_PICK


@kernel
def new_position(tb, rng):
    island = -1
    if tb.island == IS_CENTRE:
        island = tb.centre
    elif tb.island == IS_RANDOM:
        island = below(rng, tb.neigh.shape[0])
    pos = empty_position(tb.neigh.shape[0], tb.vslot_cell, tb.tiles, tb.bot_ptsc, tb.bot_spts, island)
    pos.st[ISLAND_CELL] = island
    _begin_turn(tb, pos, rng)
    return pos


@hot
def to_move(tb, pos):
    ph = pos.st[PHASE]
    if ph == PH_OVER:
        return -1
    if ph == PH_PICK:
        return pos.st[PICKER]
    return pos.st[TURN] % tb.n_seats


@hot_inline
def _types_ok(pos, out):
    """The tile types the mover may place now (the drawn or handed kind, else any still left)."""
    tile = pos.st[TILE]
    for q in range(2):
        out[q] = (1 if pos.rem[q] > 0 else 0) if tile < 0 else (1 if tile == q else 0)


@hot
def legal_moves(tb, pos, out):
    """Placements in cell order, then tile type, then rotation; or the phase's two choices."""
    ph = pos.st[PHASE]
    if ph == PH_OVER:
        return 0
    if ph == PH_REDRAW:
        out[0] = KEEP
        out[1] = RETURN
        return 2
    if ph == PH_PICK:
        out[0] = PICK
        out[1] = PICK + 1
        return 2
    ncell = legal_cells(tb, pos, pos.st[TURN] % tb.n_seats, out)
    tile = pos.st[TILE]
    ok0 = pos.rem[0] > 0 if tile < 0 else tile == 0
    ok1 = pos.rem[1] > 0 if tile < 0 else tile == 1
    rot_n = tb.rot_n
    per = (int(ok0) + int(ok1)) * rot_n
    # expand in place from the last cell back: cell i's moves land at i * per.. >= i
    for i in range(ncell - 1, -1, -1):
        c = out[i]
        k = i * per
        for t in range(2):
            if ok1 if t == 1 else ok0:
                for rot in range(rot_n):
                    out[k] = c * 12 + t * 6 + rot
                    k += 1
    return ncell * per


@hot
def apply(tb, pos, move, rng):
    st = pos.st
    ph = st[PHASE]
    if ph == PH_REDRAW:
        if move == RETURN:
            st[REDRAWN] = 1
            st[TILE] = draw_tile(pos, rng)
        st[PHASE] = PH_PLACE
        return
    if ph == PH_PICK:
        st[TILE] = move - PICK
        st[DRAWN] = move - PICK
        st[PHASE] = PH_PLACE
        return
    seat = st[TURN] % tb.n_seats
    c = move // 12
    o = move % 12
    put(tb, pos, c, o, seat)
    pos.rem[o // 6] -= 1
    st[LAST] = c
    st[TURN] += 1
    if tb.arrows > 0:
        bots.mark_patterns(tb, pos, c, o, seat)
    if tb.variety == 1:
        bots.variety_update(tb, pos, c, o)
    if tb.radian_wins == 1:
        radian_winner(tb, pos, c, seat)
    if st[WINNER] >= 0 or pos.rem[0] + pos.rem[1] == 0:
        st[PHASE] = PH_OVER
    else:
        _begin_turn(tb, pos, rng)


@hot
def _scores(tb, pos, wk, sc):
    """score_board of the position into sc, the rope left out when a Radian ended the game."""
    score_board(tb, pos.rh, pos.vcode, pos.placer, pos.placed, wk, sc)
    if pos.st[END] == END_RADIAN:
        for col in range(4):
            sc[col, 5] = 0  # the chain rope is counted only when every tile is down


@hot
def _result_row(tb, pos, sc, res):
    winner = pos.st[WINNER]
    if winner == -2:
        winner = points_winner(tb, sc)
    res[engine.WINNER] = winner
    res[engine.END_REASON] = pos.st[END]
    res[engine.TURNS] = pos.st[TURN]
    res[engine.FIRST_SEAT] = 0
    n = tb.n_seats
    seat_col = tb.seat_col
    base = engine.SCORES + n
    for s in range(n):
        col = seat_col[s]
        res[engine.SCORES + s] = sc[col, 7] + sc[col, 5] + tb.bonus[s]
        for x in range(SCORE_W):
            res[base + s * SCORE_W + x] = sc[col, x]
    res[base + n * SCORE_W] = pos.st[ISLAND_CELL]


@kernel
def result(tb, pos, capped, res):
    """winner, end reason, tiles placed, first seat (always A), score per seat (points + rope +
    the seat's second_player_bonus),
    then per seat the 8 entries of score_board, then the island's cell."""
    wk = new_score_work(tb.neigh.shape[0], tb.vslot_cell.shape[0])
    sc = np.zeros((4, 8), np.int64)
    _scores(tb, pos, wk, sc)
    _result_row(tb, pos, sc, res)


@kernel
def copy_position(tb, pos):
    return Position(pos.rh.copy(), pos.cell_o.copy(), pos.placer.copy(), pos.vcode.copy(), pos.rem.copy(),
                    pos.st.copy(), pos.placed.copy(), pos.mark.copy(), pos.vflag.copy(), pos.ptsc.copy(), pos.spts.copy())


@hot
def sample_hidden(tb, pos, seat, rng):
    """HEXATILE hides nothing from any seat, in every variant. The tiles are shared and every
    placed tile is face up, so every seat can count the tiles still in the box or the bag.
    Under bag draws the bag has no order in the position: each draw is a chance event taken in
    `apply` / `new_position` from those counts at the moment it is made, so a copy of the
    position holds nothing a search could peek at; the tile just drawn shows its kind by its
    back (white or red), so the seats not drawing see it too. Under opponent picks the handed
    kind is public. A no-op, for any seat (-1 too: what nobody has seen)."""


@kernel
def evaluate(tb, pos, seat):
    """The points greedy counts, for the position as it stands: the seat's points + rope (+ its
    second_player_bonus) minus
    the other seats' mean (greedy weighs the others by -1 / (seats - 1)); once the game is
    over +1e9 for a win, -1e9 for a loss, 0 for a draw."""
    if pos.st[PHASE] == PH_OVER:
        res = np.zeros(tb.res_width, np.int64)
        result(tb, pos, np.bool_(False), res)
        w = res[engine.WINNER]
        return 0.0 if w < 0 else (1e9 if w == seat else -1e9)
    wk = new_score_work(tb.neigh.shape[0], tb.vslot_cell.shape[0])
    sc = np.zeros((4, 8), np.int64)
    _scores(tb, pos, wk, sc)
    n = tb.n_seats
    val = 0.0
    for s in range(n):
        col = tb.seat_col[s]
        tot = sc[col, 7] + sc[col, 5] + tb.bonus[s]
        val += tot if s == seat else -tot / (n - 1)
    return val


@kernel
def new_scratch(tb):
    n = tb.neigh.shape[0]
    nv = tb.vslot_cell.shape[0]
    return Scratch(np.zeros(n, np.int64), np.zeros(2, np.uint8), np.zeros(2, np.int64), np.zeros((4, nv), np.int64),
                   np.zeros(4, np.int64), np.zeros(4), np.zeros(4), np.zeros((6, 11)), np.zeros((6, 4)),
                   np.zeros((6, 2), np.int64), np.zeros((6, 2), np.int64), np.zeros((6, 2), np.bool_),
                   new_rope_work(n, nv))


@hot
def bot_move(tb, pos, seat, code, par, scratch, rng):
    """Random (code 0) and greedy (code 1, par: setup_weight, plan_weight, rope_weight,
    arrow_foresight, rope_gain_weight) decide the phase's choice: the bag's redraw, the kind
    handed to the mover (greedy weighs it for the mover with the picker's parameters), or
    the placement."""
    mover = pos.st[TURN] % tb.n_seats
    # typed: else numba types the count first as a literal 0 and compiles each bot for it too
    ncell = np.int64(legal_cells(tb, pos, mover, scratch.cells))
    greedy_bot = code == BOT_GREEDY
    if greedy_bot and par[4] != 0.0:
        bots.update_ropes(tb, pos, scratch)
    ph = pos.st[PHASE]
    if ph == PH_REDRAW:
        return RETURN if bots.put_back(tb, pos, scratch, mover, ncell, greedy_bot, par, rng) else KEEP
    if ph == PH_PICK:
        return PICK + bots.pick_type(tb, pos, scratch, mover, ncell, greedy_bot, par, rng)
    _types_ok(pos, scratch.types_ok)
    c, o = bots.placement(tb, pos, scratch, mover, ncell, greedy_bot, par, rng)
    return c * 12 + o


engine.implement(Tables, no_alloc=True, new_position=new_position, to_move=to_move, legal_moves=legal_moves, apply=apply,
                 result=result, copy_position=copy_position, sample_hidden=sample_hidden, evaluate=evaluate,
                 new_scratch=new_scratch, bot_move=bot_move)


@kernel
def score_placed(tb, cells, orients, seats, island, out):
    """score_board of a hand-made board: orients[i] on cells[i] by seats[i] (in that order), the
    island on a cell or -1."""
    pos = empty_position(tb.neigh.shape[0], tb.vslot_cell, tb.tiles, tb.bot_ptsc, tb.bot_spts, island)
    for i in range(cells.shape[0]):
        pos.st[TURN] = i
        put(tb, pos, cells[i], orients[i], seats[i])
    score_board(tb, pos.rh, pos.vcode, pos.placer, pos.placed, new_score_work(tb.neigh.shape[0], tb.vslot_cell.shape[0]), out)
