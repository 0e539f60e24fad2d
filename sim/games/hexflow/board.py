"""Race-mode board data: the 85-hex board, corners, goals and dot layouts.

Index map of the race board (hex index, column letter + row from the top of the column):

      b1         d1         f1         h1
 a1         c1         e1         g1         i1      <- a1 = B's corner (top-left), i1 = A's (top-right)
      b2         d2         f2         h2
 a2         c2         e2         g2         i2
      ...        ...        ...        ...
 a9         c9         e9         g9         i9      <- a9 = A's corner (bottom-left), i9 = B's
      b10        d10        f10        h10

Columns a, c, e, g, i hold 9 hexes, b, d, f, h hold 10 and stick out half a hex at both ends.
Index order is column by column, top to bottom (a1 = 0, a9 = 8, b1 = 9, ..., i9 = 84).
"""

from __future__ import annotations

import numpy as np

from sim.hexgrid import race_board

BOARD = race_board()
SEATS = ("A", "B")

# Each player's two corners: a path joins the first to the second (either direction counts).
CORNER_NAMES = {"A": ("a9", "i1"), "B": ("a1", "i9")}
CORNERS = np.array([[BOARD.hex_id(n) for n in CORNER_NAMES[s]] for s in SEATS], dtype=np.int64)

# Default dot layout (the card does not give one): symmetric under both mirrors of the board,
# each of which swaps A's corners with B's, so neither player is nearer to any dot.
DEFAULT_DOTS: tuple[tuple[str, int], ...] = (
    ("e5", 5),
    ("c5", 4), ("g5", 4),
    ("e2", 3), ("e8", 3),
    ("d4", 2), ("f4", 2), ("d7", 2), ("f7", 2),
    ("b3", 2), ("h3", 2), ("b8", 2), ("h8", 2),
)


def multiplier(dots: int) -> int:
    """Card: 2 dots x3, 3 dots x4, 4 dots x5, 5 dots x6 (0 = no dot hex)."""
    return dots + 1 if dots >= 2 else 0


def dots_array(pairs) -> np.ndarray:
    """Dots per hex (0 = plain hex) from (hex name, dots) pairs."""
    out = np.zeros(BOARD.size, dtype=np.int64)
    for name, dots in pairs:
        out[BOARD.hex_id(name)] = dots
    return out


def non_corner_hexes() -> np.ndarray:
    corners = set(CORNERS.ravel().tolist())
    return np.array([i for i in range(BOARD.size) if i not in corners], dtype=np.int64)


def mirror_maps() -> list[np.ndarray]:
    """Index permutations of the left-right and top-bottom mirrors (used by tests/docs)."""
    cols = max(c for c, _ in BOARD.cells)
    rows = max(d for _, d in BOARD.cells) + min(d for _, d in BOARD.cells)
    lr = np.array([BOARD.index[(cols - c, d)] for c, d in BOARD.cells])
    tb = np.array([BOARD.index[(c, rows - d)] for c, d in BOARD.cells])
    return [lr, tb]
