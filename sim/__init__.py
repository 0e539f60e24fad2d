"""hexsim: balance simulator for hex-tile board games.

The Python API mirrors the CLI (every command is a function first):

    import sim
    v = sim.load_variant("hexflow/race")
    r = sim.run(v, games=10_000, seed=0)       # -> RunResult (r.path, r.table())
    sim.report([r.path], out="reports/x")       # -> ReportResult
"""

__version__ = "0.1.0"


def _numba_cache_dir() -> None:
    """Key numba's on-disk cache on a hash of the kernel sources (rng, hexgrid, engine, games/).

    numba's `cache=True` only notices edits to the file of the cached function itself, not to
    kernels it calls from other modules, so after a rule edit a stale kernel could silently play
    the old rules. A cache folder per source hash makes every edit a fresh compile. Set before
    numba is imported; inherited by worker processes; a user's NUMBA_CACHE_DIR wins.
    """
    import hashlib
    import os
    from pathlib import Path

    if "NUMBA_CACHE_DIR" in os.environ:
        return
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    kernel_sources = [root / "rng.py", root / "hexgrid.py", root / "engine.py",
                      *sorted((root / "games").rglob("*.py"))]
    for path in kernel_sources:
        if not path.exists():
            continue
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hexsim" / "numba"
    os.environ["NUMBA_CACHE_DIR"] = str(base / h.hexdigest()[:16])
    try:  # caches of sources unused for a week are dead weight
        import shutil
        import time

        for old in base.iterdir():
            if old.name != h.hexdigest()[:16] and time.time() - old.stat().st_mtime > 7 * 86400:
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass


_numba_cache_dir()


def load_variant(spec, overrides=None):
    from sim.variants import load

    return load(spec, overrides)


def run(variant, games, **kwargs):
    """Play a variant (a Variant, a path or `game/name`); see `sim.runner.run`."""
    from sim.runner import run as _run
    from sim.variants import Variant, load

    if not isinstance(variant, Variant):
        variant = load(variant)
    return _run(variant, games, **kwargs)


def report(run_dirs, out):
    """Build the balance report of one or more run folders; see `sim.reporting.build_report`."""
    from sim.reporting import build_report

    return build_report([str(d) for d in run_dirs], out)


def compare(a, b, **kwargs):
    """Play two variants on common seeds and compare every metric; see `sim.compare.compare`."""
    from sim.compare import compare as _compare

    return _compare(a, b, **kwargs)


def sweep(variant, grid, **kwargs):
    """Run a grid of rule settings; see `sim.sweep.sweep`."""
    from sim.sweep import sweep as _sweep

    return _sweep(variant, grid, **kwargs)



def __getattr__(name):
    """`sim.ladder(variant, bots, ...)`: the module sim.ladder is itself callable (it calls
    `sim.ladder.ladder`, which returns a LadderResult of frames), so the name means the same
    before and after the module is imported."""
    if name == "ladder":
        import importlib

        return importlib.import_module("sim.ladder")
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
