"""HEXFLOW Battle on the engine interface (sim/games/hexflow/battle_engine.py): the engine's chunk
driver plays exactly the games of battle.py's chunk kernel for every shipped Battle variant and
random draws of the Battle rule keys, for every random / greedy line-up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim import engine, variants
from sim.games.hexflow import GAME, battle_engine
from sim.games.hexflow import game as G
from tests.game_checks import seats_for

ROOT = Path(__file__).resolve().parent.parent
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


def drawn_rules(i: int) -> dict:
    """Rule draw i: every key of DRAWS set from a generator seeded by i."""
    rng = np.random.default_rng(1000 + i)
    over = {k: v[int(rng.integers(len(v)))] for k, v in DRAWS.items()}
    return GAME.resolve_rules({"mode": "battle", **over}, f"draw {i}")


def test_the_draws_cover_the_battle_keys():
    """Every key Battle plays by (game.MODE_PARAMS) but the mode and the dot list is drawn, and
    the draws reach every value of the choice keys."""
    assert set(DRAWS) == set(G.MODE_PARAMS["battle"]) - {"mode", "dot_list"}
    drawn = [drawn_rules(i) for i in range(N_DRAWS)]
    for key in ("battle_goal", "battle_start", "battle_transit_home", "battle_orphan", "no_move",
                "battle_stalemate_length", "block_placement"):
        assert {r[key] for r in drawn} == set(DRAWS[key]), key


def engine_rows(rules, seats, n, seed):
    t = battle_engine.tables(rules)
    codes, par = engine.bot_arrays(seats)
    rows = np.zeros((n, t.res_width), np.int64)
    engine.play_chunk(t, np.uint64(seed), np.int64(0), np.int64(n), codes, par, np.zeros(2, np.int64), rows,
                      np.zeros(n, np.bool_))
    return rows


def kernel_rows(rules, seats, n, seed):
    return G._battle_run(rules, seats, 0, n, seed, False)[0]


CASES = [p.stem for p in VARIANTS] + [f"draw{i}" for i in range(N_DRAWS)]


def rules_of(name):
    if name.startswith("draw"):
        return drawn_rules(int(name[4:]))
    return variants.load(ROOT / "variants" / "hexflow" / f"{name}.toml").rules


@pytest.mark.parametrize("lineup", LINEUPS, ids=list(LINEUPS))
@pytest.mark.parametrize("name", CASES)
def test_engine_plays_the_kernels_games(name, lineup):
    rules = rules_of(name)
    seats = seats_for(GAME, rules, list(LINEUPS[lineup]))
    n = 300 if lineup == "rr" else 100
    old = kernel_rows(rules, seats, n, 29)
    np.testing.assert_array_equal(engine_rows(rules, seats, n, 29), old)


def test_the_comparison_meets_every_ending():
    """Over the cases above, the kernel's games end in every way Battle has (so the identity is
    tested on each), and displacements and transit-blocked lines occur."""
    reasons, disp, tblock = set(), 0, 0
    for name in CASES:
        rules = rules_of(name)
        res = kernel_rows(rules, seats_for(GAME, rules, ["random", "random"]), 300, 29)
        reasons |= {GAME.end_reasons[int(x)] for x in np.unique(res[:, 1])}
        disp += int(res[:, 8:10].sum())
        tblock += int(res[:, 12:14].sum())
    assert {"path", "opponent_path", "no_move_loss", "turn_cap", "stalemate_score"} <= reasons
    assert disp > 0 and tblock > 0
