"""HEXFLOW Tri-Board (modes "tri" and "tri2p") on the engine interface
(sim/games/hexflow/tri_engine.py), and the package's import graph."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "sim" / "games" / "hexflow"


def import_graph(pkg: Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports, anywhere in its body (function-level imports
    included: a cycle through one still ties the modules together)."""
    mods = {p.stem for p in pkg.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for p in pkg.glob("*.py"):
        out = graph.setdefault(p.stem, set())
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.ImportFrom) and n.level == 1:
                out.update([n.module.split(".")[0]] if n.module else [a.name for a in n.names])
        graph[p.stem] = out & mods
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                return [*stack[stack.index(v):], v]
            if v not in state and (c := dfs(v)):
                return c
        stack.pop()
        state[u] = 2
        return None

    for m in sorted(graph):
        if m not in state and (c := dfs(m)):
            return c
    return None


def test_the_hexflow_package_has_no_import_cycle():
    graph = import_graph(PKG)
    assert {"battle", "tri", "game", "kernel"} <= set(graph)
    assert find_cycle(graph) is None, find_cycle(graph)
    # the checker finds the cycle this package had (battle -> tri -> game -> battle)
    assert find_cycle({**graph, "tri": graph["tri"] | {"game"}, "battle": graph["battle"] | {"tri"}})
