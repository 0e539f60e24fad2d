"""sweep: --set parsing, the grid, intervals per setting, fair-share marks, figures, CLI."""

import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from sim.cli_workflows import register
from sim.errors import UserError, VariantError
from sim.metrics import wilson
from sim.sweep import parse_set, parse_value, sweep

# A random bot against a greedy one with a big bonus: in a long race B wins whoever moves first,
# so the first mover's share of wins is about 1/2 (fair); with goal = 1 whoever rolls first wins.
TEXT = ('game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
        '[seats]\nA = "random"\nB = { bot = "greedy", bonus = 6 }\n')


def test_parse_values_and_errors():
    assert parse_set("rules.hand_size=2,3,4,5") == ("rules.hand_size", [2, 3, 4, 5])
    assert parse_set("rules.x = 0.5, 1") == ("rules.x", [0.5, 1])
    assert parse_set('rules.mode=race,"battle"') == ("rules.mode", ["race", "battle"])
    assert parse_value("true") is True and parse_value("1e3") == 1000.0
    for bad, needle in [("rules.x", "use --set"), ("x=1,2", "rules.NAME"), ("rules.x=1,1", "repeated"),
                        ("rules.=1", "rules.NAME"), ("rules.x=", "use --set")]:
        with pytest.raises(UserError, match=needle):
            parse_set(bad)


def test_one_parameter_sweep(variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    res = sweep(str(v), {"rules.goal": [1, 200]}, games=400, jobs=1, out=tmp_path / "sw")
    t = res.table
    assert res.params == ["rules.goal"] and len(res.runs) == 2
    assert sorted(set(t["rules.goal"])) == [1, 200]
    assert len(t) == 2 * t["metric"].nunique()
    assert res.variants[0].rules["goal"] == 1 and res.variants[1].rules["goal"] == 200
    share = t[t["metric"] == "first_mover_share"].set_index("rules.goal")
    assert share.loc[1, "value"] == 1.0 and share.loc[1, "fair_in_ci"] == False  # noqa: E712
    assert share.loc[200, "fair_in_ci"] == True  # noqa: E712
    assert res.fair_points()["rules.goal"].tolist() == [200]
    # intervals are the Wilson intervals of the run's own counts
    df = res.runs[1].table()
    dec = df[df["winner"] >= 0]
    k = int((dec["winner"] == dec["first_seat"]).sum())
    assert (share.loc[200, "ci_low"], share.loc[200, "ci_high"]) == pytest.approx(wilson(k, len(dec)))
    turns = t[t["metric"] == "turns_mean"].set_index("rules.goal")
    assert turns.loc[200, "ci_low"] < turns.loc[200, "value"] < turns.loc[200, "ci_high"]
    assert turns.loc[200, "value"] == pytest.approx(df["turns"].mean())
    csv = pd.read_csv(tmp_path / "sw" / "sweep.csv")
    assert {"rules.goal", "metric", "value", "ci_low", "ci_high", "fair_in_ci"} <= set(csv.columns)
    md = (tmp_path / "sw" / "sweep.md").read_text()
    assert "includes the fair share at: goal=200" in md.replace("rules.goal", "goal")
    assert (tmp_path / "sw" / "sweep.png").stat().st_size > 1000


def test_common_seeds_across_the_grid(variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    res = sweep(str(v), {"rules.sides": [6, 8]}, games=50, jobs=1, out=tmp_path / "sw", write=False)
    a, b = (r.table() for r in res.runs)
    assert np.array_equal(a["seed"], b["seed"])
    assert not res.files


def test_two_parameter_heatmap(variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    res = sweep(str(v), {"rules.goal": [5, 30], "rules.sides": [4, 8, 12]}, games=100, jobs=1,
                out=tmp_path / "sw")
    t = res.table
    assert len(res.runs) == 6
    pts = t[t["metric"] == "turns_mean"][["rules.goal", "rules.sides"]].values.tolist()
    assert pts == [[5, 4], [5, 8], [5, 12], [30, 4], [30, 8], [30, 12]]
    assert (tmp_path / "sw" / "sweep.png").stat().st_size > 1000


def test_bad_values_fail_before_any_game(variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    with pytest.raises(VariantError, match="goal = 0 out of range"):
        sweep(str(v), {"rules.goal": [10, 0]}, games=10, jobs=1, out=tmp_path / "sw")
    assert not (tmp_path / "sw").exists()
    with pytest.raises(VariantError, match="unknown key rules.gaol"):
        sweep(str(v), {"rules.gaol": [1]}, games=10, jobs=1, out=tmp_path / "sw")


def test_cli_sweep(variant_file, tmp_path):
    app = typer.Typer()
    register(app)
    v = variant_file("v.toml", TEXT)
    r = CliRunner().invoke(app, ["sweep", str(v), "--set", "rules.goal=1,200", "--games", "300",
                                 "--jobs", "1", "--out", str(tmp_path / "o"), "--no-progress"])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert any(ln.startswith("rules.goal=200") and "includes fair share" in ln for ln in lines)
    assert any(ln.startswith("rules.goal=1:") and "fair" not in ln for ln in lines)
    r = CliRunner().invoke(app, ["sweep", str(v), "--set", "rules.goal=1", "--set", "rules.goal=2"])
    assert r.exit_code == 2 and "given twice" in r.output
    r = CliRunner().invoke(app, ["sweep", str(v), "--set", "goal=1"])
    assert r.exit_code == 2 and "Traceback" not in r.output
