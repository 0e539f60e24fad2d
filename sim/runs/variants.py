"""Variant files: load TOML, follow `extends`, validate against the game's schema, hash.

A variant is data only (no code execution). It is named by a path, or as `game/name` for the
shipped ones under `variants/` and for those in the folders of HEXSIM_VARIANTS (os.pathsep-separated,
each holding `<game>/<name>.toml`; searched after the shipped folder, first match wins). Every
problem is a `VariantError` naming the file and the key.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim import games
from sim.errors import VariantError
from sim.games.base import Game, SeatBot, unknown_key

VARIANTS_DIR = Path(__file__).resolve().parents[2] / "variants"
TOP_KEYS = ("game", "description", "extends", "rules", "seats")


@dataclass
class Variant:
    """A resolved variant: every rule filled in, a bot with parameters on every seat."""

    name: str  # "game/stem", e.g. "hexflow/race"
    game: Game
    description: str
    rules: dict[str, Any]
    seats: dict[str, SeatBot]  # seat name -> bot, in seat order
    path: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def seat_names(self) -> list[str]:
        return list(self.seats)

    def resolved(self) -> dict[str, Any]:
        """The exact game set-up, as data: what the hash covers (not the description)."""
        return {
            "game": self.game.name,
            "rules": self.rules,
            "seats": {s: {"bot": b.bot.name, "params": b.params} for s, b in self.seats.items()},
        }

    @property
    def hash(self) -> str:
        """16 hex digits over `resolved()`, leaving out parameters added later (`omit_default`)
        while they hold their default."""
        spec = self.resolved()
        params = {p.name: p for p in self.game.params}
        spec["rules"] = {k: v for k, v in spec["rules"].items()
                         if not (k in params and params[k].omit_default and v == params[k].default)}
        text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "hash": self.hash,
                "path": str(self.path) if self.path else None, "overrides": self.overrides,
                **self.resolved()}

    def warnings(self) -> list[str]:
        return self.game.warnings(self.rules)


def search_path() -> list[Path]:
    """Folders holding `<game>/<name>.toml` variants: the shipped ones, then HEXSIM_VARIANTS."""
    extra = []
    for entry in os.environ.get("HEXSIM_VARIANTS", "").split(os.pathsep):
        if entry.strip():
            folder = Path(entry.strip()).expanduser()
            if not folder.is_dir():
                raise VariantError(f"HEXSIM_VARIANTS: {entry.strip()}: no such folder; allowed: "
                                   f"folders holding <game>/<name>.toml, separated by {os.pathsep!r}")
            extra.append(folder)
    return [VARIANTS_DIR, *extra]


def find(spec: str) -> Path:
    """A path as given, or `game/name` (no .toml) on the search path."""
    p = Path(spec)
    if p.is_file():
        return p
    if not p.suffix:
        for folder in search_path():
            if (folder / (spec + ".toml")).is_file():
                return folder / (spec + ".toml")
    if p.suffix == ".toml" and not p.exists():
        raise VariantError(f"{spec}: no such variant file")
    raise VariantError(f"{spec}: no such variant file or shipped variant; "
                       f"shipped: {', '.join(list_shipped()) or 'none'}"
                       + ("" if os.environ.get("HEXSIM_VARIANTS") else
                          " (more from folders named by HEXSIM_VARIANTS)"))


def list_shipped() -> list[str]:
    """`game/name` of every variant on the search path (shipped first; a name found twice is the
    shipped one)."""
    names: dict[str, Path] = {}
    for folder in search_path():
        for p in sorted(folder.glob("*/*.toml")):
            names.setdefault(f"{p.parent.name}/{p.stem}", p)
    return sorted(names)


def name_of(path: Path) -> str | None:
    """`game/name` of a file on the search path, None elsewhere."""
    path = path.resolve()
    for folder in search_path():
        try:
            rel = path.relative_to(folder.resolve())
        except ValueError:
            continue
        if len(rel.parts) == 2:
            return f"{rel.parent}/{rel.stem}"
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise VariantError(f"{path}: no such variant file") from None
    except tomllib.TOMLDecodeError as e:
        raise VariantError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise VariantError(f"{path}: not valid UTF-8 (byte {e.start + 1} is 0x{e.object[e.start]:02x}); "
                           "save the file as UTF-8") from None
    except OSError as e:
        raise VariantError(f"{path}: cannot read: {e.strerror}") from None
    for key in data:
        if key not in TOP_KEYS:
            raise VariantError(unknown_key(str(path), "top level", key, TOP_KEYS).replace(
                "top level.", ""))
    for key in ("rules", "seats"):
        if key in data and not isinstance(data[key], dict):
            raise VariantError(f"{path}: [{key}] must be a table")
    for key in ("game", "description", "extends"):
        if key in data and not isinstance(data[key], str):
            raise VariantError(f"{path}: {key} must be a string")
    return data


def _merged(path: Path, stack: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The file's data with its `extends` chain applied (child keys win, tables merge)."""
    path = path.resolve()
    if path in stack:
        chain = " -> ".join(p.name for p in (*stack, path))
        raise VariantError(f"{stack[0]}: extends cycle: {chain}")
    data = _read(path)
    if "extends" not in data:
        return data
    ref = data["extends"]
    base_path = path.parent / ref
    if not base_path.is_file():
        try:
            base_path = find(ref)
        except VariantError:
            raise VariantError(f"{path}: extends = {ref!r}: no such file (relative to "
                               f"{path.parent}) or shipped variant") from None
    base = _merged(base_path, (*stack, path))
    if "game" in data and "game" in base and data["game"] != base["game"]:
        raise VariantError(f"{path}: game = {data['game']!r} but it extends a "
                           f"{base['game']!r} variant")
    out = copy.deepcopy(base)
    for key, value in data.items():
        if key in ("rules", "seats"):
            out.setdefault(key, {}).update(value)
        elif key != "extends":
            out[key] = value
    return out


def _seat(game: Game, seat: str, spec: Any, where: str, rules: dict[str, Any]) -> SeatBot:
    if isinstance(spec, str):
        spec = {"bot": spec}
    if not isinstance(spec, dict) or "bot" not in spec:
        raise VariantError(f"{where}: seats.{seat} must be a bot name or a table with 'bot'")
    bot = game.bot(spec["bot"], f"{where}: seats.{seat}")
    names = [p.name for p in bot.params]
    params = game.bot_params(rules, bot)
    for key, value in spec.items():
        if key == "bot":
            continue
        if key not in names:
            raise VariantError(unknown_key(where, f"seats.{seat}", key, names or ["(none)"]))
        params[key] = next(p for p in bot.params if p.name == key).check(
            value, f"{where}: seats.{seat}")
    return SeatBot(bot, params)


def resolve(data: dict[str, Any], name: str, where: str, path: Path | None = None,
            overrides: dict[str, Any] | None = None) -> Variant:
    """Build a Variant from merged file data (plus `section.key` overrides, e.g. from a sweep)."""
    data = copy.deepcopy(data)
    overrides = dict(overrides or {})
    if "game" not in data:
        raise VariantError(f"{where}: missing key 'game'; available: {', '.join(games.available())}")
    game = games.get(data["game"], f"{where}: game")
    apply_paths(data, overrides, game, where)
    rules = game.resolve_rules(data.get("rules", {}), where)
    seat_names = game.seat_names(rules)
    given = data.get("seats", {})
    for seat in given:
        if seat not in seat_names:
            raise VariantError(unknown_key(where, "seats", seat, seat_names))
    seats = {s: _seat(game, s, given.get(s, game.default_bot), where, rules) for s in seat_names}
    game.check_seats(rules, seats, where)
    return Variant(name=name, game=game, description=data.get("description", ""), rules=rules,
                   seats=seats, path=path, overrides=overrides)


# ---- paths: one value of a variant, named by dots -------------------------------------------------
PATH_HELP = ("rules.NAME, rules.NAME.SEAT (one seat's entry of a per-seat value), "
             "rules.NAME.KEY[.KEY...] (an entry of a nested table), seats.SEAT (a bot name), "
             "seats.SEAT.bot or seats.SEAT.PARAM (a bot parameter)")


def split_path(dotted: str) -> list[str]:
    """`rules.hand_size.B` -> ["rules", "hand_size", "B"]; an empty part or another first part
    is a VariantError naming the path and what is allowed."""
    parts = dotted.split(".")
    if parts[0] not in ("rules", "seats") or len(parts) < 2 or any(not p.strip() for p in parts):
        raise VariantError(f"{dotted}: not a variant path; allowed: {PATH_HELP}")
    return [p.strip() for p in parts]


def apply_paths(data: dict[str, Any], overrides: dict[str, Any], game: Game, where: str) -> None:
    """Set every `path -> value` of `overrides` in merged variant data (in place).

    `rules.NAME` replaces the rule's value (a scalar, list or table alike). A longer path sets
    one entry inside the rule's value, starting from the variant's value or the game's default:
    inside a table it sets (or adds) that key, nested as deep as the path goes; a single value
    whose next part is a seat name first becomes a table of every seat holding that value
    (`rules.hand_size.B = 4` on `hand_size = 3` gives `{ A = 3, B = 4 }`). `seats.SEAT` names a
    bot, `seats.SEAT.bot` changes the seat's bot (dropping the parameters the old bot had) and
    `seats.SEAT.PARAM` sets one bot parameter. The game validates the result as it validates a
    file. Whole values are set before entries inside them, seat bots before their parameters."""
    items = sorted(overrides.items(), key=lambda kv: (len(split_path(kv[0])),
                                                      kv[0].split(".")[-1] != "bot"))
    seat_names: list[str] | None = None
    for dotted, value in items:
        parts = split_path(dotted)
        section = data.setdefault(parts[0], {})
        if not isinstance(section, dict):
            raise VariantError(f"{where}: [{parts[0]}] must be a table")
        if len(parts) == 2:
            section[parts[1]] = copy.deepcopy(value)
            continue
        if seat_names is None:  # the seats of the rules as whole values leave them
            seat_names = game.seat_names(game.resolve_rules(data.get("rules", {}), where))
        if parts[0] == "seats":
            _set_seat_path(section, parts, value, game, seat_names, dotted)
        else:
            _set_rule_path(section, parts, value, game, seat_names, dotted)


def _set_seat_path(seats: dict[str, Any], parts: list[str], value: Any, game: Game,
                   seat_names: list[str], dotted: str) -> None:
    seat = parts[1]
    if seat not in seat_names:
        raise VariantError(unknown_key(dotted, "seats", seat, seat_names))
    if len(parts) > 3:
        raise VariantError(f"{dotted}: a seat path is seats.SEAT, seats.SEAT.bot or "
                           "seats.SEAT.PARAM (a bot parameter has no parts)")
    spec = seats.get(seat, game.default_bot)
    spec = {"bot": spec} if isinstance(spec, str) else dict(spec) if isinstance(spec, dict) else spec
    if not isinstance(spec, dict):
        raise VariantError(f"{dotted}: seats.{seat} must be a bot name or a table with 'bot'")
    if parts[2] == "bot":
        spec = spec if spec.get("bot") == value else {"bot": value}
    else:
        spec.setdefault("bot", game.default_bot)
        spec[parts[2]] = copy.deepcopy(value)
    seats[seat] = spec


def _set_rule_path(rules: dict[str, Any], parts: list[str], value: Any, game: Game,
                   seat_names: list[str], dotted: str) -> None:
    name = parts[1]
    defaults = game.defaults()
    if name not in defaults:
        raise VariantError(unknown_key(dotted, "rules", name, list(defaults)))
    node = copy.deepcopy(rules.get(name, defaults[name]))
    top = node
    holder: dict[str, Any] | None = None
    for i, key in enumerate(parts[2:], 2):
        if not isinstance(node, dict):
            here = ".".join(parts[:i])
            if key not in seat_names:
                raise VariantError(f"{dotted}: {here} is a single value ({node!r}), not a table; "
                                   f"a part after it can only be a seat: {', '.join(seat_names)}")
            node = {s: copy.deepcopy(node) for s in seat_names}
            if holder is None:
                top = node
            else:
                holder[parts[i - 1]] = node
        holder = node
        if i == len(parts) - 1:
            node[key] = copy.deepcopy(value)
        else:
            node = node.get(key, {})
            holder[key] = node
    rules[name] = top


def load(spec: str | Path, overrides: dict[str, Any] | None = None) -> Variant:
    """Load a variant by path or `game/name`; `overrides` maps "rules.key" to a value."""
    path = find(str(spec))
    data = _merged(path)
    name = name_of(path)
    if name is None:
        name = f"{data.get('game', 'unknown')}/{path.stem}"
    elif "game" in data and data["game"] != name.partition("/")[0]:
        raise VariantError(f"{path}: game = {data['game']!r} but the file lies in the folder of "
                           f"game {name.partition('/')[0]!r} (<game>/<name>.toml)")
    return resolve(data, name, str(spec), path, overrides)
