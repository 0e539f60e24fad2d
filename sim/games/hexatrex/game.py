"""Hexa-Trex as a hexsim game: schema, bots, entry points, drawing and report rows."""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim import engine
from sim.engine import search
from sim.engine.rng import game_seed
from sim.errors import VariantError
from sim.games.base import SWAP, Bot, Game, Param, SeatBot, Trace
from sim.games.hexatrex import expecti, finder, trie
from sim.games.hexatrex import rules as R
from sim.games.hexatrex import state as S
from sim.games.hexatrex.expecti import EXPECTI, ORACLE
from sim.games.hexatrex.position import Position, reading
from sim.games.hexatrex.tiles import COUNT_NAMES, DEFAULT_COUNTS, SYMBOL_TEXT, Board

SEATS = ["A", "B", "C", "D"]
TRACE_EQUATIONS = 20000  # equations a trace lists with their walks (the rest are counted)
FIRST_RULES = ("draw", "A", "rotate")
TRIES_KEPT = 2  # side tries kept per thread (one per rule set, the least recently used goes)
_tries = threading.local()


def side_trie(cfg: np.ndarray):
    """The side trie for a rule set (finder cfg), kept from chunk to chunk in this thread.

    Every chunk used to start from an empty trie and parse and evaluate again each side string
    its games met (~5,600 strings a greedy game, ~0.4 us each: a third of a greedy game's
    time). The trie is a cache (no result depends on what it holds), so it can outlive a chunk;
    it is per thread because the kernel writes to it."""
    kept = getattr(_tries, "kept", None)
    if kept is None:
        kept = _tries.kept = OrderedDict()
    key = cfg.tobytes()
    if key in kept:
        kept.move_to_end(key)
    else:
        kept[key] = trie.new_trie(int(cfg[0]) - 2, trie.TRIE_CAP, trie.TRIE_POOL)
        while len(kept) > TRIES_KEPT:
            kept.popitem(last=False)
    return kept[key]


def _rules_key(rules) -> tuple:
    def frozen(v):
        return tuple(v) if isinstance(v, list) else tuple(sorted(v.items())) if isinstance(v, dict) else v
    return tuple(sorted((k, frozen(v)) for k, v in rules.items()))


def tables(rules, first_fixed: int = 0, allow_join: bool = True) -> S.Tables:
    """The engine tables of a rule set, kept per thread like the side trie (their work area
    is written by every game played with them); `first_fixed` the first seat under
    first_player "A" / "rotate" (the game index mod players); allow_join False scores with
    the DFS finder only (tests). The variants of one rule set share one work area."""
    kept = getattr(_tries, "tables", None)
    if kept is None:
        kept = _tries.tables = OrderedDict()
    cfg = finder.find_cfg(rules)
    tr = side_trie(cfg)
    key = (_rules_key(rules), allow_join)
    tb = kept.get(key)
    if tb is None or tb.trie is not tr:
        tb = S.build_tables(rules, 0, allow_join, tr) if tb is None else tb._replace(trie=tr)
        kept[key] = tb
        while len(kept) > TRIES_KEPT:
            kept.popitem(last=False)
    kept.move_to_end(key)
    if rules["first_player"] != "rotate" or tb.first_fixed == first_fixed:
        return tb
    return tb._replace(first_fixed=np.int64(first_fixed))


PARAMS = (
    Param("players", "int", 2, "number of players (seats A, B, C, D in clockwise order)",
          low=2, high=4, seed_text="(card: no player count stated; the box says 2-4)"),
    Param("tile_counts", "list", list(DEFAULT_COUNTS),
          "playable tiles: counts of 0,1,...,9,+,-,x,/ (the one red '=' is always added)",
          seed_text="Spread out the Hexa-Trex tiles face down near the \u201c=\u201d sign."),
    Param("first_player", "str", "draw",
          "who starts: the card's draw (highest number, operators 0, ties draw again), "
          "always seat A, or rotate with the game index", choices=FIRST_RULES,
          seed_text="The player with the highest number starts (The math symbols +, x, -, "
                    "\u00f7 count as zero)."),
    Param("max_equation_tiles", "int", 7,
          "longest equation anyone finds, in symbols read (a repeated tile counts each time)",
          low=3, high=finder.MAX_TILES_CAP,
          seed_text="The player has three minutes to complete his turn."),
    Param("bracketing", "str", "precedence",
          "precedence: usual order of operations, no brackets; any: brackets anywhere",
          choices=("precedence", "any"),
          seed_text="Order of operations is followed; however one can place brackets wherever "
                    "necessary when writing out the equation."),
    Param("require_operator", "bool", True,
          "an equation needs a binary operator (so '5 = 5' does not count)",
          seed_text="To get points, you make valid math equations"),
    Param("leading_zero", "bool", False, "a number of two or more digits may start with 0",
          seed_text="Two or three (or four or five etc.) digit numbers are made up of the "
                    "individual tiles"),
    Param("negative_zero", "bool", False, "a negative sign may stand before 0 ('-0')",
          seed_text="The tile \u201c-\u201d can be used as both a subtraction operation or a "
                    "negative sign in front of a digit, making it a negative number."),
    Param("tile_repeat", "str", "spaced",
          "spaced: a tile may recur in a walk but not 1 or 2 steps later; never: no tile twice",
          choices=("spaced", "never"),
          seed_text="A tile can be used multiple times in a single equation, however not "
                    "consecutively or separated by one other tile."),
    Param("six_as_nine", "bool", True, "each use of a 6 may read 9",
          seed_text="The tile \u201c6\u201d can be both a six or a nine (in different equations "
                    "and even in the same equation)."),
    Param("plus_as_times", "bool", True, "each use of a + may read x",
          seed_text="The tile \u201c+\u201d can be a plus or times sign (in different equations "
                    "and even in the same equation)."),
    Param("no_fractions", "str", "every_step",
          "every_step: every intermediate result must be whole (3 / 2 x 4 = 6 does not count); "
          "result: only the numbers written and each side's value must be whole, fractions in "
          "between are exact (3 / 2 x 4 = 6 and 1 / 2 + 1 / 2 = 1 count, 2 / 3 = 4 / 6 does not)",
          choices=("every_step", "result"),
          seed_text="No fractions or decimal numbers are allowed in the equations.",
          omit_default=True),
    Param("second_player_bonus", "int", 0,
          "points the second player in turn order starts with (a compensation for moving first, "
          "not on the card; negative: taken off); with 3 or 4 players the k-th player to move "
          "starts with (k - 1) x this (the third twice, the fourth three times)",
          low=-500, high=500, seed_text="The player with the highest score wins.", omit_default=True),
    Param("start_points", "int", 0,
          "points a seat starts with (a handicap, not on the card; a table by seat name gives "
          "each seat its own, e.g. { A = 0, B = 20 }); added to the score like tiles scored",
          low=-500, high=500, per_seat=True, seed_text="The player with the highest score wins.",
          omit_default=True),
    SWAP,
)

GREEDY = Bot("greedy", S.BOT_GREEDY,
             "places its tile where it scores most this turn (ties at random)",
             (Param("max_equation_tiles", "int", 0,
                    "longest equation the bot sees when choosing (0 = as long as the rules allow); "
                    "the turn is always scored by the full finder", low=0,
                    high=finder.MAX_TILES_CAP),))
RANDOM = Bot("random", S.BOT_RANDOM, "places its tile on a uniformly random legal cell")
# the engine functions (rules.py), with expecti as the costly bot: registered here, where both
# modules are imported, so that neither imports the other
engine.implement(S.Tables, no_alloc=True, new_position=R.new_position, to_move=R.to_move,
                 legal_moves=R.legal_moves, apply=R.apply, result=R.result, copy_position=R.copy_position,
                 sample_hidden=R.sample_hidden, evaluate=R.evaluate, new_scratch=R.new_scratch,
                 bot_move=R.bot_move, costly_move=expecti.costly_move, costly_bots=(S.BOT_EXPECTI,))

BOTS = (
    RANDOM,
    GREEDY,
    # the root asks greedy for its move (prior_depth 1, prior 1): 28.9% of decisive games against
    # greedy without, 48.5% with (200 rotated games); the halving root, every cell tried on the same
    # sampled worlds, 54.0% of the same 200 games at twice the speed (docs/rules/hexatrex.md, "The
    # search bot, measured")
    search.mcts_bot(GREEDY, iterations=200, random=RANDOM, c=0.05, rollout="greedy", rollout_depth=1,
                    eval_scale=100.0, prior_depth=1, prior=1.0, root="halving"),
    EXPECTI,
    ORACLE,  # expecti seeing the next seat's tile: the ceiling of skill, never a verdict seat
)


class HexaTrex(engine.EngineGame, Game):
    name = "hexatrex"
    title = "Hexa-Trex"
    description = "Place number and operator tiles round a central '=', score every equation."
    params = PARAMS
    bots = BOTS
    end_reasons = ("tiles_out",)
    default_bot = "greedy"

    # ---- schema -------------------------------------------------------------------------------
    def seat_names(self, rules):
        return SEATS[: rules["players"]]

    def validate(self, rules, where):
        counts = rules["tile_counts"]
        if len(counts) != 14 or not all(isinstance(c, int) and not isinstance(c, bool)
                                        and c >= 0 for c in counts):
            raise VariantError(f"{where}: [rules] tile_counts must be 14 non-negative integers "
                               f"(counts of {' '.join(COUNT_NAMES)})")
        total = sum(counts)
        if total < rules["players"] or total > 126:
            raise VariantError(f"{where}: [rules] tile_counts sum to {total}; allowed: "
                               f"between players ({rules['players']}) and 126 tiles")

    def warnings(self, rules):
        out = ["the card gives no tile counts: tile_counts is an assumption "
               "(digits 0-8 five each, no 9 since 6 reads 9, + - eight each, x / six each)"]
        if rules["tile_counts"][9] > 0 and rules["six_as_nine"]:
            out.append("a 9 tile together with six_as_nine: 9 is doubly available")
        return out

    # ---- play: the engine's drivers on rules.py ---------------------------------------------
    def tables(self, rules, game_index: int = 0, allow_join: bool = True) -> S.Tables:
        """The tables game `game_index` is played with (its first seat under "rotate")."""
        rotate = rules["first_player"] == "rotate"
        return tables(rules, game_index % rules["players"] if rotate else 0, allow_join)

    def columns_of(self, rules) -> dict[str, tuple[int, type]]:
        """After the scores: per seat equations, longest, scoring turns; the turn order, the
        draw's rounds, equations of 3..max_equation_tiles tiles (rules.result's row)."""
        names = self.seat_names(rules)
        cols = {}
        for i, s in enumerate(names):
            cols[f"hexatrex_equations_{s}"] = (3 * i, np.int32)
            cols[f"hexatrex_longest_{s}"] = (3 * i + 1, np.int16)
            cols[f"hexatrex_scoring_turns_{s}"] = (3 * i + 2, np.int16)
        p = len(names)
        cols["hexatrex_turn_order"] = (3 * p, np.int32)
        cols["hexatrex_draw_rounds"] = (3 * p + 1, np.int16)
        for k in range(3, rules["max_equation_tiles"] + 1):
            cols[f"hexatrex_eqlen_{k}"] = (3 * p + 2 + k, np.int32)
        return cols

    def _check_seats(self, rules, seats) -> None:
        if len(seats) != rules["players"]:
            raise VariantError(f"hexatrex: {len(seats)} seats given for {rules['players']} players")

    def play_rows(self, rules, seats, first_game, n_games, run_seed, allow_join=True):
        """Result rows (rules.result, in the position's seats) of games first_game.. through
        the engine's chunk driver, and whether each game's players swapped seats (the pie
        rule); under first_player "rotate" game by game (the first seat is the game index mod
        players, which the engine's set-up does not see)."""
        self._check_seats(rules, seats)
        codes, par = engine.bot_arrays(seats)
        tb = self.tables(rules, first_game, allow_join)
        rows = np.zeros((n_games, tb.res_width), np.int64)
        swapped = np.zeros(n_games, np.bool_)
        rotate = rules["first_player"] == "rotate"
        for g0, n in ([(g, 1) for g in range(n_games)] if rotate else [(0, n_games)]):
            tb = self.tables(rules, first_game + g0, allow_join)
            engine.play_chunk(tb, np.uint64(run_seed), np.int64(first_game + g0), np.int64(n), codes, par,
                              self.swap_policy(rules, seats), rows[g0:g0 + n], swapped[g0:g0 + n])
        return rows, swapped

    def play_chunk(self, rules, seats: Sequence[SeatBot], first_game, n_games, run_seed, allow_join=True):
        """The outcome columns by player (the engine's `_columns`: exchanged where the pie rule
        swapped, with `swapped` under it)."""
        rows, swapped = self.play_rows(rules, seats, first_game, n_games, run_seed, allow_join)
        return self._columns(rules, rows, swapped)

    def engine_replay(self, rules, seats, game_index, run_seed):
        """(tables, decisions) of one game: the tables of its own game index (first_player
        "rotate" fixes the first seat in them)."""
        tb = self.tables(rules, game_index)
        codes, par = engine.bot_arrays(seats)
        rec, _, _ = engine.play_traced(tb, np.uint64(run_seed), np.int64(game_index), codes, par,
                                       self.swap_policy(rules, seats), np.int64(tb.n_tiles + 1))
        return tb, rec

    def play_traced(self, rules, seats, game_index, run_seed) -> Trace:
        """The engine's traced game (its decisions in data["rec"]), then the decisions replayed
        to list each move's tile, points and equations (the first walk of each tile set)."""
        self._check_seats(rules, seats)
        tb = self.tables(rules, game_index)
        codes, par = engine.bot_arrays(seats)
        rec, res, swapped = engine.play_traced(tb, np.uint64(run_seed), np.int64(game_index), codes, par,
                                               self.swap_policy(rules, seats), np.int64(tb.n_tiles + 1))
        names = self.seat_names(rules)
        cols = self._columns(rules, res[None, :], np.array([swapped]))
        row = {k: v[0].item() for k, v in cols.items()}
        seed = np.uint64(game_seed(np.uint64(run_seed), np.int64(game_index)))
        pos, rng = engine.start(tb, seed)
        pile_order = [SYMBOL_TEXT[int(x)] for x in pos.pile]
        board = Board(int(tb.n_tiles))
        walks = np.full((S.FOUND_CAP, 16), -1, np.int64)
        wlen = np.zeros(S.FOUND_CAP, np.int64)
        table = {(0, 0): "="}
        moves, n_rec = [], 0
        for seat, cell, _ in rec.tolist():
            if cell == engine.SWAP_MOVE:
                moves.append({"seat": names[seat], "move": "swap", "swap": True,
                              "text": self.describe_decision(rules, seat, cell)})
                continue
            tile = SYMBOL_TEXT[int(pos.hand[seat])]
            R.play_recorded(tb, pos, np.int64(cell), walks, wlen)
            q, r = board.coord(cell)
            table[(q, r)] = tile
            ne = int(pos.st[S.LAST_EQ])
            eqs = []
            for e in range(min(ne, max(0, TRACE_EQUATIONS - n_rec))):
                cells = [board.coord(int(c)) for c in walks[e, : wlen[e]]]
                text = reading([table[c] for c in cells], rules)
                eqs.append({"cells": cells, "tiles": int(tb.work.f_size[e]),
                            "text": text.replace(" ", "") if text else "?"})
            n_rec += len(eqs)
            moves.append({"seat": names[seat], "move": f"{tile} at ({q},{r})", "cell": (q, r), "tile": tile,
                          "score": int(pos.st[S.LAST_SCORE]), "equations": eqs, "n_equations": ne})
        draws = [[int(v) for v in rnd] for rnd in R.first_draws(tb, seed)[: row["hexatrex_draw_rounds"]]]
        return Trace(self.name, dict(rules), names, game_index, run_seed, moves, row,
                     {"pile": pile_order, "draws": draws, "rec": rec, "capped": False,
                      "swapped": bool(swapped)})

    @staticmethod
    def placements(trace: Trace) -> list[dict]:
        """The trace's moves without the pie rule's swap (one per tile placed)."""
        return [mv for mv in trace.moves if not mv.get("swap")]

    def describe(self, rules, seat, move):
        board = Board(sum(rules["tile_counts"]))
        q, r = board.coord(int(move))
        return f"({q},{r})"

    def verify_trace(self, trace: Trace) -> None:
        """The engine's replay of the decisions (every one legal for the seat to move, chance
        from the recorded generator states, the result row the position's; not under "rotate",
        whose first seat the engine's set-up cannot see), then the plain-Python position API
        re-finds every move's equations (position.py) and recounts every column."""
        if "rec" in trace.data and trace.rules["first_player"] != "rotate":
            super().verify_trace(trace)
        self._verify_python(trace)

    def _verify_python(self, trace: Trace) -> None:
        rules = trace.rules
        names = trace.seat_names
        players = len(names)
        swaps = [i for i, mv in enumerate(trace.moves) if mv.get("swap")]
        assert len(swaps) == bool(trace.data.get("swapped")), "swap records and the swapped flag disagree"
        assert not swaps or (rules.get("swap") and swaps == [1]), "a swap the pie rule does not offer"
        # the columns by the position's seats (the pie rule exchanges them by player)
        row = dict(engine.exchange_seats(trace.row, True, names)) if swaps else trace.row
        pile_order = trace.data["pile"]
        counts = Counter(pile_order)
        want = Counter({SYMBOL_TEXT[i]: c for i, c in enumerate(rules["tile_counts"]) if c})
        assert counts == want, f"pile {counts} is not the tile set {want}"
        first = row["first_seat"]
        if rules["first_player"] == "draw":
            draws = trace.data["draws"]
            alive = set(range(players))
            for rnd in draws:
                vals = {s: rnd[s] for s in alive}
                assert all(v >= 0 for v in vals.values()), "a contender did not draw"
                best = max(vals.values())
                alive = {s for s in alive if vals[s] == best}
            assert alive == {first}, f"draw rounds {draws} do not make seat {first} start"
        elif rules["first_player"] == "A":
            assert first == 0
        else:
            assert first == trace.game_index % players
        hands = {}
        top = 0
        for j in range(players):
            hands[(first + j) % players] = pile_order[top]
            top += 1
        pos = Position()
        score = [0] * players
        bonus = rules.get("second_player_bonus", 0)
        start = rules.get("start_points", 0)
        for j in range(players):
            score[(first + j) % players] += j * bonus
            score[j] += start[names[j]] if isinstance(start, dict) else start
        n_eq = [0] * players
        longest = [0] * players
        scoring = [0] * players
        hist = Counter()
        moves = self.placements(trace)
        assert len(moves) == len(pile_order) == row["turns"]
        for t, mv in enumerate(moves):
            seat = (first + t) % players
            assert mv["seat"] == names[seat], f"turn {t}: {mv['seat']} moved out of turn"
            assert hands[seat] == mv["tile"], f"turn {t}: {mv['tile']} is not the tile in hand"
            assert mv["cell"] in pos.legal_cells(), f"turn {t}: {mv['cell']} is not legal"
            pos.place(mv["cell"], mv["tile"])
            ne, pts, sizes = pos.score(mv["cell"], rules)
            assert (ne, pts) == (mv["n_equations"], mv["score"]), (
                f"turn {t}: declared {mv['n_equations']} equations / {mv['score']} points, "
                f"position API finds {ne} / {pts}")
            assert sorted(e["tiles"] for e in mv["equations"]) == sizes
            for e in mv["equations"]:
                syms = [pos.tiles[c] for c in e["cells"]]
                assert mv["cell"] in e["cells"] and len(set(e["cells"])) == e["tiles"]
                assert reading(syms, rules) is not None, f"turn {t}: {syms} is not an equation"
            score[seat] += pts
            n_eq[seat] += ne
            scoring[seat] += ne > 0
            longest[seat] = max([longest[seat]] + sizes)
            hist.update(sizes)
            if top < len(pile_order):
                hands[seat] = pile_order[top]
                top += 1
            else:
                hands[seat] = None
        assert all(h is None for h in hands.values()), "a tile was left in a hand"
        for i, s in enumerate(names):
            assert row[f"score_{s}"] == score[i]
            assert row[f"hexatrex_equations_{s}"] == n_eq[i]
            assert row[f"hexatrex_longest_{s}"] == longest[i]
            assert row[f"hexatrex_scoring_turns_{s}"] == scoring[i]
        for k in range(3, rules["max_equation_tiles"] + 1):
            assert row[f"hexatrex_eqlen_{k}"] == hist[k]
        top_score = max(score)
        win = score.index(top_score) if score.count(top_score) == 1 else -1
        assert row["winner"] == win

    # ---- pictures and report ------------------------------------------------------------------
    def draw(self, trace: Trace, path: str, every_move: bool = False) -> None:
        from sim.games.hexatrex.drawing import draw_trace
        draw_trace(trace, path, every_move)

    def report_metrics(self, df, rules) -> list[dict[str, Any]]:
        from sim.games.hexatrex.metrics import metrics
        return metrics(df, rules, self.seat_names(rules))

    warm_parts = (("all", 120.0),)

    def warm(self, part: str = "all") -> None:
        """Compile the engine's drivers with each bot: random and greedy on every seat (the
        drivers without the search bot), greedy under the pie rule (the drivers with it), the
        search bot against greedy (one short game, chunk and traced: the drivers with it), then
        expecti against greedy (one game, chunk and traced: the drivers with the costly bot)."""
        rules = self.resolve_rules({}, "warm")
        for bot in self.bots[:2]:
            seats = [SeatBot(bot, {p.name: p.default for p in bot.params})] * rules["players"]
            self.play_chunk(rules, seats, 0, 1, 0)
        self.play_chunk(self.resolve_rules({"players": 2, "swap": True}, "warm"), seats[:1] * 2, 0, 1, 0)
        mcts = self.bot("mcts", "warm")
        greedy = SeatBot(GREEDY, {p.name: p.default for p in GREEDY.params})
        seats = [SeatBot(mcts, {**{p.name: p.default for p in mcts.params}, "iterations": 4}), greedy]
        self.play_chunk(rules, seats, 0, 1, 0)
        self.play_traced(rules, seats, 0, 0)
        ex = SeatBot(EXPECTI, {p.name: p.default for p in EXPECTI.params})
        self.play_chunk(rules, [ex, greedy], 0, 1, 0)
        self.play_traced(rules, [ex, greedy], 0, 0)
