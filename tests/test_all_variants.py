"""The shared check suite (tests/game_checks.py) on every shipped variant, with the variant's own
seats: termination, column contract, determinism, chunk independence, traced replay equal to the
chunk kernel, and every traced move re-checked by the game's position API."""

import pytest

from sim.games.base import SeatBot
from sim.variants import list_shipped, load
from tests.game_checks import check_game

SHIPPED = list_shipped()


@pytest.mark.parametrize("spec", SHIPPED)
def test_shipped_variant_passes_game_checks(spec):
    v = load(spec)
    check_game(v.game, v.rules, list(v.seats.values()), n=16, traced=1)


@pytest.mark.parametrize("spec", SHIPPED)
def test_shipped_variant_has_description_and_no_unknown_warnings(spec):
    v = load(spec)
    assert v.description.strip(), f"{spec}: no description"
    assert all(isinstance(w, str) and w for w in v.warnings())
    assert all(isinstance(s, SeatBot) for s in v.seats.values())
