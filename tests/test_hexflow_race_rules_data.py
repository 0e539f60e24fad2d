"""HEXFLOW Race rule numbers as data (issue 20): tile counts and points per type and seat, the
base score and dot multipliers, the board width, per-seat hand sizes, the two readings
(opponent_corners, first_tile) and the pie rule. Each changes what it should, is refused where no
rule reads it, and at its default leaves every variant's hash and games as they were."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.errors import VariantError
from sim.games.hexflow import GAME, race
from sim.games.hexflow import game as G
from sim.games.hexflow import rules as R
from sim.games.hexflow.board import board_of, corners_of
from sim.games.hexflow.position import Position
from sim.games.hexflow.tiles import BLOCK, TILE_TYPES, TYPE_BY_NAME, networks
from sim.runs import variants
from tests.game_checks import opening_sets, seats_for

ROOT = Path(__file__).resolve().parent.parent
STAR6 = TYPE_BY_NAME["star6"]


def rules(**kw):
    return GAME.resolve_rules(kw, "test.toml")


def bags_of(r, n=60, seed=3):
    """Each game's two shuffled bags and hands at set-up (engine.start), as per-seat tile lists."""
    return opening_sets(race.tables(r), race.Q_BAGN, n, seed)


def traced(r, bots, games, seed=5):
    seats = seats_for(GAME, r, bots)
    for i in games:
        tr = GAME.play_traced(r, seats, i, seed)
        GAME.verify_trace(tr)
        yield tr


# ---- tiles ---------------------------------------------------------------------------------------
def test_count_zero_leaves_no_such_tile_in_any_bag_and_no_game_places_one():
    r = rules(tiles={"block": {"count": 0}})
    assert R.tile_counts(r, ["A", "B"])[:, BLOCK].tolist() == [0, 0]
    for game in bags_of(r):
        for bag, hand in game:
            assert BLOCK not in bag + hand and len(bag) + len(hand) == 20
    # random bots too (they would take the chunk kernel, which has no tile counts: routed away)
    cols = GAME.play_chunk(r, seats_for(GAME, r, "random"), 0, 400, 1)
    assert cols["hexflow_blocks_A"].sum() == cols["hexflow_blocks_B"].sum() == 0
    assert cols["hexflow_tiles_A_block"].sum() == 0
    plain = GAME.play_chunk(rules(), seats_for(GAME, rules(), "random"), 0, 400, 1)
    assert plain["hexflow_blocks_A"].sum() > 0  # by default Blocks are played


def test_counts_by_seat_give_each_seat_its_own_set():
    r = rules(tiles={"star6": {"count": {"B": 0}}, "straight": {"count": 4}})
    counts = R.tile_counts(r, ["A", "B"])
    assert counts[0, STAR6] == 2 and counts[1, STAR6] == 0 and counts[:, 0].tolist() == [4, 4]
    for game in bags_of(r, 30):
        (bag_a, hand_a), (bag_b, hand_b) = game
        assert sorted(bag_a + hand_a) == sorted(np.repeat(np.arange(11), counts[0]).tolist())
        assert STAR6 not in bag_b + hand_b and len(bag_b) + len(hand_b) == 22 - 2 + 2
    for tr in traced(r, "greedy", range(0, 40, 8)):
        assert tr.row["hexflow_tiles_B_star6"] == 0


def test_tiles_are_validated_in_one_line_and_canonical():
    assert rules(tiles={"block": {"count": 2}})["tiles"] == {}  # = copies_per_type: no change
    assert rules(tiles={"block": {"count": {"A": 1, "B": 1}}})["tiles"] == {"block": {"count": 1}}
    assert rules(tiles={"block": {"count": {"B": 1}}})["tiles"] == {"block": {"count": {"A": 2, "B": 1}}}
    bad = [({"blok": {"count": 0}}, r"tiles\.blok: no such tile type; allowed: straight, x_cross"),
           ({"block": {"cnt": 0}}, r"tiles\.block\.cnt: unknown; allowed: count, points"),
           ({"block": {"count": 5}}, r"tiles\.block\.count = 5; allowed: a whole number in \[0, 4\]"),
           ({"block": {"count": {"C": 1}}}, r"tiles\.block\.count\.C: no such seat; seats here: A, B"),
           ({"block": 0}, r"tiles\.block = 0; allowed: a table of count and/or points"),
           ({t.name: {"count": 0} for t in TILE_TYPES}, r"seat A's bag would be empty"),
           ({"star6": {"points": 4}}, r"tiles\.star6\.points = 4: no rule of mode 'race' reads tile points")]
    for value, msg in bad:
        with pytest.raises(VariantError, match=msg) as e:
            rules(tiles=value)
        assert "\n" not in str(e.value) and str(e.value).startswith("test.toml")
    assert R.tile_points(rules(), ["A", "B"])[0].tolist() == [t.points for t in TILE_TYPES]


@pytest.mark.parametrize("mode", ["battle", "tri", "tri2p"])
def test_modes_that_do_not_read_the_new_rules_refuse_them(mode):
    # Battle reads tiles (counts), base_score, dot_multipliers, board_columns, swap and hand sizes
    # by seat (tests/test_hexflow_battle_rules_data.py); the Tri modes tiles, base_score, hands by
    # seat and (tri2p) swap (tests/test_hexflow_tri_rules_data.py); every mode refuses the two
    # Race readings
    reads = G.MODE_PARAMS[mode]
    for kw in ({"tiles": {"block": {"count": 0}}}, {"base_score": 5}, {"board_columns": 7, "dots": "none"},
               {"opponent_corners": "reserved"}, {"first_tile": "onto_board"}, {"dot_multipliers": {"2": 1}}):
        if set(kw) - {"dots"} <= set(reads):
            continue
        with pytest.raises(VariantError, match=f"does not apply to mode '{mode}'|needs 2 players"):
            rules(mode=mode, **kw)
    if mode == "tri":
        with pytest.raises(VariantError, match="needs 2 players"):
            rules(mode=mode, swap=True)


# ---- scores --------------------------------------------------------------------------------------
def test_base_score_and_dot_multipliers_change_the_score_sums_only():
    # random bots: more games end by a path than greedy's (mostly decided by a cut); the defaults
    # play on the chunk kernel, the others on the engine: the same games
    seats = seats_for(GAME, rules(), "random")
    plain = GAME.play_chunk(rules(), seats, 0, 600, 9)
    scaled = GAME.play_chunk(rules(base_score=7), seats, 0, 600, 9)
    for k in plain:  # the bots do not read scores: the same games
        if not k.startswith("score_"):
            assert (plain[k] == scaled[k]).all(), k
    total = plain["score_A"] + plain["score_B"]
    assert (10 * (scaled["score_A"] + scaled["score_B"]) == 7 * total).all()
    assert (total > 10).any()  # some paths collect dots
    flat = GAME.play_chunk(rules(dot_multipliers={"2": 0, "3": 0, "4": 0, "5": 0}), seats, 0, 600, 9)
    won = plain["winner"] >= 0
    assert ((flat["score_A"] + flat["score_B"])[won] == 10).all()
    assert flat["hexflow_path_dot_hexes"].sum() == 0 < plain["hexflow_path_dot_hexes"].sum()
    # a 2-dot hex worth x10: the paths over one score more; the Position API scores them apart
    big = rules(dot_multipliers={"2": 10})
    cols = GAME.play_chunk(big, seats, 0, 600, 9)
    over = np.flatnonzero(plain["hexflow_path_dot_hexes"] > 0)
    assert ((cols["score_A"] + cols["score_B"])[over] > total[over]).any()
    for tr in traced(big, "random", over[:4], seed=9):
        assert tr.row["score_A"] + tr.row["score_B"] == cols["score_A"][tr.game_index] + cols["score_B"][tr.game_index]


# ---- board ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("cols", [5, 7, 11])
def test_board_columns_plays_on_that_board(cols):
    r = rules(board_columns=cols, dots="none")
    t = race.tables(r)
    assert t.nh == (cols + 1) // 2 * 9 + cols // 2 * 10 == board_of(cols).size
    last = chr(ord("a") + cols - 1)
    assert [board_of(cols).names[h] for h in corners_of(cols).ravel()] == ["a9", f"{last}1", "a1", f"{last}9"]
    letters = set()
    for tr in traced(r, "greedy", range(6)):
        letters |= {m["hex"][0] for m in tr.moves if m["move"] != "pass"}
        if tr.row["hexflow_path_completed"]:
            assert tr.data["path"][0] in {"a9", f"{last}1", "a1", f"{last}9"}
    assert max(letters) <= last and last in letters
    cols_ = GAME.play_chunk(r, seats_for(GAME, r, "random"), 0, 200, 2)
    assert (cols_["winner"] >= -1).all() and cols_["turns"].max() < 2 * t.nh


def test_board_columns_needs_a_dot_layout_of_its_own():
    with pytest.raises(VariantError, match="board_columns = 7: the default dot layout is the 9-column board's"):
        rules(board_columns=7)
    with pytest.raises(VariantError, match=r"dot_list entry \['i5', 3\]; allowed: \[hex, dots\] with hex one of a1\.\.g9"):
        rules(board_columns=7, dots="list", dot_list=[["i5", 3]])
    with pytest.raises(VariantError, match="board_columns = 8"):
        rules(board_columns=8, dots="none")
    r = rules(board_columns=7, dots="random")
    dots = [tr.data["dots"] for tr in traced(r, "random", range(3))]
    assert all(sorted(d)[-13:] == sorted(x for _, x in R.DEFAULT_DOTS) for d in dots) and dots[0] != dots[1]


# ---- hands ---------------------------------------------------------------------------------------
def test_per_seat_hand_sizes_deal_what_they_say():
    r = rules(hand_size={"B": 5})
    assert r["hand_size"] == {"A": 3, "B": 5} and rules(hand_size={"A": 3, "B": 3})["hand_size"] == 3
    for (_, hand_a), (_, hand_b) in bags_of(r, 40):
        assert len(hand_a) == 3 and len(hand_b) == 5
    for tr in traced(r, "greedy", range(0, 30, 6)):  # Position replays with each seat's hand
        assert tr.rules["hand_size"] == {"A": 3, "B": 5}
    cols = GAME.play_chunk(r, seats_for(GAME, r, "random"), 0, 300, 4)  # random: routed to the engine
    small = rules(hand_size={"A": 1, "B": 1}, blocked_player_loses=False, block_placement="connected")
    one = GAME.play_chunk(small, seats_for(GAME, small, "random"), 0, 300, 4)
    assert one["hexflow_passes_A"].sum() > 0 and not (cols["turns"] == one["turns"]).all()


# ---- the two readings ----------------------------------------------------------------------------
def test_opponent_corners_reserved_keeps_players_off_the_others_corners():
    def on_other_corner(r, bots, n):
        hits = 0
        for tr in traced(r, bots, range(n)):
            b = board_of(9)
            corners = {s: {b.names[h] for h in corners_of(9)[q]} for q, s in enumerate("AB")}
            hits += sum(m["move"] != "pass" and m["hex"] in corners["B" if m["seat"] == "A" else "A"]
                        for m in tr.moves)
        return hits
    assert on_other_corner(rules(), "random", 30) > 0  # as written: allowed (a Block there wins)
    for bots in ("random", "greedy", "lookahead"):
        assert on_other_corner(rules(opponent_corners="reserved"), bots, 20) == 0
    pos = Position(rules(opponent_corners="reserved"))
    pos.place("A", "a9", "star6", 0)
    pos.place("A", "a8", "straight", 0)
    assert "reserved" in pos.why_illegal("A", "a1", "block", 0)
    assert Position(rules()).why_illegal("B", "a1", "block", 0) is None


def test_first_tile_onto_board_forbids_a_dead_first_tile():
    def dead_firsts(r, bots, n):
        out = 0
        for tr in traced(r, bots, range(n)):
            for seat in "AB":
                first = next((m for m in tr.moves if m["seat"] == seat and m["move"] != "pass"), None)
                if first is not None:
                    board = board_of(9)
                    h = board.hex_id(first["hex"])
                    nets = networks(TYPE_BY_NAME[first["tile"]], first["rotation"])  # a Block: none
                    sides = {s for m in nets for s in range(6) if (m >> s) & 1}
                    out += not any(board.nbr[h, s] >= 0 for s in sides)
        return out
    assert dead_firsts(rules(), "random", 60) > 0  # as written: a Block first is legal (and loses)
    for bots in ("random", "greedy"):
        assert dead_firsts(rules(first_tile="onto_board"), bots, 30) == 0
    pos = Position(rules(first_tile="onto_board"))
    assert "first tile needs a line end" in pos.why_illegal("A", "a9", "block", 0)
    assert pos.why_illegal("A", "a9", "straight", 0) is None  # T - B: T faces a8


# ---- the pie rule --------------------------------------------------------------------------------
def test_swapped_games_are_legal_and_columns_come_out_by_player():
    r = rules(swap=True)
    for bots in (("random", "random"), ("greedy", "random")):
        seats = seats_for(GAME, r, list(bots))
        n = 300
        rows, swapped = GAME.play_rows(r, seats, 0, n, 8)
        by_seat = GAME.outcome_columns(r, rows)
        cols = GAME.play_chunk(r, seats, 0, n, 8)
        assert (cols["swapped"] == swapped).all() and swapped.any()
        if bots[0] == "random":
            assert (~swapped).any()
        sw = swapped
        w = by_seat["winner"]
        assert (cols["winner"][sw] == np.where(w[sw] >= 0, 1 - w[sw], w[sw])).all()
        assert (cols["winner"][~sw] == w[~sw]).all()
        for k in by_seat:
            other = k.replace("_A", "_B") if "_A" in k else k.replace("_B", "_A")
            if other != k:
                assert (cols[k][sw] == by_seat[other][sw]).all() and (cols[k][~sw] == by_seat[k][~sw]).all(), k
        for i in np.flatnonzero(sw)[:4]:
            tr = GAME.play_traced(r, seats, int(i), 8)
            assert tr.data["swapped"] and tr.moves[1]["after_swap"]
            GAME.verify_trace(tr)
            assert all(tr.row[k] == cols[k][i] for k in tr.row)
    # the swapper is the second player: their bot row now wins what the first seat wins
    assert (cols["first_seat"] == by_seat["first_seat"]).all()


def test_swap_off_and_defaults_keep_every_hash():
    plain = GAME.play_chunk(rules(), seats_for(GAME, rules(), "greedy"), 0, 100, 2)
    assert "swapped" not in plain
    for path in sorted((ROOT / "data" / "baselines" / "hexflow").glob("*.json")):
        stored = json.loads(path.read_text())["variant"]
        v = variants.load(stored["spec"])
        assert v.hash == stored["hash"], path.name


def test_rules_command_lists_the_new_parameters_and_marks_per_seat():
    res = CliRunner().invoke(app, ["rules", "hexflow"])
    assert res.exit_code == 0, res.output
    for name in ("tiles", "base_score", "dot_multipliers", "board_columns", "opponent_corners",
                 "first_tile", "swap"):
        assert f"\n{name} " in res.output, name
    line = next(ln for ln in res.output.splitlines() if ln.startswith("hand_size "))
    assert "a table by seat" in line


def test_a_bad_tile_table_in_a_file_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "hexflow"\ndescription = "x"\n[rules.tiles.block]\ncount = 7\n')
    res = CliRunner().invoke(app, ["run", str(bad), "--games", "10", "--no-progress", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0 and "tiles.block.count = 7" in res.output


def test_restricted_play_removes_each_tile_type_from_both_bags():
    alts = GAME.restricted_play(rules())
    assert [a for a, _ in alts] == [f"no {t.name}" for t in TILE_TYPES]
    label, point = alts[BLOCK]
    v = variants.load("hexflow/race", overrides=point)
    assert R.tile_counts(v.rules, ["A", "B"])[:, BLOCK].tolist() == [0, 0]
    assert len(GAME.restricted_play(rules(tiles={"block": {"count": 0}}))) == 10


def test_pictures_draw_other_boards_and_swapped_games(tmp_path):
    for kw in ({"board_columns": 11, "dots": "random"}, {"swap": True}):
        r = rules(**kw)
        tr = GAME.play_traced(r, seats_for(GAME, r, "greedy"), 1, 3)
        out = tmp_path / f"{len(kw)}{kw.get('board_columns', 9)}.png"
        GAME.draw(tr, str(out))
        GAME.draw(tr, str(out.with_suffix(".all.png")), every_move=True)
        assert out.stat().st_size > 10_000 and out.with_suffix(".all.png").exists()
