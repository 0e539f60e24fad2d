"""List the functions of a source tree over a size limit: lines from `def` to the function's last
line, and positional arguments (the measure issue 15's targets use).

    python tests/function_sizes.py sim/games               # over 100 lines or 15 arguments
    python tests/function_sizes.py sim/games --lines 60 --args 12
    python tests/function_sizes.py sim/games/hexflow --top 5   # the longest and widest anyway
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path


def sizes(root: Path):
    """(path, qualified name, lines, positional arguments) of every function under root."""
    files = [root] if root.is_file() else sorted(root.rglob("*.py"))
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        yield from _walk(path, tree, "")


def _walk(path: Path, node: ast.AST, prefix: str):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = prefix + child.name
            nargs = len(child.args.posonlyargs) + len(child.args.args)
            yield path, name, child.end_lineno - child.lineno + 1, nargs
            yield from _walk(path, child, name + ".")
        elif isinstance(child, ast.ClassDef):
            yield from _walk(path, child, prefix + child.name + ".")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="+", type=Path)
    ap.add_argument("--lines", type=int, default=100, help="list functions over this many lines")
    ap.add_argument("--args", type=int, default=15, help="list functions over this many arguments")
    ap.add_argument("--top", type=int, default=0, help="also list the N longest and the N widest")
    a = ap.parse_args(argv)
    for root in a.roots:
        if not root.exists():
            print(f"function_sizes: {root}: no such file or folder", file=sys.stderr)
            return 2
    rows = [r for root in a.roots for r in sizes(root)]
    over = [r for r in rows if r[2] > a.lines or r[3] > a.args]
    print(f"{len(rows)} functions, {len(over)} over {a.lines} lines or {a.args} arguments")
    for path, name, n, k in sorted(over, key=lambda r: (str(r[0]), r[1])):
        print(f"  {path}:{name}  {n} lines, {k} arguments")
    if a.top:
        print(f"longest {a.top}:")
        for path, name, n, k in sorted(rows, key=lambda r: -r[2])[:a.top]:
            print(f"  {path}:{name}  {n} lines, {k} arguments")
        print(f"most arguments {a.top}:")
        for path, name, n, k in sorted(rows, key=lambda r: -r[3])[:a.top]:
            print(f"  {path}:{name}  {n} lines, {k} arguments")
    return 0


if __name__ == "__main__":
    sys.exit(main())
