"""The fast loop's invariant checks (`make test-fast`): each game's standard variant, and each
HEXFLOW mode's, through the shared checks (`sim.testing.check_game`: termination, legal moves
only, pieces conserved, same seed -> same game, chunking, traced replay checked by the game's
own position API) with random play and with the variant's own seats. test_all_variants.py runs
every shipped variant so (slow)."""

import pytest

from sim.runs.variants import load
from sim.testing import check_game

STANDARD = ["flags/standard", "hexatile/standard", "hexatile/three_players", "hexatrex/standard", "hexflow/race",
            "hexflow/battle", "hexflow/tri", "hexflow/tri2p"]


@pytest.mark.parametrize("spec", STANDARD)
def test_random_games_keep_every_invariant(spec):
    v = load(spec)
    check_game(v.game, v.rules, "random", n=24, traced=2, draw=False, table=False)
    check_game(v.game, v, n=8, traced=1, draw=False, table=False)
