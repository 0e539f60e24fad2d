"""The search bot (sim/engine/search.py) on the engine's fixture game, Hex: it takes wins, blocks,
never changes the real position, plays identical games for any chunking, gets stronger with its
budget, and is reachable from variant files and `hexsim rules`."""

from __future__ import annotations

import numpy as np
import pytest

from sim import engine, games
from sim.engine import search
from sim.games.base import SeatBot
from tests.fixtures.hexgame import GAME
from tests.game_checks import check_game
from tests.test_engine import position


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(GAME)


def mcts(**kw) -> SeatBot:
    b = GAME.bot("mcts", "test")
    return SeatBot(b, {**{p.name: p.default for p in b.params}, **kw})


def greedy() -> SeatBot:
    b = GAME.bot("greedy", "test")
    return SeatBot(b, {"defense": 1.0})


def decide(t, pos, seat, bot: SeatBot, seed=3):
    codes, par = engine.bot_arrays([bot])
    _, rng = engine.start(t, np.uint64(seed))
    return int(engine.bot_choice(t, pos, seat, codes[0], par[0], rng))


PICTURE = """
    A . .
     A B .
      . B .
"""


@pytest.mark.parametrize("root", ["uct", "halving", "hybrid"])
@pytest.mark.parametrize("rollout", ["random", "greedy"])
def test_takes_the_win_and_blocks_it(rollout, root):
    """Every root: the tree search, sequential halving (tests/test_search_halving.py) and halving
    with a tree below each candidate (tests/test_search_hybrid.py)."""
    bot = mcts(iterations=300 if root == "uct" else 200, rollout=rollout, root=root)
    t, pos = position(PICTURE, to_move=0)
    before = (np.asarray(pos.board).copy(), np.asarray(pos.st).copy())
    assert decide(t, pos, 0, bot) == 6
    np.testing.assert_array_equal(pos.board, before[0])  # the real position is never touched
    np.testing.assert_array_equal(pos.st, before[1])
    t, pos = position(PICTURE, to_move=1)
    assert decide(t, pos, 1, bot) == 6


def test_a_cut_off_rollout_uses_the_evaluation():
    t, pos = position(PICTURE, to_move=1)
    assert decide(t, pos, 1, mcts(iterations=300, rollout_depth=1)) == 6


def test_parameter_row_layout():
    codes, par = engine.bot_arrays([mcts(iterations=40, c=1.5, rollout="greedy", rollout_depth=3), greedy()])
    assert codes[0] == search.BOT_MCTS
    row = par[0]
    assert row[search.P_ITER] == 40 and row[search.P_C] == 1.5
    assert row[search.P_ROLLOUT] == search.ROLLOUT_GREEDY and row[search.P_DEPTH] == 3
    assert row[search.P_RAND_CODE] == engine.BOT_UNIFORM  # the fixture's random bot is the uniform one
    assert row[search.P_ROLL_CODE] == GAME.bot("greedy", "test").code and row[search.P_ROLL_PAR] == 1.0


def test_passes_the_shared_game_checks_with_search_on_both_seats():
    bots = [mcts(iterations=30), mcts(iterations=30, rollout="greedy", rollout_depth=4)]
    check_game(GAME, {"size": 4, "swap": True}, bots, n=12, traced=3)


def test_four_times_the_budget_wins_more():
    """Seats rotated (each setting plays each seed once from either seat): 4x beats 1x."""
    rules = GAME.resolve_rules({"size": 5}, "test")
    strong, weak = mcts(iterations=200), mcts(iterations=50)
    a = GAME.play_chunk(rules, [strong, weak], 0, 60, 11)
    b = GAME.play_chunk(rules, [weak, strong], 0, 60, 11)
    wins = (a["winner"] == 0).sum() + (b["winner"] == 1).sum()
    assert wins / 120 > 0.7, wins


def test_beats_greedy_at_a_moderate_budget():
    rules = GAME.resolve_rules({"size": 5}, "test")
    a = GAME.play_chunk(rules, [mcts(iterations=800), greedy()], 0, 40, 5)
    b = GAME.play_chunk(rules, [greedy(), mcts(iterations=800)], 0, 40, 5)
    wins = (a["winner"] == 0).sum() + (b["winner"] == 1).sum()
    assert wins / 80 > 0.65, wins


def test_variant_files_and_rules_listing(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import sim
    from sim.cli import app

    v = tmp_path / "hex_mcts.toml"
    v.write_text('game = "hex"\ndescription = "search against greedy"\n[rules]\nsize = 4\n'
                 '[seats]\nA = { bot = "mcts", iterations = 60, rollout = "greedy" }\nB = "greedy"\n')
    var = sim.load_variant(str(v))
    assert var.seats["A"].params["iterations"] == 60
    r = sim.run(var, 20, seed=1, jobs=1, out=tmp_path / "r", progress=False).table()
    assert len(r) == 20 and set(r["bot_A"]) == {var.seats["A"].label()}
    bad = tmp_path / "bad.toml"
    bad.write_text(v.read_text().replace('rollout = "greedy"', 'rollout = "smart"'))
    res = CliRunner().invoke(app, ["run", str(bad), "--games", "2", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "rollout" in res.output and "'random'" in res.output
    res = CliRunner().invoke(app, ["rules", "hex"])
    assert res.exit_code == 0 and "mcts" in res.output and "rollout_depth" in res.output
