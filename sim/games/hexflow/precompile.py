"""Compile HEXFLOW Race's kernels from an empty numba cache in two processes instead of one.

numba compiles a kernel's callees one after another while it types the kernel, so a driver
compiles its whole tree serially. Two subtrees of Race's are independent: the greedy bot
(`race._greedy_move` and what it calls) and the rule functions the engine's drivers call one
decision at a time (`race.apply`, `race.reset`, `race.result` and the helpers of kernel.py they
share). `precompile_race()` compiles the first here, then Race's rollout as the drivers call it
(`interface.run_rollout`: the random bot and apply inline, greedy through bot_move), and the
second in a second process (which also pays the ~1.5 s start of a fresh interpreter), each into
the on-disk cache (`cache=True`) by compiling it for the types of a real position's arguments
(`sim.jit.compile_for`: calling a kernel from Python would compile its twin); the drivers compiled next
find both (the other process's work through the cache) and compile only what is left. CPU time is
the same; the games are the same code.

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

from sim.jit import compile_for


def _greedy() -> None:
    """race._greedy_move on the opening position of the default rules (compiles or loads it)."""
    from sim.rng import new_state

    from . import GAME, race

    t = race.tables(GAME.resolve_rules({}, "warm"))
    pos = race.new_position(t, new_state(np.uint64(1)))
    seat = np.int64(pos.st[race.CUR])
    compile_for(race._greedy_move, t, pos, race.new_scratch(t), pos.hx[race.H_FRONT], np.int64(pos.st[race.NFRONT]),
                seat, new_state(np.uint64(2)), np.float64(1.5), np.float64(3.0))


def _opening():
    """(tables, opening position, scratch, generator) of the default rules."""
    from sim.rng import new_state

    from . import GAME, race

    t = race.tables(GAME.resolve_rules({}, "warm"))
    return t, race.new_position(t, new_state(np.uint64(1))), race.new_scratch(t), new_state(np.uint64(2))


def _rollout() -> None:
    """Race's rollout as the drivers call it (`interface.run_rollout`: the chunk driver's one-bot
    games and the search's rollouts): a random-vs-random game; greedy's branch compiles with it."""
    from sim.interface import run_rollout

    from . import kernel as K

    t, pos, s, rng = _opening()
    compile_for(run_rollout, t, pos, np.int64(K.BOT_RANDOM), np.zeros(1, np.float64), s, rng, np.int64(1 << 30))


def _rules() -> None:
    """The rule functions the drivers call one decision or one game at a time: apply, result
    (a row of the outcome columns) and reset (the next game's position set up in place)."""
    from . import race

    t, pos, _, rng = _opening()
    compile_for(race.to_move, t, pos)
    compile_for(race.apply, t, pos, np.int64(0), rng)
    compile_for(race.result, t, pos, False, np.zeros(t.res_width, np.int64))
    compile_for(race.reset, t, pos, rng, np.int64(1))


# what each group compiles: the dispatchers it leaves compiled (tests/test_hexflow_precompile.py)
KERNELS = {"_greedy": ("race._greedy_move",), "_rollout": ("interface.run_rollout",),
           "_rules": ("race.apply", "race.result", "race.reset")}
# compiled here / in the second process (the shorter job, as it also starts an interpreter)
GROUPS = (("_greedy", "_rollout"), ("_rules",))


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
