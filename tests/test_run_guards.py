"""Run folders that cannot mislead: a part is complete or absent (each one's games, size and
sha256 are in the manifest), a damaged table is refused by every reader and re-played on resume,
bad options are refused before anything is written, and an unfinished run is reported only
with --partial. Every refusal: one line, exit 2, no traceback."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import sim
from sim.cli import app
from sim.runs.variants import load

TEXT = 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
PART = "part-r00-000000000020.parquet"


def _one_line(res, *needles, code=2):
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def vfile(variant_file):
    return variant_file("v.toml", TEXT)


@pytest.fixture
def made(vfile, tmp_path):
    """A finished run of 60 games in parts of 10, and a function copying it to a new folder."""
    base = tmp_path / "base"
    sim.run(load(str(vfile)), 60, seed=2, jobs=1, out=base, chunk_size=10, progress=False)

    def copy(name: str) -> Path:
        return Path(shutil.copytree(base, tmp_path / name))

    return copy


def _edit_manifest(run: Path, change) -> None:
    m = json.loads((run / "manifest.json").read_text())
    change(m)
    (run / "manifest.json").write_text(json.dumps(m))


def _truncate(run: Path) -> None:
    p = run / "games" / PART
    p.write_bytes(p.read_bytes()[:400])


def _flip(run: Path) -> None:
    p = run / "games" / PART
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0xFF
    p.write_bytes(bytes(b))


def _foreign(run: Path) -> None:
    pd.DataFrame({"x": [1, 2, 3]}).to_parquet(run / "games" / "notes.parquet")


def _unlisted(run: Path) -> None:
    _edit_manifest(run, lambda m: m["parts"].pop(PART))


def _other_runs_part(run: Path, tmp_path: Path, vfile: Path) -> None:
    other = sim.run(load(str(vfile)), 60, seed=9, jobs=1, out=tmp_path / "seed9", chunk_size=10,
                    progress=False)
    shutil.copy(other.path / "games" / PART, run / "games" / PART)


def _old_truncated(run: Path) -> None:
    _edit_manifest(run, lambda m: m.pop("parts"))  # a folder from before parts were recorded
    _truncate(run)


def _old_wrong_rows(run: Path) -> None:
    _edit_manifest(run, lambda m: m.pop("parts"))
    p = run / "games" / PART
    pq.write_table(pq.read_table(p).slice(0, 4), p)


DAMAGE = {
    "truncated": (_truncate, "truncated (400 of"),
    "flipped byte": (_flip, "not the part this run wrote (its sha256 differs"),
    "foreign file": (_foreign, "notes.parquet: not a part of this run"),
    "unlisted part": (_unlisted, "not listed in manifest.json"),
    "other run's part": (_other_runs_part, "not the part this run wrote"),
    "old manifest, truncated": (_old_truncated, "not a readable Parquet file (ArrowInvalid"),
    "old manifest, 4 of 10 games": (_old_wrong_rows, "holds 4 games, the run needs 10 there"),
}


def _damage(kind, run, tmp_path, vfile):
    fn, needle = DAMAGE[kind]
    fn(run, tmp_path, vfile) if fn is _other_runs_part else fn(run)
    return needle


def test_manifest_records_every_part(made):
    run = made("r")
    m = json.loads((run / "manifest.json").read_text())
    assert sorted(m["parts"]) == sorted(p.name for p in (run / "games").glob("part-*.parquet"))
    from sim.runs.tables import part_record

    for name, record in m["parts"].items():
        assert record == part_record(run / "games" / name, 10)


@pytest.mark.parametrize("kind", list(DAMAGE))
@pytest.mark.parametrize("command", ["report", "games"])
def test_readers_refuse_a_damaged_table(made, tmp_path, vfile, kind, command):
    run = made("r")
    needle = _damage(kind, run, tmp_path, vfile)
    args = [command, str(run)] + (["--out", str(tmp_path / "rep")] if command == "report" else [])
    line = _one_line(CliRunner().invoke(app, args), needle, "rerun the same `hexsim run`")
    assert str(run / "games") in line
    assert not (tmp_path / "rep").exists()


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_resume_replays_a_damaged_part_and_equals_a_fresh_run(made, tmp_path, vfile, kind):
    run = made("r")
    needle = _damage(kind, run, tmp_path, vfile)
    res = CliRunner().invoke(app, ["run", str(vfile), "--games", "60", "--seed", "2",
                                   "--jobs", "1", "--out", str(run), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert needle in res.output and ("playing it again" in res.output or "moved aside" in res.output)
    fresh = sim.run(load(str(vfile)), 60, seed=2, jobs=1, out=tmp_path / "fresh", chunk_size=60,
                    progress=False)
    pd.testing.assert_frame_equal(tables_of(run), fresh.table())
    m = json.loads((run / "manifest.json").read_text())
    assert m["status"] == "complete" and len(m["parts"]) == 6
    assert m["timings"]["games_played_now"] == (0 if kind == "foreign file" else 10)
    res = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "rep"),
                                   "--no-replays"])
    assert res.exit_code == 0, res.output


def tables_of(run: Path) -> pd.DataFrame:
    from sim.runs import tables

    return tables.read_table(run)


def test_an_old_folder_resumes_without_replaying_and_gains_records(made, vfile):
    run = made("old")
    _edit_manifest(run, lambda m: m.pop("parts"))
    r = sim.run(load(str(vfile)), 60, seed=2, jobs=1, out=run, progress=False)
    assert r.manifest["timings"]["games_resumed"] == 60 and len(r.manifest["parts"]) == 6


@pytest.mark.parametrize("text, needle", [
    ("half", "not valid JSON"),
    (b"\xff\xfe\x00garbage", "not valid JSON ('utf-8' codec"),
    ("[1, 2]", "not a run manifest (a JSON list, not an object)"),
])
@pytest.mark.parametrize("command", ["report", "games", "run"])
def test_a_bad_manifest_is_one_line(made, tmp_path, vfile, text, needle, command):
    run = made("r")
    path = run / "manifest.json"
    if text == "half":
        whole = path.read_text()
        path.write_text(whole[: len(whole) // 2])
    elif isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    before = path.read_bytes()
    args = {"report": ["report", str(run), "--out", str(tmp_path / "rep")],
            "games": ["games", str(run)],
            "run": ["run", str(vfile), "--games", "60", "--out", str(run), "--no-progress"]}[command]
    _one_line(CliRunner().invoke(app, args), str(path), needle)
    assert path.read_bytes() == before and not (tmp_path / "rep").exists()


@pytest.mark.parametrize("command, needle", [
    (["run", "{v}", "--games", "10", "--no-progress", "--out", "{bad}"], "cannot write the run folder"),
    (["report", "{run}", "--out", "{bad}"], "--out {bad}: cannot create the folder"),
    (["games", "{run}", "--replay", "1", "--out", "{bad}"], "--out {bad}: cannot create the folder"),
])
def test_unwritable_out_is_one_line(made, tmp_path, vfile, command, needle):
    (tmp_path / "afile").write_text("a file, not a folder")
    bad = tmp_path / "afile" / "out"
    subs = {"{v}": str(vfile), "{run}": str(made("r")), "{bad}": str(bad)}
    args = [subs.get(a, a) for a in command]
    _one_line(CliRunner().invoke(app, args), needle.replace("{bad}", str(bad)), "Not a directory")


@pytest.mark.parametrize("extra, needle", [
    (["--backend", "spark"], "--backend spark: allowed: loky, threading, sequential, dask"),
    (["--backend", "dask"], "--backend dask needs --scheduler"),
    (["--chunk-size", "0"], "--chunk-size 0: must be at least 1"),
    (["--chunk-size", "-5"], "--chunk-size -5: must be at least 1"),
])
def test_bad_run_options_write_nothing(tmp_path, vfile, extra, needle):
    out = tmp_path / "r"
    res = CliRunner().invoke(app, ["run", str(vfile), "--games", "10", "--out", str(out), *extra])
    _one_line(res, needle)
    assert not out.exists()


@pytest.mark.parametrize("command", [
    ["tune", "{v}", "--vary", "rules.goal=20..30", "--target", "first_mover_share=0.5"],
    ["sensitivity", "{v}", "--games", "10"],
    ["ladder", "{v}", "--bot", "random", "--bot", "greedy", "--games", "10"],
])
def test_every_command_refuses_a_bad_backend_first(tmp_path, vfile, command):
    out = tmp_path / "o"
    args = [str(vfile) if a == "{v}" else a for a in command]
    res = CliRunner().invoke(app, [*args, "--out", str(out), "--backend", "spark"])
    _one_line(res, "--backend spark: allowed")
    assert not out.exists()


def _unfinished(run: Path) -> None:
    def change(m):
        m["games"], m["status"] = 3000, "running"
    _edit_manifest(run, change)


def test_report_refuses_an_unfinished_run_unless_partial(made, tmp_path):
    run = made("short")
    _unfinished(run)
    out = tmp_path / "rep"
    res = CliRunner().invoke(app, ["report", str(run), "--out", str(out)])
    _one_line(res, f"unfinished run: {run} (partial: 60 of 3,000 games)", "--partial")
    assert not out.exists()
    res = CliRunner().invoke(app, ["report", str(run), "--out", str(out), "--partial",
                                   "--no-replays"])
    assert res.exit_code == 0, res.output
    assert "racedice/v: partial: 60 of 3,000 games" in res.output
    assert "v (partial: 60 of 3,000 games)" in (out / "report.md").read_text()
    assert "v (partial: 60 of 3,000 games)" in (out / "report.html").read_text()
    rep = sim.report([run], tmp_path / "api", partial=True, replays=False)
    assert rep.partial == {"racedice/v": "partial: 60 of 3,000 games"}


def test_report_refuses_a_run_not_marked_complete(made, tmp_path):
    run = made("running")
    _edit_manifest(run, lambda m: m.update(status="running"))
    res = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "rep")])
    _one_line(res, "partial: run running, 60 of 60 games")
