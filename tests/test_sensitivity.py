"""hexsim sensitivity: the alternatives of each parameter, the paired comparison against the base
on common seeds (checked against a game whose effects are known), Holm over the alternatives,
the restricted-play hook, the ranked table and tornado plots, and the CLI."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from sim import games
from sim.cli.workflows import register
from sim.errors import UserError
from sim.games.base import Param
from sim.runs.variants import load
from sim.workflows.sensitivity import alternatives, bar_text, change_text, parse_params, sensitivity, step_values
from tests.fixtures.coin import Coin

__version__ = "1.0.0"  # ModeCoin's version for run manifests

TEXT = 'game = "coin"\ndescription = "biased coin"\n[rules]\nbias = 0.55\n'


class ModeCoin(Coin):
    """The coin with two "modes" and a restricted-play hook (as a game with tile types offers)."""

    name = "modecoin"

    def modes(self):
        return [("plain", {}), ("fancy", {"side": "fancy"})]

    def restricted_play(self, rules):
        return [("no edge", {"rules.edge": -5})]


@pytest.fixture(scope="module")
def coin_games(coin):
    games.register(ModeCoin())


def test_step_values():
    assert step_values(Param("x", "bool", True, ""), True) == [False]
    assert step_values(Param("x", "str", "a", "", choices=("a", "b", "c")), "b") == ["a", "c"]
    assert step_values(Param("x", "int", 3, "", low=1, high=6), 3) == [2, 4]
    assert step_values(Param("x", "int", 1, "", low=1, high=6), 1) == [2]  # within range
    assert step_values(Param("x", "int", 400, "", low=10, high=5000), 400) == [360, 440]
    assert step_values(Param("x", "float", 0.5, "", low=0, high=1), 0.5) == [0.45, 0.55]
    assert step_values(Param("x", "float", 0.0, "", low=0, high=0.5), 0.0) == [0.05]
    assert step_values(Param("x", "list", [], ""), []) == []


def test_alternatives_of_race_without_playing():
    base = load("hexflow/race")
    alts, skipped = alternatives(base)
    got = {(a[1], str(a[3])) for a in alts}
    assert {("rules.hand_size", "2"), ("rules.hand_size", "4"), ("rules.copies_per_type", "1"),
            ("rules.dots", "none"), ("rules.blocked_player_loses", "False")} <= got
    assert "rules.mode" in set(skipped_["param"] for skipped_ in map(dict, skipped))
    assert not any(a[1] == "rules.mode" for a in alts)
    assert any(r["param"] == "rules.dot_list" and "no natural neighbour" in r["why"] for r in skipped)
    # listed paths: a rule (HEXFLOW's hand size may differ by seat: both seats, then each), a bot
    # parameter, named values
    alts, _ = alternatives(base, ["rules.hand_size", "seats.A.defense", "rules.dots=none"])
    assert [(a[1], a[3]) for a in alts] == [("rules.hand_size", 2), ("rules.hand_size", 4),
                                            ("rules.hand_size.A", 2), ("rules.hand_size.A", 4),
                                            ("rules.hand_size.B", 2), ("rules.hand_size.B", 4),
                                            ("seats.A.defense", 2.7), ("seats.A.defense", 3.3),
                                            ("rules.dots", "none")]
    for bad, needle in [("rules.hand", "unknown key rules.hand"), ("seats.C.defense", "seats.SEAT.PARAM"),
                        ("seats.A.speed", "bot greedy has no parameter 'speed'")]:
        with pytest.raises(UserError, match=needle):
            alternatives(base, [bad])
    assert parse_params("rules.a,rules.b=1,2,seats.A.x") == ["rules.a", "rules.b=1,2", "seats.A.x"]


def test_per_seat_tables_vary_each_entry(coin_file):
    """A rule whose value is a table by seat moves each seat's entry alone."""
    from sim.runs.variants import Variant

    base = load(coin_file)
    table = Variant(base.name, base.game, "", {**base.rules, "length": {"A": 10, "B": 12}},
                    base.seats)
    alts, _ = alternatives(table, ["rules.length"])
    assert [(a[1], a[3]) for a in alts] == [("rules.length.A", 9), ("rules.length.A", 11),
                                            ("rules.length.B", 11), ("rules.length.B", 13)]


def test_sensitivity_of_the_coin(coin_file, tmp_path):
    res = sensitivity(str(coin_file), games=4000, seed=5, jobs=1, out=tmp_path / "s")
    t = res.table.set_index(["path", "value"])
    # bias 0.55 -> 0.605: the first mover's share moves by 5.5 points; the paired interval holds it
    up = t.loc[("rules.bias", 0.605)]
    assert up["first_mover_share_ci_low"] < 0.055 < up["first_mover_share_ci_high"]
    assert up["first_mover_share_p_adjusted"] < 0.05 and up["direction"] == "up"
    # a one-step edge moves it by 1 point; draws 0 -> 0.05 move the share decided off the board
    assert t.loc[("rules.draws", 0.05), "decided_off_board_diff"] == pytest.approx(0.05, abs=0.01)
    assert t.loc[("rules.length", 11), "turns_p50_diff"] == 1
    flavour = t.loc[("rules.side", "fancy")]
    assert flavour["games_changed"] == 0 and flavour["first_mover_share_diff"] == 0
    assert (res.table["first_mover_share_p_adjusted"] >= res.table["first_mover_share_p_value"] - 1e-12).all()
    # ranked by the first mover's change; the ranking per metric names each parameter once
    d = res.table["first_mover_share_diff"].abs().to_numpy()
    assert (np.diff(d) <= 1e-12).all()
    rank = res.ranking()
    assert rank["param"].tolist()[:2] == ["rules.bias", "rules.edge"] and rank["param"].is_unique
    assert res.ranking("decided_off_board")["param"].iloc[0] == "rules.draws"
    csv = pd.read_csv(tmp_path / "s" / "sensitivity.csv")
    assert {"param", "path", "value", "games_changed", "first_mover_share_diff",
            "first_mover_share_ci_low", "turns_p50_p_adjusted"} <= set(csv.columns)
    for m in ("first_mover_share", "decided_off_board", "turns_p50"):
        assert (tmp_path / "s" / f"tornado_{m}.png").stat().st_size > 2000
    md = (tmp_path / "s" / "sensitivity.md").read_text()
    assert md.count("The rules that move the first mover's share most: bias: 0.55 -> 0.605 (") == 1
    # the same seeds as the base: game i of each alternative is paired with game i of the base
    base = pd.read_parquet(next((tmp_path / "s" / "runs").glob("base-*")) / "games")
    assert len(base) == 4000


def test_modes_left_out_and_restricted_play(tmp_path, coin_games):
    p = tmp_path / "m.toml"
    p.write_text(TEXT.replace('"coin"', '"modecoin"'))
    res = sensitivity(str(p), games=500, seed=1, jobs=1, out=tmp_path / "m", write=False)
    assert "rules.side" in res.skipped["param"].tolist()
    row = res.table[res.table["param"] == "restricted: no edge"].iloc[0]
    assert row["value"] == "rules.edge=-5" and row["first_mover_share_diff"] < -0.02


def test_cli_sensitivity(coin_file, tmp_path):
    app = typer.Typer()
    register(app)
    r = CliRunner().invoke(app, ["sensitivity", str(coin_file), "--params", "rules.bias,rules.side",
                                 "--games", "600", "--jobs", "1", "--out", str(tmp_path / "c"),
                                 "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "1. rules.bias: 0.55 -> 0.605" in r.output or "1. rules.bias: 0.55 -> 0.495" in r.output
    r = CliRunner().invoke(app, ["sensitivity", str(coin_file), "--params", "rules.bais",
                                 "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "did you mean 'bias'" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(app, ["sensitivity", str(coin_file), "--params", "rules.bias=2",
                                 "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "--params rules.bias=2" in r.output and "out of range" in r.output


def test_a_per_seat_rule_moves_every_seat_and_each_seat_alone(coin_file, tmp_path):
    """`skill` is a per-seat rule (Param(per_seat=True)): its alternatives are the value for
    every seat, then each seat's entry alone (a compensation a designer could ship)."""
    base = load(coin_file)
    alts, _ = alternatives(base, ["rules.skill"])
    assert [(a[1], a[3]) for a in alts] == [("rules.skill", -1), ("rules.skill", 1),
                                            ("rules.skill.A", -1), ("rules.skill.A", 1),
                                            ("rules.skill.B", -1), ("rules.skill.B", 1)]
    res = sensitivity(str(coin_file), params=["rules.skill.B=2"], games=4000, seed=2, jobs=1,
                      out=tmp_path / "s")
    row = res.table.iloc[0]
    assert row["path"] == "rules.skill.B" and row["games_changed"] > 0
    assert (row["param"], row["seat"]) == ("rules.skill", "B")  # one rule, seat B's entry moved
    # B's two extra steps help B whether it moves first or second: the first mover's share moves
    # by +2 points when B moves first and -2 when A does, about 0 in all
    assert row["first_mover_share_ci_low"] < 0 < row["first_mover_share_ci_high"]


def test_a_per_seat_change_names_its_seat(coin_file, tmp_path):
    """One seat's entry of a per-seat rule is named with its seat wherever the alternative is
    shown: the summary lines, the report's ranking, the tornado bars ("2" alone would read as
    the rule for every seat)."""
    res = sensitivity(str(coin_file), params=["rules.skill"], games=300, seed=3, jobs=1,
                      out=tmp_path / "s")
    rows = res.table.to_dict("records")
    assert {change_text(r) for r in rows} == {
        "rules.skill: 0 -> -1", "rules.skill: 0 -> 1", "rules.skill A: 0 -> -1",
        "rules.skill A: 0 -> 1", "rules.skill B: 0 -> -1", "rules.skill B: 0 -> 1"}
    assert {bar_text(r) for r in rows} == {"-1", "1", "A: 0 -> -1", "A: 0 -> 1", "B: 0 -> -1",
                                           "B: 0 -> 1"}
    top = res.ranking().iloc[0].to_dict()
    assert f"1. {change_text(top)}: first mover's share" in repr(res)
    md = (tmp_path / "s" / "sensitivity.md").read_text()
    assert f"| {top['seat'] + ': ' if top['seat'] else ''}0 -> {top['value']} |" in md
    assert "(to " not in repr(res) + md


def test_holm_over_many_alternatives_can_still_find_a_change(coin_file):
    """102 alternatives of the bias: Holm multiplies the smallest p-value by 102, so a resampled
    p-value (at least 1/2001 with 2,000 resamples, as the first mover's share once had) could
    never pass at 0.05; the analytic paired test's p-values carry the big moves through."""
    values = ",".join(f"{0.3 + 0.004 * i:.3f}" for i in range(102))
    res = sensitivity(str(coin_file), params=[f"rules.bias={values}"], games=300, seed=4, jobs=1,
                      write=False, out=coin_file.parent / "s")
    t = res.table
    assert len(t) == 102
    big = t["first_mover_share_diff"].abs() >= 0.1
    assert big.sum() > 30 and (t.loc[big, "first_mover_share_p_adjusted"] < 0.05).all()
    assert t["first_mover_share_p_adjusted"].min() < 102 / 2001 / 1e6
