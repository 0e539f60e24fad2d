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

from functools import cache

import numpy as np

from sim.engine.hexgrid import HexBoard, column_board, race_board

BOARD = race_board()
SEATS = ("A", "B")
# board_columns: the card's board has 9; narrower and wider boards keep its column heights
BOARD_COLUMNS = (5, 7, 9, 11)

# Each player's two corners: a path joins the first to the second (either direction counts).
CORNER_NAMES = {"A": ("a9", "i1"), "B": ("a1", "i9")}
CORNERS = np.array([[BOARD.hex_id(n) for n in CORNER_NAMES[s]] for s in SEATS], dtype=np.int64)


@cache
def board_of(columns: int = 9) -> HexBoard:
    """The Race board with `columns` columns (board_columns, odd): alternately 9 and 10 hexes
    tall as on the card, the 10-tall ones sticking out half a hex at both ends, so the four
    corners are the top and bottom hexes of the outer columns (9 columns: the card's 85 hexes)."""
    if columns == 9:
        return BOARD
    return column_board([9 if c % 2 == 0 else 10 for c in range(columns)],
                        [1 if c % 2 == 0 else 0 for c in range(columns)])


def corner_names_of(columns: int = 9) -> dict[str, tuple[str, str]]:
    """Each seat's corners on a board of `columns` columns: A bottom-left and top-right, B
    top-left and bottom-right (the last column's letter instead of i)."""
    last = chr(ord("a") + columns - 1)
    return {"A": ("a9", f"{last}1"), "B": ("a1", f"{last}9")}


def corners_of(columns: int = 9) -> np.ndarray:
    board = board_of(columns)
    names = corner_names_of(columns)
    return np.array([[board.hex_id(n) for n in names[s]] for s in SEATS], dtype=np.int64)

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


def dots_array(pairs, columns: int = 9) -> np.ndarray:
    """Dots per hex (0 = plain hex) from (hex name, dots) pairs."""
    board = board_of(columns)
    out = np.zeros(board.size, dtype=np.int64)
    for name, dots in pairs:
        out[board.hex_id(name)] = dots
    return out


def non_corner_hexes(columns: int = 9) -> np.ndarray:
    corners = set(corners_of(columns).ravel().tolist())
    return np.array([i for i in range(board_of(columns).size) if i not in corners], dtype=np.int64)


def mirror_maps() -> list[np.ndarray]:
    """Index permutations of the left-right and top-bottom mirrors (used by tests/docs)."""
    cols = max(c for c, _ in BOARD.cells)
    rows = max(d for _, d in BOARD.cells) + min(d for _, d in BOARD.cells)
    lr = np.array([BOARD.index[(cols - c, d)] for c, d in BOARD.cells])
    tb = np.array([BOARD.index[(c, rows - d)] for c, d in BOARD.cells])
    return [lr, tb]
