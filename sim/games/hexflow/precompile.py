"""Compile HEXFLOW Race's kernels from an empty numba cache in two processes instead of one.

numba compiles a kernel's callees one after another while it types the kernel, so `_play` (the
Race chunk kernel) compiles its whole tree serially: ~32 s of CPU. Two subtrees of it are
independent: the greedy bot (`_greedy_move` and what it calls, ~13 s) and the rules and random
bot (~8 s). `precompile_race()` compiles the first here and the second in a second process (it
also pays the ~1.5 s start of a fresh interpreter), each by explicit signature into the on-disk
cache (`cache=True`); `_play` then finds both compiled (the other process's work through the
cache) and compiles only its own body. Wall time with two cores: about max(13, 8 + 1.5) + 9 s
instead of 32 s. CPU time is the same; the games are the same code.

The signatures are written below in a short code. If one goes stale (a kernel's arguments
changed), nothing breaks: numba compiles the right one while typing `_play`, so only the time
saving is lost. `tests/test_hexflow_precompile.py` holds them to what `_play` compiles.
"""

from __future__ import annotations

import subprocess
import sys

from numba.core import types

# one code per argument: i int64, f float64, b bool, aN int64 C array of N dims, uN uint64 ...
SIGNATURES = {
    "_greedy_move": "i u1 f f b b a2 a2 a1 a2 a3 a2 a1 a1 a1 a1 a1 a1 a1 a1 i a1 a2 a1 a1 a1 a1 a1 a2 "
                    "a1 a1 a1 a2 a2 a2 a1 a2 a2 a1",
    "_new_witness": "i a2 a2 a2 a1 a1 a1 a1 a1 a1 a1 a1 a1 a2 a2 a1",
    "_random_move": "i u1 b a2 a1 a2 a2 a1 a1 a1 a1 i a1 a2 a1 a1 a1 a1",
    "_best_path": "i i a2 a1 a1 a1 a1 a1 a1 a1 a1 a1 a1 a1",
    "_place": "i i i i a2 a3 a2 a1 a1 a1 a1 a1 a1 a1 a1 a1 a1 a1 i",
    "_lay_dots": "u1 b a1 a1 a1 a1 a1 a1",
    "_deal": "u1 i a1 i a2 a1 a2 i b a2",
    "_reaches": "a2 a2 a1 a1 a1 a3 a1",
    "_connected": "i i a1 a1 a1",
    "_side_order": "a2 a2 a2 a2",
}
# compiled here / in the second process (the shorter job, as it also starts an interpreter)
GROUPS = (("_greedy_move",),
          ("_new_witness", "_random_move", "_best_path", "_place", "_lay_dots", "_deal",
           "_reaches", "_connected", "_side_order"))

_SCALARS = {"i": types.int64, "f": types.float64, "b": types.boolean}
_DTYPES = {"a": types.int64, "u": types.uint64}


def signature(code: str) -> tuple:
    """The numba argument types of a code string ("i a2 u1" -> int64, int64[:, ::1], uint64[::1])."""
    out = []
    for c in code.split():
        if c in _SCALARS:
            out.append(_SCALARS[c])
        else:
            out.append(types.Array(_DTYPES[c[0]], int(c[1:]), "C"))
    return tuple(out)


def compile_group(names: tuple[str, ...]) -> None:
    """Compile (or load from the cache) each named Race kernel for its signature."""
    from . import kernel

    for name in names:
        getattr(kernel, name).compile(signature(SIGNATURES[name]))


def precompile_race() -> None:
    """Compile the greedy subtree here and the rules subtree in a second process, so that the
    next `_play` compile only has its own body left (see the module docstring). The second
    process is a plain `python -c` (not multiprocessing, which would import the caller's
    `__main__` again); if it fails, `_play` compiles that subtree itself: slower, same result."""
    code = f"from {__name__} import GROUPS, compile_group; compile_group(GROUPS[1])"
    other = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        compile_group(GROUPS[0])
    finally:
        other.wait()
