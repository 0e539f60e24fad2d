"""The rules interface every engine game implements: the generic rule functions, `implement`
(which binds a game's compiled functions to them), the result-row layout, and the one move
policy every game gets for free (`uniform_move`). The drivers that play games with these
functions are in sim/engine/drivers.py, the search bot in sim/engine/search.py; both import this module only.

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
    reset(tables, pos, rng, game_index) -> bool    optional: sets a finished game's position up
                                                   in place as game `game_index` of the run
                                                   (what new_position_at would return, from the
                                                   same draws) and returns True, or returns
                                                   False, having drawn nothing, where it cannot
                                                   (the driver then takes new_position_at). The
                                                   chunk driver keeps one position per chunk this
                                                   way. By default False
    to_move(tables, pos) -> seat                   the seat to decide now, -1 once the game is over
    legal_moves(tables, pos, out) -> k             writes the k legal move codes into out[:k]
    apply(tables, pos, move, rng)                  plays a move; chance events (draws, dice) use rng
    result(tables, pos, capped, res)               writes one result row (below)
    copy_position(tables, pos) -> position         optional: an independent copy; by default
                                                   every array field copied, other fields kept
    copy_into(tables, dst, src) -> bool            optional: copies src into dst in place (dst
                                                   a copy of a position of the same tables) and
                                                   returns True, or returns False where it cannot
                                                   and the caller takes copy_position(src); the
                                                   search copies its root into one position per
                                                   move this way. By default False; `copy_fields`
                                                   is the generic in-place copy a game may give
    winner(tables, pos, res) -> seat               optional: result's winner alone (seat, -1 for
                                                   a draw) of a finished game, all the search's
                                                   playouts ask; res is a result row it may
                                                   write. By default result(tables, pos, False,
                                                   res) then res[WINNER]
    rollout(tables, pos, code, par, scratch, rng, cap) -> bool
                                                   optional: plays bot `code` (parameters par)
                                                   for every seat from pos, at most `cap`
                                                   decisions; True if the game ended. The
                                                   search's rollouts, and the chunk driver's
                                                   games where every seat plays one bot (no
                                                   pie rule). By default the loop of
                                                   to_move, bot_move and apply; a game gives
                                                   its own to compile bot_move and apply
                                                   inline into the loop (each call hands on
                                                   every array of the tables and position)
    sample_hidden(tables, pos, seat, rng)          optional: redraws, in place, everything `seat`
                                                   cannot see (bags, hands, deck order)
                                                   consistently with what it has seen; seat -1:
                                                   only what nobody has seen (the order of bags
                                                   and draw piles, every hand kept: the oracle's
                                                   search). By default nothing: an open game
    evaluate(tables, pos, seat) -> float           the game's own evaluation, higher is better
                                                   for `seat` (greedy's; search cut-offs use it)
    new_scratch(tables) -> scratch                 optional: bot scratch, allocated once per
                                                   chunk; by default an empty int64 array
    bot_move(tables, pos, seat, code, par, scratch, rng) -> move
                                                   the game's own bots (`Bot.code`, parameters)
    costly_move(tables, pos, seat, code, par, scratch, rng) -> move
                                                   optional: the bots of `implement`'s
                                                   costly_bots, which bot_move then leaves out:
                                                   the drivers compile them only for a line-up
                                                   that seats one (see `implement`)

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
from numba import types
from numba.core import caching as _caching
from numba.extending import overload

from sim.engine.jit import kernel
from sim.engine.rng import below

# numba keeps one cache index per compiled function, listing every signature compiled for it. The
# drivers are compiled once per game, so their index names every game's tables type, and reading
# the index unpickles them all: an entry made where a test fixture game was importable (the suite
# registers games from tests/) then stops a designer's run, in which `tests` cannot be imported,
# with ModuleNotFoundError. Such an index is read as empty: this process compiles afresh (and the
# next save keeps only what it can name), as numba already does for an index of another version.
_load_index = _caching.IndexDataCacheFile._load_index


def _load_index_of_importable(self):
    try:
        return _load_index(self)
    except (ImportError, AttributeError):
        return {}


_caching.IndexDataCacheFile._load_index = _load_index_of_importable

# columns of a result row before the scores
WINNER, END_REASON, TURNS, FIRST_SEAT, SCORES = 0, 1, 2, 3, 4
# the traced driver's record of a decision: seat, move code, and the generator's state just
# before the move was applied (so a verifier can replay chance events without replaying bots)
REC_W = 3
# the shared bot every game gets without writing it: uniform over legal_moves
BOT_UNIFORM = -1
HEADER = ("n_seats", "max_moves", "turn_cap", "res_width")
FUNCTIONS = ("new_position", "to_move", "legal_moves", "apply", "result", "evaluate", "bot_move")
OPTIONAL = ("new_position_at", "reset", "copy_position", "copy_into", "sample_hidden", "new_scratch", "winner",
            "rollout", "costly_move")


def rule_functions(namespace: dict) -> dict[str, Callable]:
    """The engine functions a game's module defines, by name (`FUNCTIONS` and `OPTIONAL`), for
    `implement(Tables, **rule_functions(globals()))`: a module that defines one of these names
    registers it, so a helper must not take one of them."""
    return {name: namespace[name] for name in FUNCTIONS + OPTIONAL if name in namespace}


# ---- the generic rule functions: bodies come from each game through `implement` -------------
def new_position(tables, rng):
    raise NotImplementedError("compiled only: called from engine kernels")


def new_position_at(tables, rng, game_index):
    raise NotImplementedError("compiled only")


def reset(tables, pos, rng, game_index):
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


def copy_into(tables, dst, src):
    raise NotImplementedError("compiled only")


def winner(tables, pos, res):
    raise NotImplementedError("compiled only")


def rollout(tables, pos, code, par, scratch, rng, cap):
    raise NotImplementedError("compiled only")


def sample_hidden(tables, pos, seat, rng):
    raise NotImplementedError("compiled only")


# For the search and the chunk driver, which call a game's own `rollout` and otherwise play the
# loop themselves (not through `rollout`'s default): has_rollout(tables) says whether the game
# gives one, own_rollout is it (for a game without: a stub that is never called). A call of the
# default through its overload would compile the game's bot_move and apply a second time, in
# the overload's own context (Four flags' empty-cache compile: 72.5-74.7 s against 65.1 s).
def has_rollout(tables):
    raise NotImplementedError("compiled only")


def own_rollout(tables, pos, code, par, scratch, rng, cap):
    raise NotImplementedError("compiled only")


@kernel(_nrt=False)
def run_rollout(tables, pos, code, par, scratch, rng, cap):
    """own_rollout behind one compiled function, for every caller: numba compiles an overload's
    body once per set of flags of the function that calls it, so the search (compiled with
    reference counting) and the chunk driver's one-bot loop (without) calling own_rollout each
    compiled the game's whole rollout loop, bot and inlined rules included (Battle: 13 s each,
    numba compile events). Called through this function, every caller shares one copy; the
    call costs nothing next to a playout."""
    return own_rollout(tables, pos, code, par, scratch, rng, cap)


def evaluate(tables, pos, seat):
    raise NotImplementedError("compiled only")


def new_scratch(tables):
    raise NotImplementedError("compiled only")


def bot_move(tables, pos, seat, code, par, scratch, rng):
    raise NotImplementedError("compiled only")


def costly_move(tables, pos, seat, code, par, scratch, rng):
    raise NotImplementedError("compiled only")


@kernel(inline="always")
def step_rollout(tables, pos, code, par, scratch, rng, cap):
    """`rollout`'s default: to_move, bot_move and apply, one decision at a time (a game's own
    rollout must leave the same position and generator: sim.testing checks it)."""
    d = 0
    while True:
        mover = to_move(tables, pos)
        if mover < 0:
            return True
        if d >= cap:
            return False
        apply(tables, pos, bot_move(tables, pos, mover, code, par, scratch, rng), rng)
        d += 1


_GENERIC = {name: globals()[name] for name in FUNCTIONS + OPTIONAL}
_IMPLEMENTED: dict[type, dict[str, Callable]] = {}
_ROLLOUT_BOTS: dict[type, tuple[int, ...] | None] = {}
_COSTLY_BOTS: dict[type, tuple[int, ...]] = {}


PER_DECISION = ("to_move", "legal_moves", "apply", "bot_move", "costly_move")
# the optional functions the search calls at every iteration (sim/engine/search.py)
PER_PLAYOUT = ("copy_into", "winner", "rollout")
# what the chunk driver calls once per game before it (a random game of HEXFLOW's takes 5-10 us)
PER_GAME = ("reset",)


def implement(tables_cls: type, *, no_alloc: bool = False, rollout_bots: tuple[int, ...] | None = None,
              costly_bots: tuple[int, ...] = (), **functions: Callable) -> None:
    """Register a game's compiled rule functions for its tables NamedTuple class.

    Every name of `FUNCTIONS` is required (`copy_position(tables, pos)` takes the tables too,
    so a game can copy only what changes), those of `OPTIONAL` may be given. The tables class
    must start with the `HEADER` fields. Call at import of the game's module, before any
    driver compiles.

    `no_alloc=True` promises that the functions run at every decision (`PER_DECISION`) allocate
    no arrays, nor does anything they call: the drivers then call them without numba's
    reference counting (they must be compiled with `_nrt=False` themselves). With reference
    counting, every call adds and drops a reference to each array in the tables, position and
    scratch; for a game with dozens of arrays that costs more per decision than its rules. The
    promise covers `copy_into`, `winner`, `rollout` and `reset` too where the game gives them
    (`PER_PLAYOUT`: the search calls them at every iteration; `PER_GAME`: the chunk driver, once
    per game); their defaults allocate and keep the counting.

    `rollout_bots`: the codes of the game's bots whose line-ups of one bot (every seat, same
    parameters, no pie rule) the chunk driver plays a game at a time by the game's `rollout`
    (None: every bot of the game's). Name the cheap ones: a random game's decisions cost about
    what a call per decision costs, which the rollout saves, while a greedy decision costs far
    more, and a line-up that plays by `rollout` compiles the rollout's loop too (HEXFLOW Race's
    first greedy run: about 20% more compile). The other line-ups play one decision at a time;
    the games are the same (sim.testing.check_chunk_driver).

    `costly_bots`: the codes of the game's bots that `costly_move` plays and `bot_move` leaves
    out: bots whose code is large and rarely seated (HEXFLOW Race's lookahead, about a fifth of
    a first greedy run's compile). The bot is chosen at run time, so a driver that can play a
    bot compiles it for every line-up; the drivers therefore take `costly` (None for a line-up
    without a costly seat) and call `costly_move` only under `if costly is None: ... else:`,
    which numba prunes before typing, as it prunes the search bot on its tree. A line-up without
    a costly seat compiles nothing of them; one with compiles the drivers once more. A costly
    bot is never a rollout's: a line-up of one plays a decision at a time (`engine.one_bot`),
    and the search's rollouts and prior play `bot_move`'s bots."""
    if rollout_bots is not None and "rollout" not in functions:
        raise TypeError(f"implement({tables_cls.__name__}): rollout_bots without a rollout")
    if bool(costly_bots) != ("costly_move" in functions):
        raise TypeError(f"implement({tables_cls.__name__}): costly_bots and costly_move go together")
    missing = sorted(set(FUNCTIONS) - set(functions))
    extra = sorted(set(functions) - set(FUNCTIONS) - set(OPTIONAL))
    if missing or extra:
        raise TypeError(f"implement({tables_cls.__name__}): missing {missing}, unknown {extra}")
    if tuple(getattr(tables_cls, "_fields", ())[:len(HEADER)]) != HEADER:
        raise TypeError(f"{tables_cls.__name__} must start with the fields {HEADER}")
    if tables_cls in _IMPLEMENTED:
        return
    _IMPLEMENTED[tables_cls] = dict(functions)
    _ROLLOUT_BOTS[tables_cls] = None if rollout_bots is None else tuple(int(c) for c in rollout_bots)
    _COSTLY_BOTS[tables_cls] = tuple(int(c) for c in costly_bots)

    def is_mine(t) -> bool:
        return isinstance(t, types.BaseNamedTuple) and t.instance_class is tables_cls

    for name, fn in functions.items():
        options = {"_nrt": False} if no_alloc and name in PER_DECISION + PER_PLAYOUT + PER_GAME else {}
        label = f"forward_{name}.{tables_cls.__module__.replace('.', '_')}.{tables_cls.__qualname__}"
        # bot_move forwards to the game's compiled function instead of compiling its body as the
        # overload's: a game's own rollout calls that function too, and the body (a greedy bot:
        # Race's 10 s of compile, Battle's 9 s) then compiles once, not once more for the drivers.
        # The forwarding call costs nothing next to a bot's decision.
        body = fn if name == "bot_move" and "rollout" in functions else getattr(fn, "py_func", fn)
        overload(_GENERIC[name], jit_options=options, strict=False)(_forwarder(fn, is_mine, label, body))
        if name == "rollout":
            overload(own_rollout, jit_options=options, strict=False)(_forwarder(fn, is_mine, label + ".own"))
    _defaults(tables_cls, functions, is_mine)
    gives = "rollout" in functions

    def ov_has(t):
        if is_mine(t):
            return _named(lambda t: gives, f"has_rollout.{tables_cls.__module__.replace('.', '_')}."
                                           f"{tables_cls.__qualname__}")
    overload(has_rollout, strict=False)(ov_has)


def plays_by_rollout(tables_cls: type, code: int) -> bool:
    """Whether the chunk driver plays a line-up of bot `code` alone by the game's own `rollout`
    (`implement`'s rollout_bots)."""
    if "rollout" not in implemented(tables_cls):
        return False
    bots = _ROLLOUT_BOTS.get(tables_cls)
    return bots is None or int(code) in bots


def costly_bots(tables_cls: type) -> tuple[int, ...]:
    """The codes of the game's bots that `costly_move` plays (`implement`'s costly_bots)."""
    return _COSTLY_BOTS.get(tables_cls, ())


def implemented(tables_cls: type) -> set[str]:
    """The names of the functions a game gave `implement` for this tables class (its optional
    ones among them; empty if it registered none)."""
    return set(_IMPLEMENTED.get(tables_cls, ()))


def _defaults(tables_cls: type, functions: dict, is_mine: Callable) -> None:
    """The optional functions a game did not give, as `OPTIONAL`'s documentation says."""
    where = f"{tables_cls.__module__.replace('.', '_')}.{tables_cls.__qualname__}"
    if "new_position_at" not in functions:
        # the game's new_position inlined into the forwarding function: one compiled function
        # (HEXFLOW Race's first greedy run: about 4,000 LLVM instructions less to optimise).
        # Only one compiled with reference counting, as the forwarder is: a body written without
        # it, inlined under it, would release arrays its callees hand back unowned.
        setup = functions["new_position"]
        if getattr(setup, "targetoptions", {}).get("_nrt", True):
            setup = kernel(inline="always")(setup.py_func)

        def ov_at(t, rng, game_index):
            if is_mine(t):
                return _named(lambda t, rng, game_index: setup(t, rng), f"forward_new_position_at.{where}")
        overload(new_position_at, strict=False)(ov_at)
    if "reset" not in functions:
        def ov_reset(t, pos, rng, game_index):
            if is_mine(t):
                return _named(lambda t, pos, rng, game_index: False, f"default_reset.{where}")
        overload(reset, strict=False)(ov_reset)
    if "copy_into" not in functions:
        def ov_copy(t, dst, src):
            if is_mine(t):
                return _named(lambda t, dst, src: False, f"default_copy_into.{where}")
        overload(copy_into, strict=False)(ov_copy)
    if "winner" not in functions:
        def ov_winner(t, pos, res):
            if is_mine(t):
                def impl(t, pos, res):
                    result(t, pos, False, res)
                    return res[WINNER]
                return _named(impl, f"default_winner.{where}")
        overload(winner, strict=False)(ov_winner)
    if "copy_position" not in functions:
        def ov_copy_position(t, pos):
            if is_mine(t):
                return _named(_copy_every_array(pos), f"default_copy_position.{where}")
        overload(copy_position, strict=False)(ov_copy_position)
    for name, fallback in (("sample_hidden", _hides_nothing), ("new_scratch", _no_scratch)):
        if name not in functions:
            overload(_GENERIC[name], strict=False)(_forwarder(fallback, is_mine, f"default_{name}.{where}"))
    if "costly_move" not in functions:  # never called: the drivers pass costly=None for such a game
        def ov_costly(t, pos, seat, code, par, scratch, rng):
            if is_mine(t):
                return _named(lambda t, pos, seat, code, par, scratch, rng: -1, f"no_costly_move.{where}")
        overload(costly_move, strict=False)(ov_costly)
    if "rollout" not in functions:
        def ov_own(t, pos, code, par, scratch, rng, cap):
            if is_mine(t):
                return _named(lambda t, pos, code, par, scratch, rng, cap: True, f"no_own_rollout.{where}")
        overload(own_rollout, strict=False)(ov_own)

        def ov_rollout(t, pos, code, par, scratch, rng, cap):
            if is_mine(t):
                return _named(lambda t, pos, code, par, scratch, rng, cap:
                              step_rollout(t, pos, code, par, scratch, rng, cap), f"default_rollout.{where}")
        overload(rollout, strict=False)(ov_rollout)


@kernel
def _hides_nothing(tables, pos, seat, rng):
    """The default `sample_hidden`: an open game has nothing to redraw."""


@kernel
def _no_scratch(tables):
    """The default `new_scratch`: bots that need no working arrays."""
    return np.zeros(0, np.int64)


def _copy_every_array(pos_type) -> Callable:
    """The default `copy_position` for a position type (a NamedTuple): a new position of its class
    with every array field copied and every other field as it is, written out for the type."""
    if not isinstance(pos_type, types.BaseNamedTuple):
        raise TypeError(f"the default copy_position needs a NamedTuple position, not {pos_type}")
    fields = ", ".join(f"pos.{name}.copy()" if isinstance(ty, types.Array) else f"pos.{name}"
                       for name, ty in zip(pos_type.fields, pos_type.types, strict=True))
    scope: dict = {"Position": pos_type.instance_class}
    exec(f"def copy_position(t, pos):\n    return Position({fields})\n", scope)  # noqa: S102  (from the type)
    return scope["copy_position"]


def _named(impl: Callable, label: str) -> Callable:
    """Give a forwarding lambda its own qualified name. numba names a compiled function by
    module, qualified name and argument types (plus a counter local to the process); lambdas of
    one arity would share all three (e.g. `apply` and `sample_hidden`, both (tables, position,
    int64, generator)), so two cached drivers compiled in different processes could link one
    forwarder's code for the other's. A compiled game function is bound as itself: its own
    module and name are unique already."""
    impl.__qualname__ = impl.__name__ = label
    return impl


def _forwarder(fn: Callable, is_mine: Callable, label: str, body: Callable | None = None) -> Callable:
    """An overload body that, when the first argument is this game's tables, gives `fn`'s own
    Python function as the implementation (one call from the driver, not a forwarding call and
    then fn's; every call hands on each array of the tables and position), or for a plain
    callable a lambda forwarding to it. body: fn itself to forward even to a compiled function
    (it then compiles once, however many callers' flags numba compiles the overload for).
    One per arity, since numba matches the overload's signature to the call's (argument names
    aside: strict=False)."""
    import inspect

    body = getattr(fn, "py_func", fn) if body is None else body
    py = body if body is not fn else None
    n = len(inspect.signature(py or fn).parameters)
    if n == 1:
        def ov1(t):
            if is_mine(t):
                return py or _named(lambda t: fn(t), label)
        return ov1
    if n == 2:
        def ov2(t, a):
            if is_mine(t):
                return py or _named(lambda t, a: fn(t, a), label)
        return ov2
    if n == 3:
        def ov3(t, a, b):
            if is_mine(t):
                return py or _named(lambda t, a, b: fn(t, a, b), label)
        return ov3
    if n == 4:
        def ov4(t, a, b, c):
            if is_mine(t):
                return py or _named(lambda t, a, b, c: fn(t, a, b, c), label)
        return ov4
    if n == 7:
        def ov7(t, a, b, c, d, e, f):
            if is_mine(t):
                return py or _named(lambda t, a, b, c, d, e, f: fn(t, a, b, c, d, e, f), label)
        return ov7
    raise TypeError(f"{fn}: no engine function takes {n} arguments")


# ---- shared pieces every game may use -------------------------------------------------------
@kernel(_nrt=False)
def uniform_move(tables, pos, rng, buf):
    """A legal move drawn uniformly (one draw); -1 if there is none. Compiled without reference
    counting (it allocates nothing and returns a number), so a call does not take a reference to
    every array of the tables and position at each decision; a game whose legal_moves does count
    references still does so inside its own function."""
    k = legal_moves(tables, pos, buf)
    if k == 0:
        return -1
    return buf[below(rng, k)]


def _copy_arrays(dst, src):
    raise NotImplementedError("compiled only")


def _copy_source(i: int, ndim: int) -> str:
    """Field i of src into dst's, as loops over its ndim axes (numba copies an array in place,
    without reference counting, only elementwise: no slice assignment, no reshape worth its
    call); skipped where both are one buffer, an array a position's copies share on purpose."""
    idx = ", ".join(f"i{k}" for k in range(ndim))
    lines = [f"    d, s = dst[{i}], src[{i}]", "    if d.ctypes.data != s.ctypes.data:"]
    for k in range(ndim):
        lines.append("    " * (k + 2) + f"for i{k} in range(d.shape[{k}]):")
    lines.append("    " * (ndim + 2) + f"d[{idx}] = s[{idx}]")
    return "\n".join(lines) + "\n"


@overload(_copy_arrays, jit_options={"_nrt": False})
def _ov_copy_arrays(dst, src):
    """`_copy_source` for every field of a NamedTuple of arrays, written out for the position's
    type (numba cannot loop over the fields of a heterogeneous tuple pairwise)."""
    if not isinstance(dst, types.BaseNamedTuple) or dst != src:
        return None
    for name, ty in zip(dst.fields, dst.types, strict=True):
        if not isinstance(ty, types.Array):
            raise TypeError(f"copy_fields: field {name} of {dst} is not an array")
    body = "".join(_copy_source(i, ty.ndim) for i, ty in enumerate(dst.types))
    scope: dict = {}
    exec(f"def copy_arrays(dst, src):\n{body}", scope)  # noqa: S102  (source built from the type)
    return scope["copy_arrays"]


@kernel(_nrt=False)
def copy_fields(tables, dst, src):
    """The generic `copy_into` for a position that is a NamedTuple of arrays whose
    `copy_position` copies every array but those it shares with the original on purpose (work
    rows): every array of src into dst's, in place, where they are not one buffer; returns True. dst
    must be a copy (copy_position) of a position of the same tables, so it shares what src
    shares. A game whose copy does more (Hexa-Trex's gives the copy its own id in a store the
    copies share) keeps the default copy_into or writes its own. Returns a flag, not dst: a
    position returned from a function compiled without reference counting would reach its
    caller without the reference the caller then drops."""
    _copy_arrays(dst, src)
    return True
