"""Board geometry of Four flags: 8 rows x 7 columns of pointy-top hexes (56), 4 flags, 52 territory.

Hex index = row * 7 + col. "standard" layout: odd rows shifted right by half a hex (odd-r offset):

    row 0   00 01 02 N3 04 05 06            N = flag North (0,3): 4 neighbours
    row 1     07 08 09 10 11 12 13
    row 2   14 15 16 17 18 19 20
    row 3     21 22 23 24 25 26 E6          E = flag East (3,6): 3 neighbours
    row 4   W0 29 30 31 32 33 34            W = flag West (4,0): 3 neighbours
    row 5     35 36 37 38 39 40 41
    row 6   42 43 44 45 46 47 48
    row 7     49 50 51 S3 53 54 55          S = flag South (7,3): 4 neighbours

"mirrored": the same board seen in a mirror (even rows shifted right), so W sits at (3,0) and E at
(4,6). Both layouts give the card's 4/4/3/3 neighbour counts with no shared neighbours and are
symmetric under a 180 degree rotation. All tables are built here once and passed to the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROWS, COLS = 8, 7
N_HEX = ROWS * COLS
FLAG_NAMES = ("N", "S", "W", "E")
LAYOUTS = ("standard", "mirrored")
_FLAG_CELLS = {
    "standard": ((0, 3), (7, 3), (4, 0), (3, 6)),
    "mirrored": ((0, 3), (7, 3), (3, 0), (4, 6)),
}
_SHIFTED_ROWS = {"standard": 1, "mirrored": 0}  # row parity shifted right by half a hex


def hex_index(row: int, col: int) -> int:
    return row * COLS + col


def neighbours(row: int, col: int, layout: str = "standard") -> list[tuple[int, int]]:
    """On-board neighbours of (row, col), in the order E, W, up-left, up-right, down-left, down-right."""
    shifted = row % 2 == _SHIFTED_ROWS[layout]
    left = 0 if shifted else -1  # column offset of the up-left / down-left neighbour
    cand = [(row, col + 1), (row, col - 1), (row - 1, col + left), (row - 1, col + left + 1),
            (row + 1, col + left), (row + 1, col + left + 1)]
    return [(r, c) for r, c in cand if 0 <= r < ROWS and 0 <= c < COLS]


def hex_centre(row: int, col: int, layout: str = "standard") -> tuple[float, float]:
    """Centre (x, y) for drawing, unit hex width, row 0 at the top."""
    shift = 0.5 if row % 2 == _SHIFTED_ROWS[layout] else 0.0
    return col + shift, -row * 0.8660254037844386


@dataclass(frozen=True)
class Board:
    """Lookup tables of one layout (all int64 numpy arrays, -1 = none)."""

    layout: str
    nbr: np.ndarray  # (56, 6) neighbour hex indices, -1 padded
    nbr_n: np.ndarray  # (56,) number of neighbours
    is_flag: np.ndarray  # (56,) 1 on the four flag hexes
    flag_hex: np.ndarray  # (4,) hex of flag N, S, W, E
    flag_nbrs: np.ndarray  # (4, 4) neighbour hexes of each flag, -1 padded
    flag_nn: np.ndarray  # (4,) 4, 4, 3, 3
    flag_of: np.ndarray  # (56,) which flag a hex surrounds, -1 if none
    terr: np.ndarray  # (52,) territory hexes in index order
    dist: np.ndarray  # (56, 4) steps from a hex to the nearest neighbour hex of each flag
    hd: np.ndarray  # (56, 56) steps between hexes through territory (99: a flag, never entered)
    # (56, 56, 2) near[e, j] = (hex, steps from e): every hex e can reach, nearest first (e itself
    # at j = 0), then (-1, 99): what an enemy stack can reach is read off the front of its row
    near: np.ndarray

    def tables(self) -> tuple:
        """The arrays in the order the kernels take them."""
        return (self.nbr, self.nbr_n, self.is_flag, self.flag_nbrs, self.flag_nn, self.flag_of,
                self.terr, self.near)


_BOARDS: dict[str, Board] = {}


def board(layout: str = "standard") -> Board:
    if layout not in _BOARDS:
        _BOARDS[layout] = _build(layout)
    return _BOARDS[layout]


def _build(layout: str) -> Board:
    nbr = -np.ones((N_HEX, 6), dtype=np.int64)
    nbr_n = np.zeros(N_HEX, dtype=np.int64)
    for r in range(ROWS):
        for c in range(COLS):
            ns = [hex_index(*x) for x in neighbours(r, c, layout)]
            nbr[hex_index(r, c), :len(ns)] = ns
            nbr_n[hex_index(r, c)] = len(ns)
    flag_hex = np.array([hex_index(*x) for x in _FLAG_CELLS[layout]], dtype=np.int64)
    is_flag = np.zeros(N_HEX, dtype=np.int64)
    is_flag[flag_hex] = 1
    flag_nbrs = -np.ones((4, 4), dtype=np.int64)
    flag_nn = np.zeros(4, dtype=np.int64)
    flag_of = -np.ones(N_HEX, dtype=np.int64)
    for f, h in enumerate(flag_hex):
        ns = [int(x) for x in nbr[h, :nbr_n[h]] if not is_flag[x]]
        flag_nbrs[f, :len(ns)] = ns
        flag_nn[f] = len(ns)
        for x in ns:
            assert flag_of[x] == -1, "flags share a neighbour"
            flag_of[x] = f
    terr = np.array([h for h in range(N_HEX) if not is_flag[h]], dtype=np.int64)
    # breadth-first distances through territory hexes (flags are never entered)
    dist = np.full((N_HEX, 4), 99, dtype=np.int64)
    for f in range(4):
        frontier = [int(x) for x in flag_nbrs[f, :flag_nn[f]]]
        for x in frontier:
            dist[x, f] = 0
        d = 0
        while frontier:
            d += 1
            nxt = []
            for x in frontier:
                for y in nbr[x, :nbr_n[x]]:
                    if not is_flag[y] and dist[y, f] > d:
                        dist[y, f] = d
                        nxt.append(int(y))
            frontier = nxt
    hd = np.full((N_HEX, N_HEX), 99, dtype=np.int64)
    for s in terr:
        hd[s, s] = 0
        frontier = [int(s)]
        d = 0
        while frontier:
            d += 1
            nxt = []
            for x in frontier:
                for y in nbr[x, :nbr_n[x]]:
                    if not is_flag[y] and hd[s, y] > d:
                        hd[s, y] = d
                        nxt.append(int(y))
            frontier = nxt
    near = np.full((N_HEX, N_HEX, 2), -1, dtype=np.int64)
    near[:, :, 1] = 99
    for s in terr:
        order = sorted((int(hd[s, h]), h) for h in range(N_HEX) if hd[s, h] < 99)
        near[s, :len(order), 0] = [h for _, h in order]
        near[s, :len(order), 1] = [d for d, _ in order]
    return Board(layout, nbr, nbr_n, is_flag, flag_hex, flag_nbrs, flag_nn, flag_of, terr, dist, hd,
                 near)


def ascii_board(layout: str = "standard", cells=None) -> str:
    """The board as text: odd (shifted) rows indented; `cells(h)` gives a 3-char label per hex."""
    b = board(layout)
    lines = []
    for r in range(ROWS):
        shifted = r % 2 == _SHIFTED_ROWS[layout]
        row = []
        for c in range(COLS):
            h = hex_index(r, c)
            if cells is not None:
                row.append(cells(h))
            elif b.is_flag[h]:
                row.append(" " + FLAG_NAMES[list(b.flag_hex).index(h)] + " ")
            else:
                row.append(f"{h:>3}")
        lines.append(("  " if shifted else "") + " ".join(row))
    return "\n".join(lines)
