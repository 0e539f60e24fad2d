"""Tiles and pattern templates as data, and the lookup tables the kernels read.

The photos of the rule card are lost, so the pattern shapes are a reading. They are written here
as templates on the 6 sectors round one lattice point (sector s = the unit triangle at angle
30 + 60s degrees, counter-clockwise; a cell covers two neighbouring sectors). A designer who
reads the card differently edits TEMPLATES; `hexsim rules hexatile --draw DIR` draws them. They are
the one source of the shapes: the kernels' lookup tables (`vertex_types`, the Straight's `line`)
and the Python position API (position.py, which finds the sectors round a point from the rhombi's
vectors and matches them with `point_pattern`) both read them. The points per pattern are the
rule `pattern_points` (its default is each template's `points`).

  tips     sectors holding an acute tip (60 degrees) of a rhombus of the pattern's colour
  neutral  sectors that must hold yellow (neutral) tips (Super Radian, 2 players only)
  obtuse   sectors covered by obtuse corners (120 degrees) of the pattern's colour

A template matches in any rotation or mirror image (closure under the 12 symmetries of the point).
The Straight is a line template: `line` rhombi of one colour, each joined tip to tip with the next,
the joint rhombi opposite each other (180 degrees) round the shared point.
"""

from __future__ import annotations

import numpy as np

BLACK, RED, YELLOW = 1, 2, 3
COLOUR_NAMES = ("none", "black", "red", "yellow")

# tile faces: colour of the rhombus at positions j = 1, 3, 5 (counter-clockwise) in rotation 0
TILE_TYPES = {
    "white": (BLACK, RED, YELLOW),  # 9 white-backed tiles
    "red": (BLACK, YELLOW, RED),  # 10 red-backed tiles (mirror image), one is the island
}
TILE_COUNTS = {"white": 9, "red": 10}

# pattern type ids (kernel codes); 0 = none
RADIAN, SUPER_RADIAN, SET, ARROW, STRAIGHT = 1, 2, 3, 4, 5
PATTERN_NAMES = ("none", "radian", "super_radian", "set", "arrow", "straight")

TEMPLATES = {
    # three rhombi of one colour meeting tip to tip at a point, 120 degrees apart
    "radian": {"points": 2, "tips": (0, 2, 4)},
    # a player's Radian whose other three tips at that point are all neutral (2 players)
    "super_radian": {"points": 5, "tips": (0, 2, 4), "neutral": (1, 3, 5)},
    # three obtuse corners of one colour meeting: a hexagon of three rhombi
    "set": {"points": 1, "obtuse": (0, 1, 2, 3, 4, 5)},
    # reading: two rhombi tip to tip in a straight line and a third at the joint, 60 degrees off
    "arrow": {"points": 1, "tips": (0, 3, 1)},
    # three rhombi in a line, joined tip to tip (a 4th adds nothing: see long_straight)
    "straight": {"points": 1, "line": 3},
}

# the slot states a cell can show at one of its corners
DEAD, EMPTY = 0, 1
TIP_PAIRS = ((1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2))  # (sector 2i, sector 2i+1) colours
N_STATES = 11  # dead, empty, obtuse black/red/yellow, six ordered tip pairs
N_CODES = N_STATES**3


def orient_colours() -> np.ndarray:
    """[12, 6] colour of the rhombus at position j for orientation o = type * 6 + rotation."""
    out = np.zeros((12, 6), np.int8)
    for t, cols in enumerate(TILE_TYPES.values()):
        for rot in range(6):
            for a, col in enumerate(cols):
                out[t * 6 + rot, (2 * a + 1 + rot) % 6] = col
    return out


def slot_state(cols6, k: int, low_tri: int) -> int:
    """State of a placed tile at its corner V_k (cols6: colour per rhombus position)."""
    if cols6[k]:
        return 1 + int(cols6[k])
    before, after = int(cols6[(k - 1) % 6]), int(cols6[(k + 1) % 6])  # triangles T_k-1, T_k
    pair = (before, after) if low_tri == 0 else (after, before)
    return 5 + TIP_PAIRS.index(pair)


def contrib_table() -> np.ndarray:
    """[12, 6, 2] slot state of orientation o at its corner k, for both sector orders."""
    oc = orient_colours()
    out = np.zeros((12, 6, 2), np.int8)
    for o in range(12):
        for k in range(6):
            for lt in range(2):
                out[o, k, lt] = slot_state(oc[o], k, lt)
    return out


def decode(code: int):
    return (code % N_STATES, (code // N_STATES) % N_STATES, code // (N_STATES * N_STATES))


def sectors_of(code: int):
    """Per sector: (colour, is_tip); colour 0 for empty or dead slots."""
    out = []
    for st in decode(code):
        if st >= 5:
            a, b = TIP_PAIRS[st - 5]
            out += [(a, True), (b, True)]
        elif st >= 2:
            out += [(st - 1, False), (st - 1, False)]
        else:
            out += [(0, False), (0, False)]
    return out


def closure(sectors) -> set:
    """Sector masks of every rotation and mirror image of a sector set."""
    masks = set()
    for r in range(6):
        for mirror in (False, True):
            m = 0
            for s in sectors:
                m |= 1 << (((-s if mirror else s) + r) % 6)
            masks.add(m)
    return masks


def template_masks(templates=None) -> dict:
    t = TEMPLATES if templates is None else templates
    out = {}
    for name, spec in t.items():
        if "line" in spec:
            continue
        out[name] = {key: closure(spec[key]) for key in ("tips", "neutral", "obtuse") if key in spec}
    return out


# the point templates in the order a point is matched (the first that fits names it)
MATCH_ORDER = ("super_radian", "radian", "set", "arrow")


def point_pattern(masks: dict, col: int, tips: int, obt: int, yel: int) -> str | None:
    """The pattern of colour col at a full point (sector masks: its tips, its obtuse corners,
    yellow tips), by `template_masks`; None if none fits. The kernel's lookup tables and the
    Python position API (position.py) both read it."""
    for name in MATCH_ORDER:
        m = masks[name]
        if "tips" in m and tips not in m["tips"]:
            continue
        if "tips" not in m and tips:
            continue
        if "obtuse" in m and obt not in m["obtuse"]:
            continue
        if "neutral" in m and (col == YELLOW or yel not in m["neutral"]):
            continue
        return name
    return None


def vertex_types(templates=None) -> np.ndarray:
    """[N_CODES, 4] pattern type of each colour (1..3) at a point, from the templates.

    Super Radian is reported for black or red when the neutral tips are yellow; for 3 players
    the kernel reads it as a plain Radian (yellow's own Radian is then reported for yellow).
    """
    masks = template_masks(templates)
    out = np.zeros((N_CODES, 4), np.int8)
    for code in range(N_CODES):
        secs = sectors_of(code)
        for col in (1, 2, 3):
            tips = sum(1 << s for s, (c, tip) in enumerate(secs) if c == col and tip)
            obt = sum(1 << s for s, (c, tip) in enumerate(secs) if c == col and not tip)
            yel = sum(1 << s for s, (c, tip) in enumerate(secs) if c == YELLOW and tip)
            name = point_pattern(masks, col, tips, obt, yel)
            if name is not None:
                out[code, col] = PATTERN_NAMES.index(name)
    return out


def tip_counts() -> np.ndarray:
    """[N_CODES, 4] number of acute tips of each colour at a point."""
    out = np.zeros((N_CODES, 4), np.int8)
    for code in range(N_CODES):
        for c, tip in sectors_of(code):
            if tip:
                out[code, c] += 1
    return out


def empty_slots() -> np.ndarray:
    out = np.zeros(N_CODES, np.int8)
    for code in range(N_CODES):
        out[code] = sum(1 for s in decode(code) if s == EMPTY)
    return out


def potential(vtype: np.ndarray, points: np.ndarray) -> np.ndarray:
    """[N_CODES, 4] best points a colour can get at a point by filling its one empty slot."""
    pot = np.zeros((N_CODES, 4), np.float64)
    pw = (1, N_STATES, N_STATES * N_STATES)
    for code in range(N_CODES):
        st = decode(code)
        if sum(1 for s in st if s == EMPTY) != 1 or any(s == DEAD for s in st):
            continue
        i = st.index(EMPTY)
        for fill in range(2, N_STATES):
            c2 = code + (fill - EMPTY) * pw[i]
            for col in (1, 2, 3):
                pot[code, col] = max(pot[code, col], points[col, vtype[c2, col]])
    return pot
