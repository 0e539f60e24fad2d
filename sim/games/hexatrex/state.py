"""Hexa-Trex's values for the engine (sim/engine/drivers.py): the rule tables, the position and the bots'
scratch as NamedTuples, the codes they hold, and `build_tables` (Python, once per rule set).

Board index map (tiles.Board: axial (q, r) in a W x W square, "=" in the middle; T playable
tiles, C = T + 1, W = 2C + 1, cell index (r + C) * W + (q + C); no tile can lie more than T
steps from "=", so every neighbour index of a placed tile is on the board):

            (q, r-1) (q+1, r-1)                      i-W  i-W+1
        (q-1, r)  (q, r)  (q+1, r)          ->   i-1    i    i+1         nb_off = +1, -W+1, -W,
            (q-1, r+1) (q, r+1)                      i+W-1  i+W              -1, W-1, W
                                                                         (nb_off[d+3] = -nb_off[d])
    the default set (73 tiles): W = 149, 22,201 cells, "=" at index 74 * 149 + 74 = 11,100

    per cell:   sym (symbol 0..14, -1 empty), order (placement index, "=" 0), fpos (index in
                the frontier, -1 off it; the join scorer reads it as the special-cell mark)
    frontier:   front[0:n_front], the empty cells touching a tile, in the order the old kernel
                kept them (a placed cell is swapped out with the last, new cells appended):
                the random bot draws an index into it, greedy breaks ties along it

Move codes: the cell index the seat puts its tile on (one decision per turn; the tile is the
one in hand). A game is exactly as many decisions as tiles.

The work area (`Work`, inside the tables): the join scorer's side-walk store and search
scratch, the finder's buffers and the side trie (join.py, finder.py, trie.py). They are caches
and scratch, never part of a result: the store holds the side walks of one position's table,
and `Work.lineage` says which positions it is valid for (a position and the copies made from
it, see rules.py `_sync`), so the search bot's copies share it instead of copying 30 MB.
The tables are therefore per thread (game.py keeps them like the side trie).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.games.hexatrex.finder import Geo, find_cfg, geo_of, workspace
from sim.games.hexatrex.join import MAX_SIDE, REACH_COLS, new_scratch, new_store
from sim.games.hexatrex.tiles import Board, pile

BOT_RANDOM, BOT_GREEDY = 0, 1
BOT_EXPECTI = 2  # expecti.py, the engine's costly bot (compiled only for a line-up that seats it)
FIRST_DRAW, FIRST_A, FIRST_ROTATE = 0, 1, 2
FOUND_CAP = 1 << 15  # distinct tile sets one placement may score
HIST_LEN = 13  # equation sizes 0..12 tiles
LINEAGE_CAP = 64
# Position.st fields
TURN = 0  # tiles placed so far (the decision number)
N_OCC = 1  # tiles on the table, "=" included
N_FRONT = 2  # frontier cells
TOP = 3  # next tile of the pile to draw
FIRST = 4  # the first seat
ROUNDS = 5  # rounds of the first-player draw
USE_JOIN = 6  # 1 while the side-walk store scores (0 after an overflow: the DFS finder)
ID = 7  # this position's number in the work area (the store's lineage)
S_COUNT = 8  # store entries of this position's table
LAST_SCORE = 9  # points of the last placement
LAST_EQ = 10  # distinct tile sets it scored
N_ST = 11
# Position.tally rows (one column per seat)
T_SCORE, T_EQ, T_LONGEST, T_SCORING = 0, 1, 2, 3
# the search tag (Work.tag): the greedy search left in the scratch is this position's, at this
# turn, at the rules' full reach
TAG_ID, TAG_TURN = 0, 1

# The functions run at every decision (to_move, legal_moves, apply, bot_move and what they call
# of rules.py) allocate nothing and are compiled without numba's reference counting: the
# tables hold some 40 arrays, and with reference counting every call adds and drops a reference
# to each (the finder, join and trie kernels they call keep theirs, as in the old chunk kernel).
# `hot_inline` (sim/engine/jit.py) is compiled into its one caller (numba's IR inlining): no compiled
# function of its own, whose library would hold, optimise and emit everything it calls once more.


class Work(NamedTuple):
    """Scratch and caches of the scorers, shared by a position and its copies (never a result)."""

    store: tuple  # join.new_store(): the side walks of the table of the lineage's top position
    jscratch: tuple  # join.new_scratch(): one search's new side walks, groups, per-cell scores
    fws: tuple  # finder.workspace() (a FinderWork): the DFS finder's stacks and value buffers
    f_lo: np.ndarray  # uint64[FOUND_CAP]: tile sets found (lo word)
    f_hi: np.ndarray  # uint64[FOUND_CAP]
    f_size: np.ndarray  # int64[FOUND_CAP]: their sizes
    no_walks: np.ndarray  # int64[0, 16]: no walk recorded (chunk play)
    no_len: np.ndarray  # int64[0]
    mark: np.ndarray  # int32[cells]: -1 everywhere (the join's one-special mark)
    reach: np.ndarray  # int64[cells, REACH_COLS]: join._reach's table
    lineage: np.ndarray  # int64[LINEAGE_CAP]: ids of the positions the store is valid for
    lin_n: np.ndarray  # int64[1]: how many
    ids: np.ndarray  # int64[1]: the last position id given out
    tag: np.ndarray  # int64[2]: TAG_ID, TAG_TURN of the search in jscratch (-1: none usable)
    hold_sym: np.ndarray  # int8[T + 1]: a rebuild's saved symbols
    unseen: np.ndarray  # int8[T + P]: sample_hidden's tiles to redeal


class Tables(NamedTuple):
    """Rule tables of one rule set (built once per thread by `build_tables`)."""

    n_seats: np.int64
    max_moves: np.int64  # frontier bound: 6 per tile on the table
    turn_cap: np.int64  # 0: a game ends when every tile is placed
    res_width: np.int64  # 4 + seats + 3 per seat + turn order + draw rounds + HIST_LEN
    n_tiles: np.int64  # playable tiles (decisions per game)
    first_rule: np.int64  # FIRST_*: the card's draw, seat A, or a fixed seat (rotate)
    first_fixed: np.int64  # the first seat under FIRST_A / FIRST_ROTATE (game.py: index mod P)
    max_len: np.int64  # max_equation_tiles: longest walk in symbols
    bracket_any: np.int64  # bracketing = "any"
    require_op: np.int64  # an equation needs a binary operator
    lead_zero: np.int64  # leading_zero
    six_nine: np.int64  # six_as_nine
    plus_times: np.int64  # plus_as_times
    never: np.int64  # tile_repeat = "never"
    neg_zero: np.int64  # negative_zero
    use_join: np.int64  # 1: score with the side-walk store (max_len - 2 <= join.MAX_SIDE)
    cfg: np.ndarray  # int64[8]: the same rules packed for the finder kernels (finder.find_cfg)
    tiles: np.ndarray  # int8[T]: the playable tiles in symbol order (the pile before shuffling)
    nb_off: np.ndarray  # int64[6]: neighbour offsets (map above)
    cq: np.ndarray  # int32[cells]: axial q of each cell
    cr: np.ndarray  # int32[cells]: axial r
    center: np.int64  # the "=" cell
    n_cells: np.int64
    geo: Geo  # nb_off, cq, cr and center as the scorers take them
    turn_points: np.ndarray  # int64[seats]: points the k-th player in turn order starts with
    seat_points: np.ndarray  # int64[seats]: points each seat starts with (start_points)
    trie: tuple  # trie.new_trie(): the side strings, parsed once per rule set and thread
    work: Work


class Position(NamedTuple):
    """One game: the table, the frontier, the pile and hands, the tallies."""

    sym: np.ndarray  # int8[cells]: symbol per cell, -1 empty
    order: np.ndarray  # int16[cells]: placement index, -1 empty ("=" 0)
    fpos: np.ndarray  # int32[cells]: index in front, -1 off the frontier
    front: np.ndarray  # int64[max_moves]: the frontier (the legal cells, in the bots' order)
    occ: np.ndarray  # int64[T + 1]: the cells in placement order
    pile: np.ndarray  # int8[T]: the shuffled pile (pile[TOP:] still face down)
    hand: np.ndarray  # int64[seats]: each seat's secret tile, -1 none
    tally: np.ndarray  # int64[4, seats]: T_* rows: score, equations, longest, scoring turns
    hist: np.ndarray  # int64[HIST_LEN]: equations per size (tiles)
    st: np.ndarray  # int64[N_ST]: the counters named above


class ExpectiScratch(NamedTuple):
    """The expecti bot's work arrays (expecti.py): two trial positions and its tables."""

    pa: Position  # the table after the bot's trial tile
    pb: Position  # after the next seat's trial reply too
    gain: np.ndarray  # int64[max_moves]: points of the tile in hand per frontier cell
    val: np.ndarray  # float64[max_moves]: block weights per frontier cell, then each candidate's value
    cand: np.ndarray  # int64[max_moves]: the candidates (frontier indices)
    order: np.ndarray  # int64[max_moves]: the candidates by depth-2 value
    rcell: np.ndarray  # int64[max_moves, 16]: the next seat's greedy cell per candidate and tile kind
    cnt: np.ndarray  # int64[16]: unseen tiles per kind
    rw: np.ndarray  # int64[16]: the next seat's tile kinds as the bot weighs them (cnt, or its one tile)


class Scratch(NamedTuple):
    """The bots' own work arrays (the scorers' live in `Work`, which apply shares)."""

    score: np.ndarray  # int64[max_moves]: greedy's points per frontier cell at its last decision
    ex: ExpectiScratch


def build_tables(rules, first_fixed: int = 0, allow_join: bool = True, trie=None) -> Tables:
    """The tables of a resolved rule set; `first_fixed` the first seat when it is not drawn
    (seat A, or game index mod players under rotate); allow_join False scores with the DFS
    finder only (tests); `trie` the side trie to use (game.side_trie keeps one per thread)."""
    from sim.games.hexatrex import trie as T

    tiles = pile(rules["tile_counts"])
    board = Board(len(tiles))
    n = rules["players"]
    t = len(tiles)
    cfg = find_cfg(rules)
    i64 = np.int64
    first = {"draw": FIRST_DRAW, "A": FIRST_A, "rotate": FIRST_ROTATE}[rules["first_player"]]
    work = Work(new_store(), new_scratch(), workspace(), np.zeros(FOUND_CAP, np.uint64),
                np.zeros(FOUND_CAP, np.uint64), np.zeros(FOUND_CAP, np.int64),
                np.zeros((0, 16), np.int64), np.zeros(0, np.int64),
                np.full(board.size, -1, np.int32), np.zeros((board.size, REACH_COLS), np.int64),
                np.zeros(LINEAGE_CAP, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64),
                np.full(2, -1, np.int64), np.zeros(t + 1, np.int8), np.zeros(t + n, np.int8))
    if trie is None:
        trie = T.new_trie(int(cfg[0]) - 2, T.TRIE_CAP, T.TRIE_POOL)
    return Tables(
        n_seats=i64(n), max_moves=i64(6 * (t + 1)), turn_cap=i64(0),
        res_width=i64(4 + n + 3 * n + 2 + HIST_LEN), n_tiles=i64(t), first_rule=i64(first),
        first_fixed=i64(0 if first == FIRST_A else first_fixed),
        max_len=i64(rules["max_equation_tiles"]), bracket_any=i64(rules["bracketing"] == "any"),
        require_op=i64(rules["require_operator"]), lead_zero=i64(rules["leading_zero"]),
        six_nine=i64(rules["six_as_nine"]), plus_times=i64(rules["plus_as_times"]),
        never=i64(rules["tile_repeat"] == "never"), neg_zero=i64(rules["negative_zero"]),
        use_join=i64(allow_join and rules["max_equation_tiles"] - 2 <= MAX_SIDE), cfg=cfg,
        tiles=tiles, nb_off=board.nb_off, cq=board.q, cr=board.r, center=i64(board.center),
        n_cells=i64(board.size), geo=geo_of(board), turn_points=turn_points(rules), seat_points=seat_points(rules),
        trie=trie, work=work)


def turn_points(rules) -> np.ndarray:
    """int64[seats]: second_player_bonus by turn position: the k-th player to move (k = 0 the
    first) starts with k x the bonus (2 players: the second player gets it)."""
    n = rules["players"]
    return np.arange(n, dtype=np.int64) * rules.get("second_player_bonus", 0)


def seat_points(rules) -> np.ndarray:
    """int64[seats]: start_points of each seat (one value or a table by seat name)."""
    from sim.games.base import seat_values

    names = ["A", "B", "C", "D"][: rules["players"]]
    return np.array(seat_values({"start_points": rules.get("start_points", 0)}, "start_points", names),
                    np.int64)

