"""HEXFLOW Tri-Board (modes "tri" and "tri2p") on the engine interface
(sim/games/hexflow/tri_engine.py), and the package's import graph."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from sim import search, variants
from sim.errors import VariantError
from sim.games.hexflow import GAME, tri_engine
from sim.games.hexflow import game as G
from sim.games.hexflow import tri as T
from tests.game_checks import seats_for

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "sim" / "games" / "hexflow"


def import_graph(pkg: Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports, anywhere in its body (function-level imports
    included: a cycle through one still ties the modules together)."""
    mods = {p.stem for p in pkg.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for p in pkg.glob("*.py"):
        out = graph.setdefault(p.stem, set())
        for n in ast.walk(ast.parse(p.read_text())):
            if isinstance(n, ast.ImportFrom) and n.level == 1:
                out.update([n.module.split(".")[0]] if n.module else [a.name for a in n.names])
        graph[p.stem] = out & mods
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                return [*stack[stack.index(v):], v]
            if v not in state and (c := dfs(v)):
                return c
        stack.pop()
        state[u] = 2
        return None

    for m in sorted(graph):
        if m not in state and (c := dfs(m)):
            return c
    return None


def test_the_hexflow_package_has_no_import_cycle():
    graph = import_graph(PKG)
    assert {"battle", "tri", "game", "kernel"} <= set(graph)
    assert find_cycle(graph) is None, find_cycle(graph)
    # the checker finds the cycle this package had (battle -> tri -> game -> battle)
    assert find_cycle({**graph, "tri": graph["tri"] | {"game"}, "battle": graph["battle"] | {"tri"}})


# ---- the engine plays the chunk kernel's games ----------------------------------------------
VARIANTS = sorted((ROOT / "variants" / "hexflow").glob("tri*.toml"))
LINEUPS = {"random": "random", "greedy": "greedy", "mixed": "mixed"}


def lineup(rules, which):
    """Seats of a line-up: all random, all greedy, or greedy on the first seat and random after."""
    if which != "mixed":
        return seats_for(GAME, rules, which)
    n = len(GAME.seat_names(rules))
    return seats_for(GAME, rules, ["greedy"] + ["random"] * (n - 1))


def random_rules(mode, seed):
    """A random draw of the keys mode `mode` plays by (game.MODE_PARAMS), short turn caps included."""
    rng = np.random.default_rng(seed)
    out = {"mode": mode}
    for p in GAME.params:
        if p.name not in G.MODE_PARAMS[mode] or p.name == "mode":
            continue
        if p.choices:
            choices = [c for c in p.choices if c != "list"]
            out[p.name] = choices[rng.integers(len(choices))]
        elif p.kind == "bool":
            out[p.name] = bool(rng.integers(2))
        elif p.name == "max_turns":
            out[p.name] = int(rng.choice([10, 25, 60, 400]))
        elif p.name == "board_side":
            out[p.name] = int(rng.integers(7, 16))
        else:
            out[p.name] = int(rng.integers(p.low, p.high + 1))
    return GAME.resolve_rules(out, f"draw {seed}")


def kernel_columns(rules, seats, n, seed):
    _, (res, _) = T.tri_run(rules, seats, 0, n, seed, False)
    return {name: res[:, idx] for name, idx, _ in T.tri_columns(rules)}


def engine_columns(rules, seats, n, seed):
    rows = tri_engine.chunk_rows(rules, seats, 0, n, seed)
    return {name: rows[:, idx] for name, idx, _ in tri_engine.columns(rules)}


def assert_same_games(rules, seats, n, seed):
    old = kernel_columns(rules, seats, n, seed)
    new = engine_columns(rules, seats, n, seed)
    assert list(old) == list(new)
    for name in old:
        np.testing.assert_array_equal(new[name], old[name], err_msg=name)
    return old


RULE_DRAWS = [(mode, seed) for mode in ("tri", "tri2p") for seed in range(6)]


@pytest.mark.parametrize("which", LINEUPS)
@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_engine_plays_the_chunk_kernels_games_on_every_variant(path, which):
    rules = variants.load(path).rules
    seats = lineup(rules, which)
    assert_same_games(rules, seats, 300 if which == "random" else 100, 41)


@pytest.mark.parametrize("which", LINEUPS)
@pytest.mark.parametrize("mode,seed", RULE_DRAWS, ids=[f"{m}-{s}" for m, s in RULE_DRAWS])
def test_engine_plays_the_chunk_kernels_games_on_random_rule_draws(mode, seed, which):
    rules = random_rules(mode, seed)
    seats = lineup(rules, which)
    old = assert_same_games(rules, seats, 200 if which == "random" else 60, 1000 + seed)
    assert len(set(old["end_reason"].tolist())) >= 1


def test_rule_draws_reach_the_rare_endings():
    """Over the draws above, the rule paths a shipped variant leaves rare all happen: the turn
    cap, stalemates, the blocked-player loss and tiebreaks (shared victories are rarer still:
    test_hexflow_tri.py plays one)."""
    seen = set()
    ties = 0
    for mode, seed in RULE_DRAWS:
        rules = random_rules(mode, seed)
        cols = engine_columns(rules, lineup(rules, "random"), 200, 1000 + seed)
        seen |= {GAME.end_reasons[r] for r in cols["end_reason"]}
        ties += int((cols["hexflow_tiebreak"] > 0).sum())
    assert {"path", "turn_cap", "blocked"} <= seen and seen & {"stalemate_closest", "stalemate_draw"}
    assert ties > 0


def test_search_bot_plays_tri_and_lookahead_stays_in_race():
    for mode, seat in (("tri", "I"), ("tri2p", "II")):
        v = variants.load(f"hexflow/{mode}", {f"seats.{seat}": "mcts"})
        assert v.seats[seat].bot.code == search.BOT_MCTS
        with pytest.raises(VariantError, match=rf"seats\.{seat}: bot 'lookahead' is not available in mode "
                                               rf"'{mode}'; allowed in modes: race"):
            variants.load(f"hexflow/{mode}", {f"seats.{seat}": "lookahead"})
