"""HEXATILE's values for the engine (sim/engine/drivers.py): the rule tables, the position and the bots'
scratch as NamedTuples, the codes they hold, and `build_tables` (Python, once per rule set).

Board index map (the standard board, radius 2; cell index row by row, see geometry.py):

        (0,-2) (1,-2) (2,-2)                    0   1   2
     (-1,-1) (0,-1) (1,-1) (2,-1)             3   4   5   6
   (-2,0) (-1,0) (0,0) (1,0) (2,0)          7   8   9  10  11      9: the centre, the island
     (-2,1) (-1,1) (0,1) (1,1)               12  13  14  15          by default
        (-2,2) (-1,2) (0,2)                    16  17  18

    inside a cell c:    corner V_k = lattice point cell_vert[c, k], k = 0..5 counter-clockwise;
                        rhombus position j = c * 6 + j (j = 0..5), obtuse corners at the centre
                        and V_j, tips at V_j-1 and V_j+1; a tile fills the three j of one parity
    at a lattice point v: up to three cells, slot i = 0..2 (vslot_cell[v, i]); vcode[v] packs
                        the three slot states (templates.py: dead, empty, obtuse or tip pair)
                        in base 11, slot i times 11**i

`board_radius = 3` is the same layout with radius 3 (37 cells); the free board (`board = "free"`)
with radius tiles - 1 (18 for the card's 19 tiles: 1,027 cells).

Move codes: a placement is `cell * 12 + orientation` (orientation = tile type * 6 + rotation;
type 0 white-backed, 1 red-backed); the bag's redraw choice is `KEEP` or `RETURN`; the
opponent's pick is `PICK + type`. A turn is one to two decisions: the redraw choice (bag draw,
put-back allowed, both kinds left) or the pick (opponent picks, both kinds left), then the
placement. `Position.st[PHASE]` says which comes next.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from sim.games.hexatile import templates as TP
from sim.games.hexatile.geometry import geometry

STANDARD_RADIUS = 2
SPACING = ("last", "all", "none", "adjacent_only")
TILE_CHOICE = ("open", "bag", "opponent")
ISLAND = ("centre", "random", "none")
LONG_STRAIGHT = ("thirds", "once", "window")

# pattern ids (templates.py)
RADIAN, SUPER_RADIAN, SET, ARROW, STRAIGHT = 1, 2, 3, 4, 5
# spacing, tile choice and island codes (index into the tuples above)
SP_LAST, SP_ALL, SP_NONE, SP_ADJ = 0, 1, 2, 3
TC_OPEN, TC_BAG, TC_OPPONENT = 0, 1, 2
IS_CENTRE, IS_RANDOM, IS_NONE = 0, 1, 2
# bots (Bot.code)
BOT_RANDOM, BOT_GREEDY = 0, 1
# end reasons
END_TILES, END_RADIAN = 0, 1
# decisions of a turn (Position.st[PHASE])
PH_PLACE, PH_REDRAW, PH_PICK, PH_OVER = 0, 1, 2, 3
# move codes besides placements (cell * 12 + orientation, below 12 * cells)
KEEP = 1 << 30
RETURN = KEEP + 1
PICK = KEEP + 2  # + tile type
# Position.st fields
TURN = 0  # tiles placed so far (the `turns` column)
PHASE = 1  # the next decision, PH_*
TILE = 2  # the tile type the mover must place, -1: either kind still left
DRAWN = 3  # bag: the first tile drawn this turn; opponent picks: the kind handed over; else -1
REDRAWN = 4  # bag: 1 when the first draw went back
PICKER = 5  # opponent picks: the seat choosing the kind this turn, -1 none
LAST = 6  # cell of the tile placed last, -1 before the first
WINNER = 7  # seat that won at once by a Radian (radian_wins), -2 undecided
END = 8  # END_*
ISLAND_CELL = 9  # the island's cell, -1 without one
N_ST = 10
# per seat in a result row after the scores: the 8 entries of rules.score_board
SCORE_W = 8
POW11 = np.array([1, 11, 121], np.int32)

# The functions run at every decision (to_move, legal_moves, apply, bot_move and what they call)
# allocate nothing and are compiled without numba's reference counting. Each takes the tables,
# position and scratch, some 40 arrays: with reference counting every call adds and drops a
# reference to each of them, atomically, which cost more than the rules themselves.
# (`hot`, `hot_inline`, `hot_fused`: sim/engine/jit.py.)


class Tables(NamedTuple):
    """Rule tables of one rule set (built once by `build_tables`)."""

    n_seats: np.int64
    max_moves: np.int64
    turn_cap: np.int64  # 0: a game ends when the tiles are placed or a Radian wins
    res_width: np.int64  # 4 + seats + 8 per seat + the island
    spacing: np.int64  # SP_*
    tile_choice: np.int64  # TC_*
    must_use: np.int64  # bag: 1 when a drawn tile cannot go back
    rot_n: np.int64  # rotations a tile may take: 6, or 1 without rotation
    island: np.int64  # IS_*
    free: np.int64  # 1: free board (the first tile on `centre`, later ones touching)
    smode: np.int64  # long_straight, index into LONG_STRAIGHT
    arrows: np.int64  # 0: no Arrow rules; 1: Arrow rules; 2: and Radians win at once
    radian_wins: np.int64
    rope_only: np.int64
    variety: np.int64
    simple_rope: np.int64  # rope_path = "simple"
    centre: np.int64  # the centre cell
    line_n: np.int64  # rhombi in a line that make one Straight (templates.py's "line")
    arrow_owner: np.int64  # arrow_voids = "owner": only an Arrow its colour's player completed voids
    void_radian_wins: np.int64  # a Radian voided by the Arrow rules when made still wins at once
    rope_on: np.int64  # chain_rope: the longest rope counts
    tiles: np.ndarray  # int64[2]: white- and red-backed tiles in the box (the island among them)
    bonus: np.ndarray  # int64[seats]: points added to each seat's total (second_player_bonus)
    seat_col: np.ndarray  # int64[seats]: each seat's colour (1 black, 2 red, 3 yellow)
    col_seat: np.ndarray  # int64[4]: the seat of a colour, -1 for neutral yellow
    pts: np.ndarray  # int64[6]: points per pattern id
    bot_ptsc: np.ndarray  # float64[4, 6]: what a pattern is worth to the bots, per colour
    bot_spts: np.ndarray  # float64[4]: the same for a Straight
    pot: np.ndarray  # float64[11**3, 4]: best points a point's one empty slot can bring (bots)
    neigh: np.ndarray  # int32[N, 6] neighbour cell or -1 (geometry.py, as the rest)
    cell_vert: np.ndarray  # int32[N, 6]
    cell_slot: np.ndarray  # int32[N, 6]
    low_tri: np.ndarray  # int32[N, 6]
    vslot_cell: np.ndarray  # int32[NV, 3]
    vslot_k: np.ndarray  # int32[NV, 3]
    line_next: np.ndarray  # int32[N*6, 2]
    line_side: np.ndarray  # int32[N*6, 2]
    rh_tip: np.ndarray  # int32[N*6, 2]
    rh_obt: np.ndarray  # int32[N*6]
    ocol: np.ndarray  # int8[12, 6]: colour of rhombus position j for an orientation
    contrib: np.ndarray  # int8[12, 6, 2]: slot state an orientation shows at corner k
    vtype: np.ndarray  # int8[11**3, 4]: pattern id of each colour at a point code
    ntip: np.ndarray  # int8[11**3, 4]: tips of each colour at a point code


class Position(NamedTuple):
    """One game: the board, the tiles left, the turn's counters, and what the bots track."""

    rh: np.ndarray  # int8[N*6]: colour of each rhombus position, 0 = none
    cell_o: np.ndarray  # int32[N]: orientation on the cell, -1 empty, -2 the island
    placer: np.ndarray  # int32[N]: seat that placed the tile, -1 none
    vcode: np.ndarray  # int32[NV]: slot states round each lattice point
    rem: np.ndarray  # int64[2]: white- and red-backed tiles still to place
    st: np.ndarray  # int64[N_ST]: the counters named above
    placed: np.ndarray  # int32[N]: the turn (tiles placed before it) the cell's tile was placed at
    mark: np.ndarray  # uint8[N*6]: bots' Arrow foresight: bit 1 in a scored pattern, 2 in an Arrow
    vflag: np.ndarray  # float64[NV, 4, 2]: per point and colour: best pattern value, Arrow there
    ptsc: np.ndarray  # float64[4, 6]: the bots' pattern values now (variety: 0 once made)
    spts: np.ndarray  # float64[4]: the same for Straights


class RopeWork(NamedTuple):
    """Work arrays of rules.longest_rope (its depth-first search over the lattice points)."""

    inc: np.ndarray  # int64[NV, 3]: the rhombi of the colour with a tip at each point
    deg: np.ndarray  # int64[NV]: how many
    used: np.ndarray  # uint8[N*6]: rhombi on the current path
    vis: np.ndarray  # uint8[NV]: points on the current path (rope_path "simple")
    stk_v: np.ndarray  # int64[N*6 + 2]: the path's points,
    stk_i: np.ndarray  # int64[N*6 + 2]: the next rhombus to try at each,
    stk_e: np.ndarray  # int64[N*6 + 2]: and the rhombus that led there


class ScoreWork(NamedTuple):
    """Work arrays of rules.score_board: the point patterns, the straight runs, the rope search."""

    it: np.ndarray  # int64[NV*3 + 1]: pattern type of each point pattern found
    icol: np.ndarray  # int64[NV*3 + 1]: its colour
    iby: np.ndarray  # int64[NV*3 + 1]: the seat that completed it (arrow_voids = "owner" only)
    irh: np.ndarray  # int64[NV*3 + 1, 3]: its three rhombi (-1: none)
    rinst: np.ndarray  # int64[N*6, 3]: the point patterns through each rhombus
    rn: np.ndarray  # int64[N*6]: how many
    run_of: np.ndarray  # int64[N*6]: the straight run of each rhombus
    run_len: np.ndarray  # int64[N*6]: length of each run
    run_col: np.ndarray  # int64[N*6]: colour of each run
    void: np.ndarray  # uint8[NV*3 + 1]: point pattern voided by the Arrow rules
    run_void: np.ndarray  # uint8[N*6]: run voided
    no_lend: np.ndarray  # int64[0]: longest_rope's lend when only the longest rope is wanted
    rope: RopeWork


class Scratch(NamedTuple):
    """The bots' work arrays, allocated once per chunk."""

    cells: np.ndarray  # int64[N]: the cells the mover may use
    types_ok: np.ndarray  # uint8[2]: tile types greedy may place
    choice: np.ndarray  # int64[2]: greedy's (cell, orientation)
    lend: np.ndarray  # int64[4, NV]: longest rope from each point, per colour (rope_gain_weight)
    rope_now: np.ndarray  # int64[4]: longest rope per colour
    w: np.ndarray  # float64[4]: greedy's weight of each colour's points
    wp: np.ndarray  # float64[4]: and of what a move prepares for that colour
    vk: np.ndarray  # float64[6, 11]: greedy's value per corner and slot state of a cell
    vr: np.ndarray  # float64[6, 4]: greedy's value per rhombus position and colour
    bey_col: np.ndarray  # int64[6, 2]: colour of the straight run beyond each tip of a cell
    bey_len: np.ndarray  # int64[6, 2]: its length
    bey_arr: np.ndarray  # bool[6, 2]: whether it holds an Arrow's rhombus
    rope: RopeWork  # for rope_gain_weight's longest ropes


def tile_counts(rules) -> dict:
    """White- and red-backed tiles in the box (the island among the red ones)."""
    return dict(rules.get("tiles", TP.TILE_COUNTS))


def free_radius(rules) -> int:
    """Without a board edge every tile lies within (tiles - 1) cells of the first (touching)."""
    return max(sum(tile_counts(rules).values()) - 1, 1)


def board_radius(rules) -> int:
    """Radius of the board's geometry: `board_radius` cells, or the free board's."""
    return rules.get("board_radius", STANDARD_RADIUS) if rules["board"] == "standard" else free_radius(rules)


def seat_colours(rules) -> list[int]:
    first = 1 if rules["first_colour"] == "black" else 2
    cols = [first, 3 - first]
    if rules["players"] == 3:
        cols.append(TP.YELLOW)
    return cols


def pattern_points(rules) -> dict:
    """Points per pattern name: the rules' `pattern_points`, else the templates' own."""
    return dict(rules.get("pattern_points") or {k: TP.TEMPLATES[k]["points"] for k in TP.PATTERN_NAMES[1:]})


def points_vector(rules) -> np.ndarray:
    """int64[6]: points per pattern id (templates.py's ids; 0 = none)."""
    p = np.zeros(6, np.int64)
    for name, value in pattern_points(rules).items():
        p[TP.PATTERN_NAMES.index(name)] = value
    return p


def seat_bonus(rules) -> np.ndarray:
    """int64[seats]: `second_player_bonus` on the seat that moves second (2 players), else 0."""
    out = np.zeros(rules["players"], np.int64)
    if rules["players"] == 2:
        out[1] = rules.get("second_player_bonus", 0)
    return out


def bot_points(rules, pts) -> tuple[np.ndarray, np.ndarray]:
    """What a pattern is worth to the bots, per colour: [4, 6] and straights [4]."""
    ptsc = np.zeros((4, 6), np.float64)
    spts = np.zeros(4, np.float64)
    if rules["scoring"] == "rope_only":
        return ptsc, spts
    for col in seat_colours(rules):
        ptsc[col, :] = pts
        if rules["players"] == 3:
            ptsc[col, TP.SUPER_RADIAN] = pts[TP.RADIAN]
        if rules["radian_wins"]:
            ptsc[col, TP.RADIAN] = ptsc[col, TP.SUPER_RADIAN] = 50.0
        spts[col] = pts[TP.STRAIGHT]
    return ptsc, spts


@lru_cache(maxsize=1)
def template_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ocol, contrib, vtype, ntip): the tile and template lookup tables (templates.py)."""
    return TP.orient_colours(), TP.contrib_table(), TP.vertex_types(), TP.tip_counts()


def build_tables(rules) -> Tables:
    """The tables of a resolved rule set. Every cell count leaves a legal cell for every tile:
    the standard board has a cell per tile, the free board's radius holds any chain of 19."""
    g = geometry(board_radius(rules))
    n = rules["players"]
    pts = points_vector(rules)
    counts = tile_counts(rules)
    ptsc, spts = bot_points(rules, pts)
    ocol, contrib, vtype, ntip = template_tables()
    seat_col = np.array(seat_colours(rules), np.int64)
    col_seat = np.full(4, -1, np.int64)
    for s, col in enumerate(seat_col):
        col_seat[col] = s
    arrows = 0 if not rules["arrow_rules"] else (2 if rules["radian_wins"] else 1)
    rot_n = 6 if rules["rotation"] else 1
    i64 = np.int64
    return Tables(
        n_seats=i64(n), max_moves=i64(len(g.cells) * 2 * rot_n), turn_cap=i64(0),
        res_width=i64(4 + n + n * SCORE_W + 1),
        spacing=i64(SPACING.index(rules["spacing"])), tile_choice=i64(TILE_CHOICE.index(rules["tile_choice"])),
        must_use=i64(rules["must_use_drawn"]), rot_n=i64(rot_n), island=i64(ISLAND.index(rules["island"])),
        free=i64(rules["board"] == "free"), smode=i64(LONG_STRAIGHT.index(rules["long_straight"])),
        arrows=i64(arrows), radian_wins=i64(rules["radian_wins"]), rope_only=i64(rules["scoring"] == "rope_only"),
        variety=i64(rules["variety"]), simple_rope=i64(rules["rope_path"] == "simple"),
        centre=i64(g.cell_index[(0, 0)]), line_n=i64(TP.TEMPLATES["straight"]["line"]),
        arrow_owner=i64(rules.get("arrow_voids", "anyone") == "owner"),
        void_radian_wins=i64(rules.get("voided_radian_wins", True)), rope_on=i64(rules.get("chain_rope", True)),
        tiles=np.array([counts["white"], counts["red"]], np.int64), bonus=seat_bonus(rules),
        seat_col=seat_col, col_seat=col_seat, pts=pts, bot_ptsc=ptsc, bot_spts=spts,
        pot=TP.potential(vtype, ptsc),
        neigh=g.neigh, cell_vert=g.cell_vert, cell_slot=g.cell_slot, low_tri=g.low_tri,
        vslot_cell=g.vslot_cell, vslot_k=g.vslot_k, line_next=g.line_next, line_side=g.line_side,
        rh_tip=g.rh_tip, rh_obt=g.rh_obt,
        ocol=ocol, contrib=contrib, vtype=vtype, ntip=ntip,
    )
