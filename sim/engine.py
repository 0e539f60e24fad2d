"""The drivers: one chunk driver and one traced driver written once for every game, the same
rule functions callable from Python, and `EngineGame`, the mix-in that gives a Game its
play_chunk / play_traced / verify_trace. The interface the games implement is sim/interface.py
(re-exported here, so a game needs only `from sim import engine`); the search bot is sim/search.py.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import search
from sim.interface import (  # noqa: F401  (re-exported: a game's one import)
    BOT_UNIFORM,
    END_REASON,
    FIRST_SEAT,
    FUNCTIONS,
    HEADER,
    PER_DECISION,
    REC_W,
    SCORES,
    TURNS,
    WINNER,
    apply,
    bot_move,
    copy_position,
    evaluate,
    implement,
    legal_moves,
    new_position,
    new_position_at,
    new_scratch,
    result,
    sample_hidden,
    to_move,
    uniform_move,
)
from sim.rng import game_seed, new_state


@njit(cache=True)
def choose(tables, pos, seat, code, par, scratch, tree, rng, buf):
    """The seat's bot decides: engine bots by their reserved codes (the uniform bot, the search
    bot of sim/search.py), the game's own bots otherwise."""
    if code == BOT_UNIFORM:
        return uniform_move(tables, pos, rng, buf)
    if code == search.BOT_MCTS:
        return search.mcts_move(tables, pos, seat, par, scratch, tree, rng)
    return bot_move(tables, pos, seat, code, par, scratch, rng)


# ---- the drivers ------------------------------------------------------------------------------
@njit(cache=True)
def play_game(tables, seed, game_index, bot_code, bot_par, scratch, tree, buf, rec, res):
    """Play one game from its seed; the first rec.shape[0] decisions go to
    rec[t] = (seat, move, generator state before apply).
    Returns the number of decisions. res receives the result row."""
    rng = new_state(seed)
    pos = new_position_at(tables, rng, game_index)
    t = 0
    capped = False
    while True:
        seat = to_move(tables, pos)
        if seat < 0:
            break
        if tables.turn_cap > 0 and t >= tables.turn_cap:
            capped = True
            break
        # `choose`, written out: a call here hands tables, position and scratch on without
        # taking references to their arrays (see `implement`'s no_alloc)
        code = bot_code[seat]
        if code == BOT_UNIFORM:
            move = uniform_move(tables, pos, rng, buf)
        elif code == search.BOT_MCTS:
            move = search.mcts_move(tables, pos, seat, bot_par[seat], scratch, tree, rng)
        else:
            move = bot_move(tables, pos, seat, code, bot_par[seat], scratch, rng)
        if t < rec.shape[0]:
            rec[t, 0] = seat
            rec[t, 1] = move
            rec[t, 2] = np.int64(rng[0])
        apply(tables, pos, move, rng)
        t += 1
    result(tables, pos, capped, res)
    return t


@njit(cache=True)
def play_chunk(tables, run_seed, first_game, n_games, bot_code, bot_par, out):
    """Games first_game .. first_game + n_games - 1 of a run: out[g] is game g's result row
    (out: int64[n_games, tables.res_width])."""
    scratch = new_scratch(tables)
    tree = search.new_tree(tables, search.tree_nodes(bot_code, bot_par))
    buf = np.empty(tables.max_moves, np.int64)
    rec = np.zeros((0, REC_W), np.int64)
    for g in range(n_games):
        gi = first_game + g
        play_game(tables, game_seed(run_seed, gi), gi, bot_code, bot_par, scratch, tree, buf, rec, out[g])


@njit(cache=True)
def play_traced(tables, run_seed, game_index, bot_code, bot_par, max_decisions):
    """One game with its decisions: returns (rec[:t], result row)."""
    scratch = new_scratch(tables)
    tree = search.new_tree(tables, search.tree_nodes(bot_code, bot_par))
    buf = np.empty(tables.max_moves, np.int64)
    rec = np.zeros((max_decisions, REC_W), np.int64)
    res = np.zeros(tables.res_width, np.int64)
    t = play_game(tables, game_seed(run_seed, game_index), game_index, bot_code, bot_par, scratch, tree, buf,
                  rec, res)
    return rec[:min(t, max_decisions)].copy(), res


# ---- the same functions callable from Python (tests, designers, the position API) ------------
@njit(cache=True)
def start(tables, seed):
    """The position of a game seeded by `seed` before any decision, and its generator."""
    rng = new_state(seed)
    return new_position(tables, rng), rng


@njit(cache=True)
def start_at(tables, seed, game_index):
    """The same for game `game_index` of a run (seed = game_seed(run seed, game_index))."""
    rng = new_state(seed)
    return new_position_at(tables, rng, game_index), rng


@njit(cache=True)
def moves_of(tables, pos):
    buf = np.empty(tables.max_moves, np.int64)
    k = legal_moves(tables, pos, buf)
    return buf[:k].copy()


@njit(cache=True)
def seat_to_move(tables, pos):
    return to_move(tables, pos)


@njit(cache=True)
def play(tables, pos, move, rng):
    apply(tables, pos, move, rng)


@njit(cache=True)
def outcome(tables, pos, capped):
    res = np.zeros(tables.res_width, np.int64)
    result(tables, pos, capped, res)
    return res


@njit(cache=True)
def copy_of(tables, pos):
    return copy_position(tables, pos)


@njit(cache=True)
def redraw_hidden(tables, pos, seat, rng):
    sample_hidden(tables, pos, seat, rng)


@njit(cache=True)
def value_of(tables, pos, seat):
    return evaluate(tables, pos, seat)


@njit(cache=True)
def bot_choice(tables, pos, seat, code, par, rng):
    """What a bot (code, parameter row) would play here for `seat` (allocates its scratch)."""
    scratch = new_scratch(tables)
    codes = np.full(1, code, np.int64)
    tree = search.new_tree(tables, search.tree_nodes(codes, par.reshape(1, -1)))
    buf = np.empty(tables.max_moves, np.int64)
    return choose(tables, pos, seat, code, par, scratch, tree, rng, buf)


# ---- Python side: bot arrays and outcome columns ---------------------------------------------
def bot_arrays(seats) -> tuple[np.ndarray, np.ndarray]:
    """Seats (SeatBot) -> (codes int64[S], parameters float64[S, P]) for the drivers."""
    codes = np.array([s.bot.code for s in seats], dtype=np.int64)
    vecs = [np.array(s.bot.par_row(s.params)) if hasattr(s.bot, "par_row") else s.param_vector() for s in seats]
    width = max([1, *(len(v) for v in vecs)])
    par = np.zeros((len(seats), width), dtype=np.float64)
    for i, v in enumerate(vecs):
        par[i, :len(v)] = v
    return codes, par


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


# ---- a Game on the engine: play_chunk, play_traced and verify_trace written once -------------
class EngineGame:
    """Mix-in for a `sim.games.base.Game` whose rules are engine functions (`implement`).

    The game provides `tables(rules) -> its tables NamedTuple` (cached per rules by the caller
    if building is costly), `extra_columns` ({column: (offset after the scores, dtype)}, or
    `columns_of(rules)` when they depend on the rules) and
    `describe(rules, seat, move) -> str` for move lists; it inherits chunk play, traced play
    and a trace verifier that replays every decision through `legal_moves` and `apply`."""

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

    def play_chunk(self, rules, seats, first_game, n_games, run_seed):
        t = self.tables(rules)
        codes, par = bot_arrays(seats)
        rows = np.zeros((n_games, t.res_width), np.int64)
        play_chunk(t, np.uint64(run_seed), np.int64(first_game), np.int64(n_games), codes, par, rows)
        return columns(rows, self.seat_names(rules), self.columns_of(rules), self.score_dtype)

    def play_traced(self, rules, seats, game_index, run_seed):
        from sim.games.base import Trace

        t = self.tables(rules)
        codes, par = bot_arrays(seats)
        rec, res = play_traced(t, np.uint64(run_seed), np.int64(game_index), codes, par,
                               np.int64(self.max_decisions(rules)))
        names = self.seat_names(rules)
        row = {k: v[0] for k, v in columns(res[None, :], names, self.columns_of(rules), self.score_dtype).items()}
        moves = [{"seat": int(s), "move": int(m), "text": self.describe(rules, int(s), int(m))}
                 for s, m, _ in rec]
        return Trace(self.name, rules, names, game_index, run_seed, moves, row,
                     data={"rec": rec, "capped": len(rec) == t.turn_cap and t.turn_cap > 0})

    def verify_trace(self, trace):
        """Every decision by the seat to move and among its legal moves, chance replayed from
        the recorded generator state, and the declared result equal to the position's."""
        t = self.tables(trace.rules)
        seed = game_seed(np.uint64(trace.run_seed), np.int64(trace.game_index))
        pos, rng = start_at(t, np.uint64(seed), np.int64(trace.game_index))
        rec = trace.data["rec"]
        for i, (seat, move, state) in enumerate(rec):
            assert seat_to_move(t, pos) == seat, f"decision {i}: seat {seat} is not to move"
            legal = moves_of(t, pos)
            assert move in legal, f"decision {i}: move {move} of seat {seat} is not legal"
            rng[0] = np.int64(state).view(np.uint64)
            play(t, pos, np.int64(move), rng)
            self.check_position(t, pos)
        capped = bool(trace.data.get("capped", False))
        if not capped:
            assert seat_to_move(t, pos) == -1, "the trace ends before the game does"
        res = outcome(t, pos, capped)
        names = trace.seat_names
        row = {k: v[0] for k, v in columns(res[None, :], names, self.columns_of(trace.rules),
                                             self.score_dtype).items()}
        for k, v in row.items():
            assert trace.row[k] == v, f"{k}: declared {trace.row[k]}, position says {v}"

    def check_position(self, tables, pos) -> None:
        """Invariants of a position (pieces conserved ...): raise AssertionError. Default none."""
