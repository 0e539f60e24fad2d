"""sweep: --set parsing, the grid, intervals per setting, fair-share marks, figures, CLI."""

import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from sim.cli.workflows import register
from sim.errors import UserError, VariantError
from sim.stats import wilson
from sim.workflows.sweep import parse_set, parse_value, sweep

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
    assert share.loc[1, "value"] == 1.0 and share.loc[1, "fairness"] == "unfair"
    # 400 games of a fair race include 50% in the interval, but cannot show +/-2 points
    assert share.loc[200, "ci_low"] < 0.5 < share.loc[200, "ci_high"]
    assert share.loc[200, "fairness"] == "cannot tell" and share.loc[200, "games_needed"] > 400
    assert "cannot tell: neither shown within nor beyond +/-2 points; about" in share.loc[200, "fairness_sentence"]
    assert res.fair_points().empty and res.points("unfair")["rules.goal"].tolist() == [1]
    # intervals are the Wilson intervals of the run's own counts
    df = res.runs[1].table()
    dec = df[df["winner"] >= 0]
    k = int((dec["winner"] == dec["first_seat"]).sum())
    ci = wilson(k, len(dec))
    assert (share.loc[200, "ci_low"], share.loc[200, "ci_high"]) == pytest.approx((ci.low, ci.high))
    turns = t[t["metric"] == "turns_mean"].set_index("rules.goal")
    assert turns.loc[200, "ci_low"] < turns.loc[200, "value"] < turns.loc[200, "ci_high"]
    assert turns.loc[200, "value"] == pytest.approx(df["turns"].mean())
    csv = pd.read_csv(tmp_path / "sw" / "sweep.csv")
    assert {"rules.goal", "metric", "value", "ci_low", "ci_high", "fairness",
            "p_equivalence"} <= set(csv.columns)
    md = (tmp_path / "sw" / "sweep.md").read_text()
    assert "No setting is shown fair within +/-2 points." in md
    assert "goal=1: The first mover wins 100.0% of decisive games" in md.replace("rules.goal", "goal")
    assert (tmp_path / "sw" / "sweep.png").stat().st_size > 1000


def test_fair_only_by_equivalence(variant_file, tmp_path):
    """Enough games of the fair race show it within the margin; a wider margin needs fewer."""
    v = variant_file("v.toml", TEXT)
    res = sweep(str(v), {"rules.goal": [200]}, games=8000, jobs=1, out=tmp_path / "sw")
    share = res.table[res.table["metric"] == "first_mover_share"].iloc[0]
    assert share["fairness"] == "fair" and share["p_equivalence"] < 0.05
    assert res.fair_points()["rules.goal"].tolist() == [200]
    assert "Fair within +/-2 points at: rules.goal=200" in (tmp_path / "sw" / "sweep.md").read_text()
    wide = sweep(str(v), {"rules.goal": [200]}, games=1000, jobs=1, out=tmp_path / "w",
                 margin=0.06, write=False)
    assert wide.table.set_index("metric").loc["first_mover_share", "fairness"] == "fair"
    with pytest.raises(UserError, match="--margin 0.6: must be above 0 and below 0.5"):
        sweep(str(v), {"rules.goal": [200]}, games=10, jobs=1, out=tmp_path / "x", margin=0.6)
    assert not (tmp_path / "x").exists()


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
    assert any(ln.startswith("rules.goal=200") and "cannot tell: " in ln for ln in lines)
    assert any(ln.startswith("rules.goal=1:") and "unfair, by about 50 points" in ln for ln in lines)
    assert "no setting is shown fair within +/-2 points" in r.output
    r = CliRunner().invoke(app, ["sweep", str(v), "--set", "rules.goal=200", "--games", "1000",
                                 "--margin", "0.06", "--jobs", "1", "--out", str(tmp_path / "m"),
                                 "--no-progress"])
    assert r.exit_code == 0 and "fair within +/-6 points" in r.output, r.output
    r = CliRunner().invoke(app, ["sweep", str(v), "--set", "rules.goal=2", "--margin", "0"])
    assert r.exit_code == 2 and "--margin 0.0: must be above 0" in r.output
    r = CliRunner().invoke(app, ["sweep", str(v), "--set", "rules.goal=1", "--set", "rules.goal=2"])
    assert r.exit_code == 2 and "given twice" in r.output
    r = CliRunner().invoke(app, ["sweep", str(v), "--set", "goal=1"])
    assert r.exit_code == 2 and "Traceback" not in r.output
