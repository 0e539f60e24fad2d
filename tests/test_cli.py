"""The hexsim command through typer's CliRunner: runs, bad input (exit 2, one line, no traceback)."""

import pandas as pd
import pytest
from typer.testing import CliRunner

from sim.cli import app

TEXT = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'


@pytest.fixture
def cli():
    return CliRunner()


def test_run_writes_table(cli, variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    res = cli.invoke(app, ["run", str(v), "--games", "50", "--jobs", "1", "--out",
                           str(tmp_path / "r"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "racedice/v: 50 games" in res.output
    assert len(pd.read_parquet(tmp_path / "r" / "games")) == 50


def test_run_several_variants_one_folder_each(cli, variant_file, tmp_path):
    a = variant_file("a.toml", TEXT)
    b = variant_file("b.toml", TEXT.replace("25", "30"))
    res = cli.invoke(app, ["run", str(a), str(b), "--games", "10", "--jobs", "1", "--out",
                           str(tmp_path / "r"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r" / "racedice-a" / "manifest.json").exists()
    assert (tmp_path / "r" / "racedice-b" / "manifest.json").exists()


@pytest.mark.parametrize("text, needle", [
    (TEXT.replace("goal", "gaol"), "unknown key rules.gaol (did you mean 'goal'?)"),
    ("game = [", "not valid TOML"),
    (TEXT + '[seats]\nA = "wizard"\n', "unknown bot 'wizard'"),
])
def test_bad_variant_exit_2_one_line(cli, variant_file, tmp_path, text, needle):
    good = variant_file("good.toml", TEXT)
    bad = variant_file("bad.toml", text)
    out = tmp_path / "r"
    res = cli.invoke(app, ["run", str(good), str(bad), "--games", "10", "--out", str(out),
                           "--no-progress"])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and str(bad) in lines[0]
    assert "Traceback" not in res.output
    assert not out.exists()  # nothing is played when any input is bad


def test_missing_variant_and_bad_numbers(cli, tmp_path):
    res = cli.invoke(app, ["run", "nowhere/none.toml", "--no-progress"])
    assert res.exit_code == 2 and "no such variant file" in res.output
    res = cli.invoke(app, ["run", "nowhere/none.toml", "--games", "0", "--no-progress"])
    assert res.exit_code == 2
    res = cli.invoke(app, ["report", str(tmp_path)])
    assert res.exit_code == 2 and "manifest.json: missing" in res.output


def test_run_then_report(cli, variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    cli.invoke(app, ["run", str(v), "--games", "300", "--jobs", "1", "--out", str(tmp_path / "r"),
                     "--no-progress"])
    res = cli.invoke(app, ["report", str(tmp_path / "r"), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "racedice/v" in html and "data:image/png;base64" in html
    assert "A (greedy), B (greedy)" in (tmp_path / "rep" / "report.md").read_text()
    summary = pd.read_csv(tmp_path / "rep" / "summary.csv")
    assert {"metric", "variant", "value", "successes", "n", "ci_low", "ci_high"} <= set(summary)
    assert (summary["variant"] == "racedice/v").any()


def test_crash_exit_1_names_game(cli, variant_file, tmp_path):
    v = variant_file("c.toml", TEXT + "crash_at = 3\n")
    res = cli.invoke(app, ["run", str(v), "--games", "10", "--jobs", "1", "--out",
                           str(tmp_path / "r"), "--no-progress"])
    assert res.exit_code == 1
    assert "game 3 (run seed 0" in res.output and "hexsim replay" in res.output


def test_rules_lists_parameters(cli, racedice):
    res = cli.invoke(app, ["rules", "racedice"])
    assert res.exit_code == 0 and "goal" in res.output and "greedy" in res.output
    res = cli.invoke(app, ["rules", "chess"])
    assert res.exit_code == 2 and "unknown game 'chess'" in res.output


def test_rules_warns_per_mode(cli):
    """HEXFLOW's Battle and Tri-Board contradictions show, not only Race's (its defaults)."""
    res = cli.invoke(app, ["rules", "hexflow"])
    assert res.exit_code == 0, res.output
    for mode in ("race", "battle", "tri", "tri2p"):
        assert f"warnings (defaults of mode {mode}):" in res.output
    assert "battle_transit_home" in res.output and "sum to 17" in res.output


def test_replay_draws(cli, variant_file, tmp_path):
    v = variant_file("v.toml", TEXT)
    png = tmp_path / "g.png"
    res = cli.invoke(app, ["replay", str(v), "--game", "4", "--out", str(png)])
    assert res.exit_code == 0, res.output
    assert png.stat().st_size > 1000


def test_rule_text_readings_are_one_short_line_each():
    """`hexsim run` names each reading once, shortened to one line, with the game's variant
    count and where the full text is (`hexsim rules GAME`)."""
    from sim.cli import WARNING_WIDTH, warning_lines
    from sim.runs.variants import load

    loaded = [load(f"flags/{n}") for n in ("standard", "swap", "hand4")]
    lines = warning_lines(loaded)
    full = loaded[0].warnings()
    assert len(lines) == len(full) > 0
    for line in lines:
        assert "\n" not in line and line.startswith("reading (3 flags variants): ")
        assert line.endswith("[hexsim rules flags]")
        assert len(line) <= len("reading (3 flags variants): ") + WARNING_WIDTH + len(" [hexsim rules flags]")
