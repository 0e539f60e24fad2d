"""numba's cache index of an engine driver names every game it was compiled for. One written
where a test fixture game was importable must not stop a process that cannot import it (a
designer's `make run` after `make test` shares the cache): found when `make run` crashed with
ModuleNotFoundError: No module named 'tests'."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WITH_FIXTURE = """
import numpy as np
from sim import engine
from tests.fixtures.hexgame import kernel
t = kernel.build_tables(3, False, "A")
engine.start(t, np.uint64(1))
print("fixture compiled")
"""

WITHOUT_TESTS = """
import sys
sys.modules["tests"] = None  # as in an installed hexsim run outside the repository
import numpy as np
from sim import engine, games
g = games.get("hexatile", "test")
pos, rng = engine.start(g.tables(g.resolve_rules({}, "test")), np.uint64(1))
print("hexatile started")
"""


def _run(code: str, cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900)


def test_an_index_naming_a_fixture_game_does_not_stop_a_process_without_it(tmp_path):
    first = _run(WITH_FIXTURE, tmp_path)
    assert first.returncode == 0 and "fixture compiled" in first.stdout, first.stderr[-2000:]
    second = _run(WITHOUT_TESTS, tmp_path)
    assert second.returncode == 0 and "hexatile started" in second.stdout, second.stderr[-2000:]
