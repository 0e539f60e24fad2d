"""`EngineGame`, the mix-in that gives a game whose rules are engine functions its chunk play,
traced play and trace check through the drivers (sim/engine/drivers.py), and the Python side
of a run: a game's tables once per rule set, the bots' arrays, the outcome columns."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from sim.engine.calls import moves_of, outcome, play, seat_to_move, start_at
from sim.engine.drivers import SWAP_COIN, SWAP_JUDGE, SWAP_MOVE, SWAP_OFF, play_chunk, play_traced
from sim.engine.interface import BOT_UNIFORM, END_REASON, FIRST_SEAT, SCORES, TURNS, WINNER, costly_bots
from sim.engine.rng import game_seed
from sim.engine.search import BOT_MCTS
from sim.games.base import SeatBot, Trace


def per_rules(build: Callable[[dict], Any]) -> Callable[[dict], Any]:
    """A game's `tables(rules)`: `build(rules)` once per rule set and process (the chunks of a run
    share the tables), keyed by the rules as canonical JSON."""
    cache: dict[str, Any] = {}

    def tables(rules: dict) -> Any:
        key = json.dumps(rules, sort_keys=True)
        if key not in cache:
            cache[key] = build(rules)
        return cache[key]

    tables.__doc__ = f"{build.__name__}, once per rule set and process (sim.engine.per_rules)."
    return tables


def bot_arrays(seats) -> tuple[np.ndarray, np.ndarray]:
    """Seats (SeatBot) -> (codes int64[S], parameters float64[S, P]) for the drivers."""
    codes = np.array([s.bot.code for s in seats], dtype=np.int64)
    vecs = [np.array(s.bot.par_row(s.params)) if hasattr(s.bot, "par_row") else s.param_vector() for s in seats]
    width = max([1, *(len(v) for v in vecs)])
    par = np.zeros((len(seats), width), dtype=np.float64)
    for i, v in enumerate(vecs):
        par[i, :len(v)] = v
    return codes, par


def swap_policy(pie_rule: bool, seats) -> np.ndarray:
    """The drivers' `swap` argument for a line-up (SeatBot seats): per player SWAP_OFF without the
    pie rule, else how its bot decides (a coin for bots named "random", its own judgement
    otherwise: the game's `evaluate`, or the search bot's search)."""
    if not pie_rule:
        return np.full(len(seats), SWAP_OFF, np.int64)
    return np.array([SWAP_COIN if s.bot.name == "random" else SWAP_JUDGE for s in seats], np.int64)


def columns(rows: np.ndarray, seat_names: list[str], extra: dict[str, tuple[int, type]] | None = None,
            score_dtype: type = np.int32) -> dict[str, np.ndarray]:
    """Result rows (int64[n, res_width]) -> the outcome columns the runner stores.
    `extra` maps a game column name to (offset after the scores, dtype)."""
    out = {
        "winner": rows[:, WINNER].astype(np.int8),
        "end_reason": rows[:, END_REASON].astype(np.int8),
        "turns": rows[:, TURNS].astype(np.int32),
        "first_seat": rows[:, FIRST_SEAT].astype(np.int8),
    }
    for i, name in enumerate(seat_names):
        out[f"score_{name}"] = rows[:, SCORES + i].astype(score_dtype)
    base = SCORES + len(seat_names)
    for name, (offset, dtype) in (extra or {}).items():
        out[name] = rows[:, base + offset].astype(dtype)
    return out


def exchange_seats(cols: dict, swapped, names: list[str]) -> dict:
    """Where `swapped` (the pie rule), exchange the two seats' winner and per-seat columns
    (`score_A`, `<game>_<what>_A` ...): from the position's seats to the players' (who sat where
    when the game began) and back. Columns may be arrays or one row's scalars."""
    a, b = names
    out = dict(cols)
    w = np.asarray(cols["winner"])
    out["winner"] = np.where(swapped & (w >= 0), 1 - w, w).astype(w.dtype)
    for name in [k for k in cols if k.endswith("_" + a)]:
        other = name[:-len(a)] + b
        out[name] = np.where(swapped, cols[other], cols[name]).astype(np.asarray(cols[name]).dtype)
        out[other] = np.where(swapped, cols[name], cols[other]).astype(np.asarray(cols[other]).dtype)
    return out


# ---- a Game on the engine: play_chunk, play_traced and verify_trace written once -------------
class EngineGame:
    """Mix-in for a `sim.games.base.Game` whose rules are engine functions (`implement`).

    The game provides `tables(rules) -> its tables NamedTuple` (cached per rules by the caller
    if building is costly), `extra_columns` ({column: (offset after the scores, dtype)}, or
    `columns_of(rules)` when they depend on the rules) and
    `describe(rules, seat, move) -> str` for move lists; it inherits chunk play (`play_rows`,
    then `outcome_columns` and `by_player`), traced play (`replay`), a trace verifier that
    replays every decision through `legal_moves` and `apply`, and a warm-up (`warm`). A game
    overrides the hook whose default does not fit (HEXFLOW: its tables and columns per mode)."""

    extra_columns: dict[str, tuple[int, type]] = {}
    score_dtype: type = np.int32
    max_traced_decisions: int = 10_000

    def tables(self, rules):
        raise NotImplementedError

    def describe(self, rules, seat: int, move: int) -> str:
        return str(move)

    def max_decisions(self, rules) -> int:
        """Decisions a traced game records at most (a bound on the game's length)."""
        return self.max_traced_decisions

    def columns_of(self, rules) -> dict[str, tuple[int, type]]:
        """The game's own columns under these rules: `extra_columns` unless overridden (a game
        whose columns depend on the rules, e.g. on the number of seats)."""
        return self.extra_columns

    def play_rows(self, rules, seats, first_game, n_games, run_seed):
        """(result rows by seat int64[n_games, res_width], swapped bool[n_games]) of games
        first_game .. first_game + n_games - 1 through the chunk driver."""
        t = self.tables(rules)
        if len(seats) != t.n_seats:
            raise ValueError(f"{self.name}: {t.n_seats} seats needed, got {len(seats)}")
        codes, par = bot_arrays(seats)
        rows = np.zeros((n_games, t.res_width), np.int64)
        swapped = np.zeros(n_games, np.bool_)
        play_chunk(t, np.uint64(run_seed), np.int64(first_game), np.int64(n_games), codes, par,
                   self.swap_policy(rules, seats), rows, swapped)
        return rows, swapped

    def play_chunk(self, rules, seats, first_game, n_games, run_seed):
        return self._columns(rules, *self.play_rows(rules, seats, first_game, n_games, run_seed))

    def outcome_columns(self, rules, rows) -> dict[str, np.ndarray]:
        """Result rows by seat -> the outcome columns by seat (`columns` with the game's own)."""
        return columns(rows, self.seat_names(rules), self.columns_of(rules), self.score_dtype)

    def by_player(self, rules, cols, swapped) -> dict[str, np.ndarray]:
        """Columns from the position's seats to the players' where the pie rule swapped them (and
        back): `exchange_seats` unless a game has per-seat columns it does not find by name."""
        return exchange_seats(cols, swapped, self.seat_names(rules))

    def _columns(self, rules, rows, swapped) -> dict[str, np.ndarray]:
        """Outcome columns by player (`by_player` where the pie rule swapped), plus `swapped`
        under the pie rule."""
        cols = self.outcome_columns(rules, rows)
        if not self.pie_rule(rules):
            return cols
        cols = self.by_player(rules, cols, swapped)
        cols["swapped"] = np.asarray(swapped, np.bool_).copy()
        return cols

    def replay(self, rules, seats, game_index, run_seed):
        """(tables, decision records, result row by seat, swapped) of one game through the traced
        driver (a pie-rule swap is a record with move SWAP_MOVE)."""
        t = self.tables(rules)
        codes, par = bot_arrays(seats)
        rec, res, swapped = play_traced(t, np.uint64(run_seed), np.int64(game_index), codes, par,
                                        self.swap_policy(rules, seats), np.int64(self.max_decisions(rules)))
        return t, rec, res, swapped

    def engine_replay(self, rules, seats, game_index, run_seed):
        """(tables, decisions) of one game through the engine's traced driver, for measures that
        replay a game position by position (sim/stats/playmetrics.py)."""
        t, rec, _, _ = self.replay(rules, seats, game_index, run_seed)
        return t, rec

    def warm(self, part: str = "all") -> None:
        """Compile the drivers for each mode's default rules (`modes()`): the game's own bots with
        the uniform one in one line-up (a chunk, a traced game and its check), each own bot alone
        (the one-bot path), and the search bot at a small budget and the mode's settings
        (`bot_params`) where the game seats it. A costly bot (`implement`'s costly_bots)
        compiles when a run first seats it."""
        for _, overrides in self.modes():
            rules = self.resolve_rules(overrides, "warm")
            costly = costly_bots(type(self.tables(rules)))
            bots = [SeatBot(b, self.bot_params(rules, b)) for b in self.bots]
            own = [s for s in bots if s.bot.code >= 0 and s.bot.code not in costly]
            search = [s for s in bots if s.bot.code == BOT_MCTS][:1]
            n = len(self.seat_names(rules))
            mixed = ((own + [s for s in bots if s.bot.code == BOT_UNIFORM]) * n)[:n]
            self.play_chunk(rules, mixed, 0, 1, 0)
            self.verify_trace(self.play_traced(rules, mixed, 0, 0))
            for s in own:
                self.play_chunk(rules, [s] * n, 0, 1, 0)
            for s in search:
                quick = SeatBot(s.bot, {**s.params, "iterations": 4})
                self.play_chunk(rules, [quick] + (own or mixed)[:1] * (n - 1), 0, 1, 0)

    def pie_rule(self, rules) -> bool:
        """Whether the drivers play the pie rule (`swap`, sim.games.base.SWAP) under these rules. A
        game whose own moves include a swap (a rule of the game itself) returns False."""
        return bool(rules.get("swap", False))

    def swap_policy(self, rules, seats) -> np.ndarray:
        """The drivers' `swap` argument under these rules (the module's `swap_policy`)."""
        return swap_policy(self.pie_rule(rules), seats)

    def describe_decision(self, rules, seat: int, move: int) -> str:
        return "takes over the first player's position (pie rule)" if move == SWAP_MOVE else \
            self.describe(rules, seat, move)

    def play_traced(self, rules, seats, game_index, run_seed):
        t, rec, res, swapped = self.replay(rules, seats, game_index, run_seed)
        names = self.seat_names(rules)
        row = {k: v[0] for k, v in self._columns(rules, res[None, :], np.array([swapped])).items()}
        moves = [{"seat": int(s), "move": int(m), "text": self.describe_decision(rules, int(s), int(m))}
                 for s, m, _ in rec]
        decisions = int((rec[:, 1] != SWAP_MOVE).sum())
        return Trace(self.name, rules, names, game_index, run_seed, moves, row,
                     data={"rec": rec, "capped": decisions == t.turn_cap and t.turn_cap > 0,
                           "swapped": bool(swapped)})

    def verify_trace(self, trace):
        """Every decision by the seat to move and among its legal moves, chance replayed from
        the recorded generator state, and the declared result equal to the position's (a swap
        only where the pie rule offers it, with the columns exchanged by player)."""
        t = self.tables(trace.rules)
        seed = game_seed(np.uint64(trace.run_seed), np.int64(trace.game_index))
        pos, rng = start_at(t, np.uint64(seed), np.int64(trace.game_index))
        rec = trace.data["rec"]
        first, swapped = -1, False
        for i, (seat, move, state) in enumerate(rec):
            assert seat_to_move(t, pos) == seat, f"decision {i}: seat {seat} is not to move"
            if move == SWAP_MOVE:
                assert self.pie_rule(trace.rules) and not swapped and seat != first >= 0, \
                    f"decision {i}: a swap the pie rule does not offer here"
                swapped = True
                continue
            first = seat if first < 0 else first
            legal = moves_of(t, pos)
            assert move in legal, f"decision {i}: move {move} of seat {seat} is not legal"
            rng[0] = np.int64(state).view(np.uint64)
            play(t, pos, np.int64(move), rng)
            self.check_position(t, pos)
        capped = bool(trace.data.get("capped", False))
        if not capped:
            assert seat_to_move(t, pos) == -1, "the trace ends before the game does"
        res = outcome(t, pos, capped)
        row = {k: v[0] for k, v in self._columns(trace.rules, res[None, :], np.array([swapped])).items()}
        for k, v in row.items():
            assert trace.row[k] == v, f"{k}: declared {trace.row[k]}, position says {v}"

    def check_position(self, tables, pos) -> None:
        """Invariants of a position (pieces conserved ...): raise AssertionError. Default none."""
