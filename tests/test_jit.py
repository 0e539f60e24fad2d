"""sim.engine.jit: kernels compiled without numba's entry wrappers, their Python twins, entries and
compile_for. Each check runs in a process of its own from a numba cache folder of the test's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from sim.engine import jit
from sim.engine.jit import TWIN_SUFFIX, Kernel, compile_for, entry, kernel

ROOT = Path(__file__).resolve().parents[1]

# a module of kernels, written to a temporary folder so that its cache is the test's own
MODULE = '''
import numpy as np
from sim.engine.jit import entry, kernel

@kernel
def add_row(a, i, x):
    a[i, :] += x
    return a[i].sum()

@kernel(inline="always")
def twice(x):
    return 2 * x

@entry
def driver(a, x):
    s = 0
    for i in range(a.shape[0]):
        s += add_row(a, i, twice(x))
    return s
'''

SCRIPT = '''
import sys
import numpy as np
import kmod
first = sys.argv[1]
a = np.zeros((3, 4), np.int64)
if first == "python":
    print(kmod.add_row(a, 1, 5), kmod.driver(a, 1))
else:
    print(kmod.driver(a, 1), kmod.add_row(a, 1, 5))
print(len(kmod.add_row.signatures), len(kmod.add_row.twin.signatures), len(kmod.driver.signatures))
print(sum(kmod.add_row.twin.stats.cache_hits.values()), sum(kmod.driver.stats.cache_hits.values()))
'''


def run(tmp_path: Path, first: str) -> list[str]:
    (tmp_path / "mods").mkdir(exist_ok=True)
    (tmp_path / "mods" / "kmod.py").write_text(MODULE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path / "mods"), str(ROOT)]))
    out = subprocess.run([sys.executable, "-c", SCRIPT, first], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split("\n")


def test_a_kernel_called_from_python_runs_its_twin_and_the_twin_is_cached_apart(tmp_path):
    """Python's call goes to the twin (numba's own call path would jump to a wrapper the kernel
    has not got: a crash), the driver links the kernel itself. A second process, calling from
    Python first, loads the twin from the cache and never the wrapper-less kernel as a twin."""
    fresh = run(tmp_path, "driver")
    # driver: rows 0..2 each += 2 -> 8 each, sum 24; then row 1 += 5 -> 28
    assert fresh[0] == "24 28"
    assert fresh[1] == "1 1 1"  # one signature each: the kernel, its twin, the driver
    assert fresh[2] == "0 0"  # compiled, not loaded
    again = run(tmp_path, "python")
    assert again[0] == "20 44"  # row 1 at 5 -> 20; the driver adds 2 to each row: 8 + 28 + 8
    assert again[1] == "0 1 1"  # the cached driver holds the kernel's code: not loaded apart
    assert again[2] == "1 1"  # both loaded from the cache
    names = {p.name.split(".")[1].rsplit("-", 1)[0] for p in (tmp_path / "cache").rglob("*.nbi")}
    assert {"add_row", f"add_row{TWIN_SUFFIX}", "driver"} <= names


def test_kernel_and_entry_options():
    @kernel
    def plain(x):
        return x + 1

    @kernel(_nrt=False)
    def no_rc(x):
        return x * 3

    @entry
    def outer(x):
        return plain(x) + no_rc(x)

    assert isinstance(plain, Kernel) and isinstance(no_rc, Kernel) and not isinstance(outer, Kernel)
    assert plain.targetoptions["no_cpython_wrapper"] and plain.targetoptions["no_cfunc_wrapper"]
    assert no_rc.targetoptions["_nrt"] is False
    assert not outer.targetoptions.get("no_cpython_wrapper") and outer.targetoptions["no_cfunc_wrapper"]
    assert outer(np.int64(2)) == 9
    assert plain(np.int64(2)) == 3  # through the twin
    assert "no_cpython_wrapper" not in plain.twin.targetoptions
    assert plain.twin.py_func.__qualname__.endswith(TWIN_SUFFIX)


def test_compile_for_compiles_the_kernel_not_its_twin():
    @kernel
    def f(a, k):
        return a[k] * 2

    compile_for(f, np.arange(4), np.int64(1))
    assert len(f.signatures) == 1 and f._twin is None



ROOMY = '''
import json
import sys

import numpy as np
from numba.core import event

from sim.engine import jit
from sim.engine.jit import compile_for, entry, kernel

seen = []


class Listener(event.Listener):
    def on_start(self, ev):
        if ev.kind == "numba:compile":
            frame, depth = sys._getframe(), 0
            while frame is not None:
                depth += frame.f_code is jit._roomy.__code__
                frame = frame.f_back
            seen.append((ev.data["dispatcher"].py_func.__qualname__.split(".")[-1], depth))

    def on_end(self, ev):
        pass


@kernel
def inner(x):
    return x - 1


@kernel
def other(x):
    return x * 5


@entry
def outer(x):
    return inner(x) * 2


with event.install_listener("numba:compile", Listener()):
    assert outer(np.int64(4)) == 6
    assert inner(np.int64(4)) == 3  # the twin
    compile_for(other, np.int64(1))
print(json.dumps({"seen": seen, "stack": jit._roomy.__code__.co_stacksize,
                  "inside": bool(getattr(jit._inside, "active", False))}))
'''


def test_every_compile_runs_in_the_roomy_frame(tmp_path):
    """An entry, the kernels its typing compiles, a twin and compile_for all compile beneath one
    frame of `_roomy` (whose reserve gives the compiler's frames one chunk), never two nested.
    In a process of its own with an empty cache: a kernel loaded from the cache compiles nothing."""
    import json

    (tmp_path / "kroomy.py").write_text(ROOMY)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    out = subprocess.run([sys.executable, "-c", "import kroomy"], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    seen = [tuple(x) for x in res["seen"]]
    assert res["stack"] >= 300_000
    assert sorted(name for name, _ in seen) == sorted(["outer", "inner", "inner" + TWIN_SUFFIX, "other"])
    assert all(depth == 1 for _, depth in seen), seen
    assert not res["inside"]


def test_compile_flags_compare_as_numba_compares_them():
    """The fast equality of compile flags agrees with numba's definition (every option's value,
    the unset ones at their defaults) on flags set at random, some to their defaults explicitly;
    the hash is numba's (that of the sorted option names)."""
    from numba.core.compiler import Flags

    assert jit.FAST_FLAGS
    names = sorted(n for n, opt in Flags.options.items() if opt.type is bool)
    rng = np.random.default_rng(7)
    outcomes = set()
    for _ in range(400):
        a, b = Flags(), Flags()
        for f in (a, b):
            for name in rng.choice(names, size=int(rng.integers(0, 4)), replace=False):
                setattr(f, name, bool(rng.integers(0, 2)) if rng.random() < 0.5 else Flags.options[name].default)
        same = a.values() == b.values()
        assert (a == b) is same and (b == a) is same
        assert hash(a) == hash(b) == hash(tuple(sorted(a.values())))
        outcomes.add((same, a._values == b._values))
    assert outcomes == {(True, True), (True, False), (False, False)}  # every path taken
    a, b = Flags(), Flags()
    a._values["not_an_option"] = 1  # as a copy from a config of another class could leave
    assert (a == b) is (a.values() == b.values()) is True


LAYERS = """
import numpy as np
from sim.engine.jit import entry, kernel, library_sizes

@kernel
def leaf(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i] * a[i] - i
    return s

@kernel
def layer(a):
    return leaf(a)

@kernel(inline="always")
def flat(a):
    return leaf(a)

@entry
def top(a):
    return layer(a) + flat(a)

print(top(np.arange(5)))
sizes = dict(library_sizes())
print(sizes["__main__.layer"] > sizes["__main__.leaf"] > 0, "__main__.flat" in sizes,
      sizes["__main__.top"] > sizes["__main__.leaf"])
"""


def test_library_sizes_count_a_callee_again_in_each_caller_that_links_it(tmp_path):
    """From an empty cache: layer's library holds leaf once more; flat, inline, has none."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    (tmp_path / "layers.py").write_text(LAYERS)  # a file: numba caches only functions of one
    out = subprocess.run([sys.executable, str(tmp_path / "layers.py")], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:2] == [str(2 * (30 - 10)), "True False True"]


# kernels that raise with run-time values (numba reads the raising function's Environment) and a
# kernel two drivers share: its machine code exists only inside theirs
DEFERRED_MODULE = '''
import numpy as np
from sim.engine.jit import entry, kernel

@kernel
def checked(a, i):
    if i >= a.shape[0]:
        raise ValueError("row out of range:", i, a.shape[0])
    return a[i].sum()

@kernel
def total(a):
    s = 0
    for i in range(a.shape[0]):
        s += checked(a, i)
    return s

@entry
def first(a, i):
    return total(a) + checked(a, i)

@entry
def second(a, i):
    return 2 * checked(a, i)
'''

DEFERRED_SCRIPT = '''
import numpy as np
import sim.engine.jit
import dmod
a = np.arange(12).reshape(3, 4)
print(dmod.first(a, 1), dmod.second(a, 2))
for f in (dmod.first, dmod.second):
    try:
        f(a, 7)
    except ValueError as e:
        print(type(e).__name__, e.args)
libs = {n: d.overloads[d.signatures[0]].library for n, d in
        [("checked", dmod.checked), ("total", dmod.total), ("first", dmod.first)] if d.signatures}
print(sim.engine.jit.DEFERRED, {n: getattr(lib, "_emitted", None) for n, lib in sorted(libs.items())})
print(sum(dmod.first.stats.cache_hits.values()), sum(dmod.second.stats.cache_hits.values()))
'''


def test_kernels_are_emitted_only_inside_the_entries_that_call_them(tmp_path):
    """DeferredLibrary: a kernel's library is linked but never optimised and emitted on its own;
    the entries' machine code runs it, raises its errors with their run-time values (each
    function's Environment reaches the entries that link it), and loads from the cache."""
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "dmod.py").write_text(DEFERRED_MODULE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path / "mods"), str(ROOT)]))
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", DEFERRED_SCRIPT], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        runs.append(out.stdout.split("\n"))
    fresh, again = runs
    # rows sum to 6, 22, 38: total 66, + row 1 = 88; twice row 2 = 76
    for lines in (fresh, again):
        assert lines[0] == "88 76"
        assert lines[1] == "ValueError ('row out of range:', 7, 3)"
        assert lines[2] == "ValueError ('row out of range:', 7, 3)"
    assert fresh[3] == "True {'checked': False, 'first': True, 'total': False}"
    assert fresh[4] == "0 0"
    assert again[4] == "1 1"  # both entries from the cache; their kernels are not loaded at all
    kinds = {p.name.split(".")[1].rsplit("-", 1)[0] for p in (tmp_path / "cache").rglob("*.nbi")}
    assert {"checked", "total", "first", "second"} <= kinds


def test_a_deferred_cache_entry_loads_in_plain_numba():
    """A kernel's cache entry is numba's own `bitcode` kind: numba's library class (a process
    without sim.engine.jit's code generator) loads it, emits it and runs it."""
    import ctypes

    from numba.core import codegen
    from numba.core.registry import cpu_target

    import sim.engine.jit

    @kernel
    def plus_one(x):
        return x + 1

    @entry
    def call(x):
        return plus_one(x)

    assert call(np.int64(4)) == 5
    lib = plus_one.overloads[plus_one.signatures[0]].library
    assert sim.engine.jit.DEFERRED and not lib._emitted
    state = lib.serialize_using_object_code()
    assert state[1] == "bitcode"
    cg = cpu_target.target_context.codegen()
    cg._library_class = codegen.JITCodeLibrary  # numba's own, as in a process without sim.engine.jit
    try:
        plain = cg.unserialize_library(state)
    finally:
        cg._library_class = sim.engine.jit.DeferredLibrary
    assert type(plain) is codegen.JITCodeLibrary
    name = plus_one.overloads[plus_one.signatures[0]].fndesc.mangled_name
    address = plain.get_pointer_to_function(name)
    assert address
    # numba's calling convention: (int64* ret, void* excinfo, int64 x) -> status
    fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p, ctypes.c_int64)(address)
    out = ctypes.c_int64()
    assert fn(ctypes.byref(out), None, 41) == 0 and out.value == 42


# LLVM's inlining (`forceinline=True`): the function compiles once, alone, and the entry's
# optimised code no longer calls it; a kernel it calls keeps forceinline off
FUSED = '''
import numpy as np
from sim.engine.jit import entry, kernel

@kernel
def leaf(a, i):
    return a[i] * a[i]

@kernel(forceinline=True)
def fused(a):
    s = 0
    for i in range(a.shape[0]):
        s += leaf(a, i) - i
    return s

@entry
def top(a):
    return fused(a) + fused(a[1:])

print(top(np.arange(5)))
print(len(fused.signatures), fused.targetoptions["forceinline"], leaf.targetoptions["forceinline"])
lib = top.overloads[top.signatures[0]].library
name = fused.overloads[fused.signatures[0]].fndesc.mangled_name
print("alwaysinline" in fused.overloads[fused.signatures[0]].library.get_llvm_str(),
      any("call" in line and name in line for line in str(lib._final_module).splitlines()))
'''


def test_a_forceinline_kernel_compiles_once_and_llvm_inlines_it(tmp_path):
    """sim.engine.jit "Two ways to inline": a `forceinline=True` kernel has one compiled version (called
    twice, with one type), carries LLVM's alwaysinline, and no call to it is left in the entry's
    optimised module; the plain kernel it calls keeps forceinline off (kernel sets it)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    (tmp_path / "fused.py").write_text(FUSED)
    out = subprocess.run([sys.executable, str(tmp_path / "fused.py")], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    expected = sum(i * i - i for i in range(5)) + sum(i * i - (i - 1) for i in range(1, 5))
    assert out.stdout.split("\n")[:3] == [str(expected), "1 True False", "True False"]
