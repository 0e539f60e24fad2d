"""HEXFLOW Battle rule numbers as data (issue 20): tile counts per type and seat, the board width,
per-seat hand sizes, the pie rule, the path-win score and the stalemate's dot multipliers. Each
changes what it should, tile points stay refused (no Battle rule reads them), every game verifies
against the pure-Python position, and at the defaults every Battle variant keeps its hash and its
games (the kernel route included)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.errors import VariantError
from sim.games.hexflow import GAME, battle_engine
from sim.games.hexflow import battle as BT
from sim.games.hexflow.board import board_of
from sim.games.hexflow.tiles import BLOCK, TILE_TYPES, TYPE_BY_NAME
from sim.runs import variants
from tests.game_checks import opening_sets, seats_for

ROOT = Path(__file__).resolve().parent.parent
STAR6 = TYPE_BY_NAME["star6"]


def rules(**kw):
    return GAME.resolve_rules({"mode": "battle", **kw}, "test.toml")


def bags_of(r, n=40, seed=3):
    """Each game's two shuffled bags and opening hands (engine.start), as per-seat tile lists."""
    return opening_sets(battle_engine.tables(r), battle_engine.Q_BAGN, n, seed)


def traced(r, bots, games, seed=5):
    """Traced games, each verified by battle_verify.verify (every move legal on the pure-Python
    position, from the mover's hand; tiles conserved; scores and columns right), and equal to
    the chunk's row."""
    seats = seats_for(GAME, r, bots)
    cols = GAME.play_chunk(r, seats, 0, max(games) + 1, seed)
    for i in games:
        tr = GAME.play_traced(r, seats, i, seed)
        GAME.verify_trace(tr)
        assert all(tr.row[k] == cols[k][i] for k in tr.row), i
        yield tr


def placed(tr, tile: int) -> int:
    return sum(m["kind"] != "pass" and m["tile"] == TILE_TYPES[tile].name for m in tr.moves)


# ---- tiles ---------------------------------------------------------------------------------------
def test_count_zero_leaves_no_such_tile_in_any_bag_and_no_game_places_one():
    r = rules(tiles={"block": {"count": 0}})
    for game in bags_of(r):
        for bag, hand in game:
            assert BLOCK not in bag + hand and len(bag) + len(hand) == 20
    assert sum(placed(tr, BLOCK) for tr in traced(rules(), "random", range(8))) > 0  # by default
    for bots in ("random", "greedy"):
        assert sum(placed(tr, BLOCK) for tr in traced(r, bots, range(8))) == 0


def test_counts_by_seat_give_each_seat_its_own_set():
    r = rules(tiles={"star6": {"count": {"A": 4, "B": 0}}})
    for (bag_a, hand_a), (bag_b, hand_b) in bags_of(r, 20):
        assert sorted(bag_a + hand_a).count(STAR6) == 4 and len(bag_a + hand_a) == 24
        assert STAR6 not in bag_b + hand_b and len(bag_b + hand_b) == 20
    star = [0, 0]
    for tr in traced(r, "greedy", range(10)):
        for m in tr.moves:
            if m["kind"] != "pass" and m["tile"] == "star6":
                star["AB".index(m["seat"])] += 1
    assert star[0] > 0 and star[1] == 0


def test_tile_points_stay_refused_and_bad_tables_are_one_line():
    bad = [({"star6": {"points": 4}}, r"tiles\.star6\.points = 4: no rule of mode 'battle' reads tile "
                                      r"points \(Battle's stalemate score counts every tile of the chain as 1"),
           ({t.name: {"count": 0} for t in TILE_TYPES}, r"seat A's bag would be empty"),
           ({"block": {"count": {"C": 1}}}, r"tiles\.block\.count\.C: no such seat; seats here: A, B")]
    for value, msg in bad:
        with pytest.raises(VariantError, match=msg) as e:
            rules(tiles=value)
        assert "\n" not in str(e.value) and str(e.value).startswith("test.toml")


def test_a_bad_battle_table_in_a_file_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "hexflow"\ndescription = "x"\n[rules]\nmode = "battle"\n'
                   '[rules.tiles.star6]\npoints = 4\n')
    res = CliRunner().invoke(app, ["run", str(bad), "--games", "10", "--no-progress", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0 and "tiles.star6.points = 4" in res.output


# ---- board ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("cols", [5, 7, 11])
def test_board_columns_plays_on_that_board(cols):
    r = rules(board_columns=cols, dots="none")
    board = board_of(cols)
    t = battle_engine.tables(r)
    assert t.nh == board.size == (cols + 1) // 2 * 9 + cols // 2 * 10
    last = chr(ord("a") + cols - 1)
    tz, startm, goalm, firstc, corner_any = BT.battle_tables(r)
    assert [board.names[h] for h in firstc.ravel()] == ["a1", "a9", f"{last}1", f"{last}9"]
    assert {board.names[h] for h in np.flatnonzero(corner_any)} == {"a1", "a9", f"{last}1", f"{last}9"}
    # goals: the far edge column; the middle three columns are contested (usable by both)
    assert {board.names[h][0] for h in np.flatnonzero(goalm[0])} == {last}
    assert {board.names[h][0] for h in np.flatnonzero(goalm[1])} == {"a"}
    mid = {chr(ord("a") + c) for c in range((cols - 3) // 2, (cols - 3) // 2 + 3)}
    both = {board.names[h][0] for h in range(board.size) if tz[0, h] and tz[1, h] and not corner_any[h]}
    assert both == mid
    letters = set()
    for bots in ("random", "greedy"):
        for tr in traced(r, bots, range(4)):  # verified: legal moves on this board only
            letters |= {m["hex"][0] for m in tr.moves if m["kind"] != "pass"}
    assert max(letters) == last
    cols_ = GAME.play_chunk(r, seats_for(GAME, r, "random"), 0, 100, 2)  # routed to the engine
    assert (cols_["turns"] > 0).all()


def test_board_columns_needs_a_dot_layout_of_its_own():
    with pytest.raises(VariantError, match="board_columns = 7: the default dot layout is the 9-column board's"):
        rules(board_columns=7)
    with pytest.raises(VariantError, match=r"dot_list entry \['i5', 3\]; allowed: \[hex, dots\] with hex one of a1\.\.g9"):
        rules(board_columns=7, dots="list", dot_list=[["i5", 3]])
    r = rules(board_columns=7, dots="list", dot_list=[["d5", 4]])
    for tr in traced(r, "greedy", range(2)):
        assert tr.data["dots"][board_of(7).hex_id("d5")] == 4 and sum(tr.data["dots"]) == 4


def test_zones_on_every_width():
    assert [BT.zone_letters(c) for c in (5, 7, 9, 11)] == [
        ("a", "b-d", "e"), ("a-b", "c-e", "f-g"), ("a-c", "d-f", "g-i"), ("a-d", "e-g", "h-k")]
    assert [BT.zone_of(h) for h in range(85)] == [board_of(9).cells[h][0] // 3 for h in range(85)]


# ---- hands ---------------------------------------------------------------------------------------
def test_per_seat_hand_sizes_deal_what_they_say():
    r = rules(hand_size={"B": 5})
    assert r["hand_size"] == {"A": 3, "B": 5} and rules(hand_size={"A": 3, "B": 3})["hand_size"] == 3
    for (_, hand_a), (_, hand_b) in bags_of(r, 30):
        assert len(hand_a) == 3 and len(hand_b) == 5
    for bots in ("random", "greedy"):
        list(traced(r, bots, range(0, 20, 5)))  # battle_verify.verify deals each seat its own hand
    small = rules(hand_size={"A": 1})
    for (_, hand_a), (_, hand_b) in bags_of(small, 10):
        assert len(hand_a) == 1 and len(hand_b) == 3
    a = GAME.play_chunk(small, seats_for(GAME, small, "random"), 0, 300, 4)
    b = GAME.play_chunk(rules(), seats_for(GAME, rules(), "random"), 0, 300, 4)
    assert not (a["turns"] == b["turns"]).all()


# ---- scores --------------------------------------------------------------------------------------
def test_base_score_and_dot_multipliers_change_the_scores_they_name():
    seats = seats_for(GAME, rules(), "random")  # random bots read no scores: the same games
    plain = GAME.play_chunk(rules(), seats, 0, 400, 9)
    scaled = GAME.play_chunk(rules(base_score=7), seats, 0, 400, 9)
    for k in plain:
        if not k.startswith("score_"):
            assert (plain[k] == scaled[k]).all(), k
    stale = plain["end_reason"] == GAME.end_reasons.index("stalemate_score")
    won = (plain["winner"] >= 0) & ~stale
    assert won.any() and stale.any()
    assert ((scaled["score_A"] + scaled["score_B"])[won] == 7).all()
    assert ((plain["score_A"] + plain["score_B"])[won] == 10).all()
    for k in ("score_A", "score_B"):
        assert (scaled[k][stale] == plain[k][stale]).all()
    flat = GAME.play_chunk(rules(dot_multipliers={"2": 0, "3": 0, "4": 0, "5": 0}), seats, 0, 400, 9)
    for s in "AB":  # no dot counts: L + 2 x captures
        want = flat[f"hexflow_battle_chain_{s}"] + 2 * flat[f"hexflow_battle_displacements_{s}"]
        assert (flat[f"score_{s}"][stale] == want[stale]).all()
        assert (plain[f"score_{s}"][stale] >= want[stale]).all()
    assert (plain["score_A"][stale] > flat["score_A"][stale]).any()
    big = rules(dot_multipliers={"2": 20})
    assert len(list(traced(big, "random", range(6), seed=9))) == 6  # verify recomputes the scores
    assert GAME.play_chunk(big, seats, 0, 400, 9)["score_A"][stale].sum() > plain["score_A"][stale].sum()


# ---- the pie rule --------------------------------------------------------------------------------
def test_swapped_games_are_legal_and_columns_come_out_by_player():
    r = rules(swap=True)
    for bots in (("random", "random"), ("greedy", "random"), ("greedy", "greedy")):
        seats = seats_for(GAME, r, list(bots))
        n = 200
        rows, swapped = GAME.play_rows(r, seats, 0, n, 8)
        by_seat = GAME.outcome_columns(r, rows)
        cols = GAME.play_chunk(r, seats, 0, n, 8)
        assert (cols["swapped"] == swapped).all() and swapped.any()
        if "random" in bots[1:]:
            assert (~swapped).any()  # a random second player swaps by a coin
        sw = swapped
        w = by_seat["winner"]
        assert (cols["winner"][sw] == np.where(w[sw] >= 0, 1 - w[sw], w[sw])).all()
        assert (cols["winner"][~sw] == w[~sw]).all()
        for k in by_seat:
            other = k[:-1] + "B" if k.endswith("_A") else (k[:-1] + "A" if k.endswith("_B") else k)
            if other != k:
                assert (cols[k][sw] == by_seat[other][sw]).all() and (cols[k][~sw] == by_seat[k][~sw]).all(), k
        assert (cols["first_seat"] == by_seat["first_seat"]).all()
        for i in np.flatnonzero(sw)[:3]:
            tr = GAME.play_traced(r, seats, int(i), 8)
            assert tr.data["swapped"] and tr.moves[1]["after_swap"]
            GAME.verify_trace(tr)
            assert all(tr.row[k] == cols[k][i] for k in tr.row)
    plain = GAME.play_chunk(rules(), seats, 0, 50, 8)
    assert "swapped" not in plain


# ---- defaults ------------------------------------------------------------------------------------
def test_defaults_keep_every_battle_hash():
    for kw in ({"tiles": {"block": {"count": 2}}}, {"hand_size": {"A": 3, "B": 3}}, {"base_score": 10},
               {"board_columns": 9}, {"swap": False}):
        assert rules(**kw) == rules(), kw  # a table that changes nothing plays as none
    for path in sorted((ROOT / "data" / "baselines" / "hexflow").glob("battle*.json")):
        stored = json.loads(path.read_text())["variant"]
        assert variants.load(stored["spec"]).hash == stored["hash"], path.name


def test_rules_command_says_which_parameters_battle_reads():
    res = CliRunner().invoke(app, ["rules", "hexflow"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    for name in ("tiles", "base_score", "dot_multipliers", "board_columns", "hand_size"):
        i = next(k for k, ln in enumerate(lines) if ln.startswith(f"{name} "))
        assert "Battle" in lines[i] + lines[i + 1], name
