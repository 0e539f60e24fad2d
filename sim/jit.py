"""The compile decorator of every kernel: `kernel` (numba's `njit(cache=True)` without the entry
wrappers a kernel called only from other kernels never uses).

numba gives every function it compiles two entry wrappers besides the function itself: one that
Python calls (it unboxes each argument from a Python object and boxes the result) and one with a
C signature. For a kernel that takes a game's tables, position and scratch NamedTuples, the
Python wrapper unboxes every array of each (HEXFLOW Race's tables hold 38 fields), and numba
then optimises and emits machine code for it like any other code. Nearly every kernel is called
only from other kernels, and only a driver from Python, so `kernel` compiles without both
wrappers (numba's own `overload` implementations are compiled this way): HEXFLOW Race's first
greedy run compiles about a fifth less (docs/writing-a-game.md, "Compile time").

A call from Python still works: it goes to a twin of the kernel, the same Python function
compiled with the Python wrapper under its own cache entry (`<name>__py`: numba's cache index
does not record the wrapper, so the twin must not share the kernel's). The twin calls the same
compiled callees, so calling a kernel from Python (a test, a driver) compiles that one function
once more and nothing else. A function called only from Python (the drivers) compiles once, as
its twin; `entry` marks such functions (and small ones called both ways), so that they compile
once under their own name.
"""

from __future__ import annotations

import types
from collections.abc import Callable

from numba.core import config
from numba.core.registry import CPUDispatcher

TWIN_SUFFIX = "__py"


class Kernel(CPUDispatcher):
    """A numba dispatcher compiled without entry wrappers; a call from Python goes to `twin`."""

    _twin: CPUDispatcher | None = None

    @property
    def twin(self) -> CPUDispatcher:
        """The same function compiled with numba's Python wrapper, cached apart (built lazily)."""
        if self._twin is None:
            f = self.py_func
            g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
            g.__qualname__ = f.__qualname__ + TWIN_SUFFIX
            g.__module__, g.__doc__, g.__kwdefaults__ = f.__module__, f.__doc__, f.__kwdefaults__
            options = {k: v for k, v in self.targetoptions.items() if k != "no_cpython_wrapper"}
            twin = CPUDispatcher(py_func=g, locals=self.locals, targetoptions=options)
            twin.enable_caching()
            self._twin = twin
        return self._twin

    def __call__(self, *args, **kwargs):
        # numba's own call path would jump to the Python wrapper this kernel was compiled without
        return self.twin(*args, **kwargs)


def kernel(fn: Callable | None = None, /, **options) -> Callable:
    """`@kernel` or `@kernel(inline="always", _nrt=False, ...)`: compile `fn` in nopython mode,
    cached on disk (`sim._numba_cache_dir` keys the cache on the kernel sources), without the
    Python and C entry wrappers. numba's njit options pass through."""
    if fn is None:
        return lambda f: kernel(f, **options)
    if config.DISABLE_JIT:
        return fn
    options = {"nopython": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True, **options}
    dispatcher = Kernel(py_func=fn, locals=options.pop("locals", {}), targetoptions=options)
    dispatcher.enable_caching()
    return dispatcher


def entry(fn: Callable | None = None, /, **options) -> Callable:
    """`@entry`: a compiled function Python calls (a driver, the engine's rule functions for
    Python): numba's `njit(cache=True)` with the Python wrapper, without the C one. Other
    kernels may call it too; it then compiles once for both."""
    if fn is None:
        return lambda f: entry(f, **options)
    if config.DISABLE_JIT:
        return fn
    options = {"nopython": True, "no_cfunc_wrapper": True, **options}
    dispatcher = CPUDispatcher(py_func=fn, locals=options.pop("locals", {}), targetoptions=options)
    dispatcher.enable_caching()
    return dispatcher


def compile_for(fn: Callable, *args) -> None:
    """Compile (or load from the cache) `fn` for the numba types of `args`, without running it:
    a kernel's own compiled version, the one other kernels link, where calling it from Python
    would compile its twin."""
    from numba import typeof

    fn.compile(tuple(typeof(a) for a in args))


def library_sizes() -> list[tuple[str, int]]:
    """(function, LLVM instructions) of each library this process compiled, largest first.

    A compiled function's library holds everything it calls, optimised and emitted for it once
    more, so the sum is what numba's optimiser and code generator worked through: call it after a
    first run from an empty numba cache to see which layers cost a second copy of their callees
    (a function loaded from the cache has no LLVM text and is left out)."""
    import gc

    from numba.core.dispatcher import Dispatcher

    rows = []
    for d in [o for o in gc.get_objects() if isinstance(o, Dispatcher)]:
        for cres in list(d.overloads.values()):
            try:
                text = cres.library.get_llvm_str()
            except Exception:  # loaded from the cache: object code only
                continue
            n = sum(1 for line in text.splitlines() if line.startswith("  ") and not line.lstrip().startswith(";"))
            if n:
                rows.append((f"{d.py_func.__module__}.{d.py_func.__qualname__}", n))
    return sorted(rows, key=lambda r: -r[1])
