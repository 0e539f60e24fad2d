"""Games from outside the package (HEXSIM_GAMES) and variants from outside it (HEXSIM_VARIANTS):
the numba cache key covers a plug-in's sources, its variants are nameable, listed and saved."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PLUGIN_INIT = '''"""A plug-in package whose import loads numba (as a real game's would)."""
import numba  # noqa: F401
from .game import GAME  # noqa: F401
'''
PLUGIN_HELPER = "def helper(x):\n    return x + 1\n"


def _plugin_package(tmp_path: Path, name: str = "hexsim_plugin_pkg") -> Path:
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text(PLUGIN_INIT)
    (pkg / "game.py").write_text("from .helper import helper  # noqa: F401\nGAME = None\n")
    (pkg / "helper.py").write_text(PLUGIN_HELPER)
    return pkg


def _cache_dir_in_child(tmp_path: Path, plugins: str) -> tuple[str, bool]:
    """NUMBA_CACHE_DIR that `import sim` chooses in a fresh process, and whether numba got
    imported on the way (it must not: the folder has to be set first)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(HEXSIM_GAMES=plugins, XDG_CACHE_HOME=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    code = "import os, sys, sim; print(os.environ['NUMBA_CACHE_DIR']); print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.split()
    return out[0], out[1] == "True"


def test_cache_dir_follows_an_edit_of_a_plugin_helper_file(tmp_path):
    pkg = _plugin_package(tmp_path)
    without, _ = _cache_dir_in_child(tmp_path, "")
    before, numba_loaded = _cache_dir_in_child(tmp_path, "hexsim_plugin_pkg.game")
    assert not numba_loaded, "locating the plug-in imported it (and numba) before the cache dir was set"
    assert before != without
    assert Path(before).parent == tmp_path / "cache" / "hexsim" / "numba"
    (pkg / "helper.py").write_text(PLUGIN_HELPER.replace("x + 1", "x + 2"))
    after, _ = _cache_dir_in_child(tmp_path, "hexsim_plugin_pkg.game")
    assert after != before
    # the top-level package named directly: the same files, the same key
    assert _cache_dir_in_child(tmp_path, "hexsim_plugin_pkg")[0] == after


def test_kernel_source_hash_of_plugins(tmp_path, monkeypatch):
    import sim

    pkg = _plugin_package(tmp_path, "hexsim_plugin_pkg2")
    monkeypatch.syspath_prepend(str(tmp_path))
    base = sim.kernel_source_hash("")
    with_plugin = sim.kernel_source_hash("hexsim_plugin_pkg2.game")
    assert with_plugin != base
    # a module that cannot be found adds nothing (the registry reports it when asked for)
    assert sim.kernel_source_hash("no_such_module_here.game") == base
    files = sim._plugin_sources("hexsim_plugin_pkg2.game")
    assert sorted(p.name for p in files) == ["__init__.py", "game.py", "helper.py"]
    # a top-level single-file module: that file alone
    (tmp_path / "hexsim_lone_plugin.py").write_text("GAME = None\n")
    assert [p.name for p in sim._plugin_sources("hexsim_lone_plugin")] == ["hexsim_lone_plugin.py"]
    (pkg / "extra.py").write_text("X = 1\n")
    assert sim.kernel_source_hash("hexsim_plugin_pkg2.game") != with_plugin


@pytest.mark.parametrize("plugins", ["", " , "])
def test_no_plugins_keeps_the_package_key(plugins):
    import sim

    assert sim.kernel_source_hash(plugins) == sim.kernel_source_hash("")
