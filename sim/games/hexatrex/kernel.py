"""The compiled game: one call plays a whole chunk of Hexa-Trex games (or one, traced).

Per game: first player by the card's draw (or a rule), shuffle the face-down pile, deal one
secret tile per player, "=" in the middle; then each turn the seat to move places its tile on an
empty cell touching the cluster (bots choose among the frontier cells), scores every equation
through it with the full finder, and draws if the pile is not empty. The game ends when no
player holds a tile (every tile placed), so a game always lasts exactly as many turns as tiles.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.hexatrex.finder import _find, _hexdist
from sim.games.hexatrex.join import (
    MAX_SIDE,
    REACH_COLS,
    _clear,
    _insert,
    _score_group,
    _score_join,
    _score_specials,
    new_scratch,
    new_store,
)
from sim.rng import below, game_seed, new_state, shuffle

BOT_RANDOM, BOT_GREEDY = 0, 1
FIRST_DRAW, FIRST_A, FIRST_ROTATE = 0, 1, 2
FOUND_CAP = 1 << 15
HIST_LEN = 13  # equation sizes 0..12 tiles


@njit(cache=True)
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


@njit(cache=True)
def _play(first_game, n_games, run_seed, players, bot_code, bot_max, tiles, first_rule, cfg,
          nb_off, cq, cr, center, n_cells, trace, allow_join, trie,
          winner, first_seat, turns, score, n_eq, longest, scoring, rounds_out, hist,
          tr_moves, tr_eq_walk, tr_eq_len, tr_eq_turn, tr_eq_size, tr_draws, tr_n_eq, tr_pile):
    """Play games first_game .. first_game+n_games-1 of run run_seed.

    bot_code (players,), bot_max (players,) int: each seat's bot and the equation length it sees.
    tiles (T,) int8: the playable tiles. allow_join False scores with the DFS finder only.
    trie: the side trie (`trie.new_trie` for max_side = cfg[0] - 2 and these rules), a cache
    the caller may keep from chunk to chunk (no result depends on what it holds).
    Outputs are per game (axis 0) and per seat (axis 1);
    tr_* are filled only when trace (one game): tr_moves (T, 6) = seat, cell, symbol, score,
    equations, frontier size; equations of turn t are rows tr_eq_turn == t.
    """
    n_t = tiles.shape[0]
    max_len = cfg[0]
    sym = np.full(n_cells, -1, np.int8)
    order = np.full(n_cells, -1, np.int16)
    fpos = np.full(n_cells, -1, np.int32)
    front = np.zeros(6 * (n_t + 1), np.int64)
    occ = np.zeros(n_t + 1, np.int64)
    work = np.zeros(n_t, np.int8)
    pile = np.zeros(n_t, np.int8)
    hand = np.zeros(players, np.int64)
    f_lo = np.zeros(FOUND_CAP, np.uint64)
    f_hi = np.zeros(FOUND_CAP, np.uint64)
    f_size = np.zeros(FOUND_CAP, np.int64)
    no_walks = np.zeros((0, 16), np.int64)
    no_len = np.zeros(0, np.int64)
    rec_walks = np.zeros((FOUND_CAP, 16), np.int64)
    rec_len = np.zeros(FOUND_CAP, np.int64)
    st = np.zeros((8, 16), np.int64)
    mk = np.zeros((2, 16), np.uint64)
    lhs = np.zeros(16384, np.int64)
    rhs = np.zeros(16384, np.int64)
    side = np.zeros(16, np.int64)
    ev = np.zeros(256 + 64 * 132, np.int64)
    store = new_store()
    scratch = new_scratch()
    per = scratch[9]  # per frontier cell: equations, score
    mark = np.full(n_cells, -1, np.int32)
    reach = np.zeros((n_cells, REACH_COLS), np.int64)
    n_rec = 0
    for g in range(n_games):
        gi = first_game + g
        rng = new_state(game_seed(run_seed, gi))
        if first_rule == FIRST_DRAW:
            first, rounds = _pick_first(rng, tiles, players, work, tr_draws, trace)
        elif first_rule == FIRST_A:
            first, rounds = 0, 0
        else:
            first, rounds = gi % players, 0
        first_seat[g] = first
        rounds_out[g] = rounds
        for i in range(n_t):
            pile[i] = tiles[i]
        shuffle(rng, pile)
        if trace:
            for i in range(n_t):
                tr_pile[i] = pile[i]
        top = 0
        for j in range(players):
            hand[(first + j) % players] = pile[top]
            top += 1
        sym[center] = 14
        order[center] = 0
        occ[0] = center
        n_occ = 1
        n_front = 0
        for d in range(6):
            c = center + nb_off[d]
            fpos[c] = n_front
            front[n_front] = c
            n_front += 1
        _clear(store)
        use_join = allow_join and max_len - 2 <= MAX_SIDE
        for t in range(n_t):
            seat = (first + t) % players
            tile = hand[seat]
            # ---- choose a cell
            searched = False  # the turn's search scored every cell with the rules' reach
            if bot_code[seat] == BOT_RANDOM:
                cell = front[below(rng, n_front)]
            else:
                # every frontier cell scored in one search; the DFS finder cell by cell when
                # the side-walk store is off or a buffer overflows
                bm = bot_max[seat]
                shared = use_join and _score_specials(
                    sym, order, nb_off, cq, cr, center, tile, n_occ, fpos, front, n_front, occ,
                    n_occ, reach, bm, cfg, trie, store, scratch, f_lo, f_hi, f_size, no_walks,
                    no_len, per[0], per[1], True) >= 0
                searched = shared and bm == max_len
                best = -1
                ties = 0
                cell = front[0]
                for fi in range(n_front):
                    f = front[fi]
                    sc = 0
                    if shared:  # -1: the cell cannot reach the best score so far
                        sc = per[1, fi]
                    elif _hexdist(cq, cr, f, center) + 2 <= bm:
                        sym[f] = tile
                        order[f] = n_occ
                        occ[n_occ] = f
                        _, sc = _find(sym, order, nb_off, cq, cr, occ, n_occ + 1, center, f, bm,
                                      cfg, f_lo, f_hi, f_size, no_walks, no_len, st, mk, lhs, rhs,
                                      side, ev)
                        sym[f] = -1
                        order[f] = -1
                    if sc > best:
                        best = sc
                        ties = 1
                        cell = f
                    elif sc == best:
                        ties += 1
                        if below(rng, ties) == 0:
                            cell = f
            # ---- place it
            sym[cell] = tile
            order[cell] = n_occ
            occ[n_occ] = cell
            n_occ += 1
            k = fpos[cell]
            last = front[n_front - 1]
            front[k] = last
            fpos[last] = k
            fpos[cell] = -1
            n_front -= 1
            for d in range(6):
                c = cell + nb_off[d]
                if sym[c] < 0 and fpos[c] < 0:
                    fpos[c] = n_front
                    front[n_front] = c
                    n_front += 1
            # ---- score it: every equation through it (an exact finder, whatever the bot saw)
            walks = rec_walks if trace else no_walks
            ne = -1
            if use_join and searched:  # its walks are still in scratch: join them again
                ne, sc, a, b = _score_group(k, scratch, store, center, order, max_len, cfg, f_lo,
                                            f_hi, f_size, walks, rec_len)
                use_join = _insert(store, scratch, a, b)
            elif use_join:
                ne, sc, n_new = _score_join(sym, order, nb_off, cq, cr, center, cell, occ, n_occ,
                                            mark, reach, max_len, cfg, trie, store, scratch, f_lo,
                                            f_hi, f_size, walks, rec_len)
                use_join = ne >= 0 and _insert(store, scratch, 0, n_new)
            if ne < 0:
                ne, sc = _find(sym, order, nb_off, cq, cr, occ, n_occ, center, cell, max_len, cfg,
                               f_lo, f_hi, f_size, walks, rec_len, st, mk, lhs, rhs, side, ev)
            if trace:
                tr_moves[t, 0] = seat
                tr_moves[t, 1] = cell
                tr_moves[t, 2] = tile
                tr_moves[t, 3] = sc
                tr_moves[t, 4] = ne
                tr_moves[t, 5] = n_front
                for e in range(ne):
                    if n_rec < tr_eq_walk.shape[0]:
                        for j in range(rec_len[e]):
                            tr_eq_walk[n_rec, j] = rec_walks[e, j]
                        tr_eq_len[n_rec] = rec_len[e]
                        tr_eq_turn[n_rec] = t
                        tr_eq_size[n_rec] = f_size[e]
                        n_rec += 1
            score[g, seat] += sc
            n_eq[g, seat] += ne
            if ne > 0:
                scoring[g, seat] += 1
            for e in range(ne):
                sz = f_size[e]
                hist[g, sz] += 1
                if sz > longest[g, seat]:
                    longest[g, seat] = sz
            # ---- draw
            if top < n_t:
                hand[seat] = pile[top]
                top += 1
            else:
                hand[seat] = -1
        turns[g] = n_t
        best = -1
        win = -1
        for s in range(players):
            if score[g, s] > best:
                best = score[g, s]
                win = s
            elif score[g, s] == best:
                win = -1
        winner[g] = win
        # ---- clear the table for the next game
        for i in range(n_occ):
            sym[occ[i]] = -1
            order[occ[i]] = -1
        for i in range(n_front):
            fpos[front[i]] = -1
    tr_n_eq[0] = n_rec
