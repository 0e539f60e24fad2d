"""Shared hex geometry: flat-topped hexes in "doubled-height" coordinates.

A hex is (col, dy): `col` counts columns left to right, `dy` is twice the height of its centre,
counted downwards, so vertical neighbours differ by 2 and diagonal neighbours by 1:

         T (0,-2)
   TL (-1,-1)   TR (+1,-1)
         [hex]
   BL (-1,+1)   BR (+1,+1)
         B (0,+2)

Sides are numbered clockwise from the top: 0 T, 1 TR, 2 BR, 3 B, 4 BL, 5 TL, so the side opposite
`s` is `(s + 3) % 6` and turning a tile 60 degrees clockwise moves its side `s` to `s + 1`.
A board is any finite set of such hexes (all with the same parity of col + dy); it is turned into
flat lookup tables once, in Python, for the compiled kernels (STYLE.md 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SIDES = ("T", "TR", "BR", "B", "BL", "TL")
# (dcol, ddy) of the neighbour across each side, in doubled-height coordinates.
SIDE_DELTAS = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))


def opposite(side: int) -> int:
    return (side + 3) % 6


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Steps between two hexes (doubled-height coordinates)."""
    dc = abs(a[0] - b[0])
    dr = abs(a[1] - b[1])
    return dc + max(0, (dr - dc) // 2)


@dataclass
class HexBoard:
    """A board as data: hex cells, names and the lookup tables kernels need.

    `nbr[i, s]` is the index of the hex across side s of hex i, or -1 off the board;
    `dist[i, j]` is the hex distance; `centre[i]` is (x, y) for drawing (unit circumradius,
    y upwards).
    """

    cells: list[tuple[int, int]]
    names: list[str]
    index: dict[tuple[int, int], int] = field(init=False)
    nbr: np.ndarray = field(init=False)
    dist: np.ndarray = field(init=False)
    centre: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        parities = {(c + d) % 2 for c, d in self.cells}
        if len(parities) > 1:
            raise ValueError("hex cells must share the parity of col + dy")
        self.index = {cell: i for i, cell in enumerate(self.cells)}
        n = len(self.cells)
        self.nbr = np.full((n, 6), -1, dtype=np.int16)
        for i, (c, d) in enumerate(self.cells):
            for s, (dc, dd) in enumerate(SIDE_DELTAS):
                self.nbr[i, s] = self.index.get((c + dc, d + dd), -1)
        self.dist = np.array([[hex_distance(a, b) for b in self.cells] for a in self.cells],
                             dtype=np.int16)
        # Flat-topped, circumradius 1: columns 1.5 apart, a hex is sqrt(3) tall.
        self.centre = np.array([(1.5 * c, -np.sqrt(3) / 2 * d) for c, d in self.cells])

    @property
    def size(self) -> int:
        return len(self.cells)

    def hex_id(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"unknown hex {name!r}; hexes are named like {self.names[0]!r}") from None


def column_board(heights: list[int], tops: list[int]) -> HexBoard:
    """A board of vertical columns: column c holds `heights[c]` hexes, its top hex at dy = tops[c].

    Hexes are named by column letter and row number from the top of their column ("a1", "b10").
    """
    cells, names = [], []
    for c, (h, top) in enumerate(zip(heights, tops, strict=True)):
        for r in range(h):
            cells.append((c, top + 2 * r))
            names.append(f"{chr(ord('a') + c)}{r + 1}")
    return HexBoard(cells, names)


def race_board() -> HexBoard:
    """HEXFLOW's 85-hex board: 9 columns, alternately 9 and 10 tall (5 x 9 + 4 x 10 = 85).

    The 10-tall columns (b, d, f, h) stick out half a hex above and below their neighbours,
    so a1, a9, i1, i9 are the four corners (top and bottom of the outer columns).
    """
    heights = [9 if c % 2 == 0 else 10 for c in range(9)]
    tops = [1 if c % 2 == 0 else 0 for c in range(9)]
    return column_board(heights, tops)
