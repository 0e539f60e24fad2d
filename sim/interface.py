"""The rules interface every engine game implements: the generic rule functions, `implement`
(which binds a game's compiled functions to them), the result-row layout, and the one move
policy every game gets for free (`uniform_move`). The drivers that play games with these
functions are in sim/engine.py, the search bot in sim/search.py; both import this module only.

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

from numba import njit, types
from numba.extending import overload

from sim.rng import below

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


# ---- the generic rule functions: bodies come from each game through `implement` -------------
def new_position(tables, rng):
    raise NotImplementedError("compiled only: called from engine kernels")


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


_GENERIC = {name: globals()[name] for name in FUNCTIONS}
_IMPLEMENTED: dict[type, dict[str, Callable]] = {}


def implement(tables_cls: type, **functions: Callable) -> None:
    """Register a game's compiled rule functions for its tables NamedTuple class.

    Every name of `FUNCTIONS` is required (`copy_position(tables, pos)` takes the tables too,
    so a game can copy only what changes). The tables class must start with the `HEADER`
    fields. Call at import of the game's module, before any driver compiles."""
    missing = sorted(set(FUNCTIONS) - set(functions))
    extra = sorted(set(functions) - set(FUNCTIONS))
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
@njit(cache=True)
def uniform_move(tables, pos, rng, buf):
    """A legal move drawn uniformly (one draw); -1 if there is none."""
    k = legal_moves(tables, pos, buf)
    if k == 0:
        return -1
    return buf[below(rng, k)]
