"""HEXFLOW Tri-Board rule numbers as data (issue 20): tile counts and points per type and seat
(the Wildcard's count in tri), base_score, dot_bonuses, a hand size by seat, and the pie rule in
tri2p. Each changes what it should, is refused where no rule reads it (with the reason), and at
its default leaves the Tri tables, the kernel route and every game as they were."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.errors import VariantError
from sim.games.hexflow import GAME, tri_engine
from sim.games.hexflow import rules as R
from sim.games.hexflow import tri as T
from sim.games.hexflow.tiles import BLOCK, TILE_TYPES, TYPE_BY_NAME, tile_set
from sim.games.hexflow.triboard import WILDCARD, tri_board, tri_tile_set
from tests.game_checks import opening_sets, seats_for
from tests.test_hexflow_tri import SAME_CENTRE, _kernel_resolve, _state

STAR6 = TYPE_BY_NAME["star6"]


def rules(**kw):
    return GAME.resolve_rules(kw, "test.toml")


def start_sets(r, n=40, seed=3):
    """Each game's set-up (engine.start): per seat (bag still to draw, opening hand)."""
    return opening_sets(tri_engine.tables(r), tri_engine.Q_BAGN, n, seed)


def traced(r, bots, games, seed=5):
    seats = seats_for(GAME, r, bots)
    for i in games:
        tr = GAME.play_traced(r, seats, int(i), seed)
        GAME.verify_trace(tr)  # the pure-Python TriPosition replay, with these rules' numbers
        yield tr


def chunk(r, bots, n, seed=1):
    return GAME.play_chunk(r, seats_for(GAME, r, bots), 0, n, seed)


# ---- defaults ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_defaults_build_the_old_tables_and_keep_the_kernel_route(mode):
    r = rules(mode=mode)
    t = tri_engine.tables(r)
    want = tri_tile_set() if mode == "tri" else tile_set(2).astype(np.int64)
    assert all(row.tolist() == want.tolist() for row in np.asarray(t.tileset))
    assert t.nbag.tolist() == [len(want)] * t.n_seats and t.hand_of.tolist() == [3] * t.n_seats
    assert t.base_score == 10 and t.dot_bonus.tolist() == [0, 0, 3, 4, 5, 6]
    assert (np.asarray(t.points) == [tt.points for tt in TILE_TYPES]).all()
    # a table that says nothing new is no table: the same hash
    same = rules(mode=mode, tiles={"block": {"count": 2, "points": 1}}, hand_size={"III": 3})
    assert same["tiles"] == {} and same["hand_size"] == 3


# ---- tiles: counts -------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_count_zero_leaves_no_such_tile_in_any_bag_and_no_game_places_one(mode):
    # (tri: and no Wildcard declared a Block, which wildcard_block allows by default)
    extra = {"wildcard_block": False} if mode == "tri" else {}
    r = rules(mode=mode, tiles={"block": {"count": 0}}, **extra)
    for game in start_sets(r):
        for bag, hand in game:
            assert BLOCK not in bag + hand
    size = len(tri_tile_set() if mode == "tri" else tile_set(2)) - 2
    assert tri_engine.tables(r).nbag.tolist() == [size] * len(GAME.seat_names(r))
    seats = GAME.seat_names(r)
    plain = chunk(rules(mode=mode), "random", 300)
    assert sum(plain[f"hexflow_blocks_{s}"].sum() for s in seats) > 0  # by default Blocks are played
    for bots in ("random", "greedy"):  # random: the chunk kernel (every seat alike), greedy: the engine
        cols = chunk(r, bots, 300 if bots == "random" else 40)
        assert sum(cols[f"hexflow_blocks_{s}"].sum() for s in seats) == 0, bots


def test_the_wildcard_count_in_tri():
    none = rules(mode="tri", tiles={"wildcard": {"count": 0}})
    two = rules(mode="tri", tiles={"wildcard": {"count": {"I": 2}}})
    for game in start_sets(none, 20):
        assert all(WILDCARD not in bag + hand for bag, hand in game)
    for game in start_sets(two, 20):
        assert [(bag + hand).count(WILDCARD) for bag, hand in game] == [2, 1, 1]
    assert chunk(none, "random", 300)["hexflow_wildcards_II"].sum() == 0
    placed = chunk(two, "random", 300)
    assert placed["hexflow_wildcards_I"].sum() > placed["hexflow_wildcards_II"].sum()
    for tr in traced(two, "greedy", range(3)):
        assert sum(map(len, tr.data["bags"])) == 18 + 17 + 17


@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_counts_by_seat_give_each_seat_its_own_set(mode):
    seats = GAME.seat_names(rules(mode=mode))
    last = seats[-1]  # III, the first mover
    r = rules(mode=mode, tiles={"star6": {"count": {last: 0}}, "straight": {"count": 4}})
    counts = R.tile_counts(r, seats)
    assert counts[:, 0].tolist() == [4] * len(seats) and counts[-1, STAR6] == 0
    sets, sizes = R.tri_tile_sets(r, seats)
    for game in start_sets(r, 20):
        for q, (bag, hand) in enumerate(game):
            assert sorted(bag + hand) == sorted(sets[q, :sizes[q]].tolist())
            assert (STAR6 in bag + hand) == (q != len(seats) - 1 and counts[q, STAR6] > 0)
    for tr in traced(r, "random", range(0, 60, 6)):
        assert not any(m.get("tile") == "star6" and m["seat"] == last and not m.get("wildcard")
                       for m in tr.moves)


# ---- tiles: points -------------------------------------------------------------------------------
def _same_centre_with(points):
    """The same-centre scenario of test_hexflow_tri (II's and III's four Star-6 lines joined to c3
    by I's Y-Left: 25 points each, a tie that turn order gives III) under a tiebreak with these
    Star-6 points (a table by seat): (winner's seat, level) of the kernel and the Python replay."""
    r = GAME.resolve_rules({"mode": "tri", "board_side": 8, "tiles": {"star6": {"points": points}}}, "t")
    tb, s, pos, dots = _state(r, SAME_CENTRE)
    cmask, win, level = _kernel_resolve(r, tb, s, dots)
    reached = {q: pos.centres_reached(q) for q in range(3)}
    py_win, py_level = T._py_resolve(pos, [1, 2], reached, [2, 1, 0], "shared")
    assert {int(win).bit_length() - 1} == py_win and level == py_level
    return pos.seats[int(win).bit_length() - 1], int(level)


def test_points_change_the_tiebreak_sums_by_the_placer_of_each_tile():
    assert _same_centre_with(5) == ("III", T.TB_ORDER)  # the card's points: tied, turn order
    assert _same_centre_with({"III": 4}) == ("II", T.TB_POINTS)  # III's Star-6 worth less: 21 < 25
    assert _same_centre_with({"II": 6}) == ("II", T.TB_POINTS)
    assert _same_centre_with({"I": 9}) == ("III", T.TB_ORDER)  # I placed no Star-6: no change


def test_points_change_the_draw_list_and_nothing_the_bots_play():
    # random tri games mostly stall and the draw list decides: nearest to a centre hex, then the
    # tile points of the corner's lines; the bots never read points, so the games are the same
    plain = rules(mode="tri")
    heavy = rules(mode="tri", tiles={"star6": {"points": {"II": 10}}, "block": {"points": {"II": 10}},
                                     "straight": {"points": {"II": 10}}})
    a = chunk(plain, "random", 800, 4)
    b = chunk(heavy, "random", 800, 4)
    for k in a:
        if k not in ("winner", "end_reason", "hexflow_winners") and not k.startswith("score_"):
            assert (a[k] == b[k]).all(), k
    changed = np.flatnonzero(a["winner"] != b["winner"])
    assert len(changed) > 0 and (b["winner"][changed] == 1).mean() > 0.5  # mostly to II
    assert (b["end_reason"][changed] != R.END_REASONS.index("path")).all()
    for tr in traced(heavy, "random", changed[:3], seed=4):
        assert tr.row["winner"] == b["winner"][tr.game_index]
    t = tri_engine.tables(heavy)
    assert t.points[1, STAR6] == 10 and t.points[0, STAR6] == t.points[2, STAR6] == 5


# ---- scores --------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_base_score_and_dot_bonuses_change_the_score_sums_only(mode):
    seats = GAME.seat_names(rules(mode=mode))
    plain = chunk(rules(mode=mode), "random", 600, 9)
    won = [plain["winner"] == q for q in range(len(seats))]
    low = chunk(rules(mode=mode, base_score=7), "random", 600, 9)
    flat = chunk(rules(mode=mode, dot_bonuses={"2": 0, "3": 0, "4": 0, "5": 0}), "random", 600, 9)
    big = chunk(rules(mode=mode, dot_bonuses={"5": 40}), "random", 600, 9)
    for k in plain:  # the bots do not read scores: the same games
        if not k.startswith("score_"):
            assert (plain[k] == low[k]).all() and (plain[k] == flat[k]).all() and (plain[k] == big[k]).all(), k
    path = np.isin(plain["end_reason"], [R.END_REASONS.index("path"), R.END_REASONS.index("opponent_path")])
    for q, s in enumerate(seats):
        col = f"score_{s}"
        assert (low[col] == np.where(plain[col] > 0, plain[col] - 3, 0)).all()
        assert (flat[col][won[q]] == 10).all()
    total = sum(plain[f"score_{s}"] for s in seats)
    assert (total[path] > 10).any()  # some winning paths collect dot bonuses
    over = sum(big[f"score_{s}"] for s in seats) - total
    assert (over >= 0).all() and (over[path] > 0).any() and (over[~path] == 0).all()
    r = rules(mode=mode, dot_bonuses={"5": 40}, base_score=3)
    for tr in traced(r, "random", np.flatnonzero(path)[:4], seed=9):  # the replay scores alike
        assert tr.row[f"score_{seats[tr.row['winner']]}"] >= 3


# ---- hands ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_per_seat_hand_sizes_deal_what_they_say(mode):
    seats = GAME.seat_names(rules(mode=mode))
    r = rules(mode=mode, hand_size={"III": 5, "II": 1})
    assert r["hand_size"] == dict(zip(seats, [3, 1, 5] if mode == "tri" else [1, 5], strict=True))
    for game in start_sets(r, 20):
        assert [len(hand) for _, hand in game] == R.hand_sizes(r, seats)
    for tr in traced(r, "greedy", range(0, 12, 4)):
        assert tr.rules["hand_size"] == r["hand_size"]
    assert len(list(traced(r, "random", range(0, 12, 4)))) == 3  # each replayed and verified
    a = chunk(rules(mode=mode), "random", 300, 4)
    b = chunk(r, "random", 300, 4)
    assert not (a["turns"] == b["turns"]).all()


# ---- the pie rule --------------------------------------------------------------------------------
def test_tri2p_swap_turns_the_columns_to_the_players():
    r = rules(mode="tri2p", swap=True)
    for bots in (("random", "random"), ("greedy", "random")):
        seats = seats_for(GAME, r, list(bots))
        n = 300
        rows, swapped = GAME.play_rows(r, seats, 0, n, 8)
        by_seat = GAME.outcome_columns(r, rows)
        cols = GAME.play_chunk(r, seats, 0, n, 8)
        assert (cols["swapped"] == swapped).all()
        if bots[0] == "random":
            assert swapped.any() and (~swapped).any()
        sw = swapped
        w = by_seat["winner"]
        assert (cols["winner"][sw] == np.where(w[sw] >= 0, 1 - w[sw], w[sw])).all()
        assert (cols["winner"][~sw] == w[~sw]).all()
        for k in by_seat:
            if k.endswith("_II") or k.endswith("_III"):
                other = k[:-3] + "_III" if k.endswith("_II") else k[:-4] + "_II"
                assert (cols[k][sw] == by_seat[other][sw]).all() and (cols[k][~sw] == by_seat[k][~sw]).all(), k
        m = by_seat["hexflow_shared_mask"]
        assert (cols["hexflow_shared_mask"][sw] == ((m[sw] & 1) << 1 | (m[sw] >> 1))).all()
        assert (cols["first_seat"] == by_seat["first_seat"]).all()
        for i in np.flatnonzero(sw)[:3]:
            tr = GAME.play_traced(r, seats, int(i), 8)
            assert tr.data["swapped"] and tr.moves[1]["after_swap"]
            GAME.verify_trace(tr)
            assert all(tr.row[k] == cols[k][i] for k in tr.row)
    # greedy judges by the Tri evaluation, which weighs a leading opponent fully and a trailing one
    # a quarter: after III's first tile II's own side looks better, so greedy never swaps
    assert not chunk(r, "greedy", 30)["swapped"].any()
    assert "swapped" not in chunk(rules(mode="tri2p"), "greedy", 5)


# ---- validation ----------------------------------------------------------------------------------
def test_tri_rules_are_validated_in_one_line_with_the_reason():
    bad = [(dict(mode="tri2p", tiles={"wildcard": {"count": 1}}), r"tiles\.wildcard: mode 'tri2p' has no Wildcard"),
           (dict(mode="race", tiles={"wildcard": {"count": 1}}), r"mode 'race' has no Wildcard"),
           (dict(mode="tri", tiles={"wildcard": {"points": 3}}), r"a Wildcard is worth its declared type's points"),
           (dict(mode="tri", tiles={"wildcrd": {"count": 1}}), r"no such tile type; allowed: .*wildcard in mode 'tri'"),
           (dict(mode="tri", tiles={"block": {"count": {"A": 1}}}), r"count\.A: no such seat; seats here: I, II, III"),
           (dict(mode="tri", tiles={"star6": {"points": 11}}), r"star6\.points = 11; allowed: a whole number in \[0, 10\]"),
           (dict(mode="tri", tiles={t.name: {"count": {"II": 0}} for t in TILE_TYPES} | {"wildcard": {"count": {"II": 0}}}),
            r"seat II's bag would be empty"),
           (dict(mode="tri", dot_multipliers={"2": 5}), r"does not apply to mode 'tri' \(Tri-Board dot hexes add flat bonuses"),
           (dict(mode="tri2p", dot_multipliers={"2": 5}), r"set dot_bonuses"),
           (dict(mode="race", dot_bonuses={"2": 5}), r"does not apply to mode 'race' \(Race multiplies"),
           (dict(mode="battle", dot_bonuses={"2": 5}), r"does not apply to mode 'battle'"),
           (dict(mode="tri", dot_bonuses={"6": 5}), r"dot_bonuses\.6: unknown; allowed: 2, 3, 4, 5"),
           (dict(mode="tri", swap=True), r"swap = true needs 2 players \(these rules seat 3\)"),
           (dict(mode="tri", hand_size={"IV": 2}), r"hand_size\.IV: no such seat; seats here: I, II, III"),
           (dict(mode="tri", first_player="A"), r"the card fixes the turn order"),
           (dict(mode="tri", base_score=0), r"base_score = 0 out of range")]
    for kw, msg in bad:
        with pytest.raises(VariantError, match=msg) as e:
            rules(**kw)
        assert "\n" not in str(e.value) and str(e.value).startswith("test.toml"), kw


def test_a_bad_tri_table_in_a_file_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "hexflow"\ndescription = "x"\n[rules]\nmode = "tri2p"\n'
                   '[rules.tiles.wildcard]\ncount = 1\n')
    res = CliRunner().invoke(app, ["run", str(bad), "--games", "10", "--no-progress", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0 and "tiles.wildcard" in res.output


def test_rules_command_lists_dot_bonuses_and_the_tri_readings():
    res = CliRunner().invoke(app, ["rules", "hexflow"])
    assert res.exit_code == 0, res.output
    assert "\ndot_bonuses " in res.output
    line = next(ln for ln in res.output.splitlines() if ln.startswith("hand_size "))
    assert "a table by seat" in line


def test_the_tri_board_itself_is_unchanged_by_the_new_keys():
    # the new keys change bags, hands and numbers only: the same board, corners, centres and dots
    a = tri_engine.tables(rules(mode="tri"))
    b = tri_engine.tables(rules(mode="tri", tiles={"block": {"count": 0}}, base_score=20, hand_size={"I": 4}))
    for f in ("nbr", "corners", "centres", "dots_fixed", "order"):
        assert (np.asarray(getattr(a, f)) == np.asarray(getattr(b, f))).all(), f
    assert tri_board(14).size == a.nh


def test_draw_key_orders_as_the_draw_list_at_every_allowed_setting():
    """The packed draw-list key keeps the order (nearer, then points, then dot hexes) even with
    the most points the largest board can hold: points and dot hexes stay below their step."""
    side = GAME.param("board_side").high
    hexes = side * (side + 1) // 2
    most = R.TILE_KEYS["points"][1] * hexes
    assert most < 1 << tri_engine.KEY_SHIFT and hexes < 1 << tri_engine.KEY_SHIFT
    key = tri_engine._draw_key
    assert key(5, 0, 0) > key(6, most, hexes) > key(6, most - 1, hexes) > key(6, most - 1, hexes - 1)
    assert key(1 << 20, 0, 0) == 0 and key(0, 0, 0) > key(1, most, hexes)


def test_corner_block_is_a_tri_reading():
    for mode in ("tri", "tri2p"):
        assert rules(mode=mode, corner_block="no_path")["corner_block"] == "no_path"
    with pytest.raises(VariantError, match="does not apply to mode 'race'"):
        rules(corner_block="no_path")
    with pytest.raises(VariantError):
        rules(mode="tri", corner_block="maybe")


@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_corner_block_no_path_games_replay(mode):
    """Games under corner_block = 'no_path' pass the pure-Python replay (its draw list and the
    reach columns read the Block on a corner the same way)."""
    r = rules(mode=mode, corner_block="no_path")
    bots = ["random"] * len(GAME.seat_names(r))
    assert len(list(traced(r, bots, range(6)))) == 6
