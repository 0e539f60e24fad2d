"""How games play, position by position: Ludii's play metrics over replayed games.

Ludii (`Evaluation/src/metrics`) measures a game's play from its trials, replaying each and
asking, before every move, how many moves were legal and how every player stands. hexsim does
the same for games on the engine interface (sim/engine/drivers.py): a sample of a run's games is replayed
through `engine.replay_stats`, which records the legal-move count and the game's own evaluation
(`evaluate`, the one greedy and the search bot's cut-off use) for every seat before every
decision. A seat's standing is `1 / (1 + exp(-evaluate / eval_scale))`, with the search bot's
`eval_scale` for the game, so it reads as a rough chance of winning in [0, 1], as Ludii's UCT
state evaluations do.

Per game, then averaged over games with a Student-t interval (games are independent):

- **decision_moves**: share of decisions with more than one legal move (Ludii DecisionMoves);
- **branching_factor**: mean number of legal moves per decision (Ludii BranchingFactor);
- **lead_change**: share of consecutive decisions between which the leader (the seats with the
  highest standing) changes. Ludii's LeadChange starts from an empty leader set, so it counts the
  first position as a change; here only real changes count, over decisions - 1;
- **decisiveness**: how far into the game (share of its decisions) the eventual winner first
  stands above the best standing any loser ever reaches (Ludii DecisivenessMoves with its
  DecisivenessThreshold; Ludii divides two integers there, so its value is 0 or 1: here it is the
  real share). Decisive games only; 1 when the winner never clears the threshold;
- **drama**: mean, over decisions, of how far the eventual winner stands below the leader (0 where
  it leads; Ludii Drama, average). Decisive games only.

Games that are not on the engine (HEXFLOW Battle and Tri-Board today) have no replay: the
report says so instead of guessing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import engine, stats
from sim.runs.runner import rotated
from sim.stats import intervals

METRICS = ("decision_moves", "branching_factor", "lead_change", "decisiveness", "drama")
MEANING = {
    "decision_moves": "share of decisions with a real choice (more than one legal move)",
    "branching_factor": "legal moves per decision, on average",
    "lead_change": "how often the player the evaluation favours changes from one decision to the next",
    "decisiveness": "how far into a game the winner is clearly ahead for good (0 = from the start, "
                    "1 = only at the end)",
    "drama": "how far the eventual winner was behind the leader, on average (0 = never behind)",
}
# the range each metric can take: its interval is clipped to it (a Student-t interval is not)
BOUNDS = {m: intervals.SHARE for m in METRICS} | {"branching_factor": intervals.COUNT}
DEFAULT_GAMES = 200
NOT_ON_ENGINE = ("the game's rules (or this mode's) are not on the engine interface yet, so its games "
                 "cannot be replayed position by position")


@dataclass
class PlayMetrics:
    per_game: pd.DataFrame  # one row per replayed game: index, decisions, winner, the METRICS
    summary: pd.DataFrame  # metric, value, low, high, games, meaning
    note: str = ""  # why there is nothing to show, when there is not

    @property
    def distinct(self) -> int:
        """How many of the replayed games are different games (distinct move sequences)."""
        return int(self.per_game["move_sequence"].nunique()) if "move_sequence" in self.per_game else 0


def eval_scale(game) -> float:
    """The game's search bot's evaluation scale (evaluation units per logistic unit), else 1."""
    for b in game.bots:
        if b.name == "mcts":
            for p in b.params:
                if p.name == "eval_scale":
                    return float(p.default)
    return 1.0


def game_measures(legal: np.ndarray, values: np.ndarray, winner: int, scale: float) -> dict[str, float]:
    """The METRICS of one replayed game from its legal-move counts and evaluations (decisions
    only: rows with legal < 0 are pie-rule swaps and are left out)."""
    keep = legal >= 0
    legal, values = legal[keep], values[keep]
    t = legal.size
    out = {"decisions": t, "winner": winner}
    if t == 0:
        return out | {m: np.nan for m in METRICS}
    stand = 1.0 / (1.0 + np.exp(-values / scale))
    best = stand.max(axis=1)
    leaders = stand == best[:, None]
    out["decision_moves"] = float((legal > 1).mean())
    out["branching_factor"] = float(legal.mean())
    out["lead_change"] = float((leaders[1:] != leaders[:-1]).any(axis=1).mean()) if t > 1 else 0.0
    if winner < 0:
        return out | {"decisiveness": np.nan, "drama": np.nan}
    losers = np.delete(stand, winner, axis=1)
    threshold = losers.max() if losers.size else -np.inf
    above = np.flatnonzero(stand[:, winner] > threshold)
    out["decisiveness"] = float(above[0] / t) if above.size else 1.0
    out["drama"] = float((best - stand[:, winner]).mean())
    return out


def play_metrics(variant, seed: int = 0, games: int = DEFAULT_GAMES, rotation: int = 0) -> PlayMetrics:
    """Replay games 0 .. games-1 of a run (run seed `seed`, seat rotation `rotation`) and measure
    them (each game's move sequence kept as a hash, so that repeated games show: `distinct`). A
    variant whose game or mode is not on the engine gets an empty result with a note."""
    seats = [b for _, b in rotated(variant.seats, rotation)]
    game = variant.game
    scale = eval_scale(game)
    rows = []
    for i in range(games):
        got = game.engine_replay(variant.rules, seats, i, seed)
        if got is None:
            return PlayMetrics(pd.DataFrame(), pd.DataFrame(), NOT_ON_ENGINE)
        tables, rec = got
        legal, values, res = engine.replay_stats(
            tables, np.uint64(engine.game_seed(np.uint64(seed), np.int64(i))), np.int64(i), rec)
        rows.append({"game": i, "move_sequence": hashlib.blake2b(np.ascontiguousarray(rec[:, 1]).tobytes(),
                                                                digest_size=8).hexdigest(),
                     **game_measures(legal, values, int(res[engine.WINNER]), scale)})
    per_game = pd.DataFrame(rows)
    return PlayMetrics(per_game, summarise(per_game))


def summarise(per_game: pd.DataFrame) -> pd.DataFrame:
    """Each metric's mean over games with a 95% Student-t interval clipped to the metric's range
    (BOUNDS; decisive games only for decisiveness and drama)."""
    out = []
    for m in METRICS:
        x = per_game[m].dropna().to_numpy(dtype=np.float64) if m in per_game else np.zeros(0)
        ci = stats.mean_interval(x)
        low, high = intervals.clip(ci.low, ci.high, BOUNDS[m])
        out.append({"metric": m, "value": ci.value, "low": low, "high": high, "games": int(x.size),
                    "meaning": MEANING[m]})
    return pd.DataFrame(out)
