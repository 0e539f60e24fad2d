"""Re-play one game of a run from its seed, and draw it."""

from __future__ import annotations

from pathlib import Path

from sim.errors import UserError
from sim.games.base import Trace
from sim.runner import rotated
from sim.variants import load


def replay(variant: str, game_index: int, seed: int = 0, rotation: int = 0,
           out: str | Path | None = None, every_move: bool = False) -> Trace:
    """The traced game `game_index` of a run with run seed `seed` (and seat rotation), drawn to
    `out` if given: the same game the run's table has in that row."""
    v = load(variant)
    if game_index < 0:
        raise UserError(f"--game {game_index}: must be >= 0")
    if not 0 <= rotation < len(v.seats):
        raise UserError(f"--rotation {rotation}: allowed 0..{len(v.seats) - 1}")
    seats = [b for _, b in rotated(v.seats, rotation)]
    trace = v.game.play_traced(v.rules, seats, game_index, seed)
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        v.game.draw(trace, str(out), every_move)
    return trace
