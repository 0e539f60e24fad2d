"""Registry: game name -> Game. Adding a game touches only its own folder and this list."""

from __future__ import annotations

import importlib
import importlib.util

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


def available() -> list[str]:
    out = [name for name, mod in _MODULES.items() if importlib.util.find_spec(mod) is not None]
    return out + sorted(_REGISTERED - set(out))


def get(name: str, where: str = "game") -> Game:
    if name not in _LOADED:
        if name not in available():
            raise VariantError(f"{where}: unknown game {name!r}; available: {', '.join(available())}")
        _LOADED[name] = importlib.import_module(_MODULES[name]).GAME
    return _LOADED[name]


def register(game: Game) -> None:
    """Add a game defined outside this package (plugins, test fixtures)."""
    _LOADED[game.name] = game
    _REGISTERED.add(game.name)


_REGISTERED: set[str] = set()
