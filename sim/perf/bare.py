"""The limit `hexsim run --jobs 1` is measured against (`make bench`): a bare compiled loop over a
game's own rule functions, one bot on every seat, with nothing of the runner (no drivers, result
columns, tables or Parquet): per game a set-up, the decisions (the game's own `rollout` where it
gives one, as the chunk driver plays a one-bot line-up; else `bot_move` or the uniform move, then
`apply`) and its result row."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np

from sim.engine.game import bot_arrays
from sim.engine.interface import (
    BOT_UNIFORM,
    WINNER,
    apply,
    bot_move,
    new_position_at,
    new_scratch,
    plays_by_rollout,
    result,
    rollout,
    to_move,
    uniform_move,
)
from sim.engine.jit import entry
from sim.engine.rng import game_seed, new_state
from sim.runs.runner import run


@entry
def bare_games(tables, run_seed, first_game, n_games, code, par, by_rollout):
    """Games first_game .. first_game + n_games - 1 of bot `code` (parameters par) on every seat,
    by the game's `rollout` where `by_rollout`; returns the sum of their winners (so that nothing
    is optimised away)."""
    scratch = new_scratch(tables)
    buf = np.empty(tables.max_moves, np.int64)
    res = np.zeros(tables.res_width, np.int64)
    cap = tables.turn_cap if tables.turn_cap > 0 else 1 << 62
    total = 0
    for g in range(first_game, first_game + n_games):
        rng = new_state(game_seed(run_seed, g))
        pos = new_position_at(tables, rng, g)
        if by_rollout:
            ended = rollout(tables, pos, code, par, scratch, rng, cap)
        else:
            d = 0
            while to_move(tables, pos) >= 0 and d < cap:
                seat = to_move(tables, pos)
                move = uniform_move(tables, pos, rng, buf) if code == BOT_UNIFORM else \
                    bot_move(tables, pos, seat, code, par, scratch, rng)
                apply(tables, pos, move, rng)
                d += 1
            ended = to_move(tables, pos) < 0
        result(tables, pos, not ended, res)
        total += res[WINNER]
    return total


def runner_against_bare(variant, games_n: int, repeats: int = 3) -> dict:
    """Seconds per game of the runner in this process (`sim.run(..., jobs=1)`: the difference of a
    run of 2n games and one of n, so start-up and the first chunk's set-up cancel) and of the bare
    loop over the same games, in rounds (each round times both: the machine's drift hits them
    alike); the fastest of `repeats` rounds each, and the mean turns a game (of up to 2,000 of
    them). Every seat must play one bot."""
    seats = list(variant.seats.values())
    code = seats[0].bot.code
    if any(s.bot.code != code or s.params != seats[0].params for s in seats):
        raise ValueError("runner_against_bare: one bot on every seat")
    tables = variant.game.tables(variant.rules)
    par = bot_arrays(seats)[1][0]
    by_rollout = plays_by_rollout(type(tables), code) and not variant.rules.get("swap", False)
    args = (np.int64(code), par, by_rollout)
    bare_games(tables, np.uint64(1), np.int64(0), np.int64(2), *args)  # compile / load
    bare, runner = [], []
    with tempfile.TemporaryDirectory() as tmp:
        run(variant, 64, jobs=1, out=Path(tmp) / "warm", progress=False)
        for r in range(repeats):
            t0 = time.perf_counter()
            bare_games(tables, np.uint64(1), np.int64(0), np.int64(games_n), *args)
            bare.append((time.perf_counter() - t0) / games_n)
            took = []
            for n in (games_n, 2 * games_n):
                t0 = time.perf_counter()
                run(variant, n, seed=1, jobs=1, out=Path(tmp) / f"r{r}_{n}", progress=False)
                took.append(time.perf_counter() - t0)
            runner.append((took[1] - took[0]) / games_n)
    b, g = min(bare), min(runner)
    turns = variant.game.play_chunk(variant.rules, seats, 0, min(games_n, 2_000), 1)["turns"]
    return {"variant": variant.name, "bot": seats[0].bot.name, "games": games_n,
            "turns_per_game": round(float(np.mean(turns)), 1),
            "bare_us_per_game": round(b * 1e6, 2), "runner_us_per_game": round(g * 1e6, 2),
            "runner_over_bare": round(b / g, 2)}
