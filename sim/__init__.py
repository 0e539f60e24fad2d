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
The workflows' modules are in `sim.workflows`; `sim.baseline` is imported on first use.
"""

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


def _kernel_sources() -> list:
    """Every source a shipped game's kernel can come from: the engine package (sim/engine/: how
    kernels compile, the generator, the hex grid, the interface, the drivers and the search) and
    sim/games/."""
    from pathlib import Path

    root = Path(__file__).resolve().parent
    return [*sorted((root / "engine").glob("*.py")), *sorted((root / "games").rglob("*.py"))]


def kernel_source_hash() -> str:
    """16 hex digits over every source a shipped game's kernel can come from (`_kernel_sources`):
    the key of numba's cache folder (see `_numba_cache_dir`). The HEXSIM_GAMES plug-ins have a
    key of their own (`plugin_source_hash`), so naming or editing one leaves this key alone."""
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in _kernel_sources():
        if path.exists():
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def plugin_source_hash(plugins: str | None = None) -> str:
    """16 hex digits over the packages of the HEXSIM_GAMES plug-ins (`plugins`, default: the
    environment's; see `_plugin_sources`), "" when none is found: the key of their own cache
    folder (`numba_cache_path`)."""
    import hashlib
    import os

    shipped = set(_kernel_sources())
    files = [p for p in dict.fromkeys(_plugin_sources(os.environ.get("HEXSIM_GAMES", "") if plugins is None
                                                      else plugins)) if p not in shipped and p.exists()]
    if not files:
        return ""
    h = hashlib.sha256()
    for path in files:
        h.update(b"plugin\0" + str(path).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def numba_cache_path(plugins: str | None = None):
    """numba's cache folder: <cache>/hexsim/numba/<kernel_source_hash>, and with HEXSIM_GAMES
    plug-ins (`plugins`, default: the environment's) a folder of their own inside it,
    plugins/<top-level packages>-<plugin_source_hash> (see `_numba_cache_dir`)."""
    import os
    import re
    from pathlib import Path

    plugins = os.environ.get("HEXSIM_GAMES", "") if plugins is None else plugins
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hexsim" / "numba"
    shipped = base / kernel_source_hash()
    key = plugin_source_hash(plugins)
    if not key:
        return shipped
    packages = sorted({m.strip().split(".")[0] for m in plugins.split(",") if m.strip()})
    return shipped / "plugins" / f"{re.sub(r'[^A-Za-z0-9_]+', '_', '+'.join(packages))[:60]}-{key}"


def _numba_cache_dir() -> None:
    """Key numba's on-disk cache on a hash of the kernel sources (`numba_cache_path`).

    numba's `cache=True` only notices edits to the file of the cached function itself, not to
    kernels it calls from other modules, so after a rule edit a stale kernel could silently play
    the old rules. A cache folder per source hash makes every edit a fresh compile. Set before
    numba is imported; inherited by worker processes; a user's NUMBA_CACHE_DIR wins. A game
    registered from Python with `sim.games.register` (not through HEXSIM_GAMES) is not covered.

    HEXSIM_GAMES plug-ins get a folder of their own inside the shipped games' one, keyed on
    their sources, and started as hard links to the shipped games' entries (`_seed_cache`): the
    engine's drivers are compiled once per game and each keeps one index of every game it was
    compiled for, so a plug-in's entries must not go into the shipped games' folder (numba would
    not notice an edit of the plug-in in the driver's index), yet its shipped games stay warm.
    """
    import os
    import sys

    if "NUMBA_CACHE_DIR" in os.environ:
        return
    path = numba_cache_path()
    shipped = path.parent.parent if path.parent.name == "plugins" else path
    if path != shipped:
        _seed_cache(shipped, path)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    if "numba" in sys.modules:
        # numba read its environment when it was imported (a script or test module that imports
        # numba before sim): its cache would sit beside each source and keep a kernel compiled
        # against another file's old helpers. Its configuration is read again when a cached
        # function is defined, so setting it here still comes before any kernel of sim's.
        from numba.core import config

        config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
    _remove_old_caches(shipped, path)


def _seed_cache(shipped, folder) -> None:
    """Start a plug-in's cache `folder` with hard links (copies where the file system has none)
    to every file of the shipped games' folder, built aside and renamed into place, so no process
    sees it half made. numba replaces its files rather than writing into them, so neither folder
    ever changes the other's. Made once per plug-in source state."""
    import os
    import shutil
    import uuid

    if folder.exists():
        return
    tmp = folder.parent / f".seed-{uuid.uuid4().hex[:12]}"
    try:
        for src in shipped.rglob("*"):
            rel = src.relative_to(shipped)
            if rel.parts[0] == "plugins" or ".tmp." in src.name or not src.is_file():
                continue
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(src, tmp / rel)
            except OSError:
                shutil.copy2(src, tmp / rel)
        tmp.mkdir(parents=True, exist_ok=True)
        os.rename(tmp, folder)  # fails if another process made it first: its copy serves
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def _remove_old_caches(shipped, folder) -> None:
    """Mark the folders in use (their time) and remove dead ones: the caches of sources unused for
    a week, a plug-in's folders of sources it no longer has (superseded by an edit) once unused
    for an hour (a run started on them may still be compiling), and half-made seeds."""
    import os
    import shutil
    import time

    now = time.time()
    stem = folder.name.rsplit("-", 1)[0] if folder != shipped else None
    try:
        for used in {shipped, folder}:
            used.mkdir(parents=True, exist_ok=True)
            os.utime(used)
        old = [(p, 7 * 86400) for p in shipped.parent.iterdir() if p != shipped]
        if (shipped / "plugins").is_dir():
            old += [(p, 3600 if p.name.startswith(".") or p.name.rsplit("-", 1)[0] == stem else 7 * 86400)
                    for p in (shipped / "plugins").iterdir() if p != folder]
        for p, unused_for in old:
            if now - p.stat().st_mtime > unused_for:
                shutil.rmtree(p, ignore_errors=True)
    except OSError:
        pass


_numba_cache_dir()


# The API, imported on first use so that `import sim` stays fast: name -> (module, function).
# The workflows live in sim/workflows/, so `sim.compare` is the function, never a module.
_API = {"load_variant": ("sim.runs.variants", "load"), "run": ("sim.runs.runner", "run"),
        "report": ("sim.reports.balance", "build_report"), "compare": ("sim.workflows.compare", "compare"),
        "sweep": ("sim.workflows.sweep", "sweep"), "tune": ("sim.workflows.tune", "tune"),
        "sensitivity": ("sim.workflows.sensitivity", "sensitivity"), "ladder": ("sim.workflows.ladder", "ladder")}
_SUBMODULES = {"baseline": "sim.workflows.baseline", "sequential": "sim.workflows.sequential",
               "reporting": "sim.reports.balance", "replay": "sim.runs.replay", "runner": "sim.runs.runner",
               "stats": "sim.stats", "metrics": "sim.stats.metrics", "tables": "sim.runs.tables",
               "variants": "sim.runs.variants"}

# Modules that moved into packages, by their old import path: `import sim.jit` or `from sim import
# interface` (as docs/writing-a-game.md gave them) still give the module, now sim.engine.jit.
_MOVED = {"sim.jit": "sim.engine.jit", "sim.rng": "sim.engine.rng", "sim.hexgrid": "sim.engine.hexgrid",
          "sim.interface": "sim.engine.interface", "sim.search": "sim.engine.search",
          "sim.warm": "sim.runs.warm", "sim.variants": "sim.runs.variants", "sim.runner": "sim.runs.runner",
          "sim.tables": "sim.runs.tables", "sim.run_folder": "sim.runs.folder", "sim.replay": "sim.runs.replay",
          "sim.seating": "sim.games.seating", "sim.seeds": "sim.runs.seeds", "sim.metrics": "sim.stats.metrics",
          "sim.intervals": "sim.stats.intervals", "sim.drift": "sim.stats.drift",
          "sim.playmetrics": "sim.stats.playmetrics", "sim.skill": "sim.stats.skill",
          "sim.document": "sim.reports.document", "sim.plots": "sim.reports.plots",
          "sim.reporting": "sim.reports.balance", "sim.cli_errors": "sim.cli.errors",
          "sim.cli_workflows": "sim.cli.workflows", "sim.bench": "sim.perf.bench", "sim.scale": "sim.perf.scale"}


class _MovedFinder:
    """Imports an old path of a moved module (`_MOVED`) as the module itself: one module object
    under both names, so a monkeypatch or an isinstance check through either name holds."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in _MOVED:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, _MovedFinder)

    @staticmethod
    def create_module(spec):
        import importlib

        return importlib.import_module(_MOVED[spec.name])

    @staticmethod
    def exec_module(module) -> None:
        pass


def _install_moved_finder() -> None:
    import sys

    if not any(f is _MovedFinder for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder)


_install_moved_finder()


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
        func = getattr(module, func_name)
        globals()[name] = value = _report_api(func) if name == "report" else func
        return value
    if name in _SUBMODULES:
        return importlib.import_module(_SUBMODULES[name])
    raise AttributeError(f"module 'sim' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API) | set(_SUBMODULES))
