"""hexsim: balance simulator for hex-tile board games.

The Python API mirrors the CLI (every command is a function first):

    import sim
    v = sim.load_variant("hexflow/race")
    r = sim.run(v, games=10_000, seed=0)       # -> RunResult (r.path, r.table())
    sim.report([r.path], out="reports/x")       # -> ReportResult
"""

__version__ = "0.1.0"


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
