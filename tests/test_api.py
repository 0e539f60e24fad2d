"""The Python API after a bare `import sim`: sim.baseline, sim.compare and sim.sweep work in any
import order (importing a submodule rebinds the package attribute to the module)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_submodules_after_import_sim():
    code = ("import sim\n"
            "assert callable(sim.baseline.save) and callable(sim.baseline.check)\n"
            "import sim.compare, sim.sweep\n"
            "assert callable(sim.compare) and callable(sim.sweep)\n"
            "assert sim.compare.compare.__name__ == 'compare' and sim.sweep.sweep.__name__ == 'sweep'\n"
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
    again = sim.compare(a, b, games=100, jobs=1, out=tmp_path / "c1", write=False)  # module now bound
    assert first.table["metric"].tolist() == again.table["metric"].tolist()
    s = sim.sweep(a, {"rules.goal": [5, 6]}, games=100, jobs=1, out=tmp_path / "s", write=False)
    assert len(sim.sweep(a, {"rules.goal": [5, 6]}, games=100, jobs=1, out=tmp_path / "s",
                         write=False).table) == len(s.table)
