"""HEXFLOW Race on the engine interface (sim/games/hexflow/race.py): the random chunk loop plays
exactly the engine drivers' games for every Race variant, legal_moves is the position API's move
list, sample_hidden redraws only what a seat cannot see, and the search bot plays Race (and no
mode off the engine) without reading hidden tiles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim import engine
from sim.engine import search
from sim.errors import VariantError
from sim.games.base import SeatBot
from sim.games.hexflow import GAME, race
from sim.games.hexflow import game as G
from sim.games.hexflow.position import Position
from sim.runs import variants
from sim.testing import check_chunk_driver
from tests import hexflow_reference as REF
from tests.game_checks import check_game, seats_for

ROOT = Path(__file__).resolve().parent.parent
# every Race variant (race_swap's pie rule: the drivers' loop one decision at a time)
VARIANTS = sorted((ROOT / "variants" / "hexflow").glob("race*.toml"))
# rule sets the shipped variants leave rare: passes, the no-move loss and the turn cap; and rules
# only race.py reads (a hand size by seat, the two readings, another board)
PASSES = {"blocked_player_loses": False, "hand_size": 1, "block_placement": "connected"}
EXTRA = {"passes": PASSES, "no_move_lose": {**PASSES, "no_move": "lose"}, "capped": {"max_turns": 12},
         "hands": {"hand_size": {"A": 2, "B": 4}}, "reserved": {"opponent_corners": "reserved"},
         "onto": {"first_tile": "onto_board"}, "columns7": {"board_columns": 7, "dots": "random"}}
LINEUPS = {"rr": ("random", "random"), "gr": ("greedy", "random"), "rg": ("random", "greedy"),
           "gg": ("greedy", "greedy")}


def mcts(**kw) -> SeatBot:
    return SeatBot(G.MCTS, {**{p.name: p.default for p in G.MCTS.params}, **kw})


def rules_of(name):
    if name in EXTRA:
        return GAME.resolve_rules(EXTRA[name], "test")
    return variants.load(ROOT / "variants" / "hexflow" / f"{name}.toml").rules


@pytest.mark.parametrize("lineup", LINEUPS, ids=list(LINEUPS))
@pytest.mark.parametrize("name", [p.stem for p in VARIANTS] + list(EXTRA))
def test_the_chunk_driver_plays_each_game_as_alone(name, lineup):
    """The engine's chunk driver (one position per chunk, set up in place by race.reset; a line-up
    of one bot plays each game as one race_bots.rollout) against each game alone, on a new position,
    one decision at a time; the games of the code before the engine (the first chunk kernel)
    are held by the baselines."""
    rules = rules_of(name)
    seats = seats_for(GAME, rules, list(LINEUPS[lineup]))
    codes, par = engine.bot_arrays(seats)
    n = 300 if lineup == "rr" else 40
    loop = check_chunk_driver(race.tables(rules), 41, 3, n, codes, par, engine.swap_policy(rules["swap"], seats))
    if lineup != "rr":
        return
    ends = {"passes": "stalemate_closest", "no_move_lose": "no_move_loss", "capped": "turn_cap"}
    if name in ends:  # the rare endings these rule sets are here for
        assert (loop[:, 1] == GAME.end_reasons.index(ends[name])).any()
        if name == "passes":
            assert loop[:, 6:8].sum() > 0


def replay(t, rec):
    """Replay an engine trace through the generic functions; yield (position, seat, move) before
    each decision, then check the game is over."""
    pos, rng = t.start
    for seat, move, state in rec:
        yield pos, int(seat), int(move)
        rng[0] = np.int64(state).view(np.uint64)
        engine.play(t.tables, pos, np.int64(move), rng)


class Game1:
    def __init__(self, rules, seats, index, seed=7):
        self.tables = race.tables(rules)
        codes, par = engine.bot_arrays(seats)
        self.rec, self.res, _ = engine.play_traced(self.tables, np.uint64(seed), np.int64(index), codes, par,
                                                   np.zeros(2, np.int64), np.int64(rules["max_turns"] + 1))
        self.start = engine.start(self.tables, np.uint64(engine.game_seed(np.uint64(seed), np.int64(index))))


@pytest.mark.parametrize("name", ["race", "race_block_connected", "passes"])
def test_legal_moves_are_the_position_apis_and_hold_every_bot_move(name):
    """At every decision of random and greedy games: legal_moves lists exactly the distinct
    placements the pure-Python Position allows with the mover's hand (or the pass alone), the
    bot's move is one of them, and the replayed game ends with the traced result."""
    rules = rules_of(name)
    for index, lineup in enumerate(("rr", "gr", "gg")):
        g = Game1(rules, seats_for(GAME, rules, list(LINEUPS[lineup])), index)
        t = g.tables
        py = Position(rules, dots=np.asarray(g.start[0].hx[race.H_DOTS]).tolist())
        pos = None
        for pos, seat, move in replay(g, g.rec):
            assert engine.seat_to_move(t, pos) == seat
            listed = engine.moves_of(t, pos)
            hand = [int(x) for x in np.asarray(pos.hand)[seat] if x >= 0]
            want = {int(race.encode(t, h, k, r)) for h, k, r in py.legal_moves(seat, hand)} if hand else set()
            assert len(set(listed.tolist())) == len(listed)
            assert set(listed.tolist()) == (want or {int(t.pass_move)})
            assert move in listed
            if move != t.pass_move:
                h, k, r = (int(x) for x in race.decode(t, move))
                py.place(seat, h, k, r)
        assert engine.seat_to_move(t, pos) == -1 or len(g.rec) == rules["max_turns"]
        np.testing.assert_array_equal(engine.outcome(t, pos, len(g.rec) == rules["max_turns"]), g.res)


def mid_game(rules, index=3, decisions=8):
    """A Race position after some greedy decisions, and the seat to move (-1: over by then)."""
    g = Game1(rules, seats_for(GAME, rules, "greedy"), index)
    pos, rng = g.start
    for _, move, state in g.rec[:decisions]:
        rng[0] = np.int64(state).view(np.uint64)
        engine.play(g.tables, pos, np.int64(move), rng)
    return g.tables, pos, int(engine.seat_to_move(g.tables, pos))


def hidden_view(pos, seat):
    """What `seat` may know: the board, its hand, every count, its bag as a multiset, the
    opponent's hand and bag together as a multiset."""
    o = 1 - seat
    bag, hand, sq = np.asarray(pos.bag), np.asarray(pos.hand), np.asarray(pos.sq)
    n, m = sq[race.Q_BAGN]
    return (np.asarray(pos.hx).tobytes(), np.asarray(pos.st).tobytes(), sq.tobytes(), hand[seat].tobytes(),
            tuple(hand[o] >= 0), sorted(bag[seat, :[n, m][seat]]),
            sorted([*bag[o, :[n, m][o]], *(x for x in hand[o] if x >= 0)]))


def scramble(t, pos, seat, seed):
    """The same position to `seat`'s eyes with other hidden tiles: its bag reordered, the
    opponent's hand and bag pooled and dealt anew (a different, equally consistent world)."""
    p = engine.copy_of(t, pos)
    rng = np.random.default_rng(seed)
    bag, hand, sq = np.asarray(p.bag), np.asarray(p.hand), np.asarray(p.sq)
    n = sq[race.Q_BAGN]
    bag[seat, :n[seat]] = rng.permutation(bag[seat, :n[seat]])
    o = 1 - seat
    slots = np.flatnonzero(hand[o] >= 0)
    pool = rng.permutation(np.concatenate([bag[o, :n[o]], hand[o, slots]]))
    bag[o, :n[o]] = pool[:n[o]]
    hand[o, slots] = pool[n[o]:]
    return p


def test_sample_hidden_redraws_only_what_the_seat_cannot_see():
    rules = rules_of("race")
    t, pos, seat = mid_game(rules)
    worlds = set()
    for s in range(6):
        p = engine.copy_of(t, pos)
        engine.redraw_hidden(t, p, seat, engine.start(t, np.uint64(s))[1])
        assert hidden_view(p, seat) == hidden_view(pos, seat)
        worlds.add((np.asarray(p.hand)[1 - seat].tobytes(), np.asarray(p.bag).tobytes()))
        # from another world that looks the same to the seat, the same draw gives the same world
        q = scramble(t, pos, seat, 100 + s)
        assert hidden_view(q, seat) == hidden_view(pos, seat)
        engine.redraw_hidden(t, q, seat, engine.start(t, np.uint64(s))[1])
        np.testing.assert_array_equal(q.hand, p.hand)
        np.testing.assert_array_equal(q.bag, p.bag)
    assert len(worlds) == 6


@pytest.mark.parametrize("kw", [{"iterations": 40}, {"iterations": 30, "rollout": "greedy", "rollout_depth": 3}])
def test_search_decisions_never_depend_on_hidden_tiles(kw):
    """The hidden-information test of the other games: change the opponent's hand and bag and the
    seat's own bag order; every decision of the search bot is the same."""
    rules = rules_of("race")
    codes, par = engine.bot_arrays([mcts(**kw)])
    for index, decisions in ((3, 4), (5, 9), (8, 14)):
        t, pos, seat = mid_game(rules, index, decisions)
        if seat < 0:
            continue
        seen = {int(engine.bot_choice(t, scramble(t, pos, seat, s) if s else pos, seat, codes[0], par[0],
                                      engine.start(t, np.uint64(9))[1])) for s in range(4)}
        assert len(seen) == 1, seen


def test_search_games_pass_the_shared_checks():
    check_game(GAME, {}, [mcts(iterations=16), "greedy"], n=6, traced=2)
    check_game(GAME, {"blocked_player_loses": False}, [mcts(iterations=8, rollout="greedy", rollout_depth=2),
                                                       mcts(iterations=8)], n=4, traced=2)


def test_search_is_offered_in_every_mode_lookahead_in_race_only():
    assert "mcts" in [b.name for b in GAME.bots]
    for mode in ("battle", "tri", "tri2p"):  # every mode is on the engine; lookahead is Race's
        seat = GAME.seat_names(GAME.resolve_rules({"mode": mode}, "test"))[-1]
        assert variants.load(f"hexflow/{mode}", {f"seats.{seat}": "mcts"}).seats[seat].bot.code == search.BOT_MCTS
        with pytest.raises(VariantError, match=rf"seats\.{seat}: bot 'lookahead' is not available in mode '{mode}'"):
            variants.load(f"hexflow/{mode}", {f"seats.{seat}": "lookahead"})
    v = variants.load("hexflow/race", {"seats.B": "mcts"})
    assert v.seats["B"].bot.code == search.BOT_MCTS


def reference_cost(t, pos, seat):
    """Empty hexes still to fill between the seat's corners, by the reference 0-1 search."""
    nn = 2 * int(t.nh)
    return REF._bfs(t.corners[seat, 0], t.corners[seat, 1], -1, t.nbr, pos.hx[race.H_TTYPE], pos.hx[race.H_EMASK],
                    pos.netid, pos.nets[0], np.zeros(nn, np.int64), np.zeros(nn, np.int64),
                    np.zeros(nn * 12 + 4, np.int64), False)


def test_evaluation_is_greedys_cost_difference():
    """1.5 (greedy's block_weight) x the opponent's completion cost - the seat's own, each capped
    at 60; +-1e9 once the game is decided."""
    rules = rules_of("race")
    checked = 0
    for index in range(4):
        g = Game1(rules, seats_for(GAME, rules, "greedy"), index)
        t = g.tables
        pos = None
        for pos, seat, _ in replay(g, g.rec):
            for q in (seat, 1 - seat):
                want = 1.5 * min(reference_cost(t, pos, 1 - q), 60) - min(reference_cost(t, pos, q), 60)
                assert engine.value_of(t, pos, q) == want
                checked += 1
        w = int(g.res[0])
        if w >= 0:
            assert engine.value_of(t, pos, w) == 1e9 and engine.value_of(t, pos, 1 - w) == -1e9
    assert checked > 40


def test_every_race_baseline_replays_one_decision_at_a_time(monkeypatch):
    """The stored sample of every committed Race baseline, played with every chunk one decision
    at a time (a line-up of one bot normally plays each game as one race_bots.rollout)."""
    from sim.workflows import baseline

    play = engine.play_chunk
    monkeypatch.setattr(engine, "play_chunk", lambda *a, **kw: play(*a, **{**kw, "by_rollout": False}))
    paths = sorted((ROOT / "data" / "baselines" / "hexflow").glob("race*.json"))
    assert len(paths) >= 9
    for r in baseline.check(paths, statistical=False, jobs=1).results:
        assert r.exact_games > 0 and r.exact_differing == 0, (r.path, r.exact_mismatches)
        assert not r.variant_changed
