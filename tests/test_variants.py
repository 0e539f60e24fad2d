"""Variant files: extends, validation errors that name file and key, stable hashes."""

import pytest

from sim.errors import VariantError
from sim.runs.variants import load

BASE = 'game = "racedice"\ndescription = "base"\n[rules]\ngoal = 30\n[seats]\nA = "random"\n'


def test_defaults_filled_and_seats_default_to_greedy(variant_file):
    v = load(str(variant_file("base.toml", BASE)))
    assert v.rules == {"goal": 30, "sides": 6, "crash_at": -1, "kill_at": -1, "kill_once_file": "",
                       "slow_ms": 0}
    assert v.seats["A"].bot.name == "random"
    assert v.seats["B"].bot.name == "greedy" and v.seats["B"].params == {"bonus": 1}
    assert v.name == "racedice/base"


def test_extends_merges_rules_and_seats(variant_file):
    variant_file("base.toml", BASE)
    child = variant_file("child.toml", 'extends = "base.toml"\ndescription = "child"\n'
                                       '[rules]\nsides = 8\n[seats]\nB = { bot = "greedy", bonus = 3 }\n')
    v = load(str(child))
    assert v.rules["goal"] == 30 and v.rules["sides"] == 8
    assert v.seats["A"].bot.name == "random" and v.seats["B"].params == {"bonus": 3}
    assert v.description == "child"


def test_hash_stable_and_sensitive(variant_file):
    a = load(str(variant_file("a.toml", BASE)))
    b = load(str(variant_file("b.toml", BASE.replace('"base"', '"other words"'))))
    c = load(str(variant_file("c.toml", BASE.replace("goal = 30", "goal = 31"))))
    assert a.hash == b.hash  # the description is not part of the game
    assert a.hash != c.hash
    assert len(a.hash) == 16


def test_overrides(variant_file):
    v = load(str(variant_file("a.toml", BASE)), {"rules.goal": 50})
    assert v.rules["goal"] == 50


@pytest.mark.parametrize("text, needle", [
    (BASE.replace("goal = 30", "gaol = 30"), "unknown key rules.gaol (did you mean 'goal'?)"),
    (BASE.replace("goal = 30", 'goal = "x"'), "goal = 'x' is str; allowed: int in [1, 1000]"),
    (BASE.replace("goal = 30", "goal = 0"), "goal = 0 out of range"),
    (BASE.replace("goal = 30", "goal = true"), "goal = True is bool"),
    (BASE.replace('A = "random"', 'A = "smart"'), "unknown bot 'smart' for racedice; available: random, greedy"),
    (BASE.replace('A = "random"', 'C = "random"'), "unknown key seats.C"),
    (BASE.replace('A = "random"', 'A = { bot = "greedy", bouns = 2 }'), "unknown key seats.A.bouns (did you mean 'bonus'?)"),
    (BASE.replace('game = "racedice"', 'game = "chess"'), "unknown game 'chess'; available:"),
    (BASE.replace('game = "racedice"\n', ''), "missing key 'game'"),
    (BASE + "colour = 1\n[x]\n", "unknown key"),
    ("game = racedice", "not valid TOML"),
    (BASE.replace("[rules]", "rules = 3\n[rule]"), "unknown key rule"),
])
def test_errors_name_file_and_key(variant_file, text, needle):
    p = variant_file("bad.toml", text)
    with pytest.raises(VariantError) as e:
        load(str(p))
    assert str(p) in str(e.value) and needle in str(e.value)
    assert "\n" not in str(e.value)


def test_extends_cycle_and_missing(variant_file):
    variant_file("x.toml", 'extends = "y.toml"\n')
    y = variant_file("y.toml", 'extends = "x.toml"\n')
    with pytest.raises(VariantError, match="extends cycle: y.toml -> x.toml -> y.toml"):
        load(str(y))
    z = variant_file("z.toml", 'extends = "nothere.toml"\n')
    with pytest.raises(VariantError, match="nothere.toml.*no such file"):
        load(str(z))


def test_missing_file():
    with pytest.raises(VariantError, match="no such variant file"):
        load("variants/none/nothing.toml")
    with pytest.raises(VariantError, match="no such variant file or shipped variant"):
        load("nogame/nothing")
