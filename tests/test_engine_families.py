"""The engine's drivers compiled per bot family (sim/engine/drivers.py): a line-up without a search seat
plays through drivers that compile nothing of sim/engine/search.py, the same games as the search
family plays for it, and a line-up with a search seat cannot be played without its tree."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim import engine, games
from sim.engine import search
from sim.testing import seats_for
from tests.fixtures.hexgame import GAME

pytestmark = pytest.mark.slow  # compiles each game's drivers in fresh processes (make test-fast leaves it out)
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(GAME)
    return GAME


def both_families(game, rules, seats, n=120, seed=5):
    """Result rows, swapped flags and one traced game's records through each family."""
    t = game.tables(rules)
    codes, par = engine.bot_arrays(seats)
    swap = game.swap_policy(rules, seats)
    out = {}
    for searching in (False, True):
        rows = np.zeros((n, t.res_width), np.int64)
        swapped = np.zeros(n, np.bool_)
        engine.play_chunk(t, np.uint64(seed), np.int64(0), np.int64(n), codes, par, swap, rows, swapped,
                          searching=searching)
        traced = engine.play_traced(t, np.uint64(seed), np.int64(3), codes, par, swap, np.int64(10_000),
                                    searching=searching)
        out[searching] = (rows, swapped, traced)
    return out


@pytest.mark.parametrize("game_name, overrides, bots", [
    ("hex", {"size": 5, "swap": True}, ["greedy", "random"]),
    ("hexatile", {"swap": True}, ["greedy", "greedy"]),  # the pie rule asked of the game's bots
    ("hexatile", {"swap": True}, ["greedy", "random"]),  # ... and by a coin (B answers)
])
def test_a_lineup_without_search_plays_the_same_games_in_both_families(game_name, overrides, bots):
    game = games.get(game_name, "test")
    rules = game.resolve_rules(overrides, "test")
    seats = seats_for(game, rules, bots)
    assert engine.family(engine.bot_arrays(seats)[0]) == "plain"
    got = both_families(game, rules, seats)
    (rows0, sw0, (rec0, res0, s0)), (rows1, sw1, (rec1, res1, s1)) = got[False], got[True]
    assert (rows0 == rows1).all() and (sw0 == sw1).all()
    assert (rec0 == rec1).all() and (res0 == res1).all() and s0 == s1
    assert len({tuple(r) for r in rows0}) > 1  # games that differ, not one game repeated
    if game_name == "hexatile" and bots[1] == "random":
        assert sw0.any() and not sw0.all()  # the coin took the pie rule in some games, not all


def test_the_game_api_picks_the_family_from_the_seats():
    game = games.get("hex", "test")
    rules = game.resolve_rules({"size": 4}, "test")
    for bots, fam in ((["greedy", "random"], "plain"), (["mcts", "greedy"], "search"),
                      (["random", "mcts"], "search")):
        assert engine.family(engine.bot_arrays(seats_for(game, rules, bots))[0]) == fam
    s = seats_for(game, rules, ["mcts", "greedy"])
    s[0] = type(s[0])(s[0].bot, {**s[0].params, "iterations": 8})
    cols = game.play_chunk(rules, s, 0, 4, 1)  # the search family, through EngineGame
    assert len(cols["winner"]) == 4
    game.verify_trace(game.play_traced(rules, s, 2, 1))


def test_a_search_seat_needs_the_search_family():
    game = games.get("hex", "test")
    rules = game.resolve_rules({"size": 4}, "test")
    t = game.tables(rules)
    codes, par = engine.bot_arrays(seats_for(game, rules, ["mcts", "greedy"]))
    rows = np.zeros((1, t.res_width), np.int64)
    with pytest.raises(ValueError, match="search seat"):
        engine.play_chunk(t, np.uint64(1), np.int64(0), np.int64(1), codes, par, np.zeros(2, np.int64), rows,
                          np.zeros(1, np.bool_), searching=False)


# a greedy-and-random run of the Hex fixture from an empty cache (then what each probe prints)
PROBE_RUN = """
import numpy as np
from sim import engine, games
from sim.engine import drivers, search
from sim.testing import seats_for
from tests.fixtures.hexgame import GAME, kernel
games.register(GAME)
rules = GAME.resolve_rules({"size": 4}, "test")
GAME.play_chunk(rules, seats_for(GAME, rules, ["greedy", "random"]), 0, 3, 0)
GAME.play_traced(rules, seats_for(GAME, rules, ["random", "greedy"]), 0, 0)
"""
PROBE = PROBE_RUN + """
print(len(search._search.signatures), len(search.new_tree.signatures),
      [f"{sig[7]}/{sig[8]}" for sig in drivers._play_chunk.signatures])  # tree / costly
"""


def probe(code: str, cache: Path) -> str:
    """What `code` prints, run in a process of its own from an empty numba cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def test_a_lineup_without_search_compiles_nothing_of_the_search(tmp_path):
    """From an empty numba cache, in a process of its own: greedy and random games compile the
    plain family only (its tree argument is None) and not one function of sim/engine/search.py."""
    assert probe(PROBE, tmp_path).split() == ["0", "0", "['none/none']"]


# ---- the game's own costly bots (implement's costly_bots: compiled only where seated) --------
def test_a_lineup_without_a_costly_bot_plays_the_same_games_with_or_without_them():
    game = games.get("hex", "test")
    rules = game.resolve_rules({"size": 5, "swap": True}, "test")
    seats = seats_for(game, rules, ["greedy", "random"])
    t = game.tables(rules)
    codes, par = engine.bot_arrays(seats)
    swap = game.swap_policy(rules, seats)
    assert engine.costly_for(t, codes) is None
    got = []
    for costly in (False, True):
        rows = np.zeros((80, t.res_width), np.int64)
        swapped = np.zeros(80, np.bool_)
        engine.play_chunk(t, np.uint64(3), np.int64(0), np.int64(80), codes, par, swap, rows, swapped, costly=costly)
        rec = engine.play_traced(t, np.uint64(3), np.int64(5), codes, par, swap, np.int64(10_000), costly=costly)[0]
        got.append((rows, rec))
    assert (got[0][0] == got[1][0]).all() and (got[0][1] == got[1][1]).all()
    assert len({tuple(r) for r in got[0][0]}) > 1


def test_a_costly_bot_plays_legal_winning_games_and_needs_its_drivers():
    game = games.get("hex", "test")
    rules = game.resolve_rules({"size": 4}, "test")
    t = game.tables(rules)
    seats = seats_for(game, rules, ["minimax", "greedy"])
    codes, par = engine.bot_arrays(seats)
    assert engine.costly_for(t, codes).tolist() == [2]
    for g in range(6):
        game.verify_trace(game.play_traced(rules, seats, g, 1))  # every decision legal, result as declared
    # two plies see the reply greedy's one ply misses: over rotated seats minimax wins most games
    wins = 0
    for order in (["minimax", "greedy"], ["greedy", "minimax"]):
        cols = game.play_chunk(rules, seats_for(game, rules, order), 0, 60, 7)
        wins += int((cols["winner"] == order.index("minimax")).sum())
    assert wins > 60, wins
    rows = np.zeros((1, t.res_width), np.int64)
    with pytest.raises(ValueError, match="costly"):
        engine.play_chunk(t, np.uint64(1), np.int64(0), np.int64(1), codes, par, np.zeros(2, np.int64), rows,
                          np.zeros(1, np.bool_), costly=False)
    both, bpar = engine.bot_arrays(seats_for(game, rules, ["minimax", "minimax"]))
    assert not engine.one_bot(both, bpar, np.zeros(2, np.int64), engine.costly_bots(type(t)))
    with pytest.raises(ValueError, match="by_rollout"):  # a costly bot never plays a rollout
        engine.play_chunk(t, np.uint64(1), np.int64(0), np.int64(1), both, bpar, np.zeros(2, np.int64), rows,
                          np.zeros(1, np.bool_), by_rollout=True)


COSTLY_PROBE = PROBE_RUN + """
print(len(kernel._minimax.signatures), end=" ")
GAME.play_chunk(rules, seats_for(GAME, rules, ["minimax", "random"]), 0, 3, 0)
print(len(kernel._minimax.signatures), sorted(str(sig[8]) for sig in drivers._play_chunk.signatures))  # costly
"""


def test_a_lineup_without_a_costly_bot_compiles_nothing_of_it(tmp_path):
    """From an empty numba cache, in a process of its own: greedy and random games compile the
    drivers with costly=None and not the costly bot; seating it compiles it, in a second
    signature of the drivers."""
    out = probe(COSTLY_PROBE, tmp_path).split(maxsplit=2)
    assert out[:2] == ["0", "1"], out
    assert out[2].strip() == "['array(int64, 1d, C)', 'none']", out


# a greedy-and-random run and a search-against-greedy run of the Hex fixture from an empty cache,
# counting how often numba compiles each of the fixture's functions for the same argument types
SPLIT_PROBE = """
import collections
from numba.core import event
compiled = collections.Counter()

class Count(event.Listener):
    def on_start(self, ev):
        f = getattr((ev.data or {}).get("dispatcher"), "py_func", None)
        if f is not None and str(f.__module__).startswith("tests.fixtures.hexgame"):
            compiled[(f.__qualname__, str(ev.data.get("args")))] += 1

    def on_end(self, ev):
        pass

event.register("numba:compile", Count())
""" + PROBE_RUN + """
s = seats_for(GAME, rules, ["mcts", "greedy"])
s[0].params["iterations"] = 8
GAME.play_chunk(rules, s, 0, 2, 0)
GAME.play_traced(rules, s, 0, 0)
print(len(compiled), sorted(name for (name, _), n in compiled.items() if n > 1))
"""


# Compiled twice for reasons other than the search's flags, left for later: the fixture's
# evaluate calls its own compiled new_scratch while the drivers compile the body; the engine's
# uniform bot (compiled without reference counting) and the search both list moves; the default
# `winner` of the search's playouts asks `result` from inside the engine's forwarder.
KNOWN_TWICE = {"new_scratch", "legal_moves", "result"}


def test_each_rule_function_compiles_once_for_the_drivers_and_the_search(tmp_path):
    """numba compiles a rule function's body once per set of its callers' compile flags: the
    search's kernels that call the game's rules (`_search`, `_halving_move`) share the drivers'
    flags, so a run that seats the search bot compiles the game's apply, to_move, bot_move,
    sample_hidden, evaluate, ... no second time (as kernels they did: HEXATILE's warm compiled
    six rule functions twice)."""
    n, searched = probe(SPLIT_PROBE, tmp_path).split(" ", 1)
    assert int(n) >= 8, n  # the fixture's rules and bots were compiled and counted
    twice = set(ast.literal_eval(searched))
    assert twice <= KNOWN_TWICE, twice - KNOWN_TWICE


# ---- the pie rule and the engine's uniform bot (compiled only where a line-up needs them) -----
LINEUP_PROBE = """
import numpy as np
from numba.core import event
from sim import engine, games
from sim.testing import seats_for
from tests.fixtures.hexgame import GAME
games.register(GAME)
rules = GAME.resolve_rules({"size": 4}, "test")
t = GAME.tables(rules)
for order, swap in ((["greedy", "greedy"], engine.SWAP_OFF), (["greedy", "greedy"], engine.SWAP_JUDGE),
                    (["greedy", "random"], engine.SWAP_OFF)):
    codes, par = engine.bot_arrays(seats_for(GAME, rules, order))
    rows, swapped = np.zeros((3, t.res_width), np.int64), np.zeros(3, np.bool_)
    with event.install_recorder("numba:compile") as rec:
        engine.play_chunk(t, np.uint64(1), np.int64(0), np.int64(3), codes, par, np.full(2, swap, np.int64),
                          rows, swapped, by_rollout=False)
    names = {e.data["dispatcher"].py_func.__qualname__ for _, e in rec.buffer if e.is_start}
    print(",".join(sorted(names & {"_play_chunk", "evaluate", "legal_moves", "uniform_move"})))
"""


def test_the_pie_rule_and_the_uniform_bot_compile_only_for_lineups_that_need_them(tmp_path):
    """From an empty numba cache, in a process of its own (numba's compile events): greedy
    games without the pie rule compile neither the game's evaluation (only the pie rule's
    question needs it) nor its move list (only the engine's uniform bot needs it); the pie rule
    compiles the drivers again with both, and a random seat (the fixture's random bot is the
    uniform one) finds that signature compiled."""
    assert probe(LINEUP_PROBE, tmp_path).splitlines() == ["_play_chunk", "_play_chunk,evaluate,legal_moves,uniform_move", ""]


def test_the_drivers_rare_argument():
    game = games.get("hex", "test")
    t = game.tables(game.resolve_rules({"size": 4}, "test"))
    off, judge = np.zeros(2, np.int64), np.array([engine.SWAP_OFF, engine.SWAP_JUDGE])
    assert engine.rare_for(t, np.array([1, 1]), off) is None
    assert engine.rare_for(t, np.array([1, 1]), judge).shape == (t.max_moves,)
    assert engine.rare_for(t, np.array([1, engine.BOT_UNIFORM]), off).shape == (t.max_moves,)
    # a search seat or a costly bot: their drivers always take the list (one signature each)
    kit = engine.kit_for(t, np.array([1, 1]), np.zeros((2, 8)), searching=True)
    assert engine.rare_for(t, np.array([1, 1]), off, kit=kit).shape == (t.max_moves,)
    assert engine.rare_for(t, np.array([1, 1]), off, costly=np.array([1])).shape == (t.max_moves,)


# ---- the parts of the search (search.kit: each compiled only where a line-up's search seat plays it)
KIT_PROBE = PROBE_RUN + """
from sim.engine import tree
t = GAME.tables(rules)
def run(**params):
    s = seats_for(GAME, rules, ["mcts", "greedy"])
    s[0].params.update(iterations=8, **params)
    codes, par = engine.bot_arrays(s)
    rows, swapped = np.zeros((2, t.res_width), np.int64), np.zeros(2, np.bool_)
    engine.play_chunk(t, np.uint64(1), np.int64(0), np.int64(2), codes, par, np.zeros(2, np.int64), rows,
                      swapped)
    print(len(search._search.signatures), len(search._halving_move.signatures), len(tree._add.signatures),
          len(drivers._play_chunk.signatures))
run(root="halving")
run(root="uct", backup="brs")
"""


def test_a_search_lineup_compiles_only_the_parts_of_the_search_it_plays(tmp_path):
    """From an empty numba cache, in a process of its own (counts of compiled signatures of the
    tree search, the halving root, the tree's node insertion and the chunk driver): the halving
    root compiles no tree (neither the tree search nor a node insertion); the tree search at the
    root compiles apart, without the halving root, and with best-reply steps asked of two seats
    (the kit leaves them out for two: test_the_search_kit_names_the_parts_a_lineup_plays).
    Two runs only: each compiles the fixture's drivers afresh (about 10 s)."""
    lines = [list(map(int, line.split())) for line in probe(KIT_PROBE, tmp_path).splitlines()]
    assert lines == [[0, 1, 0, 2],  # the plain drivers of PROBE_RUN, and the halving root's
                     [1, 1, 1, 3]], lines


def test_the_search_kit_names_the_parts_a_lineup_plays():
    t = GAME.tables(GAME.resolve_rules({"size": 4}, "test"))
    codes = np.array([search.BOT_MCTS, 1])
    par = np.zeros((2, 24))
    par[0, search.P_ROOT] = search.ROOT_HYBRID
    par[0, search.P_BACKUP] = search.BACKUP_BRS
    par[1, search.P_ROOT] = search.ROOT_UCT  # a greedy seat's row: never read as the search's
    kit = search.kit("tree", codes, par, 2)
    assert kit == ("tree", None, 1, 1, None, None)
    assert search.kit("tree", codes, par, 3) == ("tree", None, 1, 1, 1, None)  # brs needs 3 seats
    judged = engine.kit_for(t, codes, par, swap=np.array([engine.SWAP_JUDGE, engine.SWAP_OFF]))
    assert judged[1:] == (None, 1, 1, None, 1)
    par[0, search.P_ROOT] = search.ROOT_HALVING
    assert engine.kit_for(t, codes, par, swap=np.array([engine.SWAP_COIN, engine.SWAP_JUDGE]))[1:] == \
        (None, 1, None, None, None)  # the coin asks no search; the greedy seat judges by evaluate
    assert search.kit("tree") == ("tree", 1, 1, 1, 1, 1)  # a search called on its own: every part
