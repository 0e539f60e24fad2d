"""Four flags' search bot: it never sees what its seat cannot see, and its games pass the
shared checks. Its strength is measured with `hexsim ladder` (docs/rules/flags.md), not here."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine
from sim.engine.rng import game_seed
from sim.games.base import SeatBot
from sim.games.flags import GAME
from sim.games.flags import kernel as K
from tests.game_checks import check_game, seats_for

MCTS = GAME.bot("mcts", "test")


def mcts(**kw) -> SeatBot:
    return SeatBot(MCTS, {**{p.name: p.default for p in MCTS.params}, **kw})


def position_at(bots, phase, after, game, run_seed=8, known=False):
    """Tables and position of a traced game (default rules) at its first decision from decision
    `after` on that is of `phase` and has more than one legal move (and, with `known`, where the
    seat to move knows some of the other hand's cards)."""
    rules = GAME.defaults()
    trace = GAME.play_traced(rules, seats_for(GAME, rules, bots), game, run_seed)
    t = GAME.tables(rules)
    pos, rng = engine.start_at(t, np.uint64(game_seed(np.uint64(run_seed), np.int64(game))), np.int64(game))
    for i, (_, move, state) in enumerate(trace.data["rec"]):
        if (i >= after and pos.st[K.PHASE] == phase and len(engine.moves_of(t, pos)) > 1
                and (not known or np.asarray(pos.known)[pos.st[K.SEAT]].sum() > 0)):
            return t, pos
        rng[0] = np.int64(state).view(np.uint64)
        engine.play(t, pos, np.int64(move), rng)
    raise AssertionError(f"no {phase} decision after {after} in game {game}")


def scramble(t, pos, seat, s):
    """Another world that looks the same to `seat`: the other hand's cards the seat does not know
    and the draw pile dealt again from those same cards (known cards stay where they are)."""
    p = engine.copy_of(t, pos)
    rng = np.random.default_rng(s)
    other = 1 - seat
    hands, deck, known = np.asarray(p.hands), np.asarray(p.deck), np.asarray(p.known)
    slots = [i for i in range(int(p.hand_n[other])) if known[seat, hands[other, i]] == 0]
    n = int(p.st[K.DECK_N])
    pool = rng.permutation(np.concatenate([hands[other, slots], deck[:n]]))
    hands[other, slots] = pool[:len(slots)]
    deck[:n] = pool[len(slots):]
    return p


def hidden(pos, seat):
    return np.asarray(pos.hands)[1 - seat].tobytes() + np.asarray(pos.deck)[:int(pos.st[K.DECK_N])].tobytes()


# (bots of the traced game, phase of the decision, from which decision on, game index): a card, a
# reinforcement unit, a step and a step's count in greedy games, and a card late in a random game,
# after the draw pile has been rebuilt (the cards then in the other hand are known)
POSITIONS = [("greedy", K.CARD, 60, 1), ("greedy", K.REINF, 100, 2), ("greedy", K.STEP, 150, 3),
             ("greedy", K.COUNT, 150, 4), ("random", K.CARD, 1500, 3)]


@pytest.mark.parametrize("bots, phase, after, game", POSITIONS)
def test_search_decisions_never_depend_on_the_hidden_cards(bots, phase, after, game):
    """The hidden-information test of the other bots: the other hand and the draw pile changed
    consistently (four worlds); every decision of the search bot is the same, for the same
    generator. sample_hidden shuffles from the unseen cards in card order, not in the order they
    lie, so nothing hidden reaches the search through the draw."""
    t, pos = position_at(bots, phase, after, game, known=bots == "random")
    seat = int(engine.seat_to_move(t, pos))
    assert seat >= 0 and len(engine.moves_of(t, pos)) > 1
    if bots == "random":
        assert np.asarray(pos.known)[seat].sum() > 0
    for kw in ({"iterations": 40, "rollout_depth": 3}, {"iterations": 24, "rollout": "random", "rollout_depth": 0},
               {"iterations": 40, "prior_depth": 4, "prior": 0.3},
               {"iterations": 24, "root": "halving", "rollout_depth": 3}):
        codes, par = engine.bot_arrays([mcts(**kw)])
        worlds = [pos] + [scramble(t, pos, seat, s) for s in range(1, 4)]
        assert len({hidden(w, seat) for w in worlds}) == 4
        seen = {int(engine.bot_choice(t, w, seat, codes[0], par[0], np.array([9], np.uint64))) for w in worlds}
        assert len(seen) == 1, seen


def test_search_games_pass_the_shared_checks():
    check_game(GAME, GAME.defaults(), [mcts(iterations=6, rollout_depth=4), "greedy"], n=4, traced=2)
    check_game(GAME, {**GAME.defaults(), "first_player": "alternate"},
               [mcts(iterations=4, rollout="random", rollout_depth=6), mcts(iterations=4)], n=3, traced=1)


def test_rules_listing_names_the_search_bot_and_its_defaults():
    from typer.testing import CliRunner

    from sim.cli import app

    defaults = {p.name: p.default for p in MCTS.params}
    assert defaults == {"iterations": 200, "c": 0.7, "rollout": "greedy", "rollout_depth": 1, "eval_scale": 100.0,
                        "prior": 1.0, "prior_depth": 1, "root": "uct", "policy_temp": 0.0, "policy_greedy": 0.0,
                        "win_check": 1, "backup": "maxn", "sees": "own", "widening": 0.0, "tree_after": 0}
    res = CliRunner().invoke(app, ["rules", "flags"])
    assert res.exit_code == 0 and "mcts" in res.output
    assert "rollout=greedy, rollout_depth=1, eval_scale=100.0, prior=1.0, prior_depth=1" in res.output
