"""Tri-Board data: the triangular board of side n, its corners I/II/III, centre hexes, dots, sets.

The triangle is built from flat-topped hexes (sim/engine/hexgrid.py), so one side is vertical: column
a holds n hexes, column b n - 1, ..., the last column one (the apex). Every hex has barycentric
coordinates (x, y, z), x + y + z = n - 1: x = column, y = place in its column from the top,
z = place from the bottom. The six symmetries of the triangle permute (x, y, z).

Drawn turned 90 degrees anticlockwise (as on the card: I on top, II bottom-left, III bottom-right):

    side 14 as built (index = column by column, top to bottom):        as drawn:
      a1 = corner II (x, y, z) = (0, 0, 13)                                 I
      ...                                                                  / \\
      a14 = corner III (0, 13, 0)        n1 = corner I (13, 0, 0)        II---III

Centre hexes: the hexes nearest the triangle's centroid ((n-1)/3 each): three mutually adjacent
hexes when n - 1 is not a multiple of 3 (n = 14: (4, 4, 5) and its permutations), a single hex
when it is (n = 13: (4, 4, 4)).
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from sim.engine.hexgrid import HexBoard, column_board

from .tiles import N_TYPES, TYPE_BY_NAME

TRI_SEATS = ("I", "II", "III")
TRI2P_SEATS = ("II", "III")
WILDCARD = N_TYPES  # hand-only tile index: declared as a standard type when placed

# The card's "Tile Distribution (18 tiles each)": the quantities listed sum to 17.
TRI_DISTRIBUTION: tuple[tuple[str, int], ...] = (
    ("star6", 1), ("x_cross", 1), ("spread", 1), ("arrow", 1), ("y_right", 1), ("y_left", 1),
    ("tri_branch", 2), ("straight", 2), ("angle", 2), ("l_curve", 2), ("block", 2),
    ("wildcard", 1),
)


def tri_tile_set() -> np.ndarray:
    """One player's 3-player Tri-Board bag, exactly as the card lists it (17 tiles)."""
    out = []
    for name, qty in TRI_DISTRIBUTION:
        out += [WILDCARD if name == "wildcard" else TYPE_BY_NAME[name]] * qty
    return np.array(out, dtype=np.int64)


def bonus(dots: int) -> int:
    """Tri-Board flat dot bonus: 2 dots +3, 3 +4, 4 +5, 5 +6 (0 = plain hex)."""
    return dots + 1 if dots >= 2 else 0


class TriBoard:
    """One Tri-Board size as data: the hex board, barycentric coordinates, corners, centres."""

    def __init__(self, n: int):
        self.n = n
        self.board: HexBoard = column_board(list(range(n, 0, -1)), list(range(n)))
        self.bary = [(c, (d - c) // 2, n - 1 - c - (d - c) // 2) for c, d in self.board.cells]
        self.by_bary = {b: i for i, b in enumerate(self.bary)}
        self.corner = {"I": self.by_bary[(n - 1, 0, 0)], "II": self.by_bary[(0, 0, n - 1)],
                       "III": self.by_bary[(0, n - 1, 0)]}
        g = (n - 1) / 3
        d2 = [sum((v - g) ** 2 for v in b) for b in self.bary]
        best = min(d2)
        self.centres = [i for i, v in enumerate(d2) if abs(v - best) < 1e-9]

    @property
    def size(self) -> int:
        return self.board.size

    def orbit(self, b: tuple[int, int, int]) -> list[int]:
        """The hexes an (x, y, z) point maps to under the triangle's six symmetries."""
        return sorted({self.by_bary[p] for p in itertools.permutations(b)})

    def symmetries(self) -> list[np.ndarray]:
        """Index permutations of the six symmetries (tests: the dot layout is invariant)."""
        out = []
        for perm in itertools.permutations(range(3)):
            out.append(np.array([self.by_bary[tuple(b[k] for k in perm)] for b in self.bary]))
        return out

    def default_dots(self) -> np.ndarray:
        """Dots per hex (the card gives none): whole symmetry orbits, so no corner is favoured.
        4 dots on each corner's lane just outside the centre, 3 further out on the lane,
        2 on six off-lane hexes, 5 at the middle of each edge (a long detour)."""
        n = self.n
        m = (n - 1) // 3 - 1
        m2 = max(1, (n - 1) // 6)
        k = (n - 1) // 3
        layout = [((m, m, n - 1 - 2 * m), 4), ((m2, m2, n - 1 - 2 * m2), 3),
                  ((1, k, n - 2 - k), 2), ((0, (n - 1) // 2, n - 1 - (n - 1) // 2), 5)]
        dots = np.zeros(self.size, dtype=np.int64)
        fixed = set(self.corner.values()) | set(self.centres)
        for b, v in layout:
            for h in self.orbit(b):
                if h not in fixed and dots[h] == 0:
                    dots[h] = v
        return dots

    def free_hexes(self) -> np.ndarray:
        fixed = set(self.corner.values()) | set(self.centres)
        return np.array([i for i in range(self.size) if i not in fixed], dtype=np.int64)


@lru_cache(maxsize=8)
def tri_board(n: int) -> TriBoard:
    return TriBoard(n)
