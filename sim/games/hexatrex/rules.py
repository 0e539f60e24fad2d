"""Hexa-Trex on the engine interface (sim/engine/drivers.py): the engine functions for the tables and
position of state.py (board index map, move codes and the position's fields are drawn there).

A turn is one decision: the seat to move puts its tile on a frontier cell; `apply` places it,
scores every equation through it (the side-walk store and join of join.py while it fits, else
the DFS finder of finder.py: the same tile sets) and draws the next tile of the pile. The
generator is drawn in the order the old chunk kernel drew it: the first-player draw and the
shuffle in `new_position`, then only the bots (random: one index into the frontier; greedy:
one draw per tie along the frontier).

The side-walk store is shared by a position and its copies (`Work.lineage`): a store entry is
appended per side walk, so a position whose table the store held at `st[S_COUNT]` entries can
take the later entries back out (`join._rollback`) and use it again; a position not in the
lineage rebuilds it from its placements (`_rebuild`, the same walks in the same order).
The greedy bot's one search over every frontier cell leaves the chosen cell's walks in the
scratch; `apply` joins them again instead of searching afresh when the search was this
position's at this turn (`Work.tag`), as the old kernel did.
"""

from __future__ import annotations

import numpy as np

from sim import engine
from sim.engine.jit import entry, hot, hot_inline, kernel
from sim.engine.rng import below, new_state, shuffle
from sim.games.hexatrex.finder import Found, Table, _find, _hexdist
from sim.games.hexatrex.join import (
    JoinWork,
    _clear,
    _insert,
    _rollback,
    _score_group,
    _score_join,
    _score_specials,
)
from sim.games.hexatrex.state import (
    BOT_RANDOM,
    FIRST,
    FIRST_DRAW,
    HIST_LEN,
    ID,
    LAST_EQ,
    LAST_SCORE,
    LINEAGE_CAP,
    N_FRONT,
    N_OCC,
    N_ST,
    ROUNDS,
    S_COUNT,
    T_EQ,
    T_LONGEST,
    T_SCORE,
    T_SCORING,
    TAG_ID,
    TAG_TURN,
    TOP,
    TURN,
    USE_JOIN,
    ExpectiScratch,
    Position,
    Scratch,
)


# ---- set-up ---------------------------------------------------------------------------------
@kernel
def _pick_first(rng, tiles, players, work, draws, trace):
    """The card's draw: every contender draws a tile, highest number starts (operators 0);
    tied players draw again. draws[(round, seat)] records values when tracing.
    Returns (first seat, rounds)."""
    n = tiles.shape[0]
    for i in range(n):
        work[i] = tiles[i]
    alive = np.ones(players, np.bool_)
    rounds = 0
    while True:
        best = -1
        got = np.full(players, -1, np.int64)
        j = 0
        for seat in range(players):
            if alive[seat]:
                r = j + below(rng, n - j)
                t = work[r]
                work[r] = work[j]
                work[j] = t
                v = t if t <= 9 else 0
                got[seat] = v
                if trace and rounds < draws.shape[0]:
                    draws[rounds, seat] = v
                if v > best:
                    best = v
                j += 1
        rounds += 1
        n_best = 0
        first = -1
        for seat in range(players):
            if alive[seat] and got[seat] == best:
                n_best += 1
                if first < 0:
                    first = seat
            else:
                alive[seat] = False
        if n_best == 1 or rounds >= 1000:
            return first, rounds


@kernel
def first_draws(tb, seed):
    """The first-player draw of the game seeded by `seed`, replayed: int64[64, seats], one row
    per round (-1 for a seat out of the draw). For traces."""
    draws = np.full((64, tb.n_seats), -1, np.int64)
    if tb.first_rule == FIRST_DRAW:
        _pick_first(new_state(seed), tb.tiles, tb.n_seats, np.zeros(tb.n_tiles, np.int8), draws, True)
    return draws


@hot
def _new_id(tb):
    ids = tb.work.ids
    ids[0] += 1
    return ids[0]


@kernel
def new_position(tb, rng):
    """The draw (or the rule) picks the first seat, each seat starts with its points
    (second_player_bonus by turn position, start_points by seat), the pile is shuffled, one
    tile is dealt to each seat in turn order, "=" goes in the middle; the store starts empty
    for this game."""
    p = tb.n_seats
    t = tb.n_tiles
    pos = Position(np.full(tb.n_cells, -1, np.int8), np.full(tb.n_cells, -1, np.int16),
                   np.full(tb.n_cells, -1, np.int32), np.zeros(tb.max_moves, np.int64),
                   np.zeros(t + 1, np.int64), np.zeros(t, np.int8), np.full(p, -1, np.int64),
                   np.zeros((4, p), np.int64), np.zeros(HIST_LEN, np.int64), np.zeros(N_ST, np.int64))
    st = pos.st
    if tb.first_rule == FIRST_DRAW:
        first, rounds = _pick_first(rng, tb.tiles, p, tb.work.hold_sym, np.zeros((0, p), np.int64), False)
    else:
        first, rounds = tb.first_fixed, 0
    st[FIRST] = first
    st[ROUNDS] = rounds
    for j in range(p):  # compensation and handicaps: points before the first turn
        pos.tally[T_SCORE, (first + j) % p] += tb.turn_points[j]
        pos.tally[T_SCORE, j] += tb.seat_points[j]
    pile = pos.pile
    for i in range(t):
        pile[i] = tb.tiles[i]
    shuffle(rng, pile)
    for j in range(p):
        pos.hand[(first + j) % p] = pile[j]
    st[TOP] = p
    c0 = tb.center
    pos.sym[c0] = 14
    pos.order[c0] = 0
    pos.occ[0] = c0
    st[N_OCC] = 1
    for d in range(6):
        c = c0 + tb.nb_off[d]
        pos.fpos[c] = d
        pos.front[d] = c
    st[N_FRONT] = 6
    st[USE_JOIN] = tb.use_join
    st[ID] = _new_id(tb)
    w = tb.work
    _clear(w.store)
    w.lineage[0] = st[ID]
    w.lin_n[0] = 1
    w.tag[TAG_ID] = -1
    return pos


@hot
def _found(w, walks, wlen):
    """The scorers' output: the work area's tile-set buffers, the walks recorded in walks / wlen."""
    return Found(w.f_lo, w.f_hi, w.f_size, walks, wlen)


@hot
def _join_work(tb, mark):
    """The join scorer's store, scratch, trie and reach table, with the special-cell mark
    `mark` (the work area's, all -1, to score one placed tile; the frontier index per cell for
    the greedy bot's search of every frontier cell)."""
    w = tb.work
    return JoinWork(w.store, w.jscratch, tb.trie, mark, w.reach)


# ---- the store's lineage --------------------------------------------------------------------
@hot_inline
def _rebuild(tb, pos):
    """Refill the store with the side walks of pos's table, tile by tile in placement order
    (what the game's own placements stored), and make pos the lineage's only position."""
    w = tb.work
    store = w.store
    _clear(store)
    w.tag[TAG_ID] = -1
    n = pos.st[N_OCC]
    occ = pos.occ
    for i in range(1, n):
        c = occ[i]
        w.hold_sym[i] = pos.sym[c]
        pos.sym[c] = -1
        pos.order[c] = -1
    ok = True
    for i in range(1, n):
        c = occ[i]
        pos.sym[c] = w.hold_sym[i]
        pos.order[c] = i
        if ok:
            ne, _, n_new = _score_join(tb.geo, Table(pos.sym, pos.order, occ, np.int64(i + 1)), c, tb.max_len,
                                       tb.cfg, _join_work(tb, w.mark), _found(w, w.no_walks, w.no_len))
            ok = ne >= 0 and _insert(store, w.jscratch, np.int64(0), n_new)
    pos.st[USE_JOIN] = 1 if ok else 0
    pos.st[S_COUNT] = store[4][0]
    w.lineage[0] = pos.st[ID]
    w.lin_n[0] = 1


@hot
def _lineage_index(w, pid):
    i = w.lin_n[0] - 1
    while i >= 0 and w.lineage[i] != pid:
        i -= 1
    return i


@hot
def _sync(tb, pos):
    """Make the store hold pos's table: take later entries out when pos is in the lineage
    (every position above it extended pos's entries), else rebuild."""
    w = tb.work
    i = _lineage_index(w, pos.st[ID])
    if i < 0:
        _rebuild(tb, pos)
        return
    w.lin_n[0] = i + 1
    if w.store[4][0] != pos.st[S_COUNT]:
        _rollback(w.store, pos.st[S_COUNT])
        w.tag[TAG_ID] = -1


# ---- the rule functions ---------------------------------------------------------------------
@hot
def to_move(tb, pos):
    t = pos.st[TURN]
    if t >= tb.n_tiles:
        return -1
    return (pos.st[FIRST] + t) % tb.n_seats


@hot
def legal_moves(tb, pos, out):
    """The frontier cells, in the frontier's order (the random bot's draw indexes it)."""
    if pos.st[TURN] >= tb.n_tiles:
        return 0
    n = pos.st[N_FRONT]
    for i in range(n):
        out[i] = pos.front[i]
    return n


@hot
def _place(tb, pos, cell, tile):
    """Put tile on cell: the table, the placement order, the frontier (the cell swapped out
    with the last, its empty neighbours appended). Returns the cell's old frontier index."""
    st = pos.st
    sym, fpos, front = pos.sym, pos.fpos, pos.front
    n_occ = st[N_OCC]
    sym[cell] = tile
    pos.order[cell] = n_occ
    pos.occ[n_occ] = cell
    st[N_OCC] = n_occ + 1
    n_front = st[N_FRONT]
    k = fpos[cell]
    last = front[n_front - 1]
    front[k] = last
    fpos[last] = k
    fpos[cell] = -1
    n_front -= 1
    for d in range(6):
        c = cell + tb.nb_off[d]
        if sym[c] < 0 and fpos[c] < 0:
            fpos[c] = n_front
            front[n_front] = c
            n_front += 1
    st[N_FRONT] = n_front
    return k


@hot_inline
def _score_placed(tb, pos, cell, k, searched, walks, wlen):
    """(distinct tile sets, points) of the tile just put on cell (frontier index k before);
    the first walk of each tile set goes to walks / wlen when they have rows."""
    st = pos.st
    w = tb.work
    found = _found(w, walks, wlen)
    ne = -1
    sc = 0
    if st[USE_JOIN] == 1:
        if searched:  # the greedy search's walks of this cell are still in the scratch
            ne, sc, a, b = _score_group(k, _join_work(tb, w.mark), tb.center, pos.order, tb.max_len, tb.cfg, found)
            ok = _insert(w.store, w.jscratch, a, b)
        else:
            ne, sc, n_new = _score_join(tb.geo, Table(pos.sym, pos.order, pos.occ, st[N_OCC]), cell, tb.max_len,
                                        tb.cfg, _join_work(tb, w.mark), found)
            ok = ne >= 0 and _insert(w.store, w.jscratch, np.int64(0), n_new)
        st[USE_JOIN] = 1 if ok else 0
        st[S_COUNT] = w.store[4][0]
        w.tag[TAG_ID] = -1
    if ne < 0:
        ne, sc = _find(tb.geo, Table(pos.sym, pos.order, pos.occ, st[N_OCC]), cell, tb.max_len, tb.cfg, found,
                       w.fws)
    return ne, sc


@hot_inline
def place_recorded(tb, pos, cell, walks, wlen):
    """`apply` that also writes the first walk of each tile set scored (traces)."""
    st = pos.st
    w = tb.work
    t = st[TURN]
    seat = (st[FIRST] + t) % tb.n_seats
    if st[USE_JOIN] == 1:
        _sync(tb, pos)
    searched = st[USE_JOIN] == 1 and w.tag[TAG_ID] == st[ID] and w.tag[TAG_TURN] == t
    k = _place(tb, pos, cell, pos.hand[seat])
    ne, sc = _score_placed(tb, pos, cell, k, searched, walks, wlen)
    tally = pos.tally
    tally[T_SCORE, seat] += sc
    tally[T_EQ, seat] += ne
    if ne > 0:
        tally[T_SCORING, seat] += 1
    for e in range(ne):
        sz = w.f_size[e]
        pos.hist[sz] += 1
        if sz > tally[T_LONGEST, seat]:
            tally[T_LONGEST, seat] = sz
    st[LAST_SCORE] = sc
    st[LAST_EQ] = ne
    top = st[TOP]
    if top < tb.n_tiles:
        pos.hand[seat] = pos.pile[top]
        st[TOP] = top + 1
    else:
        pos.hand[seat] = -1
    st[TURN] = t + 1


@entry(_nrt=False)
def play_recorded(tb, pos, cell, walks, wlen):
    """place_recorded from Python (traces). Without reference counting, as place_recorded is
    written: its body inlines here, and under counting the arrays its callees hand back unowned
    would be released once too often."""
    place_recorded(tb, pos, cell, walks, wlen)


@hot
def apply(tb, pos, move, rng):
    """Place the mover's tile on cell `move`, score it, draw (no chance: the pile's order was
    drawn at set-up)."""
    place_recorded(tb, pos, move, tb.work.no_walks, tb.work.no_len)


@kernel
def result(tb, pos, capped, res):
    """winner (highest score, -1 on a shared top), end reason 0 (tiles out), tiles placed, first
    seat, score per seat; then per seat equations, longest, scoring turns; the turn order as
    seat numbers 1..P (231 = B, C, A), the draw's rounds, equations per size 0..12."""
    p = tb.n_seats
    tally = pos.tally
    best = -1
    win = -1
    for s in range(p):
        if tally[T_SCORE, s] > best:
            best = tally[T_SCORE, s]
            win = s
        elif tally[T_SCORE, s] == best:
            win = -1
    first = pos.st[FIRST]
    res[engine.WINNER] = win
    res[engine.END_REASON] = 0
    res[engine.TURNS] = pos.st[TURN]
    res[engine.FIRST_SEAT] = first
    base = engine.SCORES + p
    order = 0
    for s in range(p):
        res[engine.SCORES + s] = tally[T_SCORE, s]
        res[base + 3 * s] = tally[T_EQ, s]
        res[base + 3 * s + 1] = tally[T_LONGEST, s]
        res[base + 3 * s + 2] = tally[T_SCORING, s]
        order = order * 10 + (first + s) % p + 1
    res[base + 3 * p] = order
    res[base + 3 * p + 1] = pos.st[ROUNDS]
    for k in range(HIST_LEN):
        res[base + 3 * p + 2 + k] = pos.hist[k]


@kernel
def copy_position(tb, pos):
    """An independent copy, with its own id; it shares the store, which stays valid for it
    (it is pushed on the lineage right above pos)."""
    st = pos.st.copy()
    st[ID] = _new_id(tb)
    c = Position(pos.sym.copy(), pos.order.copy(), pos.fpos.copy(), pos.front.copy(), pos.occ.copy(),
                 pos.pile.copy(), pos.hand.copy(), pos.tally.copy(), pos.hist.copy(), st)
    w = tb.work
    i = _lineage_index(w, pos.st[ID])
    if i >= 0 and i + 1 < LINEAGE_CAP:
        w.lineage[i + 1] = st[ID]
        w.lin_n[0] = i + 2
    return c


@kernel
def sample_hidden(tb, pos, seat, rng):
    """What `seat` cannot see: the other seats' tiles in hand and the order of the face-down
    pile. It has seen the table, its own tiles and how many tiles each seat holds, so the
    unseen tiles are the tile set minus those; they are shuffled together and dealt back, one
    to each other seat that holds a tile (in seat order), the rest to the pile. They are put
    in symbol order before the shuffle, so the world drawn depends on what the seat knows and
    the generator only, never on where the unseen tiles were. Seat -1 (what nobody has seen):
    the pile's order alone, every hand kept."""
    w = tb.work
    unseen = w.unseen
    hand = pos.hand
    pile = pos.pile
    top = pos.st[TOP]
    n = 0
    for sym in range(14):
        for s in range(tb.n_seats):
            if seat >= 0 and s != seat and hand[s] == sym:
                unseen[n] = sym
                n += 1
        for i in range(top, tb.n_tiles):
            if pile[i] == sym:
                unseen[n] = sym
                n += 1
    shuffle(rng, unseen[:n])
    k = 0
    for s in range(tb.n_seats):
        if seat >= 0 and s != seat and hand[s] >= 0:
            hand[s] = unseen[k]
            k += 1
    for i in range(top, tb.n_tiles):
        pile[i] = unseen[k]
        k += 1


@kernel
def evaluate(tb, pos, seat):
    """The points greedy counts, for the position as it stands: the seat's score minus the
    other seats' mean score (greedy maximises the points of its turn, which is the change of
    this value by its own move)."""
    p = tb.n_seats
    own = pos.tally[T_SCORE, seat]
    others = 0.0
    for s in range(p):
        if s != seat:
            others += pos.tally[T_SCORE, s]
    return own - others / (p - 1)


@kernel
def _blank_position(tb):
    """A position of tb's shapes to copy into (the expecti bot's trial positions)."""
    p = tb.n_seats
    t = tb.n_tiles
    return Position(np.full(tb.n_cells, -1, np.int8), np.full(tb.n_cells, -1, np.int16),
                    np.full(tb.n_cells, -1, np.int32), np.zeros(tb.max_moves, np.int64),
                    np.zeros(t + 1, np.int64), np.zeros(t, np.int8), np.full(p, -1, np.int64),
                    np.zeros((4, p), np.int64), np.zeros(HIST_LEN, np.int64), np.zeros(N_ST, np.int64))


@kernel
def new_scratch(tb):
    m = tb.max_moves
    ex = ExpectiScratch(_blank_position(tb), _blank_position(tb), np.zeros(m, np.int64), np.zeros(m, np.float64),
                        np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros((m, 16), np.int64),
                        np.zeros(16, np.int64), np.zeros(16, np.int64))
    return Scratch(np.zeros(m, np.int64), ex)


@hot_inline
def _greedy_cell(tb, pos, bm, scratch, rng):
    """The frontier cell where the tile in hand scores most with equations of at most bm
    symbols (ties: one draw per tie along the frontier). All cells in one join search while
    the store is on (cells that cannot beat the best so far are bounded, not joined), else the
    DFS finder cell by cell. scratch.score[i]: frontier cell i's points (-1: bounded out)."""
    st = pos.st
    w = tb.work
    tile = pos.hand[(st[FIRST] + st[TURN]) % tb.n_seats]
    n_occ = st[N_OCC]
    n_front = st[N_FRONT]
    front = pos.front
    per = w.jscratch[9]
    shared = False
    if st[USE_JOIN] == 1:
        _sync(tb, pos)
        shared = _score_specials(tb.geo, Table(pos.sym, pos.order, pos.occ, n_occ), tile, n_occ, front, n_front,
                                 bm, tb.cfg, _join_work(tb, pos.fpos), _found(w, w.no_walks, w.no_len), np.bool_(True)) >= 0
        w.tag[TAG_ID] = st[ID] if shared and bm == tb.max_len else -1
        w.tag[TAG_TURN] = st[TURN]
    best = -1
    ties = 0
    cell = front[0]
    for fi in range(n_front):
        c = front[fi]
        sc = 0
        if shared:
            sc = per[1, fi]
        elif _hexdist(tb.cq, tb.cr, c, tb.center) + 2 <= bm:
            pos.sym[c] = tile
            pos.order[c] = n_occ
            pos.occ[n_occ] = c
            _, sc = _find(tb.geo, Table(pos.sym, pos.order, pos.occ, n_occ + 1), c, bm, tb.cfg,
                          _found(w, w.no_walks, w.no_len), w.fws)
            pos.sym[c] = -1
            pos.order[c] = -1
        scratch.score[fi] = sc
        if sc > best:
            best = sc
            ties = 1
            cell = c
        elif sc == best:
            ties += 1
            if below(rng, ties) == 0:
                cell = c
    return cell


@hot
def bot_move(tb, pos, seat, code, par, scratch, rng):
    """Random (code 0): a frontier cell drawn uniformly (one draw). Greedy (code 1, par[0]:
    max_equation_tiles it sees, 0 = the rules'): the cell scoring most this turn."""
    if code == BOT_RANDOM:
        return pos.front[below(rng, pos.st[N_FRONT])]
    bm = tb.max_len
    if par[0] != 0.0:
        bm = min(bm, np.int64(par[0]))
    return _greedy_cell(tb, pos, bm, scratch, rng)
