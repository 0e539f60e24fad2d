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

VARIANTS_DIR = Path(__file__).resolve().parent.parent / "variants"
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
        text = json.dumps(self.resolved(), sort_keys=True, separators=(",", ":"))
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


def _seat(game: Game, seat: str, spec: Any, where: str) -> SeatBot:
    if isinstance(spec, str):
        spec = {"bot": spec}
    if not isinstance(spec, dict) or "bot" not in spec:
        raise VariantError(f"{where}: seats.{seat} must be a bot name or a table with 'bot'")
    bot = game.bot(spec["bot"], f"{where}: seats.{seat}")
    names = [p.name for p in bot.params]
    params = {p.name: p.default for p in bot.params}
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
    for dotted, value in overrides.items():
        section, _, key = dotted.partition(".")
        if section not in ("rules", "seats") or not key:
            raise VariantError(f"--set {dotted}: use rules.NAME=VALUE or seats.SEAT=BOT")
        data.setdefault(section, {})[key] = value
    if "game" not in data:
        raise VariantError(f"{where}: missing key 'game'; available: {', '.join(games.available())}")
    game = games.get(data["game"], f"{where}: game")
    rules = game.resolve_rules(data.get("rules", {}), where)
    seat_names = game.seat_names(rules)
    given = data.get("seats", {})
    for seat in given:
        if seat not in seat_names:
            raise VariantError(unknown_key(where, "seats", seat, seat_names))
    seats = {s: _seat(game, s, given.get(s, game.default_bot), where) for s in seat_names}
    game.check_seats(rules, seats, where)
    return Variant(name=name, game=game, description=data.get("description", ""), rules=rules,
                   seats=seats, path=path, overrides=overrides)


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
