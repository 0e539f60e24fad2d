"""Hexa-Trex speed: `python -m sim.games.hexatrex.bench [seconds]`.

Default tile set, 2 players, max_equation_tiles 7; games per second of CPU time of this
process (so per core), random vs random and greedy vs greedy, after a warm-up that compiles
(its time is printed: it is the compile time when the numba cache is empty).
"""

from __future__ import annotations

import sys
import time

from sim.games.base import SeatBot
from sim.games.hexatrex import GAME


def main(seconds: float = 3.0) -> None:
    rules = GAME.resolve_rules({"players": 2, "max_equation_tiles": 7}, "bench")
    for name in ("random", "greedy"):
        bot = GAME.bot(name, "bench")
        seats = [SeatBot(bot, {p.name: p.default for p in bot.params})] * 2
        t = time.process_time()
        GAME.play_chunk(rules, seats, 0, 1, 1)
        warm = time.process_time() - t
        n, used, chunk = 0, 0.0, 8
        while used < seconds:
            t = time.process_time()
            GAME.play_chunk(rules, seats, n, chunk, 1)
            used += time.process_time() - t
            n += chunk
            chunk = min(chunk * 2, 512)
        print(f"{name:>6} vs {name:<6}: {n / used:8.1f} games/s per core "
              f"({n} games, {used:.1f} s cpu; first call incl. compile/load {warm:.1f} s)")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
