"""Compiled rules of Four flags on the engine interface (sim/engine/drivers.py): the rule tables, the
position, and the rule functions; the bots are in bots.py, registration in game.py.

Board index map of the card's board (hex = row * cols + col; `board = "standard"`, odd rows shifted right; "mirrored"
shifts the even rows, so W sits at (3,0) and E at (4,6)). Flags hold no units, are never entered:

    row 0   00 01 02 N3 04 05 06            N = flag North (0,3): neighbours 2, 4, 9, 10
    row 1     07 08 09 10 11 12 13
    row 2   14 15 16 17 18 19 20
    row 3     21 22 23 24 25 26 E6          E = flag East (3,6): neighbours 20, 26, 34
    row 4   W0 29 30 31 32 33 34            W = flag West (4,0): neighbours 21, 29, 35
    row 5     35 36 37 38 39 40 41
    row 6   42 43 44 45 46 47 48
    row 7     49 50 51 S3 53 54 55          S = flag South (7,3): neighbours 45, 46, 51, 53

Other boards (`board_rows`, `board_cols`, `flag_cells`) have t.n_hex hexes in the same order.
A card is 0 .. t.n_cards - 1, worth t.card_val[card] units; with the card's deck card = suit * 13 +
rank index and value = rank index + 2 (2..10, J 11, Q 12, K 13, A 14: `card_values`, `deck` and
position.Deck say otherwise); card_hex[card] is the territory hex the card points to (the tiles
shuffled onto the board each game: one per card).

A turn is a sequence of engine decisions by the seat to move (st[PHASE] says which):

    CARD   play a card of the hand                   move = card (0..51)      the seat's cards_per_turn
                                                                             times
    REINF  (a card on an own hex) one unit onto      move = MV_REINF + hex    once per unit
           an own hex
           -- when the last card is done, apply rolls the die: st[STEPS_LEFT] = roll --
    STEP   a step's source and destination           move = MV_STEP + src * 6 + slot (to
                                                     nbr[src, slot]), or MV_STOP
    COUNT  how many units that step moves            move = MV_COUNT + k
           -- after `roll` steps or a stop: draw back up, judge claims, the other seat's turn --

Legal moves are listed in the order the random bot drew from before the engine (hand slots,
own hexes in hex order, (source, slot) pairs in board order then "stop", counts ascending), so
the engine's uniform bot is that random bot, draw for draw. Chance events (first-seat rolls, the
two shuffles and the deal in `new_position_at`; the die, reshuffles and draws in `apply`) take
the generator's draws in the order the old one-call-per-chunk kernel took them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim import engine
from sim.engine.jit import hot, hot_inline, kernel
from sim.engine.rng import below, shuffle

# The functions run at every decision (to_move, legal_moves, apply, bots.bot_move and all they
# call) allocate nothing and are compiled without numba's reference counting (`implement`'s
# no_alloc). Each takes the tables, position and scratch, 34 arrays: with reference counting
# every call adds and drops a reference to each, atomically, which cost more than the rules.
# (`hot`, `hot_inline`, `hot_fused`: sim/engine/jit.py.)

N_HEX, N_CARDS, N_FLAGS = 56, 52, 4  # the card's board and deck (other rules: t.n_hex, t.n_cards)
FIRST_ROLL, FIRST_A, FIRST_B, FIRST_ALTERNATE = 0, 1, 2, 3
STILL_SAME, STILL_ANY = 0, 1
STILL_CODES = {"same": STILL_SAME, "any3": STILL_ANY}
FIRST_CODES = {"roll": FIRST_ROLL, "A": FIRST_A, "B": FIRST_B, "alternate": FIRST_ALTERNATE}
END_FLAGS, END_CAP = 0, 1
# phases and move codes
CARD, REINF, STEP, COUNT = 0, 1, 2, 3
MV_CARD, MV_REINF, MV_STOP, MV_STEP, MV_COUNT = 0, 100, 199, 200, 1000
# position.st fields
(PHASE, SEAT, TURNS, FIRST, DECK_N, DISC_N, COMBATS, PLAYED, CLAIM_SEAT, CLAIM_MASK, FIRST_FLAG_A,
 FIRST_FLAG_B, CLAIMS, BROKEN, WINNER, OVER, REASON, CARDS_LEFT, REINF_V, REINF_LEFT, STEPS_LEFT,
 PEND, DECISIONS, LOG_N, OWN_N, HAND_LIM) = range(26)
HAND_N = HAND_LIM + 2  # st[HAND_LIM + s]: the cards seat s draws back up to; st[HAND_N + s]: holds
N_ST = HAND_N + 2
DECK, DISC, CARD_HEX = 0, 1, 2  # rows of position.cards
NBR_N, IS_FLAG, FLAG_OF = 0, 1, 2  # rows of tables.hexinfo
FLAG_NN = 6  # column of tables.flags: how many neighbours
# the trace's action log: row = (seat, kind, a, b, c)
K_DEAL, K_PLAY, K_ALLOC, K_ROLL, K_STEP, K_DRAW, K_SHUFFLE, K_END = range(8)
EFFECT_PLACE, EFFECT_REINFORCE, EFFECT_DISCARD = 0, 1, 2
REC_COLS = 5
# result row after the scores (flags held at the end): the game's own columns
EXTRA = ("flags_held_A", "flags_held_B", "flags_first_flag_turn_A", "flags_first_flag_turn_B",
         "flags_combats", "flags_units_A", "flags_units_B", "flags_cards_played", "flags_claims",
         "flags_claims_broken")


class Tables(NamedTuple):
    n_seats: np.int64
    max_moves: np.int64  # the longest list: all (source, slot) pairs or a big stack's counts
    turn_cap: np.int64  # 0: the game caps itself at max_turns turns (a draw, END_CAP)
    res_width: np.int64
    n_hex: np.int64  # rows x cols
    n_cards: np.int64  # cards in the deck (at most the territory hexes: one tile per card)
    hand_a: np.int64  # hand_size of seat A ...
    hand_b: np.int64  # ... and of seat B
    second_extra: np.int64  # more cards in the hand of the player who moves second
    cards_a: np.int64  # cards_per_turn of seat A ...
    cards_b: np.int64  # ... and of seat B
    first_turn_cards: np.int64  # cards the first player plays on the game's first turn (0: its cards_per_turn)
    die_sides: np.int64
    min_hold: np.int64
    flags_to_win: np.int64
    still: np.int64  # STILL_SAME / STILL_ANY
    keep: np.int64  # units a step leaves on its source: 1 with the bleed, else 0
    first: np.int64  # FIRST_*
    attrition: np.int64  # 1: a step may attack with equal or fewer units (attacks = "attrition")
    max_turns: np.int64
    log_rows: np.int64  # capacity of position.log: 0 in chunks, the trace's bound when traced
    # Few, larger arrays: every call of a rule function hands on each array of the tables and
    # the position as several machine words (a decision of the random bot makes three calls)
    nbr: np.ndarray  # int64[56, 6] neighbour hexes, -1 padded
    hexinfo: np.ndarray  # int64[3, 56]: rows NBR_N (neighbours), IS_FLAG (1 on a flag), FLAG_OF
    #                      (the flag a hex surrounds, -1 if none)
    flags: np.ndarray  # int64[4, 7]: flag N, S, W, E's neighbour hexes (-1 padded), then at
    #                    column FLAG_NN how many (4, 4, 3, 3)
    near: np.ndarray  # int64[56, 56, 2]: (hex, steps) every hex reachable from e, nearest first
    dec: np.ndarray  # float64[56, 56]: 0.7 ** steps (greedy's field), 0 beyond 11 or via a flag
    card_val: np.ndarray  # int64[n_cards]: units a card is worth

    # the board's tables by name, for Python (compiled code reads the rows above)
    @property
    def nbr_n(self):
        return self.hexinfo[NBR_N]

    @property
    def is_flag(self):
        return self.hexinfo[IS_FLAG]

    @property
    def flag_of(self):
        return self.hexinfo[FLAG_OF]

    @property
    def flag_nbrs(self):
        return self.flags[:, :6]

    @property
    def flag_nn(self):
        return self.flags[:, FLAG_NN]


class Position(NamedTuple):
    owner: np.ndarray  # int64[56]: -1 empty (always on flags), else the seat holding the hex
    units: np.ndarray  # int64[56]: units on the hex (0 iff empty)
    hands: np.ndarray  # int64[2, largest hand]: hands[s, :st[HAND_N + s]] are seat s's cards, -1 after
    cards: np.ndarray  # int64[3, 52]: row DECK the draw pile cards[DECK, :st[DECK_N]], top card
    #                    last; row DISC the discard pile cards[DISC, :st[DISC_N]] (public); row
    #                    CARD_HEX the board's labelling, the hex each card points to (public)
    known: np.ndarray  # int8[2, 52]: known[s, c] = 1 when seat s knows card c is in the other
    #                    hand (the deck ran out: both hands were known at the reshuffle)
    reinf: np.ndarray  # int64[2, 56]: the reinforcement being played: row 0 the units it has put
    #                    on each hex, row 1 the mover's hexes reinf[1, :st[OWN_N]] in hex order
    #                    (its legal moves, unchanged until it ends; one array, not two: every
    #                    array of the position is handed on at each call)
    st: np.ndarray  # int64[N_ST]: phase, seat, turn and pile counters, claims, hand sizes ...
    log: np.ndarray  # int64[log_rows, 5]: the traced game's actions (not seen by any bot)

    # by name, for Python (compiled code reads the rows and fields above)
    @property
    def hand_n(self):
        return self.st[HAND_N:HAND_N + 2]

    @property
    def deck(self):
        return self.cards[DECK]

    @property
    def disc(self):
        return self.cards[DISC]

    @property
    def card_hex(self):
        return self.cards[CARD_HEX]


def hand_sizes(rules: dict) -> tuple[int, int]:
    """hand_size of seat A and B (one value or a table by seat)."""
    h = rules["hand_size"]
    return (h["A"], h["B"]) if isinstance(h, dict) else (h, h)


def cards_per_turn(rules: dict) -> tuple[int, int]:
    """cards_per_turn of seat A and B (one value or a table by seat)."""
    c = rules["cards_per_turn"]
    return (c["A"], c["B"]) if isinstance(c, dict) else (c, c)


def max_hand(rules: dict) -> int:
    return max(hand_sizes(rules)) + rules.get("second_player_cards", 0)


def build_tables(rules: dict, layout_tables: tuple, dec: np.ndarray, card_val: np.ndarray,
                 traced: bool) -> Tables:
    """Tables for resolved rules; layout_tables = geometry.Board.tables() (nbr .. near; the
    territory list is left out: the set-up finds it from is_flag, and every array of the tables
    is handed on at each call); card_val = position.Deck.values."""
    turns, die = rules["max_turns"], rules["die_sides"]
    ca, cb = cards_per_turn(rules)
    cards = max(ca, cb, rules.get("first_turn_cards", 0))
    hand, top, n_hex = max_hand(rules), int(card_val.max()), layout_tables[0].shape[0]
    # a stack never holds more units than all cards played: the count list's bound
    max_moves = max(6 * n_hex + 1, turns * cards * top + 1)
    log_rows = turns * (cards * (top + 2) + die + 2 * hand + 3) + 2 * hand + 8 if traced else 0
    i = np.int64
    ha, hb = hand_sizes(rules)
    return Tables(i(2), i(max_moves), i(0), i(engine.SCORES + 2 + len(EXTRA)), i(n_hex), i(len(card_val)),
                  i(ha), i(hb), i(rules.get("second_player_cards", 0)), i(ca), i(cb),
                  i(rules.get("first_turn_cards", 0)), i(die), i(rules["min_hold_units"]),
                  i(rules["flags_to_win"]), i(STILL_CODES[rules["still_hold"]]), i(1 if rules["bleed"] else 0),
                  i(FIRST_CODES[rules["first_player"]]), i(1 if rules.get("attacks") == "attrition" else 0),
                  i(turns), i(log_rows), *_packed_board(layout_tables), dec, np.asarray(card_val, np.int64))


def _packed_board(layout_tables: tuple) -> tuple:
    """(nbr, hexinfo, flags, near) from geometry.Board.tables()."""
    nbr, nbr_n, is_flag, flag_nbrs, flag_nn, flag_of, _, near = layout_tables
    flags = np.concatenate([flag_nbrs, flag_nn[:, None]], axis=1).astype(np.int64)
    return nbr, np.stack([nbr_n, is_flag, flag_of]).astype(np.int64), flags, near


def max_decisions(rules: dict, top_value: int = 14) -> int:
    """Bound on a game's decisions: per turn each card and reinforcement unit (a card is worth at
    most top_value), two per step, a stop."""
    cards = max(*cards_per_turn(rules), rules.get("first_turn_cards", 0))
    return rules["max_turns"] * (cards * (top_value + 1) + 2 * rules["die_sides"] + 1) + 1


@hot_inline
def _log(t, pos, seat, kind, a, b, c):
    i = pos.st[LOG_N]
    if i < pos.log.shape[0]:
        pos.log[i, 0] = seat
        pos.log[i, 1] = kind
        pos.log[i, 2] = a
        pos.log[i, 3] = b
        pos.log[i, 4] = c
        pos.st[LOG_N] = i + 1


# ---- rules on plain arrays (also called by tests and bots) -----------------------------------
@hot
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


@hot
def popcount4(m):
    return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1)


@hot
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


@kernel
def step_ok(owner, units, seat, src, dst, k, nbr, nbr_n, is_flag, bleed, attrition=False):
    """Is moving k units from src to its neighbour dst a legal move step for seat? (attrition:
    an attack with equal or fewer units is allowed too)"""
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
    if owner[dst] == 1 - seat and k <= units[dst] and not attrition:
        return False
    return True


@hot
def apply_step(owner, units, seat, src, dst, k):
    """Move k units (legal, see step_ok); combat leaves the difference: more attackers hold the
    hex with it, equal or fewer (attacks = "attrition") knock the defender down by k, emptying
    the hex when equal. Returns units killed."""
    units[src] -= k
    if units[src] == 0:
        owner[src] = -1
    killed = 0
    if owner[dst] == seat:
        units[dst] += k
    elif owner[dst] == -1:
        owner[dst] = seat
        units[dst] = k
    elif k <= units[dst]:
        killed = 2 * k
        units[dst] -= k
        if units[dst] == 0:
            owner[dst] = -1
    else:
        killed = 2 * units[dst]
        units[dst] = k - units[dst]
        owner[dst] = seat
    return killed


@hot_inline
def count_range(t, owner, units, seat, src, dst):
    """(fewest, most) units a step src -> dst may move (fewest > most: none)."""
    kmin = units[dst] + 1 if owner[dst] == 1 - seat and t.attrition == 0 else 1
    return kmin, units[src] - t.keep


@hot_inline
def per_turn(t, seat):
    """Cards `seat` plays each turn (cards_per_turn, by seat)."""
    return t.cards_a if seat == 0 else t.cards_b


# ---- set-up -------------------------------------------------------------------------------------
@kernel
def _first_seat(t, rng, game_index):
    """Who starts: both roll the die, the higher roll starts (ties re-rolled); a one-sided die
    cannot break the tie, so a coin decides; or fixed, or alternating with the game index."""
    if t.first == FIRST_ROLL and t.die_sides == 1:
        return below(rng, 2)
    if t.first == FIRST_ROLL:
        while True:
            ra = 1 + below(rng, t.die_sides)
            rb = 1 + below(rng, t.die_sides)
            if ra != rb:
                return 0 if ra > rb else 1
    if t.first == FIRST_B:
        return 1
    if t.first == FIRST_ALTERNATE:
        return game_index % 2
    return 0


@kernel
def new_position_at(t, rng, game_index):
    first = _first_seat(t, rng, game_index)
    nh, nc = t.n_hex, t.n_cards
    terr = np.empty(nh, np.int64)  # the territory hexes; the card's tiles are shuffled onto them
    n = 0
    for h in range(nh):
        if t.hexinfo[IS_FLAG, h] == 0:
            terr[n] = h
            n += 1
    shuffle(rng, terr[:n])
    cards = -np.ones((3, nc), np.int64)
    for c in range(nc):  # one tile per card: a smaller deck leaves hexes unlabelled
        cards[CARD_HEX, c] = terr[c]
    deck = cards[DECK]
    for c in range(nc):
        deck[c] = c
    shuffle(rng, deck)
    st = np.zeros(N_ST, np.int64)
    lim = st[HAND_LIM:HAND_LIM + 2]
    lim[0] = t.hand_a + (t.second_extra if first == 1 else 0)
    lim[1] = t.hand_b + (t.second_extra if first == 0 else 0)
    pos = Position(-np.ones(nh, np.int64), np.zeros(nh, np.int64),
                   -np.ones((2, max(lim[0], lim[1])), np.int64), cards, np.zeros((2, nc), np.int8),
                   np.zeros((2, nh), np.int64), st, np.zeros((t.log_rows, REC_COLS), np.int64))
    st[SEAT] = first
    st[FIRST] = first
    st[DECK_N] = nc
    st[CLAIM_SEAT] = -1
    st[FIRST_FLAG_A] = -1
    st[FIRST_FLAG_B] = -1
    st[WINNER] = -1
    st[REASON] = END_CAP
    st[CARDS_LEFT] = t.first_turn_cards if t.first_turn_cards > 0 else per_turn(t, first)
    st[PHASE] = CARD
    # deal one card at a time, alternately, starting with the first player (once one hand is
    # full, the rest to the other)
    seat = first
    while st[HAND_N] < lim[0] or st[HAND_N + 1] < lim[1]:
        if st[HAND_N + seat] == lim[seat]:
            seat = 1 - seat
        st[DECK_N] -= 1
        card = deck[st[DECK_N]]
        pos.hands[seat, st[HAND_N + seat]] = card
        st[HAND_N + seat] += 1
        _log(t, pos, seat, K_DEAL, card, 0, 0)
        seat = 1 - seat
    return pos


@kernel
def new_position(t, rng):
    return new_position_at(t, rng, 0)


@hot_inline
def to_move(t, pos):
    return -1 if pos.st[OVER] == 1 else pos.st[SEAT]


# ---- legal moves ----------------------------------------------------------------------------------
@hot_inline
def _step_pairs(t, owner, units, seat, out):
    """MV_STEP + src * 6 + slot for every (source, neighbour) with a legal step, board order."""
    nbr, nbr_n, is_flag, keep = t.nbr, t.hexinfo[NBR_N], t.hexinfo[IS_FLAG], t.keep  # bound once: see bots.py
    strict = t.attrition == 0
    n = 0
    for src in range(t.n_hex):
        if owner[src] != seat or units[src] - keep < 1:
            continue
        for i in range(nbr_n[src]):
            dst = nbr[src, i]
            if is_flag[dst] == 1 or (strict and owner[dst] == 1 - seat and units[src] - keep <= units[dst]):
                continue
            out[n] = MV_STEP + src * 6 + i
            n += 1
    return n


@hot_inline
def legal_moves(t, pos, out):
    st = pos.st
    if st[OVER] == 1:
        return 0
    seat = st[SEAT]
    ph = st[PHASE]
    n = 0
    if ph == CARD:
        hand = pos.hands[seat]
        n = st[HAND_N + seat]
        for i in range(n):
            out[i] = MV_CARD + hand[i]
    elif ph == REINF:
        own = pos.reinf[1]
        n = st[OWN_N]
        for i in range(n):
            out[i] = MV_REINF + own[i]
    elif ph == STEP:
        n = _step_pairs(t, pos.owner, pos.units, seat, out)
        out[n] = MV_STOP
        n += 1
    else:
        src = st[PEND] // 6
        kmin, kmax = count_range(t, pos.owner, pos.units, seat, src, t.nbr[src, st[PEND] % 6])
        for k in range(kmin, kmax + 1):
            out[n] = MV_COUNT + k
            n += 1
    return n


# ---- apply: one function per phase --------------------------------------------------------------
# The phase functions below are compiled functions of their own, not inline: inlined, apply's
# body (each phase, _end_turn and _draw_up more than once) took numba 10 s to type and lower, once
# for every set of caller flags (the drivers, the search); as functions, greedy and random games/s
# stayed within the spread of alternated rounds (about 3% lower on average, docs/engine/flags.md).
@hot_inline
def apply(t, pos, move, rng):
    st = pos.st
    ph = st[PHASE]
    seat = st[SEAT]
    st[DECISIONS] += 1
    if ph == CARD:
        _play_card(t, pos, seat, move - MV_CARD, rng)
    elif ph == REINF:
        _add_unit(t, pos, seat, move - MV_REINF, rng)
    elif ph == STEP:
        if move == MV_STOP:
            _end_turn(t, pos, seat, rng)
        else:
            st[PEND] = move - MV_STEP
            st[PHASE] = COUNT
    else:
        _step(t, pos, seat, move - MV_COUNT, rng)


@hot
def _play_card(t, pos, seat, card, rng):
    """The card leaves the hand (the last card takes its slot) for the discard pile; it places
    units on an empty hex, reinforces on an own hex, or is wasted on the opponent's."""
    st = pos.st
    hand = pos.hands[seat]
    n = st[HAND_N + seat] - 1
    i = 0
    while hand[i] != card:
        i += 1
    hand[i] = hand[n]
    hand[n] = -1
    st[HAND_N + seat] = n
    pos.known[1 - seat, card] = 0
    pos.cards[DISC, st[DISC_N]] = card
    st[DISC_N] += 1
    st[PLAYED] += 1
    h = pos.cards[CARD_HEX, card]
    v = t.card_val[card]
    if pos.owner[h] == -1:
        pos.owner[h] = seat
        pos.units[h] = v
        _log(t, pos, seat, K_PLAY, card, h, EFFECT_PLACE)
    elif pos.owner[h] == seat:
        _log(t, pos, seat, K_PLAY, card, h, EFFECT_REINFORCE)
        owner, placed, own = pos.owner, pos.reinf[0], pos.reinf[1]
        n_own = 0
        for x in range(t.n_hex):
            placed[x] = 0
            if owner[x] == seat:
                own[n_own] = x
                n_own += 1
        st[OWN_N] = n_own
        st[REINF_V] = v
        st[REINF_LEFT] = v
        st[PHASE] = REINF
        return
    else:
        _log(t, pos, seat, K_PLAY, card, h, EFFECT_DISCARD)
    _card_done(t, pos, rng)


@hot
def _card_done(t, pos, rng):
    """Next card, or (the last one played) the die roll and the move steps."""
    st = pos.st
    st[CARDS_LEFT] -= 1
    if st[CARDS_LEFT] > 0:
        st[PHASE] = CARD
        return
    roll = 1 + below(rng, t.die_sides)
    _log(t, pos, st[SEAT], K_ROLL, roll, 0, 0)
    st[STEPS_LEFT] = roll
    st[PHASE] = STEP


@hot
def _add_unit(t, pos, seat, h, rng):
    st = pos.st
    pos.units[h] += 1
    pos.reinf[0, h] += 1
    i = st[LOG_N] - 1  # one log row per hex and run of units
    if i >= 0 and pos.log.shape[0] > 0 and pos.log[i, 1] == K_ALLOC and pos.log[i, 2] == h:
        pos.log[i, 3] += 1
    else:
        _log(t, pos, seat, K_ALLOC, h, 1, 0)
    st[REINF_LEFT] -= 1
    if st[REINF_LEFT] == 0:
        _card_done(t, pos, rng)


@hot
def _step(t, pos, seat, k, rng):
    st = pos.st
    src = st[PEND] // 6
    dst = t.nbr[src, st[PEND] % 6]
    if apply_step(pos.owner, pos.units, seat, src, dst, k) > 0:
        st[COMBATS] += 1
    _log(t, pos, seat, K_STEP, src, dst, k)
    st[STEPS_LEFT] -= 1
    if st[STEPS_LEFT] == 0:
        _end_turn(t, pos, seat, rng)
    else:
        st[PHASE] = STEP


@hot
def _draw_up(t, pos, seat, rng):
    """Draw back up to hand_size; an empty deck is rebuilt from the shuffled discards (at that
    moment each seat knows the other's hand: every other card is public)."""
    st = pos.st
    deck = pos.cards[DECK]
    while st[HAND_N + seat] < st[HAND_LIM + seat]:
        if st[DECK_N] == 0:
            n = st[DISC_N]
            disc = pos.cards[DISC]
            for i in range(n):
                deck[i] = disc[i]
            st[DECK_N] = n
            st[DISC_N] = 0
            pos.known[:, :] = 0
            for s in range(2):
                for i in range(st[HAND_N + s]):
                    pos.known[1 - s, pos.hands[s, i]] = 1
            shuffle(rng, deck[:n])
            _log(t, pos, seat, K_SHUFFLE, n, 0, 0)
        st[DECK_N] -= 1
        card = deck[st[DECK_N]]
        pos.hands[seat, st[HAND_N + seat]] = card
        st[HAND_N + seat] += 1
        _log(t, pos, seat, K_DRAW, card, 0, 0)


@hot
def _end_turn(t, pos, seat, rng):
    """Draw back up, then the claims: judge the other seat's claim, maybe start the mover's;
    the game ends on a win or at the turn cap, else the other seat's turn begins."""
    st = pos.st
    _draw_up(t, pos, seat, rng)
    st[TURNS] += 1
    ma = held_mask(pos.owner, pos.units, 0, t.flags, t.flags[:, FLAG_NN], t.min_hold)
    mb = held_mask(pos.owner, pos.units, 1, t.flags, t.flags[:, FLAG_NN], t.min_hold)
    if ma != 0 and st[FIRST_FLAG_A] < 0:
        st[FIRST_FLAG_A] = st[TURNS]
    if mb != 0 and st[FIRST_FLAG_B] < 0:
        st[FIRST_FLAG_B] = st[TURNS]
    had = st[CLAIM_SEAT]
    claim = st[CLAIM_SEAT:CLAIM_MASK + 1]
    w = resolve_claims(seat, ma if seat == 0 else mb, mb if seat == 0 else ma, claim,
                       t.flags_to_win, t.still)
    if had == 1 - seat and w < 0:
        st[BROKEN] += 1
    if st[CLAIM_SEAT] == seat:
        st[CLAIMS] += 1
    _log(t, pos, seat, K_END, ma | (mb << 4), (st[CLAIM_SEAT] + 1) | (st[CLAIM_MASK] << 2), w + 1)
    if w >= 0:
        st[WINNER] = w
        st[REASON] = END_FLAGS
        st[OVER] = 1
    elif st[TURNS] >= t.max_turns:
        st[OVER] = 1
    else:
        st[SEAT] = 1 - seat
        st[CARDS_LEFT] = per_turn(t, 1 - seat)
        st[PHASE] = CARD


# ---- result, copy, hidden information -------------------------------------------------------
@kernel
def result(t, pos, capped, res):
    """winner, end reason, turns, first seat, flags held at the end (the scores), then EXTRA."""
    st = pos.st
    res[engine.WINNER] = st[WINNER]
    res[engine.END_REASON] = END_CAP if capped else st[REASON]
    res[engine.TURNS] = st[TURNS]
    res[engine.FIRST_SEAT] = st[FIRST]
    ua = 0
    ub = 0
    for h in range(t.n_hex):
        if pos.owner[h] == 0:
            ua += pos.units[h]
        elif pos.owner[h] == 1:
            ub += pos.units[h]
    x = engine.SCORES
    for seat in range(2):
        held = popcount4(held_mask(pos.owner, pos.units, seat, t.flags, t.flags[:, FLAG_NN], t.min_hold))
        res[x + seat] = held
        res[x + 2 + seat] = held
    res[x + 4] = st[FIRST_FLAG_A]
    res[x + 5] = st[FIRST_FLAG_B]
    res[x + 6] = st[COMBATS]
    res[x + 7] = ua
    res[x + 8] = ub
    res[x + 9] = st[PLAYED]
    res[x + 10] = st[CLAIMS]
    res[x + 11] = st[BROKEN]


@kernel
def copy_position(t, pos):
    return Position(pos.owner.copy(), pos.units.copy(), pos.hands.copy(), pos.cards.copy(),
                    pos.known.copy(), pos.reinf.copy(), pos.st.copy(), pos.log.copy())


@kernel
def sample_hidden(t, pos, seat, rng):
    """Redraw what `seat` cannot see: the other hand's cards it does not know and the draw
    pile's order, from those same cards (its own hand, the discards, the board, every count and
    the cards it knows to be in the other hand stay as they are). The shuffle starts from those
    cards in card order, a set the seat can work out, not from where they lie: two positions
    that look the same to the seat give the same world for the same generator, so nothing
    hidden reaches a search through the draw. Seat -1 (what nobody has seen): the draw pile's
    order alone, both hands kept."""
    other = 1 - seat if seat >= 0 else 0
    nc = t.n_cards
    unseen = np.zeros(nc, np.int8)
    nh = pos.st[HAND_N + other]
    deck = pos.cards[DECK]
    for i in range(nh if seat >= 0 else 0):
        if pos.known[seat, pos.hands[other, i]] == 0:
            unseen[pos.hands[other, i]] = 1
    for j in range(pos.st[DECK_N]):
        unseen[deck[j]] = 1
    pool = np.empty(nc, np.int64)
    n = 0
    for c in range(nc):
        if unseen[c] == 1:
            pool[n] = c
            n += 1
    shuffle(rng, pool[:n])
    k = 0
    for i in range(nh if seat >= 0 else 0):
        if pos.known[seat, pos.hands[other, i]] == 0:
            pos.hands[other, i] = pool[k]
            k += 1
    for j in range(pos.st[DECK_N]):
        deck[j] = pool[k]
        k += 1


# ---- traced games ---------------------------------------------------------------------------------
@kernel
def replay(t, seed, game_index, rec):
    """The position after the decisions of a traced game (rec = engine record: seat, move,
    generator state before apply; a pie-rule swap is skipped), with t.log_rows > 0 so it carries
    the action log."""
    rng = np.empty(1, np.uint64)
    rng[0] = np.uint64(seed)
    pos = new_position_at(t, rng, game_index)
    for i in range(rec.shape[0]):
        if rec[i, 1] == engine.SWAP_MOVE:  # the pie rule: the players swapped, not a move
            continue
        rng[0] = np.uint64(rec[i, 2])
        apply(t, pos, rec[i, 1], rng)
    return pos


def make_position(t: Tables, owner, units, hands, deck, card_hex, seat: int, disc=()) -> Position:
    """A position at the start of `seat`'s turn from plain lists (tests, designers): hands is
    two lists of cards, deck the draw pile (top card last); both seats draw back up to their
    hand_size (seat A's, B's)."""
    lim = (int(t.hand_a), int(t.hand_b))
    h = -np.ones((2, max(lim)), np.int64)
    for s in range(2):
        h[s, :len(hands[s])] = hands[s]
    nc = int(t.n_cards)
    cards = -np.ones((3, nc), np.int64)
    cards[DECK, :] = 0
    cards[DECK, :len(deck)] = deck
    cards[DISC, :len(disc)] = disc
    cards[CARD_HEX, :len(card_hex)] = card_hex
    st = np.zeros(N_ST, np.int64)
    st[[SEAT, DECK_N, DISC_N, CARDS_LEFT]] = seat, len(deck), len(disc), (t.cards_a, t.cards_b)[seat]
    st[[CLAIM_SEAT, FIRST_FLAG_A, FIRST_FLAG_B, WINNER, REASON]] = -1, -1, -1, -1, END_CAP
    st[HAND_LIM:HAND_LIM + 2] = lim
    st[HAND_N:HAND_N + 2] = len(hands[0]), len(hands[1])
    return Position(np.array(owner, np.int64), np.array(units, np.int64), h, cards,
                    np.zeros((2, nc), np.int8), np.zeros((2, int(t.n_hex)), np.int64), st,
                    np.zeros((int(t.log_rows), REC_COLS), np.int64))
