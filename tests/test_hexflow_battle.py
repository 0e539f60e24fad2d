"""HEXFLOW Battle mode: territory and transit scenarios, displacement conditions, simultaneous
completion, the card's stalemate example, kernel vs pure-Python position, bots, shipped variants.

Scenario boards use the top row of the board, which runs left to right in alternate steps:
a1 (col 0) - b1 - c1 - d1 - e1 - f1 - g1 - h1 - i1 (col 8), each hex touching the next across
its TR or BR side. Star-6 tiles ("S6") carry a line across every side, so a row of them is a
path. Territory: a-c = A, d-f contested, g-i = B.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numba import njit

from sim.games.base import SeatBot
from sim.games.hexflow import GAME, battle_engine
from sim.games.hexflow import battle as BT
from sim.games.hexflow import battle_bots as BB
from sim.games.hexflow import battle_verify as BV
from sim.games.hexflow.board import BOARD
from sim.games.hexflow.bot_kernel import _arrive
from sim.games.hexflow.rules import Tables
from sim.games.hexflow.tiles import BLOCK, TYPE_BY_NAME, networks
from sim.games.hexflow.tri import empty_links
from tests import hexflow_reference as R
from tests.game_checks import check_game, seats_for


@njit(cache=True)
def displaced_cost(q, k, h, star, D, br, b, lnk, s):
    """battle_bots._displaced_cost (inlined where the greedy calls it) as a function tests can call."""
    return BB._displaced_cost(q, k, h, star, D, br, b, lnk, s)

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = sorted((ROOT / "variants" / "hexflow").glob("battle*.toml"))
H = BOARD.hex_id
S6, ST, BK = TYPE_BY_NAME["star6"], TYPE_BY_NAME["straight"], BLOCK
A, B = 0, 1
TOP = ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "i1"]


def rules(**kw):
    return GAME.resolve_rules({"mode": "battle", **kw}, "test")


def load_variant(path: Path) -> dict:
    data = tomllib.loads(path.read_text())
    assert data["game"] == "hexflow" and data["description"]
    out = load_variant(path.parent / data["extends"]) if "extends" in data else {}
    out.update(data.get("rules", {}))
    return out


def position(owners: dict[str, int], r=None, tile=S6, extra=None, dots=None) -> BV.BattlePosition:
    """A position with `tile` (rotation 0) of the given owner on each named hex."""
    pos = BV.BattlePosition(r or rules(), dots=dots)
    for name, seat in owners.items():
        pos.tiles[H(name)] = (seat, tile, 0)
        pos.placed_any[seat] = True
    for name, (seat, t, rot) in (extra or {}).items():
        pos.tiles[H(name)] = (seat, t, rot)
    return pos


class KBoard:
    """The kernel's arrays for a BattlePosition, to call the compiled helpers directly."""

    def __init__(self, pos: BV.BattlePosition):
        self.r = pos.rules
        self.tb = Tables(self.r)
        self.tz, self.startm, self.goalm, self.firstc, self.corner_any = BT.battle_tables(self.r)
        nh = BOARD.size
        self.ttype = np.full(nh, -1, np.int64)
        self.trot = np.full(nh, -1, np.int64)
        self.towner = np.full(nh, -1, np.int64)
        self.emask = np.zeros(nh, np.int64)
        self.netid = np.full(nh * 6, -1, np.int64)
        self.netm = np.zeros(nh * 2, np.int64)
        for h, (seat, t, rot) in pos.tiles.items():
            BT._put(seat, h, t, rot, self.tb.net_mask, self.tb.emask, self.ttype, self.trot,
                    self.towner, self.emask, self.netid, self.netm)
        self.d = np.zeros(nh * 2, np.int64)
        self.dq = np.zeros(nh * 24 + 4, np.int64)
        self.br = battle_engine.tables(self.r).br  # the tables battle.py's helpers read

    def board(self, need=None, nown=None, fpos=None, mult=None):
        """The arrays as battle.py's helpers read the board (battle.Board)."""
        nh = BOARD.size
        return BT.Board(self.ttype, self.trot, self.towner, self.emask, self.netid, self.netm,
                        np.zeros(nh, np.int64) if need is None else need,
                        np.zeros((2, nh), np.int64) if nown is None else nown,
                        np.full(nh, -1, np.int64) if fpos is None else fpos, np.zeros(nh, np.int64),
                        np.zeros(nh, np.int64) if mult is None else mult)

    def cost(self, q, allow_empty=1, transit=1):
        return R._cost(q, allow_empty, transit, -1, 1, self.startm, self.goalm, self.tz,
                        self.tb.nbr, self.ttype, self.towner, self.emask, self.netid, self.netm,
                        self.d, self.dq)

    def moves(self, q, hand, tokens, placed_any):
        h = np.full((2, max(1, len(hand))), -1, np.int64)
        h[q, : len(hand)] = hand
        # at most one placement and one displacement per hex and hand pair
        mk, mh, mt, mr = (np.zeros(2 * BOARD.size * 6 * max(1, len(hand)), np.int64) for _ in range(4))
        pt, pr = np.zeros(len(hand) * 6, np.int64), np.zeros(len(hand) * 6, np.int64)
        # what the position keeps move by move: need, nown and the frontier
        nh, nbr = BOARD.size, self.tb.nbr
        need, nown, fpos = (np.zeros(nh, np.int64), np.zeros((2, nh), np.int64),
                            np.full(nh, -1, np.int64))
        for x in np.flatnonzero(self.ttype >= 0):
            BT._set_need(int(x), nbr, self.emask, need)
            BT._set_owner(int(x), -1, int(self.towner[x]), nbr, nown)
            fpos[[n for n in nbr[x] if n >= 0 and self.ttype[n] < 0]] = 0
        n = BT._gen_moves(self.br, self.board(need, nown, fpos), q, np.array(tokens, np.int64),
                          np.array(placed_any, np.int64), h, BT.Moves(pt, pr, mk, mh, mt, mr))
        return {(int(mk[i]), int(mh[i]), int(mt[i]), int(mr[i])) for i in range(n)}


# ---- board, start and goal ---------------------------------------------------------------------
def test_territory_start_and_goal_tables():
    """Zones are columns a-c / d-f / g-i; A starts on a1 / a9 and B on i1 / i9; the default goal
    is the whole far column (9 hexes), the alternative the opponent's two corners."""
    zones = [BT.zone_of(h) for h in range(BOARD.size)]
    assert zones.count(0) == 28 and zones.count(1) == 29 and zones.count(2) == 28
    tz, startm, goalm, firstc, corner_any = BT.battle_tables(rules())
    assert [BOARD.names[h] for h in firstc[A]] == ["a1", "a9"]
    assert [BOARD.names[h] for h in firstc[B]] == ["i1", "i9"]
    assert sorted(BOARD.names[h] for h in np.flatnonzero(goalm[A])) == [f"i{k}" for k in range(1, 10)]
    assert sorted(BOARD.names[h] for h in np.flatnonzero(startm[A])) == ["a1", "a9"]
    assert corner_any.sum() == 4
    _, startm, goalm, _, _ = BT.battle_tables(rules(battle_goal="corners", battle_start="edge"))
    assert sorted(BOARD.names[h] for h in np.flatnonzero(goalm[B])) == ["a1", "a9"]
    assert startm[B].sum() == 9
    # the transit table: contested everywhere, own territory by default, own corners always
    tz, *_ = BT.battle_tables(rules(battle_transit_home="forbidden"))
    assert tz[A, H("e5")] and tz[A, H("a1")] and not tz[A, H("b3")] and not tz[A, H("h3")]


# ---- the transit rule ---------------------------------------------------------------------------
@pytest.mark.parametrize("b_hex, home, valid", [
    ("g1", "allowed", False),   # B tile in B's territory: never usable by A
    ("e1", "allowed", True),    # B tile in the contested zone: usable
    ("c1", "allowed", True),    # B tile in A's own territory: usable by default
    ("c1", "forbidden", False),  # ... not when the valid list is read as exhaustive
    ("a1", "forbidden", True),  # B tile on A's own starting corner: always usable
])
def test_transit_rule_per_tile(b_hex, home, valid):
    """A row of Star-6 across the top, all A's except one B tile:

        a1 b1 c1 d1 e1 f1 g1 h1 i1      (one of them is B's)
        A  A  A  A  A  A  A  A  A
    The line joins a1 to i1 whatever the owners; the transit rule decides whether it counts.
    """
    owners = {n: (B if n == b_hex else A) for n in TOP}
    pos = position(owners, rules(battle_transit_home=home))
    assert pos.joined(A, transit=False)
    assert pos.joined(A) == valid
    k = KBoard(pos)
    assert (k.cost(A, 0, 1) == 0) == valid
    assert k.cost(A, 0, 0) == 0


def test_b_path_mirrors_a():
    """B's row from i1 to a1 through an A tile in A's territory (b1) is transit-invalid;
    through an A tile in the contested zone (d1) it counts."""
    assert not position({n: (A if n == "b1" else B) for n in TOP}).joined(B)
    assert position({n: (A if n == "d1" else B) for n in TOP}).joined(B)


def test_goal_edge_versus_corners():
    """A's Star-6 row a1 .. h1, then h2 .. i2 (i2: an edge hex, not a corner):
    joined under battle_goal = 'edge', not under 'corners'."""
    assert H("i2") in BOARD.nbr[H("h2")].tolist()
    owners = {n: A for n in TOP[:8]} | {"h2": A, "i2": A}
    pos = position(owners)
    assert pos.joined(A) and KBoard(pos).cost(A, 0) == 0
    pos = position(owners, rules(battle_goal="corners"))
    assert not pos.joined(A) and KBoard(pos).cost(A) == 1  # i1 still to fill


def test_simultaneous_completion_hands_win_to_valid_opponent():
    """A places the last tile (e1) of a row that joins both sides. Every other tile of the row is
    B's, so the line is a valid path for B (own tiles + contested e1) but not for A (B tiles in
    B's territory): the mover's path does not count and B wins.

        a1 b1 c1 d1 e1 f1 g1 h1 i1
        B  B  B  B  A* B  B  B  B
    """
    owners = {n: B for n in TOP}
    owners["e1"] = A
    pos = position(owners)
    winner, reason, tblock = pos.judge(A)
    assert (winner, reason) == (B, "opponent_path") and tblock[A]
    # all A's: the mover's own valid path wins first
    pos = position({n: A for n in TOP})
    assert pos.judge(A)[:2] == (A, "path")


# ---- displacement -------------------------------------------------------------------------------
def _disp(pos, seat, name, t=S6):
    return pos.why_illegal(seat, BT.K_DISPLACE, H(name), t, 0)


def test_displacement_conditions():
    """A's Star-6 on c1 next to B's Star-6 on d1 and e1 (e1 also touches B's f1):

        a1 b1 c1 d1 e1 f1
        A  A  A  B  B  B
    """
    owners = {"a1": A, "b1": A, "c1": A, "d1": B, "e1": B, "f1": B}
    pos = position(owners)
    assert _disp(pos, A, "d1") is None                       # Star-6 takes d1
    assert _disp(pos, A, "d1", BK) is None                   # so does a Block
    assert "Block and Star-6" in _disp(pos, A, "d1", ST)     # a Straight cannot
    assert "not adjacent" in _disp(pos, A, "e1")             # e1 touches no A tile
    assert "not an opponent" in _disp(pos, A, "b1")          # own tile
    pos.tokens[A] = 0
    assert "token" in _disp(pos, A, "d1")
    pos = position({"a1": B, "b1": A})
    assert "corner" in _disp(pos, A, "a1")                   # never a starting corner
    # orphan: a Block on d1 would cut e1 .. f1? no: e1 keeps f1. Make e1 depend on d1 only:
    pos = position({"a1": A, "b1": A, "c1": A, "d1": B, "e1": B})
    assert "orphan" in _disp(pos, A, "d1", BK)               # e1 would hang with no line
    assert _disp(pos, A, "d1", S6) is None                   # a Star-6 keeps e1's link
    pos_off = position({"a1": A, "b1": A, "c1": A, "d1": B, "e1": B}, rules(battle_orphan="off"))
    assert _disp(pos_off, A, "d1", BK) is None


def test_displacement_moves_match_kernel_and_capture():
    """Kernel move generation equals the position's on the scenario above, and a displacement
    moves the target to the mover's capture pile and spends a token."""
    owners = {"a1": A, "b1": A, "c1": A, "d1": B, "e1": B, "f1": B}
    pos = position(owners)
    hand = [S6, BK, ST]
    want = set(pos.legal_moves(A, hand))
    got = KBoard(pos).moves(A, hand, [3, 3], [1, 1])
    assert got == want
    assert (BT.K_DISPLACE, H("d1"), BK, 0) in got and (BT.K_DISPLACE, H("d1"), S6, 0) in got
    assert KBoard(pos).moves(A, hand, [0, 3], [1, 1]) == {m for m in want if m[0] == BT.K_PLACE}
    pos.play(A, BT.K_DISPLACE, H("d1"), BK, 0)
    assert pos.tiles[H("d1")] == (A, BK, 0) and pos.captured[A] == [S6]
    assert pos.tokens[A] == 2 and pos.captures[A] == 1


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["line", "off"]), st.booleans())
def test_kernel_moves_equal_position_moves_along_games(index, orphan, block_connected):
    """Replay a random game; before every move the kernel's legal move set equals the pure
    position's (placements and displacements, every hand)."""
    r = rules(battle_orphan=orphan, block_placement="connected" if block_connected else "adjacent")
    trace = GAME.play_traced(r, seats_for(GAME, r, "random"), index, 77)
    hs = r["hand_size"]
    bags = [list(b) for b in trace.data["bags"]]
    hands = [[bags[q].pop() for _ in range(hs)] for q in range(2)]
    for i, (pos, mv) in enumerate(BV.replay(trace)):
        if mv is not None and mv["kind"] != "pass":
            q = BT.SEATS.index(mv["seat"])
            hands[q].remove(TYPE_BY_NAME[mv["tile"]])
            if bags[q]:
                hands[q].append(bags[q].pop())
        if i >= len(trace.moves):
            break
        if i % 3:
            continue
        q = BT.SEATS.index(trace.moves[i]["seat"])
        k = KBoard(pos)
        assert k.moves(q, hands[q], pos.tokens, [int(x) for x in pos.placed_any]) == \
            set(pos.legal_moves(q, hands[q])), f"move {i}"


# ---- stalemate score ----------------------------------------------------------------------------
def test_card_stalemate_example_56():
    """Card: "Path = 12 tiles + 4 captures (8 pts) + one 2-dot hex. Score: 12 + 8 + (12 x 3) = 56".
    A's chain: Star-6 on a1 .. i1 (9 tiles) then i2, i3, i4 down the right edge (12 tiles), one
    of them (e1) a 2-dot hex; A holds 4 captures."""
    assert BV.stalemate_score(12, 4, [2]) == 56
    dots = [0] * BOARD.size
    dots[H("e1")] = 2
    owners = {n: A for n in TOP + ["i2", "i3", "i4"]}
    pos = position(owners, dots=dots)
    pos.captures[A] = 4
    assert pos.stalemate_score(A) == (56, 12)
    k = KBoard(pos)
    mult = np.array([d + 1 if d >= 2 else 0 for d in dots], np.int64)
    nh = BOARD.size
    out = np.zeros(1, np.int64)
    sc = BT._chain_score(A, 4, k.br, k.board(mult=mult), np.zeros(2 * nh, np.int64), np.zeros(2 * nh, np.int64),
                         np.zeros(nh, np.int64), out)
    assert (sc, out[0]) == (56, 12)


def test_stalemate_chain_skips_transit_invalid_tiles():
    """Row a1 .. i1, all A's but g1 (B's, in B's territory):

        a1 b1 c1 d1 e1 f1 g1 h1 i1
        A  A  A  A  A  A  B  A  A
    A's chain a1 .. f1 stops at g1: L = 6 (h1, i1 beyond it do not count), score 6.
    B's chain from its corner i1 (A's tile, but B's own corner: usable) takes h1 (A's tile in
    B's own territory: usable by default), g1, f1, e1, d1 (contested) and stops at c1 (A's tile
    in A's territory): L = 6. With battle_transit_home = 'forbidden', B keeps only i1."""
    owners = {n: (B if n == "g1" else A) for n in TOP}
    pos = position(owners)
    assert pos.stalemate_score(A) == (6, 6)
    assert pos.stalemate_score(B) == (6, 6)
    pos = position(owners, rules(battle_transit_home="forbidden"))
    assert pos.stalemate_score(B) == (1, 1)


def _kernel_path_score(pos, captures=0):
    k = KBoard(pos)
    nh = BOARD.size
    mult = np.array([d + 1 if d >= 2 else 0 for d in pos.dots], np.int64)
    out = np.zeros(2, np.int64)
    sc = BT._path_score(A, captures, k.br, k.board(mult=mult), np.zeros(2 * nh, np.int64),
                        np.zeros(2 * nh + 1, np.int64), np.zeros(2 * nh + 1, np.int64), np.zeros(nh, np.int64),
                        out)
    return sc, out


@pytest.mark.parametrize("extra, chain, path", [
    ([], 12, 12),  # the card's example: one line, chain and path alike
    (["e2"], 13, 12),  # a spur below e1: in the chain, not on any path to the far end
    (["e2", "e3"], 14, 12),
    (["b2", "e2", "e3"], 15, 13),  # b2 can be threaded between a1 and b1; the spur cannot
])
def test_stalemate_length_chain_or_path(extra, chain, path):
    """The card's 'Longest transit-valid path toward goal (per tile) 1 pt each' read as the
    whole chain (default) or as one path. Star-6 tiles of A on the top row a1 .. i1, down the
    right edge i2 .. i4, plus spurs:

        a1 b1 c1 d1 e1 f1 g1 h1 i1
           b2       e2          i2
                    e3          i3
                                i4
    """
    owners = {n: A for n in TOP + ["i2", "i3", "i4"] + extra}
    assert position(owners).stalemate_score(A) == (chain, chain)
    pos = position(owners, rules(battle_stalemate_length="path"))
    assert pos.stalemate_score(A) == (path, path)
    sc, out = _kernel_path_score(pos)
    assert (sc, out[0], out[1]) == (path, path, 0)


def test_stalemate_path_card_example_56():
    dots = [0] * BOARD.size
    dots[H("e1")] = 2
    pos = position({n: A for n in TOP + ["i2", "i3", "i4"]}, rules(battle_stalemate_length="path"), dots=dots)
    pos.captures[A] = 4
    assert pos.stalemate_score(A) == (56, 12)
    sc, out = _kernel_path_score(pos, captures=4)
    assert (sc, out[0]) == (56, 12)


@pytest.mark.parametrize("bots", ["random", "greedy"])
def test_stalemate_path_reading_in_games(bots):
    """The bots do not read the stalemate score's L, so both readings play the same games; the
    path's score is never above the chain's; traces verify against the exhaustive Python search."""
    rc, rp = rules(), rules(battle_stalemate_length="path")
    a = GAME.play_chunk(rc, seats_for(GAME, rc, bots), 0, 300, 3)
    b = GAME.play_chunk(rp, seats_for(GAME, rp, bots), 0, 300, 3)
    assert (a["turns"] == b["turns"]).all()
    st = a["end_reason"] == GAME.end_reasons.index("stalemate_score")
    assert st.any()
    for s in "AB":
        assert (b[f"score_{s}"][st] <= a[f"score_{s}"][st]).all()
    assert (b["winner"] != a["winner"]).any()  # the reading decides some stalemates
    for i in range(4):
        GAME.verify_trace(GAME.play_traced(rp, seats_for(GAME, rp, bots), int(np.flatnonzero(st)[i]), 3))


# ---- whole games --------------------------------------------------------------------------------
@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
@pytest.mark.parametrize("bots", ["random", ("greedy", "random"), "greedy"], ids=["rr", "gr", "gg"])
def test_check_game_on_battle_variants(path, bots):
    check_game(GAME, load_variant(path), bots, n=20, traced=3)


def test_variants_change_results():
    """Every alternative reading shipped as a variant changes the outcome table."""
    base = None
    for p in VARIANTS:
        r = GAME.resolve_rules(load_variant(p), str(p))
        cols = GAME.play_chunk(r, seats_for(GAME, r, ["greedy", "random"]), 0, 60, 8)
        key = (tuple(cols["winner"]), tuple(cols["turns"]))
        if p.stem == "battle":
            base = key
        else:
            assert base is None or key != base, p.stem
    assert base is not None


def test_greedy_beats_random_and_displaces():
    """Greedy wins > 90% against random with seats swapped (measured 98%) and spends tokens."""
    r = rules()
    n = 150
    a = GAME.play_chunk(r, seats_for(GAME, r, ["greedy", "random"]), 0, n, 2024)
    b = GAME.play_chunk(r, seats_for(GAME, r, ["random", "greedy"]), 0, n, 2024)
    wins = (a["winner"] == 0).sum() + (b["winner"] == 1).sum()
    assert wins / (2 * n) > 0.9
    used = a["hexflow_battle_displacements_A"].sum() + b["hexflow_battle_displacements_B"].sum()
    assert used > 0.1 * n
    # displacing pays: a greedy that (almost) never spends tokens loses to the default one
    # (measured 26% over 400 games); it still displaces to win at once or to stop a loss
    g = GAME.bot("greedy", "t")
    stingy = SeatBot(g, {p.name: p.default for p in g.params} | {"token_cost": 20.0})
    default = seats_for(GAME, r, "greedy")[0]
    c = GAME.play_chunk(r, [stingy, default], 0, 150, 5)
    d = GAME.play_chunk(r, [default, stingy], 0, 150, 5)
    assert ((c["winner"] == 0).sum() + (d["winner"] == 1).sum()) / 300 < 0.4
    assert c["hexflow_battle_displacements_A"].mean() < c["hexflow_battle_displacements_B"].mean()


def test_rule_switches_show_in_games():
    def run(bots="random", n=150, **kw):
        r = rules(**kw)
        return GAME.play_chunk(r, seats_for(GAME, r, bots), 0, n, 31)

    none = run(battle_tokens=0)
    assert (none["hexflow_battle_displacements_A"] + none["hexflow_battle_displacements_B"] == 0).all()
    base = run()
    assert (base["hexflow_battle_displacements_A"] <= 3).all()
    assert base["hexflow_battle_displacements_A"].sum() > 0
    assert (run(first_player="B")["first_seat"] == 1).all()
    reasons = {GAME.end_reasons[i] for i in base["end_reason"]}
    assert "stalemate_score" in reasons
    st_rows = base["end_reason"] == GAME.end_reasons.index("stalemate_score")
    sa, sb, w = base["score_A"][st_rows], base["score_B"][st_rows], base["winner"][st_rows]
    assert ((sa > sb) == (w == 0)).all() and ((sa == sb) == (w == -1)).all()
    greedy = run(bots="greedy", n=60)
    assert greedy["hexflow_battle_transit_blocked_A"].dtype == np.bool_


def test_draw_and_report(tmp_path):
    import pandas as pd

    r = rules()
    seats = seats_for(GAME, r, ["greedy", "random"])
    games = GAME.play_chunk(r, seats, 0, 60, 1)
    i = int(np.flatnonzero(games["hexflow_battle_displacements_A"] > 0)[0])
    trace = GAME.play_traced(r, seats, i, 1)
    assert any(m["kind"] == "displace" for m in trace.moves)
    GAME.draw(trace, str(tmp_path / "end.png"))
    GAME.draw(trace, str(tmp_path / "all.png"), every_move=True)
    assert (tmp_path / "end.png").stat().st_size > 10_000
    assert (tmp_path / "all.png").stat().st_size > 10_000
    by = {row["metric"]: row for row in GAME.report_metrics(pd.DataFrame(games), r)}
    assert by["games with a displacement"]["n"] == 60
    assert "displacements used per game, A" in by and "capture points per game, B" in by
    assert "transit-blocked path (joined line the transit rule refuses), A" in by
    ends = [k for k in by if k.startswith("end: ")]
    assert sum(by[k]["successes"] for k in ends) == 60
    # the runner's tables hold end reasons as category names: same rows
    named = pd.DataFrame(games)
    named["end_reason"] = pd.Categorical.from_codes(games["end_reason"], list(GAME.end_reasons))
    by2 = {row["metric"]: row for row in GAME.report_metrics(named, r)}
    assert all(by2[k]["successes"] == by[k]["successes"] for k in ends)


def test_warnings_docs_and_networks():
    w = GAME.warnings(rules())
    assert any("battle_transit_home" in x for x in w)
    doc = (ROOT / "docs" / "rules" / "hexflow.md").read_text()
    assert "## Battle mode" in doc
    for p in GAME.params:
        if p.name.startswith("battle_"):
            assert f"`{p.name}`" in doc, p.name
    assert "`stalemate_score`" in doc
    assert networks(S6, 0) == [63]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["edge", "corners"]),
       st.sampled_from(["corners", "edge"]), st.sampled_from(["allowed", "forbidden"]),
       st.integers(0, 4), st.sampled_from(["line", "off"]),
       st.sampled_from(["random", "greedy"]), st.sampled_from(["random", "greedy"]),
       st.sampled_from(["default", "random", "none"]), st.integers(1, 4))
def test_traced_games_verify_across_rules(index, goal, start, home, tokens, orphan, bot_a, bot_b,
                                          dots, hand):
    """Any rule combination and pairing: the traced game equals its chunk row and every move,
    capture, pass and score re-checks with the pure-Python position."""
    r = rules(battle_goal=goal, battle_start=start, battle_transit_home=home,
              battle_tokens=tokens, battle_orphan=orphan, dots=dots, hand_size=hand)
    seats = seats_for(GAME, r, [bot_a, bot_b])
    row = GAME.play_chunk(r, seats, index, 1, 3)
    trace = GAME.play_traced(r, seats, index, 3)
    for k, v in row.items():
        assert trace.row[k] == v[0], k
    GAME.verify_trace(trace)
    assert row["hexflow_battle_displacements_A"][0] <= tokens


# ---- incremental kernel structures vs recomputation ----------------------------------------------
def _components(k: KBoard, view: int) -> dict[int, int]:
    """node -> component label from scratch: placed line nodes joined across matching sides,
    using only tiles the view may use (view q: seat q under the transit rule; 2: any tile)."""
    def usable(h):
        return view == 2 or k.towner[h] == view or k.tz[view, h]

    label: dict[int, int] = {}
    for h in np.flatnonzero(k.ttype >= 0):
        for j in range(2):
            u = int(h) * 2 + j
            if k.netm[u] == 0 or u in label or not usable(int(h)):
                continue
            label[u] = u
            todo = [u]
            while todo:
                x = todo.pop()
                xh = x >> 1
                for s in range(6):
                    n, o = int(k.tb.nbr[xh, s]), (s + 3) % 6
                    if (k.netm[x] >> s) & 1 and n >= 0 and k.ttype[n] >= 0 and \
                            (k.emask[n] >> o) & 1 and usable(n):
                        v = n * 2 + int(k.netid[n * 6 + o])
                        if v not in label:
                            label[v] = u
                            todo.append(v)
    return label


def _find(par, v, x):
    while par[v, x] != x:
        x = par[v, x]
    return x


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["random", "greedy"]),
       st.sampled_from(["allowed", "forbidden"]), st.sampled_from(["edge", "corners"]))
def test_union_find_and_need_equal_recomputation(index, bot, home, start):
    """Along a game with many displacements, the incremental structures, updated move by move
    as battle_engine.apply does, equal a from-scratch computation: need[h] (sides where a
    neighbour's line ends), the union-find partition of line nodes in all three views with each
    root's start / goal flags, nown[q, h] (seat q's tiles next to h), and _uf_joins' bits
    against the pure position's joined()."""
    r = rules(battle_tokens=22, battle_orphan="off", battle_transit_home=home, battle_start=start)
    trace = GAME.play_traced(r, seats_for(GAME, r, bot), index, 5)
    k = KBoard(BV.BattlePosition(r))
    nh, nn = BOARD.size, BOARD.size * 2
    need = np.zeros(nh, np.int64)
    nown = np.zeros((2, nh), np.int64)
    par, flg = np.zeros((3, nn), np.int64), np.zeros((3, nn), np.int64)
    bits = [int(k.startm[0, h] | k.goalm[0, h] << 1 | k.startm[1, h] << 2 | k.goalm[1, h] << 3)
            for h in range(nh)]
    for pos, mv in BV.replay(trace):
        if mv is None or mv["kind"] == "pass":
            continue
        h, t = H(mv["hex"]), TYPE_BY_NAME[mv["tile"]]
        BT._set_owner(h, k.towner[h], BT.SEATS.index(mv["seat"]), k.tb.nbr, nown)
        BT._put(BT.SEATS.index(mv["seat"]), h, t, mv["rotation"], k.tb.net_mask, k.tb.emask,
                k.ttype, k.trot, k.towner, k.emask, k.netid, k.netm)
        BT._set_need(h, k.tb.nbr, k.emask, need)
        for x in range(nh):
            for q in range(2):
                assert nown[q, x] == sum(1 for n in k.tb.nbr[x] if n >= 0 and k.towner[n] == q)
        args = (k.tz, k.tb.nbr, k.ttype, k.towner, k.emask, k.netid, k.netm)
        if mv["kind"] == "displace":
            BT._uf_rebuild(par, flg, k.startm, k.goalm, *args)
        else:
            BT._uf_init(h, par, flg, k.startm, k.goalm)
            BT._uf_link(h, nh, par, flg, *args)
        for x in range(nh):
            want = 0
            for s in range(6):
                n = int(k.tb.nbr[x, s])
                if n >= 0 and (k.emask[n] >> ((s + 3) % 6)) & 1:
                    want |= 1 << s
            assert need[x] == want, (mv, x)
        for v in range(3):
            label = _components(k, v)
            root_of = {u: _find(par, v, u) for u in label}
            flags: dict[int, int] = {}
            for u, lab in label.items():
                flags[lab] = flags.get(lab, 0) | bits[u >> 1]
            for u, lab in label.items():
                assert flg[v, root_of[u]] == flags[lab], (mv, v, u)
                for u2, lab2 in label.items():
                    assert (root_of[u] == root_of[u2]) == (lab == lab2), (mv, v, u, u2)
        js = BT._uf_joins(h, par, flg, k.tz, k.ttype, k.towner, k.netm)
        for q in range(2):
            assert bool(js >> q & 1) == pos.joined(q), (mv, q)
            assert not js >> (2 + q) & 1 or pos.joined(q, transit=False), (mv, q)


@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_recomputation_games_displace(bot):
    """The games the test above draws from do displace tiles (so it checks the union-find
    rebuild, not only its links): most of 20 games with 22 tokens each use displacement."""
    r = rules(battle_tokens=22, battle_orphan="off")
    cols = GAME.play_chunk(r, seats_for(GAME, r, bot), 0, 20, 5)
    used = cols["hexflow_battle_displacements_A"] + cols["hexflow_battle_displacements_B"]
    assert (used > 0).sum() >= 10


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["allowed", "forbidden"]),
       st.sampled_from(["edge", "corners"]), st.sampled_from(["corners", "edge"]))
def test_displaced_cost_equals_a_search_on_the_changed_board(index, home, goal, start):
    """The greedy's displacement costs from the turn's maps (_displaced_cost) equal a full
    search after actually putting the Star-6 or Block on the target, for both seats, at every
    position of a game and every displacement the mover could make there."""
    r = rules(battle_tokens=22, battle_orphan="off", battle_transit_home=home, battle_goal=goal,
              battle_start=start)
    trace = GAME.play_traced(r, seats_for(GAME, r, "random"), index, 9)
    nh = BOARD.size
    checked = 0
    for i, (pos, _mv) in enumerate(BV.replay(trace)):
        if i % 2 or i >= len(trace.moves):
            continue
        p = BT.SEATS.index(trace.moves[i]["seat"])
        k = KBoard(pos)
        maps, arr = np.zeros((5, nh * 2), np.int64), np.zeros((4, 6), np.int64)
        avoid = np.full((2, nh), -1, np.int64)
        D = []
        for j, q in enumerate((p, 1 - p)):
            for m, (src, dst) in enumerate(((k.startm, k.goalm), (k.goalm, k.startm))):
                R._cost(q, 1, 1, -1, 0, src, dst, k.tz, k.tb.nbr, k.ttype, k.towner, k.emask,
                         k.netid, k.netm, maps[2 * j + m], k.dq)
            D.append(k.cost(q))
        lnk = np.stack([empty_links(k.tb.nbr)] * 2)  # the seats' link tables (see _relink)
        for x in np.flatnonzero(k.ttype >= 0):
            BT._relink(int(x), k.tz, k.tb.nbr, k.ttype, k.towner, k.emask, k.netid, k.netm, lnk)
        for kind, h, t, rot in k.moves(p, [S6, BK], [22, 22], [1, 1]):
            if kind != BT.K_DISPLACE:
                continue
            for j in range(4):
                _arrive(h, maps[j], k.tb.nbr, k.ttype, k.emask, k.netid, arr[j])
            sc = BB.Scratch(maps, k.dq, arr, np.zeros((2, nh), np.int64), np.zeros(nh + 2, np.int64), avoid,
                            np.zeros((2, nh * 2), np.int64), np.zeros(nh * 2, np.int64), np.zeros((2, 2), np.int64),
                            np.zeros(nh, np.int64), np.zeros(64, np.int64))
            got = [displaced_cost(q, j, h, t == S6, D[j], k.br, k.board(), lnk, sc)
                   for j, q in enumerate((p, 1 - p))]
            old = (int(k.ttype[h]), int(k.trot[h]), int(k.towner[h]))
            BT._put(p, h, t, rot, k.tb.net_mask, k.tb.emask, k.ttype, k.trot, k.towner, k.emask,
                    k.netid, k.netm)
            want = [k.cost(q) for q in (p, 1 - p)]
            BT._put(old[2], h, old[0], old[1], k.tb.net_mask, k.tb.emask, k.ttype, k.trot,
                    k.towner, k.emask, k.netid, k.netm)
            assert got == want, (i, BOARD.names[h], t)
            checked += 1
    # a game with no displaced-cost case checks nothing: hypothesis draws another (not a failure)
    assume(checked > 0 or len(trace.moves) < 10)
