"""HEXFLOW Race's two-process compile (sim/games/hexflow/precompile.py): its signature codes must
be what `_play` compiles, or the warm-up silently loses its time saving (games stay right)."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

from numba.core import types

from sim.games.hexflow import kernel as K
from sim.games.hexflow import precompile as P


def test_codes_parse_and_count_each_kernels_arguments():
    assert P.signature("i f b a2 u1") == (types.int64, types.float64, types.boolean,
                                          types.Array(types.int64, 2, "C"),
                                          types.Array(types.uint64, 1, "C"))
    assert sorted(P.GROUPS[0] + P.GROUPS[1]) == sorted(P.SIGNATURES)
    for name, code in P.SIGNATURES.items():
        params = inspect.signature(getattr(K, name).py_func).parameters
        assert len(code.split()) == len(params), name


def test_precompiled_signatures_are_the_ones_play_uses(tmp_path):
    """From an empty cache: compile every listed kernel by its code, then play Race with both
    bots. Had `_play` needed other argument types, numba would have compiled a second signature.
    The games equal those of this process's normally compiled kernels."""
    script = (
        "from sim.games.hexflow import kernel as K, precompile as P\n"
        "P.compile_group(P.GROUPS[0] + P.GROUPS[1])\n"
        "from tests.test_hexflow_precompile import play\n"
        "print(play())\n"
        "print(sorted((n, len(getattr(K, n).signatures)) for n in P.SIGNATURES))\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == play()
    assert out[1] == str(sorted((n, 1) for n in P.SIGNATURES))


def play() -> str:
    """Result rows of a few Race games per bot pairing, as text."""
    from sim import games
    from sim.bench import seats

    g = games.get("hexflow")
    rules = g.resolve_rules({}, "test")
    return repr([{k: v.tolist() for k, v in g.play_chunk(rules, seats(g, rules, bot), 0, 40, 3).items()}
                 for bot in ("random", "greedy")])
