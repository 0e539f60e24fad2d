"""What the engine gives a game that writes only its rules and bots (tests/fixtures/nim.py): the
default copy_position, sample_hidden, new_scratch and warm-up, and a whole game played, checked
and searched on them."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine
from sim.testing import check_game
from tests.fixtures import nim
from tests.fixtures.nim import GAME
from tests.game_checks import seats_for


def _start(**rules):
    t = GAME.tables(GAME.resolve_rules(rules, "test"))
    pos, rng = engine.start(t, np.uint64(3))
    return t, pos, rng


def test_the_default_copy_is_independent():
    t, pos, rng = _start()
    cp = engine.copy_of(t, pos)
    engine.play(t, cp, np.int64(3), rng)
    assert np.asarray(pos.st)[nim.LEFT] == 21 and np.asarray(cp.st)[nim.LEFT] == 18


def test_the_default_hides_nothing():
    t, pos, rng = _start(pile=9)
    engine.play(t, pos, np.int64(2), rng)
    before = np.asarray(pos.st).copy()
    for seat in (-1, 0, 1):
        engine.redraw_hidden(t, pos, np.int64(seat), rng)
    np.testing.assert_array_equal(np.asarray(pos.st), before)


@pytest.mark.parametrize("bots", ["random", "perfect", ["mcts", "perfect"]])
def test_nim_passes_the_shared_checks(bots):
    check_game(GAME, {}, bots, n=24, draw=False)


def test_perfect_play_wins_from_a_winning_pile_and_the_search_finds_it():
    """21 stones, take up to 3: the first player wins by leaving multiples of 4; so does the
    search bot on the default scratch, and perfect play beats it from the losing seat."""
    rules = GAME.resolve_rules({}, "test")
    for a, b in (("perfect", "random"), ("perfect", "perfect"), ("mcts", "random")):
        cols = GAME.play_chunk(rules, seats_for(GAME, rules, [a, b]), 0, 20, 5)
        assert (cols["winner"] == 0).all(), (a, b)
    lost = GAME.play_chunk(GAME.resolve_rules({"pile": 20}, "test"), seats_for(GAME, rules, ["mcts", "perfect"]),
                           0, 20, 5)
    assert (lost["winner"] == 1).all()


def test_default_warm_plays_every_line_up_it_compiles(monkeypatch):
    """The default warm-up: own bots with the uniform one, each own bot alone, the search bot at a
    small budget; the mixed line-up's traced game is checked."""
    played, checked = [], []
    monkeypatch.setattr(type(GAME), "play_chunk", lambda self, rules, seats, *a: played.append(
        tuple((s.bot.name, s.params.get("iterations")) for s in seats)))
    monkeypatch.setattr(type(GAME), "verify_trace", lambda self, trace: checked.append(trace.seat_names))
    GAME.warm()
    assert played == [(("perfect", None), ("random", None)), (("perfect", None), ("perfect", None)),
                      (("mcts", 4), ("perfect", None))]
    assert checked == [["A", "B"]]


def test_rule_functions_takes_the_engine_names_only():
    found = engine.rule_functions(vars(nim))
    assert set(found) == {"new_position", "to_move", "legal_moves", "apply", "result", "evaluate", "bot_move"}
    assert set(engine.FUNCTIONS) <= set(found)
