"""The engine interface: one position value per game, the same short rule functions in every
game, and one chunk driver and one traced driver written once for all of them.

A game describes itself to the engine with two kinds of value (pgx's shape, in numba):

- **tables**: a NamedTuple of rule tables built once in Python from the resolved rules
  (neighbour tables, tile data, bot weights ...). Every game's tables start with the four
  fields the drivers read, in this order:
    `n_seats` (int64), `max_moves` (int64: bound on `legal_moves`), `turn_cap` (int64: decisions
    before the driver stops a game and asks for its capped result; 0 = none), `res_width` (int64:
    length of a result row, see `result`);
- **position**: a NamedTuple of small arrays, mutated in place by `apply`.

and implements these compiled functions for its own tables type (`implement` registers them):

    new_position(tables, rng) -> position          set-up; deals and draws come from rng
    new_position_at(tables, rng, game_index)       optional: the set-up of game `game_index` of a
                                                   run, for rules that depend on it (a match
                                                   alternating the first seat); by default
                                                   new_position, the index unused
    to_move(tables, pos) -> seat                   the seat to decide now, -1 once the game is over
    legal_moves(tables, pos, out) -> k             writes the k legal move codes into out[:k]
    apply(tables, pos, move, rng)                  plays a move; chance events (draws, dice) use rng
    result(tables, pos, capped, res)               writes one result row (below)
    copy_position(pos) -> position                 an independent copy
    sample_hidden(tables, pos, seat, rng)          redraws, in place, everything `seat` cannot see
                                                   (bags, hands, deck order) consistently with
                                                   what it has seen; a no-op for open games
    evaluate(tables, pos, seat) -> float           the game's own evaluation, higher is better
                                                   for `seat` (greedy's; search cut-offs use it)
    new_scratch(tables) -> scratch                 bot scratch, allocated once per chunk
    bot_move(tables, pos, seat, code, par, scratch, rng) -> move
                                                   the game's own bots (`Bot.code`, parameters)

A result row (int64) is `winner` (seat, -1 for a draw), `end_reason` (index into
`Game.end_reasons`), `turns`, `first_seat`, one score per seat, then the game's own columns.

Moves are int64 codes the game defines. Randomness flows through one generator per game, seeded
by (run seed, game index) alone, and the drivers draw nothing themselves: a game whose bots and
chance events take the same draws in the same order plays the same games under any driver.

Why overloads: numba cannot cache a kernel that takes compiled functions as arguments (their
type is an address), so the drivers call the generic names below and each game's tables type
selects its implementation at compile time (`numba.extending.overload`). The drivers are then
compiled once per game and cached like any kernel; `sim/__init__.py` keys numba's cache on the
sources of every game so an edited rule never runs stale.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, types
from numba.extending import overload

from sim.rng import below, game_seed, new_state

# columns of a result row before the scores
WINNER, END_REASON, TURNS, FIRST_SEAT, SCORES = 0, 1, 2, 3, 4
# the traced driver's record of a decision: seat, move code, and the generator's state just
# before the move was applied (so a verifier can replay chance events without replaying bots)
REC_W = 3
# the shared bot every game gets without writing it: uniform over legal_moves
BOT_UNIFORM = -1
HEADER = ("n_seats", "max_moves", "turn_cap", "res_width")
FUNCTIONS = ("new_position", "to_move", "legal_moves", "apply", "result", "copy_position",
             "sample_hidden", "evaluate", "new_scratch", "bot_move")
OPTIONAL = ("new_position_at",)


# ---- the generic rule functions: bodies come from each game through `implement` -------------
def new_position(tables, rng):
    raise NotImplementedError("compiled only: called from engine kernels")


def new_position_at(tables, rng, game_index):
    raise NotImplementedError("compiled only")


def to_move(tables, pos):
    raise NotImplementedError("compiled only")


def legal_moves(tables, pos, out):
    raise NotImplementedError("compiled only")


def apply(tables, pos, move, rng):
    raise NotImplementedError("compiled only")


def result(tables, pos, capped, res):
    raise NotImplementedError("compiled only")


def copy_position(tables, pos):
    raise NotImplementedError("compiled only")


def sample_hidden(tables, pos, seat, rng):
    raise NotImplementedError("compiled only")


def evaluate(tables, pos, seat):
    raise NotImplementedError("compiled only")


def new_scratch(tables):
    raise NotImplementedError("compiled only")


def bot_move(tables, pos, seat, code, par, scratch, rng):
    raise NotImplementedError("compiled only")


_GENERIC = {name: globals()[name] for name in FUNCTIONS + OPTIONAL}
_IMPLEMENTED: dict[type, dict[str, Callable]] = {}


def implement(tables_cls: type, **functions: Callable) -> None:
    """Register a game's compiled rule functions for its tables NamedTuple class.

    Every name of `FUNCTIONS` is required (`copy_position(tables, pos)` takes the tables too,
    so a game can copy only what changes), those of `OPTIONAL` may be given. The tables class
    must start with the `HEADER` fields. Call at import of the game's module, before any
    driver compiles."""
    missing = sorted(set(FUNCTIONS) - set(functions))
    extra = sorted(set(functions) - set(FUNCTIONS) - set(OPTIONAL))
    if missing or extra:
        raise TypeError(f"implement({tables_cls.__name__}): missing {missing}, unknown {extra}")
    if tuple(getattr(tables_cls, "_fields", ())[:len(HEADER)]) != HEADER:
        raise TypeError(f"{tables_cls.__name__} must start with the fields {HEADER}")
    if tables_cls in _IMPLEMENTED:
        return
    _IMPLEMENTED[tables_cls] = dict(functions)

    def is_mine(t) -> bool:
        return isinstance(t, types.BaseNamedTuple) and t.instance_class is tables_cls

    for name, fn in functions.items():
        overload(_GENERIC[name])(_forwarder(fn, is_mine))
    if "new_position_at" not in functions:
        setup = functions["new_position"]

        def ov_at(t, rng, game_index):
            if is_mine(t):
                return lambda t, rng, game_index: setup(t, rng)
        overload(new_position_at)(ov_at)


def _forwarder(fn: Callable, is_mine: Callable) -> Callable:
    """An overload body that forwards to `fn` when the first argument is this game's tables.
    One per arity, since numba matches the overload's signature to the call's."""
    import inspect

    n = len(inspect.signature(fn.py_func if hasattr(fn, "py_func") else fn).parameters)
    if n == 1:
        def ov1(t):
            if is_mine(t):
                return lambda t: fn(t)
        return ov1
    if n == 2:
        def ov2(t, a):
            if is_mine(t):
                return lambda t, a: fn(t, a)
        return ov2
    if n == 3:
        def ov3(t, a, b):
            if is_mine(t):
                return lambda t, a, b: fn(t, a, b)
        return ov3
    if n == 4:
        def ov4(t, a, b, c):
            if is_mine(t):
                return lambda t, a, b, c: fn(t, a, b, c)
        return ov4
    if n == 7:
        def ov7(t, a, b, c, d, e, f):
            if is_mine(t):
                return lambda t, a, b, c, d, e, f: fn(t, a, b, c, d, e, f)
        return ov7
    raise TypeError(f"{fn}: no engine function takes {n} arguments")


# ---- shared pieces every game may use -------------------------------------------------------
@njit(cache=True, inline="always")
def uniform_move(tables, pos, rng, buf):
    """A legal move drawn uniformly (one draw); -1 if there is none."""
    k = legal_moves(tables, pos, buf)
    if k == 0:
        return -1
    return buf[below(rng, k)]


@njit(cache=True, inline="always")
def choose(tables, pos, seat, code, par, scratch, rng, buf):
    """The seat's bot decides: engine bots by their reserved codes, the game's bots otherwise."""
    if code == BOT_UNIFORM:
        return uniform_move(tables, pos, rng, buf)
    return bot_move(tables, pos, seat, code, par, scratch, rng)


# ---- the drivers ------------------------------------------------------------------------------
@njit(cache=True)
def play_game(tables, seed, game_index, bot_code, bot_par, scratch, buf, rec, res):
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
        move = choose(tables, pos, seat, bot_code[seat], bot_par[seat], scratch, rng, buf)
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
    buf = np.empty(tables.max_moves, np.int64)
    rec = np.zeros((0, REC_W), np.int64)
    for g in range(n_games):
        gi = first_game + g
        play_game(tables, game_seed(run_seed, gi), gi, bot_code, bot_par, scratch, buf, rec, out[g])


@njit(cache=True)
def play_traced(tables, run_seed, game_index, bot_code, bot_par, max_decisions):
    """One game with its decisions: returns (rec[:t], result row)."""
    scratch = new_scratch(tables)
    buf = np.empty(tables.max_moves, np.int64)
    rec = np.zeros((max_decisions, REC_W), np.int64)
    res = np.zeros(tables.res_width, np.int64)
    t = play_game(tables, game_seed(run_seed, game_index), game_index, bot_code, bot_par, scratch, buf,
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
    """What the seat's bot would play here (allocates its scratch afresh)."""
    scratch = new_scratch(tables)
    buf = np.empty(tables.max_moves, np.int64)
    return choose(tables, pos, seat, code, par, scratch, rng, buf)


# ---- Python side: bot arrays and outcome columns ---------------------------------------------
def bot_arrays(seats) -> tuple[np.ndarray, np.ndarray]:
    """Seats (SeatBot) -> (codes int64[S], parameters float64[S, P]) for the drivers."""
    codes = np.array([s.bot.code for s in seats], dtype=np.int64)
    vecs = [s.param_vector() for s in seats]
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
    if building is costly), `extra_columns` ({column: (offset after the scores, dtype)}) and
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

    def play_chunk(self, rules, seats, first_game, n_games, run_seed):
        t = self.tables(rules)
        codes, par = bot_arrays(seats)
        rows = np.zeros((n_games, t.res_width), np.int64)
        play_chunk(t, np.uint64(run_seed), np.int64(first_game), np.int64(n_games), codes, par, rows)
        return columns(rows, self.seat_names(rules), self.extra_columns, self.score_dtype)

    def play_traced(self, rules, seats, game_index, run_seed):
        from sim.games.base import Trace

        t = self.tables(rules)
        codes, par = bot_arrays(seats)
        rec, res = play_traced(t, np.uint64(run_seed), np.int64(game_index), codes, par,
                               np.int64(self.max_decisions(rules)))
        names = self.seat_names(rules)
        row = {k: v[0] for k, v in columns(res[None, :], names, self.extra_columns, self.score_dtype).items()}
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
        row = {k: v[0] for k, v in columns(res[None, :], names, self.extra_columns, self.score_dtype).items()}
        for k, v in row.items():
            assert trace.row[k] == v, f"{k}: declared {trace.row[k]}, position says {v}"

    def check_position(self, tables, pos) -> None:
        """Invariants of a position (pieces conserved ...): raise AssertionError. Default none."""
