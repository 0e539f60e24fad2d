"""Bad input that used to slip through: a variant file that is not UTF-8 (a raw
UnicodeDecodeError traceback) and --jobs 0 (silently accepted). One line, exit 2, no traceback."""

import pytest
from typer.testing import CliRunner

from sim.cli import app

TEXT = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'


def _one_line(res, *needles):
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert "Traceback" not in res.output
    for n in needles:
        assert n in lines[0]


def test_variant_file_not_utf8(tmp_path, racedice):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(TEXT.replace('"d"', '"caf\xe9"').encode("latin-1"))
    res = CliRunner().invoke(app, ["run", str(bad), "--games", "10", "--no-progress",
                                   "--out", str(tmp_path / "r")])
    _one_line(res, str(bad), "not valid UTF-8", "0xe9")
    assert not (tmp_path / "r").exists()
    res = CliRunner().invoke(app, ["compare", str(bad), str(bad), "--games", "10"])
    _one_line(res, "not valid UTF-8")


@pytest.mark.parametrize("command", [
    ["run", "{v}", "--games", "10", "--no-progress"],
    ["compare", "{v}", "{v}", "--games", "10", "--no-progress"],
    ["sweep", "{v}", "--set", "rules.goal=20,25", "--games", "10", "--no-progress"],
    ["baseline", "save", "{v}", "--games", "10"],
    ["check", "{v}"],
])
@pytest.mark.parametrize("jobs", ["0", "-2"])
def test_jobs_must_be_positive(tmp_path, racedice, command, jobs):
    v = tmp_path / "v.toml"
    v.write_text(TEXT)
    args = [a.replace("{v}", str(v)) for a in command] + ["--jobs", jobs]
    res = CliRunner().invoke(app, args)
    _one_line(res, f"--jobs {jobs}: must be at least 1")
    assert not list(tmp_path.glob("**/manifest.json"))
