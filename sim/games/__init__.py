"""Registry: game name -> Game. Adding a game touches only its own folder and this list.

Games outside this package (plug-ins) are named by HEXSIM_GAMES: comma-separated module paths,
each module exposing GAME (a Game instance), importable from sys.path (e.g. with PYTHONPATH).
"""

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
PLUGIN_HINT = ("a game outside hexsim: HEXSIM_GAMES=module[,module], each module exposing GAME, "
               "importable from PYTHONPATH")


def _plugins() -> None:
    """Games under development outside this package: HEXSIM_GAMES="pkg.module[,other.module]",
    each module exposing GAME. Also reaches worker processes, which inherit the environment."""
    for mod in plugin_modules():
        try:
            game = importlib.import_module(mod).GAME
        except (ImportError, AttributeError) as e:
            raise VariantError(f"HEXSIM_GAMES: cannot load {mod!r}: {e}") from None
        if game.name not in _LOADED:
            register(game)
        _FROM_ENV.setdefault(game.name, mod)


def plugins() -> dict[str, str]:
    """Plug-in games loaded from HEXSIM_GAMES: game name -> module path."""
    _plugins()
    return dict(_FROM_ENV)


def available() -> list[str]:
    _plugins()
    out = [name for name, mod in _MODULES.items() if importlib.util.find_spec(mod) is not None]
    return out + sorted(_REGISTERED - set(out))


def listed() -> list[str]:
    """The games of this package and of HEXSIM_GAMES (`make bench`, listings): not those a test
    registers from Python."""
    return [g for g in available() if g in _MODULES or g in plugins()]


def get(name: str, where: str = "game") -> Game:
    if name not in _LOADED:
        names = available()
        if name not in names:
            raise VariantError(f"{where}: unknown game {name!r}; available: {', '.join(names)} "
                               f"({PLUGIN_HINT})")
        if name not in _LOADED:
            _LOADED[name] = importlib.import_module(_MODULES[name]).GAME
    return _LOADED[name]


def register(game: Game) -> None:
    """Add a game defined outside this package (plugins, test fixtures)."""
    _LOADED[game.name] = game
    _REGISTERED.add(game.name)


_REGISTERED: set[str] = set()
_FROM_ENV: dict[str, str] = {}


def plugin_modules() -> list[str]:
    """The HEXSIM_GAMES module paths, in order."""
    return [m.strip() for m in os.environ.get("HEXSIM_GAMES", "").split(",") if m.strip()]


def game_version(game: Game) -> dict[str, str | None]:
    """Which code plays `game`, for a run's manifest: the module defining its class and a version.
    A game of this package has hexsim's version. A plug-in has the `__version__` of the first of
    its class's module and that module's parent packages that defines one, else the version of
    the installed distribution providing its top-level package, else None."""
    import sys
    from importlib import metadata

    import sim

    module = type(game).__module__
    if module == "sim" or module.startswith("sim."):
        return {"module": module, "version": sim.__version__, "from": "hexsim"}
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        version = getattr(sys.modules.get(".".join(parts[:i])), "__version__", None)
        if isinstance(version, str):
            return {"module": module, "version": version, "from": f"{'.'.join(parts[:i])}.__version__"}
    for dist in metadata.packages_distributions().get(parts[0], []):
        try:
            return {"module": module, "version": metadata.version(dist), "from": f"distribution {dist}"}
        except metadata.PackageNotFoundError:
            continue
    return {"module": module, "version": None, "from": None}
