"""HEXFLOW Battle on the engine interface (sim/games/hexflow/battle_engine.py): the engine's chunk
driver (one position per chunk, set up in place by battle_engine.reset; a line-up of one bot
plays each game as one battle_bots.rollout) plays each game as it plays alone, for every
shipped Battle variant and random draws of the Battle rule keys, for every random / greedy
line-up; legal_moves is the
pure-Python position's move list; sample_hidden redraws only what a seat cannot see; the search
bot plays Battle without reading hidden tiles; the play metrics replay Battle games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim import engine
from sim.engine import search
from sim.errors import VariantError
from sim.games.base import SeatBot
from sim.games.hexflow import GAME, battle_engine, race, tri_engine
from sim.games.hexflow import battle_verify as BV
from sim.games.hexflow import game as G
from sim.games.hexflow import kernel as K
from sim.runs import variants
from sim.stats import playmetrics
from sim.testing import check_chunk_driver
from tests import hexflow_reference as REF
from tests import test_hexflow_race_engine as RE
from tests.game_checks import check_game, seats_for

ROOT = Path(__file__).resolve().parent.parent
# every Battle variant (battle_swap's pie rule: the drivers' loop one decision at a time)
VARIANTS = sorted((ROOT / "variants" / "hexflow").glob("battle*.toml"))
LINEUPS = {"rr": ("random", "random"), "gr": ("greedy", "random"), "rg": ("random", "greedy"),
           "gg": ("greedy", "greedy")}
# values drawn for each Battle key (every choice; a spread of the integer ranges)
DRAWS = {"block_placement": ("adjacent", "connected"), "dots": ("default", "none", "random"),
         "hand_size": (1, 2, 3, 4, 6), "max_turns": (12, 40, 400), "no_move": ("pass", "lose"),
         "first_player": ("random", "A", "B"), "copies_per_type": (1, 2, 3),
         "battle_goal": ("edge", "corners"), "battle_start": ("corners", "edge"),
         "battle_transit_home": ("allowed", "forbidden"), "battle_tokens": (0, 1, 3, 22),
         "battle_orphan": ("line", "off"), "battle_capture_points": (0, 2, 7),
         "battle_stalemate_length": ("chain", "path")}
N_DRAWS = 8
# Battle keys the draws leave alone: tables and the tile set's readings, each tested by
# tests/test_hexflow_battle_rules_data.py, and the pie rule (battle_swap plays it)
NOT_DRAWN = ("tiles", "base_score", "dot_multipliers", "board_columns", "opponent_corners", "first_tile", "swap")


def drawn_rules(i: int) -> dict:
    """Rule draw i: every key of DRAWS set from a generator seeded by i."""
    rng = np.random.default_rng(1000 + i)
    over = {k: v[int(rng.integers(len(v)))] for k, v in DRAWS.items()}
    return GAME.resolve_rules({"mode": "battle", **over}, f"draw {i}")


def test_the_draws_cover_the_battle_keys():
    """Every key Battle plays by (game.MODE_PARAMS) but the mode, the dot list and NOT_DRAWN is
    drawn, and the draws reach every value of the choice keys."""
    assert set(DRAWS) == set(G.MODE_PARAMS["battle"]) - {"mode", "dot_list"} - set(NOT_DRAWN)
    drawn = [drawn_rules(i) for i in range(N_DRAWS)]
    for key in ("battle_goal", "battle_start", "battle_transit_home", "battle_orphan", "no_move",
                "battle_stalemate_length", "block_placement"):
        assert {r[key] for r in drawn} == set(DRAWS[key]), key


def engine_rows(rules, seats, n, seed):
    """The chunk driver's rows, checked against each game alone (sim.testing.check_chunk_driver)."""
    codes, par = engine.bot_arrays(seats)
    return check_chunk_driver(battle_engine.tables(rules), seed, 0, n, codes, par, engine.swap_policy(rules["swap"], seats))


CASES = [p.stem for p in VARIANTS] + [f"draw{i}" for i in range(N_DRAWS)]


def rules_of(name):
    if name.startswith("draw"):
        return drawn_rules(int(name[4:]))
    return variants.load(ROOT / "variants" / "hexflow" / f"{name}.toml").rules


@pytest.mark.parametrize("lineup", LINEUPS, ids=list(LINEUPS))
@pytest.mark.parametrize("name", CASES)
def test_the_chunk_driver_plays_each_game_as_alone(name, lineup):
    rules = rules_of(name)
    engine_rows(rules, seats_for(GAME, rules, list(LINEUPS[lineup])), 300 if lineup == "rr" else 60, 29)


def test_only_a_line_up_of_one_bot_of_the_games_own_plays_by_rollout():
    """A game is one call of the game's rollout only when every seat plays the same bot of the
    game's own with the same parameters, without the pie rule; asking for it otherwise fails.
    Unasked, only random line-ups do (HEXFLOW's rollout_bots): greedy plays one decision at a
    time, so a greedy run does not compile the rollout's loop."""
    rules = rules_of("battle")
    t = battle_engine.tables(rules)
    for table in (t, race.tables(GAME.resolve_rules({}, "t")), tri_engine.tables(GAME.resolve_rules({"mode": "tri"}, "t"))):
        assert engine.plays_by_rollout(type(table), K.BOT_RANDOM)
        assert not engine.plays_by_rollout(type(table), K.BOT_GREEDY)
    off = np.zeros(2, np.int64)
    for bots, want in ((["random", "random"], True), (["greedy", "greedy"], True), (["greedy", "random"], False)):
        codes, par = engine.bot_arrays(seats_for(GAME, rules, bots))
        assert engine.one_bot(codes, par, off) is want, bots
    codes, par = engine.bot_arrays(seats_for(GAME, rules, "random"))
    assert not engine.one_bot(codes, par, np.full(2, engine.SWAP_COIN))
    codes, par = engine.bot_arrays([seats_for(GAME, rules, "random")[0], mcts()])
    assert not engine.one_bot(codes, par, off)
    strong, weak = seats_for(GAME, rules, "greedy")[0], seats_for(GAME, rules, "greedy")[1]
    weak = SeatBot(weak.bot, {**weak.params, "block_weight": 0.5})
    codes, par = engine.bot_arrays([strong, weak])
    assert not engine.one_bot(codes, par, off)
    rows = np.zeros((3, t.res_width), np.int64)
    with pytest.raises(ValueError, match="by_rollout needs one bot"):
        engine.play_chunk(t, np.uint64(1), np.int64(0), np.int64(3), codes, par, off, rows, np.zeros(3, np.bool_),
                          by_rollout=True)


def test_the_comparison_meets_every_ending():
    """Over the cases above, the chunk loop's games end in every way Battle has (so the identity is
    tested on each), and displacements and transit-blocked lines occur."""
    reasons, disp, tblock = set(), 0, 0
    for name in CASES:
        rules = rules_of(name)
        res = engine_rows(rules, seats_for(GAME, rules, ["random", "random"]), 300, 29)
        reasons |= {GAME.end_reasons[int(x)] for x in np.unique(res[:, 1])}
        disp += int(res[:, 8:10].sum())
        tblock += int(res[:, 12:14].sum())
    assert {"path", "opponent_path", "no_move_loss", "turn_cap", "stalemate_score"} <= reasons
    assert disp > 0 and tblock > 0


# ---- the rule functions against the pure-Python position, hidden information, the search bot ----
def mcts(**kw) -> SeatBot:
    return SeatBot(G.MCTS, {**{p.name: p.default for p in G.MCTS.params}, **kw})


class Game1:
    """One traced Battle game through the engine and its start position."""

    def __init__(self, rules, seats, index, seed=7):
        self.tables = battle_engine.tables(rules)
        codes, par = engine.bot_arrays(seats)
        self.rec, self.res, _ = engine.play_traced(self.tables, np.uint64(seed), np.int64(index), codes, par,
                                                   np.zeros(2, np.int64), np.int64(rules["max_turns"] + 1))
        self.start = engine.start(self.tables, np.uint64(engine.game_seed(np.uint64(seed), np.int64(index))))


@pytest.mark.parametrize("name", ["battle", "battle_orphan_off", "draw1", "draw5"])
def test_legal_moves_are_the_position_apis_and_hold_every_bot_move(name):
    """At every decision of random and greedy games: legal_moves lists exactly the moves the
    pure-Python BattlePosition allows with the mover's hand (or the pass alone), without repeats,
    the bot's move is one of them, and the replayed game ends with the traced result."""
    rules = rules_of(name)
    for index, lineup in enumerate(("rr", "gr", "gg")):
        g = Game1(rules, seats_for(GAME, rules, list(LINEUPS[lineup])), index)
        t = g.tables
        py = BV.BattlePosition(rules, dots=np.asarray(g.start[0].hx[battle_engine.H_DOTS]).tolist())
        pos = None
        for pos, seat, move in RE.replay(g, g.rec):
            assert engine.seat_to_move(t, pos) == seat
            listed = engine.moves_of(t, pos).tolist()
            hand = [int(x) for x in np.asarray(pos.hand)[seat] if x >= 0]
            want = {int(battle_engine.encode(t, k, h, x, r)) for k, h, x, r in py.legal_moves(seat, hand)}
            assert len(set(listed)) == len(listed)
            assert set(listed) == (want or {int(t.pass_move)})
            assert move in listed
            if move != t.pass_move:
                py.play(seat, *(int(x) for x in battle_engine.decode(t, move)))
        capped = len(g.rec) == rules["max_turns"] and engine.seat_to_move(t, pos) >= 0
        np.testing.assert_array_equal(engine.outcome(t, pos, capped), g.res)


def mid_game(rules, index=3, decisions=10):
    """A Battle position after some greedy decisions, and the seat to move (-1: over by then)."""
    g = Game1(rules, seats_for(GAME, rules, "greedy"), index)
    pos, rng = g.start
    for _, move, state in g.rec[:decisions]:
        rng[0] = np.int64(state).view(np.uint64)
        engine.play(g.tables, pos, np.int64(move), rng)
    return g.tables, pos, int(engine.seat_to_move(g.tables, pos))


def test_sample_hidden_redraws_only_what_the_seat_cannot_see():
    t, pos, seat = mid_game(rules_of("battle"))
    assert seat >= 0
    worlds = set()
    for s in range(6):
        p = engine.copy_of(t, pos)
        engine.redraw_hidden(t, p, seat, engine.start(t, np.uint64(s))[1])
        assert RE.hidden_view(p, seat) == RE.hidden_view(pos, seat)
        worlds.add((np.asarray(p.hand)[1 - seat].tobytes(), np.asarray(p.bag).tobytes()))
        q = RE.scramble(t, pos, seat, 100 + s)
        engine.redraw_hidden(t, q, seat, engine.start(t, np.uint64(s))[1])
        np.testing.assert_array_equal(q.hand, p.hand)
        np.testing.assert_array_equal(q.bag, p.bag)
    assert len(worlds) == 6


@pytest.mark.parametrize("kw", [{"iterations": 30, "rollout": "random", "rollout_depth": 0},
                                {"iterations": 24, "rollout": "greedy", "rollout_depth": 3}])
def test_search_decisions_never_depend_on_hidden_tiles(kw):
    """Change the opponent's hand and bag and the seat's own bag order: every decision of the
    search bot is the same."""
    codes, par = engine.bot_arrays([mcts(**kw)])
    for index, decisions in ((3, 4), (5, 9)):
        t, pos, seat = mid_game(rules_of("battle"), index, decisions)
        if seat < 0:
            continue
        seen = {int(engine.bot_choice(t, RE.scramble(t, pos, seat, s) if s else pos, seat, codes[0], par[0],
                                      engine.start(t, np.uint64(9))[1])) for s in range(4)}
        assert len(seen) == 1, seen


def test_evaluate_is_greedys_measure():
    """evaluate = block_weight x the opponent's completion cost - the own (capped at 60) plus
    stalemate_weight x the difference of the stalemate scores; the costs by the board-reading
    search of tests/hexflow_reference.py."""
    t, pos, seat = mid_game(rules_of("battle"), 4, 12)
    assert seat >= 0
    hx = np.asarray(pos.hx)
    nn = 2 * int(t.nh)
    d, dq = np.zeros(nn, np.int64), np.zeros(nn * 12 + 4, np.int64)
    cost = [REF._cost(q, 1, 1, -1, 1, t.br.startm, t.br.goalm, t.br.tz, t.br.nbr, hx[battle_engine.H_TTYPE],
                      hx[battle_engine.H_TOWNER], hx[battle_engine.H_EMASK], pos.netid, pos.nets[0], d, dq)
            for q in range(2)]
    py = BV.BattlePosition(GAME.resolve_rules({"mode": "battle"}, "t"),
                           dots=hx[battle_engine.H_DOTS].tolist())
    for h in np.flatnonzero(hx[battle_engine.H_TTYPE] >= 0):
        py.tiles[int(h)] = (int(hx[battle_engine.H_TOWNER, h]), int(hx[battle_engine.H_TTYPE, h]),
                            int(hx[battle_engine.H_TROT, h]))
    py.captures = list(np.asarray(pos.sq)[battle_engine.Q_CAPTURES])
    stale = [py.stalemate_score(q)[0] for q in range(2)]
    for q in range(2):
        want = 1.5 * min(cost[1 - q], 60) - min(cost[q], 60) + 0.1 * (stale[q] - stale[1 - q])
        assert engine.value_of(t, pos, q) == pytest.approx(want)


def test_search_games_pass_the_shared_checks():
    check_game(GAME, {"mode": "battle"}, [mcts(iterations=12), "greedy"], n=4, traced=2)
    check_game(GAME, {"mode": "battle", "battle_tokens": 22, "battle_orphan": "off"},
               [mcts(iterations=8, rollout="random", rollout_depth=0), mcts(iterations=8)], n=3, traced=2)


def test_search_is_offered_in_battle_and_lookahead_is_not():
    v = variants.load("hexflow/battle", {"seats.B": "mcts"})
    assert v.seats["B"].bot.code == search.BOT_MCTS
    with pytest.raises(VariantError, match=r"seats\.A: bot 'lookahead' is not available in mode 'battle'"):
        variants.load("hexflow/battle", {"seats.A": "lookahead"})


def test_play_metrics_replay_battle_games():
    """The report's "How games play" replays Battle games through the engine."""
    pm = playmetrics.play_metrics(variants.load("hexflow/battle"), seed=1, games=6)
    assert len(pm.per_game) == 6 and not pm.note
    s = pm.summary.set_index("metric")
    assert 0 < s.loc["decision_moves", "value"] <= 1
    assert s.loc["branching_factor", "value"] > 10


def test_bench_seats_the_search_bot_with_battles_settings():
    """make bench's mcts row for Battle seats the search bot with Battle's measured setting
    (game.BATTLE_MCTS, through HexflowGame.bot_defaults), Race's with the bot's declared defaults."""
    from sim.perf import bench

    battle = bench.mcts_seats(GAME, GAME.resolve_rules({"mode": "battle"}, "t"))
    race = bench.mcts_seats(GAME, GAME.resolve_rules({}, "t"))
    assert battle[0].bot.code == search.BOT_MCTS and battle[1].bot.name == "greedy"
    assert {k: battle[0].params[k] for k in G.BATTLE_MCTS} == G.BATTLE_MCTS
    assert {k: race[0].params[k] for k in G.RACE_MCTS} == G.RACE_MCTS
    assert bench.mcts_seats(GAME, GAME.resolve_rules({"mode": "battle"}, "t"), "lookahead") is None
