"""Games from outside the package (HEXSIM_GAMES) and variants from outside it (HEXSIM_VARIANTS):
a plug-in's numba cache folder follows its sources and leaves the shipped games' alone, its
variants are nameable, listed and saved."""

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
    assert Path(without).parent == tmp_path / "cache" / "hexsim" / "numba"
    # the plug-in's folder of its own, inside the shipped games' one (whose key it leaves alone)
    assert Path(before).parent == Path(without) / "plugins"
    assert Path(before).name.startswith("hexsim_plugin_pkg-")
    (pkg / "helper.py").write_text(PLUGIN_HELPER.replace("x + 1", "x + 2"))
    after, _ = _cache_dir_in_child(tmp_path, "hexsim_plugin_pkg.game")
    assert after != before
    # the top-level package named directly: the same files, the same key
    assert _cache_dir_in_child(tmp_path, "hexsim_plugin_pkg")[0] == after


def test_cache_dir_holds_when_numba_was_imported_first(tmp_path):
    """A script (or test module) that imports numba before sim: numba has read its environment
    already, and without sim setting its configuration too, kernels would be cached beside their
    sources, where an edit of another file's helper kernel goes unnoticed."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    code = ("import os, numba, numpy as np, sim\n"
            "from numba.core import config\n"
            "from sim.engine.rng import new_state\n"
            "new_state(np.uint64(1))\n"
            "print(config.CACHE_DIR == os.environ['NUMBA_CACHE_DIR'])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout.split()
    assert out == ["True"]
    assert list((tmp_path / "cache" / "hexsim" / "numba").rglob("rng.new_state-*.nbi")), \
        "the kernel was not cached in hexsim's folder"


def test_plugin_source_hash(tmp_path, monkeypatch):
    import sim

    pkg = _plugin_package(tmp_path, "hexsim_plugin_pkg2")
    monkeypatch.syspath_prepend(str(tmp_path))
    with_plugin = sim.plugin_source_hash("hexsim_plugin_pkg2.game")
    assert len(with_plugin) == 16
    # a module that cannot be found adds nothing (the registry reports it when asked for)
    assert sim.plugin_source_hash("no_such_module_here.game") == ""
    files = sim._plugin_sources("hexsim_plugin_pkg2.game")
    assert sorted(p.name for p in files) == ["__init__.py", "game.py", "helper.py"]
    # a top-level single-file module: that file alone
    (tmp_path / "hexsim_lone_plugin.py").write_text("GAME = None\n")
    assert [p.name for p in sim._plugin_sources("hexsim_lone_plugin")] == ["hexsim_lone_plugin.py"]
    (pkg / "extra.py").write_text("X = 1\n")
    assert sim.plugin_source_hash("hexsim_plugin_pkg2.game") != with_plugin


def test_a_plugin_leaves_the_shipped_games_key_alone(tmp_path, monkeypatch):
    """Naming or editing a plug-in changes only its own folder: the shipped games' key, and so
    their compiled kernels, stay."""
    import sim

    pkg = _plugin_package(tmp_path, "hexsim_plugin_pkg3")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("HEXSIM_GAMES", raising=False)
    shipped, without = sim.kernel_source_hash(), sim.numba_cache_path()
    monkeypatch.setenv("HEXSIM_GAMES", "hexsim_plugin_pkg3.game")
    assert sim.kernel_source_hash() == shipped
    first = sim.numba_cache_path()
    assert first.parent == without / "plugins" and without.name == shipped
    (pkg / "helper.py").write_text(PLUGIN_HELPER.replace("x + 1", "x + 3"))
    edited = sim.numba_cache_path()
    assert edited != first and edited.parent == first.parent and sim.kernel_source_hash() == shipped


@pytest.mark.parametrize("plugins", ["", " , "])
def test_no_plugins_keeps_the_package_folder(plugins):
    import sim

    assert sim.plugin_source_hash(plugins) == ""
    assert sim.numba_cache_path(plugins) == sim.numba_cache_path("")
    assert sim.numba_cache_path("").name == sim.kernel_source_hash()


def test_a_plugin_folder_starts_from_the_shipped_entries(tmp_path):
    """The shipped games' entries are hard links in a plug-in's new folder (warm, no copy); an
    entry the plug-in's processes write replaces its link and leaves the shipped one alone."""
    import sim

    shipped = tmp_path / "abc"
    (shipped / "sim_1").mkdir(parents=True)
    (shipped / "sim_1" / "engine.play-1.py311.nbi").write_bytes(b"index")
    (shipped / "sim_1" / "engine.play-1.py311.nbi.tmp.123").write_bytes(b"half written")
    (shipped / "plugins" / "other-1").mkdir(parents=True)
    folder = shipped / "plugins" / "mine-2"
    sim._seed_cache(shipped, folder)
    linked = folder / "sim_1" / "engine.play-1.py311.nbi"
    assert linked.read_bytes() == b"index"
    assert linked.stat().st_ino == (shipped / "sim_1" / "engine.play-1.py311.nbi").stat().st_ino
    assert sorted(p.name for p in folder.rglob("*")) == ["engine.play-1.py311.nbi", "sim_1"]
    assert not list((shipped / "plugins").glob(".seed-*"))
    (tmp := folder / "sim_1" / "t").write_bytes(b"new")
    os.replace(tmp, linked)  # as numba saves
    assert (shipped / "sim_1" / "engine.play-1.py311.nbi").read_bytes() == b"index"
    sim._seed_cache(shipped, folder)  # made once: kept as it is
    assert linked.read_bytes() == b"new"


def test_old_cache_folders_are_removed(tmp_path):
    """A plug-in's superseded folders (its older sources) go once unused for an hour; another
    plug-in's, and other sources' folders, once unused for a week."""
    import sim

    base = tmp_path / "numba"
    shipped = base / "new"
    plugins = shipped / "plugins"
    hour, week = 3600, 7 * 86400
    ages = {base / "old": week + 60, base / "recent": week - 600, plugins / "mine-1": hour + 60,
            plugins / "mine-2": hour - 600, plugins / "other-1": week - 600,
            plugins / "other-2": week + 60, plugins / ".seed-abc": hour + 60}
    now = __import__("time").time()
    for p, age in ages.items():
        p.mkdir(parents=True)
        os.utime(p, (now - age, now - age))
    sim._remove_old_caches(shipped, plugins / "mine-3")
    left = {p.name for p in [*base.iterdir(), *plugins.iterdir()]}
    assert left == {"new", "recent", "mine-2", "mine-3", "other-1"}


# ---- a plug-in game end to end: HEXSIM_GAMES + HEXSIM_VARIANTS --------------------------------
STANDARD = 'game = "propdice"\ndescription = "Dice race, plug-in fixture"\n[rules]\ngoal = 15\n'


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """The propdice fixture game loaded through HEXSIM_GAMES, with a variant folder on
    HEXSIM_VARIANTS holding propdice/standard.toml."""
    from sim import games

    folder = tmp_path / "variants"
    (folder / "propdice").mkdir(parents=True)
    (folder / "propdice" / "standard.toml").write_text(STANDARD)
    monkeypatch.setenv("HEXSIM_GAMES", "tests.fixtures.prop_dice")
    monkeypatch.setenv("HEXSIM_VARIANTS", str(folder))
    yield folder
    games._FROM_ENV.pop("propdice", None)


def test_plugin_variant_is_named_listed_and_extended(plugin, tmp_path):
    from sim.runs.variants import list_shipped, load

    v = load("propdice/standard")
    assert v.name == "propdice/standard" and v.game.name == "propdice" and v.rules["goal"] == 15
    assert v.path == plugin / "propdice" / "standard.toml"
    assert "propdice/standard" in list_shipped() and "hexflow/race" in list_shipped()
    child = tmp_path / "child.toml"
    child.write_text('extends = "propdice/standard"\n[rules]\nsides = 4\n')
    c = load(child)
    assert (c.rules["goal"], c.rules["sides"], c.name) == (15, 4, "propdice/child")


def test_shipped_name_wins_over_a_plugin_folder(plugin):
    from sim.runs.variants import VARIANTS_DIR, load

    (plugin / "hexflow").mkdir()
    (plugin / "hexflow" / "race.toml").write_text('game = "hexflow"\n[rules]\nhand_size = 2\n')
    assert load("hexflow/race").path == VARIANTS_DIR / "hexflow" / "race.toml"


def test_search_path_errors_are_one_line(plugin, monkeypatch, tmp_path):
    from sim.errors import VariantError
    from sim.runs.variants import load

    (plugin / "flags").mkdir()
    (plugin / "flags" / "odd.toml").write_text(STANDARD)
    with pytest.raises(VariantError, match=r"odd.toml: game = 'propdice' but the file lies in the "
                                           r"folder of game 'flags'"):
        load("flags/odd")
    monkeypatch.setenv("HEXSIM_VARIANTS", os.pathsep.join([str(plugin), str(tmp_path / "nope")]))
    with pytest.raises(VariantError, match=r"HEXSIM_VARIANTS: .*nope: no such folder"):
        load("propdice/standard")
    monkeypatch.delenv("HEXSIM_VARIANTS")
    with pytest.raises(VariantError, match="more from folders named by HEXSIM_VARIANTS"):
        load("propdice/standard")


def test_unknown_game_error_names_hexsim_games(variant_file):
    from typer.testing import CliRunner

    from sim.cli import app

    v = variant_file("g.toml", 'game = "nosuchgame"\n')
    res = CliRunner().invoke(app, ["run", str(v), "--games", "5", "--jobs", "1"])
    assert res.exit_code == 2
    line = res.output.strip()
    assert "\n" not in line and "unknown game 'nosuchgame'" in line and "HEXSIM_GAMES=" in line


def test_variants_command_lists_plugin_variants_and_games(plugin):
    from typer.testing import CliRunner

    from sim.cli import app

    res = CliRunner().invoke(app, ["variants"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert any(ln.startswith("hexflow/race ") for ln in lines)
    mine = [ln for ln in lines if ln.startswith("propdice/standard ")]
    assert mine and "Dice race, plug-in fixture" in mine[0] and str(plugin) in mine[0]
    assert ("plug-in game propdice (HEXSIM_GAMES module tests.fixtures.prop_dice, version 2.5.0)"
            in lines)


def test_manifest_records_the_plugin_version(plugin, tmp_path, racedice):
    import sim
    from sim.games import game_version

    r = sim.run("propdice/standard", 20, jobs=1, out=tmp_path / "run", progress=False)
    assert r.manifest["game_version"] == {"module": "tests.fixtures.prop_dice", "version": "2.5.0",
                                          "from": "tests.fixtures.prop_dice.__version__"}
    assert game_version(racedice) == {"module": "tests.fixtures.race_dice", "version": None,
                                      "from": None}  # no __version__, no distribution
    assert game_version(sim.games.get("flags"))["from"] == "hexsim"


def test_plugin_passes_the_shared_checks(plugin):
    from sim import games
    from sim.testing import check_game, check_warm

    game = games.get("propdice")
    check_game(game, "propdice/standard", n=30, traced=3)
    check_game(game, {"goal": 8, "sides": 3}, ["random", "greedy"], n=12, traced=2)
    check_warm(game)


def test_workflows_accept_proportions_without_value(plugin, tmp_path):
    """`report_metrics` rows with successes and n but no value (which `report` accepts) once
    crashed sweep, compare and baseline with KeyError: 'value' in the value bootstrap."""
    import sim
    from sim.workflows import baseline
    from sim.workflows.compare import compare  # (sim.compare / sim.sweep are modules once imported)
    from sim.workflows.sweep import sweep

    sw = sweep("propdice/standard", {"rules.goal": [10, 20]}, games=60, jobs=1,
                   out=tmp_path / "sweep")
    t = sw.table
    close = t[t["metric"] == "close finish"]
    assert len(close) == 2 and (close["kind"] == "proportion").all()
    assert (close["successes"] <= close["n"]).all() and close["n"].tolist() == [60, 60]
    margin = t[t["metric"] == "margin mean"]
    assert margin["ci_low"].notna().all() and (margin["ci_low"] <= margin["ci_high"]).all()
    longer = tmp_path / "longer.toml"
    longer.write_text('extends = "propdice/standard"\n[rules]\ngoal = 30\n')
    cmp = compare("propdice/standard", str(longer), games=40, jobs=1, out=tmp_path / "cmp")
    assert {"close finish", "margin mean"} <= set(cmp.table["metric"])
    saved = baseline.save(["propdice/standard"], games=40, out=tmp_path / "b.json", jobs=1)
    assert saved[0].data["variant"]["spec"] == "propdice/standard"  # found again by name
    report = baseline.check([tmp_path / "b.json"], games=40, jobs=1)
    assert report.ok, report.summary()
    rep = sim.report([sw.runs[0].path], out=tmp_path / "rep")
    assert "close finish" in rep.html.read_text()


def test_bench_includes_plugin_games(plugin, tmp_path, racedice):
    import json

    from sim import games
    from sim.perf import bench

    assert "propdice" in games.listed() and "hexflow" in games.listed()
    assert "racedice" not in games.listed()  # registered from Python by a test: not listed
    assert bench.bench_bots(games.get("propdice")) == ["random", "greedy"]
    bench.main(["--only", "propdice", "--no-compile", "--seconds", "0.1", "--repeats", "1",
                "--out", str(tmp_path / "bench.json")])
    got = json.loads((tmp_path / "bench.json").read_text())["games"]["propdice"]
    assert set(got) == {"default/random", "default/greedy"}
    bench.warm_for_timing("propdice")  # a game without its own warm(): plays its modes


def test_baseline_records_a_shadowed_name_by_path(plugin):
    """A file on HEXSIM_VARIANTS named like a shipped variant is found again by its path."""
    from sim.runs.variants import load
    from sim.workflows import baseline

    (plugin / "hexflow").mkdir()
    shadow = plugin / "hexflow" / "race.toml"
    shadow.write_text('game = "hexflow"\ndescription = "d"\n[rules]\nhand_size = 2\n')
    assert baseline.spec_of(load(shadow)) == str(shadow)
    assert baseline.spec_of(load("hexflow/race")) == "hexflow/race"
    assert baseline.spec_of(load("propdice/standard")) == "propdice/standard"


def test_shared_checks_catch_broken_table_hooks(tmp_path):
    """sim.testing fails a game whose report rows, picture or columns are wrong."""
    from sim.testing import check_game
    from tests.fixtures.prop_dice import PropDice

    class NoValue(PropDice):
        def report_metrics(self, df, rules):
            return [{"metric": "oops"}]

    class Twice(PropDice):
        def report_metrics(self, df, rules):
            return [{"metric": "m", "value": 1.0}, {"metric": "m", "value": 2.0}]

    class NoPicture(PropDice):
        def draw(self, trace, path, every_move=False):
            Path(path).write_text("not a png")

    class Unprefixed(PropDice):
        def play_chunk(self, rules, seats, first_game, n_games, run_seed):
            cols = super().play_chunk(rules, seats, first_game, n_games, run_seed)
            cols["margin"] = cols.pop("propdice_margin")
            return cols

    for game, needle in [(NoValue(), "oops: neither successes and n nor a number"),
                         (Twice(), "'m' reported twice"), (NoPicture(), "did not write a PNG"),
                         (Unprefixed(), "unprefixed column margin")]:
        with pytest.raises(AssertionError, match=needle):
            check_game(game, {}, "random", n=8, traced=1)
    check_game(NoPicture(), {}, "random", n=8, traced=1, draw=False)  # the picture check is optional
