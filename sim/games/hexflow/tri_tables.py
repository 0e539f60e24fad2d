"""HEXFLOW Tri-Board's tables (modes "tri" and "tri2p"): the fields the rule functions read
(`Tables`, built by tri_engine.build_tables) and the arrays a rule set gives them (`TriTables`:
board links with tri2p's dead corner cut out, corners and their owners, turn order, centre hexes,
orientation tables, tile points, each seat's tiles and hand size, dots, and the rule switches as
`cfg`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import kernel as K
from .rules import dot_multiplier_table, hand_sizes, tile_points, tri_seats, tri_tile_sets
from .tiles import orientation_tables
from .triboard import tri_board

# TriTables.cfg indices (build_tables reads cfg)
C_HAND, C_BLOCK_CONNECTED, C_BLOCKED_LOSES, C_BLOCK_CHECK, C_MAX_TURNS, C_DOTS_RANDOM, \
    C_SHARED, C_WILD_BLOCK, C_STALEMATE, C_CORNER_BLOCK = range(10)
N_CFG = 10


class Tables(NamedTuple):
    n_seats: np.int64
    max_moves: np.int64
    turn_cap: np.int64  # max_turns: a capped game has no winner (turn_cap)
    res_width: np.int64
    nh: np.int64  # hexes
    n_types: np.int64  # standard tile types (the Wildcard is hand tile WILD = n_types)
    pass_move: np.int64
    hand_size: np.int64  # the largest seat's hand: the width of position.hand (hand_of per seat)
    block_connected: np.bool_  # rules.block_placement == "connected"
    blocked_loses: np.bool_  # tri2p and rules.blocked_player_loses
    block_tile_only: np.bool_  # rules.block_win_trigger == "block_tile"
    stalemate_closest: np.bool_  # rules.stalemate_rule == "closest"
    shared_all: np.bool_  # rules.shared_victory == "tiebreak": every joined seat is one contest
    wild_block: np.bool_  # rules.wildcard_block: a Wildcard may be declared a Block
    dots_random: np.bool_  # rules.dots == "random"
    corner_block_reaches: np.bool_  # rules.corner_block == "reaches": a Block on its corner counts
    eval_block_weight: np.float64  # greedy's default block_weight, for `evaluate`
    order: np.ndarray  # int64[ns]: seats in turn order (III first)
    order_pos: np.ndarray  # int64[ns]: place of each seat in `order`
    corners: np.ndarray  # int64[ns]: each seat's corner hex
    corner_owner: np.ndarray  # int64[nh]: the seat a corner is reserved for, -1 elsewhere
    centres: np.ndarray  # int64[1 or 3]: the centre hexes (the goals)
    is_centre: np.ndarray  # int64[nh]
    dcen: np.ndarray  # int64[nh]: hex distance to the nearest centre hex
    nbr: np.ndarray  # int64[nh, 6], -1 off the board (and at tri2p's dead corner)
    dist: np.ndarray  # int64[nh, nh]: hex distance
    n_orient: np.ndarray  # int64[n_types]: distinct rotations of each type
    rot_of: np.ndarray  # int64[n_types, 6]: those rotations
    net_mask: np.ndarray  # int64[n_types, 6, 2]: side mask of each network of (type, rotation)
    emask_t: np.ndarray  # int64[n_types, 6]: sides carrying a line of (type, rotation)
    points: np.ndarray  # int64[ns, n_types]: tile points of each seat's tiles (the tiebreak, the draw list)
    tileset: np.ndarray  # int64[ns, tiles]: each seat's tiles before the shuffle (WILD = the Wildcard, -1 after)
    dots_fixed: np.ndarray  # int64[nh]: the fixed dot layout (zeros with dots = "none")
    dot_pool: np.ndarray  # int64[k]: the dots laid at random with dots = "random"
    free_hexes: np.ndarray  # int64: the hexes random dots may land on
    lnk0: np.ndarray  # int64[nh * 12]: the empty board's link table (kernel.empty_links)
    nbag: np.ndarray  # int64[ns]: how many tiles each seat has (its row of tileset)
    hand_of: np.ndarray  # int64[ns]: each seat's hand size (rules.hand_size, per seat)
    dot_bonus: np.ndarray  # int64[6]: a path's flat bonus by dots (rules.dot_bonuses)
    base_score: np.int64  # rules.base_score: what a win is worth before the dot bonuses
    wit0: np.ndarray  # int64[ns, nh]: each seat's witness way on the empty board (position.wit at the set-up)


class TriTables:
    """Every array of the Tri-Board tables, built once per rule set (build_tables names them;
    `tileset` is seat 0's set, `tilesets` every seat's)."""

    def __init__(self, rules):
        tb = tri_board(rules["board_side"])
        self.tb = tb
        seats = tri_seats(rules)
        self.seats = seats
        self.n_orient, self.rot_of, self.net_mask = (a.astype(np.int64)
                                                     for a in orientation_tables())
        self.emask = (self.net_mask[:, :, 0] | self.net_mask[:, :, 1]).astype(np.int64)
        nbr = tb.board.nbr.astype(np.int64)
        self.dead = -1
        if rules["mode"] == "tri2p":  # corner I: no tile, no transit
            self.dead = tb.corner["I"]
            nbr[self.dead, :] = -1
            nbr[nbr == self.dead] = -1
        self.nbr = nbr
        self.lnk0 = K.empty_links(nbr)
        self.dist = tb.board.dist.astype(np.int64)
        self.corners = np.array([tb.corner[s] for s in seats], dtype=np.int64)
        self.corner_owner = np.full(tb.size, -1, dtype=np.int64)
        for q, c in enumerate(self.corners):
            self.corner_owner[c] = q
        self.order = np.array([seats.index(s) for s in ("III", "II", "I") if s in seats],
                              dtype=np.int64)
        self.centres = np.array(tb.centres, dtype=np.int64)
        self.is_centre = np.zeros(tb.size, dtype=np.int64)
        self.is_centre[self.centres] = 1
        self.dcen = self.dist[:, self.centres].min(axis=1).copy()
        self.points = tile_points(rules, list(seats))
        self.tilesets, self.nbag = tri_tile_sets(rules, list(seats))
        self.tileset = self.tilesets[0, :self.nbag[0]].copy()
        self.hand_of = np.array(hand_sizes(rules, list(seats)), np.int64)
        self.dot_bonus = dot_multiplier_table(rules, "dot_bonuses")
        self.base_score = int(rules["base_score"])
        default = tb.default_dots()
        self.dots = default if rules["dots"] in ("default", "random") else np.zeros_like(default)
        self.dot_pool = np.sort(default[default > 0])[::-1].copy()
        free = tb.free_hexes()
        self.free = free[free != self.dead].copy()
        cfg = np.zeros(N_CFG, dtype=np.int64)
        cfg[C_HAND] = self.hand_of.max()
        cfg[C_BLOCK_CONNECTED] = rules["block_placement"] == "connected"
        cfg[C_BLOCKED_LOSES] = rules["mode"] == "tri2p" and rules["blocked_player_loses"]
        cfg[C_BLOCK_CHECK] = ("any_tile", "block_tile").index(rules["block_win_trigger"])
        cfg[C_MAX_TURNS] = rules["max_turns"]
        cfg[C_DOTS_RANDOM] = rules["dots"] == "random"
        cfg[C_SHARED] = ("shared", "tiebreak").index(rules["shared_victory"])
        cfg[C_WILD_BLOCK] = rules["wildcard_block"]
        cfg[C_STALEMATE] = ("closest", "draw").index(rules["stalemate_rule"])
        cfg[C_CORNER_BLOCK] = ("reaches", "no_path").index(rules["corner_block"])
        self.cfg = cfg
