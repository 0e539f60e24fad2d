"""HEXFLOW Race mode: geometry, tiles, rules (ASCII scenarios), kernel vs position API, bots,
and the shared check suite on every shipped variant."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.engine.hexgrid import SIDES, opposite
from sim.errors import VariantError
from sim.games.hexflow import GAME, race
from sim.games.hexflow import bot_kernel as BK
from sim.games.hexflow import kernel as K
from sim.games.hexflow.board import BOARD, CORNERS, DEFAULT_DOTS, dots_array, mirror_maps
from sim.games.hexflow.position import Position
from sim.games.hexflow.rules import Tables
from sim.games.hexflow.tiles import (
    BLOCK,
    TILE_TYPES,
    TYPE_BY_CODE,
    TYPE_BY_NAME,
    networks,
    orientations,
    tile_set,
)
from tests import hexflow_reference as R
from tests.game_checks import check_game, seats_for

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = sorted((ROOT / "variants" / "hexflow").glob("race*.toml"))  # other modes: own test files
H = BOARD.hex_id


def load_variant(path: Path) -> tuple[dict, dict]:
    """rules, seats of a shipped variant (following `extends`), for the checks below."""
    data = tomllib.loads(path.read_text())
    assert data["game"] == "hexflow" and data["description"]
    rules, seats = {}, {}
    if "extends" in data:
        rules, seats = load_variant(path.parent / data["extends"])
    rules.update(data.get("rules", {}))
    seats.update(data.get("seats", {}))
    return rules, seats


# ---- geometry ---------------------------------------------------------------------------------
def test_board_shape():
    assert BOARD.size == 85
    heights = [sum(1 for c, _ in BOARD.cells if c == col) for col in range(9)]
    assert heights == [9, 10, 9, 10, 9, 10, 9, 10, 9]
    for h in range(85):
        for s in range(6):
            n = BOARD.nbr[h, s]
            if n >= 0:
                assert BOARD.nbr[n, opposite(s)] == h
    # corners are the top and bottom hexes of columns 1 and 9 and have 3 neighbours each
    assert [BOARD.names[c] for c in CORNERS.ravel()] == ["a9", "i1", "a1", "i9"]
    for c in CORNERS.ravel():
        assert (BOARD.nbr[c] >= 0).sum() == 3
    # a9's neighbours: T a8, TR b9, BR b10
    nb = {SIDES[s]: BOARD.names[BOARD.nbr[H("a9"), s]] for s in range(6) if BOARD.nbr[H("a9"), s] >= 0}
    assert nb == {"T": "a8", "TR": "b9", "BR": "b10"}
    assert BOARD.dist[H("a9"), H("i1")] == 12 and BOARD.dist[H("a1"), H("i9")] == 12


def test_default_dots_are_neutral():
    """Both mirrors swap A's corners with B's; the default dot layout is invariant under both."""
    dots = dots_array(DEFAULT_DOTS)
    for m in mirror_maps():
        assert sorted(CORNERS[0].tolist()) == sorted(m[CORNERS[1]].tolist())
        assert (dots[m] == dots).all()


# ---- tiles ------------------------------------------------------------------------------------
def test_tile_table_matches_card():
    points = {t.name: t.points for t in TILE_TYPES}
    assert points == {"straight": 2, "x_cross": 4, "angle": 2, "arrow": 3, "block": 1, "y_right": 3,
                      "y_left": 3, "star6": 5, "tri_branch": 3, "l_curve": 2, "spread": 4}
    n_orient = {t.name: len(orientations(i)) for i, t in enumerate(TILE_TYPES)}
    assert n_orient == {"straight": 3, "x_cross": 3, "angle": 6, "arrow": 6, "block": 1,
                        "y_right": 6, "y_left": 6, "star6": 1, "tri_branch": 2, "l_curve": 6,
                        "spread": 6}
    assert len(tile_set(2)) == 22 and sorted(set(tile_set(2).tolist())) == list(range(11))
    # X-Cross is two separate lines, Star-6 one network of six sides
    assert networks(TYPE_BY_NAME["x_cross"], 0) == [0b001001, 0b010010]
    assert networks(TYPE_BY_NAME["star6"], 0) == [0b111111]
    assert networks(TYPE_BY_NAME["block"], 0) == []


@pytest.mark.parametrize("t", [i for i in range(len(TILE_TYPES)) if i != BLOCK])
def test_every_tile_and_rotation_connects_on_its_sides(t):
    """A tile on e5 with a Star-6 on each neighbour: exactly the tile's sides join the neighbour,
    for every rotation (side s turns to s + r)."""
    centre = H("e5")
    for r in range(6):
        mask = 0
        for m in networks(t, r):
            mask |= m
        base = 0
        for m in networks(t, 0):
            base |= m
        assert mask == ((base << r) | (base >> (6 - r))) & 63
        for s in range(6):
            pos = Position()
            pos.place("A", centre, t, r, check=False)
            pos.place("B", int(BOARD.nbr[centre, s]), "star6", 0, check=False)
            joined = centre in pos._line_hexes_from(int(BOARD.nbr[centre, s]))
            assert joined == bool((mask >> s) & 1), (TILE_TYPES[t].name, r, SIDES[s])


def test_x_cross_lines_do_not_join():
    """X-Cross on e5 (T-B and TR-BL) with Star-6s on e4 (its T) and d6 (its BL):
    each Star joins one line of the cross, and the two lines stay apart.

           e4=S6
          e5=Xc0
     d6=S6
    """
    pos = Position()
    pos.place("A", "e5", "x_cross", 0, check=False)
    for name in ("e4", "d6"):
        pos.place("B", name, "star6", 0, check=False)
    assert {BOARD.names[h] for h in pos._line_hexes_from(H("e4"))} == {"e4", "e5"}
    assert {BOARD.names[h] for h in pos._line_hexes_from(H("d6"))} == {"d6", "e5"}
    kb = KernelBoard()
    for h, (seat, t, r) in pos.tiles.items():
        kb.place(seat, h, t, r)
    assert K._find(kb.par, H("e4") * 2) != K._find(kb.par, H("d6") * 2)
    assert K._find(kb.par, H("e4") * 2) == K._find(kb.par, H("e5") * 2)
    assert K._find(kb.par, H("d6") * 2) == K._find(kb.par, H("e5") * 2 + 1)


# ---- placement --------------------------------------------------------------------------------
def test_first_tile_on_own_corner_then_connection_needed():
    pos = Position()
    assert pos.why_illegal("A", "e5", "star6", 0) is not None
    assert pos.why_illegal("A", "a1", "star6", 0) is not None  # B's corner
    assert pos.is_legal("A", "a9", "straight", 0) and pos.is_legal("A", "i1", "angle", 3)
    pos.place("A", "a9", "straight", 0)  # line a9 T -> a8
    assert pos.is_legal("B", "i9", "star6", 0) and not pos.is_legal("B", "a8", "star6", 0)
    # A's next tile: a8 with a line on its B side joins; b9 (a9 has no TR line) does not
    assert pos.is_legal("A", "a8", "straight", 0)
    assert not pos.is_legal("A", "a8", "angle", 0)  # Angle T-TR has no B line
    assert not pos.is_legal("A", "b9", "star6", 0)
    assert not pos.is_legal("A", "e5", "star6", 0)  # not adjacent


def test_block_placement_switch():
    """a9 holds A's Straight (line to a8). A Block next to it: adjacency suffices by default,
    never under block_placement = 'connected'."""
    for rule, ok in (("adjacent", True), ("connected", False)):
        pos = Position({"block_placement": rule})
        pos.place("A", "a9", "straight", 0)
        assert pos.is_legal("A", "a8", "block", 0) == ok
        assert pos.is_legal("A", "b9", "block", 0) == ok  # adjacent, no line needed


def test_ascii_round_trip_and_scenario():
    """A's Straight on a9 and Spread on a8; B's Star-6 on a1.

    B1 is at the top line (columns b d f h); a1 on the second line.
    """
    text = """
          .           .           .           .
    S60B        .           .           .           .
          .           .           .           .
    .           .           .           .           .
          .           .           .           .
    .           .           .           .           .
          .           .           .           .
    .           .           .           .           .
          .           .           .           .
    .           .           .           .           .
          .           .           .           .
    .           .           .           .           .
          .           .           .           .
    .           .           .           .           .
          .           .           .           .
    Sp0A        .           .           .           .
          .           .           .           .
    St0A        .           .           .           .
          .           .           .           .
    """
    pos = Position.from_ascii(text)
    assert pos.tiles == {H("a1"): (1, TYPE_BY_CODE["S6"], 0), H("a8"): (0, TYPE_BY_CODE["Sp"], 0),
                         H("a9"): (0, TYPE_BY_CODE["St"], 0)}
    assert Position.from_ascii(pos.ascii()).tiles == pos.tiles
    # Spread on a8 (T, B, BR, BL): a9-a8 joined, a8's BR side faces b9
    assert H("a8") in pos._line_hexes_from(H("a9"))
    assert pos.is_legal("A", "b9", "straight", 1) is False  # Straight 1 = TR-BL: BL faces a9? no line
    assert pos.is_legal("A", "b9", "straight", 2)  # TL-BR: TL faces a8's BR line


# ---- winning ----------------------------------------------------------------------------------
# A's way a9 -> i1 and B's way a1 -> i9, crossing at e5 (A passes it T-B, B passes it TL-BR).
A_WAY = ["a9", "b9", "c8", "d8", "e7", "e6", "e5", "e4", "f4", "g3", "h3", "i2", "i1"]
B_WAY = ["a1", "b2", "c2", "d3", "d4", "d5", "e5", "f6", "g6", "h7", "i7", "i8", "i9"]
A_CHAIN = A_WAY  # (the first hexes are used by the stalemate test)
B_CHAIN = B_WAY


def side_towards(a: str, b: str) -> int:
    return [int(n) for n in BOARD.nbr[H(a)]].index(H(b))


def line_tile(sides: set[int]) -> tuple[int, int]:
    """The Straight, L-Curve or Angle (type, rotation) whose only line joins these two sides."""
    want = sum(1 << s for s in sides)
    for name in ("straight", "l_curve", "angle"):
        t = TYPE_BY_NAME[name]
        for r in orientations(t):
            if networks(t, r) == [want]:
                return t, r
    raise AssertionError(sides)


def lay_way(pos: Position, seat: str, way: list[str], skip: str) -> None:
    """Line tiles along `way` (each joining its two neighbours on the way, corner tiles
    pointing off the board), all but hex `skip`."""
    for i, name in enumerate(way):
        if name == skip:
            continue
        sides = set()
        if i > 0:
            sides.add(side_towards(name, way[i - 1]))
        if i < len(way) - 1:
            sides.add(side_towards(name, way[i + 1]))
        if len(sides) == 1:  # a corner: add a side that faces off the board
            sides.add(next(s for s in range(6) if BOARD.nbr[H(name), s] < 0
                           and (s - next(iter(sides))) % 6 in (2, 3, 4)))
        t, r = line_tile(sides)
        pos.place(seat, name, t, r, check=False)


def crossing_position(rules=None, dots=None) -> Position:
    """Both ways laid with single-line tiles except e5, the one hex both still need:

    A: a9 b9 c8 d8 e7 e6 [e5] e4 f4 g3 h3 i2 i1   (through e5 from B to T)
    B: a1 b2 c2 d3 d4 d5 [e5] f6 g6 h7 i7 i8 i9   (through e5 from TL to BR)
    """
    pos = Position(rules, dots)
    lay_way(pos, "A", A_WAY, skip="e5")
    lay_way(pos, "B", B_WAY, skip="e5")
    return pos


@pytest.mark.parametrize("mover", ["A", "B"])
@pytest.mark.parametrize("tile,rot,completes", [
    ("star6", 0, {"A", "B"}),      # all sides joined: both paths
    ("x_cross", 2, {"A", "B"}),    # T-B and TL-BR as two separate lines: both paths
    ("straight", 0, {"A"}),        # T-B: A only
    ("straight", 2, {"B"}),        # TL-BR: B only
])
def test_win_opponent_win_and_both(mover, tile, rot, completes):
    pos = crossing_position()
    assert not pos.connected("A") and not pos.connected("B")
    assert pos.is_legal(mover, "e5", tile, rot)
    pos.place(mover, "e5", tile, rot)
    assert {s for s in "AB" if pos.connected(s)} == completes
    winner, reason, _ = pos.judge(mover, tile)
    if mover in completes:
        assert (winner, reason) == ("AB".index(mover), "path")
    else:
        assert (winner, reason) == (1 - "AB".index(mover), "opponent_path")
    kb = KernelBoard()
    for h, (seat, t, r) in pos.tiles.items():
        kb.place(seat, h, t, r)
    assert {s for i, s in enumerate("AB") if kb.connected(i)} == completes


def test_card_dot_example_70_points():
    """Card: 'Path through 2-dot + 3-dot hexes = 10 x (3 + 4) = 70 points' (c8 and e7)."""
    rules = {"dots": "list", "dot_list": [["c8", 2], ["e7", 3]]}
    pos = crossing_position(rules)
    pos.place("A", "e5", "straight", 0)
    score, length, hexes = pos.best_path("A")
    assert score == 3 + 4 and pos.score("A") == 70
    assert [BOARD.names[h] for h in hexes] == A_WAY and length == 13
    kb = KernelBoard(rules)
    for h, (seat, t, r) in pos.tiles.items():
        kb.place(seat, h, t, r)
    assert kb.best_path(0)[:2] == (7, 13)
    pos = crossing_position({"dots": "none"})
    pos.place("A", "e5", "straight", 0)
    assert pos.score("A") == 10  # a win without dots scores the base 10


def test_best_path_prefers_dots():
    """Stars on h3, h2 and i1 open a second way h3 -> h2 -> i1 beside h3 -> i2 -> i1;
    with 5 dots on h2 the best path takes it (x6 = 60 points)."""
    rules = {"dots": "list", "dot_list": [["h2", 5]]}
    pos = crossing_position(rules)
    pos.place("A", "e5", "straight", 0)
    for name in ("h3", "h2", "i1"):
        pos.tiles.pop(H(name), None)
        pos.place("A", name, "star6", 0, check=False)
    score, length, hexes = pos.best_path("A")
    assert (score, length) == (6, 13) and H("h2") in hexes and pos.score("A") == 60
    kb = KernelBoard(rules)
    for h, (seat, t, r) in pos.tiles.items():
        kb.place(seat, h, t, r)
    assert kb.best_path(0)[:2] == (6, 13)


# ---- blocking, stalemate ----------------------------------------------------------------------
def corner_position(rules=None) -> Position:
    """A's Straight on a9 (only line: T, to a8); B's Star-6s on a1, a2 ... a7 and b8.

    a7=S6B
         b8=S6B
    a8=.
         b9=.
    a9=St0A
    """
    pos = Position(rules)
    pos.place("A", "a9", "straight", 0)
    for name in ("a1", "a2", "a3", "a4", "a5", "a6", "a7", "b8"):
        pos.place("B", name, "star6", 0, check=False)
    return pos


def test_block_cuts_opponent_and_wins():
    pos = corner_position()
    assert pos.can_complete("A")
    pos.place("B", "a8", "block", 0)
    assert not pos.can_complete("A") and pos.can_complete("B")
    assert pos.judge("B", "block")[:2] == (1, "blocked")
    # switch off: play goes on, A is marked as cut off
    pos.rules["blocked_player_loses"] = False
    assert pos.judge("B", "block")[:2] == (None, None)


def test_non_block_cut_and_trigger_switch():
    """B lays an Angle (T-TR) on a8, joined to b8's Star: it has no B line, so A's only line
    (a9 T) is dead. By default any cutting tile wins; with block_win_trigger = 'block_tile'
    only a Block does."""
    pos = corner_position()
    assert pos.is_legal("B", "a8", "angle", 0)
    pos.place("B", "a8", "angle", 0)
    assert pos.judge("B", "angle")[:2] == (1, "blocked")
    pos.rules["block_win_trigger"] = "block_tile"
    winner, reason, blocked = pos.judge("B", "angle")
    assert (winner, reason) == (None, None) and blocked == [True, False]
    # a later Block does not count a player already cut off
    assert pos.judge("B", "block", blocked)[:2] == (None, None)


def test_self_block_loses():
    pos = corner_position()
    pos.place("A", "a8", "angle", 0)
    assert pos.judge("A", "angle")[:2] == (1, "self_blocked")


def test_stalemate_closest_and_draw():
    """A's lines from a9 reach e7 (8 steps from i1); B's from a1 reach b2 (11 from i9)."""
    pos = Position()
    for name in A_CHAIN[:5]:
        pos.place("A", name, "star6", 0, check=False)
    for name in B_CHAIN[:2]:
        pos.place("B", name, "star6", 0, check=False)
    assert pos.reach("A") == BOARD.dist[H("e7"), H("i1")] == 8
    assert pos.reach("B") == BOARD.dist[H("b2"), H("i9")] == 11
    assert pos.stalemate_winner() == 0
    pos.rules["stalemate_rule"] = "draw"
    assert pos.stalemate_winner() is None
    assert Position().stalemate_winner() is None  # nobody on a corner: tie


# ---- kernel against the position API ----------------------------------------------------------
class KernelBoard:
    """Drive the kernel's board functions from Python (for cross-checks)."""

    def __init__(self, rules=None):
        r = GAME.resolve_rules(rules or {}, "test")
        self.t = Tables(r)
        self.block_connected = r["block_placement"] == "connected"
        # the board as a Race position (layout.Position, empty), its rows under their names
        self.rt = race.tables(r)
        self.p = race._blank_position(self.rt)
        hx = self.p.hx
        self.ttype, self.trot, self.towner, self.emask = (hx[k] for k in (race.H_TTYPE, race.H_TROT,
                                                                         race.H_TOWNER, race.H_EMASK))
        self.adj, self.need, self.front, self.pos = (hx[k] for k in (race.H_ADJ, race.H_NEED, race.H_FRONT,
                                                                    race.H_FPOS))
        self.netid = self.p.netid
        self.netm, self.par = self.p.nets[0], self.p.nets[1]
        self.placed_any = self.p.sq[race.Q_PLACED]
        self.mult = np.array([d + 1 if d >= 2 else 0 for d in self.t.dots], dtype=np.int64)

    @property
    def nfront(self):
        return int(self.p.st[race.NFRONT])

    def place(self, seat, h, t, r):
        K._place(self.rt, self.p, seat, h, t, r)
        self.placed_any[seat] = 1

    def legal(self, seat, h, t, r):
        return K._legal(seat, h, t, r, self.placed_any, self.t.corners, self.ttype, self.adj,
                        self.need, self.t.emask, self.block_connected)

    def connected(self, seat):
        return K._connected(CORNERS[seat, 0], CORNERS[seat, 1], self.ttype, self.netm, self.par)

    def cost(self, seat, blocked=-1):
        nn = 2 * BOARD.size
        d, done = np.zeros(nn, np.int64), np.zeros(nn, np.int64)
        dq = np.zeros(nn * 12 + 4, np.int64)
        return R._bfs(CORNERS[seat, 0], CORNERS[seat, 1], blocked, self.t.nbr, self.ttype,
                      self.emask, self.netid, self.netm, d, done, dq, False)

    def best_path(self, seat):
        nn = 2 * BOARD.size
        a = [np.zeros(nn + 1, np.int64) for _ in range(2)]
        return K._best_path(self.rt, self.p, CORNERS[seat, 0], CORNERS[seat, 1], self.mult, a[0], a[1],
                            np.zeros(nn, np.int64), np.zeros(BOARD.size, np.int64),
                            np.zeros(nn + 1, np.int64))


def test_kernel_matches_position_on_scenarios():
    pos = crossing_position()
    kb = KernelBoard()
    for h, (seat, t, r) in pos.tiles.items():
        kb.place(seat, h, t, r)
    assert kb.cost(0) == 1 and kb.cost(1) == 1  # one empty hex (e5) to fill
    assert kb.cost(0, blocked=H("e5")) >= K.INF
    kb.place(0, H("e5"), TYPE_BY_NAME["straight"], 0)
    assert kb.connected(0) and not kb.connected(1)
    assert kb.cost(0) == 0 and kb.cost(1) >= K.INF


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 10**9), min_size=1, max_size=30), st.booleans())
def test_random_positions_kernel_equals_position(picks, block_connected):
    """Grow a position by legal moves chosen from the Python list of legal moves (a hand of 3
    tile types drawn from the pick); at every step the kernel agrees on the legality of every
    placement of those tiles, on joined corners and on reachability."""
    rules = {"block_placement": "connected" if block_connected else "adjacent"}
    pos = Position(rules)
    kb = KernelBoard(rules)
    for i, pick in enumerate(picks):
        seat = i % 2
        hand = [pick % 11, (pick // 11) % 11, (pick // 121) % 11]
        moves = pos.legal_moves(seat, hand)
        legal_k = {(h, t, r) for h in range(BOARD.size) for t in set(hand)
                   for r in orientations(t) if kb.legal(seat, h, t, r)}
        assert legal_k == set(moves)
        if not moves:
            break
        h, t, r = moves[pick % len(moves)]
        pos.place(seat, h, t, r)
        kb.place(seat, h, t, r)
        for q in range(2):
            assert kb.connected(q) == pos.connected(q)
            assert (kb.cost(q) < K.INF) == pos.can_complete(q)


def _through_cut(kb, seat, h, t, r):
    """Cost of seat's way through tile (t, r) on empty hex h from the greedy's two maps that
    avoid h (_cut_arrivals), and from a search with the tile placed (_cost_with)."""
    nn = 2 * BOARD.size
    sd, done = np.zeros(nn, np.int64), np.zeros(nn, np.int64)
    dq = np.zeros(nn * 12 + 4, np.int64)
    a1, a2 = np.zeros(6, np.int64), np.zeros(6, np.int64)
    c1, c2 = int(CORNERS[seat, 0]), int(CORNERS[seat, 1])
    R._cut_arrivals(h, c1, c2, kb.t.nbr, kb.ttype, kb.emask, kb.netid, kb.netm, sd, done, dq,
                    a1, a2)
    maps = BK._pair_through(kb.t.net_mask[t, r, 0], a1, a2, h == c1, h == c2)
    search = R._cost_with(h, t, r, c1, c2, kb.t.nbr, kb.t.net_mask, kb.t.emask, kb.ttype,
                          kb.emask, kb.netid, kb.netm, sd, done, dq)
    return maps, search


def test_cut_hex_cost_from_maps_equals_search():
    """On a cut hex (every way of a seat passes it) the cost through a one-line tile taken from
    the two maps that avoid the hex equals a search with the tile placed, for every tile and
    rotation, over positions grown by random legal moves (X-Cross, two lines, is searched)."""
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(12):
        pos, kb = Position({}), KernelBoard()
        for i in range(40):
            seat = i % 2
            moves = pos.legal_moves(seat, [int(x) for x in rng.integers(0, len(TILE_TYPES), 3)])
            if not moves:
                break
            h, t, r = moves[int(rng.integers(len(moves)))]
            pos.place(seat, h, t, r)
            kb.place(seat, h, t, r)
            for q in range(2):
                if kb.cost(q) >= K.INF:
                    continue
                for hh in range(BOARD.size):
                    if kb.ttype[hh] >= 0 or kb.cost(q, blocked=hh) < K.INF:
                        continue
                    for t2, tt in enumerate(TILE_TYPES):
                        if len(tt.networks) > 1:
                            continue
                        for r2 in orientations(t2):
                            maps, search = _through_cut(kb, q, hh, t2, r2)
                            assert maps == search, (q, BOARD.names[hh], tt.name, r2)
                            checked += 1
    assert checked > 200


# ---- whole games ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
@pytest.mark.parametrize("bots", ["random", ("greedy", "random"), "greedy"], ids=["rr", "gr", "gg"])
def test_check_game_on_shipped_variants(path, bots):
    rules, _ = load_variant(path)
    check_game(GAME, rules, bots, n=24, traced=3)


def test_variants_are_valid_and_distinct():
    assert {p.stem for p in VARIANTS} >= {"race", "race_block_connected", "race_no_dots",
                                          "race_no_move_lose", "race_stalemate_draw"}
    seen = set()
    for p in VARIANTS:
        rules = GAME.resolve_rules(load_variant(p)[0], str(p))
        key = tuple(sorted((k, str(v)) for k, v in rules.items()))
        assert key not in seen, f"{p.name} repeats another variant"
        seen.add(key)


def test_rule_switches_show_in_games():
    def run(rules, bots="random", n=300):
        r = GAME.resolve_rules(rules, "test")
        return GAME.play_chunk(r, seats_for(GAME, r, bots), 0, n, 99)

    assert (run({"first_player": "A"})["first_seat"] == 0).all()
    assert (run({"first_player": "B"})["first_seat"] == 1).all()
    coin = run({})["first_seat"]
    assert 0.35 < coin.mean() < 0.65
    reasons = lambda c: {GAME.end_reasons[i] for i in c["end_reason"]}  # noqa: E731
    # default: cut-off players lose; switched off, nobody is ever "blocked"
    assert {"blocked", "self_blocked"} <= reasons(run({}))
    off = run({"blocked_player_loses": False})
    assert not reasons(off) & {"blocked", "self_blocked", "both_blocked"}
    assert (off["hexflow_passes_A"] + off["hexflow_passes_B"]).sum() > 0  # passes happen
    lose = run({"blocked_player_loses": False, "no_move": "lose"})
    assert "no_move_loss" in reasons(lose)
    draw = run({"blocked_player_loses": False, "stalemate_rule": "draw"})
    assert "stalemate_draw" in reasons(draw)
    assert (draw["winner"][draw["end_reason"] == GAME.end_reasons.index("stalemate_draw")] == -1).all()
    assert (run({"block_placement": "connected"})["hexflow_blocks_A"] == 0).all()
    nodots = run({"dots": "none"}, bots="greedy", n=200)
    assert set(np.unique(nodots["score_A"] + nodots["score_B"])) <= {0, 10}
    assert set(np.unique(run({"blocked_player_loses": False}, bots="greedy")["score_A"])) > {0, 10}
    capped = run({"max_turns": 10})
    assert (capped["turns"] <= 10).all() and "turn_cap" in reasons(capped)


def test_random_dots_change_per_game():
    r = GAME.resolve_rules({"dots": "random"}, "test")
    seats = seats_for(GAME, r, "random")
    layouts = [tuple(GAME.play_traced(r, seats, i, 5).data["dots"]) for i in range(3)]
    assert len(set(layouts)) == 3
    for lay in layouts:
        assert sorted(d for d in lay if d) == sorted(d for _, d in DEFAULT_DOTS)
        assert all(lay[c] == 0 for c in CORNERS.ravel())


def test_greedy_beats_random():
    """Greedy must win > 90% against random with seats rotated (measured ~98%)."""
    r = GAME.resolve_rules({}, "test")
    n = 300
    a = GAME.play_chunk(r, seats_for(GAME, r, ["greedy", "random"]), 0, n, 2024)
    b = GAME.play_chunk(r, seats_for(GAME, r, ["random", "greedy"]), 0, n, 2024)
    wins = (a["winner"] == 0).sum() + (b["winner"] == 1).sum()
    assert wins / (2 * n) > 0.9


def test_validation_and_warnings():
    with pytest.raises(VariantError, match="dot_list"):
        GAME.resolve_rules({"dots": "list"}, "v.toml")
    with pytest.raises(VariantError, match="dot_list"):
        GAME.resolve_rules({"dots": "list", "dot_list": [["z9", 2]]}, "v.toml")
    with pytest.raises(VariantError, match="dot_list"):
        GAME.resolve_rules({"dot_list": [["e5", 2]]}, "v.toml")
    with pytest.raises(VariantError, match="block_placement"):
        GAME.resolve_rules({"block_placement": "nowhere"}, "v.toml")
    with pytest.raises(VariantError, match="did you mean"):
        GAME.resolve_rules({"stalemate_rules": "draw"}, "v.toml")
    ok = GAME.resolve_rules({"dots": "list", "dot_list": [["e5", 5], ["b10", 2]]}, "v.toml")
    assert Tables(ok).dots[H("b10")] == 2
    assert any("85 hexes" in w for w in GAME.warnings(GAME.defaults()))


def _fill_warnings(**kw) -> list[str]:
    return [w for w in GAME.warnings(GAME.resolve_rules(kw, "v.toml")) if "cannot fill" in w]


@pytest.mark.parametrize("kw, text", [
    ({}, "44 tiles cannot fill 85 hexes"),
    ({"board_columns": 5, "dots": "none"}, "44 tiles cannot fill 47 hexes"),
    ({"mode": "battle", "tiles": {"block": {"count": 0}}}, "40 tiles cannot fill 85 hexes"),
    ({"mode": "tri"}, "51 tiles cannot fill 105 hexes"),
    ({"mode": "tri2p"}, "44 tiles cannot fill 104 hexes"),
])
def test_fill_warning_counts_the_board_and_bags_it_is_given(kw, text):
    assert len(_fill_warnings(**kw)) == 1 and text in _fill_warnings(**kw)[0]


@pytest.mark.parametrize("kw", [
    {"copies_per_type": 4},                                   # 88 tiles, 85 hexes
    {"mode": "battle", "board_columns": 5, "dots": "none", "copies_per_type": 3},  # 66 tiles, 47 hexes
    {"mode": "tri", "board_side": 8},                          # 51 tiles, 36 hexes
    {"mode": "tri2p", "board_side": 9},                        # 44 tiles, 44 hexes
])
def test_fill_warning_is_silent_where_the_tiles_can_fill_the_board(kw):
    assert _fill_warnings(**kw) == []


def test_docs_cover_every_parameter():
    doc = (ROOT / "docs" / "rules" / "hexflow.md").read_text()
    for p in GAME.params:
        assert f"`{p.name}`" in doc, p.name
    for reason in GAME.end_reasons:
        assert f"`{reason}`" in doc, reason


def test_draw_writes_png(tmp_path):
    r = GAME.resolve_rules({}, "test")
    seats = seats_for(GAME, r, ["greedy", "random"])
    games = GAME.play_chunk(r, seats, 0, 200, 3)
    done = np.flatnonzero(games["hexflow_path_completed"] & (games["winner"] == 0))
    trace = GAME.play_traced(r, seats, int(done[0]), 3)  # a completed path
    assert trace.data["path"][0] == "a9" and trace.data["path"][-1] == "i1"
    GAME.draw(trace, str(tmp_path / "end.png"))
    short = int(np.argmin(games["turns"][:20]))
    GAME.draw(GAME.play_traced(r, seats, short, 3), str(tmp_path / "all.png"), every_move=True)
    assert (tmp_path / "end.png").stat().st_size > 10_000
    assert (tmp_path / "all.png").stat().st_size > 10_000


def test_report_metrics_rows():
    import pandas as pd

    r = GAME.resolve_rules({}, "test")
    df = pd.DataFrame(GAME.play_chunk(r, seats_for(GAME, r, "greedy"), 0, 100, 1))
    rows = GAME.report_metrics(df, r)
    by = {row["metric"]: row for row in rows}
    assert by["path completed"]["n"] == 100
    assert not any(m.startswith("end: ") for m in by)  # the report's own end-reason table has them
    assert by["path completed"]["successes"] == int(df["hexflow_path_completed"].sum())
    assert "block placed per game, winner - loser" in by


def test_passes_when_no_placement_exists():
    """With block_placement = 'connected' a Block can never be placed: a hand of only Blocks has
    no legal move, so the player passes (or loses with no_move = 'lose'). With a hand of one
    tile, a drawn Block sticks there for the rest of the game."""
    pos = Position({"block_placement": "connected"})
    pos.place("A", "a9", "star6", 0)
    assert pos.legal_moves("B", ["block"]) == [] and pos.legal_moves("A", ["block"]) == []
    assert pos.legal_moves("B", ["straight"])  # its corner is still free
    rules = {"block_placement": "connected", "hand_size": 1}
    games = check_game(GAME, rules, "random", n=30, traced=3)
    assert (games["hexflow_passes_A"] + games["hexflow_passes_B"] > 0).mean() > 0.5
    lose = GAME.play_chunk(GAME.resolve_rules({**rules, "no_move": "lose"}, "test"),
                           seats_for(GAME, GAME.resolve_rules(rules, "test"), "random"), 0, 100, 3)
    assert (lose["end_reason"] == GAME.end_reasons.index("no_move_loss")).mean() > 0.5
