"""The shared check suite now ships in the package as `sim.testing` (so that games outside the
package can run it too). This module keeps the game test files' imports working, with the
checks they had: the picture, Parquet and metric checks, which cost about 0.2-1.4 s a call, run
once per shipped variant in tests/test_all_variants.py instead of in every call here."""

from __future__ import annotations

from sim.testing import check_game as _check_game
from sim.testing import seats_for

__all__ = ["check_game", "seats_for"]


def check_game(game, variant, bots=None, n=40, run_seed=12345, traced=4, *, draw=False,
               table=False, warm=False):
    """`sim.testing.check_game` without the picture and table checks unless asked for."""
    return _check_game(game, variant, bots, n, run_seed, traced, draw=draw, table=table, warm=warm)
