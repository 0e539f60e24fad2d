"""Variant paths for --set (and tune / sensitivity): bot parameters, per-seat entries of a rule,
nested tables, list and table values, and the errors of bad paths and values."""

from __future__ import annotations

import copy

import pytest
import typer
from typer.testing import CliRunner

from sim import games
from sim.cli.workflows import register
from sim.errors import UserError, VariantError
from sim.games.base import Param
from sim.runs.variants import load
from sim.workflows.sweep import parse_set, parse_value, split_values, sweep
from tests.fixtures.race_dice import RaceDice

__version__ = "1.0.0"  # TableDice's version for run manifests

TEXT = ('game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
        '[seats]\nA = "random"\nB = { bot = "greedy", bonus = 6 }\n')


class TableDice(RaceDice):
    """The dice race with a per-seat rule (`goal`: one number or a table by seat) and a nested
    table (`faces.<name>.count`), as table-valued rules look to the path code."""

    name = "tabledice"
    params = (
        Param("goal", "int", 20, "Track length (or a table by seat).", low=1, high=1000),
        Param("sides", "int", 6, "Die sides.", low=2, high=100),
        Param("faces", "list", [], "Unused here: the nested table is checked in resolve_rules."),
    )
    FACES = {"low": {"count": 1, "points": 1}, "high": {"count": 1, "points": 6}}

    def defaults(self):
        return {"goal": 20, "sides": 6, "faces": copy.deepcopy(self.FACES)}

    def resolve_rules(self, rules, where):
        out = self.defaults()
        for key, value in rules.items():
            if key not in out:
                raise VariantError(f"{where}: unknown key rules.{key}")
            out[key] = value
        goal = out["goal"]
        for v in (goal.values() if isinstance(goal, dict) else [goal]):
            if not isinstance(v, int) or not 1 <= v <= 1000:
                raise VariantError(f"{where}: [rules] goal = {v!r}; allowed: int in [1, 1000]")
        if isinstance(goal, dict) and set(goal) != {"A", "B"}:
            raise VariantError(f"{where}: [rules] goal: a table needs the seats A and B")
        for face, spec in out["faces"].items():
            if face not in self.FACES or set(spec) - {"count", "points"}:
                raise VariantError(f"{where}: [rules] faces.{face}: allowed: low, high with count, points")
        return out

    def play_chunk(self, rules, seats, first_game, n_games, run_seed):
        """The plain race to seat A's goal (the paths are what is tested here, not the play)."""
        one = {k: (v["A"] if isinstance(v, dict) else v) for k, v in rules.items() if k != "faces"}
        plain = {"crash_at": -1, "kill_at": -1, "kill_once_file": "", "slow_ms": 0, **one}
        return super().play_chunk(plain, seats, first_game, n_games, run_seed)


@pytest.fixture(scope="module")
def tabledice():
    g = TableDice()
    games.register(g)
    return g


@pytest.fixture
def table_file(tmp_path, tabledice):
    p = tmp_path / "t.toml"
    p.write_text('game = "tabledice"\n[rules]\ngoal = 5\n[seats]\nB = { bot = "greedy", bonus = 2 }\n')
    return p


def test_split_and_parse_values():
    assert split_values("1,[2,3],{A=1,B=2}") == ["1", "[2,3]", "{A=1,B=2}"]
    assert split_values('"a,b",c') == ['"a,b"', "c"]
    assert parse_set("rules.dot_list=[[1,2],[3,4]]") == ("rules.dot_list", [[[1, 2], [3, 4]]])
    assert parse_set("rules.dot_list=[[1,2]],[[3,4]]")[1] == [[[1, 2]], [[3, 4]]]
    assert parse_set("rules.hand_size={A=3,B=4},{A=4,B=4}")[1] == [{"A": 3, "B": 4}, {"A": 4, "B": 4}]
    assert parse_value('{"A": 3, "B": 4}') == {"A": 3, "B": 4}  # JSON as well as TOML
    assert parse_set("seats.A.defense=1,3") == ("seats.A.defense", [1, 3])
    assert parse_set("seats.A.bot=greedy,mcts") == ("seats.A.bot", ["greedy", "mcts"])
    for bad, needle in [("rules.x=[1,2", "unbalanced '\\['"), ("rules.x=1]", "closes nothing"),
                        ("rules.x=1,,2", "an empty alternative"), ("rules.x.=1", "variant path"),
                        ("bots.A=1", "variant path"), ('rules.x="a', "unbalanced quote")]:
        with pytest.raises(UserError, match=needle):
            parse_set(bad)


def test_bot_parameters_and_bots(variant_file):
    v = variant_file("v.toml", TEXT)
    assert load(v, {"seats.B.bonus": 1}).seats["B"].params == {"bonus": 1}
    with pytest.raises(VariantError, match="unknown key seats.A.bonus"):  # random has no bonus
        load(v, {"seats.A.bonus": 4})
    changed = load(v, {"seats.B.bot": "random"})  # another bot: the old bot's parameters go
    assert changed.seats["B"].bot.name == "random" and changed.seats["B"].params == {}
    same = load(v, {"seats.B.bot": "greedy"})  # the same bot keeps its parameters
    assert same.seats["B"].params == {"bonus": 6}
    both = load(v, {"seats.A.bonus": 3, "seats.A.bot": "greedy"})  # the bot is set first
    assert both.seats["A"].label() == "greedy(bonus=3)"
    with pytest.raises(VariantError, match="unknown key seats.C; allowed: A, B"):
        load(v, {"seats.C.bonus": 1})
    with pytest.raises(VariantError, match="unknown key seats.B.bonsu \\(did you mean 'bonus'\\?\\)"):
        load(v, {"seats.B.bonsu": 1})
    with pytest.raises(VariantError, match="a bot parameter has no parts"):
        load(v, {"seats.B.bonus.x": 1})


def test_per_seat_entry_of_a_single_value(table_file):
    v = load(table_file, {"rules.goal.B": 9})
    assert v.rules["goal"] == {"A": 5, "B": 9}  # the file's 5 for every seat, then B set
    assert load(table_file, {"rules.sides.A": 3}).rules["sides"] == {"A": 3, "B": 6}  # default 6
    assert load(table_file, {"rules.goal": {"A": 1, "B": 2}, "rules.goal.A": 7}).rules["goal"] == \
        {"A": 7, "B": 2}  # the whole value first, then the entry inside it
    with pytest.raises(VariantError, match="rules.goal is a single value \\(5\\), not a table; a part "
                                           "after it can only be a seat: A, B"):
        load(table_file, {"rules.goal.C": 1})
    with pytest.raises(VariantError, match="goal = 0; allowed"):  # the game's own check
        load(table_file, {"rules.goal.B": 0})
    assert load(table_file).hash != load(table_file, {"rules.goal.B": 9}).hash


def test_nested_table_entries(table_file):
    v = load(table_file, {"rules.faces.low.count": 0})
    assert v.rules["faces"] == {"low": {"count": 0, "points": 1}, "high": {"count": 1, "points": 6}}
    deeper = load(table_file, {"rules.faces.high.points.B": 4})  # one seat's entry, deep down
    assert deeper.rules["faces"]["high"]["points"] == {"A": 6, "B": 4}
    with pytest.raises(VariantError, match="faces.middle: allowed: low, high"):
        load(table_file, {"rules.faces.middle.count": 1})
    with pytest.raises(VariantError, match="unknown key rules.goals \\(did you mean 'goal'\\?\\)"):
        load(table_file, {"rules.goals.A": 1})
    assert TableDice.FACES["low"]["count"] == 1  # the defaults are never edited in place


def test_sweep_over_a_bot_parameter(variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    res = sweep(str(v), {"seats.B.bonus": [0, 6]}, games=300, jobs=1, out=tmp_path / "sw")
    share = res.table[res.table["metric"] == "win_rate_B"].set_index("seats.B.bonus")["value"]
    assert share.loc[6] > share.loc[0] + 0.2  # the bonus makes B win more
    assert res.variants[0].seats["B"].params["bonus"] == 0
    res = sweep(str(v), {"seats.A.bot": ["random", "greedy"]}, games=50, jobs=1,
                out=tmp_path / "bots", write=False)
    assert [x.seats["A"].bot.name for x in res.variants] == ["random", "greedy"]


def test_sweep_over_table_values(table_file, tmp_path):
    res = sweep(str(table_file), {"rules.goal": [{"A": 5, "B": 6}, 7]}, games=20, jobs=1,
                out=tmp_path / "sw", write=False)
    assert res.table["rules.goal"].iloc[0] == "{ A = 5, B = 6 }"  # a table as its --set text
    with pytest.raises(VariantError, match="^--set rules.goal.C=1: "):
        sweep(str(table_file), {"rules.goal.C": [1]}, games=10, jobs=1, out=tmp_path / "x")


def test_cli_paths_errors(variant_file, tmp_path):
    app = typer.Typer()
    register(app)
    v = variant_file("v.toml", TEXT)
    for args, needle in [(["--set", "seats.C.bonus=1"], "seats.C"),
                         (["--set", "seats.B.bonsu=1,2"], "did you mean 'bonus'"),
                         (["--set", "rules.goal=[1,2"], "unbalanced"),
                         (["--set", "rules.goal.B=3"], "goal takes one value, not a table by seat")]:
        r = CliRunner().invoke(app, ["sweep", str(v), *args, "--games", "10", "--jobs", "1",
                                     "--out", str(tmp_path / "o"), "--no-progress"])
        assert r.exit_code == 2, r.output
        assert needle in r.output and "Traceback" not in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1
    r = CliRunner().invoke(app, ["sweep", "--help"])
    assert "seats.A.defense" in r.output and "outside brackets" in r.output
