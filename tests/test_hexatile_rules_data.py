"""HEXATILE's rule tweaks as data (issue 20): pattern points, the tile set, the board radius, the
templates as the one source of both scorers, who an Arrow voids, the chain rope on or off, voided
Radians under radian_wins, and the second player's bonus. Each parameter: what it changes, in the
kernel and in the independent Python position API alike, and its one-line errors.

Random bots do not read the points, templates or scoring rules, so one seed plays the same moves
under rules that differ only there: the kernel's columns can be compared game by game."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.errors import VariantError
from sim.games.hexatile import GAME
from sim.games.hexatile import game as hexgame
from sim.games.hexatile import state as S
from sim.games.hexatile import templates as TP
from sim.games.hexatile.game import score_tiles
from sim.games.hexatile.geometry import hex_distance
from sim.games.hexatile.position import Position
from sim.runs.variants import load as load_variant
from tests.game_checks import check_game, seats_for

KINDS = ("radian", "super_radian", "set", "arrow", "straight")
NEW = ("pattern_points", "tiles", "board_radius", "arrow_voids", "chain_rope", "voided_radian_wins",
       "second_player_bonus")


def rules(**kw):
    return GAME.resolve_rules(kw, "test")


def play(r, n=400, seed=5, bots="random"):
    return GAME.play_chunk(r, seats_for(GAME, r, bots), 0, n, seed)


def verify(r, games, seed=5, bots="random"):
    """Replay games with the position API: every move legal, every column its scorer's."""
    for i in games:
        GAME.verify_trace(GAME.play_traced(r, seats_for(GAME, r, bots), int(i), seed))


def test_new_parameters_are_listed_and_keep_every_baseline_hash():
    """At their defaults the new parameters stay out of the variant hash: every committed
    HEXATILE baseline keeps its hash (and `hexsim check` replays its games exactly)."""
    assert all(GAME.param(name).omit_default for name in NEW)
    for path in sorted(Path("data/baselines/hexatile").glob("*.json")):
        stored = json.loads(path.read_text())["variant"]
        assert load_variant(f"hexatile/{path.stem}").hash == stored["hash"], path.name


def test_rules_command_lists_the_new_parameters():
    from typer.testing import CliRunner

    from sim.cli import app

    out = CliRunner().invoke(app, ["rules", "hexatile"])
    assert out.exit_code == 0
    for name in NEW:
        assert name in out.output


# ---- pattern_points ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_doubling_a_patterns_points_doubles_its_share_in_kernel_and_python(kind):
    base = rules()
    doubled = rules(pattern_points={kind: 2 * base["pattern_points"][kind]})
    a, b = play(base), play(doubled)
    for s in ("A", "B"):
        col = f"hexatile_{kind}_{s}"
        assert (b[col] == 2 * a[col]).all()
        assert (b[f"score_{s}"] - a[f"score_{s}"] == a[col]).all()
        for other in KINDS:
            if other != kind:
                assert (b[f"hexatile_{other}_{s}"] == a[f"hexatile_{other}_{s}"]).all()
    assert a[f"hexatile_{kind}_A"].sum() > 0  # the pattern does occur in these games
    # the Python scorer (verify_trace compares every column with it) agrees on games with the pattern
    verify(doubled, np.flatnonzero(a[f"hexatile_{kind}_A"] + a[f"hexatile_{kind}_B"])[:6])


def test_pattern_points_reach_the_bots_and_the_variety_cap():
    r = rules(pattern_points={"set": 4, "arrow": 0})
    tb = GAME.tables(r)
    assert tb.pts[TP.SET] == 4 and tb.pts[TP.ARROW] == 0
    for col in (1, 2):
        assert tb.bot_ptsc[col, TP.SET] == 4.0 and tb.bot_ptsc[col, TP.ARROW] == 0.0
    greedy_a, greedy_b = play(rules(), 100, bots="greedy"), play(r, 100, bots="greedy")
    assert (greedy_a["hexatile_set_A"] != greedy_b["hexatile_set_A"]).any()
    v = rules(variety=True, pattern_points={"set": 3})
    cols = play(v, 200)
    assert cols["hexatile_set_A"].max() == 3 and set(np.unique(cols["hexatile_set_A"])) <= {0, 3}
    verify(v, np.flatnonzero(cols["hexatile_set_A"])[:3])


def test_pattern_points_errors():
    with pytest.raises(VariantError, match=r"pattern_points\.star: unknown; allowed: radian"):
        rules(pattern_points={"star": 2})
    with pytest.raises(VariantError, match=r"pattern_points\.radian = -1"):
        rules(pattern_points={"radian": -1})
    with pytest.raises(VariantError, match=r"pattern_points\.set = 1\.5"):
        rules(pattern_points={"set": 1.5})


# ---- the tile set and the board ------------------------------------------------------------------
def test_tile_counts_decide_the_bag_and_the_game_length():
    r = rules(tiles={"white": 4, "red": 7})  # the island is red: 10 tiles to place, 4 white
    cols = play(r, 200)
    assert (cols["turns"] == 10).all()
    for i in range(3):
        tr = GAME.play_traced(r, seats_for(GAME, r, "random"), i, 5)
        assert sum(m["tile"] == "white" for m in tr.moves) == 4
        GAME.verify_trace(tr)
    only_red = rules(tiles={"white": 0})
    tr = GAME.play_traced(only_red, seats_for(GAME, only_red, "greedy"), 0, 5)
    assert {m["tile"] for m in tr.moves} == {"red"} and len(tr.moves) == 9
    GAME.verify_trace(tr)
    bag = rules(tiles={"white": 2, "red": 12}, tile_choice="bag")
    verify(bag, range(3))


def test_board_radius_3_plays_on_37_cells():
    r = rules(board_radius=3)
    assert len(hexgame.tables_geometry(r).cells) == 37 and GAME.tables(r).neigh.shape[0] == 37
    cols = play(r, 300)
    assert (cols["turns"] == 18).all()
    far = 0
    for i in range(6):
        tr = GAME.play_traced(r, seats_for(GAME, r, "random"), i, 5)
        far += sum(hex_distance(m["cell"], (0, 0)) == 3 for m in tr.moves)
        GAME.verify_trace(tr)
    assert far > 0  # the outer ring is used
    big = rules(board_radius=3, tiles={"white": 18, "red": 19})  # the whole 37-cell board
    c = play(big, 50)
    assert (c["turns"] == 36).all()
    verify(big, range(2))
    assert any("expansion board" in w for w in GAME.warnings(r))
    check_game(GAME, r, "greedy", n=20, traced=2)


def test_tile_and_board_errors():
    with pytest.raises(VariantError, match=r"tiles = .*: 30 tiles do not fit on the 19-cell board"):
        rules(tiles={"white": 20})
    rules(board_radius=3, tiles={"white": 20})  # fits on 37 cells
    with pytest.raises(VariantError, match="tiles.red = 0 leaves no red-backed tile for the island"):
        rules(tiles={"red": 0})
    rules(tiles={"red": 0}, island="none")
    with pytest.raises(VariantError, match="leaves no tile to place"):
        rules(tiles={"white": 0, "red": 1})
    with pytest.raises(VariantError, match=r"board_radius = 5 out of range; allowed: int in \[2, 4\]"):
        rules(board_radius=5)
    with pytest.raises(VariantError, match="board_radius applies to board = 'standard'"):
        rules(board="free", island="none", spacing="none", board_radius=3)
    with pytest.raises(VariantError, match="free board"):
        rules(board="free", island="none", tiles={"white": 20})


# ---- templates: the one source of both scorers ---------------------------------------------------
@pytest.fixture
def edited_templates(monkeypatch):
    """TEMPLATES edited in this test only; the cached tables are rebuilt before and after."""

    def clear():
        S.template_tables.cache_clear()
        hexgame._tables.cache_clear()

    def edit(name, spec):
        monkeypatch.setitem(TP.TEMPLATES, name, spec)
        clear()

    yield edit
    monkeypatch.undo()
    clear()


@pytest.mark.parametrize("name,spec", [
    ("arrow", {"points": 1, "tips": (0, 3)}),  # two tips in a line at a full point
    ("set", {"points": 1, "obtuse": (0, 1, 2, 3)}),  # two obtuse corners and anything else
    ("straight", {"points": 1, "line": 2}),
])
def test_an_edited_template_changes_kernel_and_python_alike(edited_templates, name, spec):
    r = rules()
    before = play(r, 300)
    edited_templates(name, spec)
    after = play(r, 300)
    col = f"hexatile_{name}_A"
    changed = np.flatnonzero(before[col] != after[col])
    assert len(changed) > 30, f"the edited {name} template changes few games ({len(changed)})"
    verify(r, changed[:8])  # every column of the kernel equals the Python scorer's
    # and on hand-made boards from those games
    for i in changed[:4]:
        tr = GAME.play_traced(r, seats_for(GAME, r, "random"), int(i), 5)
        pos = Position.start(r)
        for t, m in enumerate(tr.moves):
            pos.apply(t % 2, tuple(m["cell"]), m["tile"], m["rotation"])
        out = score_tiles(r, {c: (tl, rot) for c, (tl, rot, _) in pos.tiles.items()}, pos.island)
        py = pos.score()
        for c in (1, 2):
            assert out[c, KINDS.index(name)] == py[c][name]


# ---- who an Arrow voids --------------------------------------------------------------------------
def test_arrow_voids_owner_voids_a_subset_and_both_scorers_agree():
    anyone, owner = rules(), rules(arrow_voids="owner")
    a, b = play(anyone, 1500), play(owner, 1500)
    for s in ("A", "B"):
        assert (b[f"hexatile_void_{s}"] <= a[f"hexatile_void_{s}"]).all()
    differ = np.flatnonzero(b["hexatile_void_A"] + b["hexatile_void_B"] < a["hexatile_void_A"] + a["hexatile_void_B"])
    assert len(differ) > 20
    verify(owner, differ[:8])
    # greedy under the owner reading: the foresight follows it, every game verifies
    check_game(GAME, owner, "greedy", n=20, traced=3)


def test_arrow_voids_owner_on_a_hand_made_board():
    """The same board, every tile placed by B, then every tile by A: black patterns are voided
    only by black Arrows, which under "owner" void only when A completed them; the Python
    scorer agrees with the kernel both times."""
    owner = rules(arrow_voids="owner")
    r = rules()
    found = None
    for i in range(200):  # a random game whose board has a voided Arrow of black (seat A)
        tr = GAME.play_traced(r, seats_for(GAME, r, "random"), i, 9)
        if tr.row["hexatile_void_A"] > 0:
            found = tr
            break
    assert found is not None
    moves = [(tuple(m["cell"]), m["tile"], m["rotation"]) for m in found.moves]
    voids = []
    for seat_of in (lambda t: 1, lambda t: 0):  # every tile placed by B, then every tile by A
        pos = Position(dict(owner), island=(0, 0))
        for t, (cell, tile, rot) in enumerate(moves):
            pos.tiles[cell] = (tile, rot, seat_of(t))
            pos.history.append((seat_of(t), cell, tile, rot))
        out = score_tiles(owner, {c: (tl, rot, s) for c, (tl, rot, s) in pos.tiles.items()}, pos.island)
        py = pos.score()
        assert [out[c, 6] for c in (1, 2)] == [py[c]["void"] for c in (1, 2)]
        voids.append(py[1]["void"])
    assert voids == [0, found.row["hexatile_void_A"]]


def test_arrow_voids_errors():
    with pytest.raises(VariantError, match="arrow_voids = 'maker'; allowed: one of 'anyone', 'owner'"):
        rules(arrow_voids="maker")


# ---- the chain rope on or off --------------------------------------------------------------------
def test_chain_rope_off_scores_patterns_only():
    on, off = play(rules(), 400), play(rules(chain_rope=False), 400)
    for s in ("A", "B"):
        assert (off[f"hexatile_rope_{s}"] == 0).all()
        assert (off[f"score_{s}"] == on[f"hexatile_base_{s}"]).all()
        assert (off[f"hexatile_base_{s}"] == on[f"hexatile_base_{s}"]).all()
    assert (on["winner"] != off["winner"]).mean() > 0.1  # the rope decides many games
    verify(rules(chain_rope=False), range(4))
    g_on, g_off = play(rules(), 100, bots="greedy"), play(rules(chain_rope=False), 100, bots="greedy")
    assert (g_on["hexatile_base_A"] != g_off["hexatile_base_A"]).any()  # greedy stops valuing joins
    with pytest.raises(VariantError, match="scoring = 'rope_only' needs chain_rope = true"):
        rules(scoring="rope_only", chain_rope=False)


# ---- voided Radians under radian_wins ------------------------------------------------------------
def test_a_voided_radian_wins_at_once_only_by_default():
    yes, no = rules(radian_wins=True), rules(radian_wins=True, voided_radian_wins=False)
    a, b = play(yes, 3000), play(no, 3000)
    differ = np.flatnonzero(a["turns"] != b["turns"])
    assert len(differ) > 5
    assert (b["turns"][differ] > a["turns"][differ]).all()  # the game goes on past a voided Radian
    for i in differ[:4]:
        tr = GAME.play_traced(yes, seats_for(GAME, yes, "random"), int(i), 5)
        pos = Position.start(yes)
        for t, m in enumerate(tr.moves):
            pos.apply(t % 2, tuple(m["cell"]), m["tile"], m["rotation"])
        made = [q for q in pos.patterns() if q.kind in ("radian", "super_radian") and q.void]
        assert made and tr.row["end_reason"] == 1  # it ended on a voided Radian
    verify(no, differ[:6])
    verify(yes, differ[:3])
    # without the Arrow rules nothing is voided: the switch changes nothing
    c, d = play(rules(radian_wins=True, arrow_rules=False), 500), \
        play(rules(radian_wins=True, arrow_rules=False, voided_radian_wins=False), 500)
    assert all((c[k] == d[k]).all() for k in c)


# ---- the second player's bonus -------------------------------------------------------------------
@pytest.mark.parametrize("bonus", [3, -2])
def test_second_player_bonus_enters_score_and_winner(bonus):
    plain, r = rules(), rules(second_player_bonus=bonus)
    a, b = play(plain, 600), play(r, 600)
    assert (b["score_B"] == a["score_B"] + bonus).all() and (b["score_A"] == a["score_A"]).all()
    for k in ("hexatile_base_B", "hexatile_rope_B", "hexatile_radian_B"):
        assert (a[k] == b[k]).all()  # the pattern columns hold the board's points only
    changed = np.flatnonzero(a["winner"] != b["winner"])
    assert len(changed) > 0
    gap = (a["score_B"] - a["score_A"])[changed]
    assert (np.abs(gap) <= abs(bonus)).all()
    # winner: most points with the bonus, tie broken on points without the rope, bonus included
    tb = a["hexatile_base_B"] + bonus - a["hexatile_base_A"]
    tot = b["score_B"] - b["score_A"]
    expect = np.where(tot > 0, 1, np.where(tot < 0, 0, np.where(tb > 0, 1, np.where(tb < 0, 0, -1))))
    assert (b["winner"] == expect).all()
    verify(r, changed[:6])


def test_second_player_bonus_with_the_pie_rule_and_errors():
    """Greedy answers the pie rule by `evaluate`, which counts the bonus. After one tile both
    colours hold one rhombus (rope 1, no pattern), so without a bonus it never swaps; with the
    second player's total lowered it always does, with it raised never."""
    assert not play(rules(swap=True), 200, bots="greedy")["swapped"].any()
    assert not play(rules(swap=True, second_player_bonus=2), 200, bots="greedy")["swapped"].any()
    r = rules(second_player_bonus=-2, swap=True)
    cols = play(r, 200, bots="greedy")
    assert cols["swapped"].all()
    verify(r, range(3), bots="greedy")
    with pytest.raises(VariantError, match="second_player_bonus needs 2 players"):
        rules(players=3, spacing="none", second_player_bonus=1)
    with pytest.raises(VariantError, match=r"second_player_bonus = 30 out of range"):
        rules(second_player_bonus=30)


def test_compensation_variants_ship():
    bonus = load_variant("hexatile/second_bonus")
    assert bonus.rules["second_player_bonus"] != 0
    assert load_variant("hexatile/swap").rules["swap"] is True
