"""One game's compiled rule functions called from Python, one decision at a time: start a game,
list its moves, play one, read its outcome, copy and redraw positions, ask a bot for its move.
Tests, replays, play metrics and the bench use them; a run goes through the drivers
(sim/engine/drivers.py) instead."""

from __future__ import annotations

import numpy as np

from sim.engine import search
from sim.engine.drivers import SWAP_MOVE, choose, costly_for
from sim.engine.interface import (
    apply,
    copy_into,
    copy_position,
    evaluate,
    legal_moves,
    new_position,
    new_position_at,
    new_scratch,
    result,
    rollout,
    sample_hidden,
    step_rollout,
    to_move,
    winner,
)
from sim.engine.jit import entry
from sim.engine.rng import new_state


@entry
def start(tables, seed):
    """The position of a game seeded by `seed` before any decision, and its generator."""
    rng = new_state(seed)
    return new_position(tables, rng), rng


@entry
def start_at(tables, seed, game_index):
    """The same for game `game_index` of a run (seed = game_seed(run seed, game_index))."""
    rng = new_state(seed)
    return new_position_at(tables, rng, game_index), rng


@entry
def moves_of(tables, pos):
    buf = np.empty(tables.max_moves, np.int64)
    k = legal_moves(tables, pos, buf)
    return buf[:k].copy()


@entry
def seat_to_move(tables, pos):
    return to_move(tables, pos)


@entry
def play(tables, pos, move, rng):
    apply(tables, pos, move, rng)


@entry
def outcome(tables, pos, capped):
    res = np.zeros(tables.res_width, np.int64)
    result(tables, pos, capped, res)
    return res


@entry
def copy_of(tables, pos):
    return copy_position(tables, pos)


@entry
def copied_into(tables, dst, src):
    """copy_into from Python: whether src was copied into dst in place (False: the game has no
    in-place copy)."""
    return copy_into(tables, dst, src)


@entry
def rollouts_of(tables, pos, code, par, seed, cap):
    """The game's `rollout` and the default loop (interface.step_rollout), each from its own copy
    of pos with generator seed: (position, ended, generator state) of each."""
    scratch = new_scratch(tables)
    a, b = copy_position(tables, pos), copy_position(tables, pos)
    ra, rb = np.full(1, seed, np.uint64), np.full(1, seed, np.uint64)
    da = rollout(tables, a, code, par, scratch, ra, cap)
    db = step_rollout(tables, b, code, par, scratch, rb, cap)
    return a, da, ra[0], b, db, rb[0]


@entry
def redrawn_rollouts(tables, pos, seat, code, par, rng, n, count):
    """n rollouts of bot `code` to the end, each from a copy of pos with what `seat` cannot see
    redrawn: a playout without the search (bench: what a playout's rollout costs from the same
    positions). count=True plays them one decision per `rollout` call and returns the decisions
    played (untimed); else one call per rollout, returning 0."""
    scratch = new_scratch(tables)
    p = copy_position(tables, pos)
    decisions = 0
    for _ in range(n):
        if not copy_into(tables, p, pos):
            p = copy_position(tables, pos)
        sample_hidden(tables, p, seat, rng)
        if count:
            while not rollout(tables, p, code, par, scratch, rng, 1):
                decisions += 1
        else:
            rollout(tables, p, code, par, scratch, rng, 1 << 30)
    return decisions


@entry
def winner_of(tables, pos):
    res = np.zeros(tables.res_width, np.int64)
    return winner(tables, pos, res)


@entry
def redraw_hidden(tables, pos, seat, rng):
    sample_hidden(tables, pos, seat, rng)


@entry
def value_of(tables, pos, seat):
    return evaluate(tables, pos, seat)


@entry
def _bot_choice(tables, pos, seat, code, par, rng, costly, parts):
    scratch = new_scratch(tables)
    buf = np.empty(tables.max_moves, np.int64)
    if parts is None:  # not the search bot: nothing of the search compiles
        return choose(tables, pos, seat, code, par, scratch, None, costly, rng, buf)
    codes = np.full(1, code, np.int64)
    tree = search.new_tree(tables, search.tree_nodes(codes, par.reshape(1, -1)),
                           search.tree_looks(codes, par.reshape(1, -1)))
    return choose(tables, pos, seat, code, par, scratch, (tree,) + parts, costly, rng, buf)


def bot_choice(tables, pos, seat, code, par, rng):
    """What a bot (code, parameter row) would play here for `seat` (allocates its scratch); a
    search bot's parameters choose the parts of the search that compile (`search.kit`)."""
    parts = None
    if code == search.BOT_MCTS:
        parts = search.kit(None, np.array([code]), np.asarray(par).reshape(1, -1), int(tables.n_seats))[search.KIT_UCT:]
    return _bot_choice(tables, pos, seat, code, par, rng, costly_for(tables, [code]), parts)


@entry
def replay_stats(tables, seed, game_index, rec):
    """Replay a traced game's decisions (rec rows, as play_traced gives them) and measure the
    position before each: legal[i] = how many legal moves decision i had, values[i, s] = the
    game's evaluation for seat s there. Pie-rule rows are skipped (legal -1). Returns
    (legal, values, result row by seat)."""
    pos, rng = start_at(tables, seed, game_index)
    buf = np.empty(tables.max_moves, np.int64)
    k = rec.shape[0]
    legal = np.full(k, -1, np.int64)
    values = np.zeros((k, tables.n_seats), np.float64)
    for i in range(k):
        if rec[i, 1] == SWAP_MOVE:
            continue
        legal[i] = legal_moves(tables, pos, buf)
        for s in range(tables.n_seats):
            values[i, s] = evaluate(tables, pos, s)
        rng[0] = np.uint64(rec[i, 2])
        apply(tables, pos, rec[i, 1], rng)
    res = np.zeros(tables.res_width, np.int64)
    result(tables, pos, False, res)
    return legal, values, res
