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

Machine code only for what Python calls (`DeferredLibrary`). numba finalises every compiled
function's library at once: it links in the libraries of everything the function calls, runs
LLVM's full optimisation over the whole linked module and emits machine code for it. A kernel
that only other kernels call never runs its own machine code (its callers link its IR and
optimise it again with theirs), so each level of a call tree paid for optimising and emitting
everything below it once more. Here a library is linked at once but optimised and emitted only
when numba asks for the address of a function it defines (a driver's or a twin's Python
wrapper); a kernel's cache entry is its linked IR (numba's `bitcode` kind), which the first
caller that needs machine code optimises with its own. The optimiser sees the same code, once,
in the entry's module: the games are the same, and so is their speed (`make bench`).

Two ways to inline. `kernel(inline="always")` is numba's: it copies the function's numba IR into
every caller before typing, so the body is copied (numba deep-copies it twice per call site),
typed and lowered once per call site, and never compiled alone: right for a thin layer (a
`bot_move` that picks a bot by its code) or a small helper. `kernel(forceinline=True)` is LLVM's:
the function compiles once, as its own, and LLVM inlines it into its callers when a driver's
module is optimised (its `alwaysinline` attribute), so the machine code is the same as numba's
inlining gives, without the copies: right for a large body (HEXFLOW Race greedy's `_greedy_hex`:
numba's copy alone took 1.4 s of a first greedy run, which compiles about 8% less with LLVM's).
numba passes `forceinline` on to the functions a forceinline function's compile reaches unless
they set it themselves, so `kernel` and `entry` set it (False by default): a kernel's flags never
depend on which caller compiled it first.

Every compile in one roomy Python frame (`in_roomy_frame`). CPython (3.11 on) keeps Python
frames on a stack of memory chunks, 16 KiB each unless one frame needs more: a call that does
not fit the current chunk maps a new one, and its return unmaps it. numba's compiler recurses
deeply (a callee compiles inside its caller's typing), so wherever one of its loops calls across
a chunk boundary, every call maps and unmaps a chunk and touches fresh pages: HEXFLOW Race's
random-vs-greedy drivers, compiled from an empty cache, mapped and unmapped 16 KiB about 220,000
times (1.0-1.3 s of system time, against 0.4 s in the build before the engine, whose compiles
nest less deeply). A compile entered through `kernel` or `entry` runs inside a call whose frame
reserves 2.4 MB of value stack, so CPython gives it a chunk of 4 MiB of its own, and the
compiler's frames fill the rest of it without crossing a boundary (the reserve is never written,
so its pages are never touched): that compile took 9% less CPU time.

Compile flags compared by what was set (`_compare_flags_by_what_was_set`). numba keys the
implementation it builds for an overload by the argument types and the compile's flags, and
looks it up every time type inference applies the overload (Race's first greedy run: about
44,000 lookups, most of them calls to the engine's rule functions, which are overloads). Two
flags objects are equal when all their options are (22 of them, each read through a property),
and each compile has its own copy, so nearly every lookup compared two whole option dicts
(95,000 comparisons; first runs compile 1-8% less without them). Two flags objects of one class are compared on the
options set in either (the others are the class's defaults on both sides), the same answer as
numba's, which reads all of them; flags of two classes are left to numba. The hash, which numba
takes of the sorted option names alone, is computed once per class.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable

import llvmlite.binding as ll
from numba.core import codegen as _codegen
from numba.core import config
from numba.core.compiler_lock import require_global_compiler_lock
from numba.core.registry import CPUDispatcher, cpu_target

TWIN_SUFFIX = "__py"

# Set while a thread runs inside the roomy frame, so that the compiles nested in one (a callee's,
# during its caller's typing) do not open another.
_inside = threading.local()


def _roomy(fn: Callable, args: tuple, kwargs: dict):
    return fn(*args, **kwargs)


# The value stack a frame of `_roomy` reserves; writing more than the code uses is harmless (the
# stack grows only as far as the code pushes), and CPython sizes the frame's chunk from it.
_roomy.__code__ = _roomy.__code__.replace(co_stacksize=_roomy.__code__.co_stacksize + 300_000)


def in_roomy_frame(fn: Callable, /, *args, **kwargs):
    """`fn(*args, **kwargs)` called from a frame that reserves a large stack, so that the calls
    beneath it share one memory chunk (see "Every compile in one roomy Python frame" above)."""
    if getattr(_inside, "active", False):
        return fn(*args, **kwargs)
    _inside.active = True
    try:
        return _roomy(fn, args, kwargs)
    finally:
        _inside.active = False


class RoomyCompile:
    """A numba dispatcher whose every compile (or load from the cache) runs in_roomy_frame."""

    def compile(self, sig):
        return in_roomy_frame(super().compile, sig)


class Entry(RoomyCompile, CPUDispatcher):
    """numba's dispatcher, compiling in_roomy_frame: `entry` functions and kernels' twins."""


class Kernel(RoomyCompile, CPUDispatcher):
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
            twin = Entry(py_func=g, locals=self.locals, targetoptions=options)
            twin.enable_caching()
            self._twin = twin
        return self._twin

    def __call__(self, *args, **kwargs):
        # numba's own call path would jump to the Python wrapper this kernel was compiled without
        return self.twin(*args, **kwargs)


def kernel(fn: Callable | None = None, /, **options) -> Callable:
    """`@kernel` or `@kernel(inline="always", _nrt=False, ...)`: compile `fn` in nopython mode,
    cached on disk (`sim._numba_cache_dir` keys the cache on the kernel sources), without the
    Python and C entry wrappers. numba's njit options pass through; `forceinline=True` has LLVM
    inline the function into its callers (see "Two ways to inline" above)."""
    if fn is None:
        return lambda f: kernel(f, **options)
    if config.DISABLE_JIT:
        return fn
    options = {"nopython": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True, "forceinline": False, **options}
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
    options = {"nopython": True, "no_cfunc_wrapper": True, "forceinline": False, **options}
    dispatcher = Entry(py_func=fn, locals=options.pop("locals", {}), targetoptions=options)
    dispatcher.enable_caching()
    return dispatcher


# The three decorators of the functions a game runs at every decision, which allocate nothing and
# are compiled without numba's reference counting (each takes the tables, position and scratch,
# dozens of arrays, and counting adds and drops a reference to each at every call; each game's
# module says what it cost there): `hot` for a function of its own, `hot_inline` for a small one
# or a thin layer copied into its callers by numba, `hot_fused` for a large body with one or a few
# call sites, compiled once and inlined by LLVM ("Two ways to inline" above).
hot = kernel(_nrt=False)
hot_inline = kernel(_nrt=False, inline="always")
hot_fused = kernel(_nrt=False, forceinline=True)


class DeferredLibrary(_codegen.JITCodeLibrary):
    """numba's JIT code library, optimised and emitted only when machine code is asked for
    (see the module's docstring). `finalize` links in the callees' IR and stops there; asking for
    a function's address, the object code or the assembly does the rest of numba's
    finalisation: the cheap and full module passes, the execution engine, the environments."""

    _emitted = False

    def finalize(self):
        # numba's CPUCodeLibrary.finalize up to the linking; the optimisation waits for _emit
        require_global_compiler_lock()
        self._codegen._check_llvm_bugs()
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library not in seen:
                self._reload_init.update(library._reload_init)
                seen.add(library)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._finalized = True

    def _emit(self) -> None:
        self._ensure_finalized()
        if not self._emitted:
            self._emitted = True
            self._optimize_final_module()
            self._final_module.verify()
            self._finalize_final_module()
            _fill_environments(self._codegen)

    def _defines(self, name: str) -> bool:
        try:
            return not self._final_module.get_function(name).is_declaration
        except NameError:
            return False

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        if not self._defines(name) and not self._emitted:
            return 0  # numba asks every kernel for the Python wrapper it was compiled without
        self._emit()
        return super().get_pointer_to_function(name)

    def _get_compiled_object(self):
        self._emit()
        return super()._get_compiled_object()

    def get_asm_str(self):
        self._emit()
        return super().get_asm_str()

    def serialize_using_object_code(self):
        if self._emitted:
            return super().serialize_using_object_code()
        # numba's own `bitcode` kind: any numba loads it (and emits it at load)
        return (self.name, "bitcode", self._get_module_for_linking().as_bitcode())

    @classmethod
    def _unserialize(cls, codegen, state):
        name, kind, data = state
        if kind != "bitcode":
            self = super()._unserialize(codegen, state)
            self._emitted = True
            return self
        self = codegen.create_library(name)
        self._final_module = self._shared_module = ll.parse_bitcode(data)
        self._finalized = True
        return self


# (environment global, Environment) of every function compiled: numba stores a function's
# Environment (what a raise with run-time values and the boxing of objects read) into its
# global once the library is in the execution engine; a deferred library's global exists there
# only in the machine code of the entries that link it, so each emission fills every one it holds.
_environments: dict = {}


def _write_environment(cg, name: str, env) -> None:
    import ctypes

    address = cg._engine.get_global_value_address(name)
    if address:
        (ctypes.c_void_p * 1).from_address(address)[0] = ctypes.c_void_p(id(env))


def _fill_environments(cg) -> None:
    for name, env in _environments.items():
        _write_environment(cg, name, env)


def _set_env(self, env_name, env):
    _environments[env_name] = env
    _write_environment(self, env_name, env)


def _defer_machine_code() -> bool:
    """Make the CPU target's JIT code generator use DeferredLibrary (see the module's
    docstring), where numba has the internals it relies on; False where it has not (then numba
    compiles as it always does, only slower)."""
    cg = cpu_target.target_context.codegen()
    if getattr(cg, "_library_class", None) is DeferredLibrary:
        return True
    lib = _codegen.JITCodeLibrary
    needed = ("_optimize_final_module", "_finalize_final_module", "_get_module_for_linking",
              "_raise_if_finalized", "_ensure_finalized", "serialize_using_object_code", "_unserialize")
    if (getattr(cg, "_library_class", None) is not lib or not all(hasattr(lib, n) for n in needed)
            or not all(hasattr(cg, n) for n in ("_engine", "_check_llvm_bugs", "set_env"))):
        return False
    cg._library_class = DeferredLibrary
    cg.set_env = types.MethodType(_set_env, cg)
    return True


DEFERRED = False if config.DISABLE_JIT else _defer_machine_code()


def _compare_flags_by_what_was_set() -> bool:
    """Give numba's TargetConfig (compile flags) a fast equality test and a hash computed once
    per class (see the module's docstring), both agreeing with numba's own; False where numba's
    TargetConfig is not the one this was written for (its own are kept)."""
    from numba.core import targetconfig

    cls = targetconfig.TargetConfig
    if getattr(cls.__eq__, "_sim_fast", False):
        return True
    if not all(hasattr(cls, n) for n in ("values", "options", "__eq__", "__hash__")):
        return False
    numba_eq = cls.__eq__
    hashes: dict = {}

    def __eq__(self, other):
        if self is other:
            return True
        if type(self) is not type(other):
            return numba_eq(self, other)
        mine, theirs = self._values, other._values
        if mine == theirs:
            return True
        # an option set on neither side is the class's default on both: compare the others (a
        # value copied from a config of another class that is no option here numba ignores too)
        options = self.options
        return all(mine.get(k, options[k].default) == theirs.get(k, options[k].default)
                   for k in (mine.keys() | theirs.keys()) & options.keys())

    def __hash__(self):  # numba's: hash(tuple(sorted(self.values()))), the option names
        kind = type(self)
        if kind not in hashes:
            hashes[kind] = hash(tuple(sorted(self.options)))
        return hashes[kind]

    __eq__._sim_fast = True
    cls.__eq__, cls.__hash__ = __eq__, __hash__
    return True


FAST_FLAGS = False if config.DISABLE_JIT else _compare_flags_by_what_was_set()


def compile_for(fn: Callable, *args) -> None:
    """Compile (or load from the cache) `fn` for the numba types of `args`, without running it:
    a kernel's own compiled version, the one other kernels link, where calling it from Python
    would compile its twin."""
    from numba import typeof

    fn.compile(tuple(typeof(a) for a in args))


def library_sizes() -> list[tuple[str, int]]:
    """(function, LLVM instructions) of each library this process compiled, largest first.

    A compiled function's library holds everything it calls, linked in once more, so the sum is
    what numba linked (and the optimiser and code generator worked through for the libraries it
    emitted: the entries', see DeferredLibrary): call it after a first run from an empty numba
    cache to see which layers cost a second copy of their callees (a function loaded from the
    cache as object code has no LLVM text and is left out)."""
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
