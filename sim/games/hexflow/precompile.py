"""Compile HEXFLOW Race's kernels from an empty numba cache in two processes instead of one.

numba compiles a kernel's callees one after another while it types the kernel, so a driver
compiles its whole tree serially. Two subtrees of Race's are independent: the greedy bot
(`race._greedy_move` and what it calls) and the rules with the random bot (`race._play`, the
random chunk loop, and the rule helpers of kernel.py it shares with the engine's drivers).
`precompile_race()` compiles the first here and the second in a second process (which also pays
the ~1.5 s start of a fresh interpreter), each into the on-disk cache (`cache=True`) by calling
it once on a real position; the drivers compiled next find both (the other process's work
through the cache) and compile only what is left. CPU time is the same; the games are the same
code.

The calls below use the argument types the drivers use (a Position and a Scratch built by the
rule functions, a frontier row, int64 and float64 scalars). If one goes stale (a kernel's
arguments changed), nothing breaks: numba compiles the right one while typing the driver, so
only the time saving is lost. `tests/test_hexflow_precompile.py` holds them to what the drivers
compile.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np


def _greedy() -> None:
    """race._greedy_move on the opening position of the default rules (compiles or loads it)."""
    from sim.rng import new_state

    from . import GAME, race

    t = race.tables(GAME.resolve_rules({}, "warm"))
    pos = race.new_position(t, new_state(np.uint64(1)))
    seat = np.int64(pos.st[race.CUR])
    race._greedy_move(t, pos, race.new_scratch(t), pos.hx[race.H_FRONT], np.int64(pos.st[race.NFRONT]), seat,
                      new_state(np.uint64(2)), np.float64(1.5), np.float64(3.0))


def _rules() -> None:
    """race._play, the random chunk loop: the rules and the random bot (one game)."""
    from . import GAME, race

    race.random_rows(GAME.resolve_rules({}, "warm"), 0, 1, 0)


# what each group compiles: the dispatchers it leaves compiled (tests/test_hexflow_precompile.py)
KERNELS = {"_greedy": ("race._greedy_move",), "_rules": ("race._play",)}
# compiled here / in the second process (the shorter job, as it also starts an interpreter)
GROUPS = (("_greedy",), ("_rules",))


def compile_group(names: tuple[str, ...]) -> None:
    """Compile (or load from the cache) each named group of Race kernels."""
    for name in names:
        globals()[name]()


def precompile_race() -> None:
    """Compile the greedy subtree here and the rules subtree in a second process, so that the
    drivers compiled next only have their own bodies left (see the module docstring). The second
    process is a plain `python -c` (not multiprocessing, which would import the caller's
    `__main__` again); if it fails, the drivers compile that subtree themselves: slower, same
    result."""
    code = f"from {__name__} import GROUPS, compile_group; compile_group(GROUPS[1])"
    other = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        compile_group(GROUPS[0])
    finally:
        other.wait()
