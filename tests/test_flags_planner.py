"""Four flags' planner bot (sim/games/flags/planner.py): legal moves only, the same games for the
same seed, decisions that never depend on what its seat cannot see, and a turn it finds that
greedy misses. Its strength is measured with `hexsim run` (docs/rules/flags.md), not here."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine
from sim.games.base import SeatBot
from sim.games.flags import GAME
from sim.games.flags import kernel as K
from sim.games.flags import planner as P
from tests.game_checks import check_game
from tests.test_flags_search import hidden, position_at, scramble

PLANNER = GAME.bot("planner", "test")
SMALL = {"playouts": 12, "plans": 6, "horizon": 1}


def planner(**kw) -> SeatBot:
    return SeatBot(PLANNER, {**{p.name: p.default for p in PLANNER.params}, **kw})


def test_planner_is_registered_after_the_other_bots():
    names = [b.name for b in GAME.bots]
    assert names == ["random", "greedy", "mcts", "planner", "oracle"]
    assert PLANNER.code == P.BOT_PLANNER
    assert {p.name for p in PLANNER.params} == {"playouts", "plans", "horizon", "eval_scale", "spread", "explore",
                                                "sees"}
    oracle = GAME.bot("oracle", "test")  # the ceiling of skill: the planner seeing the other hand
    assert oracle.code == P.BOT_PLANNER
    assert {p.name: p.default for p in oracle.params} == {**{p.name: p.default for p in PLANNER.params}, "sees": "all"}


def test_planner_games_pass_the_shared_checks():
    """Checked play (every decision must be listed by legal_moves), the same games chunked or
    alone, traced games verified move by move, against greedy and random and itself."""
    check_game(GAME, GAME.defaults(), [planner(**SMALL), "greedy"], n=4, traced=2)
    check_game(GAME, {**GAME.defaults(), "first_player": "alternate"},
               [planner(**SMALL), planner(playouts=6, plans=3, horizon=0, explore=1.0)], n=3, traced=1)


@pytest.mark.parametrize("rules", [{}, {"attacks": "attrition", "bleed": False},
                                   {"cards_per_turn": 3, "die_sides": 8}])
def test_planner_plays_only_legal_moves_against_random(rules):
    rules = GAME.resolve_rules(rules, "test")
    seats = [planner(**{**SMALL, "explore": 0.5}), SeatBot(GAME.bot("random", "test"), {})]
    with engine.checking():  # a move legal_moves does not list raises MoveFault
        c = GAME.play_chunk(rules, seats, 0, 3, 7)
    assert (c["winner"] >= -1).all()


def test_same_seed_same_games_and_another_seed_other_games():
    rules = GAME.defaults()
    seats = [planner(**SMALL), SeatBot(GAME.bot("greedy", "test"), {"aggression": 1.0, "defence": 0.25,
                                                                        "territory": 8.0})]
    a = GAME.play_chunk(rules, seats, 0, 4, 3)
    b = GAME.play_chunk(rules, seats, 0, 4, 3)
    c = GAME.play_chunk(rules, seats, 0, 4, 4)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    assert any((a[k] != c[k]).any() for k in a)


# a card, a reinforcement unit, a step and a step's count in greedy games, and a card late in a
# random game after the draw pile was rebuilt (cards of the other hand are known)
POSITIONS = [("greedy", K.CARD, 60, 1), ("greedy", K.REINF, 100, 2), ("greedy", K.STEP, 150, 3),
             ("greedy", K.COUNT, 150, 4), ("random", K.CARD, 1500, 3)]
WIDE = {"playouts": 24, "plans": 12, "horizon": 1, "explore": 0.6, "spread": 2.0}


def _choice(t, pos, seat, seed):
    codes, par = engine.bot_arrays([planner(**WIDE)])
    return int(engine.bot_choice(t, pos, seat, codes[0], par[0], np.array([seed], np.uint64)))


def test_decisions_depend_on_the_seed_but_never_on_the_hidden_cards():
    """Power first: over the positions below the planner's decision changes with the generator
    (it draws its worlds and candidates from it), so a decision that followed the redrawn cards
    would show. Then, at every position and for each generator, the other hand and the draw
    pile changed consistently (four worlds that look the same to the seat) give one decision."""
    changed = 0
    for bots, phase, after, game in POSITIONS:
        t, pos = position_at(bots, phase, after, game, known=bots == "random")
        seat = int(engine.seat_to_move(t, pos))
        by_seed = {s: _choice(t, pos, seat, s) for s in range(1, 7)}
        changed += len(set(by_seed.values())) > 1
        worlds = [scramble(t, pos, seat, s) for s in range(1, 4)]
        assert len({hidden(w, seat) for w in [pos, *worlds]}) == 4
        for s in (1, 2, 3):
            assert {_choice(t, w, seat, s) for w in worlds} == {by_seed[s]}, (phase, s)
    assert changed >= 2, changed


def test_plans_and_horizon_grow_with_the_budget():
    """plans = 0 and horizon = -1 (the defaults) follow the budget: 8 candidates and 4 turns at
    64 playouts, 32 and 8 at 256; given values are kept (plans within [1, MAX_PLANS])."""
    assert P.budget(64.0, 0.0, -1.0) == (8, 4)
    assert P.budget(256.0, 0.0, -1.0) == (32, 8)
    assert P.budget(16.0, 0.0, -1.0) == (2, 2)
    assert P.budget(4096.0, 0.0, -1.0) == (P.MAX_PLANS, 16)
    assert P.budget(64.0, 5.0, 3.0) == (5, 3)
    defaults = {p.name: p.default for p in PLANNER.params}
    assert defaults == {"playouts": 64, "plans": 0, "horizon": -1, "eval_scale": 300.0, "spread": 1.5,
                        "explore": 0.25, "sees": "own"}
