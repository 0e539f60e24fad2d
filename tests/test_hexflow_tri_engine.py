"""HEXFLOW Tri-Board (modes "tri" and "tri2p") on the engine interface
(sim/games/hexflow/tri_engine.py), and the package's import graph."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from sim import engine
from sim.engine import search
from sim.errors import VariantError
from sim.games.base import SeatBot
from sim.games.hexflow import GAME, tri_engine
from sim.games.hexflow import game as G
from sim.games.hexflow.tiles import TILE_TYPES
from sim.runs import variants
from sim.testing import check_chunk_driver
from tests.game_checks import check_game, seats_for

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
    """A random draw of the keys mode `mode` plays by (game.MODE_PARAMS) but the pie rule (tri2p
    plays it in tests/test_hexflow_tri_rules_data.py), short turn caps included, dot bonuses and a
    tile mix every seat holds alike (counts and points)."""
    rng = np.random.default_rng(seed)
    out = {"mode": mode}
    for p in GAME.params:
        if p.name not in G.MODE_PARAMS[mode] or p.name == "mode" or p.kind == "table" or p.name == "swap":
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
    out["dot_bonuses"] = {k: int(rng.integers(0, 51)) for k in ("2", "3", "4", "5")}
    names = [t.name for t in TILE_TYPES]
    out["tiles"] = {str(n): {"count": int(rng.integers(0, 4)), "points": int(rng.integers(0, 11))}
                    for n in rng.choice(names, 3, replace=False)}
    return GAME.resolve_rules(out, f"draw {seed}")


def engine_columns(rules, seats, n, seed):
    return GAME.outcome_columns(rules, GAME.play_rows(rules, seats, 0, n, seed)[0])


def assert_same_games(rules, seats, n, seed):
    """The chunk driver (one position per chunk, set up in place by tri_engine.reset; a line-up
    of one bot plays each game as one tri_bots.rollout) plays each game as it plays alone."""
    t = tri_engine.tables(rules)
    codes, par = engine.bot_arrays(seats)
    rows = check_chunk_driver(t, seed, 0, n, codes, par, engine.swap_policy(rules["swap"], seats))
    return {name: rows[:, idx] for name, idx, _ in tri_engine.columns(rules)}


RULE_DRAWS = [(mode, seed) for mode in ("tri", "tri2p") for seed in range(6)]


@pytest.mark.parametrize("which", LINEUPS)
@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_the_chunk_driver_plays_each_game_as_alone_on_every_variant(path, which):
    rules = variants.load(path).rules
    seats = lineup(rules, which)
    assert_same_games(rules, seats, 300 if which == "random" else 100, 41)


@pytest.mark.parametrize("which", LINEUPS)
@pytest.mark.parametrize("mode,seed", RULE_DRAWS, ids=[f"{m}-{s}" for m, s in RULE_DRAWS])
def test_the_chunk_driver_plays_each_game_as_alone_on_random_rule_draws(mode, seed, which):
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


# ---- the rule functions one by one ------------------------------------------------------------
def mcts(**kw) -> SeatBot:
    return SeatBot(G.MCTS, {**{p.name: p.default for p in G.MCTS.params}, **kw})


class Game1:
    """One traced game through the engine: its tables, decisions, result row and start."""

    def __init__(self, rules, seats, index, seed=7):
        self.tables, self.rec, self.res, _ = GAME.replay(rules, seats, index, seed)
        self.start = engine.start(self.tables, np.uint64(engine.game_seed(np.uint64(seed), np.int64(index))))

    def positions(self):
        """(position, seat, move) before each decision, on one position played forward."""
        pos, rng = self.start
        for seat, move, state in self.rec:
            yield pos, int(seat), int(move)
            rng[0] = np.int64(state).view(np.uint64)
            engine.play(self.tables, pos, np.int64(move), rng)

    def with_python(self, rules):
        """(position, seat, move, TriPosition) before each decision, the pure-Python TriPosition
        (written apart from the engine) kept level with the position: each placement is made on
        both after the yield."""
        from sim.games.hexflow.position import TriPosition

        py = TriPosition(rules, dots=np.asarray(self.start[0].hx[tri_engine.H_DOTS]).tolist())
        for pos, seat, move in self.positions():
            yield pos, seat, move, py
            if move != self.tables.pass_move:
                h, w, d, r = (int(x) for x in tri_engine.decode(self.tables, move))
                py.place(seat, h, d, r, wildcard=bool(w))


@pytest.mark.parametrize("rules", [{"mode": "tri"}, {"mode": "tri2p"},
                                   {"mode": "tri", "block_placement": "connected", "wildcard_block": False,
                                    "hand_size": 1}],
                         ids=["tri", "tri2p", "tri-connected-hand1"])
def test_legal_moves_are_the_position_apis_and_hold_every_bot_move(rules):
    """At every decision of random and greedy games: legal_moves lists exactly the distinct
    placements the pure-Python TriPosition allows with the mover's hand (or the pass alone), the
    bot's move is one of them, and the replayed game ends with the traced result."""
    rules = GAME.resolve_rules(rules, "test")
    checked = 0
    for index in range(6):
        g = Game1(rules, lineup(rules, ("random", "greedy", "mixed")[index % 3]), index)
        t = g.tables
        pos = None
        for pos, seat, move, py in g.with_python(rules):
            assert engine.seat_to_move(t, pos) == seat
            listed = engine.moves_of(t, pos).tolist()
            hand = [int(x) for x in np.asarray(pos.hand)[seat] if x >= 0]
            want = {int(tri_engine.encode(t, h, int(th == tri_engine.WILD), d, r))
                    for h, th, d, r in py.legal_moves(seat, hand)} if hand else set()
            assert len(set(listed)) == len(listed)
            assert set(listed) == (want or {int(t.pass_move)})
            assert move in listed
            checked += 1
        capped = len(g.rec) == rules["max_turns"]
        assert engine.seat_to_move(t, pos) == -1 or capped
        np.testing.assert_array_equal(engine.outcome(t, pos, capped), g.res)
    assert checked > 80


def way_of(py, wit, q) -> bool:
    """Does the witness way wit (sides by empty hex, tri_engine.Position.wit) run from seat q's
    corner to a centre hex on py's board? Empty hexes count only where the way marks them, and
    only by the sides it marks."""
    c = py.corner[q]
    if c in py.tiles:
        start = [(c, j) for j in range(len(py.nets(c)))]
    else:
        start = [(c, -1)] if wit[c] else []
    seen, todo = set(start), list(start)
    while todo:
        x, j = todo.pop()
        if x in py.centres:
            return True
        m = int(wit[x]) if j < 0 else py.nets(x)[j]
        for s in range(6):
            n = py.nbr(x, s) if (m >> s) & 1 else -1
            if n < 0:
                continue
            o = (s + 3) % 6
            k = py._line_at(n, o) if n in py.tiles else (-1 if (int(wit[n]) >> o) & 1 else None)
            if k is not None and (n, k) not in seen:
                seen.add((n, k))
                todo.append((n, k))
    return False


def check_ways(py, pos, index):
    """Each seat is flagged cut off exactly when py finds no way for it, else its witness is one."""
    blocked = np.asarray(pos.sq[tri_engine.Q_BLOCKED])
    for q in range(2):
        assert bool(blocked[q]) == (not py.can_reach(q)), (index, q)
        assert blocked[q] or way_of(py, np.asarray(pos.wit[q]), q), (index, q)


@pytest.mark.parametrize("over", [{}, {"block_win_trigger": "block_tile"}, {"board_side": 9}],
                         ids=["tri2p", "block-tile-trigger", "side9"])
def test_the_witness_ways_are_ways_and_the_blocked_flags_exact(over):
    """tri2p's blocking rule searches a seat's way again only when a tile breaks its witness way
    (a tile on one of the way's hexes that does not carry the way on by the sides it uses; the
    empty board's ways come from the tables). At every position of random, greedy and mixed
    games: a seat is flagged cut off exactly when the pure-Python TriPosition finds no way for
    it, and otherwise its witness is a way."""
    rules = GAME.resolve_rules({"mode": "tri2p", **over}, "test")
    checked = cut = 0
    for index in range(24):
        g = Game1(rules, lineup(rules, ("random", "greedy", "mixed")[index % 3]), index)
        pos = py = None
        for pos, _, _, py in g.with_python(rules):
            check_ways(py, pos, index)
            checked += 1
        if pos.st[tri_engine.REASON] not in (tri_engine.E_PATH, tri_engine.E_OPP_PATH):
            check_ways(py, pos, index)  # the last decision, played by the generator (a path win judges no blocking)
        cut += int(np.asarray(pos.sq[tri_engine.Q_BLOCKED]).sum())
    assert checked > 150 and cut > 5


def mid_game(rules, index=3, decisions=8):
    """A position after some greedy decisions and the seat to move, in the first game from
    `index` on that lasts that long."""
    while True:
        g = Game1(rules, seats_for(GAME, rules, "greedy"), index)
        pos, rng = g.start
        for _, move, state in g.rec[:decisions]:
            rng[0] = np.int64(state).view(np.uint64)
            engine.play(g.tables, pos, np.int64(move), rng)
        if engine.seat_to_move(g.tables, pos) >= 0:
            return g.tables, pos, int(engine.seat_to_move(g.tables, pos))
        index += 1


def hidden_view(pos, seat):
    """What `seat` may know: the board, every count and tally, its hand, its bag as a multiset,
    and each other seat's hand and bag together as a multiset (with the hand's filled slots)."""
    bag, hand, sq = np.asarray(pos.bag), np.asarray(pos.hand), np.asarray(pos.sq)
    n = sq[tri_engine.Q_BAGN]
    others = tuple((tuple(hand[o] >= 0), tuple(sorted([*bag[o, :n[o]], *(x for x in hand[o] if x >= 0)])))
                   for o in range(hand.shape[0]) if o != seat)
    return (np.asarray(pos.hx).tobytes(), np.asarray(pos.st).tobytes(), sq.tobytes(), hand[seat].tobytes(),
            tuple(sorted(bag[seat, :n[seat]])), others)


def scramble(t, pos, seat, seed):
    """The same position to `seat`'s eyes with other hidden tiles: its bag reordered, every other
    seat's hand and bag pooled and dealt anew (a different, equally consistent world)."""
    p = engine.copy_of(t, pos)
    rng = np.random.default_rng(seed)
    bag, hand, sq = np.asarray(p.bag), np.asarray(p.hand), np.asarray(p.sq)
    n = sq[tri_engine.Q_BAGN]
    bag[seat, :n[seat]] = rng.permutation(bag[seat, :n[seat]])
    for o in range(hand.shape[0]):
        if o == seat:
            continue
        slots = np.flatnonzero(hand[o] >= 0)
        pool = rng.permutation(np.concatenate([bag[o, :n[o]], hand[o, slots]]))
        bag[o, :n[o]] = pool[:n[o]]
        hand[o, slots] = pool[n[o]:]
    return p


@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_sample_hidden_redraws_only_what_the_seat_cannot_see(mode):
    rules = GAME.resolve_rules({"mode": mode}, "test")
    t, pos, seat = mid_game(rules)
    worlds = set()
    for s in range(6):
        p = engine.copy_of(t, pos)
        engine.redraw_hidden(t, p, seat, engine.start(t, np.uint64(s))[1])
        assert hidden_view(p, seat) == hidden_view(pos, seat)
        np.testing.assert_array_equal(np.asarray(p.hand)[seat], np.asarray(pos.hand)[seat])
        worlds.add(np.asarray(p.hand).tobytes() + np.asarray(p.bag).tobytes())
        # from another world that looks the same to the seat, the same draw gives the same world
        q = scramble(t, pos, seat, 100 + s)
        assert hidden_view(q, seat) == hidden_view(pos, seat)
        engine.redraw_hidden(t, q, seat, engine.start(t, np.uint64(s))[1])
        np.testing.assert_array_equal(q.hand, p.hand)
        np.testing.assert_array_equal(q.bag, p.bag)
    assert len(worlds) == 6


@pytest.mark.parametrize("mode,kw", [("tri", {"iterations": 30}), ("tri2p", {"iterations": 30}),
                                     ("tri2p", {"iterations": 30, "root": "hybrid"}),
                                     ("tri", {"iterations": 20, "rollout": "random", "rollout_depth": 0})])
def test_search_decisions_never_depend_on_hidden_tiles(mode, kw):
    """The hidden-information test of the other games: change the opponents' hands and bags and
    the seat's own bag order; every decision of the search bot is the same (a tree root, and
    tri2p's shipped hybrid root: halving with a tree below each move)."""
    rules = GAME.resolve_rules({"mode": mode}, "test")
    codes, par = engine.bot_arrays([mcts(**kw)])
    for index, decisions in ((3, 4), (5, 9), (8, 14)):
        t, pos, seat = mid_game(rules, index, decisions)
        seen = {int(engine.bot_choice(t, scramble(t, pos, seat, s) if s else pos, seat, codes[0], par[0],
                                      engine.start(t, np.uint64(9))[1])) for s in range(4)}
        assert len(seen) == 1, seen


def reference_costs(t, pos):
    """Each seat's completion cost (empty hexes to fill from its corner to the nearest centre hex)
    by the plain Dijkstra of test_hexflow_tri.py, from the board alone."""
    from tests.test_hexflow_tri import _maps_by_dijkstra

    ttype = np.asarray(pos.hx[tri_engine.H_TTYPE])
    netm = np.asarray(pos.nets[0])
    out = []
    for q in range(int(t.n_seats)):
        d = _maps_by_dijkstra([int(t.corners[q])], t.nbr, ttype, np.asarray(pos.hx[tri_engine.H_EMASK]),
                              np.asarray(pos.netid), netm)
        best = tri_engine.INF
        for x in t.centres:
            nodes = [2 * x] if ttype[x] < 0 else [2 * x + j for j in range(2) if netm[2 * x + j]]
            best = min([best, *(int(d[v]) for v in nodes)])
        out.append(best)
    return out


@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_evaluation_is_greedys_measure(mode):
    """-own cost + each opponent's cost x 1.5 (greedy's block_weight) when it is level or ahead
    or one tile from a centre hex, x 0.375 otherwise, costs capped at 30; +-1e9 once decided."""
    rules = GAME.resolve_rules({"mode": mode}, "test")
    checked = 0
    for index in range(3):
        g = Game1(rules, seats_for(GAME, rules, "greedy"), index)
        t = g.tables
        pos = None
        for k, (pos, _, _) in enumerate(g.positions()):
            if k % 3:
                continue
            cost = reference_costs(t, pos)
            for q in range(int(t.n_seats)):
                want = -min(cost[q], 30) + sum((1.5 if cost[o] < cost[q] or cost[o] <= 2 else 0.375) * min(cost[o], 30)
                                               for o in range(int(t.n_seats)) if o != q)
                assert engine.value_of(t, pos, q) == pytest.approx(want)
                checked += 1
        pos, rng = g.start
        for _, move, state in g.rec:
            rng[0] = np.int64(state).view(np.uint64)
            engine.play(t, pos, np.int64(move), rng)
        w = int(g.res[0])
        if w >= 0 and engine.seat_to_move(t, pos) < 0:
            assert engine.value_of(t, pos, w) == 1e9
            assert all(engine.value_of(t, pos, q) == -1e9 for q in range(int(t.n_seats))
                       if not (int(g.res[tri_engine.O_SHARED]) >> q) & 1 and q != w)
    assert checked > 30


@pytest.mark.parametrize("mode", ["tri", "tri2p"])
def test_search_games_pass_the_shared_checks(mode):
    rules = GAME.resolve_rules({"mode": mode}, "test")
    n = len(GAME.seat_names(rules))
    check_game(GAME, rules, [mcts(iterations=12)] + ["greedy"] * (n - 1), n=4, traced=2)
    check_game(GAME, rules, [mcts(iterations=6, rollout="random", rollout_depth=0)] * n, n=3, traced=2)


def test_play_metrics_replay_tri_games():
    """The report's "How games play" replays Tri games through engine_replay: every metric has
    a value, branching factor at least one legal move."""
    from sim.stats import playmetrics

    v = variants.load("hexflow/tri")
    pm = playmetrics.play_metrics(v, seed=3, games=6)
    assert pm.note == ""
    s = pm.summary.set_index("metric")
    assert s.loc["branching_factor", "value"] >= 1 and s.loc["decision_moves", "value"] > 0
    assert len(pm.per_game) == 6


def test_each_mode_seats_the_search_bot_with_its_own_defaults():
    """A search-bot seat resolved in a mode (variant file, --bot spec, the bench) starts from the
    mode's measured settings (game.MODE_MCTS); a parameter the seat names keeps its value, even
    Race's; the recorded parameters are the ones played; the other bots are untouched."""
    from sim.perf import bench
    from sim.workflows.ladder import parse_bot

    v = variants.load("hexflow/tri2p", {"seats.II": "mcts"})
    assert v.seats["II"].params == {**mcts().params, **G.TRI_MCTS["tri2p"]}
    assert v.seats["III"].bot.name == "greedy"
    v = variants.load("hexflow/tri2p", {"seats.II": {"bot": "mcts", "c": 0.9, "iterations": 120}})
    assert v.seats["II"].params["c"] == 0.9 and v.seats["II"].params["iterations"] == 120
    tri = GAME.resolve_rules({"mode": "tri"}, "test")
    assert parse_bot(GAME, "mcts", tri).params["rollout"] == "random"
    assert parse_bot(GAME, "mcts:iterations=120", tri).params["iterations"] == 120
    assert bench.mcts_seats(GAME, tri)[0].params["iterations"] == G.TRI_MCTS["tri"]["iterations"]
    battle = variants.load("hexflow/battle", {"seats.B": "mcts"})
    assert battle.seats["B"].params["iterations"] == G.BATTLE_MCTS["iterations"]
    assert variants.load("hexflow/race", {"seats.A": "mcts"}).seats["A"].params == mcts().params
