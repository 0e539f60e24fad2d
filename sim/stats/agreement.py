"""Agreement with the rung below: how often a rung's bot picks the move the rung below would.

A rung that beats the one below may still decide almost every position as it does: a search
bot whose prior is greedy and whose budget is too small to overturn it is greedy in disguise,
and a ladder of such rungs measures one strength several times. For each rung above the first,
games of the rung playing itself (its self-play run, the same seeds) are replayed decision by
decision through the engine (`Game.engine_replay`, then `engine.start_at` / `engine.play` with
each decision's recorded generator state), and at sampled decisions the lower rung's bot is asked
for its move (`engine.bot_choice`) on a copy of the position, for the same seat, with the
generator in the state the rung's bot started its own decision from. The lower bot gets what any
bot of the engine gets: the position, from which a seat reads only what it may see (the search
bot redraws what its seat cannot see).

- Only real choices count: decisions with at least two legal moves (a forced move agrees by
  construction).
- Up to `PER_GAME` decisions per replayed game, drawn at random among its real choices, from
  games 0, 1, 2, ... of the self-play run until the sample is full (or the run's games run out):
  decisions from many games, so that one long game does not weigh as many.
- The lower bot is asked cold: a fresh scratch, as if it sat down at this position. A bot that
  keeps a plan between its decisions (Four flags' greedy keeps the reinforcement of its card)
  plans afresh from the position, as it would had it not made the earlier decisions itself.
- The share comes with a 95% Wilson interval over the sampled decisions (treated as independent)
  and the chance level: the mean of 1 / (legal moves) over them, what a bot choosing uniformly
  would agree at.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import stats
from sim.games.base import SeatBot

DEFAULT_SAMPLE = 200  # decisions per rung
PER_GAME = 4  # decisions drawn per replayed game at most
COLUMNS = ["bot", "below", "decisions", "agree", "share", "share_low", "share_high", "chance", "games", "note"]
NOT_REPLAYABLE = "the game (or this mode) is not on the engine interface: its games cannot be replayed"


@dataclass
class Sampled:
    agree: int = 0
    n: int = 0
    chance: float = 0.0  # sum of 1 / legal over the sampled decisions
    games: int = 0


def _real_choices(t, rec: np.ndarray, run_seed: int, game_index: int) -> np.ndarray:
    """The number of legal moves at each recorded decision (-1 for a pie-rule swap)."""
    from sim import engine

    seed = engine.game_seed(np.uint64(run_seed), np.int64(game_index))
    legal, _, _ = engine.replay_stats(t, np.uint64(seed), np.int64(game_index), rec)
    return legal


def _ask_along(t, rec: np.ndarray, run_seed: int, game_index: int, asked: set[int], lower: SeatBot,
               legal: np.ndarray, into: Sampled) -> None:
    """Replay the game; at each decision in `asked` ask `lower` for its move (on a copy of the
    position, a copy of the generator) and count whether it is the recorded one."""
    from sim import engine

    code, par = engine.bot_arrays([lower])
    seed = engine.game_seed(np.uint64(run_seed), np.int64(game_index))
    pos, rng = engine.start_at(t, np.uint64(seed), np.int64(game_index))
    last = max(asked)
    for i, (seat, move, state) in enumerate(rec):
        if move != engine.SWAP_MOVE:
            if i in asked:
                mine = engine.bot_choice(t, engine.copy_of(t, pos), np.int64(seat), np.int64(code[0]), par[0],
                                         rng.copy())
                into.agree += int(mine == move)
                into.n += 1
                into.chance += 1.0 / legal[i]
            if i == last:
                return
            rng[0] = np.int64(state).view(np.uint64)
            engine.play(t, pos, np.int64(move), rng)
        else:
            rng[0] = np.int64(state).view(np.uint64)


def sample_agreement(game, rules: dict, seats: list[SeatBot], lower: SeatBot, run_seed: int, games: int,
                     sample: int = DEFAULT_SAMPLE, seed: int = 0) -> Sampled | None:
    """Agreement of the bots of `seats` (one bot on every seat: a self-play run with run seed
    `run_seed` and `games` games, rotation 0) with `lower`, over about `sample` decisions; None
    when the game cannot be replayed on the engine."""
    got = Sampled()
    draw = np.random.default_rng(seed)
    for gi in range(games):
        if got.n >= sample:
            break
        replayed = game.engine_replay(rules, seats, gi, run_seed)
        if replayed is None:
            return None
        t, rec = replayed
        legal = _real_choices(t, rec, run_seed, gi)
        real = np.flatnonzero(legal > 1)
        got.games += 1
        if not real.size:
            continue
        k = min(PER_GAME, real.size, sample - got.n)
        asked = {int(i) for i in draw.choice(real, size=k, replace=False)}
        _ask_along(t, rec, run_seed, gi, asked, lower, legal, got)
    return got


def agreement_row(name: str, below: str, got: Sampled | None) -> dict:
    """One row of the agreement table (COLUMNS): the share with its Wilson interval."""
    if got is None or not got.n:
        note = NOT_REPLAYABLE if got is None else "no decision with a real choice in the replayed games"
        return {"bot": name, "below": below, "decisions": 0, "agree": 0, "share": np.nan, "share_low": np.nan,
                "share_high": np.nan, "chance": np.nan, "games": 0 if got is None else got.games, "note": note}
    p = stats.wilson(got.agree, got.n)
    return {"bot": name, "below": below, "decisions": got.n, "agree": got.agree, "share": p.value,
            "share_low": p.low, "share_high": p.high, "chance": got.chance / got.n, "games": got.games,
            "note": ""}


def frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


DISGUISE = 0.90  # the interval's lower bound at or above this: the rung decides as the rung below


def words(r) -> str:
    """One line: "mcts(iterations=20) picks greedy's move at 96.5% [93.0, 98.3] of 200 sampled
    decisions (chance 21.3%): greedy in disguise"."""
    if not r["decisions"]:
        return f"{r['bot']} against {r['below']}: no agreement measured ({r['note']})"
    text = (f"{r['bot']} picks {r['below']}'s move at {100 * r['share']:.1f}% "
            f"[{100 * r['share_low']:.1f}, {100 * r['share_high']:.1f}] of {r['decisions']:,} sampled "
            f"decisions (chance {100 * r['chance']:.1f}%)")
    if r["share_low"] >= DISGUISE:
        text += f": {r['below']} in disguise"
    return text
