"""Compiled rules of Four flags: one call plays a whole chunk of games (or one traced game).

State of one game (all int64 numpy arrays, hexes indexed as in geometry.py):
    owner[56]      -1 empty (and always on flags), 0 = seat A, 1 = seat B
    units[56]      units on the hex (0 iff empty)
    hands[2, H]    cards in hand, hand_n[2] how many
    deck[52]       draw pile, top = deck[ctr[C_DECK] - 1]; disc[52] discard pile
    ctr[8]         counters: deck size, discard size, record length, combats, cards played
A card is 0..51: value = card % 13 + 2 (2..10, J 11, Q 12, K 13, A 14), suit = card // 13.
card_hex[card] is the territory hex the card points to (shuffled each game).

Rule parameters arrive as the int64 vector `rp` (indices R_*), bots as codes[2] and bp[2, 3]
(greedy's aggression, defence, territory). Bots only ever get their own hand row and public state (bots.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.flags.bots import (
    BOT_RANDOM,
    choose_card,
    choose_step,
    decay_table,
    random_card,
    random_reinforce,
    random_step,
    reinforce_plan,
    workspace,
)
from sim.rng import below, game_seed, new_state, shuffle

# rule vector indices
R_HAND, R_CARDS, R_DIE, R_MIN, R_WIN, R_STILL, R_BLEED, R_FIRST, R_MAXT = range(9)
N_RULES = 9
FIRST_ROLL, FIRST_A, FIRST_B, FIRST_ALTERNATE = 0, 1, 2, 3
STILL_SAME, STILL_ANY = 0, 1

# counters
C_DECK, C_DISC, C_REC, C_COMBATS, C_PLAYED = range(5)

# record kinds: row = (seat, kind, a, b, c)
K_DEAL, K_PLAY, K_ALLOC, K_ROLL, K_STEP, K_DRAW, K_SHUFFLE, K_END = range(8)
EFFECT_PLACE, EFFECT_REINFORCE, EFFECT_DISCARD = 0, 1, 2

END_FLAGS, END_CAP = 0, 1
REC_COLS = 5


@njit(cache=True)
def card_value(card):
    return card % 13 + 2


@njit(cache=True)
def _rec(record, rec, ctr, seat, kind, a, b, c):
    if record:
        i = ctr[C_REC]
        rec[i, 0] = seat
        rec[i, 1] = kind
        rec[i, 2] = a
        rec[i, 3] = b
        rec[i, 4] = c
        ctr[C_REC] = i + 1


@njit(cache=True)
def held_mask(owner, units, seat, flag_nbrs, flag_nn, min_hold):
    """Bit f set when `seat` holds flag f: every neighbour its own with >= min_hold units."""
    m = 0
    for f in range(4):
        ok = True
        for i in range(flag_nn[f]):
            h = flag_nbrs[f, i]
            if owner[h] != seat or units[h] < min_hold:
                ok = False
                break
        if ok:
            m |= 1 << f
    return m


@njit(cache=True)
def popcount4(m):
    return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1)


@njit(cache=True)
def resolve_claims(mover, mask_mover, mask_other, claim, flags_to_win, still):
    """End of `mover`'s turn. claim = [claim seat or -1, flags claimed (bit mask)], updated in place.

    A claim made at the end of the other seat's previous turn is judged first: it wins if the
    claimer still holds the same flags (still = STILL_SAME) or any flags_to_win flags
    (STILL_ANY) now. Otherwise the mover starts a claim if it holds flags_to_win flags.
    Returns the winning seat or -1.
    """
    other = 1 - mover
    if claim[0] == other:
        if still == STILL_SAME:
            kept = (mask_other & claim[1]) == claim[1]
        else:
            kept = popcount4(mask_other) >= flags_to_win
        if kept:
            return other
        claim[0] = -1
        claim[1] = 0
    if popcount4(mask_mover) >= flags_to_win:
        claim[0] = mover
        claim[1] = mask_mover
    return -1


@njit(cache=True)
def step_ok(owner, units, seat, src, dst, k, nbr, nbr_n, is_flag, bleed):
    """Is moving k units from src to its neighbour dst a legal move step for seat?"""
    if src < 0 or dst < 0 or owner[src] != seat or is_flag[dst] == 1:
        return False
    adjacent = False
    for i in range(nbr_n[src]):
        if nbr[src, i] == dst:
            adjacent = True
    if not adjacent or k < 1:
        return False
    if k > units[src] - (1 if bleed else 0):
        return False
    if owner[dst] == 1 - seat and k <= units[dst]:
        return False
    return True


@njit(cache=True)
def apply_step(owner, units, seat, src, dst, k, ctr):
    """Move k units (legal, see step_ok); combat leaves the difference. Returns units killed."""
    units[src] -= k
    if units[src] == 0:
        owner[src] = -1
    killed = 0
    if owner[dst] == seat:
        units[dst] += k
    elif owner[dst] == -1:
        owner[dst] = seat
        units[dst] = k
    else:
        killed = 2 * units[dst]
        units[dst] = k - units[dst]
        owner[dst] = seat
        ctr[C_COMBATS] += 1
    return killed


@njit(cache=True)
def _draw_up(seat, hands, hand_n, deck, disc, ctr, hand_size, rng, record, rec):
    while hand_n[seat] < hand_size:
        if ctr[C_DECK] == 0:
            n = ctr[C_DISC]
            for i in range(n):
                deck[i] = disc[i]
            ctr[C_DECK] = n
            ctr[C_DISC] = 0
            shuffle(rng, deck[:n])
            _rec(record, rec, ctr, seat, K_SHUFFLE, n, 0, 0)
        ctr[C_DECK] -= 1
        card = deck[ctr[C_DECK]]
        hands[seat, hand_n[seat]] = card
        hand_n[seat] += 1
        _rec(record, rec, ctr, seat, K_DRAW, card, 0, 0)


@njit(cache=True)
def play_turn(seat, owner, units, hands, hand_n, deck, disc, ctr, card_hex, nbr, nbr_n, is_flag,
              flag_nbrs, flag_nn, flag_of, terr, near, rp, codes, bp, rng, record, rec, alloc, ws):
    """One full turn of `seat`: play cards, roll, move, draw back up.

    The bot functions receive hands[seat] only (never the other hand, the deck or the discards'
    order) and a workspace of tables derived from the public board (bots.workspace); drawing
    happens after every decision of the turn.
    """
    code = codes[seat]
    par = bp[seat]
    valid = ws[3]
    valid[0] = 0
    valid[1] = 0
    for _ in range(rp[R_CARDS]):
        if code == BOT_RANDOM:
            i = random_card(rng, hand_n[seat])
        else:
            i = choose_card(par, seat, hands[seat], hand_n[seat], owner, units, card_hex,
                            flag_nbrs, flag_nn, flag_of, near, rp, ws, alloc)
        card = hands[seat, i]
        hand_n[seat] -= 1
        hands[seat, i] = hands[seat, hand_n[seat]]
        hands[seat, hand_n[seat]] = -1
        disc[ctr[C_DISC]] = card
        ctr[C_DISC] += 1
        ctr[C_PLAYED] += 1
        h = card_hex[card]
        v = card_value(card)
        if owner[h] == -1:
            owner[h] = seat
            units[h] = v
            _rec(record, rec, ctr, seat, K_PLAY, card, h, EFFECT_PLACE)
        elif owner[h] == seat:
            _rec(record, rec, ctr, seat, K_PLAY, card, h, EFFECT_REINFORCE)
            if code == BOT_RANDOM:
                n = random_reinforce(seat, v, owner, rng, alloc)
            else:
                n = reinforce_plan(par, seat, v, owner, units, flag_nbrs, flag_nn, flag_of, near,
                                   rp, ws, alloc)
            for j in range(n):
                x = alloc[j, 0]
                if flag_of[x] >= 0 and units[x] < rp[R_MIN]:
                    valid[1] = 0  # a surrounding hex may start to count
                units[x] += alloc[j, 1]
                _rec(record, rec, ctr, seat, K_ALLOC, x, alloc[j, 1], 0)
        else:
            _rec(record, rec, ctr, seat, K_PLAY, card, h, EFFECT_DISCARD)
            continue  # a wasted card changes nothing on the board
        if flag_of[h] >= 0:
            valid[1] = 0
    roll = 1 + below(rng, rp[R_DIE])
    _rec(record, rec, ctr, seat, K_ROLL, roll, 0, 0)
    mv = ws[9]
    for _ in range(roll):
        if code == BOT_RANDOM:
            random_step(seat, owner, units, nbr, nbr_n, is_flag, rp[R_BLEED] == 1, rng, ws[8], mv)
        else:
            choose_step(par, seat, owner, units, nbr, nbr_n, is_flag, flag_nbrs, flag_nn, flag_of,
                        near, rp, ws, mv)
        if mv[0] < 0:
            break
        if owner[mv[1]] == 1 - seat:
            valid[0] = 0  # an enemy stack is gone: what the enemy can reach changes
        if flag_of[mv[0]] >= 0 or flag_of[mv[1]] >= 0:
            valid[1] = 0  # counts and field only depend on the hexes around flags
        apply_step(owner, units, seat, mv[0], mv[1], mv[2], ctr)
        _rec(record, rec, ctr, seat, K_STEP, mv[0], mv[1], mv[2])
    _draw_up(seat, hands, hand_n, deck, disc, ctr, rp[R_HAND], rng, record, rec)


@njit(cache=True)
def play_game(seed, game_index, nbr, nbr_n, is_flag, flag_nbrs, flag_nn, flag_of, terr, near, rp,
              codes, bp, record, rec, out, card_hex, dec):
    """Play one game. out[:] = winner, end reason, turns, first seat, held A, held B,
    first flag turn A, first flag turn B, combats, units A, units B, cards played, claims,
    claims broken. card_hex (52,) receives the board labelling. Returns the record length."""
    rng = new_state(seed)
    hand_size = rp[R_HAND]
    # who goes first: both roll the die, the higher roll starts (ties are re-rolled)
    first = 0
    if rp[R_FIRST] == FIRST_ROLL and rp[R_DIE] == 1:
        first = below(rng, 2)  # a one-sided die cannot break the tie: a coin decides
    elif rp[R_FIRST] == FIRST_ROLL:
        while True:
            ra = 1 + below(rng, rp[R_DIE])
            rb = 1 + below(rng, rp[R_DIE])
            if ra != rb:
                first = 0 if ra > rb else 1
                break
    elif rp[R_FIRST] == FIRST_B:
        first = 1
    elif rp[R_FIRST] == FIRST_ALTERNATE:
        first = game_index % 2
    # the 52 hex tiles, shuffled onto the territory hexes
    for c in range(52):
        card_hex[c] = terr[c]
    shuffle(rng, card_hex)
    owner = -np.ones(56, dtype=np.int64)
    units = np.zeros(56, dtype=np.int64)
    hands = -np.ones((2, hand_size), dtype=np.int64)
    hand_n = np.zeros(2, dtype=np.int64)
    deck = np.arange(52).astype(np.int64)
    disc = -np.ones(52, dtype=np.int64)
    ctr = np.zeros(8, dtype=np.int64)
    alloc = np.zeros((56, 2), dtype=np.int64)
    ws = workspace(dec)
    shuffle(rng, deck)
    ctr[C_DECK] = 52
    # deal one card at a time, alternately, starting with the first player
    for i in range(2 * hand_size):
        seat = (first + i) % 2
        ctr[C_DECK] -= 1
        hands[seat, hand_n[seat]] = deck[ctr[C_DECK]]
        hand_n[seat] += 1
        _rec(record, rec, ctr, seat, K_DEAL, deck[ctr[C_DECK]], 0, 0)
    claim = np.array([-1, 0], dtype=np.int64)
    first_flag = np.array([-1, -1], dtype=np.int64)
    claims = 0
    broken = 0
    winner = -1
    reason = END_CAP
    turns = 0
    seat = first
    while turns < rp[R_MAXT]:
        play_turn(seat, owner, units, hands, hand_n, deck, disc, ctr, card_hex, nbr, nbr_n,
                  is_flag, flag_nbrs, flag_nn, flag_of, terr, near, rp, codes, bp, rng, record,
                  rec, alloc, ws)
        turns += 1
        ma = held_mask(owner, units, 0, flag_nbrs, flag_nn, rp[R_MIN])
        mb = held_mask(owner, units, 1, flag_nbrs, flag_nn, rp[R_MIN])
        if ma != 0 and first_flag[0] < 0:
            first_flag[0] = turns
        if mb != 0 and first_flag[1] < 0:
            first_flag[1] = turns
        had = claim[0]
        w = resolve_claims(seat, ma if seat == 0 else mb, mb if seat == 0 else ma, claim,
                           rp[R_WIN], rp[R_STILL])
        if had == 1 - seat and w < 0:
            broken += 1
        if claim[0] == seat:
            claims += 1
        _rec(record, rec, ctr, seat, K_END, ma | (mb << 4), (claim[0] + 1) | (claim[1] << 2), w + 1)
        if w >= 0:
            winner = w
            reason = END_FLAGS
            break
        seat = 1 - seat
    out[0] = winner
    out[1] = reason
    out[2] = turns
    out[3] = first
    out[4] = popcount4(held_mask(owner, units, 0, flag_nbrs, flag_nn, rp[R_MIN]))
    out[5] = popcount4(held_mask(owner, units, 1, flag_nbrs, flag_nn, rp[R_MIN]))
    out[6] = first_flag[0]
    out[7] = first_flag[1]
    out[8] = ctr[C_COMBATS]
    ua = 0
    ub = 0
    for h in range(56):
        if owner[h] == 0:
            ua += units[h]
        elif owner[h] == 1:
            ub += units[h]
    out[9] = ua
    out[10] = ub
    out[11] = ctr[C_PLAYED]
    out[12] = claims
    out[13] = broken
    return ctr[C_REC]


N_OUT = 14


@njit(cache=True)
def run_kernel(run_seed, first_game, n_games, nbr, nbr_n, is_flag, flag_nbrs, flag_nn, flag_of,
               terr, near, rp, codes, bp, record, rec):
    """Play games first_game .. first_game + n_games - 1 (one entry point for chunks and traces,
    so the whole game compiles once). Returns out[n_games, N_OUT], the last game's card_hex (52,)
    and, when record is true (n_games = 1), the number of rows written to rec."""
    out = np.zeros((n_games, N_OUT), dtype=np.int64)
    card_hex = np.zeros(52, dtype=np.int64)
    row = np.zeros(N_OUT, dtype=np.int64)
    n = 0
    dec = decay_table(near)
    for g in range(n_games):
        gi = first_game + g
        n = play_game(game_seed(run_seed, gi), gi, nbr, nbr_n, is_flag, flag_nbrs, flag_nn,
                      flag_of, terr, near, rp, codes, bp, record, rec, row, card_hex, dec)
        out[g, :] = row
    return out, card_hex, n
