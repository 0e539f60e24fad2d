"""Timing and bot-strength numbers for Four flags: `python -m sim.games.flags.bench [games [repeats]]`.

Games per CPU-second of this process (time.process_time), so the number is per core even on a
shared machine; the first call compiles (or loads the cache) and is not timed. Each pairing
plays the same `games` games `repeats` times and keeps the fastest call (this VM's speed drifts
by 20-30% over minutes: compare builds in alternated rounds).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from sim.games.base import SeatBot
from sim.games.flags import GAME


def seats(a: str, b: str) -> list[SeatBot]:
    out = []
    for name in (a, b):
        bot = GAME.bot(name, "bench")
        out.append(SeatBot(bot, {p.name: p.default for p in bot.params}))
    return out


def main(n: int = 1000, rules: dict | None = None, repeats: int = 1) -> None:
    rules = GAME.resolve_rules(rules or {}, "bench")
    t = time.process_time()
    GAME.play_chunk(rules, seats("greedy", "greedy"), 0, 1, 0)
    print(f"compile or cache load: {time.process_time() - t:.1f} s CPU")
    for a, b in (("greedy", "greedy"), ("greedy", "random"), ("random", "greedy"),
                 ("random", "random")):
        dt = float("inf")
        for _ in range(repeats):
            t = time.process_time()
            c = GAME.play_chunk(rules, seats(a, b), 0, n, 2024)
            dt = min(dt, time.process_time() - t)
        w = c["winner"]
        print(f"{a:>6} vs {b:<6} {n / dt:7.0f} games/s  A {np.mean(w == 0):.3f}  "
              f"B {np.mean(w == 1):.3f}  turn cap {np.mean(c['end_reason'] == 1):.3f}  "
              f"mean turns {c['turns'].mean():.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
         repeats=int(sys.argv[2]) if len(sys.argv) > 2 else 1)
