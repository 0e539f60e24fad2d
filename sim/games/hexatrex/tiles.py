"""Hexa-Trex tiles and table geometry, as data (STYLE.md 3).

Symbols are small ints so kernels can switch on them:

    0..9   digits ("6" may also read 9; the default set has no 9 tile)
    10 "+" (may also read x)   11 "-" (minus or negative sign)   12 "x"   13 "/"   14 "="
    -1     empty cell

The table is unbounded; we use axial hex coordinates (q, r) stored in a W x W square with the
"=" tile in the middle. With T playable tiles no tile can lie farther than T steps from "=",
so a board of radius T (plus one ring so every neighbour index of a tile is in range) can never
overflow, whatever the bots do. Flat index = (r + C) * W + (q + C), C = T + 1, W = 2C + 1:

          (q, r-1)  (q+1, r-1)
      (q-1, r)   (q, r)   (q+1, r)          neighbour offsets: +1, -1, +W, -W, -W+1, +W-1
          (q-1, r+1) (q, r+1)
"""

from __future__ import annotations

import numpy as np

EMPTY = -1
PLUS, MINUS, TIMES, DIVIDE, EQUALS = 10, 11, 12, 13, 14
SYMBOL_TEXT = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "+", "-", "x", "/", "="]
TEXT_SYMBOL = {t: i for i, t in enumerate(SYMBOL_TEXT)}
TEXT_SYMBOL["*"] = TIMES
TEXT_SYMBOL["÷"] = DIVIDE
TEXT_SYMBOL["×"] = TIMES

# tile_counts order: digits 0..9, then "+", "-", "x", "/" (the one "=" is always added)
COUNT_NAMES = SYMBOL_TEXT[:14]
DEFAULT_COUNTS = [5, 5, 5, 5, 5, 5, 5, 5, 5, 0, 8, 8, 6, 6]


def draw_value(symbol: int) -> int:
    """Value of a tile in the first-player draw: its number; operators count zero."""
    return symbol if 0 <= symbol <= 9 else 0


def pile(counts) -> np.ndarray:
    """The playable tiles (everything but "=") as an int8 array of symbols, in symbol order."""
    return np.repeat(np.arange(14, dtype=np.int8), np.asarray(counts, dtype=np.int64))


class Board:
    """Geometry for a table that holds `n_tiles` playable tiles around the centre "="."""

    def __init__(self, n_tiles: int):
        self.c = n_tiles + 1
        self.w = 2 * self.c + 1
        self.size = self.w * self.w
        self.center = self.c * self.w + self.c
        w = self.w
        self.nb_off = np.array([1, -w + 1, -w, -1, w - 1, w], dtype=np.int64)
        idx = np.arange(self.size)
        self.q = (idx % w - self.c).astype(np.int32)
        self.r = (idx // w - self.c).astype(np.int32)

    def index(self, q: int, r: int) -> int:
        return (r + self.c) * self.w + (q + self.c)

    def coord(self, i: int) -> tuple[int, int]:
        return int(self.q[i]), int(self.r[i])


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


NEIGHBOURS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
