"""HEXATILE geometry on the triangular lattice, as lookup tables for the kernels.

Every point is an integer lattice point (a, b) = a*e1 + b*e2, e1 = (1, 0), e2 = (1/2, sqrt3/2).
A tile is a hexagon of 6 unit triangles around its centre C; its corners are V_k = C + U[k],
k = 0..5 counter-clockwise (U[k] at 60k degrees). Triangle T_k = (C, V_k, V_k+1).

Rhombus position j of a cell = triangles T_j-1 and T_j: obtuse corners at C and V_j,
acute tips at V_j-1 and V_j+1. A tile uses the three positions of one parity.

Board cells are axial (q, r), centre (a, b) = (q - r, q + 2r); the 19-cell board is radius 2:

        (0,-2) (1,-2) (2,-2)            index map (row by row, r = -2..2):
     (-1,-1) (0,-1) (1,-1) (2,-1)                0  1  2
   (-2,0) (-1,0) (0,0) (1,0) (2,0)             3  4  5  6
     (-2,1) (-1,1) (0,1) (1,1)               7  8  9 10 11
        (-2,2) (-1,2) (0,2)                    12 13 14 15
                                                16 17 18
Around a lattice point where three cells meet there are 6 sectors (one triangle each),
numbered counter-clockwise so that slot i (one cell) covers sectors 2i and 2i+1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

U = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))  # lattice unit vectors, 60k degrees
AXIAL_DIRS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
SQ3 = math.sqrt(3.0)


def xy(p):
    """Cartesian coordinates of a lattice point."""
    return (p[0] + p[1] / 2.0, p[1] * SQ3 / 2.0)


def centre(q, r):
    return (q - r, q + 2 * r)


def hex_distance(a, b):
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def board_cells(radius):
    """Axial cells of a hexagonal board, row by row (r then q)."""
    return [
        (q, r)
        for r in range(-radius, radius + 1)
        for q in range(-radius, radius + 1)
        if hex_distance((q, r), (0, 0)) <= radius
    ]


def direction_sector(vec):
    """Sector 0..5 of a direction vector (Cartesian) whose angle is 30 + 60m degrees."""
    ang = math.degrees(math.atan2(vec[1], vec[0])) % 360.0
    return int(ang // 60.0) % 6


@dataclass
class Geometry:
    radius: int
    cells: list  # axial coordinates
    cell_index: dict  # axial -> index
    neigh: np.ndarray  # [N, 6] neighbour cell or -1
    cell_vert: np.ndarray  # [N, 6] vertex id of V_k
    cell_slot: np.ndarray  # [N, 6] slot (0..2) of the cell at its vertex k
    low_tri: np.ndarray  # [N, 6] 0: sector 2i is T_k-1, 1: sector 2i is T_k
    vert_pts: list  # vertex id -> lattice point
    vslot_cell: np.ndarray  # [NV, 3] cell in slot i (or -1 off board)
    vslot_k: np.ndarray  # [NV, 3] k such that the vertex is V_k of that cell (-1 off board)
    line_next: np.ndarray  # [N*6, 2] rhombus position continuing the straight beyond tip side
    line_side: np.ndarray  # [N*6, 2] which tip side of that rhombus sits at the joint
    rh_tip: np.ndarray  # [N*6, 2] vertex ids of the tips (side 0 = V_j-1, side 1 = V_j+1)
    rh_obt: np.ndarray  # [N*6] vertex id of the outer obtuse corner V_j


def build(radius: int) -> Geometry:
    cells = board_cells(radius)
    idx = {c: i for i, c in enumerate(cells)}
    n = len(cells)
    neigh = np.full((n, 6), -1, np.int32)
    for i, (q, r) in enumerate(cells):
        for d, (dq, dr) in enumerate(AXIAL_DIRS):
            neigh[i, d] = idx.get((q + dq, r + dr), -1)
    # every lattice point that is a corner of some board cell
    vid: dict = {}
    for q, r in cells:
        a, b = centre(q, r)
        for k in range(6):
            p = (a + U[k][0], b + U[k][1])
            if p not in vid:
                vid[p] = len(vid)
    nv = len(vid)
    centre_to_cell = {centre(q, r): idx[(q, r)] for (q, r) in cells}
    vslot_cell = np.full((nv, 3), -1, np.int32)
    vslot_k = np.full((nv, 3), -1, np.int32)
    # sector -> (cell or -1, k, triangle index) at each vertex, rebased to slot pairs
    sector_tri = np.full((nv, 6, 3), -1, np.int32)
    cell_vert = np.zeros((n, 6), np.int32)
    cell_slot = np.zeros((n, 6), np.int32)
    low_tri = np.zeros((n, 6), np.int32)
    for p, v in vid.items():
        # the three hexagon centres around p (on the board or not): p - U[k] for one parity of k
        secs = {}
        for k in range(6):
            c = (p[0] - U[k][0], p[1] - U[k][1])
            # p is V_k of a cell centred at c only if c is a cell centre of the tiling
            qc = _axial_of_centre(c)
            if qc is None:
                continue
            for t in ((k - 1) % 6, k):  # triangles T_k-1 and T_k touch V_k
                v1, v2 = (
                    (c[0] + U[t][0], c[1] + U[t][1]),
                    (c[0] + U[(t + 1) % 6][0], c[1] + U[(t + 1) % 6][1]),
                )
                cx = (xy(c)[0] + xy(v1)[0] + xy(v2)[0]) / 3.0 - xy(p)[0]
                cy = (xy(c)[1] + xy(v1)[1] + xy(v2)[1]) / 3.0 - xy(p)[1]
                secs[direction_sector((cx, cy))] = (centre_to_cell.get(c, -1), k, t, qc)
        assert len(secs) == 6, (p, secs)
        shift = 0 if secs[0][3] == secs[1][3] else 1
        for s in range(6):
            cell, k, t, _ = secs[(s + shift) % 6]
            sector_tri[v, s] = (cell, k, t)
        for i in range(3):
            cell, k, t, _ = secs[(2 * i + shift) % 6]
            cell2, k2, t2, _ = secs[(2 * i + 1 + shift) % 6]
            assert (cell, k) == (cell2, k2)
            vslot_cell[v, i] = cell
            vslot_k[v, i] = k if cell >= 0 else -1
            if cell >= 0:
                cell_vert[cell, k] = v
                cell_slot[cell, k] = i
                low_tri[cell, k] = 0 if t == (k - 1) % 6 else 1
    rh_tip, rh_obt, line_next, line_side = _rhombus_links(n, cell_vert, sector_tri)
    pts = [None] * nv
    for p, v in vid.items():
        pts[v] = p
    return Geometry(
        radius,
        cells,
        idx,
        neigh,
        cell_vert,
        cell_slot,
        low_tri,
        pts,
        vslot_cell,
        vslot_k,
        line_next,
        line_side,
        rh_tip,
        rh_obt,
    )


def _rhombus_links(n: int, cell_vert: np.ndarray, sector_tri: np.ndarray):
    """Each rhombus position's tips and outer obtuse corner (vertex ids), and the rhombus of the
    neighbouring cell that meets each tip across the joint (line_next, -1 off the board) with the
    side of it that sits there (line_side)."""
    rh_tip = np.zeros((n * 6, 2), np.int32)
    rh_obt = np.zeros(n * 6, np.int32)
    for c in range(n):
        for j in range(6):
            rh_tip[c * 6 + j, 0] = cell_vert[c, (j - 1) % 6]
            rh_tip[c * 6 + j, 1] = cell_vert[c, (j + 1) % 6]
            rh_obt[c * 6 + j] = cell_vert[c, j]
    line_next = np.full((n * 6, 2), -1, np.int32)
    line_side = np.full((n * 6, 2), -1, np.int32)
    for c in range(n):
        for j in range(6):
            for side in range(2):
                k = (j - 1) % 6 if side == 0 else (j + 1) % 6  # the tip vertex V_k
                t = (j - 1) % 6 if side == 0 else j  # this rhombus's triangle there
                v = cell_vert[c, k]
                s = [s for s in range(6) if sector_tri[v, s, 0] == c and sector_tri[v, s, 2] == t][0]
                c2, k2, t2 = sector_tri[v, (s + 3) % 6]
                if c2 < 0:
                    continue
                # the tip rhombus of cell c2 holding triangle t2 with its tip at V_k2
                if t2 == k2:  # triangle T_k2 spans V_k2..V_k2+1 -> position k2+1, side 0
                    j2, side2 = (k2 + 1) % 6, 0
                else:  # triangle T_k2-1 spans V_k2-1..V_k2 -> position k2-1, side 1
                    j2, side2 = (k2 - 1) % 6, 1
                line_next[c * 6 + j, side] = c2 * 6 + j2
                line_side[c * 6 + j, side] = side2
    return rh_tip, rh_obt, line_next, line_side


def _axial_of_centre(c):
    """Axial coordinates of a lattice point if it is a hexagon centre of the tiling, else None."""
    a, b = c
    # a = q - r, b = q + 2r  ->  3r = b - a
    if (b - a) % 3 != 0:
        return None
    r = (b - a) // 3
    return (a + r, r)


_CACHE: dict = {}


def geometry(radius: int) -> Geometry:
    if radius not in _CACHE:
        _CACHE[radius] = build(radius)
    return _CACHE[radius]
