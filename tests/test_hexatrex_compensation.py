"""Hexa-Trex's rule parameters added after the baselines: first-player compensation
(`second_player_bonus` by turn position, the pie rule `swap`), points by seat (`start_points`,
one value or a table by seat name), and the `no_fractions` reading in whole games: what each
changes, what it refuses, and that leaving it at its default keeps every variant's hash."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sim import engine
from sim.cli import app
from sim.errors import VariantError
from sim.games.hexatrex import GAME
from sim.runs.variants import load as load_variant
from sim.testing import seats_for

NEW = ("no_fractions", "second_player_bonus", "start_points", "swap")


def rules(**kw):
    return GAME.resolve_rules(kw, "test")


def play(r, bots="greedy", n=24, seed=3):
    return GAME.play_chunk(r, seats_for(GAME, r, bots), 0, n, seed)


def second_seat(cols, players):
    """The seat that moved second in each game (turn order: first seat, then clockwise)."""
    return (cols["first_seat"].astype(np.int64) + 1) % players


@pytest.mark.parametrize("name", ["standard", "three", "four", "any_brackets", "no_repeat"])
def test_new_parameters_at_their_defaults_keep_the_shipped_hashes(name):
    v = load_variant(f"hexatrex/{name}")
    stored = json.loads(Path(f"data/baselines/hexatrex/{name}.json").read_text())["variant"]["hash"]
    assert v.hash == stored
    assert all(GAME.param(p).omit_default for p in NEW)


def test_second_player_bonus_goes_to_the_second_player_in_turn_order():
    """The same games (greedy's choices do not read the totals), the bonus on the seat that
    moved second: with the card's draw that is seat A or B, game by game."""
    base = play(rules())
    bonus = play(rules(second_player_bonus=7))
    second = second_seat(base, 2)
    assert set(second) == {0, 1}  # the draw lets either seat start
    for i, s in enumerate("AB"):
        assert (bonus[f"score_{s}"] - base[f"score_{s}"] == np.where(second == i, 7, 0)).all()
        assert (bonus[f"hexatrex_equations_{s}"] == base[f"hexatrex_equations_{s}"]).all()
    top = np.where(bonus["score_A"] > bonus["score_B"], 0, np.where(bonus["score_B"] > bonus["score_A"], 1, -1))
    assert (bonus["winner"] == top).all()
    # a bonus as large as a game's points decides the game for the second player
    big = play(rules(second_player_bonus=500), bots="random")
    assert (big["winner"] == second_seat(big, 2)).all()


def test_second_player_bonus_with_three_or_four_players_grows_by_turn_position():
    """The k-th player to move starts with (k - 1) x the bonus: 0, b, 2b (, 3b)."""
    for players in (3, 4):
        base = play(rules(players=players), bots="random", n=30)
        bonus = play(rules(players=players, second_player_bonus=4), bots="random", n=30)
        first = base["first_seat"].astype(np.int64)
        for i, s in enumerate("ABCD"[:players]):
            position = (i - first) % players
            assert (bonus[f"score_{s}"] - base[f"score_{s}"] == 4 * position).all()


def test_start_points_by_seat_name_and_as_one_value():
    base = play(rules(), bots="random")
    table = play(rules(start_points={"B": 9}), bots="random")
    assert (table["score_A"] == base["score_A"]).all() and (table["score_B"] == base["score_B"] + 9).all()
    every = play(rules(start_points=5), bots="random")
    assert all((every[f"score_{s}"] == base[f"score_{s}"] + 5).all() for s in "AB")
    # a table that says the same for every seat is the plain value (same games, same hash)
    assert rules(start_points={"A": 5, "B": 5})["start_points"] == 5
    four = rules(players=4, start_points={"C": -3})
    assert four["start_points"] == {"A": 0, "B": 0, "C": -3, "D": 0}


def test_bad_values_are_refused_in_one_line():
    with pytest.raises(VariantError, match=r"start_points\.E: no such seat; seats here: A, B$"):
        rules(start_points={"E": 1})
    with pytest.raises(VariantError, match=r"second_player_bonus = 900 out of range; allowed: int in \[-500, 500\]"):
        rules(second_player_bonus=900)
    with pytest.raises(VariantError, match="second_player_bonus takes one value, not a table by seat"):
        rules(second_player_bonus={"A": 1})
    with pytest.raises(VariantError, match="swap = true needs 2 players"):
        rules(swap=True, players=3)
    with pytest.raises(VariantError, match="no_fractions = 'never'; allowed: one of 'every_step', 'result'"):
        rules(no_fractions="never")


def test_pie_rule_greedy_never_swaps_an_even_opening_and_always_a_lost_one():
    """After the first tile nobody has scored (an equation needs three tiles besides "="), so
    greedy's evaluation sees two equal seats and keeps its own: the same games as without the
    rule. With the second seat 3 points down it always takes the first seat's position, and
    the columns follow the players."""
    plain = play(rules())
    off = play(rules(swap=True))
    assert not off["swapped"].any()
    assert all((plain[k] == off[k]).all() for k in plain)
    down = play(rules(second_player_bonus=-3))
    taken = play(rules(swap=True, second_player_bonus=-3))
    assert taken["swapped"].all()
    for a, b in (("A", "B"), ("B", "A")):
        assert (taken[f"score_{a}"] == down[f"score_{b}"]).all()
        assert (taken[f"hexatrex_longest_{a}"] == down[f"hexatrex_longest_{b}"]).all()
    w = down["winner"]
    assert (taken["winner"] == np.where(w >= 0, 1 - w, w)).all()
    assert (taken["first_seat"] == down["first_seat"]).all()  # the player who opened


def test_pie_rule_random_bots_swap_by_a_coin_and_swapped_traces_verify():
    r = rules(swap=True)
    cols = play(r, bots="random", n=400, seed=5)
    assert 0.38 < cols["swapped"].mean() < 0.62  # binomial(400, 1/2): +-4.8 sd
    for i in np.flatnonzero(cols["swapped"])[:3]:
        tr = GAME.play_traced(r, seats_for(GAME, r, "random"), int(i), 5)
        assert tr.data["swapped"] and tr.moves[1]["swap"]
        assert [int(x) for x in tr.data["rec"][1, :2]] == [tr.data["rec"][1, 0], engine.SWAP_MOVE]
        GAME.verify_trace(tr)  # the engine replay and the plain-Python scorer, row by player
        assert all(tr.row[k] == cols[k][i] for k in tr.row)
    tr = GAME.play_traced(rules(swap=True, second_player_bonus=-3), seats_for(GAME, r, "greedy"), 2, 5)
    assert tr.data["swapped"]
    GAME.verify_trace(tr)
    forged = type(tr)(**{**tr.__dict__, "rules": rules(second_player_bonus=-3)})
    with pytest.raises(AssertionError):
        GAME.verify_trace(forged)  # a swap where the rules offer none


def test_no_fractions_result_changes_whole_games_and_their_traces_verify():
    """Random bots place the same tiles on the same cells under either reading (their draws do
    not read the scores), so every equation of the default is found again and fractions in
    between add some; the plain-Python scorer agrees with every turn of a traced game."""
    base = play(rules(), bots="random", n=40)
    frac = play(rules(no_fractions="result"), bots="random", n=40)
    for s in "AB":
        assert (frac[f"hexatrex_equations_{s}"] >= base[f"hexatrex_equations_{s}"]).all()
    assert sum((frac[f"score_{s}"] > base[f"score_{s}"]).sum() for s in "AB") > 0
    for kw in ({}, {"bracketing": "any", "max_equation_tiles": 6}):
        r = rules(no_fractions="result", **kw)
        GAME.verify_trace(GAME.play_traced(r, seats_for(GAME, r, "greedy"), 0, 4))


def test_rules_command_lists_the_new_parameters_and_marks_the_per_seat_one():
    out = CliRunner().invoke(app, ["rules", "hexatrex"])
    assert out.exit_code == 0, out.output
    lines = {p: next(ln for ln in out.output.splitlines() if p in ln) for p in NEW}
    assert "table by seat" in lines["start_points"]
    assert "table by seat" not in lines["second_player_bonus"]
