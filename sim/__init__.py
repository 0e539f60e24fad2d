"""hexsim: balance simulator for hex-tile board games.

The Python API mirrors the CLI (every command is a function first):

    import sim
    v = sim.load_variant("hexflow/race")
    r = sim.run(v, games=10_000, seed=0)       # -> RunResult (r.path, r.table())
    sim.report([r.path], out="reports/x")       # -> ReportResult
    sim.compare("hexflow/race", "variants/mine.toml", games=20_000)   # -> Comparison
    sim.sweep("hexflow/race", {"rules.hand_size": [2, 3, 4]})         # -> SweepResult
    sim.tune("hexflow/race", ["rules.hand_size=1..6"], ["first_mover_share=0.5"], 100_000)
    sim.sensitivity("hexflow/race", games=10_000)                     # -> SensitivityResult
    sim.baseline.save(["hexflow/race"], games=20_000)                  # -> [Baseline]

Each function is imported on first use (`import sim` reads no pandas or numba) and shows its
real signature and docstring (`inspect.signature(sim.compare)`, a notebook's `sim.compare?`).
`sim.compare`, `sim.sweep`, `sim.tune`, `sim.sensitivity` and `sim.ladder` are both the function
and the module (the module is callable); `sim.baseline` is imported on first use.
"""

import types

__version__ = "0.1.0"


def _plugin_sources(modules: str) -> list:
    """The source files of the HEXSIM_GAMES modules (comma-separated): every .py file of the
    package holding each module (its own folder for a package), or the lone file of a top-level
    module. Found with importlib's path finder, which reads no module: a plug-in's package may
    import numba, which must not load before NUMBA_CACHE_DIR is set. A module that cannot be
    found adds nothing here (the registry reports it when the game is asked for)."""
    import importlib.machinery
    import importlib.util
    from pathlib import Path

    files: list[Path] = []
    for name in filter(None, (m.strip() for m in modules.split(","))):
        parts = name.split(".")
        try:
            spec = importlib.util.find_spec(parts[0])  # top level: imports nothing
            for i in range(1, len(parts)):
                if spec is None or spec.submodule_search_locations is None:
                    spec = None
                    break
                spec = importlib.machinery.PathFinder.find_spec(".".join(parts[: i + 1]),
                                                                list(spec.submodule_search_locations))
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin or not spec.has_location:
            continue
        origin = Path(spec.origin).resolve()
        if spec.submodule_search_locations is not None or len(parts) > 1:
            files += sorted(origin.parent.rglob("*.py"))  # the package: helpers in sibling files
        else:
            files.append(origin)
    return files


def kernel_source_hash(plugins: str | None = None) -> str:
    """16 hex digits over every source a compiled kernel can come from: sim/jit.py (how kernels
    compile and what their cache entries hold), sim/rng.py, sim/hexgrid.py, the engine
    (sim/interface.py, engine.py, search.py), sim/games/ and the packages of the HEXSIM_GAMES
    plug-ins (`plugins`, default: the environment's). The key of
    numba's cache folder (see `_numba_cache_dir`)."""
    import hashlib
    import os
    from pathlib import Path

    if plugins is None:
        plugins = os.environ.get("HEXSIM_GAMES", "")
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    engine = [root / "interface.py", root / "engine.py", root / "search.py"]
    kernel_sources = [root / "jit.py", root / "rng.py", root / "hexgrid.py", *engine, *sorted((root / "games").rglob("*.py"))]
    for path in kernel_sources:
        if path.exists():
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    seen = set(kernel_sources)
    for path in _plugin_sources(plugins):
        if path not in seen and path.exists():
            seen.add(path)
            h.update(b"plugin\0" + str(path).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def _numba_cache_dir() -> None:
    """Key numba's on-disk cache on a hash of the kernel sources (`kernel_source_hash`: jit, rng,
    hexgrid, the engine's interface, drivers and search bot, games/, and the HEXSIM_GAMES
    plug-ins' packages).

    numba's `cache=True` only notices edits to the file of the cached function itself, not to
    kernels it calls from other modules, so after a rule edit a stale kernel could silently play
    the old rules. A cache folder per source hash makes every edit a fresh compile. Set before
    numba is imported; inherited by worker processes; a user's NUMBA_CACHE_DIR wins. A game
    registered from Python with `sim.games.register` (not through HEXSIM_GAMES) is not covered.
    """
    import os
    import sys
    from pathlib import Path

    if "NUMBA_CACHE_DIR" in os.environ:
        return
    key = kernel_source_hash()
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hexsim" / "numba"
    os.environ["NUMBA_CACHE_DIR"] = str(base / key)
    if "numba" in sys.modules:
        # numba read its environment when it was imported (a script or test module that imports
        # numba before sim): its cache would sit beside each source and keep a kernel compiled
        # against another file's old helpers. Its configuration is read again when a cached
        # function is defined, so setting it here still comes before any kernel of sim's.
        from numba.core import config

        config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
    try:  # caches of sources unused for a week are dead weight
        import shutil
        import time

        for old in base.iterdir():
            if old.name != key and time.time() - old.stat().st_mtime > 7 * 86400:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass


_numba_cache_dir()


# The API, imported on first use so that `import sim` stays fast: name -> (module, function).
# `sim.compare`, `sim.sweep`, `sim.tune`, `sim.sensitivity` and `sim.ladder` are their modules,
# made callable as their function (`_callable_module`).
_API = {"load_variant": ("sim.variants", "load"), "run": ("sim.runner", "run"),
        "report": ("sim.reporting", "build_report"), "compare": ("sim.compare", "compare"),
        "sweep": ("sim.sweep", "sweep"), "tune": ("sim.tune", "tune"),
        "sensitivity": ("sim.sensitivity", "sensitivity"), "ladder": ("sim.ladder", "ladder")}
_SUBMODULES = ("baseline", "reporting", "replay", "runner", "stats", "metrics", "tables",
               "variants", "sequential")


def _report_api(build_report):
    """`sim.report`: `build_report` with its output folder named `out` (as `hexsim report --out`)."""
    import inspect

    def report(run_dirs, out, **kwargs):
        return build_report(run_dirs, out, **kwargs)

    sig = inspect.signature(build_report)
    report.__signature__ = sig.replace(parameters=[p.replace(name="out") if p.name == "out_dir" else p
                                                   for p in sig.parameters.values()])
    report.__doc__ = build_report.__doc__
    return report


def __getattr__(name):
    """The API's functions and submodules (`sim.baseline`, ...) after a bare `import sim`: each
    imported on first use, with its own signature and docstring (`inspect.signature(sim.run)`)."""
    import importlib

    if name in _API:
        module_name, func_name = _API[name]
        module = importlib.import_module(module_name)
        if module_name == f"sim.{name}":
            return module  # the import bound it here too
        func = getattr(module, func_name)
        globals()[name] = value = _report_api(func) if name == "report" else func
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"sim.{name}")
    raise AttributeError(f"module 'sim' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API) | set(_SUBMODULES))


def _callable_module(module_name: str, func_name: str) -> None:
    """Make the submodule `module_name` callable as its function `func_name`: importing
    `sim.compare` binds the package attribute `sim.compare` to the module, and `sim.compare(a, b)`
    must call the function. Inspected (`inspect.signature`, a notebook's `sim.compare?`), the
    module shows the function's signature, and its docstring before the module's."""
    import sys

    module = sys.modules[module_name]
    module._api_function = func_name
    module.__class__ = _CallableModule


class _CallableModule(types.ModuleType):
    # A module called as its function `_api_function`; inspected, it shows that function's
    # signature, and its docstring before the module's own (no class docstring: `__doc__` is
    # the property below).

    def __call__(self, *args, **kwargs):
        return getattr(self, self._api_function)(*args, **kwargs)

    @property
    def __signature__(self):
        import inspect

        return inspect.signature(getattr(self, self._api_function))

    @property
    def __doc__(self):
        import inspect

        own = self.__dict__.get("__doc__") or ""
        func = inspect.cleandoc(getattr(self, self._api_function).__doc__ or "")
        return f"{func}\n\nModule {self.__name__}: {own}"

    @__doc__.setter
    def __doc__(self, value):
        self.__dict__["__doc__"] = value
