"""Registry: game name -> Game. Adding a game touches only its own folder and this list."""

from __future__ import annotations

import importlib
import importlib.util
import os

from sim.errors import VariantError
from sim.games.base import Game

# name -> module path; each module exposes GAME (a Game instance). Imported lazily so that
# `hexsim variants` does not compile every kernel.
_MODULES = {
    "hexflow": "sim.games.hexflow",
    "flags": "sim.games.flags",
    "hexatile": "sim.games.hexatile",
    "hexatrex": "sim.games.hexatrex",
}
_LOADED: dict[str, Game] = {}


def _plugins() -> None:
    """Games under development outside this package: HEXSIM_GAMES="pkg.module[,other.module]",
    each module exposing GAME. Also reaches worker processes, which inherit the environment."""
    for mod in filter(None, os.environ.get("HEXSIM_GAMES", "").split(",")):
        try:
            game = importlib.import_module(mod.strip()).GAME
        except (ImportError, AttributeError) as e:
            raise VariantError(f"HEXSIM_GAMES: cannot load {mod!r}: {e}") from None
        if game.name not in _LOADED:
            register(game)


def available() -> list[str]:
    _plugins()
    out = [name for name, mod in _MODULES.items() if importlib.util.find_spec(mod) is not None]
    return out + sorted(_REGISTERED - set(out))


def get(name: str, where: str = "game") -> Game:
    if name not in _LOADED:
        names = available()
        if name not in names:
            raise VariantError(f"{where}: unknown game {name!r}; available: {', '.join(names)}")
        if name not in _LOADED:
            _LOADED[name] = importlib.import_module(_MODULES[name]).GAME
    return _LOADED[name]


def register(game: Game) -> None:
    """Add a game defined outside this package (plugins, test fixtures)."""
    _LOADED[game.name] = game
    _REGISTERED.add(game.name)


_REGISTERED: set[str] = set()
