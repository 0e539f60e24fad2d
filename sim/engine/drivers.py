"""The drivers: one chunk driver and one traced driver written once for every game, and checked
play (`checking`), which names a bot's illegal move. The interface the games implement is
sim/engine/interface.py; the search bot is sim/engine/search.py; `EngineGame` (sim/engine/game.py)
calls the drivers for a game.
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

from sim.engine import search
from sim.engine.interface import (
    BOT_UNIFORM,
    REC_W,
    apply,
    bot_move,
    costly_bots,
    costly_move,
    evaluate,
    implemented,
    legal_moves,
    new_position_at,
    new_scratch,
    plays_by_rollout,
    reset,
    result,
    run_rollout,
    to_move,
    uniform_move,
)
from sim.engine.jit import entry, kernel
from sim.engine.rng import below, game_seed, new_state

# a trace's record of the pie rule: the second seat took over the first seat's position
SWAP_MOVE = -3

# A move the drivers refuse (play_game's fault). Move codes are never negative (the engine
# reserves them: -1 is a bot's "no move", SWAP_MOVE the pie rule), so a negative one is refused
# in every run: one comparison per decision. Checked play (`checking`) also refuses a move that
# `legal_moves` does not list, before it is applied.
FAULT_NONE, FAULT_NO_MOVE, FAULT_ILLEGAL = 0, 1, 2
FAULTS = ("", "the bot returned no move (a negative move code)", "illegal move (legal_moves does not list it)")
# Checked play's probe (int64[PROBE_W]): where the game stands, written before each step, so that
# an error a kernel raises (an index out of bounds, under numba's bounds checking) is located by
# what was written last: the game, its decision, the seat, the move (-1 while the bot chooses).
# Every play passes one; P_ON says whether it is checked. The legality test needs a move list:
# checked play passes `rare` (below), so it runs the drivers a line-up with the pie rule or the
# uniform bot compiles anyway, and a search or costly line-up the only drivers it has (a probe of
# another type for checked play compiled every driver once more: about 15 s per game and bot
# family, the chunk and the traced game).
P_GAME, P_DECISION, P_SEAT, P_MOVE, P_STAGE, P_ON = range(6)
PROBE_W = 6
STAGE_SETUP, STAGE_CHOOSE, STAGE_APPLY, STAGE_RESULT = range(4)
STAGES = ("setting the game up", "while the bot chose its move", "applying the move", "writing the result")


# Compile time: numba optimises each compiled function's module again with every function it
# calls linked in, so each layer of calls re-optimises everything below it. The thin layers
# between the drivers and the rules (choose, wants_swap, play_game; the search bot's steps) are
# inlined where they are called (inline="always"), which spares those passes: an empty-cache
# compile of HEXFLOW's kernels took 19% less CPU and Four flags' 24%, with the same games/s.
#
# The drivers are compiled per bot family. The bot is chosen at run time (a code per seat), so a
# driver that can play the search bot compiles the whole search (and the game's rules again
# inside it) even for a line-up of random and greedy seats. The drivers therefore take the
# search bot's kit (its tree, and which parts of the search the line-up plays: `search.kit`) as
# an argument, None for a line-up without a search seat, and call the search
# only under `if kit is None: ... else:`: numba prunes the branch a None argument cannot take
# before it types the function, so a run of the game's own bots compiles nothing of
# sim/engine/search.py. The kit prunes the search the same way, part by part (the tree search
# at the root, the halving root, the tree below its moves, best-reply steps, the search's answer
# to the pie rule): a line-up of one search bot compiles the parts its settings play (Four
# flags' first search run from an empty cache compiles about 40% less than with every part),
# one signature of the drivers per set of parts, each cached. `play_chunk` / `play_traced` pick
# the family from the line-up's codes; for a line-up without a search seat both families play
# the same games (tests/test_engine_families.py).
# (The first version chose by overloads on the tree's type, inlined where called at the typed
# level; with them the test fixture game's first mcts run, empty cache, took 12.3-12.4 CPU s
# where the pruned branch takes 10.2-10.5.)
#
# A game's own costly bots (`implement`'s costly_bots: HEXFLOW Race's lookahead) are pruned the
# same way: the drivers take `costly`, None for a line-up that seats none of them, else the
# game's costly codes (int64[k]), and call the game's `costly_move` only under `if costly is
# None: ... else:` (`game_move`). So are the pie rule (the game's `evaluate`, which only
# `wants_swap` needs) and the engine's uniform bot (the game's `legal_moves`, which a game's own
# bots may not need), together: the drivers take `rare`, None for a line-up with neither, else
# the uniform bot's move list (int64[max_moves]). Without them a first greedy run of HEXFLOW
# Battle, Tri, Four flags or HEXATILE compiles 10-15% less. One argument for both, not one each:
# every combination of Nones is a signature of its own, compiled in full (a test suite that
# plays many line-ups compiled the drivers up to four times per game and family); and a line-up
# with a search seat or a costly bot always takes the list, so each of those families has one
# signature, not two.
@kernel(inline="always")
def game_move(tables, pos, seat, code, par, scratch, rng, costly):
    """A bot of the game's own decides: `costly_move` for a costly code (only where the line-up
    seats one: costly not None), `bot_move` otherwise."""
    if costly is None:
        return bot_move(tables, pos, seat, code, par, scratch, rng)
    for c in costly:
        if c == code:
            return costly_move(tables, pos, seat, code, par, scratch, rng)
    return bot_move(tables, pos, seat, code, par, scratch, rng)


@kernel(inline="always")
def choose(tables, pos, seat, code, par, scratch, kit, costly, rng, buf):
    """The seat's bot decides: engine bots by their reserved codes (the uniform bot, the search
    bot of sim/engine/search.py, which needs a kit), the game's own bots otherwise (`game_move`)."""
    if code == BOT_UNIFORM:
        return uniform_move(tables, pos, rng, buf)
    if code == search.BOT_MCTS:
        if kit is None:
            return -1
        return search.mcts_move(tables, pos, seat, par, scratch, kit, rng)
    return game_move(tables, pos, seat, code, par, scratch, rng, costly)


# how a player answers the pie rule (play_game's `swap`, one per player)
SWAP_OFF, SWAP_JUDGE, SWAP_COIN = 0, 1, 2


@kernel(inline="always")
def wants_swap(tables, pos, seat, other, how, code, par, scratch, kit, rng):
    """The pie rule's question to `seat` (the second to move): take over `other`'s position?
    Every bot answers by its own judgement: the game's evaluation for the game's bots (the one
    greedy uses), the search's mean rewards for the search bot, a fair coin for random bots."""
    if how == SWAP_COIN:
        return below(rng, 2) == 1
    if code == search.BOT_MCTS:
        if kit is None:
            return False
        return search.mcts_prefers(tables, pos, seat, other, par, scratch, kit, rng)
    return evaluate(tables, pos, other) > evaluate(tables, pos, seat)


@kernel(inline="always")
def note(check, stage, decision, seat, move):
    """Checked play (check[P_ON] set): what the game does next, in the probe `check`."""
    if check[P_ON]:
        probe = check
        probe[P_STAGE] = stage
        probe[P_DECISION] = decision
        probe[P_SEAT] = seat
        probe[P_MOVE] = move


@kernel(inline="always")
def note_game(check, game_index):
    """Checked play: game `game_index` is being set up."""
    if check[P_ON]:
        check[P_GAME] = game_index
        note(check, STAGE_SETUP, -1, -1, -1)


@kernel(inline="always")
def move_fault(tables, pos, move, check, rare):
    """Why the drivers refuse a bot's move (FAULT_NONE: they do not): a negative code in any
    play, one that `legal_moves` does not list in checked play (check[P_ON] set; checked play
    always passes `rare`, whose move list this uses once the bot has chosen)."""
    if move < 0:
        return FAULT_NO_MOVE
    if rare is None:
        return FAULT_NONE
    if not check[P_ON]:
        return FAULT_NONE
    for i in range(legal_moves(tables, pos, rare)):
        if rare[i] == move:
            return FAULT_NONE
    return FAULT_ILLEGAL


# ---- the drivers ------------------------------------------------------------------------------
@kernel(inline="always")
def play_game(tables, pos, rng, lineup, scratch, kit, costly, rare, rec, res, check):
    """Play one game from its set-up pos (generator rng, as the set-up left it); the first
    rec.shape[0] decisions go to rec[t] = (seat, move, generator state before apply).
    Returns (decisions, swapped, fault). res receives the result row, in the position's seats.
    A move the drivers refuse (`move_fault`) ends the game there, unapplied and without a result
    (fault: why). `check`: the probe (int64[PROBE_W]), checked play (`checking`) where check[P_ON] is set.

    `lineup`: (bot codes int64[players], parameter rows float64[players, P], swap), one tuple
    through every driver. `swap` (int64[players], the pie rule, 2 players): at the second seat's
    first decision after the first seat has decided, the player there may take over the first
    seat's position instead of moving, asked by `wants_swap` as swap[player] says (all SWAP_OFF: no pie rule); the
    players then exchange seats (the other player moves next, from the second seat). A swap is
    recorded as (seat, SWAP_MOVE, state) and is not a decision of the game. `kit`: the search
    bot's (None for a line-up without a search seat); `costly`: the game's costly bot codes
    (None for a line-up that seats none); `rare`: the uniform bot's move list, None for a line-up
    without the pie rule and the uniform bot (`rare_for`). See "Compile time" above."""
    bot_code, bot_par, swap = lineup
    # checked play or not, read once: a read of the probe at every decision, and the legality
    # test behind it, kept the loop from being compiled for unchecked play alone (a random game of
    # Nim, about 20 decisions: 1.1 us with them, 0.33 without)
    checked = check[P_ON] != 0
    # the two seats whose players the pie rule exchanged (-1: none); the player (bot row) deciding
    # for seat s is s otherwise (an array of players per game cost a fifth of a short game)
    ex_a = ex_b = -1
    first = -1
    offer = False
    if rare is not None:
        offer = swap[0] != SWAP_OFF
    swapped = False
    t = 0
    r = 0
    capped = False
    fault = FAULT_NONE
    while True:
        seat = to_move(tables, pos)
        if seat < 0:
            break
        if tables.turn_cap > 0 and t >= tables.turn_cap:
            capped = True
            break
        if first < 0:
            first = seat
        elif offer and seat != first:
            offer = False
            p = seat
            if rare is None:
                swapped = False
            else:
                swapped = wants_swap(tables, pos, seat, first, swap[p], bot_code[p], bot_par[p], scratch, kit, rng)
            if swapped:
                ex_a, ex_b = seat, first
                if r < rec.shape[0]:
                    rec[r, 0] = seat
                    rec[r, 1] = SWAP_MOVE
                    rec[r, 2] = np.int64(rng[0])
                r += 1
        # `choose` written out, and the game's bot called directly unless the line-up seats a
        # costly one: a call hands tables, position and scratch on without taking references to
        # their arrays (see `implement`'s no_alloc), while numba's inlining binds each argument
        # anew and counts a reference to every array in them, at every decision (Four flags'
        # greedy: 32 arrays, two atomic operations each, about a quarter of a game)
        p = ex_b if seat == ex_a else ex_a if seat == ex_b else seat
        code = bot_code[p]
        if checked:
            note(check, STAGE_CHOOSE, t, seat, -1)
        if code == BOT_UNIFORM:
            if rare is None:
                move = -1
            else:
                move = uniform_move(tables, pos, rng, rare)
        elif code == search.BOT_MCTS:
            if kit is None:
                move = -1
            else:
                move = search.mcts_move(tables, pos, seat, bot_par[p], scratch, kit, rng)
        elif costly is None:
            move = bot_move(tables, pos, seat, code, bot_par[p], scratch, rng)
        else:
            move = game_move(tables, pos, seat, code, bot_par[p], scratch, rng, costly)
        if checked:
            fault = move_fault(tables, pos, move, check, rare)
            note(check, STAGE_APPLY, t, seat, move)
        elif move < 0:
            fault = FAULT_NO_MOVE
        if fault != FAULT_NONE:
            break
        if r < rec.shape[0]:
            rec[r, 0] = seat
            rec[r, 1] = move
            rec[r, 2] = np.int64(rng[0])
        apply(tables, pos, move, rng)
        t += 1
        r += 1
    if fault == FAULT_NONE:
        note(check, STAGE_RESULT, t, -1, -1)
        result(tables, pos, capped, res)
    return r, swapped, fault


@kernel(_nrt=False)
def _one_bot_games(tables, pos, rng, code, par, scratch, run_seed, first_game, out, swapped):
    """Games first_game, first_game + 1, ... (as many as out has rows) with the same bot on every
    seat and no pie rule, from pos set up for the first: each the game's `rollout` to the end or
    the turn cap (the same decisions as play_game's loop: sim.testing checks `rollout` against
    that loop) and its result row, the next set up in place by `reset`. Returns the games
    played: fewer than asked where `reset` could not set the next one up (the caller then takes
    a new position). Compiled without reference counting, as the game's own loop of random games
    was: a random game of HEXFLOW's takes 5-10 us, and each call of a per-game step from a
    counting function adds and drops a reference to every array of the tables and position."""
    cap = tables.turn_cap if tables.turn_cap > 0 else 1 << 62
    for g in range(out.shape[0]):
        if g > 0:
            rng[0] = game_seed(run_seed, first_game + g)  # == new_state(game_seed(run_seed, gi))
            if not reset(tables, pos, rng, first_game + g):
                return g
        ended = run_rollout(tables, pos, code, par, scratch, rng, cap)  # the search's copy
        result(tables, pos, not ended, out[g])
        swapped[g] = False
    return out.shape[0]


@kernel(inline="always")
def _next_position(tables, pos, rng, run_seed, game_index):
    """The position of game `game_index` of a chunk after another: the last one set up in place
    by the game's `reset` where it gives one, else a new one; rng seeded for the game."""
    rng[0] = game_seed(run_seed, game_index)  # == new_state(game_seed(run_seed, game_index))
    if not reset(tables, pos, rng, game_index):
        return new_position_at(tables, rng, game_index)
    return pos


@entry
def _play_chunk(tables, run_seed, first_game, n_games, lineup, out, swapped, kit, costly, rare, check):
    """`play_chunk`'s games on one position, one decision at a time (`play_game`); each game
    after the first is set up in place by the game's `reset` where it gives one. Returns
    (g, fault): the chunk stops at game g (offset in the chunk) where play_game refused a move,
    else (-1, FAULT_NONE)."""
    note_game(check, first_game)
    scratch = new_scratch(tables)
    rec = np.zeros((0, REC_W), np.int64)
    rng = new_state(game_seed(run_seed, first_game))
    pos = new_position_at(tables, rng, first_game)
    for g in range(n_games):
        if g > 0:
            note_game(check, first_game + g)
            pos = _next_position(tables, pos, rng, run_seed, first_game + g)
        _, swapped[g], fault = play_game(tables, pos, rng, lineup, scratch, kit, costly, rare, rec, out[g], check)
        if fault != FAULT_NONE:
            return g, fault
    return -1, FAULT_NONE


@entry
def _rollout_chunk(tables, run_seed, first_game, n_games, code, par, out, swapped):
    """`play_chunk`'s games for a line-up of one bot (code, par) on every seat without the pie
    rule, each one call of the game's own `rollout` (`_one_bot_games`), on one position. A
    driver of its own, not a branch of `_play_chunk`: each compiles only the loop it plays, so
    a greedy run does not compile the rollout (with its inlined `apply` and random bot) and a
    random run not the decision loop."""
    scratch = new_scratch(tables)
    rng = new_state(game_seed(run_seed, first_game))
    pos = new_position_at(tables, rng, first_game)
    g = 0
    while g < n_games:
        if g > 0:
            pos = _next_position(tables, pos, rng, run_seed, first_game + g)
        g += _one_bot_games(tables, pos, rng, code, par, scratch, run_seed, first_game + g, out[g:], swapped[g:])


@entry
def _play_traced(tables, run_seed, game_index, lineup, max_decisions, kit, costly, rare, check):
    note_game(check, game_index)
    scratch = new_scratch(tables)
    rec = np.zeros((max_decisions, REC_W), np.int64)
    res = np.zeros(tables.res_width, np.int64)
    rng = new_state(game_seed(run_seed, game_index))
    pos = new_position_at(tables, rng, game_index)
    t, swapped, fault = play_game(tables, pos, rng, lineup, scratch, kit, costly, rare, rec, res, check)
    return rec[:min(t, max_decisions)].copy(), res, swapped, fault


def family(bot_code) -> str:
    """The driver family a line-up needs: "search" if a seat plays the search bot, else "plain"
    (the drivers compiled without sim/engine/search.py)."""
    return "search" if bool((np.asarray(bot_code) == search.BOT_MCTS).any()) else "plain"


def kit_for(tables, bot_code, bot_par, searching: bool | None = None, swap=None):
    """The search argument the drivers take (`search.kit`: a tree sized for the line-up's
    largest search, and the parts of the search its seats play; `swap`: the pie rule's answers,
    SWAP_JUDGE by a search seat needs the tree search), or None for the plain family
    (`searching` None: the line-up's `family`; True / False forces one, and a line-up with a
    search seat cannot be played without one)."""
    if searching is None:
        searching = family(bot_code) == "search"
    if not searching:
        if family(bot_code) == "search":
            raise ValueError("a line-up with a search seat needs the search family of the drivers")
        return None
    tree = search.new_tree(tables, search.tree_nodes(bot_code, bot_par), search.tree_looks(bot_code, bot_par))
    codes = np.asarray(bot_code)
    judges = swap is not None and bool(((np.asarray(swap) == SWAP_JUDGE) & (codes == search.BOT_MCTS)).any())
    return search.kit(tree, codes, bot_par, int(tables.n_seats), judges)


def costly_for(tables, bot_code, costly: bool | None = None):
    """The drivers' `costly` argument: the game's costly bot codes (`implement`'s costly_bots) if
    the line-up seats one, else None (`costly` True / False forces either; a line-up with a
    costly seat cannot be played without them)."""
    codes = costly_bots(type(tables))
    seated = bool(np.isin(np.asarray(bot_code), codes).any()) if codes else False
    if costly is None:
        costly = seated
    if not costly:
        if seated:
            raise ValueError("a line-up with a costly bot's seat needs the drivers compiled with the costly bots")
        return None
    return np.array(codes or (BOT_UNIFORM,), np.int64)


def rare_for(tables, bot_code, swap, kit=None, costly=None):
    """The drivers' `rare` argument: the engine's uniform bot's move list (int64[max_moves]) if the
    line-up seats that bot or a player is offered the pie rule, else None (the drivers then
    compile neither). Also the list for a line-up with a search seat or a costly bot (`kit`,
    `costly` not None): their drivers compile large bots anyway, and one signature each, not two,
    spares a compile wherever both kinds of line-up are played. And the list in checked play
    (`checking`), whose legality test uses it."""
    codes = np.asarray(bot_code)
    if (_checking.get() or kit is not None or costly is not None or bool((codes == BOT_UNIFORM).any())
            or bool((np.asarray(swap) != SWAP_OFF).any())):
        return np.empty(tables.max_moves, np.int64)
    return None


def one_bot(bot_code, bot_par, swap, costly: tuple[int, ...] = ()) -> bool:
    """Whether a line-up's games can each be one call of the game's `rollout`: every seat plays
    the same bot of the game's own (not the engine's uniform or search bot, nor one of the
    game's `costly` bots) with the same parameters, and no pie rule."""
    codes, par = np.asarray(bot_code), np.asarray(bot_par)
    return bool((codes == codes[0]).all() and (par == par[0]).all() and (np.asarray(swap) == SWAP_OFF).all()
                and codes[0] not in (BOT_UNIFORM, search.BOT_MCTS, *costly))


class MoveFault(Exception):
    """A game the drivers stopped: a move they refused (`move_fault`) or, in checked play, an
    error a kernel raised (an index out of bounds). Names the game, its decision (counted from
    0; -1: not located, or before the first), the seat to move, the move (None: none chosen)
    and why."""

    def __init__(self, game: int, run_seed: int, decision: int, seat: int, move: int | None, why: str):
        self.game, self.run_seed, self.decision, self.seat, self.why = \
            int(game), int(run_seed), int(decision), int(seat), why
        self.move = None if move is None else int(move)
        super().__init__(self.text())

    def text(self, seat_names=None) -> str:
        """One line; `seat_names` names the seat (else its index)."""
        seat = seat_names[self.seat] if seat_names is not None and 0 <= self.seat < len(seat_names) else self.seat
        at = "" if self.decision < 0 else f", decision {self.decision}, seat {seat}"
        move = "" if self.move is None else f", move {self.move}"
        return f"game {self.game} (run seed {self.run_seed}){at}{move}: {self.why}"


_checking: contextvars.ContextVar[bool] = contextvars.ContextVar("hexsim_checked_play", default=False)


@contextlib.contextmanager
def checking(on: bool = True):
    """Checked play inside the block (this thread): `play_chunk` and `play_traced` test every
    move a bot returns against `legal_moves` before it is applied and locate an error a kernel
    raises, each as a MoveFault; games of one bot are played one decision at a time, not by the
    game's `rollout`. The games are the same. `hexsim run --check` plays its chunks this way,
    in workers whose kernels numba compiled with bounds checking (sim.runs.runner)."""
    token = _checking.set(on)
    try:
        yield
    finally:
        _checking.reset(token)


def _check_arg():
    """The drivers' `check` argument, the probe: check[P_ON] is 1 in checked play."""
    probe = np.full(PROBE_W, -1, np.int64)
    probe[P_ON] = int(_checking.get())
    return probe


def _fault_of(check, run_seed, fault: int = FAULT_NONE, error: Exception | None = None) -> MoveFault:
    """The MoveFault checked play's probe locates: a refused move, or the error a kernel raised."""
    probe = check
    why = FAULTS[fault] if error is None else f"{type(error).__name__} {STAGES[probe[P_STAGE]]}: {error}"
    move = probe[P_MOVE] if probe[P_STAGE] == STAGE_APPLY else None
    return MoveFault(probe[P_GAME], run_seed, probe[P_DECISION], probe[P_SEAT], move, why)


def _checked_call(driver, tables, run_seed, args, check):
    """driver(tables, run_seed, *args, check), whose last result is a fault; a refused move or
    (checked play) an error raised in a kernel as a MoveFault. Returns the driver's result."""
    try:
        got = driver(tables, run_seed, *args, check)
    except Exception as e:
        if not check[P_ON]:
            raise
        raise _fault_of(check, run_seed, error=e) from e
    if got[-1] != FAULT_NONE and check[P_ON]:
        raise _fault_of(check, run_seed, got[-1])
    return got


def play_chunk(tables, run_seed, first_game, n_games, bot_code, bot_par, swap, out, swapped, *,
               searching: bool | None = None, by_rollout: bool | None = None, costly: bool | None = None):
    """Games first_game .. first_game + n_games - 1 of a run: out[g] is game g's result row
    (out: int64[n_games, tables.res_width]), swapped[g] whether its players swapped seats.
    Compiled per bot family (`family`; `searching` forces one, see `kit_for`) and with the
    game's costly bots or without (`costly_for`; `costly` forces either). A line-up of one bot
    (`one_bot`) that the game plays by its own `rollout` (`interface.plays_by_rollout`) plays
    each game as one call of it (`_rollout_chunk`); by_rollout=False: one decision at a time, as
    the traced driver, True: by the rollout for any bot of one_bot's (the same games). A move
    the drivers refuse raises MoveFault (located by the game played again in checked play)."""
    kit = kit_for(tables, bot_code, bot_par, searching, swap)
    costly_codes = costly_for(tables, bot_code, costly)
    alone = one_bot(bot_code, bot_par, swap, costly_bots(type(tables)))
    if by_rollout and not alone:
        raise ValueError("by_rollout needs one bot of the game's own on every seat and no pie rule")
    check = _check_arg()
    if by_rollout is None:
        by_rollout = alone and not check[P_ON] and plays_by_rollout(type(tables), bot_code[0])
    if by_rollout and kit is None and "rollout" in implemented(type(tables)):
        _rollout_chunk(tables, run_seed, first_game, n_games, np.int64(bot_code[0]), bot_par[0], out, swapped)
        return
    rare = rare_for(tables, bot_code, swap, kit, costly_codes)
    g, fault = _checked_call(_play_chunk, tables, run_seed, (first_game, n_games, (bot_code, bot_par, swap), out,
                                                             swapped, kit, costly_codes, rare), check)
    if fault != FAULT_NONE:  # unchecked play stopped: the game again, checked, says where
        with checking():
            play_chunk(tables, run_seed, first_game + g, 1, bot_code, bot_par, swap, out[g:g + 1],
                       swapped[g:g + 1], searching=searching, by_rollout=False, costly=costly)
        raise MoveFault(first_game + g, run_seed, -1, -1, None, FAULTS[fault])


def play_traced(tables, run_seed, game_index, bot_code, bot_par, swap, max_decisions, *,
                searching: bool | None = None, costly: bool | None = None):
    """One game with its decisions: returns (rec[:t], result row, swapped). Compiled per bot
    family and with or without the costly bots, as `play_chunk`; a refused move raises
    MoveFault (located in checked play, `checking`)."""
    kit = kit_for(tables, bot_code, bot_par, searching, swap)
    costly_codes = costly_for(tables, bot_code, costly)
    check = _check_arg()
    rec, res, swapped, fault = _checked_call(
        _play_traced, tables, run_seed, (game_index, (bot_code, bot_par, swap), max_decisions, kit, costly_codes,
                                         rare_for(tables, bot_code, swap, kit, costly_codes)), check)
    if fault != FAULT_NONE:  # unchecked play stopped: the game again, checked, says where
        with checking():
            play_traced(tables, run_seed, game_index, bot_code, bot_par, swap, max_decisions, searching=searching,
                        costly=costly)
        raise MoveFault(game_index, run_seed, -1, -1, None, FAULTS[fault])
    return rec, res, swapped


# ---- the same functions callable from Python (tests, designers, the position API) ------------
