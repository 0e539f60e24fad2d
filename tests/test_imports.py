"""The import graph of `sim/` has no cycle, counting imports written inside functions too: an
import inside a function may defer a heavy library (the CLI starts fast), never dodge a cycle."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SIM = Path(__file__).resolve().parents[1] / "sim"


def _modules() -> dict[str, Path]:
    out = {}
    for p in SIM.rglob("*.py"):
        parts = p.relative_to(SIM.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported sim module: line}; `from pkg import name` points at pkg.name when that
    is a module, else at pkg (its __init__)."""
    mods = _modules()
    edges: dict[str, dict[str, int]] = defaultdict(dict)
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                if t in mods and t != name:
                    edges[name].setdefault(t, node.lineno)
    return edges


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def test_sim_has_no_import_cycle():
    edges = import_graph()
    found = cycles(edges)
    detail = [f"{a} -> {b} (line {edges[a][b]})" for comp in found for a in comp for b in edges[a] if b in comp]
    assert not found, "import cycles:\n" + "\n".join(detail)


def test_the_walk_sees_a_cycle():
    assert cycles({"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b": 1}, "b": {}}) == []


def test_the_walk_counts_imports_inside_functions():
    edges = import_graph()
    assert "sim.reports.ladder" in edges["sim.workflows.ladder"]  # top level
    assert "sim.runs.runner" in edges["sim.cli.errors"]  # inside a function


# The layers of docs/architecture.md, bottom first: a module imports its own layer or lower ones.
# The games' shared declarations (sim.games.base: Game, Bot, Param, Trace) sit below the engine,
# which uses them; the games themselves (and the registry) above it. The command line and the
# bench call the Python API (the root package); the root package itself (the version, the cache
# set-up, the API imported on first use) may be read from any layer.
LAYERS = (("sim.errors", "sim.display"), ("sim.games.base",), ("sim.engine",), ("sim.games",), ("sim.runs",),
          ("sim.stats",), ("sim.reports",), ("sim.workflows", "sim.testing"), ("sim",), ("sim.cli", "sim.perf"))


def layer_of(module: str) -> int:
    """The index in LAYERS of the longest prefix naming `module` or a package holding it."""
    best = (-1, -1)
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best[1]:
                best = (i, len(p))
    return best[0]


def test_packages_import_downwards_only():
    edges = import_graph()
    up = [f"{a} -> {b} (line {line})" for a, targets in edges.items() for b, line in targets.items()
          if layer_of(b) > layer_of(a) and b != "sim"]
    assert not up, "imports up the layers of docs/architecture.md:\n" + "\n".join(sorted(up))


def test_old_module_paths_import_the_moved_modules():
    """A plug-in written to the older guide imports `sim.jit`, `from sim import interface`, ...:
    each old path gives the moved module itself (one object, so a monkeypatch holds through both)."""
    import importlib

    from sim.jit import kernel

    import sim
    from sim import interface

    for old, new in sim._MOVED.items():
        assert importlib.import_module(old) is importlib.import_module(new), old
    assert interface.implement is importlib.import_module("sim.engine").implement
    assert kernel is importlib.import_module("sim.engine.jit").kernel
