"""The engine's optional playout functions (sim/engine/interface.py): `copy_into` gives the position
`copy_position` gives, for every registered game and mode, at every decision of random and greedy
games; `winner` is the result row's winner at the end of random games; and `copy_fields`, the
generic in-place copy, keeps an array its copies share shared."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from numba import njit

from sim import engine, games
from sim.games.base import Game
from sim.testing import check_copy_and_winner, replayed_positions, seats_for


def _engine_modes():
    """Every mode of every registered game that replays through the engine (a game without its
    own engine_replay has none; a mode that returns None is skipped in the tests)."""
    return [pytest.param(name, label, id=f"{name}-{label}") for name in games.listed()
            if type(games.get(name)).engine_replay is not Game.engine_replay
            for label, _ in games.get(name).modes()]


MODES = _engine_modes()


def _rules(name, label):
    game = games.get(name)
    return game, game.resolve_rules(dict(game.modes())[label], "test")


@pytest.mark.parametrize(("name", "label"), MODES)
def test_winner_is_the_results_over_random_games(name, label):
    """24 random games per mode (every way a random game ends, Tri's draw list among them)."""
    game, rules = _rules(name, label)
    seats = seats_for(game, rules, "random")
    checked = 0
    for gi in range(24):
        got = replayed_positions(game, rules, seats, gi, 5)
        if got is None:
            pytest.skip(f"{name} {label} does not replay through the engine")
        t, positions = got
        end = positions[-1]
        if engine.seat_to_move(t, end) >= 0:  # the turn cap stopped it: nothing finished to judge
            continue
        assert engine.winner_of(t, end) == engine.outcome(t, end, False)[engine.WINNER], f"game {gi}"
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("bots", ["random", "greedy"])
@pytest.mark.parametrize(("name", "label"), MODES)
def test_copy_into_gives_copy_position(name, label, bots):
    game, rules = _rules(name, label)
    seats = seats_for(game, rules, bots if bots in {b.name for b in game.bots} else "random")
    for gi in range(3):
        check_copy_and_winner(game, rules, seats, gi, 9)


def test_tri_copies_in_place_and_hexatrex_keeps_its_copy():
    """Tri-Board copies with copy_fields; Hexa-Trex, whose copy takes its own id, keeps the
    default (no in-place copy)."""
    for name, label, in_place in (("hexflow", "tri2p", True), ("hexflow", "tri", True),
                                  ("hexatrex", None, False)):
        game = games.get(name)
        label = label or game.modes()[0][0]
        _, rules = _rules(name, label)
        t, positions = replayed_positions(game, rules, seats_for(game, rules, "random"), 0, 3)
        dst = engine.copy_of(t, positions[0])
        assert engine.copied_into(t, dst, positions[-1]) is in_place


class _Pos(NamedTuple):
    a: np.ndarray
    b: np.ndarray
    work: np.ndarray


@njit(cache=True)
def _copy_fields_twice(src):
    dst = _Pos(src.a.copy(), src.b.copy(), src.work)
    ok = engine.copy_fields(0, dst, src)
    src.a[0] = -7  # the copy is independent of src afterwards
    return ok, dst


def test_copy_fields_copies_arrays_and_shares_a_shared_one():
    src = _Pos(np.arange(5), np.arange(12.0).reshape(3, 4), np.zeros(4, np.int64))
    ok, dst = _copy_fields_twice(src)
    assert ok
    np.testing.assert_array_equal(dst.a, np.arange(5))
    np.testing.assert_array_equal(dst.b, np.arange(12.0).reshape(3, 4))
    assert dst.work.ctypes.data == src.work.ctypes.data  # still one buffer
    assert src.a[0] == -7 and dst.a[0] == 0
