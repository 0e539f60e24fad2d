"""Hexa-Trex as a hexsim game: the shared check suite on every shipped variant and bot
pairing, variant files, pictures, report rows, schema errors and bot strength."""

from __future__ import annotations

import tomllib
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.errors import VariantError
from sim.games.base import SeatBot
from sim.games.hexatrex import GAME
from sim.games.hexatrex.tiles import DEFAULT_COUNTS
from tests.game_checks import check_game, seats_for

VARIANTS = Path(__file__).resolve().parent.parent / "variants" / "hexatrex"
SHIPPED = ["standard", "three", "four", "any_brackets", "no_repeat", "second_bonus", "swap"]


def load_variant(name: str) -> tuple[dict, dict]:
    """Read a shipped variant (following `extends`) -> (rules, seats) as written."""
    data = tomllib.loads((VARIANTS / f"{name}.toml").read_text())
    assert data["game"] == "hexatrex" and data["description"]
    rules, seats = {}, {}
    if "extends" in data:
        base_rules, base_seats = load_variant(Path(data["extends"]).stem)
        rules.update(base_rules)
        seats.update(base_seats)
    rules.update(data.get("rules", {}))
    seats.update(data.get("seats", {}))
    return rules, seats


def test_every_shipped_variant_is_here_and_valid():
    assert sorted(p.stem for p in VARIANTS.glob("*.toml")) == sorted(SHIPPED)
    players = {}
    for name in SHIPPED:
        rules = GAME.resolve_rules(load_variant(name)[0], name)
        players[name] = rules["players"]
    assert players == {"standard": 2, "three": 3, "four": 4, "any_brackets": 2, "no_repeat": 2,
                       "second_bonus": 2, "swap": 2}
    assert GAME.resolve_rules(load_variant("second_bonus")[0], "x")["second_player_bonus"] == 3
    assert GAME.resolve_rules(load_variant("swap")[0], "x")["swap"] is True
    assert GAME.resolve_rules(load_variant("any_brackets")[0], "x")["bracketing"] == "any"
    assert GAME.resolve_rules(load_variant("no_repeat")[0], "x")["tile_repeat"] == "never"


def _pairings(players):
    return ["random", "greedy", ["greedy"] + ["random"] * (players - 1)]


@pytest.mark.parametrize("name", SHIPPED)
def test_check_suite_on_shipped_variants(name):
    rules = GAME.resolve_rules(load_variant(name)[0], name)
    for bots in _pairings(rules["players"]):
        greedy = bots != "random"
        cols = check_game(GAME, rules, bots, n=6 if greedy else 16, traced=2 if greedy else 3)
        assert (cols["turns"] == sum(DEFAULT_COUNTS)).all()  # every tile is placed


def test_check_suite_other_readings():
    """Long equations (the DFS finder, not the side-walk store), first player rules, a
    designer's tile set with 9 tiles, readings switched off."""
    check_game(GAME, {"max_equation_tiles": 9, "tile_counts": [2] * 10 + [3, 3, 2, 2]},
               "random", n=8, traced=2)
    check_game(GAME, {"first_player": "A", "require_operator": False, "leading_zero": True,
                      "negative_zero": True, "six_as_nine": False, "plus_as_times": False},
               "greedy", n=4, traced=1)
    cols = check_game(GAME, {"first_player": "rotate", "players": 3}, "random", n=9, traced=2)
    np.testing.assert_array_equal(cols["first_seat"], np.arange(9) % 3)
    rules = GAME.resolve_rules({"first_player": "A"}, "t")
    later = GAME.play_chunk(rules, seats_for(GAME, rules, "random"), 5, 3, 1)  # a chunk not at game 0
    np.testing.assert_array_equal(later["first_seat"], 0)


def test_greedy_bot_seeing_short_equations_only():
    rules = GAME.resolve_rules({}, "t")
    weak = GAME.bot("greedy", "t")
    seats = [SeatBot(weak, {"max_equation_tiles": 5}), SeatBot(weak, {"max_equation_tiles": 0})]
    check_game(GAME, rules, ["greedy", "greedy"], n=4, traced=1)
    a = GAME.play_chunk(rules, seats, 0, 4, 7)
    b = GAME.play_chunk(rules, seats_for(GAME, rules, "greedy"), 0, 4, 7)
    assert not all(np.array_equal(a[k], b[k]) for k in a), "the skill knob changed nothing"
    trace = GAME.play_traced(rules, seats, 2, 7)
    GAME.verify_trace(trace)


def test_greedy_beats_random_and_first_draw_is_fair():
    """Fixed seed, tolerances far from the measured values (greedy wins ~all games)."""
    rules = GAME.resolve_rules({}, "t")
    seats = seats_for(GAME, rules, ["greedy", "random"])
    cols = GAME.play_chunk(rules, seats, 0, 30, 2024)
    assert (cols["winner"] == 0).mean() > 0.8
    assert cols["score_A"].mean() > 3 * cols["score_B"].mean()
    rand = GAME.play_chunk(rules, seats_for(GAME, rules, "random"), 0, 400, 5)
    assert 0.4 < (rand["first_seat"] == 0).mean() < 0.6
    assert (rand["hexatrex_draw_rounds"] >= 1).all()
    assert set(np.unique(rand["hexatrex_turn_order"])) == {12, 21}


def test_schema_errors_are_one_line_and_name_the_key():
    with pytest.raises(VariantError, match="players"):
        GAME.resolve_rules({"players": 5}, "v.toml")
    with pytest.raises(VariantError, match="tile_counts"):
        GAME.resolve_rules({"tile_counts": [1, 2]}, "v.toml")
    with pytest.raises(VariantError, match="tile_counts sum"):
        GAME.resolve_rules({"tile_counts": [0] * 13 + [1]}, "v.toml")
    with pytest.raises(VariantError, match="did you mean 'bracketing'"):
        GAME.resolve_rules({"bracketting": "any"}, "v.toml")
    with pytest.raises(VariantError, match="max_equation_tiles"):
        GAME.resolve_rules({"max_equation_tiles": 13}, "v.toml")
    assert any("no tile counts" in w for w in GAME.warnings(GAME.defaults()))
    assert GAME.seat_names(GAME.resolve_rules({"players": 4}, "x")) == ["A", "B", "C", "D"]


def test_draw_pictures(tmp_path):
    rules = GAME.resolve_rules({"players": 3}, "t")
    trace = GAME.play_traced(rules, seats_for(GAME, rules, "greedy"), 1, 3)
    texts = [e["text"] for mv in trace.moves for e in mv["equations"]]
    assert texts and all("=" in x and "?" not in x for x in texts)
    end = tmp_path / "end.png"
    GAME.draw(trace, str(end))
    assert end.stat().st_size > 20_000
    short = type(trace)(**{**trace.__dict__, "moves": trace.moves[:8]})
    every = tmp_path / "every.png"
    GAME.draw(short, str(every), every_move=True)
    assert every.stat().st_size > 10_000


def test_report_metrics():
    rules = GAME.resolve_rules({}, "t")
    df = pd.DataFrame(GAME.play_chunk(rules, seats_for(GAME, rules, ["greedy", "random"]), 0, 12,
                                      9))
    rows = {r["metric"]: r for r in GAME.report_metrics(df, rules)}
    assert rows["seat A win rate"]["n"] == 12
    assert rows["seat A win rate"]["value"] > rows["seat B win rate"]["value"]
    hist = [rows[f"equations of {k} tiles (share of all equations)"] for k in range(3, 8)]
    assert sum(r["successes"] for r in hist) == hist[0]["n"] > 0
    assert abs(sum(r["value"] for r in hist) - 1) < 1e-9
    eqs = df[[c for c in df if c.startswith("hexatrex_equations_")]].to_numpy().sum()
    assert hist[0]["n"] == eqs


def test_greedy_takes_the_best_cell():
    """On sampled turns of a traced greedy game, the position API scores every legal cell for
    the tile in hand: the greedy bot's cell scores the maximum (ties allowed)."""
    from sim.games.hexatrex.position import Position

    rules = GAME.resolve_rules({}, "t")
    trace = GAME.play_traced(rules, seats_for(GAME, rules, "greedy"), 4, 21)
    pos = Position()
    checked = 0
    for t, mv in enumerate(trace.moves):
        if t in (3, 12, 25, 40):
            best = 0
            for cell in pos.legal_cells():
                trial = pos.copy()
                trial.place(cell, mv["tile"])
                best = max(best, trial.score(cell, rules)[1])
            assert mv["score"] == best, f"turn {t}: greedy scored {mv['score']}, best is {best}"
            checked += best > 0
        pos.place(mv["cell"], mv["tile"])
    assert checked >= 2, "the sampled turns had nothing to score: pick other turns"


@pytest.mark.parametrize("kw", [{}, {"players": 3, "bracketing": "any", "negative_zero": True},
                                {"tile_repeat": "never", "max_equation_tiles": 8}])
def test_side_walk_store_plays_the_same_games_as_the_dfs_finder(kw):
    """The chunk kernel scores with the side-walk store and join; forced onto the reference
    DFS finder it must play exactly the same games (greedy choices included)."""
    rules = GAME.resolve_rules(kw, "t")
    seats = seats_for(GAME, rules, ["greedy"] + ["random"] * (rules["players"] - 1))
    fast = GAME.play_chunk(rules, seats, 0, 3, 77)
    slow = GAME.play_chunk(rules, seats, 0, 3, 77, allow_join=False)
    for key in fast:
        np.testing.assert_array_equal(fast[key], slow[key], err_msg=key)
    assert fast["score_A"].sum() > 0


def test_kept_side_trie_is_only_a_cache():
    """The side trie outlives a chunk (one per rule set and thread, the least recently used
    dropped): games played with a trie warmed by other games, or by a chunk that filled and
    emptied it, equal the same games from an empty trie."""
    from sim.games.hexatrex import game, trie

    rules = GAME.resolve_rules({}, "t")
    seats = seats_for(GAME, rules, "greedy")
    cfg = game.finder.find_cfg(rules)
    game._tries.kept = None
    cold = GAME.play_chunk(rules, seats, 5, 2, 3)  # games 5, 6 from an empty trie
    kept = game.side_trie(cfg)
    assert kept is game.side_trie(cfg) and kept[2][0] > 1000
    GAME.play_chunk(rules, seats, 0, 5, 3)  # games 0-4 add to it
    assert kept[2][3] == 0, "the default trie should never fill"
    warm = GAME.play_chunk(rules, seats, 5, 2, 3)
    for key in cold:
        np.testing.assert_array_equal(cold[key], warm[key], err_msg=key)
    # a small kept trie that fills and is emptied on the way plays the same games too
    game._tries.kept = OrderedDict({cfg.tobytes(): trie.new_trie(5, 2000, 20000)})
    small = GAME.play_chunk(rules, seats, 5, 2, 3)
    assert game._tries.kept[cfg.tobytes()][2][3] > 1, "the small trie was never emptied"
    for key in cold:
        np.testing.assert_array_equal(cold[key], small[key], err_msg=key)
    game._tries.kept = None
    for kw in ({"bracketing": "any"}, {"leading_zero": True}, {}):
        game.side_trie(game.finder.find_cfg(GAME.resolve_rules(kw, "t")))
    assert len(game._tries.kept) == game.TRIES_KEPT
    assert cfg.tobytes() in game._tries.kept  # the last used stays

