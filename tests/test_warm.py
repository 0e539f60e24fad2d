"""hexsim warm says what it will do before it compiles: the parts, and about how long in all from
the games' `warm_parts` estimates; then a line as each part starts and ends."""

from __future__ import annotations

import os

from typer.testing import CliRunner

from sim.runs import warm


def test_the_estimate_schedules_the_longest_first(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    tasks = [("a", "all", 30.0), ("b", "x", 72.0), ("b", "y", 51.0), ("c", "all", 55.0)]
    # two at a time: 72 | 55, then 51 after 55 (106), 30 after 72 (102)
    assert warm.estimate(tasks, 2) == 106
    assert warm.estimate(tasks, 1) == 208
    assert warm.estimate(tasks, 8) == 106  # no more at once than the cores run


def test_the_plan_of_the_shipped_games_without_compiling():
    tasks = warm.plan()
    assert [t[2] for t in tasks] == sorted((t[2] for t in tasks), reverse=True)
    assert {"hexflow", "flags"} <= {t[0] for t in tasks}
    line = warm.plan_line(tasks, 2)
    # the games listed in the order their longest part starts
    assert line.startswith(f"warm: compiling {len({t[0] for t in tasks})} games ({tasks[0][0]}, ")
    assert f"in {len(tasks)} parts, 2 at a time: about " in line and "min" in line


def test_warm_prints_its_plan_first_then_each_part(coin):
    lines: list[str] = []
    warm.warm(jobs=1, names=["coin"], echo=lines.append)
    assert lines[0].startswith("warm: compiling 1 game (coin) in 1 part, 1 at a time: about 30 s")
    assert lines[1] == "compiling coin (about 30 s)"
    assert lines[2].startswith("compiled coin (0 s; 1/1 parts, ")


def test_cli_warm_prints_the_plan_line_first(monkeypatch):
    from sim.cli import app

    monkeypatch.setattr(warm, "plan", lambda names=None: [])
    r = CliRunner().invoke(app, ["warm"])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].startswith("warm: compiling 0 games () in 0 parts")
    assert r.output.splitlines()[-1].startswith("warm: done in ")
