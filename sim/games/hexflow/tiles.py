"""HEXFLOW tiles as data: line networks, points, orientations, tile sets.

A tile's lines join side midpoints. A tile may carry several *separate* networks (X-Cross has two
lines that cross without joining); each network is a set of sides, stored as a 6-bit mask
(bit s = side s, sides 0 T, 1 TR, 2 BR, 3 B, 4 BL, 5 TL, see sim/engine/hexgrid.py).
Rotating a tile 60 degrees clockwise moves side s to s + 1; only distinct orientations are kept
(Star-6 and Block have 1, Straight and X-Cross 3, Tri-Branch 2, the others 6).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

T, TR, BR, B, BL, TL = range(6)


@dataclass(frozen=True)
class TileType:
    name: str
    code: str  # two letters, used in the text notation and the pictures
    points: int
    networks: tuple[tuple[int, ...], ...]  # separate line networks, as side lists
    card: str  # the tile guide's description


# Order = tile type index everywhere (kernels, columns, docs).
TILE_TYPES: tuple[TileType, ...] = (
    TileType("straight", "St", 2, ((T, B),), "Straight 2: T - B"),
    TileType("x_cross", "Xc", 4, ((T, B), (TR, BL)), "X-Cross 4: T-B x TR-BL, two independent lines"),
    TileType("angle", "An", 2, ((T, TR),), "Angle 2: T - TR"),
    TileType("arrow", "Ar", 3, ((T, TR, TL),), "Arrow 3: T -> TR+TL"),
    TileType("block", "Bk", 1, (), "Block 1: no lines"),
    TileType("y_right", "Yr", 3, ((T, B, BR),), "Y-Right 3: T-B + BR"),
    TileType("y_left", "Yl", 3, ((T, B, BL),), "Y-Left 3: T-B + BL"),
    TileType("star6", "S6", 5, ((T, TR, BR, B, BL, TL),), "Star-6 5: all 6 sides"),
    TileType("tri_branch", "Tb", 3, ((B, TR, TL),), "Tri-Branch 3: B -> TR+TL"),
    TileType("l_curve", "Lc", 2, ((T, BR),), "L-Curve 2: T - BR (120 degrees)"),
    TileType("spread", "Sp", 4, ((T, B, BR, BL),), "Spread 4: T -> B+BR+BL"),
)
N_TYPES = len(TILE_TYPES)
MAX_NETS = 2
TYPE_BY_CODE = {t.code: i for i, t in enumerate(TILE_TYPES)}
TYPE_BY_NAME = {t.name: i for i, t in enumerate(TILE_TYPES)}
# the type codes the rules name: the Block (no lines: the Block rule, block_placement) and the
# Star-6 (Battle's other displacer); every module and kernel reads them from here
BLOCK = TYPE_BY_NAME["block"]
STAR6 = TYPE_BY_NAME["star6"]


def mask(sides) -> int:
    m = 0
    for s in sides:
        m |= 1 << s
    return m


def rotate_mask(m: int, r: int) -> int:
    """Turn a side mask r x 60 degrees clockwise."""
    r %= 6
    return ((m << r) | (m >> (6 - r))) & 0x3F


def orientations(t: int) -> list[int]:
    """The distinct rotations (0..5) of tile type t, smallest rotation of each class."""
    seen, out = set(), []
    for r in range(6):
        key = frozenset(rotate_mask(mask(net), r) for net in TILE_TYPES[t].networks)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def networks(t: int, rotation: int) -> list[int]:
    """Side masks of the separate networks of tile t turned by `rotation`."""
    return [rotate_mask(mask(net), rotation) for net in TILE_TYPES[t].networks]


def canonical_rotation(t: int, rotation: int) -> int:
    """The kept rotation equal to `rotation` (e.g. Straight 3 == Straight 0)."""
    key = frozenset(networks(t, rotation))
    for r in orientations(t):
        if frozenset(networks(t, r)) == key:
            return r
    raise AssertionError("unreachable")


def orientation_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kernel tables: n_orient[t], rot_of[t, k] (rotation of the k-th distinct orientation),
    net_mask[t, rotation, j] (side mask of network j, 0 = none) for all 6 rotations."""
    n_orient = np.zeros(N_TYPES, dtype=np.int8)
    rot_of = np.zeros((N_TYPES, 6), dtype=np.int8)
    net_mask = np.zeros((N_TYPES, 6, MAX_NETS), dtype=np.int8)
    for t in range(N_TYPES):
        rots = orientations(t)
        n_orient[t] = len(rots)
        rot_of[t, : len(rots)] = rots
        for r in range(6):
            for j, m in enumerate(networks(t, r)):
                net_mask[t, r, j] = m
    return n_orient, rot_of, net_mask


def tile_set(copies_per_type: int) -> np.ndarray:
    """One player's Race-mode set: `copies_per_type` of each of the 11 types (22 by default)."""
    return np.repeat(np.arange(N_TYPES, dtype=np.int8), copies_per_type)
