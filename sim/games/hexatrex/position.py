"""Position API in plain Python: build a table, list legal cells, place a tile, find equations.

Written apart from the compiled kernel and by a different method, so that it can check it
(`verify_trace`): here every equation is split at its one "=" into a left and a right side;
all side walks leading out of "=" are listed, each side's values are computed with exact
`fractions.Fraction` arithmetic, and the two lists are joined on equal values.

Cells are axial (q, r) pairs; "=" sits at (0, 0). Text notation for tests (`from_text`):
one line per row r (top row first, the row with "=" marked by being the one that holds "="),
each row shifted half a cell to the right of the one above, tokens separated by spaces,
"." an empty cell:

        . 2 +          r = -1:  (0,-1)=2  (1,-1)=+
         4 = 6         r =  0:  (-1,0)=4  (0,0)==  (1,0)=6

Column j of a row is q = j - offset, where the offset is chosen so that "=" lands on (0, 0);
the row below starts half a hex further right, i.e. at the same q minus nothing: rows are
listed in axial layout, so the token under-right of (q, r) is (q, r+1) and under-left is
(q-1, r+1).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from sim.games.hexatrex.tiles import NEIGHBOURS, SYMBOL_TEXT, TEXT_SYMBOL, hex_distance

DIGITS = set("0123456789")
BINOPS = {"+", "-", "x", "/"}


class Position:
    """A table of tiles: {(q, r): symbol text}, with the placement order kept."""

    def __init__(self):
        self.tiles: dict[tuple[int, int], str] = {(0, 0): "="}
        self.order: list[tuple[int, int]] = [(0, 0)]

    @classmethod
    def from_text(cls, text: str) -> Position:
        rows = [line.split() for line in text.strip("\n").splitlines() if line.strip()]
        eq_row = next(i for i, row in enumerate(rows) if "=" in row)
        eq_col = rows[eq_row].index("=")
        pos = cls()
        pos.tiles = {}
        pos.order = []
        cells = []
        for i, row in enumerate(rows):
            r = i - eq_row
            for j, tok in enumerate(row):
                if tok == ".":
                    continue
                q = j - eq_col
                cells.append(((q, r), "x" if tok in ("*", "×") else tok))
        cells.sort(key=lambda c: c[1] != "=")
        for cell, tok in cells:
            if tok not in TEXT_SYMBOL:
                raise ValueError(f"unknown tile {tok!r} in position text")
            pos.tiles[cell] = tok
            pos.order.append(cell)
        return pos

    def copy(self) -> Position:
        p = Position()
        p.tiles = dict(self.tiles)
        p.order = list(self.order)
        return p

    @staticmethod
    def neighbours(cell):
        return [(cell[0] + dq, cell[1] + dr) for dq, dr in NEIGHBOURS]

    def legal_cells(self) -> set[tuple[int, int]]:
        """Empty cells touching at least one tile."""
        out = set()
        for cell in self.tiles:
            for n in self.neighbours(cell):
                if n not in self.tiles:
                    out.add(n)
        return out

    def place(self, cell: tuple[int, int], tile: str) -> None:
        if cell in self.tiles:
            raise ValueError(f"cell {cell} is taken")
        if not any(n in self.tiles for n in self.neighbours(cell)):
            raise ValueError(f"cell {cell} touches no tile")
        if tile not in TEXT_SYMBOL or tile == "=":
            raise ValueError(f"not a playable tile: {tile!r}")
        self.tiles[cell] = tile
        self.order.append(cell)

    # ---- equations ----------------------------------------------------------------------------
    def equations(self, placed, rules: dict[str, Any], max_len: int | None = None):
        """Every distinct tile set of a valid equation through `placed`:
        {frozenset(cells): walk (list of cells, one equation read on those tiles)}."""
        m = rules["max_equation_tiles"] if max_len is None else max_len
        never = rules["tile_repeat"] == "never"
        eq = (0, 0)
        if hex_distance(placed, eq) + 2 > m:
            return {}
        d_pe = hex_distance(placed, eq)
        sides = self._side_walks(eq, placed, m - 2, m - 1 - d_pe, never)
        # sides: tuples of cells leading out of "=" (first cell touches "=")
        right: dict[int, list] = {}
        lefts = []
        for walk in sides:
            syms = [self.tiles[c] for c in walk]
            rv = side_values(syms, rules)
            if rv:
                for v in rv:
                    right.setdefault(v, []).append(walk)
            lsyms = syms[::-1]
            lv = side_values(lsyms, rules)
            if lv:
                lefts.append((walk, lv))
        found: dict[frozenset, list] = {}
        for lw, lv in lefts:
            for v in lv:
                for rw in right.get(v, ()):
                    if len(lw) + len(rw) + 1 > m or lw[0] == rw[0]:
                        continue
                    if placed not in lw and placed not in rw:
                        continue
                    if never and set(lw) & set(rw):
                        continue
                    full = list(lw[::-1]) + [eq] + list(rw)
                    syms = [self.tiles[c] for c in full]
                    if rules["require_operator"] and not has_binop(syms):
                        continue
                    key = frozenset(full)
                    if key not in found:
                        found[key] = full
        return found

    def _side_walks(self, eq, placed, longest, longest_without, never):
        """Walks out of "=" (not revisiting it), spaced (or never repeating), that either contain
        `placed` (up to `longest` cells) or not (up to `longest_without`)."""
        out = []
        stack = [(n,) for n in self.neighbours(eq) if n in self.tiles]
        while stack:
            walk = stack.pop()
            has_p = placed in walk
            if has_p or len(walk) <= longest_without:
                out.append(walk)
            if len(walk) >= longest:
                continue
            last = walk[-1]
            prev = (eq,) + walk
            for n in self.neighbours(last):
                if n not in self.tiles or n == eq or n == prev[-2]:  # no "a b a"
                    continue
                if never and n in walk:
                    continue
                new = walk + (n,)
                if not has_p and n != placed:
                    # without the placed tile this side is only useful while short enough
                    if len(new) > longest_without and \
                            len(new) + hex_distance(n, placed) > longest:
                        continue
                stack.append(new)
        return out

    def score(self, placed, rules, max_len=None) -> tuple[int, int, list[int]]:
        """(equations, points, sizes) for the tile at `placed`."""
        found = self.equations(placed, rules, max_len)
        sizes = sorted(len(k) for k in found)
        return len(found), sum(sizes), sizes


def has_binop(syms: list[str]) -> bool:
    """A binary operator: any "+", "x", "/", or a "-" right after a digit."""
    return any(s in ("+", "x", "/") or (s == "-" and i > 0 and syms[i - 1] in DIGITS)
               for i, s in enumerate(syms))


def tokens(syms: list[str], leading_zero: bool, negative_zero: bool = True):
    """Split a side into (operands, operators) or None if it is not an expression.
    An operand is (sign, [digits]); "-" at the start or after an operator is a sign."""
    operands, ops = [], []
    i, n = 0, len(syms)
    while True:
        sign = 1
        if i < n and syms[i] == "-":
            sign, i = -1, i + 1
        start = i
        while i < n and syms[i] in DIGITS:
            i += 1
        digits = syms[start:i]
        if not digits or (len(digits) > 1 and digits[0] == "0" and not leading_zero):
            return None
        if sign < 0 and not negative_zero and set(digits) == {"0"}:
            return None
        operands.append((sign, digits))
        if i == n:
            return operands, ops
        if syms[i] not in BINOPS:
            return None
        ops.append(syms[i])
        i += 1


def side_values(syms: list[str], rules) -> set[int]:
    """Every integer value this side can take (readings of 6 and +, bracketing)."""
    parsed = tokens(syms, rules["leading_zero"], rules["negative_zero"])
    if parsed is None:
        return set()
    operands, ops = parsed
    digit_choices = [("6", "9") if d == "6" and rules["six_as_nine"] else (d,)
                     for _, ds in operands for d in ds]
    op_choices = [("+", "x") if o == "+" and rules["plus_as_times"] else (o,) for o in ops]
    out = set()
    steps = rules.get("no_fractions", "every_step") == "every_step"
    for digs in itertools.product(*digit_choices):
        vals, k = [], 0
        for sign, ds in operands:
            vals.append(sign * int("".join(digs[k:k + len(ds)])))
            k += len(ds)
        for os_ in itertools.product(*op_choices):
            if rules["bracketing"] == "any":
                vs = _all_brackets(tuple(Fraction(v) for v in vals), os_, steps)
            else:
                vs = {_precedence(vals, os_, steps)}
            out |= {int(v) for v in vs if v is not None and v.denominator == 1}
    return out


def _precedence(vals, ops, steps=True):
    """The side's value (a Fraction) under the order of operations, or None; with `steps`
    every intermediate quotient must be whole, else only the value (checked by the caller)."""
    terms = []
    cur = Fraction(vals[0])
    for o, v in zip(ops, vals[1:], strict=True):
        if o == "x":
            cur = cur * v
        elif o == "/":
            if v == 0:
                return None
            cur = cur / v
            if steps and cur.denominator != 1:
                return None
        else:
            terms.append(cur)
            cur = Fraction(v if o == "+" else -v)
    terms.append(cur)
    return sum(terms)


def _all_brackets(vals, ops, steps=True):
    """Every value (Fractions) of the side under every bracketing; with `steps` every
    intermediate quotient must be whole."""
    if len(vals) == 1:
        return {vals[0]}
    out = set()
    for k, o in enumerate(ops):
        for a in _all_brackets(vals[:k + 1], ops[:k], steps):
            for b in _all_brackets(vals[k + 1:], ops[k + 1:], steps):
                if o == "+":
                    out.add(a + b)
                elif o == "-":
                    out.add(a - b)
                elif o == "x":
                    out.add(a * b)
                elif b != 0 and (not steps or (a / b).denominator == 1):
                    out.add(a / b)
    return out


def reading(syms: list[str], rules) -> str | None:
    """One way to read an equation that makes it true, as text ("6" shown as 9 and "+" as x
    where that reading is the one used), or None if it is not valid."""
    i = syms.index("=")
    free6 = [j for j, s in enumerate(syms) if s == "6" and rules["six_as_nine"]]
    freep = [j for j, s in enumerate(syms) if s == "+" and rules["plus_as_times"]]
    fixed = {**rules, "six_as_nine": False, "plus_as_times": False}
    for c6 in itertools.product((False, True), repeat=len(free6)):
        for cp in itertools.product((False, True), repeat=len(freep)):
            s = list(syms)
            for j, on in zip(free6, c6, strict=True):
                s[j] = "9" if on else "6"
            for j, on in zip(freep, cp, strict=True):
                s[j] = "x" if on else "+"
            if side_values(s[:i], fixed) & side_values(s[i + 1:], fixed):
                return " ".join(s)
    return None


def symbols_text(walk: Iterable, tiles) -> list[str]:
    return [tiles[c] for c in walk]


SYMBOL_OF = TEXT_SYMBOL
TEXT_OF = SYMBOL_TEXT
