"""Board geometry of Four flags: 8 rows x 7 columns of pointy-top hexes (56), 4 flags, 52 territory.

Hex index = row * cols + col. "standard" layout: odd rows shifted right by half a hex (odd-r offset):

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

The board is data (a `Layout`: rows, columns, which rows are shifted, the four flags' cells), so
a variant can play another board (`board_rows`, `board_cols`, `flag_cells`; `check_layout` says
what is allowed). Without `flag_cells` the flags sit at the middle of each edge: N at (0, cols // 2),
S at (rows - 1, cols // 2), and W and E on the two middle rows (one row apart when the rows are
even, as on the card's board).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

ROWS, COLS = 8, 7  # the card's board
N_HEX = ROWS * COLS
MAX_HEX = 99  # move codes leave room for 99 hexes (kernel.MV_REINF + hex < MV_STOP)
FLAG_NAMES = ("N", "S", "W", "E")
LAYOUTS = ("standard", "mirrored")
_SHIFTED_ROWS = {"standard": 1, "mirrored": 0}  # row parity shifted right by half a hex


class Layout(NamedTuple):
    """A board as data: rows x cols hexes, rows of parity `shifted` shifted right by half a hex,
    flags[f] = (row, col) of flag N, S, W, E."""

    rows: int
    cols: int
    shifted: int
    flags: tuple[tuple[int, int], ...]

    @property
    def n_hex(self) -> int:
        return self.rows * self.cols


def edge_flags(rows: int, cols: int, name: str) -> tuple[tuple[int, int], ...]:
    """The flags at the middle of each edge (the card's rule), half-turn symmetric placed for
    an even number of rows: "standard" W on row rows // 2, E on (rows - 1) // 2; "mirrored" the
    other way round."""
    lo, hi = (rows - 1) // 2, rows // 2
    w, e = (hi, lo) if name == "standard" else (lo, hi)
    return ((0, cols // 2), (rows - 1, cols // 2), (w, 0), (e, cols - 1))


def layout(name: str = "standard", rows: int = ROWS, cols: int = COLS, flags=None) -> Layout:
    """The Layout of a named board (`board` rule) with optional other size and flag cells."""
    cells = tuple(tuple(int(x) for x in f) for f in flags) if flags else edge_flags(rows, cols, name)
    return Layout(int(rows), int(cols), _SHIFTED_ROWS[name], cells)


def layout_of(rules: dict) -> Layout:
    """The board the resolved rules play on."""
    return layout(rules["board"], rules.get("board_rows", ROWS), rules.get("board_cols", COLS),
                  rules.get("flag_cells") or None)


def _as_layout(lay) -> Layout:
    return lay if isinstance(lay, Layout) else layout(lay)


def hex_index(row: int, col: int, cols: int = COLS) -> int:
    return row * cols + col


def neighbours(row: int, col: int, lay="standard") -> list[tuple[int, int]]:
    """On-board neighbours of (row, col), in the order E, W, up-left, up-right, down-left, down-right."""
    lay = _as_layout(lay)
    shifted = row % 2 == lay.shifted
    left = 0 if shifted else -1  # column offset of the up-left / down-left neighbour
    cand = [(row, col + 1), (row, col - 1), (row - 1, col + left), (row - 1, col + left + 1),
            (row + 1, col + left), (row + 1, col + left + 1)]
    return [(r, c) for r, c in cand if 0 <= r < lay.rows and 0 <= c < lay.cols]


def hex_centre(row: int, col: int, lay="standard") -> tuple[float, float]:
    """Centre (x, y) for drawing, unit hex width, row 0 at the top."""
    shift = 0.5 if row % 2 == _as_layout(lay).shifted else 0.0
    return col + shift, -row * 0.8660254037844386


def check_layout(lay: Layout) -> str | None:
    """What is wrong with a board (None: playable): 4 flags on distinct cells of the board, at
    most 99 hexes, each flag with at least one territory neighbour, no hex next to two flags."""
    if lay.n_hex > MAX_HEX:
        return f"board_rows x board_cols = {lay.rows} x {lay.cols} = {lay.n_hex} hexes; allowed: at most {MAX_HEX}"
    if len(lay.flags) != 4 or any(len(f) != 2 for f in lay.flags):
        return "flag_cells: four [row, column] pairs (N, S, W, E)"
    for name, (r, c) in zip(FLAG_NAMES, lay.flags, strict=True):
        if not (0 <= r < lay.rows and 0 <= c < lay.cols):
            return (f"flag_cells: flag {name} at [{r}, {c}] is off the {lay.rows} x {lay.cols} board; "
                    f"allowed: rows 0-{lay.rows - 1}, columns 0-{lay.cols - 1}")
    if len(set(lay.flags)) < 4:
        return "flag_cells: two flags on the same cell; allowed: four distinct cells"
    cells = set(lay.flags)
    seen: dict[tuple[int, int], str] = {}
    for name, (r, c) in zip(FLAG_NAMES, lay.flags, strict=True):
        terr = [x for x in neighbours(r, c, lay) if x not in cells]
        if not terr:
            return f"flag_cells: flag {name} at [{r}, {c}] has no territory neighbour"
        for x in terr:
            if x in seen:
                return (f"flag_cells: hex {list(x)} touches flags {seen[x]} and {name}; allowed: no hex "
                        "next to two flags")
            seen[x] = name
    return None


@dataclass(frozen=True)
class Board:
    """Lookup tables of one layout (all int64 numpy arrays, -1 = none; n = rows x cols hexes)."""

    layout: Layout
    nbr: np.ndarray  # (n, 6) neighbour hex indices, -1 padded
    nbr_n: np.ndarray  # (n,) number of neighbours
    is_flag: np.ndarray  # (n,) 1 on the four flag hexes
    flag_hex: np.ndarray  # (4,) hex of flag N, S, W, E
    flag_nbrs: np.ndarray  # (4, 6) neighbour hexes of each flag, -1 padded
    flag_nn: np.ndarray  # (4,) 4, 4, 3, 3 on the card's board
    flag_of: np.ndarray  # (n,) which flag a hex surrounds, -1 if none
    terr: np.ndarray  # (n - 4,) territory hexes in index order
    dist: np.ndarray  # (n, 4) steps from a hex to the nearest neighbour hex of each flag
    hd: np.ndarray  # (n, n) steps between hexes through territory (99: a flag, never entered)
    # (n, n, 2) near[e, j] = (hex, steps from e): every hex e can reach, nearest first (e itself
    # at j = 0), then (-1, 99): what an enemy stack can reach is read off the front of its row
    near: np.ndarray

    @property
    def rows(self) -> int:
        return self.layout.rows

    @property
    def cols(self) -> int:
        return self.layout.cols

    @property
    def n_hex(self) -> int:
        return self.layout.n_hex

    def tables(self) -> tuple:
        """The arrays in the order the kernels take them."""
        return (self.nbr, self.nbr_n, self.is_flag, self.flag_nbrs, self.flag_nn, self.flag_of,
                self.terr, self.near)


_BOARDS: dict[Layout, Board] = {}


def board(lay="standard") -> Board:
    """The tables of a board: a layout name (the card's size) or a Layout (checked first by
    check_layout)."""
    lay = _as_layout(lay)
    if lay not in _BOARDS:
        _BOARDS[lay] = _build(lay)
    return _BOARDS[lay]


def _bfs(starts, nbr, nbr_n, is_flag, out) -> None:
    """out[h] = steps from the nearest start hex to h through territory (flags never entered)."""
    frontier = [int(x) for x in starts]
    for x in frontier:
        out[x] = 0
    d = 0
    while frontier:
        d += 1
        nxt = []
        for x in frontier:
            for y in nbr[x, :nbr_n[x]]:
                if not is_flag[y] and out[y] > d:
                    out[y] = d
                    nxt.append(int(y))
        frontier = nxt


def _build(lay: Layout) -> Board:
    n = lay.n_hex
    nbr = -np.ones((n, 6), dtype=np.int64)
    nbr_n = np.zeros(n, dtype=np.int64)
    for r in range(lay.rows):
        for c in range(lay.cols):
            ns = [hex_index(*x, lay.cols) for x in neighbours(r, c, lay)]
            nbr[hex_index(r, c, lay.cols), :len(ns)] = ns
            nbr_n[hex_index(r, c, lay.cols)] = len(ns)
    flag_hex = np.array([hex_index(*x, lay.cols) for x in lay.flags], dtype=np.int64)
    is_flag = np.zeros(n, dtype=np.int64)
    is_flag[flag_hex] = 1
    flag_nbrs = -np.ones((4, 6), dtype=np.int64)
    flag_nn = np.zeros(4, dtype=np.int64)
    flag_of = -np.ones(n, dtype=np.int64)
    for f, h in enumerate(flag_hex):
        ns = [int(x) for x in nbr[h, :nbr_n[h]] if not is_flag[x]]
        flag_nbrs[f, :len(ns)] = ns
        flag_nn[f] = len(ns)
        for x in ns:
            assert flag_of[x] == -1, "flags share a neighbour"
            flag_of[x] = f
    terr = np.array([h for h in range(n) if not is_flag[h]], dtype=np.int64)
    dist = np.full((n, 4), 99, dtype=np.int64)
    for f in range(4):
        _bfs(flag_nbrs[f, :flag_nn[f]], nbr, nbr_n, is_flag, dist[:, f])
    hd = np.full((n, n), 99, dtype=np.int64)
    for s in terr:
        _bfs([s], nbr, nbr_n, is_flag, hd[s])
    near = np.full((n, n, 2), -1, dtype=np.int64)
    near[:, :, 1] = 99
    for s in terr:
        order = sorted((int(hd[s, h]), h) for h in range(n) if hd[s, h] < 99)
        near[s, :len(order), 0] = [h for _, h in order]
        near[s, :len(order), 1] = [d for d, _ in order]
    return Board(lay, nbr, nbr_n, is_flag, flag_hex, flag_nbrs, flag_nn, flag_of, terr, dist, hd,
                 near)


def ascii_board(lay="standard", cells=None) -> str:
    """The board as text: shifted rows indented; `cells(h)` gives a 3-char label per hex."""
    b = board(lay)
    lines = []
    for r in range(b.rows):
        shifted = r % 2 == b.layout.shifted
        row = []
        for c in range(b.cols):
            h = hex_index(r, c, b.cols)
            if cells is not None:
                row.append(cells(h))
            elif b.is_flag[h]:
                row.append(" " + FLAG_NAMES[list(b.flag_hex).index(h)] + " ")
            else:
                row.append(f"{h:>3}")
        lines.append(("  " if shifted else "") + " ".join(row))
    return "\n".join(lines)
