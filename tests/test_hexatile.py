"""HEXATILE: shared check suite on every shipped variant, scenario positions, the card's worked
score, properties (rotations and mirror images score the same; kernel and Python agree), bots.

Positions use the text notation of position.py: `q,r:TILE` per cell, TILE = w<rot> (white-backed
tile), r<rot> (red-backed tile) or X (island). Axial cells of the 19-cell board:

        (0,-2) (1,-2) (2,-2)
     (-1,-1) (0,-1) (1,-1) (2,-1)
   (-2,0) (-1,0) (0,0) (1,0) (2,0)
     (-2,1) (-1,1) (0,1) (1,1)
        (-2,2) (-1,2) (0,2)
"""

from __future__ import annotations

import glob
import os
import tomllib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.errors import VariantError
from sim.games.hexatile import GAME
from sim.games.hexatile.game import score_tiles
from sim.games.hexatile.geometry import board_cells
from sim.games.hexatile.position import Position, verify_trace
from tests.game_checks import check_game, seats_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VARIANTS = sorted(glob.glob(os.path.join(ROOT, "variants", "hexatile", "*.toml")))
NO_ISLAND = GAME.resolve_rules({"island": "none"}, "test")
DEFAULT = GAME.resolve_rules({}, "test")
KINDS = ("radian", "super_radian", "set", "arrow", "straight")
P = (0, 1)  # the lattice point shared by cells (0,0), (1,0) and (0,1)


def variant_rules(path):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    assert data["game"] == "hexatile" and data["description"]
    return GAME.resolve_rules(data.get("rules", {}), path)


def kinds_at(pos, colour=1, point=None):
    return sorted(
        p.kind for p in pos.patterns() if p.colour == colour and (point is None or p.point == point)
    )


def kernel_scores(pos):
    tiles = {c: (t, r) for c, (t, r, _) in pos.tiles.items()}
    return score_tiles(pos.rules, tiles, pos.island)


def assert_kernel_agrees(pos):
    """The compiled scorer and the Python position API give the same points, rope and voids."""
    out = kernel_scores(pos)
    py = pos.score()
    for col, s in py.items():
        got = dict(zip(KINDS + ("rope", "void", "base"), out[col].tolist(), strict=True))
        for k in got:
            assert got[k] == s[k], f"colour {col} {k}: kernel {got[k]} python {s[k]} in {pos.to_text()}"


# ---- shared check suite ------------------------------------------------------------------------
@pytest.mark.parametrize("path", VARIANTS, ids=[os.path.basename(p) for p in VARIANTS])
def test_shipped_variants_pass_check_suite(path):
    rules = variant_rules(path)
    n = rules["players"]
    pairings = ["random", "greedy", ["greedy"] + ["random"] * (n - 1), ["random"] * (n - 1) + ["greedy"]]
    games = 12 if rules["board"] == "free" else 30
    for bots in pairings:
        check_game(GAME, rules, bots, n=games, traced=3)


def test_all_card_variants_shipped():
    names = {os.path.basename(p)[:-5] for p in VARIANTS}
    assert {
        "standard",
        "bag_draw",
        "opponent_picks",
        "must_use_drawn",
        "adjacent_only",
        "anywhere",
        "radian_wins",
        "rope_only",
        "free_match",
        "variety_match",
        "three_players",
    } <= names


def test_bad_rules_are_clear_errors():
    with pytest.raises(VariantError, match="spacing"):
        GAME.resolve_rules({"spacing": "far"}, "v.toml")
    with pytest.raises(VariantError, match="island"):
        GAME.resolve_rules({"board": "free"}, "v.toml")
    with pytest.raises(VariantError, match="did you mean 'players'"):
        GAME.resolve_rules({"player": 3}, "v.toml")
    assert GAME.seat_names(GAME.resolve_rules({"players": 3}, "t")) == ["A", "B", "C"]


# ---- the card's worked example ---------------------------------------------------------------------
WORKED = (
    "0,0:X 0,-2:r3 1,-2:r2 2,-2:w2 -1,-1:r3 0,-1:w1 1,-1:w0 2,-1:w4 -2,0:r1 -1,0:r3 1,0:w1 "
    "2,0:r2 -2,1:w5 -1,1:r1 0,1:r3 1,1:w4 -2,2:r3 -1,2:w0 0,2:w4"
)


def test_worked_example_black_15_red_8():
    """The card: black S(uper) Radian 5 + Radian 2 x 2 = 4 + chain rope 6 = 15;
    red Straight 1 + chain rope 7 = 8; 15 to 8, black wins. A full board (9 white-, 9 red-backed
    tiles, island in the centre) built to give exactly that score."""
    pos = Position.from_text(DEFAULT, WORKED)
    assert pos.remaining() == {"white": 0, "red": 0}
    s = pos.score()
    assert (s[1]["super_radian"], s[1]["radian"], s[1]["rope"], s[1]["total"]) == (5, 4, 6, 15)
    assert (s[1]["set"], s[1]["arrow"], s[1]["straight"], s[1]["void"]) == (0, 0, 0, 0)
    assert (s[2]["straight"], s[2]["rope"], s[2]["total"]) == (1, 7, 8)
    assert s[2]["base"] == 1 and s[2]["void"] == 0
    assert kinds_at(pos, 1).count("radian") == 2 and kinds_at(pos, 2) == ["straight"]
    assert pos.winner() == 0  # seat A plays black
    assert Position.from_text(dict(DEFAULT, first_colour="red"), WORKED).winner() == 1
    assert_kernel_agrees(pos)


def test_worked_example_under_variants():
    """Variety match: black's two Radians score once (2), the Super Radian is another type (5):
    13 to 8. Rope only: 6 to 7, red wins. Radian wins does not apply to a finished board."""
    var = Position.from_text(dict(DEFAULT, variety=True), WORKED).score()
    assert (var[1]["radian"], var[1]["super_radian"], var[1]["total"], var[2]["total"]) == (2, 5, 13, 8)
    rope = Position.from_text(dict(DEFAULT, scoring="rope_only"), WORKED).score()
    assert (rope[1]["total"], rope[2]["total"], rope[1]["base"]) == (6, 7, 0)
    for rules in (dict(DEFAULT, variety=True), dict(DEFAULT, scoring="rope_only")):
        assert_kernel_agrees(Position.from_text(rules, WORKED))


# ---- each pattern, and near misses ---------------------------------------------------------------
SCENARIOS = {
    # kind: (position, point or None)
    "radian": ("0,0:w1 1,0:w3 0,1:r5", P),
    "super_radian": ("0,0:w1 1,0:w3 0,1:w5", P),
    "set": ("0,0:w0 1,0:w2 0,1:w4", P),
    "arrow": ("0,0:w1 1,0:w1 0,1:w3", P),
    "straight": ("-1,0:r1 0,0:w1 1,0:r1", None),
}


@pytest.mark.parametrize("kind", list(SCENARIOS))
def test_pattern_detected_and_near_misses_not(kind):
    """Three tiles round one point (cells (0,0), (1,0), (0,1) meet at lattice point (0,1)):

          (0,0)   (1,0)            straight: (-1,0) (0,0) (1,0) in a row,
              \\   /                          black rhombi tip to tip along the row
               (P)
                |
              (0,1)
    The pattern is black's and nothing else scores. Near misses: turning any one tile by one step
    (60 degrees, or 180 / 300) puts an obtuse corner where a tip was, or the reverse: the pattern is
    gone. Turning it by 120 or 240 degrees moves one black rhombus off the template: the pattern
    is gone, except that an Arrow may turn into a different Arrow (its mirror image), never the
    same three rhombi.
    """
    text, point = SCENARIOS[kind]
    pos = Position.from_text(NO_ISLAND, text)
    assert kinds_at(pos, 1, point) == [kind]
    assert [p for p in pos.patterns() if p.colour != 1] == []
    assert_kernel_agrees(pos)
    original = shapes(pos, kind)
    for cell, (tile, rot, _) in list(pos.tiles.items()):
        for d in range(1, 6):
            miss = Position(NO_ISLAND, dict(pos.tiles))
            miss.tiles[cell] = (tile, (rot + d) % 6, -1)
            if d % 2 == 1 or kind != "arrow":
                assert kind not in kinds_at(miss, 1, point), (kind, cell, d)
            assert not (shapes(miss, kind) & original), (kind, cell, d)
            assert_kernel_agrees(miss)


def shapes(pos, kind):
    """Patterns of a kind as sets of rhombi (colour, tips): comparable across positions."""
    rh = pos.rhombi()
    return {frozenset((rh[i].colour, rh[i].tips) for i in p.rhombi) for p in pos.patterns() if p.kind == kind}


def test_radian_without_all_neutral_is_not_super():
    """Radian and Super Radian differ only in the other three tips: a red one among them."""
    pos = Position.from_text(NO_ISLAND, SCENARIOS["radian"][0])
    assert kinds_at(pos, 1, P) == ["radian"] and pos.score()[1]["radian"] == 2
    sup = Position.from_text(NO_ISLAND, SCENARIOS["super_radian"][0])
    assert sup.score()[1]["super_radian"] == 5 and sup.score()[1]["radian"] == 0
    three = Position.from_text(
        GAME.resolve_rules({"island": "none", "players": 3}, "t"), SCENARIOS["super_radian"][0]
    )
    s = three.score()  # with 3 players yellow's Radian is the third player's, black's is a plain Radian
    assert s[1]["radian"] == 2 and s[1]["super_radian"] == 0 and s[3]["radian"] == 2


def test_pattern_scores_for_colour_owner_whoever_made_it():
    """Seat B places the third tile and completes black's Radian: the points go to A (black)."""
    pos = Position.start(NO_ISLAND)
    pos.rules = dict(NO_ISLAND, spacing="none")
    pos.apply(0, (0, 0), "white", 1)
    pos.apply(1, (1, 0), "white", 3)
    pos.apply(0, (2, -2), "white", 0)
    pos.apply(1, (0, 1), "red", 5)
    assert pos.score()[1]["radian"] == 2 and pos.score()[2]["radian"] == 0


def test_long_straights():
    """A line of 4 black rhombi scores one Straight (a 4th adds nothing); 'window' scores 2."""
    text = "-2,0:w1 -1,0:r1 0,0:w1 1,0:r1"
    for mode, want in (("thirds", 1), ("once", 1), ("window", 2)):
        pos = Position.from_text(dict(NO_ISLAND, long_straight=mode), text)
        runs = [p for p in pos.patterns() if p.kind == "straight" and p.colour == 1]
        assert len(runs) == 1 and len(runs[0].rhombi) == 4
        assert pos.score()[1]["straight"] == want
        assert_kernel_agrees(pos)


def test_arrow_joined_to_set_scores_zero():
    """An Arrow sharing a black rhombus with a Set: both 0, their points shown as void.
    With arrow_rules off both score."""
    text = find_arrow_set()
    pos = Position.from_text(NO_ISLAND, text)
    s = pos.score()[1]
    assert s["arrow"] == 0 and s["set"] == 0 and s["void"] >= 2
    assert_kernel_agrees(pos)
    free = Position.from_text(dict(NO_ISLAND, arrow_rules=False), text)
    assert free.score()[1]["arrow"] >= 1 and free.score()[1]["set"] >= 1


def find_arrow_set():
    """The Set scenario plus one tile that makes a black Arrow through one of the Set's rhombi."""
    base = SCENARIOS["set"][0]
    for q, r in board_cells(2):
        for t in "wr":
            for rot in range(6):
                text = f"{base} {q},{r}:{t}{rot}"
                if (q, r) in ((0, 0), (1, 0), (0, 1)):
                    continue
                pos = Position.from_text(NO_ISLAND, text)
                if "arrow" in kinds_at(pos, 1) and "set" in kinds_at(pos, 1):
                    return text
    # three more tiles may be needed: arrow at a point of the set's outer tips
    raise AssertionError("no arrow joined to the set found with one more tile")


# ---- chain rope ----------------------------------------------------------------------------------
def test_rope_on_branched_example():
    """Black's rhombi: three meet tip to tip at P = (0,1) (a Radian: a three-way fork), one arm
    goes on for two more rhombi. Arms 3, 1, 1: the rope is the longest branch, 3 + 1 = 4, not 5.

        (-1,0)*--P--*(-1,3)        edges: P-(-1,0), P-(-1,3), P-(2,0)-(1,-1)-(0,-2)
                 |
               (2,0)--(1,-1)--(0,-2)
    """
    pos = Position.from_text(NO_ISLAND, "0,-1:w1 0,0:w1 0,1:r5 1,-1:w1 1,0:w3")
    edges = sorted(tuple(sorted(r.tips)) for r in pos.rhombi() if r.colour == 1)
    assert edges == sorted(
        tuple(sorted(e))
        for e in [
            ((0, 1), (-1, 0)),
            ((0, 1), (-1, 3)),
            ((0, 1), (2, 0)),
            ((2, 0), (1, -1)),
            ((1, -1), (0, -2)),
        ]
    )
    assert pos.rope(1) == 4
    assert Position.from_text(dict(NO_ISLAND, rope_path="simple"), pos.to_text()).rope(1) == 4
    assert_kernel_agrees(pos)


# ---- properties ----------------------------------------------------------------------------------
CELLS = board_cells(2)


def rotate(pos):
    """60 degrees: cell (q, r) -> (-r, q + r), each tile one step further round."""
    out = Position(pos.rules)
    out.island = None if pos.island is None else (-pos.island[1], pos.island[0] + pos.island[1])
    out.tiles = {(-r, q + r): (t, (rot + 1) % 6, s) for (q, r), (t, rot, s) in pos.tiles.items()}
    return out


def mirror(pos):
    """Reflection in the x axis: cell (q, r) -> (q, -q - r); the mirror image of a white-backed
    tile in rotation k is the red-backed tile in rotation -2 - k (and back)."""
    out = Position(pos.rules)
    out.island = None if pos.island is None else (pos.island[0], -pos.island[0] - pos.island[1])
    swap = {"white": "red", "red": "white"}
    out.tiles = {(q, -q - r): (swap[t], (-2 - rot) % 6, s) for (q, r), (t, rot, s) in pos.tiles.items()}
    return out


positions = st.lists(
    st.tuples(st.sampled_from(CELLS), st.sampled_from(("white", "red")), st.integers(0, 5)),
    min_size=3,
    max_size=19,
    unique_by=lambda x: x[0],
)


def build(items, rules=NO_ISLAND):
    pos = Position(rules)
    pos.tiles = {c: (t, r, -1) for c, t, r in items}
    return pos


@settings(max_examples=60, deadline=None)
@given(positions, st.sampled_from([2, 3]))
def test_rotations_and_mirrors_score_the_same(items, players):
    pos = build(items, dict(NO_ISLAND, players=players))
    want = pos.score()
    p = pos
    for _ in range(5):
        p = rotate(p)
        assert p.score() == want
    m = mirror(pos)
    assert m.score() == want
    assert sorted((q.kind, q.colour) for q in m.patterns()) == sorted(
        (q.kind, q.colour) for q in pos.patterns()
    )


@settings(max_examples=80, deadline=None)
@given(
    positions,
    st.sampled_from(["thirds", "once", "window"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from([2, 3]),
)
def test_kernel_and_python_scorers_agree(items, straight, arrows, variety, players):
    rules = dict(NO_ISLAND, long_straight=straight, arrow_rules=arrows, variety=variety, players=players)
    assert_kernel_agrees(build(items, rules))


# ---- placement -----------------------------------------------------------------------------------
def test_spacing_rules():
    """A places at (0,-2); B places at (2,0). Now A (spacing 'last') may not use the cells next to
    (2,0): (2,-1), (1,0), (1,1). With 'all' the same plus nothing (A's own tile is fine);
    with 'adjacent_only' A must use exactly those; with 'none' any empty cell."""

    def after(spacing):
        pos = Position.start(dict(DEFAULT, spacing=spacing))
        for seat, cell in ((0, (0, -2)), (1, (2, 0))):
            pos.tiles[cell] = ("white", 0, seat)
            pos.history.append((seat, cell, "white", 0))
        return set(pos.legal_cells(0))

    empty = set(CELLS) - {(0, 0), (0, -2), (2, 0)}
    near = {(2, -1), (1, 0), (1, 1)}
    assert after("last") == empty - near
    assert after("all") == empty - near
    assert after("adjacent_only") == near
    assert after("none") == empty


def test_spacing_all_keeps_away_from_every_opponent_tile():
    """A: (0,-2), B: (2,0), A: (-2,2). For B, 'last' forbids only the cells next to (-2,2);
    'all' also those next to (0,-2): (-1,-1), (0,-1), (1,-2)."""

    def after(spacing):
        pos = Position.start(dict(DEFAULT, spacing=spacing))
        for seat, cell in ((0, (0, -2)), (1, (2, 0)), (0, (-2, 2))):
            pos.tiles[cell] = ("white", 0, seat)
            pos.history.append((seat, cell, "white", 0))
        return set(pos.legal_cells(1))

    assert after("last") - after("all") == {(-1, -1), (0, -1), (1, -2)}
    assert {(-2, 1), (-1, 1), (-1, 2)} & after("last") == set()


def test_spacing_fallback_anywhere():
    """If no cell is free two steps from the last tile, any empty cell may be used."""
    pos = Position.start(dict(DEFAULT, spacing="adjacent_only"))
    order = [c for c in CELLS if c not in ((0, 0), (2, -2), (1, -2))]
    for i, c in enumerate(order):
        pos.tiles[c] = ("white", 0, i % 2)
        pos.history.append((i % 2, c, "white", 0))
    pos.history.append((1, (-2, 2), "white", 0))  # last tile far from the two free cells
    assert set(pos.legal_cells(0)) == {(2, -2), (1, -2)}


def test_tiles_are_conserved_in_kernel_games():
    rules = DEFAULT
    seats = seats_for(GAME, rules, "greedy")
    tr = GAME.play_traced(rules, seats, 5, 99)
    assert len(tr.moves) == 18
    assert sum(m["tile"] == "white" for m in tr.moves) == 9
    verify_trace(GAME, tr)
    pos = Position.from_moves(rules, [(m["cell"], m["tile"], m["rotation"]) for m in tr.moves])
    assert pos.remaining() == {"white": 0, "red": 0} and pos.legal_moves(0) == []
    assert pos.winner() == tr.row["winner"]
    with pytest.raises(ValueError, match="illegal"):
        Position.from_moves(rules, [((0, 0), "white", 0)])  # the island's cell


# ---- bots ------------------------------------------------------------------------------------------
def test_greedy_beats_random():
    """Greedy wins more than 80% of 2-player games against random, in either seat."""
    rules = DEFAULT
    wins = games = 0
    for bots, seat in ((["greedy", "random"], 0), (["random", "greedy"], 1)):
        out = GAME.play_chunk(rules, seats_for(GAME, rules, bots), 0, 300, 2024)
        wins += int((out["winner"] == seat).sum())
        games += 300
    assert wins / games > 0.8, wins / games


def test_shipped_seat_parameters():
    """Variant files may give bot parameters (rope_only: the rope-growth estimate). Those games are
    deterministic, independent of chunking, traced identically and verified."""
    from sim.games.base import SeatBot

    for path in VARIANTS:
        with open(path, "rb") as f:
            data = tomllib.load(f)
        if "seats" not in data:
            continue
        rules = variant_rules(path)
        seats = []
        for name in GAME.seat_names(rules):
            spec = data["seats"][name]
            spec = {"bot": spec} if isinstance(spec, str) else dict(spec)
            bot = GAME.bot(spec.pop("bot"), path)
            params = {p.name: p.default for p in bot.params}
            for k, v in spec.items():
                params[k] = next(p for p in bot.params if p.name == k).check(v, path)
            seats.append(SeatBot(bot, params))
        a = GAME.play_chunk(rules, seats, 0, 20, 8)
        b = GAME.play_chunk(rules, seats, 7, 13, 8)
        for key in a:
            np.testing.assert_array_equal(a[key][7:], b[key])
        for i in (0, 11):
            tr = GAME.play_traced(rules, seats, i, 8)
            assert all(tr.row[k] == a[k][i] for k in a)
            verify_trace(GAME, tr)


def test_radian_wins_at_once():
    rules = GAME.resolve_rules({"radian_wins": True}, "t")
    out = GAME.play_chunk(rules, seats_for(GAME, rules, "greedy"), 0, 100, 3)
    early = out["end_reason"] == 1
    assert early.any()
    assert (out["turns"][early] < 18).all() and (out["hexatile_rope_A"][early] == 0).all()


# ---- pictures and report ---------------------------------------------------------------------------
def test_draw_and_report(tmp_path):
    import pandas as pd

    rules = DEFAULT
    seats = seats_for(GAME, rules, "greedy")
    tr = GAME.play_traced(rules, seats, 1, 11)
    GAME.draw(tr, str(tmp_path / "final.png"))
    GAME.draw(tr, str(tmp_path / "moves.png"), every_move=True)
    assert (tmp_path / "final.png").stat().st_size > 10_000 and (
        tmp_path / "moves.png"
    ).stat().st_size > 10_000
    df = pd.DataFrame(GAME.play_chunk(rules, seats, 0, 200, 5))
    rows = {r["metric"]: r for r in GAME.report_metrics(df, rules)}
    rope = rows["chain rope changes the winner (vs points without rope)"]
    assert rope["n"] == 200 and 0 <= rope["successes"] <= 200
    assert rows["games with a scored super_radian"]["value"] > 0
    assert GAME.warnings(rules)
    files = GAME.draw_rules(str(tmp_path / "rules"))
    assert len(files) == 6 and all(os.path.getsize(f) > 5_000 for f in files)


# ---- the engine interface ------------------------------------------------------------------------------
def test_engine_decisions_of_a_turn():
    """Bag draw: the mover first keeps or returns the drawn tile, then places that kind; opponent
    picks: the previous seat is to move and picks the kind. Every bot choice is a legal move."""
    from sim import engine
    from sim.games.hexatile import state as S

    bag = GAME.resolve_rules({"tile_choice": "bag"}, "t")
    t = GAME.tables(bag)
    pos, rng = engine.start(t, np.uint64(7))
    assert pos.st[S.PHASE] == S.PH_REDRAW and engine.seat_to_move(t, pos) == 0
    assert sorted(engine.moves_of(t, pos)) == [S.KEEP, S.RETURN]
    engine.play(t, pos, np.int64(S.KEEP), rng)
    drawn = pos.st[S.TILE]
    placements = engine.moves_of(t, pos)
    assert len(placements) == 18 * 6 and all(m % 12 // 6 == drawn for m in placements)
    pick = GAME.resolve_rules({"tile_choice": "opponent"}, "t")
    t2 = GAME.tables(pick)
    pos2, rng2 = engine.start(t2, np.uint64(7))
    assert engine.seat_to_move(t2, pos2) == 1 and sorted(engine.moves_of(t2, pos2)) == [S.PICK, S.PICK + 1]
    for code in (S.BOT_RANDOM, S.BOT_GREEDY):
        par = np.array([0.5, 0.25, 0.3, 1.0, 0.0])
        assert engine.bot_choice(t2, pos2, 1, code, par, rng2) in engine.moves_of(t2, pos2)
    engine.play(t2, pos2, np.int64(S.PICK + 1), rng2)
    assert engine.seat_to_move(t2, pos2) == 0 and all(m % 12 // 6 == 1 for m in engine.moves_of(t2, pos2))


def test_bag_order_is_not_in_the_position():
    """The bag hides nothing a search could peek at: a copy of a position and the position itself,
    given different generators, draw different tiles after a put-back, and sample_hidden (a no-op:
    HEXATILE hides nothing) leaves every array as it was."""
    from sim import engine
    from sim.games.hexatile import state as S

    t = GAME.tables(GAME.resolve_rules({"tile_choice": "bag"}, "t"))
    pos, _ = engine.start(t, np.uint64(3))
    seen = set()
    for seed in range(12):
        cp = engine.copy_of(t, pos)
        engine.play(t, cp, np.int64(S.RETURN), np.array([seed * 7919], np.uint64))
        seen.add(int(cp.st[S.TILE]))
        np.testing.assert_array_equal(cp.rem, pos.rem)
        assert pos.st[S.PHASE] == S.PH_REDRAW  # the copy is independent
    assert seen == {0, 1}
    before = [np.array(a, copy=True) for a in pos]
    for seat in (0, 1):
        engine.redraw_hidden(t, pos, seat, np.array([5], np.uint64))
    assert all(np.array_equal(a, b) for a, b in zip(before, pos, strict=True))


def test_evaluate_is_the_points_difference_then_the_result():
    from sim import engine

    rules = DEFAULT
    t = GAME.tables(rules)
    tr = GAME.play_traced(rules, seats_for(GAME, rules, "greedy"), 4, 21)
    pos, rng = engine.start(t, np.uint64(1))
    assert engine.value_of(t, pos, 0) == 0.0  # nothing scored yet
    for m in tr.moves:
        q, r = m["cell"]
        c = board_cells(2).index((q, r))
        engine.play(t, pos, np.int64(c * 12 + ["white", "red"].index(m["tile"]) * 6 + m["rotation"]), rng)
    w = tr.row["winner"]
    assert engine.seat_to_move(t, pos) == -1
    assert engine.value_of(t, pos, 0) == (0.0 if w < 0 else (1e9 if w == 0 else -1e9))
