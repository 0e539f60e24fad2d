"""HEXFLOW Race's lookahead bot (race.py `_lookahead`): checked against a brute force written
here over the engine's Python-callable functions (every placement tried and the game's own result
read), at each of its decisions in short games against greedy: it takes an immediate win whenever it has one, and it
never hands the opponent an immediate win (with any tile the opponent may hold) while a move that
does not exists. Its games are the same for any chunking and through the runner."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine
from sim.errors import VariantError
from sim.games.base import SeatBot
from sim.games.hexflow import GAME, race
from sim.games.hexflow import rules as R
from sim.runs import variants
from tests.game_checks import check_game, seats_for
from tests.test_hexflow_race_engine import Game1, replay

pytestmark = pytest.mark.slow  # plays lookahead games (make test-fast leaves it out)

LOOKAHEAD = SeatBot(R.LOOKAHEAD, {p.name: p.default for p in R.LOOKAHEAD.params})


def winner_after(t, pos, move):
    """The declared winner once `move` is played (-2: the game goes on)."""
    p = engine.copy_of(t, pos)
    engine.play(t, p, np.int64(move), engine.start(t, np.uint64(0))[1])
    if engine.seat_to_move(t, p) >= 0:
        return -2
    return int(engine.outcome(t, p, False)[engine.WINNER])


def wins_now(t, pos, q, own):
    """Every placement with which q (to move) wins at once: from its hand (own), or with any tile
    it may hold as its opponent sees it (its tiles not on the board, each tried as its hand)."""
    if own:
        return {int(m) for m in engine.moves_of(t, pos) if m != t.pass_move and winner_after(t, pos, m) == q}
    placed = np.asarray(pos.st)[race.ST_TILES + q * t.n_types:race.ST_TILES + (q + 1) * t.n_types]
    found = set()
    for tile in np.flatnonzero(np.asarray(t.tile_count)[q] > placed):
        p = engine.copy_of(t, pos)
        np.asarray(p.hand)[q, :] = -1
        np.asarray(p.hand)[q, 0] = tile
        found |= {int(m) for m in engine.moves_of(t, p) if m != t.pass_move and winner_after(t, p, m) == q}
    return found


def hands_over(t, pos, seat, move):
    """After `move`, can the opponent win with its reply (or has the move lost already)?"""
    w = winner_after(t, pos, move)
    if w != -2:
        return w == 1 - seat
    p = engine.copy_of(t, pos)
    engine.play(t, p, np.int64(move), engine.start(t, np.uint64(0))[1])
    return bool(wins_now(t, p, 1 - seat, own=False))


def choice(t, pos, seat, bot, rng_seed):
    codes, par = engine.bot_arrays([bot])
    return int(engine.bot_choice(t, pos, seat, codes[0], par[0], engine.start(t, np.uint64(rng_seed))[1]))


@pytest.mark.parametrize("overrides", [{}, {"hand_size": 2, "dots": "none"}])
def test_lookahead_takes_wins_and_never_hands_one_over(overrides):
    rules = GAME.resolve_rules(overrides, "test")
    greedy = seats_for(GAME, rules, ["greedy"])[0]
    took = avoided = 0
    for index in range(14):
        look = 0 if index % 2 else 1  # lookahead's seat; its decisions are the traced moves
        g = Game1(rules, [LOOKAHEAD, greedy] if look == 0 else [greedy, LOOKAHEAD], index, seed=31)
        t = g.tables
        for d, (pos, seat, mine) in enumerate(replay(g, g.rec)):
            if seat != look:
                continue
            wins = wins_now(t, pos, seat, own=True)
            if wins:
                assert mine in wins, f"game {index} decision {d}: missed an immediate win"
                took += 1
                continue
            g_move = choice(t, pos, seat, greedy, 100 + d)
            if mine == t.pass_move or not hands_over(t, pos, seat, g_move):
                continue
            # greedy's move hands over a win here: lookahead's must not, unless every move does
            legal = [int(m) for m in engine.moves_of(t, pos)]
            if hands_over(t, pos, seat, mine):
                assert all(hands_over(t, pos, seat, m) for m in legal), \
                    f"game {index} decision {d}: handed over a win with a safe move left"
            else:
                avoided += 1
    assert took > 0 and avoided > 0, (took, avoided)


def test_lookahead_games_are_deterministic_and_chunking_free():
    check_game(GAME, {}, [LOOKAHEAD, "greedy"], n=12, traced=2)
    check_game(GAME, {"blocked_player_loses": False, "block_placement": "connected"}, [LOOKAHEAD, LOOKAHEAD],
               n=8, traced=2)


def test_lookahead_is_offered_only_in_race():
    assert "lookahead" in [b.name for b in GAME.bots]
    for mode in ("battle", "tri"):
        seat = GAME.seat_names(GAME.resolve_rules({"mode": mode}, "test"))[0]
        with pytest.raises(VariantError, match=rf"seats\.{seat}: bot 'lookahead' is not available in mode"):
            variants.load(f"hexflow/{mode}", {f"seats.{seat}": "lookahead"})
