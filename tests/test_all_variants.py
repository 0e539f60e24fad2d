"""The shared check suite (`sim.testing.check_game`) on every shipped variant, with the variant's
own seats: termination, column contract, determinism, chunk independence, traced replay equal to
the chunk kernel, every traced move re-checked by the game's position API, the picture, the
Parquet round trip and the metric table; and each game's warm-up."""

import pytest

from sim import games
from sim.games.base import SeatBot
from sim.runs.variants import list_shipped, load
from sim.testing import check_game, check_warm

pytestmark = pytest.mark.slow  # shipped variants through the shared checks; compiles (not in make test-fast)

SHIPPED = list_shipped()


@pytest.mark.parametrize("spec", SHIPPED)
def test_shipped_variant_passes_game_checks(spec):
    v = load(spec)
    check_game(v.game, v, n=16, traced=1)


@pytest.mark.parametrize("name", games.listed())
def test_game_warms_every_part(name):
    check_warm(games.get(name))


@pytest.mark.parametrize("spec", SHIPPED)
def test_shipped_variant_has_description_and_no_unknown_warnings(spec):
    v = load(spec)
    assert v.description.strip(), f"{spec}: no description"
    assert all(isinstance(w, str) and w for w in v.warnings())
    assert all(isinstance(s, SeatBot) for s in v.seats.values())
