"""HEXFLOW Race's two-process compile (sim/games/hexflow/precompile.py): its calls must compile
what the drivers use, or the warm-up silently loses its time saving (games stay right)."""

from __future__ import annotations

import os
import subprocess
import sys

from sim.games.hexflow import precompile as P
from sim.games.hexflow import race


def dispatcher(name: str):
    from sim import interface

    module, fn = name.split(".")
    return getattr({"race": race, "interface": interface}[module], fn)


def test_groups_name_every_kernel_group_once():
    assert sorted(P.GROUPS[0] + P.GROUPS[1]) == sorted(P.KERNELS)
    for names in P.KERNELS.values():
        for name in names:
            assert hasattr(dispatcher(name), "signatures"), name


def test_precompiled_kernels_are_the_ones_play_uses(tmp_path):
    """From an empty cache: compile both groups, then play Race with both bots. Had the drivers
    needed other argument types, numba would have compiled a second signature. The games equal
    those of this process's normally compiled kernels."""
    script = (
        "from sim.games.hexflow import precompile as P\n"
        "from tests.test_hexflow_precompile import dispatcher, play\n"
        "P.compile_group(P.GROUPS[0] + P.GROUPS[1])\n"
        "print(play())\n"
        "print(sorted((n, len(dispatcher(n).signatures)) for ns in P.KERNELS.values() for n in ns))\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == play()
    assert out[1] == str(sorted((n, 1) for ns in P.KERNELS.values() for n in ns))


def play() -> str:
    """Result rows of a few Race games per bot pairing, as text."""
    from sim import games
    from sim.bench import seats

    g = games.get("hexflow")
    rules = g.resolve_rules({}, "test")
    return repr([{k: v.tolist() for k, v in g.play_chunk(rules, seats(g, rules, bot), 0, 40, 3).items()}
                 for bot in ("random", "greedy")])
