"""The one interface every game implements (see DESIGN.md, "The one interface").

A game is a `Game` subclass registered in `sim.games`. The runner, statistics, report and CLI
only use what is declared here; nothing outside `sim/games/<name>/` knows a game's rules.

Contract of `play_chunk` (the hot path):
- plays games `first_game .. first_game + n_games - 1` of a run, each seeded by
  `sim.engine.rng.game_seed(run_seed, game_index)` alone (bit-identical for any chunking);
- one compiled call for the whole chunk: no Python per move or per game;
- returns equal-length numpy columns: `winner` (int8, seat index or -1 for a draw),
  `end_reason` (int8 code, index into `Game.end_reasons`), `turns` (int32), `first_seat` (int8),
  `score_<seat name>` for every seat, then game-specific columns named `<game>_<what>`.
  The runner adds variant, variant_hash, game, seed, rotation and bot_<seat> columns.

`play_traced` replays the same game move by move (same seed, same moves as the chunk kernel)
and returns a `Trace`; `verify_trace` re-checks it with the game's position API (every move
legal, pieces conserved, declared result correct). The shared check suite
`sim.testing.check_game` runs both (and the other hooks) on every shipped variant.
"""

from __future__ import annotations

import difflib
import hashlib
import inspect
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sim.errors import VariantError

_KINDS = {"int": int, "float": float, "bool": bool, "str": str, "list": list, "table": dict}


@dataclass(frozen=True)
class Param:
    """One rule (or bot) parameter: the schema drives validation, `hexsim rules` and the docs."""

    name: str
    kind: str  # "int" | "float" | "bool" | "str" | "list" | "table" (names -> numbers, see check)
    default: Any
    doc: str
    choices: tuple | None = None  # allowed values (for str / int), or None
    low: float | None = None  # inclusive range for int / float
    high: float | None = None
    seed_text: str = ""  # the rule-text sentence this reading resolves (docs)
    per_seat: bool = False  # also accepts a table by seat name, e.g. { A = 3, B = 4 }
    # a parameter added after variants were published, whose default plays the games as they were:
    # at its default it is left out of the variant hash, so variants that do not use it keep theirs
    omit_default: bool = False

    def allowed(self) -> str:
        if self.kind == "table":
            rng = "" if self.low is None and self.high is None else f" in [{self.low}, {self.high}]"
            return f"a table of {', '.join(self.default)} (whole numbers{rng}; names left out keep the default)"
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.low is not None or self.high is not None:
            lo = "-inf" if self.low is None else self.low
            hi = "inf" if self.high is None else self.high
            return f"{self.kind} in [{lo}, {hi}]"
        return f"a {self.kind}"

    def _check_table(self, value: dict, where: str) -> dict:
        """A table parameter (e.g. points per pattern): known names only, whole numbers in range;
        returns the default table with the given entries replaced, in the default's order."""
        out = dict(self.default)
        for k, v in value.items():
            if k not in out:
                raise VariantError(f"{where}: {self.name}.{k}: unknown; allowed: {', '.join(out)}")
            if not isinstance(v, int) or isinstance(v, bool) or \
                    self.low is not None and v < self.low or self.high is not None and v > self.high:
                raise VariantError(f"{where}: {self.name}.{k} = {v!r}; allowed: {self.allowed()}")
            out[k] = v
        return out

    def check_by_seat(self, value: Any, where: str, seats: Sequence[str]) -> Any:
        """A per-seat parameter's value: one value for every seat, or a table by seat name (seats
        not named keep the default). Returns one value when every seat holds the same (so a table
        that says nothing new plays, and hashes, as the plain value), else {seat: value} for every
        seat in seat order."""
        if not isinstance(value, dict):
            return self.check(value, where)
        if not self.per_seat:
            raise VariantError(f"{where}: {self.name} takes one value, not a table by seat; allowed: "
                               f"{self.allowed()}")
        unknown = [k for k in value if k not in seats]
        if unknown:
            raise VariantError(f"{where}: {self.name}.{unknown[0]}: no such seat; seats here: "
                               f"{', '.join(seats)}")
        out = {s: self.check(value.get(s, self.default), f"{where}: {self.name}.{s}"
                             if s in value else where) for s in seats}
        first = out[seats[0]]
        return first if all(v == first for v in out.values()) else out

    def check(self, value: Any, where: str) -> Any:
        """Return the value (ints widened to float where a float is wanted) or raise VariantError."""
        want = _KINDS[self.kind]
        ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise VariantError(f"{where}: {self.name} = {value!r} is {type(value).__name__}; "
                               f"allowed: {self.allowed()}")
        if self.kind == "table":
            return self._check_table(value, where)
        if self.choices is not None and self.kind != "list" and value not in self.choices:
            raise VariantError(f"{where}: {self.name} = {value!r}; allowed: {self.allowed()}")
        if self.low is not None and value < self.low or self.high is not None and value > self.high:
            raise VariantError(f"{where}: {self.name} = {value!r} out of range; allowed: {self.allowed()}")
        return value


@dataclass(frozen=True)
class Bot:
    """A bot a seat can be given. `code` is what the compiled kernel dispatches on."""

    name: str
    code: int
    doc: str
    params: tuple[Param, ...] = ()


def oracle_of(bot: Bot, sees: str) -> Bot:
    """The bot's ceiling of skill, named `oracle` (sim.stats.skill.CEILING_BOTS): the same bot,
    code and parameters with `sees = "all"` by default. `sees` says what it sees that a fair seat
    does not. It cheats, so it is never a seat whose verdict counts."""
    import dataclasses

    if not any(p.name == "sees" for p in bot.params):
        raise TypeError(f"oracle_of: bot {bot.name!r} has no 'sees' parameter")
    return dataclasses.replace(
        bot, name="oracle",
        params=tuple(dataclasses.replace(p, default="all") if p.name == "sees" else p for p in bot.params),
        doc=f"Cheats: {sees}, so its strength is the ceiling of skill, never a seat whose verdict counts. "
            f"Otherwise the {bot.name} bot's parameters and defaults: {bot.doc}")


@dataclass
class SeatBot:
    """A resolved seat: which bot, with which parameters (defaults filled in)."""

    bot: Bot
    params: dict[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in sorted(self.params.items())
                         if v != next(p.default for p in self.bot.params if p.name == k))
        return f"{self.bot.name}({extra})" if extra else self.bot.name

    def param_vector(self) -> np.ndarray:
        """Bot parameters as float64, in the order the bot declares them (for kernels); a str
        parameter as the index of its value among its choices."""
        return np.array([float(p.choices.index(self.params[p.name])) if p.kind == "str" else float(self.params[p.name])
                         for p in self.bot.params], dtype=np.float64)


@dataclass
class Trace:
    """One game move by move: for replay pictures, scenario tests and trace verification.

    `moves` are human-readable move records (dicts with at least "seat" and "move"),
    `row` is the game's outcome row exactly as `play_chunk` would give it,
    `data` holds whatever the game needs to draw or verify (e.g. board states).
    """

    game: str
    rules: dict[str, Any]
    seat_names: list[str]
    game_index: int
    run_seed: int
    moves: list[dict[str, Any]]
    row: dict[str, Any]
    data: dict[str, Any] = field(default_factory=dict)


# First-player compensation every 2-player engine game offers (sim/engine/drivers.py plays it)
SWAP = Param(
    "swap", "bool", False,
    "Pie rule (a compensation, not on the card): at the second player's first decision, after the first "
    "player's first turn, the second player may take over the first player's position instead of moving; "
    "the players then exchange seats and the first player moves next from the other seat. Each bot "
    "decides by its own judgement (greedy: the game's evaluation; mcts: its search; random: a coin). "
    "Outcome columns follow the players, and `swapped` says which games swapped.",
    omit_default=True)


def seat_values(rules: dict[str, Any], name: str, seats: Sequence[str]) -> list[Any]:
    """A per-seat parameter's value for each seat, in seat order (one value or a table)."""
    value = rules[name]
    return [value[s] for s in seats] if isinstance(value, dict) else [value] * len(seats)


class Game:
    """Base class: declare metadata and schema, implement the entry points."""

    name: str = ""
    title: str = ""
    description: str = ""
    params: tuple[Param, ...] = ()
    bots: tuple[Bot, ...] = ()
    end_reasons: tuple[str, ...] = ()
    # end reasons that are not a win on the board (stalemate rules, turn caps, draws): the report
    # warns when one of them decides most games
    non_win_end_reasons: tuple[str, ...] = ()
    # end reasons read together, as the game's docs group them: (group name, its reasons); a
    # reason in no group is a group of its own (`end_reason_groups`)
    end_reason_grouping: tuple[tuple[str, tuple[str, ...]], ...] = ()
    default_bot: str = "greedy"

    # ---- schema -------------------------------------------------------------------------------
    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def bot(self, name: str, where: str) -> Bot:
        for b in self.bots:
            if b.name == name:
                return b
        raise VariantError(f"{where}: unknown bot {name!r} for {self.name}; "
                           f"available: {', '.join(b.name for b in self.bots)}")

    def resolve_rules(self, rules: dict[str, Any], where: str) -> dict[str, Any]:
        """Fill defaults, reject unknown keys (naming the closest) and bad values."""
        names = [p.name for p in self.params]
        out = self.defaults()
        tables = {}
        for key, value in rules.items():
            if key not in names:
                raise VariantError(unknown_key(where, "rules", key, names))
            if isinstance(value, dict) and self.param(key).kind != "table":
                tables[key] = value  # by seat: checked once the seats are known
            else:
                out[key] = self.param(key).check(value, f"{where}: [rules]")
        seats = self.seat_names(out)
        for key, value in tables.items():
            out[key] = self.param(key).check_by_seat(value, f"{where}: [rules]", seats)
        if out.get("swap") and len(seats) != 2:
            raise VariantError(f"{where}: [rules]: swap = true needs 2 players (these rules seat "
                               f"{len(seats)})")
        self.validate(out, where)
        return out

    # ---- per-game hooks -----------------------------------------------------------------------
    def seat_names(self, rules: dict[str, Any]) -> list[str]:
        """Names of the seats under these rules (e.g. ["A", "B"])."""
        raise NotImplementedError

    def validate(self, rules: dict[str, Any], where: str) -> None:
        """Reject impossible set-ups (VariantError naming the file and key)."""

    def warnings(self, rules: dict[str, Any]) -> list[str]:
        """Where the rule text contradicts itself for these rules: one line each."""
        return []

    def engine_replay(self, rules: dict[str, Any], seats: Sequence[SeatBot], game_index: int,
                      run_seed: int):
        """(engine tables, decision records) of one game, for games (or modes) whose rules are
        engine functions (sim/engine/drivers.py); None otherwise (the play metrics then say so)."""
        return None

    def check_seats(self, rules: dict[str, Any], seats: dict[str, SeatBot], where: str) -> None:
        """Reject a bot these rules cannot seat (VariantError naming the seat); default: any."""

    def bot_defaults(self, rules: dict[str, Any], bot: str) -> dict[str, Any]:
        """Parameter defaults of `bot` under these rules where they differ from the bot's declared
        ones (e.g. a search budget measured per mode); a seat that names a parameter keeps its
        value. Applied where a seat is resolved (variant files, --bot specs, the bench), so the
        recorded parameters are the ones played. Default: none."""
        return {}

    def bot_params(self, rules: dict[str, Any], bot: Bot) -> dict[str, Any]:
        """Every parameter of `bot` as a seat under these rules starts from: its declared defaults,
        then `bot_defaults` (a fresh dict each call)."""
        return {**{p.name: p.default for p in bot.params}, **self.bot_defaults(rules, bot.name)}

    def code_hash(self) -> str:
        """16 hex digits over the source that decides this game's outcomes: the package that
        defines the Game class (or its module, outside a package), the engine package (sim/engine/:
        the interface, the shared drivers, the search bot, the generator, the hex grid) and this
        file. A run folder records it, so games played by edited rules code are never
        mixed into an older run's table."""
        sim_root = Path(__file__).resolve().parent.parent
        module = sys.modules[type(self).__module__]
        package = sys.modules.get(module.__package__ or "")
        if package is not None and getattr(package, "__file__", None):
            files = sorted(Path(package.__file__).resolve().parent.rglob("*.py"))
        else:
            files = [Path(inspect.getfile(type(self))).resolve()]
        h = hashlib.sha256()
        shared = sorted((sim_root / "engine").glob("*.py"))  # the interface, drivers, search, generator
        shared.append(Path(__file__).resolve())
        for path in [*shared, *files]:
            if path.exists():
                h.update(path.name.encode() + b"\0" + path.read_bytes())
        return h.hexdigest()[:16]

    # ---- compile ------------------------------------------------------------------------------
    # The independent parts of warm() (e.g. a game's modes, each with its own kernels) and a rough
    # empty-cache compile time of each, as wall seconds of `hexsim warm` on a 2-core machine (two
    # parts at a time, which runs each slower than alone): `hexsim warm` compiles every game's
    # parts in parallel processes, longest first, and tells the user the total from these (so
    # keep them current: a part estimated short starts last, and the total misleads); `make bench`
    # times each part alone from an empty cache.
    warm_parts: tuple[tuple[str, float], ...] = (("all", 30.0),)

    def warm(self, part: str = "all") -> None:
        """Compile the kernels of one part of `warm_parts` ("all": every part) into numba's
        on-disk cache (`make install` does this so the first run starts playing at once)."""

    def modes(self) -> list[tuple[str, dict[str, Any]]]:
        """One (label, rule overrides) per mode of play: `make bench` times each and
        `hexsim rules` prints each one's warnings. A one-mode game keeps this default."""
        return [("default", {})]

    def play_chunk(self, rules: dict[str, Any], seats: Sequence[SeatBot], first_game: int,
                   n_games: int, run_seed: int) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def play_traced(self, rules: dict[str, Any], seats: Sequence[SeatBot], game_index: int,
                    run_seed: int) -> Trace:
        raise NotImplementedError

    def verify_trace(self, trace: Trace) -> None:
        """Replay the trace with the position API; raise AssertionError on any illegal move,
        unconserved piece or wrong declared result."""
        raise NotImplementedError

    def draw(self, trace: Trace, path: str, every_move: bool = False) -> None:
        """Draw the board (after every move or at the end) with the move list, to a PNG."""
        raise NotImplementedError

    def report_metrics(self, df, rules: dict[str, Any]) -> list[dict[str, Any]]:
        """Game-specific report rows: dicts with metric, value and, for proportions,
        successes and n (the report adds intervals). `df` is the outcome table as stored
        (end_reason as names); use `end_reason_is` to test it."""
        return []

    def end_reason_is(self, df, name: str) -> np.ndarray:
        """Boolean mask of rows ending by `name`, for a stored table (names) or a raw chunk
        frame (codes) alike."""
        return end_reason_mask(df, self.end_reasons, name)


def end_reason_mask(df, end_reasons: Sequence[str], name: str) -> np.ndarray:
    """Rows of `df` ending by `name`: end_reason holds names (stored tables) or codes (chunks)."""
    col = df["end_reason"]
    if getattr(col.dtype, "kind", "O") in "iu":
        return (col == list(end_reasons).index(name)).to_numpy()
    return (col.astype(str) == name).to_numpy()


def unknown_key(where: str, section: str, key: str, valid: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, list(valid), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{where}: unknown key {section}.{key}{hint}; allowed: {', '.join(valid)}"


def end_reason_groups(game: Game | None, reasons: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Group name -> its end reasons among `reasons`, in the game's order: its
    `end_reason_grouping`, then every other reason alone."""
    grouping = dict(getattr(game, "end_reason_grouping", ()) or ())
    out: dict[str, tuple[str, ...]] = {}
    for r in reasons:
        name = next((g for g, members in grouping.items() if r in members), r)
        out[name] = (*out.get(name, ()), r)
    return out


# end reasons that are not a win on the board are named like these (or declared by the game)
NON_WIN_WORDS = ("stalemate", "turn_cap", "cap", "draw", "timeout", "time_out", "exhaust",
                 "closest", "no_move", "limit", "tiebreak", "tie_break", "deadlock")


def non_win_reasons(game, end_reasons=None, turn_cap_reason: str | None = None) -> set[str]:
    """End reasons that are not a win on the board: the game's declared ones
    (`non_win_end_reasons`), the turn cap, and those of `end_reasons` (default: the game's)
    named like a stalemate, time-out or tiebreak rule (NON_WIN_WORDS). The balance report and
    tune count games decided off the board with this one list."""
    declared = set(getattr(game, "non_win_end_reasons", ()) or ())
    if turn_cap_reason:
        declared.add(turn_cap_reason)
    pattern = re.compile("|".join(NON_WIN_WORDS))
    reasons = game.end_reasons if end_reasons is None else end_reasons
    return declared | {r for r in reasons if pattern.search(r.lower())}
