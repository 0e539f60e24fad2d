"""The shared check suite now ships in the package as `sim.testing` (so that games outside the
package can run it too). This module keeps the game test files' imports working, with the
checks they had: the picture, Parquet and metric checks, which cost about 0.2-1.4 s a call, run
once per shipped variant in tests/test_all_variants.py instead of in every call here."""

from __future__ import annotations

import numpy as np

from sim import engine
from sim.testing import check_game as _check_game
from sim.testing import seats_for

__all__ = ["check_game", "seats_for"]


def check_game(game, variant, bots=None, n=40, run_seed=12345, traced=4, *, draw=False,
               table=False, warm=False):
    """`sim.testing.check_game` without the picture and table checks unless asked for."""
    return _check_game(game, variant, bots, n, run_seed, traced, draw=draw, table=table, warm=warm)


def opening_sets(tables, bagn_field: int, n: int = 40, seed: int = 3) -> list:
    """HEXFLOW: each game's set-up (engine.start) as one (bag still to draw, opening hand) pair of
    tile lists per seat; bagn_field is the mode's index of the bag counts in pos.sq."""
    out = []
    for i in range(n):
        pos, _ = engine.start(tables, np.uint64(engine.game_seed(np.uint64(seed), np.int64(i))))
        bag, hand, bagn = np.asarray(pos.bag), np.asarray(pos.hand), np.asarray(pos.sq)[bagn_field]
        out.append([(bag[q, :bagn[q]].tolist(), [x for x in hand[q].tolist() if x >= 0])
                    for q in range(tables.n_seats)])
    return out
