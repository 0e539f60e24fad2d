"""The HEXFLOW Game object: schema, thin wrappers around the compiled kernel, traces, reports."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim import engine, search
from sim.errors import VariantError
from sim.games.base import Game, SeatBot, Trace

from . import kernel as K
from . import race, tri_engine
from . import rules as R
from .board import BOARD, SEATS
from .tiles import TILE_TYPES


def _bot_arrays(seats: Sequence[SeatBot]) -> tuple[np.ndarray, np.ndarray]:
    codes = np.array([s.bot.code for s in seats], dtype=np.int64)
    par = np.zeros((2, R.N_BOT_PARAMS), dtype=np.float64)
    for i, s in enumerate(seats):
        v = s.param_vector()
        par[i, : len(v)] = v
    return codes, par


_TABLES: dict[str, R.Tables] = {}


def _tables(rules: dict[str, Any]) -> R.Tables:
    """Kernel tables of a rule set, built once per process (chunks of a run share them)."""
    key = json.dumps(rules, sort_keys=True)
    if key not in _TABLES:
        _TABLES[key] = R.Tables(rules)
    return _TABLES[key]


def _run(rules: dict[str, Any], seats: Sequence[SeatBot], first_game: int, n_games: int,
         run_seed: int, record: bool):
    if len(seats) != 2:
        raise ValueError(f"hexflow race needs 2 seats, got {len(seats)}")
    tb = _tables(rules)
    codes, par = _bot_arrays(seats)
    res = np.zeros((n_games, R.N_OUT), dtype=np.int64)
    nh = BOARD.size
    if record:
        rec = (np.zeros((rules["max_turns"] + 1, 6), np.int64),
               np.zeros((2, tb.tileset.shape[0]), np.int64), np.zeros(nh, np.int64),
               np.zeros(2 * nh + 1, np.int64), np.zeros(2, np.int64))
    else:
        rec = (np.zeros((1, 6), np.int64), np.zeros((2, 1), np.int64), np.zeros(1, np.int64),
               np.zeros(1, np.int64), np.zeros(2, np.int64))
    K._play(np.int64(first_game), np.int64(n_games), np.uint64(run_seed), tb.cfg, codes, par,
            tb.corners, tb.nbr, tb.dist, tb.n_orient, tb.rot_of, tb.net_mask, tb.emask, tb.tileset,
            tb.dots, tb.dot_pool, tb.free, res, record, *rec)
    return res, rec


def _is_tri(rules) -> bool:
    return rules["mode"] in ("tri", "tri2p")


# The rule parameters each mode plays by: what rules.Tables (Race), battle._bcfg and
# battle_tables (Battle, with Race's tile and dot tables) and tri.TriTables put into the kernels'
# tables, and the kernels then read (tri2p has no Wildcard in its bag; the 3-player tri has its
# own bag, a fixed turn order, always passes and never applies the blocked-player loss). Any other
# key set off its default would change the variant hash and play the very same games: refused.
_EVERY_MODE = ("mode", "block_placement", "dots", "hand_size", "max_turns")
MODE_PARAMS: dict[str, tuple[str, ...]] = {
    "race": _EVERY_MODE + ("blocked_player_loses", "block_win_trigger", "stalemate_rule", "no_move",
                           "dot_list", "first_player", "copies_per_type"),
    "battle": _EVERY_MODE + ("no_move", "dot_list", "first_player", "copies_per_type", "battle_goal",
                             "battle_start", "battle_transit_home", "battle_tokens", "battle_orphan",
                             "battle_capture_points", "battle_stalemate_length"),
    "tri": _EVERY_MODE + ("stalemate_rule", "board_side", "shared_victory", "wildcard_block"),
    "tri2p": _EVERY_MODE + ("stalemate_rule", "board_side", "shared_victory", "blocked_player_loses",
                            "block_win_trigger", "copies_per_type"),
}


def _columns(res: np.ndarray) -> dict[str, np.ndarray]:
    return {name: res[:, idx].astype(dt) for name, idx, dt in R.column_names()}


# modes whose rules are engine functions (sim/engine.py; Tri-Board's in tri_engine.py): only they
# can seat the search bot (ENGINE_BOTS: the modes each engine bot plays in; lookahead is Race's)
ENGINE_MODES = ("race", "tri", "tri2p")
ENGINE_BOTS = {search.BOT_MCTS: ENGINE_MODES, K.BOT_LOOKAHEAD: ("race",)}
# Race defaults of the search bot (docs/rules/hexflow.md, "The search bot on Race"): greedy
# rollouts cut off after 3 decisions and scored by greedy's evaluation (a cost difference in hexes,
# so 3 hexes per logistic unit), little exploration (c = 0.3: about 40 moves share the budget);
# 120 iterations keep mcts-vs-greedy above 20 games/s per core (measured, with the tuning)
RACE_MCTS = {"iterations": 120, "c": 0.3, "rollout": "greedy", "rollout_depth": 3, "eval_scale": 3.0}


# Tri-Board defaults of the search bot where they differ from Race's (docs/rules/hexflow.md, "The
# search bot on Tri-Board"), chosen by measurement against greedy: tri2p keeps Race's greedy
# rollouts cut after 3 decisions but scores the cut-off more softly (the Tri evaluation spans
# about -30..+45 hexes: 8 hexes per logistic unit) with twice the iterations; the 3-player tri
# plays uniform rollouts to the end (greedy's evaluation of a three-way race misleads the search:
# most games end by the draw list, not by a completion)
TRI_MCTS = {"tri2p": {"iterations": 240, "eval_scale": 8.0},
            "tri": {"iterations": 240, "rollout": "random", "rollout_depth": 0}}


def _race_mcts() -> search.SearchBot:
    bot = search.mcts_bot(next(b for b in R.BOTS if b.code == K.BOT_GREEDY))
    params = tuple(dataclasses.replace(p, default=RACE_MCTS.get(p.name, p.default)) for p in bot.params)
    tri = "; ".join(f"{m}: " + ", ".join(f"{k} = {v!r}" for k, v in d.items()) for m, d in TRI_MCTS.items())
    return dataclasses.replace(bot, params=params, doc=bot.doc + (
        " HEXFLOW: Race, Tri-Board and 2-player Tri-Board (not Battle). The defaults shown are Race's; "
        f"in the Tri modes a parameter left at its Race default plays the mode's own ({tri})."))


MCTS = _race_mcts()


def mode_seats(rules: dict[str, Any], seats: Sequence[SeatBot]) -> list[SeatBot]:
    """The seats as a Tri mode plays them: a search bot's parameters left at their Race defaults
    take the mode's defaults (TRI_MCTS); every other seat as given."""
    extra = TRI_MCTS.get(rules["mode"], {})
    defaults = {p.name: p.default for p in MCTS.params}
    out = []
    for s in seats:
        if s.bot.code == search.BOT_MCTS and extra:
            params = {k: (extra[k] if k in extra and v == defaults[k] else v) for k, v in s.params.items()}
            s = SeatBot(s.bot, params)
        out.append(s)
    return out


def _tri_on_kernel(seats: Sequence[SeatBot]) -> bool:
    """Tri-Board random-only line-ups play on the chunk kernel tri._play, which plays the same
    games as the engine path ~1.7x faster there; every other line-up on the engine, as fast for
    greedy (docs/rules/hexflow.md, "Tri-Board on the engine")."""
    return all(s.bot.code == K.BOT_RANDOM for s in seats)


def _on_kernel(seats: Sequence[SeatBot]) -> bool:
    """Random vs random plays on the chunk kernel, which plays the same games as the engine path
    ~1.4x faster there; every other Race line-up on the engine, faster for greedy
    (docs/rules/hexflow.md, "Speed of the two paths")."""
    return all(s.bot.code == K.BOT_RANDOM for s in seats)


def _race_engine_chunk(rules, seats, first_game, n_games, run_seed) -> np.ndarray:
    """Race games through the engine's chunk driver (the same games as kernel._play)."""
    t = race.tables(rules)
    codes, par = engine.bot_arrays(seats)
    rows = np.zeros((n_games, t.res_width), np.int64)
    no_swap = np.zeros(len(seats), np.int64)
    engine.play_chunk(t, np.uint64(run_seed), np.int64(first_game), np.int64(n_games), codes, par, no_swap, rows,
                      np.zeros(n_games, np.bool_))
    return rows


def _race_traced(rules, seats, game_index, run_seed) -> Trace:
    """One Race game through the engine's traced driver, as a Trace in the move-list format the
    Position replay (verify_trace) and the pictures read; bags, dots and the scored path are
    read off the replayed position."""
    t = race.tables(rules)
    codes, par = engine.bot_arrays(seats)
    no_swap = np.zeros(len(seats), np.int64)
    rec, res, _ = engine.play_traced(t, np.uint64(run_seed), np.int64(game_index), codes, par, no_swap,
                                     np.int64(rules["max_turns"] + 1))
    pos, rng = engine.start(t, np.uint64(engine.game_seed(np.uint64(run_seed), np.int64(game_index))))
    bags = np.asarray(pos.bag).copy()  # draws only lower bagn: the bag keeps its shuffled order
    moves = []
    for i, (seat, move, state) in enumerate(rec):
        if move == t.pass_move:
            moves.append({"seat": SEATS[seat], "move": "pass", "turn": i + 1})
        else:
            h, tile, r = move // (t.n_types * 6), (move // 6) % t.n_types, move % 6  # race.decode
            moves.append({"seat": SEATS[seat], "turn": i + 1, "hex": BOARD.names[h],
                          "tile": TILE_TYPES[tile].name, "rotation": int(r),
                          "move": f"{TILE_TYPES[tile].code}{r} {BOARD.names[h]}"})
        rng[0] = np.int64(state).view(np.uint64)
        engine.play(t, pos, np.int64(move), rng)
    nodes = np.zeros(2 * BOARD.size + 1, np.int64)
    _, _, npath = race.path_nodes(t, pos, nodes)
    row = {k: v[0].item() for k, v in _columns(res[None, :]).items()}
    data = {"bags": bags.tolist(), "dots": np.asarray(pos.hx[race.H_DOTS]).tolist(),
            "path": [BOARD.names[int(v) >> 1] for v in nodes[:npath]]}
    return Trace("hexflow", dict(rules), list(SEATS), game_index, run_seed, moves, row, data)


class HexflowGame(Game):
    name = "hexflow"
    title = "HEXFLOW (Race, Battle, Tri-Board and 2-player Tri-Board)"
    description = ("Players lay line tiles; first to join their two diagonal corners (Race), "
                   "their side to the far side under the transit rule with displacement "
                   "(Battle), or their corner to a centre hex of the triangular Tri-Board wins.")
    params = R.PARAMS
    bots = (*R.BOTS, R.LOOKAHEAD, MCTS)
    end_reasons = R.END_REASONS
    default_bot = "greedy"

    def seat_names(self, rules: dict[str, Any]) -> list[str]:
        if _is_tri(rules):
            from .tri import tri_seats

            return list(tri_seats(rules))
        return list(SEATS)

    def validate(self, rules: dict[str, Any], where: str) -> None:
        R.validate(rules, where)
        mode = rules["mode"]
        for p in self.params:
            if p.name not in MODE_PARAMS[mode] and rules[p.name] != p.default:
                raise VariantError(
                    f"{where}: [rules] {p.name} = {rules[p.name]!r} does not apply to mode {mode!r} "
                    f"(it would change the variant, not the games); leave it at its default "
                    f"{p.default!r}; mode {mode!r} uses: {', '.join(MODE_PARAMS[mode])}")

    def play_seats(self, rules: dict[str, Any], seats: Sequence[SeatBot]) -> list[SeatBot]:
        """The seats with the parameters they play by in this mode (`mode_seats`)."""
        return mode_seats(rules, seats)

    def check_seats(self, rules: dict[str, Any], seats: dict[str, SeatBot], where: str) -> None:
        """The search bot plays only in modes on the engine interface, lookahead only in Race."""
        for name, s in seats.items():
            modes = ENGINE_BOTS.get(s.bot.code)
            if modes is not None and rules["mode"] not in modes:
                raise VariantError(f"{where}: seats.{name}: bot {s.bot.name!r} is not available in mode "
                                   f"{rules['mode']!r}; allowed in modes: {', '.join(modes)}")

    def warnings(self, rules: dict[str, Any]) -> list[str]:
        if rules["mode"] == "battle":
            from .battle import warnings as battle_warnings

            # Race's "85 hexes" warning names stalemate_rule, which Battle does not use
            race = [w for w in R.warnings(rules) if "85 hexes" not in w]
            return race + battle_warnings(rules)
        return R.warnings(rules)

    def play_chunk(self, rules, seats, first_game, n_games, run_seed):
        if rules["mode"] == "battle":
            return _battle_columns(_battle_run(rules, seats, first_game, n_games, run_seed, False)[0])
        if _is_tri(rules):
            if _tri_on_kernel(seats):
                from .tri import tri_columns, tri_run

                res = tri_run(rules, seats, first_game, n_games, run_seed)
                return {name: res[:, idx].astype(dt) for name, idx, dt in tri_columns(rules)}
            return tri_engine.chunk(rules, mode_seats(rules, seats), first_game, n_games, run_seed)
        if _on_kernel(seats):
            res, _ = _run(rules, seats, first_game, n_games, run_seed, record=False)
            return _columns(res)
        return _columns(_race_engine_chunk(rules, seats, first_game, n_games, run_seed))

    def engine_replay(self, rules, seats, game_index, run_seed):
        """(tables, decisions) of a Race or Tri-Board game through the engine (Battle is not on
        the engine yet: None)."""
        if _is_tri(rules):
            t, rec, _ = tri_engine.replay(rules, mode_seats(rules, seats), game_index, run_seed)
            return t, rec
        if rules["mode"] != "race":
            return None
        t = race.tables(rules)
        codes, par = engine.bot_arrays(seats)
        rec, _, _ = engine.play_traced(t, np.uint64(run_seed), np.int64(game_index), codes, par,
                                       np.zeros(len(seats), np.int64), np.int64(rules["max_turns"] + 1))
        return t, rec

    def play_traced(self, rules, seats, game_index, run_seed) -> Trace:
        if rules["mode"] == "battle":
            from . import battle as BT

            res, rec = _battle_run(rules, seats, game_index, 1, run_seed, True)
            row = {k: v[0].item() for k, v in BT.columns(res).items()}
            data = {"bags": rec[1].tolist(), "dots": rec[2].tolist()}
            return Trace(self.name, dict(rules), list(SEATS), game_index, run_seed,
                         BT.moves_from_record(rec), row, data)
        if _is_tri(rules):
            return tri_engine.traced(self.name, rules, mode_seats(rules, seats), game_index, run_seed)
        return _race_traced(rules, seats, game_index, run_seed)

    # each mode has its own kernels (tri and tri2p share theirs: tri._play for random-only
    # line-ups, the engine's drivers over tri_engine.py otherwise); seconds measured on this machine
    warm_parts = (("race", 30.0), ("battle", 35.0), ("tri", 38.0))

    def warm(self, part: str = "all") -> None:
        parts = [p for p, _ in self.warm_parts] if part == "all" else [part]
        if "race" in parts:  # Race's two big subtrees in two processes first (precompile.py)
            from .precompile import precompile_race

            precompile_race()
        seats = [SeatBot(b, {p.name: p.default for p in b.params}) for b in R.BOTS]
        for label, overrides in self.modes():
            if {"tri2p": "tri"}.get(label, label) in parts:
                rules = self.resolve_rules(overrides, "warm")
                n = len(self.seat_names(rules))
                self.play_chunk(rules, (seats * 2)[:n], 0, 2, 0)
                if _is_tri(rules):  # random-only line-ups: the chunk kernel tri._play
                    self.play_chunk(rules, seats[:1] * n, 0, 2, 0)
        mcts = SeatBot(MCTS, {**{p.name: p.default for p in MCTS.params}, "iterations": 4})
        for label, overrides in (("race", {}), ("tri", {"mode": "tri"}), ("tri", {"mode": "tri2p"})):
            if label in parts:  # the engine path: the search bot's chunks and traced games
                rules = self.resolve_rules(overrides, "warm")
                n = len(self.seat_names(rules))
                self.play_chunk(rules, [mcts] + [seats[1]] * (n - 1), 0, 1, 0)
                self.play_traced(rules, (seats * 2)[:n], 0, 0)

    # ---- verification -------------------------------------------------------------------------
    def verify_trace(self, trace: Trace) -> None:
        """Replay with the pure-Python Position: hands drawn from the recorded bags, every
        placement legal and from the mover's hand, passes only without a legal placement,
        tiles conserved, declared winner, end reason, score and path columns right."""
        if _is_tri(trace.rules):
            from .tri import tri_verify

            return tri_verify(self, trace)
        from .position import Position

        rules = trace.rules
        if rules["mode"] == "battle":
            from .battle import verify

            return verify(trace, self.end_reasons)
        pos = Position(rules, dots=trace.data["dots"])
        hs = rules["hand_size"]
        bags = [list(b) for b in trace.data["bags"]]
        full_set = sorted(bags[0])
        hands = [[bags[q].pop() for _ in range(min(hs, len(bags[q])))] for q in range(2)]
        blocked = [False, False]
        winner, reason = None, None
        row = trace.row
        passes = [0, 0]
        consec = 0
        for i, mv in enumerate(trace.moves):
            assert reason is None, f"move {i} played after the game ended ({reason})"
            q = SEATS.index(mv["seat"])
            if i == 0:
                assert q == row["first_seat"], "first mover differs from first_seat"
            else:
                assert q != SEATS.index(trace.moves[i - 1]["seat"]), f"move {i}: same seat twice"
            if mv["move"] == "pass":
                legal = pos.legal_moves(q, hands[q]) if hands[q] else []
                assert not legal, f"move {i}: {mv['seat']} passed with {len(legal)} legal moves"
                if hands[q] and rules["no_move"] == "lose":
                    winner, reason = 1 - q, "no_move_loss"
                    continue
                passes[q] += 1
                consec += 1
                if consec >= 2:
                    winner = pos.stalemate_winner()
                    reason = "stalemate_closest" if rules["stalemate_rule"] == "closest" \
                        else "stalemate_draw"
                continue
            consec = 0
            t = TILE_TYPES_BY_NAME[mv["tile"]]
            assert t in hands[q], f"move {i}: {mv['tile']} not in {mv['seat']}'s hand {hands[q]}"
            pos.place(q, mv["hex"], t, mv["rotation"])  # raises if illegal
            hands[q].remove(t)
            if bags[q]:
                hands[q].append(bags[q].pop())
            winner, reason, blocked = pos.judge(q, t, blocked)
        if reason is None:
            assert len(trace.moves) >= rules["max_turns"], "game stopped with no end reason"
            reason = "turn_cap"
        # conservation: board + hand + bag = the set, per seat
        for q in range(2):
            on_board = [t for (s, t, _) in pos.tiles.values() if s == q]
            assert sorted(on_board + hands[q] + bags[q]) == full_set, f"seat {q}: tiles not conserved"
            for t, tt in enumerate(TILE_TYPES):
                col = f"hexflow_tiles_{SEATS[q]}_{tt.name}"
                assert row[col] == on_board.count(t), f"{col} = {row[col]}, board has {on_board.count(t)}"
            assert row[f"hexflow_passes_{SEATS[q]}"] == passes[q]
        assert self.end_reasons[row["end_reason"]] == reason, \
            f"declared {self.end_reasons[row['end_reason']]}, replay gives {reason}"
        assert row["winner"] == (-1 if winner is None else winner), \
            f"declared winner {row['winner']}, replay gives {winner}"
        assert row["turns"] == len(trace.moves)
        if reason in ("path", "opponent_path"):
            assert row["hexflow_path_completed"]
            score, length, hexes = pos.best_path(winner)
            assert row[f"score_{SEATS[winner]}"] == (10 * score if score > 0 else 10)
            assert row["hexflow_path_len"] == length
            assert len(trace.data["path"]) >= 1
        else:
            assert not row["hexflow_path_completed"]
            want = 10 if winner is not None else 0
            assert row["score_A"] + row["score_B"] == want

    # ---- pictures and reports -----------------------------------------------------------------
    def draw(self, trace: Trace, path: str, every_move: bool = False) -> None:
        if _is_tri(trace.rules):
            from .draw import draw_tri_trace

            return draw_tri_trace(trace, path, every_move)
        from .draw import draw_trace

        if trace.rules["mode"] == "battle":
            from .battle import draw_battle

            return draw_battle(trace, path, every_move)
        draw_trace(trace, path, every_move)

    def report_metrics(self, df, rules: dict[str, Any]) -> list[dict[str, Any]]:
        if _is_tri(rules):
            from .report import tri_metrics

            return tri_metrics(df, rules, self.seat_names(rules))
        from .report import metrics

        if rules["mode"] == "battle":
            from .battle import metrics as battle_metrics

            return battle_metrics(df, rules, self.end_reasons)
        return metrics(df, rules)

    def modes(self) -> list[tuple[str, dict[str, Any]]]:
        return [("race", {}), ("battle", {"mode": "battle"}), ("tri", {"mode": "tri"}),
                ("tri2p", {"mode": "tri2p"})]


def _battle_run(rules, seats, first_game, n_games, run_seed, record):
    from . import battle as BT

    if len(seats) != 2:
        raise ValueError(f"hexflow battle needs 2 seats, got {len(seats)}")
    codes, par = _bot_arrays(seats)
    return BT.run(_tables(rules), rules, codes, par, first_game, n_games, run_seed, record)


def _battle_columns(res):
    from . import battle as BT

    return BT.columns(res)


TILE_TYPES_BY_NAME = {t.name: i for i, t in enumerate(TILE_TYPES)}
