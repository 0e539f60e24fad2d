"""The Python API after a bare `import sim`: sim.baseline, sim.compare and sim.sweep work in any
import order (the workflows' modules live in sim.workflows, so importing one never rebinds
`sim.compare` to a module)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_submodules_after_import_sim():
    code = ("import sim\n"
            "assert callable(sim.baseline.save) and callable(sim.baseline.check)\n"
            "import sim.workflows.compare, sim.workflows.sweep\n"
            "import inspect, types\n"
            "assert not isinstance(sim.compare, types.ModuleType) and not isinstance(sim.sweep, types.ModuleType)\n"
            "assert sim.compare.__name__ == 'compare' and sim.sweep.__name__ == 'sweep'\n"
            "assert 'games' in inspect.signature(sim.compare).parameters\n"
            "print('ok')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr


def test_compare_and_sweep_callable_twice(variant_file, tmp_path):
    import sim

    text = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n[seats]\nA = "random"\nB = "greedy"\n'
    a = str(variant_file("a.toml", text))
    b = str(variant_file("b.toml", text.replace("goal = 25", "goal = 26")))
    first = sim.compare(a, b, games=100, jobs=1, out=tmp_path / "c1", write=False)
    again = sim.compare(a, b, games=100, jobs=1, out=tmp_path / "c1", write=False)  # still the function
    assert first.table["metric"].tolist() == again.table["metric"].tolist()
    s = sim.sweep(a, {"rules.goal": [5, 6]}, games=100, jobs=1, out=tmp_path / "s", write=False)
    assert len(sim.sweep(a, {"rules.goal": [5, 6]}, games=100, jobs=1, out=tmp_path / "s",
                         write=False).table) == len(s.table)


API = {"run": ("variant", "games", "seed", "jobs", "out", "progress"),
       "report": ("run_dirs", "out", "references", "partial"),
       "compare": ("a", "b", "games", "seed", "jobs", "out", "write"),
       "sweep": ("variant", "grid", "games", "seed", "jobs", "margin"),
       "tune": ("variant", "vary", "targets", "budget", "seed", "jobs", "confirm"),
       "sensitivity": ("variant", "params", "games", "seed", "jobs"),
       "ladder": ("variant", "bots", "games", "seed", "jobs", "self_games"),
       "load_variant": ("spec", "overrides")}


def test_real_signatures_and_docstrings_in_a_fresh_process():
    """A notebook's `sim.compare?` right after `import sim` (nothing else imported yet): the
    real parameters and docstring, and `import sim` itself reads neither pandas nor numba."""
    code = ("import inspect, json, sys\n"
            "import sim\n"
            "heavy = [m for m in ('pandas', 'numba') if m in sys.modules]\n"
            f"names = {list(API)!r}\n"
            "print(json.dumps({'heavy': heavy, 'sigs': {n: list(inspect.signature(getattr(sim, n)).parameters)"
            " for n in names}, 'docs': {n: inspect.getdoc(getattr(sim, n)) for n in names}}))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert res.returncode == 0, res.stderr
    import json

    out = json.loads(res.stdout)
    assert out["heavy"] == []
    for name, params in API.items():
        sig = out["sigs"][name]
        assert "kwargs" not in sig and "args" not in sig, (name, sig)
        assert set(params) <= set(sig), (name, sig)
        assert out["docs"][name] and len(out["docs"][name]) > 40, name


def test_signatures_once_the_modules_are_imported():
    import inspect

    import sim
    import sim.workflows.compare
    import sim.workflows.ladder
    import sim.workflows.sweep

    for name, params in API.items():
        assert set(params) <= set(inspect.signature(getattr(sim, name)).parameters), name
    assert inspect.getdoc(sim.compare).startswith("Play A and B on the same seeds")


def test_short_reprs_and_html_tables(variant_file, tmp_path):
    """In a notebook every result prints a few lines (what, where, the headline numbers), and
    those holding a table show a small HTML table of the headline rows."""
    import sim
    from sim.workflows import baseline

    text = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n[seats]\nA = "random"\nB = "greedy"\n'
    a = str(variant_file("a.toml", text))
    b = str(variant_file("b.toml", text.replace("goal = 25", "goal = 26")))
    run = sim.run(a, 200, jobs=1, out=tmp_path / "r", progress=False)
    [saved] = baseline.save([a], 300, out=tmp_path / "bl.json", jobs=1)
    check = baseline.check([saved.path], games=300, jobs=1)
    tables = {
        "Comparison": sim.compare(a, b, games=200, jobs=1, out=tmp_path / "c"),
        "SweepResult": sim.sweep(a, {"rules.goal": [20, 25]}, games=200, jobs=1, out=tmp_path / "s", write=False),
        "ReportResult": sim.report([run.path], tmp_path / "rep", replays=False),
        "SensitivityResult": sim.sensitivity(a, ["rules.goal"], games=200, jobs=1, out=tmp_path / "se",
                                             write=False),
        "LadderResult": sim.ladder(a, ["random", "greedy"], games=100, jobs=1, out=tmp_path / "l", write=False),
        "TuneResult": sim.tune(a, ["rules.goal=20..26"], ["first_mover_share=0.5"], 3000, jobs=1,
                               out=tmp_path / "t", write=False),
        "CheckReport": check,
    }
    for name, obj in {"RunResult": run, "Baseline": saved, "CheckResult": check.results[0], **tables}.items():
        r = repr(obj)
        assert r.startswith(name) and len(r) < 1000 and 2 <= len(r.splitlines()) <= 12, (name, r)
    for name, obj in tables.items():
        h = obj._repr_html_()
        assert "<table" in h and "</table>" in h and len(h) < 10_000, name
    assert str(run.path) in repr(run) and "200 games" in repr(run)
    assert "first mover's share" in repr(tables["Comparison"]) and "first_mover_share" in tables["Comparison"]._repr_html_()
