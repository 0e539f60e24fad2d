"""The search bot never reads what its seat cannot see, in every game with hidden information,
at the settings each game ships (its mode's defaults): its decisions change with its own
generator (the test has power), never with the hidden state (the other seats' hands, the order of
the bags and the draw pile) redrawn consistently with what the seat has seen. The `oracle`, the
search that sees every hand (`sees = "all"`), does change with the other hands, and redraws only
what nobody has seen (`sample_hidden` with seat -1)."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine, games
from sim.engine.rng import game_seed
from sim.games.base import SeatBot

# (game, rule overrides): every game and mode whose positions hide something
HIDDEN = [("hexflow", {}), ("hexflow", {"mode": "battle"}), ("hexflow", {"mode": "tri"}),
          ("hexflow", {"mode": "tri2p"}), ("flags", {}), ("hexatrex", {})]


def shipped(game, rules, name="mcts", **kw) -> SeatBot:
    """The bot at the defaults a seat of this game and mode starts from."""
    b = game.bot(name, "test")
    return SeatBot(b, {**{p.name: p.default for p in b.params}, **game.bot_defaults(rules, name), **kw})


def positions(game, rules, n=4, game_index=5, run_seed=2):
    """(tables, position, seat to move) at n decisions of a greedy game with two or more moves."""
    greedy = game.bot("greedy", "test")
    seats = [SeatBot(greedy, {p.name: p.default for p in greedy.params}) for _ in game.seat_names(rules)]
    t, rec = game.engine_replay(rules, seats, game_index, run_seed)
    pos, rng = engine.start_at(t, np.uint64(game_seed(np.uint64(run_seed), np.int64(game_index))),
                               np.int64(game_index))
    out = []
    step = max(1, len(rec) // (n + 1))
    for i in range(len(rec)):
        if i % step == step // 2 and len(out) < n and len(engine.moves_of(t, pos)) > 1:
            out.append((t, engine.copy_of(t, pos), int(engine.seat_to_move(t, pos))))
        rng[0] = np.uint64(rec[i, 2])
        engine.play(t, pos, np.int64(rec[i, 1]), rng)
    assert len(out) == n
    return out


def fields(pos) -> bytes:
    return b"".join(np.asarray(f).tobytes() for f in pos if isinstance(f, np.ndarray))


def redrawn(t, pos, seat, s):
    """Another world that looks the same to `seat` (the game's own redraw with generator s)."""
    w = engine.copy_of(t, pos)
    engine.redraw_hidden(t, w, seat, np.array([s], np.uint64))
    return w


def decide(t, pos, seat, bot: SeatBot, seed: int) -> int:
    codes, par = engine.bot_arrays([bot])
    return int(engine.bot_choice(t, pos, seat, codes[0], par[0], np.array([seed], np.uint64)))


@pytest.mark.parametrize("name, overrides", HIDDEN)
def test_decisions_change_with_the_seed_never_with_what_the_seat_cannot_see(name, overrides):
    game = games.get(name)
    rules = game.resolve_rules(overrides, "test")
    bot = shipped(game, rules)
    by_seed, by_world = [], []
    for t, pos, seat in positions(game, rules):
        by_seed.append(len({decide(t, pos, seat, bot, s) for s in (1, 2, 3, 4)}) > 1)
        worlds = [pos] + [redrawn(t, pos, seat, s) for s in (11, 12, 13)]
        assert len({fields(w) for w in worlds}) > 1  # the redraw changed something hidden
        by_world.append(len({decide(t, w, seat, bot, 7) for w in worlds}) == 1)
    assert any(by_seed), by_seed  # power: the search's own generator moves its decisions
    assert all(by_world), by_world


@pytest.mark.parametrize("name, overrides", HIDDEN)
def test_the_oracle_reads_the_hands_and_redraws_only_the_draw_order(name, overrides):
    """Seat -1 keeps every hand (its redraw changes only draw orders, from the same multisets);
    the oracle's decisions follow the hands the others really hold: at some position a world
    redrawn for the seat (other hands) moves its decision, for the same generator."""
    game = games.get(name)
    rules = game.resolve_rules(overrides, "test")
    assert shipped(game, rules, "oracle").params["sees"] == "all" and game.bots[-1].name == "oracle"
    # tri's shipped look puts half of p on greedy's move, which reads only the seat's own hand and
    # steers the oracle's few iterations alike in every world: the look alone shows the hands' pull
    oracle = shipped(game, rules, "oracle", **({"policy_greedy": 0.0} if overrides.get("mode") == "tri" else {}))
    moved = []
    for t, pos, seat in positions(game, rules, n=8):
        nobody = redrawn(t, pos, -1, 5)
        hand = "hands" if "hands" in pos._fields else "hand"
        np.testing.assert_array_equal(getattr(nobody, hand), getattr(pos, hand))
        worlds = [pos] + [redrawn(t, pos, seat, s) for s in (11, 12, 13)]
        moved.append(len({decide(t, w, seat, oracle, 7) for w in worlds}) > 1)
    assert any(moved), moved
