"""HEXFLOW Tri-Board (modes "tri" and "tri2p"): board geometry, the card's tile list and dot
bonuses, simultaneous-connection scenarios (tiebreak levels, shared victory) checked in both the
compiled kernel and the pure-Python TriPosition, bots, and the shared check suite on every
shipped tri variant."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.errors import VariantError
from sim.games.hexflow import GAME
from sim.games.hexflow import layout as L
from sim.games.hexflow import tri as T
from sim.games.hexflow import tri_bots as B
from sim.games.hexflow import tri_engine as E
from sim.games.hexflow.position import TriPosition
from sim.games.hexflow.tiles import BLOCK, TILE_TYPES, TYPE_BY_CODE
from sim.games.hexflow.tri import TriTables, _py_resolve
from sim.games.hexflow.triboard import TRI_DISTRIBUTION, WILDCARD, bonus, tri_board, tri_tile_set
from tests.game_checks import check_game, seats_for

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = sorted((ROOT / "variants" / "hexflow").glob("tri*.toml"))


def load_variant(path: Path) -> dict:
    data = tomllib.loads(path.read_text())
    assert data["game"] == "hexflow" and data["description"]
    rules = load_variant(path.parent / data["extends"]) if "extends" in data else {}
    rules.update(data.get("rules", {}))
    return rules


# ---- board ------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [7, 8, 13, 14, 15])
def test_triangle_sizes_centres_and_corners(n):
    tb = tri_board(n)
    assert tb.size == n * (n + 1) // 2
    assert len(tb.centres) == (1 if (n - 1) % 3 == 0 else 3)
    for a in tb.centres:  # the centre cluster is mutually adjacent
        for b in tb.centres:
            assert a == b or tb.board.dist[a, b] == 1
    for c in tb.corner.values():  # a corner hex has two neighbours: two Blocks seal it
        assert (tb.board.nbr[c] >= 0).sum() == 2
    # every corner is equally far from the centre cluster (as a set)
    d = {s: sorted(int(tb.board.dist[c, x]) for x in tb.centres) for s, c in tb.corner.items()}
    assert d["I"] == d["II"] == d["III"]


def test_card_board_contradiction_side14_default_and_warned():
    rules = GAME.resolve_rules({"mode": "tri"}, "t")
    assert rules["board_side"] == 14 and tri_board(14).size == 105 and tri_board(13).size == 91
    assert len(tri_board(14).centres) == 3 and len(tri_board(13).centres) == 1
    w = " ".join(GAME.warnings(rules))
    assert "91 hexes" in w and "105" in w and "17" in w


def test_default_dots_symmetric_and_off_corners_and_centres():
    for n in (13, 14):
        tb = tri_board(n)
        dots = tb.default_dots()
        for perm in tb.symmetries():
            np.testing.assert_array_equal(dots[perm], dots)
        for h in list(tb.corner.values()) + tb.centres:
            assert dots[h] == 0
        assert set(dots[dots > 0]) == {2, 3, 4, 5}


# ---- tiles and scoring -----------------------------------------------------------------------

def test_tile_distribution_as_listed_sums_to_17():
    assert sum(q for _, q in TRI_DISTRIBUTION) == 17
    bag = tri_tile_set()
    assert len(bag) == 17 and (bag == WILDCARD).sum() == 1 and (bag == BLOCK).sum() == 2
    assert (bag == TYPE_BY_CODE["Tb"]).sum() == 2 and (bag == TYPE_BY_CODE["S6"]).sum() == 1
    rules = GAME.resolve_rules({"mode": "tri2p"}, "t")
    assert len(TriTables(rules).tileset) == 22


def test_flat_dot_bonus_table():
    assert [bonus(d) for d in (0, 2, 3, 4, 5)] == [0, 3, 4, 5, 6]


# ---- scenarios on a side-8 board (centres c3, c4, d3; corners I h1, II a1, III a8) ------------

def _empty_state(rules):
    """An empty Tri position (layout.Position) of these rules, its tables, and its rows by name
    (views: kernel._place writes them)."""
    kt = E.tables(rules)
    kpos = E._blank_position(kt)
    hx = kpos.hx
    rows = dict(ttype=L.H_TTYPE, trot=L.H_TROT, towner=L.H_TOWNER, emask=L.H_EMASK, adj=L.H_ADJ,
                need=L.H_NEED, front=L.H_FRONT, pos=L.H_FPOS)
    st_ = {k: hx[v] for k, v in rows.items()}
    st_.update(netid=kpos.netid, netm=kpos.nets[0], par=kpos.nets[1], tables=kt, position=kpos)
    return st_, kt, kpos


def _state(rules, tiles, dots=None):
    """Kernel state and TriPosition from [(seat, code+rotation, hex)] (placement rules not
    checked: the scenario is drawn, not played)."""
    tb = TriTables(rules)
    nh = tb.tb.size
    if dots is None:
        dots = np.zeros(nh, np.int64)
    st_, kt, kpos = _empty_state(rules)
    pos = TriPosition(rules, dots=list(dots))
    for seat, tile, hx in tiles:
        q, h, t, r = pos.seat(seat), pos.hex(hx), TYPE_BY_CODE[tile[:2]], int(tile[2:])
        E._place(kt, kpos, q, h, t, r)
        pos.place(q, h, t, r, check=False)
    return tb, st_, pos, np.asarray(dots, np.int64)


def _kernel_resolve(rules, tb, s, dots):
    """The engine's tiebreak (tri_engine._resolve) on the scenario's state: (each seat's reached
    centre hexes, the winners' mask, the tiebreak level)."""
    t = E.tables(rules)
    pos = E._blank_position(t)
    for row, key in ((L.H_TTYPE, "ttype"), (L.H_TROT, "trot"), (L.H_TOWNER, "towner"), (L.H_EMASK, "emask")):
        pos.hx[row][:] = s[key]
    pos.hx[E.H_DOTS][:] = dots
    pos.netid[:] = s["netid"]
    pos.nets[0][:] = s["netm"]
    pos.nets[1][:] = s["par"]
    ns = t.n_seats
    cmask = np.array([E._centre_mask(t.corners[q], t.centres, s["ttype"], s["netm"], s["par"])
                      for q in range(ns)], np.int64)
    wmask = sum(1 << q for q in range(ns) if cmask[q])
    win, level = E._resolve(t, pos, np.int64(wmask), cmask)
    return cmask, win, level


# II's Star-6 line a1-a2-b2-b3 and III's a8-a7-b6-b5 both end next to b4; c3 (a centre hex)
# holds a Straight whose line points at b4. I's Y-Left on b4 joins both to c3 at once:
#
#     a1 S6 II          (column a: a1..a8 top to bottom; column b half a hex lower)
#          b1 .
#     a2 S6      c1 .
#          b2 S6
#     a3 .       c2 .
#          b3 S6          d2 .
#     a4 .       c3 St1 *   <- centre hex (line TR-BL, towards b4)
#          b4 Yl3 <- I      d3 .  *
#     a5 .       c4 .   *
#          b5 S6
#     a6 .       c5 .
#          b6 S6
#     a7 S6
#          b7 .
#     a8 S6 III
SAME_CENTRE = [("II", "S60", "a1"), ("II", "S60", "a2"), ("II", "S60", "b2"), ("II", "S60", "b3"),
               ("III", "S60", "a8"), ("III", "S60", "a7"), ("III", "S60", "b6"),
               ("III", "S60", "b5"), ("I", "St1", "c3"), ("I", "Yl3", "b4")]


def _check_same_centre(tiles, dots_at, want_winner, want_level):
    rules = GAME.resolve_rules({"mode": "tri", "board_side": 8}, "t")
    tbd = tri_board(8)
    dots = np.zeros(tbd.size, np.int64)
    for name, d in dots_at.items():
        dots[tbd.board.hex_id(name)] = d
    tb, s, pos, dots = _state(rules, tiles, dots)
    cmask, win, level = _kernel_resolve(rules, tb, s, dots)
    c3 = 1 << list(tbd.centres).index(tbd.board.hex_id("c3"))
    assert cmask.tolist() == [0, c3, c3]
    reached = {q: pos.centres_reached(q) for q in range(3)}
    assert reached[0] == set() and reached[1] == reached[2] == {tbd.board.hex_id("c3")}
    py_win, py_level = _py_resolve(pos, [1, 2], reached, [2, 1, 0], "shared")
    w = pos.seat(want_winner)
    assert win == 1 << w and py_win == {w}
    assert level == py_level == want_level


def test_same_centre_tied_points_and_dots_goes_to_turn_order():
    """Both paths: four Star-6 (20) + Y-Left (3) + Straight (2) = 25 points, no dots: III moved
    earlier in the turn order (III, II, I) and wins."""
    _check_same_centre(SAME_CENTRE, {}, "III", T.TB_ORDER)


def test_same_centre_points_decide():
    """III's b5 is a Straight (2) instead of a Star-6 (5): II 25 points beats III 22."""
    tiles = [x if x[2] != "b5" else ("III", "St0", "b5") for x in SAME_CENTRE]
    _check_same_centre(tiles, {}, "II", T.TB_POINTS)


def test_same_centre_dot_hexes_decide_after_tied_points():
    """Tied at 25 points; one dot hex on II's line (a2) and none on III's: II wins."""
    _check_same_centre(SAME_CENTRE, {"a2": 2}, "II", T.TB_DOTS)


def test_card_dot_example_10_plus_3_plus_5():
    """'Path through 2-dot + 4-dot hexes = 10 + 3 + 5 = 18 points': II's line crosses a2 (2 dots)
    and b2 (4 dots); kernel and position agree."""
    rules = GAME.resolve_rules({"mode": "tri", "board_side": 8}, "t")
    tbd = tri_board(8)
    dots = np.zeros(tbd.size, np.int64)
    dots[tbd.board.hex_id("a2")] = 2
    dots[tbd.board.hex_id("b2")] = 4
    tiles = [x for x in SAME_CENTRE if x[0] != "III"]
    tb, s, pos, dots = _state(rules, tiles, dots)
    mult = np.array([bonus(int(d)) for d in dots], np.int64)
    q = 1
    cm = E._centre_mask(tb.corners[q], tb.centres, s["ttype"], s["netm"], s["par"])
    v = E._path_value_of(s["tables"], s["position"], q, cm, mult)
    assert 10 + v == 18
    assert 10 + pos.path_value(q, [bonus(int(d)) for d in dots]) == 18


# II: a1-a2-a3 Star-6, a4 L-Curve (T-BR) pointing at b4; III: a8-a7-a6 Star-6, a5 L-Curve
# (TR-B) pointing at b4; c3 Straight TR-BL, c4 Straight TL-BR. An X-Cross on b4 (lines TL-BR
# and TR-BL, not joined) takes II to c4 and III to c3 in one placement:
#
#     a3 S6      c2 .
#          b3 .
#     a4 Lc0     c3 St1 *
#          b4 Xc1 <- I
#     a5 Lc1     c4 St2 *
#          b5 .
#     a6 S6
DIFFERENT_CENTRES = [("II", "S60", "a1"), ("II", "S60", "a2"), ("II", "S60", "a3"),
                     ("II", "Lc0", "a4"), ("III", "S60", "a8"), ("III", "S60", "a7"),
                     ("III", "S60", "a6"), ("III", "Lc1", "a5"), ("I", "St1", "c3"),
                     ("I", "St2", "c4"), ("I", "Xc1", "b4")]


@pytest.mark.parametrize("shared, want_win, want_level",
                         [("shared", 0b110, T.TB_NONE), ("tiebreak", 0b100, T.TB_ORDER)])
def test_different_centres_shared_or_tiebreak(shared, want_win, want_level):
    rules = GAME.resolve_rules({"mode": "tri", "board_side": 8, "shared_victory": shared}, "t")
    tb, s, pos, dots = _state(rules, DIFFERENT_CENTRES)
    cmask, win, level = _kernel_resolve(rules, tb, s, dots)
    assert cmask[1] and cmask[2] and not cmask[1] & cmask[2]  # different centre hexes
    reached = {q: pos.centres_reached(q) for q in range(3)}
    py_win, py_level = _py_resolve(pos, [1, 2], reached, [2, 1, 0], shared)
    assert win == want_win and sum(1 << q for q in py_win) == want_win
    assert level == py_level == want_level


def test_corner_reserved_wildcard_and_block_placement():
    """Before II's first tile only a1 is legal for II; nobody else may use II's corner; a Block
    needs only an adjacent tile; the Wildcard offers every type (Block only if allowed)."""
    rules = GAME.resolve_rules({"mode": "tri"}, "t")
    pos = TriPosition(rules)
    assert {m[0] for m in pos.legal_moves("II", ["straight"])} == {pos.hex("a1")}
    pos.place("III", "a14", "star6", 0)
    pos.place("II", "a1", "star6", 0)
    assert pos.legal(pos.seat("III"), pos.hex("a2"), BLOCK, 0)  # Blocks anywhere adjacent
    assert not pos.legal(pos.seat("III"), pos.hex("n1"), TYPE_BY_CODE["S6"], 0)  # I's corner
    moves = pos.legal_moves("I", ["wildcard"])
    assert {m[0] for m in moves} == {pos.hex("n1")}
    assert {m[2] for m in moves} == set(range(len(TILE_TYPES)))
    pos2 = TriPosition(GAME.resolve_rules({"mode": "tri", "wildcard_block": False}, "t"))
    assert BLOCK not in {m[2] for m in pos2.legal_moves("I", ["wildcard"])}


def test_tri2p_dead_corner_is_no_hex():
    rules = GAME.resolve_rules({"mode": "tri2p"}, "t")
    tb = TriTables(rules)
    dead = tb.tb.corner["I"]
    assert (tb.nbr[dead] == -1).all() and not (tb.nbr == dead).any()
    assert GAME.seat_names(rules) == ["II", "III"] and tb.order.tolist() == [1, 0]
    pos = TriPosition(rules)
    m1 = pos.hex("m1")  # next to the dead corner n1
    assert all(pos.nbr(m1, s) != dead for s in range(6))
    assert dead in pos.board.nbr[m1].tolist()
    pos.place("III", "a14", "star6", 0)
    assert all(m[0] != dead for m in pos.legal_moves("III", ["star6", "block", "wildcard"]))


def test_draw_list_standing():
    """Closest to a centre hex first, then the tile points of the corner's lines, then dot hexes."""
    rules = GAME.resolve_rules({"mode": "tri", "board_side": 8}, "t")
    tb, s, pos, dots = _state(rules, [("II", "S60", "a1"), ("II", "S60", "a2"),
                                       ("III", "St0", "a8"), ("III", "St0", "a7")])
    assert pos.standing("II")[1] == 10 and pos.standing("III")[1] == 4
    for q in (1, 2):
        k = E._standing(q, tb.corners[q], tb.centres, tb.dist, tb.points, dots, s["ttype"],
                        s["towner"], s["netm"], s["par"], True)
        assert tuple(int(x) for x in k) == pos.standing(q)
    assert pos.standing("I")[0] >= 1 << 20


@pytest.mark.parametrize("reading", ["reaches", "no_path"])
def test_draw_list_block_on_own_corner(reading):
    """corner_block: a Block alone on II's corner is its corner tile (the corner's distance, the
    Block's point) or no path at all (as a bare corner); kernel and TriPosition agree."""
    rules = GAME.resolve_rules({"mode": "tri", "board_side": 8, "corner_block": reading}, "t")
    tb, s, pos, dots = _state(rules, [("II", "Bk0", "a1"), ("III", "St0", "a8")])
    q = pos.seat("II")
    k = E._standing(q, tb.corners[q], tb.centres, tb.dist, tb.points, dots, s["ttype"],
                    s["towner"], s["netm"], s["par"], reading == "reaches")
    assert tuple(int(x) for x in k) == pos.standing(q)
    corner = min(int(tb.dist[tb.corners[q], c]) for c in tb.centres)
    assert pos.standing(q) == ((corner, 1, 0) if reading == "reaches" else (1 << 20, 0, 0))


def test_validation_rejects_dot_list_in_tri():
    with pytest.raises(VariantError, match="Race-mode only"):
        GAME.resolve_rules({"mode": "tri", "dots": "list", "dot_list": [["a3", 2]]}, "t")


# ---- games: shared check suite, variants, properties, bots ------------------------------------

@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_check_game_on_tri_variants(path):
    rules = load_variant(path)
    n = 3 if rules["mode"] == "tri" else 2
    for bots in ("random", "greedy", (["greedy"] + ["random"] * 2)[:n], (["random"] * 2 + ["greedy"])[-n:]):
        check_game(GAME, rules, bots, n=16, traced=2)


def test_variants_change_results():
    seen = {}
    for p in VARIANTS:
        rules = GAME.resolve_rules(load_variant(p), str(p))
        seats = seats_for(GAME, rules, "random")
        c = GAME.play_chunk(rules, seats, 0, 60, 5)
        seen[p.stem] = c
    assert not np.array_equal(seen["tri"]["winner"], seen["tri_board13"]["winner"]) or \
        not np.array_equal(seen["tri"]["turns"], seen["tri_board13"]["turns"])


@settings(max_examples=8, deadline=None)
@given(mode=st.sampled_from(["tri", "tri2p"]), side=st.integers(7, 15),
       shared=st.sampled_from(["shared", "tiebreak"]), dots=st.sampled_from(["default", "none", "random"]),
       block=st.sampled_from(["adjacent", "connected"]), wild=st.booleans(),
       hand=st.integers(1, 4), bots=st.sampled_from(["random", "greedy"]), seed=st.integers(0, 10**6))
def test_traced_games_verify_across_parameter_space(mode, side, shared, dots, block, wild, hand,
                                                    bots, seed):
    rules = {"mode": mode, "board_side": side, "shared_victory": shared, "dots": dots,
             "block_placement": block, "hand_size": hand,
             "wildcard_block": wild or mode == "tri2p"}  # tri2p has no Wildcard: the key is refused
    check_game(GAME, rules, bots, n=6, run_seed=seed, traced=3)


def _wins(rules, bots, n=400):
    c = GAME.play_chunk(rules, seats_for(GAME, rules, bots), 0, n, 2024)
    return c


def test_greedy_beats_random_in_tri2p_over_90_percent():
    rules = GAME.resolve_rules({"mode": "tri2p"}, "t")
    for g in (0, 1):
        bots = ["random", "random"]
        bots[g] = "greedy"
        c = _wins(rules, bots)
        assert (c["winner"] == g).mean() > 0.9, (bots, (c["winner"] == g).mean())


def test_greedy_wins_clearly_more_than_its_share_in_tri():
    rules = GAME.resolve_rules({"mode": "tri"}, "t")
    for g in range(3):
        bots = ["random"] * 3
        bots[g] = "greedy"
        c = _wins(rules, bots)
        won = (c["winner"] == g) | ((c["hexflow_shared_mask"] >> g) & 1).astype(bool)
        assert won.mean() > 0.6, (bots, won.mean())


def test_report_metrics_rows():
    import pandas as pd

    rules = GAME.resolve_rules({"mode": "tri"}, "t")
    df = pd.DataFrame(_wins(rules, "random", 60))
    rows = GAME.report_metrics(df, rules)
    names = {r["metric"] for r in rows}
    for s in ("I", "II", "III"):
        assert f"corner {s} wins (shared wins included)" in names
    assert {"shared victory", "draw"} <= names
    for r in rows:
        if "successes" in r:
            assert 0 <= r["successes"] <= r["n"] == 60


def test_draw_png(tmp_path):
    rules = GAME.resolve_rules({"mode": "tri"}, "t")
    tr = GAME.play_traced(rules, seats_for(GAME, rules, "greedy"), 1, 3)
    GAME.draw(tr, str(tmp_path / "a.png"))
    rules = GAME.resolve_rules({"mode": "tri2p"}, "t")  # short games: a small grid
    tr = GAME.play_traced(rules, seats_for(GAME, rules, "random"), 1, 3)
    GAME.draw(tr, str(tmp_path / "b.png"), every_move=True)
    assert (tmp_path / "a.png").stat().st_size > 10000 and (tmp_path / "b.png").stat().st_size > 10000


def test_wildcard_declared_type_is_recorded_and_scored_as_declared():
    """Traced games where a Wildcard was played: the board holds the declared type, the hand
    lost the Wildcard (verify_trace checks conservation with the Wildcard counted)."""
    rules = GAME.resolve_rules({"mode": "tri"}, "t")
    seats = seats_for(GAME, rules, "greedy")
    c = GAME.play_chunk(rules, seats, 0, 40, 11)
    idx = np.flatnonzero(c["hexflow_wildcards_III"] > 0)
    assert len(idx) > 0
    tr = GAME.play_traced(rules, seats, int(idx[0]), 11)
    wild = [m for m in tr.moves if m.get("wildcard")]
    assert any(m["seat"] == "III" for m in wild)
    for m in wild:  # "W=<declared code><rotation> <hex>"
        assert m["move"].startswith("W=")
        assert TILE_TYPES[TYPE_BY_CODE[m["move"][2:4]]].name == m["tile"]
    GAME.verify_trace(tr)
    pos = TriPosition(rules, dots=tr.data["dots"])
    for m in tr.moves:
        if m["move"] != "pass":
            pos.place(m["seat"], m["hex"], m["tile"], m["rotation"], wildcard=m["wildcard"],
                      check=False)
    h = pos.hex(wild[0]["hex"])
    assert h in pos.wild and TILE_TYPES[pos.tiles[h][1]].name == wild[0]["tile"]


def test_simultaneous_connections_happen_in_play_and_verify():
    """On the 91-hex board (one centre hex) random play sometimes completes two paths with one
    tile; those games' tiebreak columns are re-derived by the Python replay."""
    rules = GAME.resolve_rules({"mode": "tri", "board_side": 13}, "t")
    seats = seats_for(GAME, rules, "random")
    c = GAME.play_chunk(rules, seats, 900, 900, 7)  # about 1 game in 300 has a tiebreak
    idx = np.flatnonzero(c["hexflow_tiebreak"] > 0) + 900
    assert len(idx) >= 2
    for i in idx[:3]:
        tr = GAME.play_traced(rules, seats, int(i), 7)
        GAME.verify_trace(tr)
        assert tr.row["hexflow_winners"] == 1 and tr.row["winner"] >= 0


@settings(max_examples=200, deadline=None)
@given(ns=st.integers(2, 3), p=st.integers(0, 2), cp=st.integers(1, 40),
       wo=st.lists(st.integers(0, 40), min_size=3, max_size=3),
       cut=st.lists(st.integers(0, 40), min_size=3, max_size=3),
       wq=st.lists(st.sampled_from([0.0, 0.375, 1.5, 2.5, 10.0]), min_size=3, max_size=3))
def test_greedy_score_bound_never_undercuts_the_score(ns, p, cp, wo, cut, wq):
    """The greedy skips a candidate when `_upper` (own cost cp, opponents at their cost avoiding
    the hex) is below the best score: any real score (opponents' costs at most wo) is <= it."""
    p %= ns
    wo_a = np.array(wo[:ns], np.int64)
    wq_a = np.array(wq[:ns], np.float64)
    ub = B._upper(p, cp, wo_a, wq_a, ns)
    sc = float(-min(cp, 30))  # the kernel's score before its (non-negative) penalties
    for q in range(ns):
        if q != p:
            sc += wq_a[q] * min(max(wo[q] - cut[q], 0), 30)
    assert sc <= ub
    assert B._upper(p, 0, wo_a, wq_a, ns) >= 1e18  # a win is never skipped


# ---- the greedy's link table and distance maps -------------------------------------------------

def _links_from_scratch(nbr, ttype, emask, netid, netm):
    """Every node's step across every side, worked out from the board alone (see `kernel._link`)."""
    nh = nbr.shape[0]
    want = np.full(nh * 12, -1, np.int64)
    for h in range(nh):
        for j in range(2):
            sides = 63 if ttype[h] < 0 and j == 0 else (netm[h * 2 + j] if ttype[h] >= 0 else 0)
            for s in range(6):
                n = int(nbr[h, s])
                if not (sides >> s) & 1 or n < 0:
                    continue
                if ttype[n] < 0:
                    want[(h * 2 + j) * 6 + s] = (n * 2) * 2 + 1
                elif (emask[n] >> ((s + 3) % 6)) & 1:
                    want[(h * 2 + j) * 6 + s] = (n * 2 + netid[n * 6 + (s + 3) % 6]) * 2
    return want


def _maps_by_dijkstra(srcs, nbr, ttype, emask, netid, netm):
    """Cheapest number of empty hexes to fill from the hexes srcs to every node (INF: none),
    by a plain Dijkstra over the board (independent of the kernel's link table and deque)."""
    import heapq

    nh = nbr.shape[0]
    d = [E.INF] * (2 * nh)
    heap = []
    for h in srcs:
        for j in ((0,) if ttype[h] < 0 else (0, 1)):
            if ttype[h] < 0 or netm[h * 2 + j]:
                d[h * 2 + j] = 1 if ttype[h] < 0 else 0
                heap.append((d[h * 2 + j], h * 2 + j))
    heapq.heapify(heap)
    while heap:
        du, u = heapq.heappop(heap)
        if du > d[u]:
            continue
        h = u >> 1
        m = 63 if ttype[h] < 0 else netm[u]
        for s in range(6):
            n = int(nbr[h, s])
            if not (m >> s) & 1 or n < 0:
                continue
            o = (s + 3) % 6
            if ttype[n] < 0:
                v, w = n * 2, 1
            elif (emask[n] >> o) & 1:
                v, w = n * 2 + netid[n * 6 + o], 0
            else:
                continue
            if du + w < d[v]:
                d[v] = du + w
                heapq.heappush(heap, (d[v], v))
    return np.array(d, np.int64)


@pytest.mark.parametrize("mode,bots", [("tri", "greedy"), ("tri", "random"), ("tri2p", "greedy"),
                                       ("tri2p", "random")])
def test_link_table_and_distance_maps_equal_recomputation(mode, bots):
    """Along played games, the link table kept by `_relink` after each tile equals the one
    worked out from scratch, and `_dist_map` over it equals a plain Dijkstra from the centre
    hexes and from every corner."""
    from sim.games.hexflow.kernel import _place

    rules = GAME.resolve_rules({"mode": mode}, "t")
    tb = TriTables(rules)
    names = {n: i for i, n in enumerate(tb.tb.board.names)}
    nh = tb.nbr.shape[0]
    d = np.empty(2 * nh, np.int64)
    dq = np.empty(24 * nh + 4, np.int64)
    placed = 0
    for index in range(4):
        tr = GAME.play_traced(rules, seats_for(GAME, rules, bots), index, 5)
        st_, kt, kpos = _empty_state(rules)
        ttype, emask, netid, netm = st_["ttype"], st_["emask"], st_["netid"], st_["netm"]
        lnk = tb.lnk0.copy()
        for mv in tr.moves:
            if mv["move"] == "pass":
                continue
            h, t = names[mv["hex"]], T.TILE_TYPES_BY_NAME[mv["tile"]]
            _place(kt, kpos, list(tb.seats).index(mv["seat"]), h, t, mv["rotation"])
            E._relink(h, tb.nbr, ttype, emask, netid, netm, lnk)
            placed += 1
            assert np.array_equal(lnk, _links_from_scratch(tb.nbr, ttype, emask, netid, netm))
            for srcs in [list(tb.centres)] + [[c] for c in tb.corners]:
                src = np.array(srcs, np.int64)
                B._dist_map(src, len(srcs), lnk, ttype, netm, d, dq)
                want = _maps_by_dijkstra(srcs, tb.nbr, ttype, emask, netid, netm)
                assert np.array_equal(d, want)
    assert placed >= 20


def test_a_tiebreak_path_ends_where_it_first_enters_its_centre_hex():
    """Found by the parameter-space test: seat I's line reaches centre hex c3 (an X-Cross) on one
    line, runs on through b4 and b3 and comes back into c3 on the X-Cross's other line. That loop
    is not a path to c3: I's best path is worth 16 points, II's 22, and II wins the tiebreak
    (the kernel's reading; the Python verifier once counted the loop, 25 points)."""
    rules = GAME.resolve_rules({"mode": "tri", "board_side": 8, "shared_victory": "shared",
                                "dots": "default", "block_placement": "connected", "hand_size": 4,
                                "wildcard_block": True}, "t")
    trace = GAME.play_traced(rules, seats_for(GAME, rules, "random"), 2, 7993)
    assert trace.row["winner"] == 1 and trace.row["hexflow_tiebreak"] == 1
    GAME.verify_trace(trace)


@pytest.mark.parametrize("side", [13, 14])
def test_every_corner_is_as_far_from_the_centre_and_the_warning_says_so(side):
    """The card's 'Asymmetric distances balanced through reverse turn order' cannot hold: the
    triangle is symmetric, every corner 8 hexes from its nearest centre hex."""
    tb = tri_board(side)
    far = {min(int(tb.board.dist[c, x]) for x in tb.centres) for c in tb.corner.values()}
    assert far == {8}
    rules = GAME.resolve_rules({"mode": "tri", "board_side": side}, "t")
    assert any("Asymmetric distances" in w and "every corner is 8 hexes" in w for w in GAME.warnings(rules))
