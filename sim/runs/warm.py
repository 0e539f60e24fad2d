"""`hexsim warm`: compile every game's kernels into numba's on-disk cache (`make install` runs it).

Minutes on a fresh machine, so it says what it does first: one line naming the parts it will
compile and about how long they take in all (from each game's `warm_parts` estimates, the
longest first, `jobs` at a time), then a line as each part starts and as it ends, with its time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from functools import partial

from sim.display import duration
from sim.display import names as listing

Task = tuple[str, str, float]  # game, part of its warm_parts, estimated seconds from an empty cache


def plan(names: list[str] | None = None) -> list[Task]:
    """Every part of every game (default: every available game), the longest estimate first."""
    from sim import games

    names = games.available() if names is None else names
    return sorted(((name, part, est) for name in names for part, est in games.get(name).warm_parts),
                  key=lambda t: -t[2])


def estimate(tasks: list[Task], jobs: int) -> float:
    """Seconds to compile `tasks` longest first, `jobs` at a time (no more than the cores run)."""
    ends = [0.0] * max(1, min(jobs, os.cpu_count() or 1))
    for _, _, est in sorted(tasks, key=lambda t: -t[2]):
        ends[ends.index(min(ends))] += est
    return max(ends)


def label(task: Task) -> str:
    return task[0] if task[1] == "all" else f"{task[0]} {task[1]}"


def plan_line(tasks: list[Task], jobs: int) -> str:
    games = list(dict.fromkeys(t[0] for t in tasks))
    return (f"warm: compiling {len(games)} game{'s' * (len(games) != 1)} ({listing(games, 10)}) in "
            f"{len(tasks)} part{'s' * (len(tasks) != 1)}, "
            f"{jobs} at a time: about {duration(estimate(tasks, jobs))} with an empty cache "
            "(kernels already cached load in seconds)")


def warm(jobs: int = 2, names: list[str] | None = None, echo: Callable[[str], None] | None = None) -> float:
    """Compile every part (see the module docstring), printing through `echo` (default: print,
    flushed); the seconds taken."""
    echo = echo or partial(print, flush=True)
    tasks = plan(names)
    echo(plan_line(tasks, jobs))
    t0, queue, running = time.perf_counter(), list(tasks), {}
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:

        def start() -> None:
            task = queue.pop(0)
            echo(f"compiling {label(task)} (about {duration(task[2])})")
            running[pool.submit(_warm_one, task[0], task[1])] = task

        for _ in range(min(max(1, jobs), len(queue))):
            start()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                task = running.pop(fut)
                echo(f"compiled {label(task)} ({fut.result():.0f} s; "
                     f"{len(tasks) - len(queue) - len(running)}/{len(tasks)} parts, "
                     f"{duration(time.perf_counter() - t0)} so far)")
                if queue:
                    start()
    return time.perf_counter() - t0


def _warm_one(name: str, part: str) -> float:
    from sim import games

    t0 = time.perf_counter()
    games.get(name).warm(part)
    return time.perf_counter() - t0
