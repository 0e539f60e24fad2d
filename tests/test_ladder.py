"""The skill ladder (sim/workflows/ladder.py, sim/reports/ladder.py): the Elo fit against OpenSpiel's,
Ludii's SkillTrace, the skill depth, bot specs, and whole ladders on the Hex fixture (same
tables for any --jobs, resumable, early stops, the report's "by skill" section) and on a
three-player shipped game."""

from __future__ import annotations

import importlib
import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import sim
from sim import games, stats
from sim.cli import app
from sim.errors import UserError
from tests.fixtures.hexgame import GAME

ROOT = Path(__file__).resolve().parent.parent
ladder = importlib.import_module("sim.workflows.ladder")  # the module (sim.ladder the attribute may be the function)


@pytest.fixture(scope="module", autouse=True)
def hex_registered():
    games.register(GAME)


@pytest.fixture
def hex4(monkeypatch, tmp_path):
    """Hex 4x4 as a variant file; worker processes find the fixture as a plug-in."""
    monkeypatch.setenv("HEXSIM_GAMES", "tests.fixtures.hexgame")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    v = tmp_path / "hex4.toml"
    v.write_text('game = "hex"\ndescription = "Hex 4x4"\n[rules]\nsize = 4\n')
    return v


# ---- the fit against OpenSpiel's Elo -----------------------------------------------------------
def openspiel_elo(wins: np.ndarray, draws: np.ndarray, smoothing: float = 0.1, max_iterations: int = 2000,
                  delta: float = 1e-10, scale: float = 400.0) -> np.ndarray:
    """A reference written from open_spiel/evaluation/elo.cc (ComputeElo): Hunter's MM on
    W = wins + draws / 2 + smoothing in every cell, gammas normalised to sum 1 after each sweep
    (floored at the smallest denormal), stop when no gamma moves by `delta`, Elo = scale log10
    gamma, shifted so the lowest is 0."""
    k = wins.shape[0]
    w = np.full((k, k), smoothing) + wins + 0.5 * draws
    total = np.zeros(k)
    n = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            total[i] += w[i, j]
            total[j] += w[j, i]
            n[i, j] = n[j, i] = w[i, j] + w[j, i]
    g = np.ones(k)
    for _ in range(max_iterations):
        new = np.empty(k)
        for i in range(k):
            ratios = sum(n[i, j] / (g[i] + g[j]) for j in range(k) if j != i)
            new[i] = total[i] / ratios
        new = np.maximum(new / new.sum(), np.finfo(float).smallest_subnormal)
        if np.max(np.abs(g - new)) < delta:
            break
        g = new
    r = scale * np.log10(g)
    return r - r.min()


def _random_records(rng, k, games=400):
    wins = np.zeros((k, k))
    draws = np.zeros((k, k))
    strength = rng.normal(0, 1.2, k)
    for i in range(k):
        for j in range(i + 1, k):
            p = 1 / (1 + np.exp(strength[j] - strength[i]))
            d = rng.binomial(games, 0.1)
            wi = rng.binomial(games - d, p)
            wins[i, j], wins[j, i], draws[i, j], draws[j, i] = wi, games - d - wi, d, d
    return wins, draws


@pytest.mark.parametrize("k, seed", [(2, 0), (4, 1), (6, 2), (9, 3)])
def test_fit_matches_openspiel_elo(k, seed):
    wins, draws = _random_records(np.random.default_rng(seed), k)
    ours = ladder.fit_elo(wins + draws / 2, np.ones((k, k), bool), smoothing=0.1)
    ref = openspiel_elo(wins, draws)
    np.testing.assert_allclose(ours - ours.min(), ref, atol=1e-6, rtol=0)


def test_fit_without_smoothing_is_the_maximum_likelihood():
    wins, draws = _random_records(np.random.default_rng(5), 5)
    ours = ladder.fit_elo(wins + draws / 2, np.ones((5, 5), bool), smoothing=0.0)
    ref = openspiel_elo(wins, draws, smoothing=0.0, max_iterations=100_000, delta=1e-15)
    np.testing.assert_allclose(ours - ours.min(), ref, atol=1e-6, rtol=0)
    # and the hand-written MM in sim.stats agrees too
    np.testing.assert_allclose(ours, sim.stats.bradley_terry(wins + draws / 2), atol=1e-6)


def test_smoothing_touches_only_pairs_that_played():
    # a chain 0 - 1 - 2: pair (0, 2) never met, so its prior must not pull them together
    s = np.array([[0, 60, 0], [40, 0, 70], [0, 30, 0]], float)
    played = s + s.T > 0
    r = ladder.fit_elo(s, played, smoothing=0.0)
    r_s = ladder.fit_elo(s, played, smoothing=0.1)
    assert abs((r_s[2] - r_s[0]) - (r[2] - r[0])) < 2.0
    assert r[0] > r[1] > r[2]  # 0 beat 1 60:40, 1 beat 2 70:30


# ---- SkillTrace and skill depth ----------------------------------------------------------------
def test_skill_trace_follows_ludiis_definition():
    # rising line 0.2, 0.4, 0.6: predicted at level M + 1 = 4 -> 1.0, so SkillTrace = 1
    assert ladder.skill_trace([0.2, 0.4, 0.6]) == pytest.approx(1.0)
    # falling 0.5, 0.3: line 0.5 - 0.2 x predicts -0.1 at x = 3 -> clamped 0; area (0.5 + 0.3) / 2
    assert ladder.skill_trace([0.5, 0.3]) == pytest.approx(0.4)
    # a negative level adds no area: u = 0.1, -0.2, 0.0 -> slope -0.05, intercept 0.0167
    u = np.array([0.1, -0.2, 0.0])
    slope, intercept = np.polyfit(np.arange(3), u, 1)
    y = min(max(intercept + slope * 4, 0), 1)
    assert ladder.skill_trace(u) == pytest.approx(y + (1 - y) * 0.1 / 3)
    assert math.isnan(ladder.skill_trace([0.3]))


def test_skill_depth_counts_consecutive_steps_from_the_weakest():
    order = ["r0", "r1", "r2", "r3"]
    counts = {("r0", "r1"): (20, 80, 0),  # 80%: beats
              ("r1", "r2"): (44, 56, 10),  # 56% but the lower bound is under 50%: does not
              ("r2", "r3"): (10, 90, 0)}  # beats, but after a failed step
    d = ladder.skill_depth(order, counts)
    assert d.depth == 1
    assert list(d.steps["beats"]) == [True, False, True]
    counts[("r1", "r2")] = (400, 600, 0)  # 60%, bound 57%
    assert ladder.skill_depth(order, counts).depth == 3
    counts[("r1", "r2")] = (460, 540, 0)  # 54%: bound above 50% but under the 55% share
    assert ladder.skill_depth(order, counts).depth == 1
    assert ladder.skill_depth(order, {k: v for k, v in counts.items() if k != ("r0", "r1")}).depth == 0


# ---- bot specs ---------------------------------------------------------------------------------
def test_bot_specs_parse_and_validate():
    b = ladder.parse_bot(GAME, "mcts:iterations=40:c=1.5:rollout=greedy")
    assert b.params["iterations"] == 40 and b.params["c"] == 1.5 and b.params["rollout"] == "greedy"
    assert ladder.parse_bot(GAME, "greedy").label() == "greedy"
    # a rung shows the parameters its spec names, even at their default (200 iterations)
    default = ladder.parse_bot(GAME, "mcts:iterations=200")
    assert default.label() == "mcts" and ladder.rung_name(default, "mcts:iterations=200") == "mcts(iterations=200)"
    assert ladder.rung_name(ladder.parse_bot(GAME, "mcts"), "mcts") == "mcts"
    for spec, words in [("mcts:iterations=0", ["--bot mcts:iterations=0", "out of range"]),
                        ("mcts:iters=5", ["no parameter 'iters'", "iterations"]),
                        ("mcts:iterations", ["not param=value"]),
                        ("mcts:rollout=smart", ["'random'", "'greedy'"]),
                        ("smart", ["smart"])]:
        with pytest.raises(UserError) as e:
            ladder.parse_bot(GAME, spec)
        assert all(w in str(e.value) for w in words), str(e.value)
    chain, key = ladder.doubling_chain(GAME, "mcts:iterations=25:rollout=greedy", 4)
    assert key == "iterations" and [b.params["iterations"] for b in chain] == [25, 50, 100, 200]
    assert all(b.params["rollout"] == "greedy" for b in chain)
    with pytest.raises(UserError, match="name the parameter"):
        ladder.doubling_chain(GAME, "mcts", 3)
    with pytest.raises(UserError, match="only an int or float"):
        ladder.doubling_chain(GAME, "mcts:rollout=greedy", 3)


@pytest.mark.parametrize("args, words", [
    (["--bot", "random", "--bot", "mcts:iterations=-3"], ["--bot mcts:iterations=-3", "allowed"]),
    (["--bot", "random"], ["at least two bots"]),
    (["--bot", "random", "--bot", "random"], ["given twice"]),
    (["--bot", "random", "--bot", "greedy", "--pairs", "some"], ["--pairs some", "neighbours, all"]),
    (["--doubling", "mcts:iterations=10", "--rungs", "1"], ["--rungs 1"]),
])
def test_cli_errors_are_one_line_exit_2(hex4, tmp_path, args, words):
    res = CliRunner().invoke(app, ["ladder", str(hex4), *args, "--games", "4", "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1
    assert all(w in res.output for w in words), res.output


# ---- whole ladders -----------------------------------------------------------------------------
BOTS = ["random", "greedy", "mcts:iterations=30"]


def test_ladder_on_hex_tables_and_files(hex4, tmp_path):
    res = sim.ladder(str(hex4), BOTS, games=60, seed=2, jobs=1, out=tmp_path / "lad", n_boot=200)
    r = res.ratings.set_index("bot")
    assert list(res.ratings.columns[:5]) == ["bot", "elo", "elo_low", "elo_high", "games"]
    assert r.loc["random", "elo"] == 0 and r.loc["greedy", "elo"] > 300  # greedy crushes random
    assert (r["elo_low"] <= r["elo"] + 1e-9).all() and (r["elo"] <= r["elo_high"] + 1e-9).all()
    np.testing.assert_allclose(res.ratings["gap_below"].iloc[1:], np.diff(res.ratings["elo"]))
    assert (res.ratings["gap_below_low"].iloc[1:] <= res.ratings["gap_below"].iloc[1:] + 1e-9).all()
    p = res.pairings
    assert list(zip(p["bot_a"], p["bot_b"], strict=True)) == [("random", "greedy"), ("greedy", "mcts(iterations=30)")]
    assert (p["games"] == 60).all() and (p["wins_a"] + p["wins_b"] + p["draws"] == p["games"]).all()
    assert np.allclose(p["score_a"], (p["wins_a"] + p["draws"] / 2) / p["games"])
    assert ((p["score_a_low"] <= p["score_a"]) & (p["score_a"] <= p["score_a_high"])).all()
    # the fit reproduces each pairing's direction
    for row in p.itertuples():
        assert (r.loc[row.bot_a, "elo"] > r.loc[row.bot_b, "elo"]) == (row.wins_a > row.wins_b)
    b = res.by_skill.set_index("bot")
    assert list(b.index) == ["random", "greedy", "mcts(iterations=30)"]
    assert (b["games"] == 60).all()
    assert np.allclose(b["win_rate_A"] + b["win_rate_B"] + b["draw_rate"], 1)
    for bot in b.index:  # the first mover's share, recomputed from the self-play table
        t = pd.concat(pd.read_parquet(f) for f in sorted((tmp_path / "lad" / "runs").glob("self-*/games/*"))
                      if pd.read_parquet(f)["bot_A"].iloc[0] == bot)
        dec = t[t["winner"] >= 0]
        assert b.loc[bot, "first_mover_share"] == pytest.approx((dec["winner"] == dec["first_seat"]).mean())
        assert b.loc[bot, "median_turns"] == t["turns"].median()
    for name in ("ratings.csv", "pairings.csv", "by_skill.csv", "skill_depth.csv", "ladder.md", "ladder.html",
                 "figures/elo.png", "figures/first_mover.png", "figures/end_reasons.png"):
        assert (tmp_path / "lad" / name).stat().st_size > 0
    summary = json.loads((tmp_path / "lad" / "ladder.json").read_text())
    assert summary["skill_depth"] == res.depth.depth and summary["steps"] == 2 and summary["seed"] == 2
    assert summary["first_mover_share"]["weakest"]["bot"] == "random"
    md = (tmp_path / "lad" / "ladder.md").read_text()
    assert "Skill depth" in md and "SkillTrace" in md and "first mover" in md.lower()
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "lad" / "ratings.csv").iloc[:, :5],
                                  res.ratings.iloc[:, :5], check_dtype=False)
    # seats rotated: each pairing's run holds both rotations, each bot in each seat
    runs = sorted((tmp_path / "lad" / "runs").glob("pair*"))
    assert len(runs) == 2
    m = json.loads((runs[0] / "manifest.json").read_text())
    assert m["rotate_seats"] and m["rotations"] == 2


def test_same_ladder_for_any_jobs_and_a_rerun_resumes(hex4, tmp_path):
    a = sim.ladder(str(hex4), BOTS, games=40, seed=5, jobs=1, out=tmp_path / "one", n_boot=100)
    b = sim.ladder(str(hex4), BOTS, games=40, seed=5, jobs=2, out=tmp_path / "two", n_boot=100)
    pd.testing.assert_frame_equal(a.ratings, b.ratings)
    pd.testing.assert_frame_equal(a.pairings, b.pairings)
    pd.testing.assert_frame_equal(a.by_skill, b.by_skill)
    again = sim.ladder(str(hex4), BOTS, games=40, seed=5, jobs=1, out=tmp_path / "one", n_boot=100)
    pd.testing.assert_frame_equal(a.ratings, again.ratings)
    assert a.played_now == 2 * 40 + 3 * 40 and again.played_now == 0 and again.resumed == a.played_now
    for m in (tmp_path / "one" / "runs").glob("*/manifest.json"):
        t = json.loads(m.read_text())["timings"]
        assert t["games_played_now"] == 0 and t["games_resumed"] > 0


def test_sequential_stops_a_clear_pairing_early_and_says_so(hex4, tmp_path):
    res = sim.ladder(str(hex4), ["random", "greedy"], games=1000, seed=1, jobs=1, out=tmp_path / "s",
                     sequential=True, margin=0.2, batch=40, n_boot=100)
    p = res.pairings.iloc[0]
    assert p["stopped_early"] and p["games"] < 1000 and "stopped after" in p["decision"]
    assert "stopped early" in (tmp_path / "s" / "ladder.md").read_text()
    assert (res.by_skill["games"] == 1000).all()  # self-play is never cut short


def test_doubling_chain_from_the_cli_and_the_report_section(hex4, tmp_path):
    out = tmp_path / "d"
    res = CliRunner().invoke(app, ["ladder", str(hex4), "--doubling", "mcts:iterations=8", "--rungs", "3",
                                   "--games", "40", "--jobs", "1", "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "skill depth" in res.output and "SkillTrace" in res.output
    r = pd.read_csv(out / "ratings.csv")
    assert list(r["bot"]) == ["mcts(iterations=8)", "mcts(iterations=16)", "mcts(iterations=32)"]
    assert r["elo"].iloc[0] == 0  # no random: the first rung is the anchor
    res = CliRunner().invoke(app, ["report", *map(str, sorted((out / "runs").iterdir())), "--out",
                                   str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## By skill" in md and "mcts(iterations=32)" in md.split("## By skill")[1]
    assert (tmp_path / "rep" / "figures" / "by_skill_0_first_mover.png").exists()
    # self-play runs only: the by-skill rows, but no games link the bots, so no ratings
    selfs = sorted(str(p) for p in (out / "runs").glob("self-*"))
    res = CliRunner().invoke(app, ["report", *selfs, "--out", str(tmp_path / "rep2")])
    assert res.exit_code == 0, res.output
    section = (tmp_path / "rep2" / "report.md").read_text().split("\n## By skill")[1]
    assert "first mover's share of decisive" in section and "Ratings" not in section
    # one line-up only: no section
    one = sorted((out / "runs").iterdir())[0]
    res = CliRunner().invoke(app, ["report", str(one), "--out", str(tmp_path / "rep1")])
    assert res.exit_code == 0 and "By skill" not in (tmp_path / "rep1" / "report.md").read_text()


def test_all_pairs(hex4, tmp_path):
    res = sim.ladder(str(hex4), ["random", "greedy", "mcts:iterations=8"], games=20, jobs=1, pairs="all",
                     out=tmp_path / "a", n_boot=50)
    assert len(res.pairings) == 3 and ("random", "mcts(iterations=8)") in set(
        zip(res.pairings["bot_a"], res.pairings["bot_b"], strict=True))
    assert (res.ratings["games"] == 40).all()  # every bot met both others


def test_sim_ladder_is_the_function_after_the_module_is_imported():
    import sim.workflows.ladder as module

    assert sim.ladder is module.ladder and sim.ladder.__doc__


def test_three_seats_every_bot_holds_every_seat(tmp_path):
    base = sim.load_variant("hexatile/three_players")
    a, b = ladder.parse_bot(base.game, "random"), ladder.parse_bot(base.game, "greedy")
    ups = ladder.lineups(base, a, b)
    seats = base.seat_names
    assert len(seats) == 3 and len(ups) == 2
    held = {("random", s): 0 for s in seats} | {("greedy", s): 0 for s in seats}
    for v in ups:
        for r in range(len(seats)):
            for s, bot in sim.runs.runner.rotated(v.seats, r):
                held[(bot.label(), s)] += 1
    assert set(held.values()) == {3}  # each bot three times in each seat over the 6 rotations
    res = sim.ladder(base, ["random", "greedy"], games=24, seed=3, jobs=1, out=tmp_path / "t", n_boot=50)
    p = res.pairings.iloc[0]
    assert p["games"] == 24 and p["wins_b"] > p["wins_a"]
    assert {f"win_rate_{s}" for s in seats} <= set(res.by_skill.columns)
    # SkillTrace's utilities come from the line-up where the stronger bot holds one seat
    from sim.reports.balance import load_run

    runs = [load_run(p) for p in sorted((tmp_path / "t" / "runs").glob("pair*"))]
    won, drawn, lost = ladder.strong_seat_counts(runs, "greedy")
    one_seat = [r for r in runs if r.seat_bots.count("greedy") == 1]
    assert len(one_seat) == 1 and won + drawn + lost == len(one_seat[0].df) == 12


def test_skill_depth_has_its_uncertainty():
    """A step's p_real is the posterior probability that its true share is >= 55%; the depth's
    law multiplies them up the ladder. A true 55% step, measured at 55%, is real half the time."""
    order = ["r0", "r1", "r2"]
    d = ladder.skill_depth(order, {("r0", "r1"): (100, 900, 0), ("r1", "r2"): (450, 550, 0)})
    assert d.steps["p_real"].iloc[0] > 0.999 and d.steps["p_real"].iloc[1] == pytest.approx(0.5, abs=0.03)
    law = ladder.depth_law(d.steps["p_real"])
    assert law.sum() == pytest.approx(1) and law[0] < 1e-3 and law[1] == pytest.approx(0.5, abs=0.03)
    assert d.expected == pytest.approx(1.5, abs=0.03) and d.range95 == (1, 2)
    assert d.words().endswith("(expected 1.5, 95% range 1-2)")


def test_skill_column_from_a_ladder(hex4, tmp_path):
    """A variant played by random on both seats, its ladder random -> greedy: the ladder page
    opens with the answer, and the report's verdict row says what greedy on every seat gives,
    links the ladder and its index, and ReportResult.verdicts carries the columns."""
    v = tmp_path / "hex4r.toml"
    v.write_text('game = "hex"\ndescription = "Hex 4x4, random"\n[rules]\nsize = 4\n'
                 '[seats]\nA = "random"\nB = "random"\n')
    lad = sim.ladder(str(v), ["random", "greedy"], games=60, self_games=400, seed=2, jobs=1,
                     out=tmp_path / "ladders" / "hex4r", n_boot=50)
    assert (lad.by_skill["games"] == 400).all() and (lad.pairings["games"] == 60).all()
    md = (tmp_path / "ladders" / "hex4r" / "ladder.md").read_text()
    first = md.split("\n\n")[1]  # the paragraph under the title, before any table
    assert first.startswith("Does the first mover's edge hold with stronger play? With random on every seat")
    assert "With greedy on every seat the first mover wins" in first and "the verdict" in first
    answer = json.loads((tmp_path / "ladders" / "hex4r" / "ladder.json").read_text())["answer"]
    assert answer["base_bot"] == "random" and answer["strong_bot"] == "greedy" and answer["strong"]["n"] > 0
    run = sim.run(str(v), 600, seed=1, jobs=1, out=tmp_path / "run")
    res = sim.report([run.path], tmp_path / "rep", ladders=[tmp_path / "ladders"], replays=False)
    row = res.verdicts.iloc[0]
    assert row["strong_bot"] == "greedy" and row["strong_decisive"] == answer["strong"]["n"]
    assert row["with_stronger_play"] in stats.SKILL_WORDS
    page = res.html.read_text()
    assert "with stronger play" in page and "../ladders/hex4r/ladder.html" in page
    index = (tmp_path / "rep" / "ladders.html").read_text()
    assert "hex4r" in index and "../ladders/hex4r/ladder.html" in index
    assert f"With greedy on every seat the first mover wins {100 * row['strong_share']:.1f}%" in row["sentence"] \
        or f"With greedy on every seat the first mover wins {100 * row['strong_share']:.1f}%" in page
    # a folder that holds no ladder is one line, exit 2
    r = CliRunner().invoke(app, ["report", str(run.path), "--out", str(tmp_path / "x"),
                                 "--ladders", str(tmp_path / "run")])
    assert r.exit_code == 2 and "no ladder.json" in r.output


# ---- agreement with the rung below ---------------------------------------------------------------
def _self_seats(base, spec: str):
    b = ladder.parse_bot(base.game, spec, base.rules)
    v = ladder.self_lineup(base, b)
    return b, v, list(v.seats.values())


def test_agreement_on_a_short_hexflow_race_ladder(tmp_path, monkeypatch):
    """random, greedy and a tiny-budget mcts on HEXFLOW Race: each rung's agreement with the one
    below over its self-play games, in the frame, ladder.json, agreement.csv, the summary and the
    page; the lower bot asked with the rung's own generator state agrees with itself at every
    decision (greedy with greedy, and random with random: the same draw)."""
    from sim.stats import agreement

    res = sim.ladder("hexflow/race", ["random", "greedy", "mcts:iterations=10"], games=12, self_games=12, seed=4,
                     jobs=1, out=tmp_path / "race", n_boot=50, agreement=24)
    ag = res.agreement.set_index("bot")
    assert list(ag.index) == ["greedy", "mcts(iterations=10)"] and list(ag["below"]) == ["random", "greedy"]
    # at most PER_GAME decisions a game: a short game (fewer real choices) takes one game more
    assert (ag["decisions"] == 24).all() and (ag["games"] >= 24 // agreement.PER_GAME).all()
    for r in ag.itertuples():
        assert r.share == r.agree / r.decisions and r.share_low <= r.share <= r.share_high
        assert 0 < r.chance < 0.5  # Race offers dozens of placements: a real choice, mostly many
    assert ag.loc["greedy", "share"] < 0.5  # greedy is no random bot in disguise
    summary = json.loads((tmp_path / "race" / "ladder.json").read_text())
    assert [a["agree"] for a in summary["agreement"]] == list(ag["agree"])
    assert pd.read_csv(tmp_path / "race" / "agreement.csv")["decisions"].tolist() == [24, 24]
    assert any(line.startswith("mcts(iterations=10) picks greedy's move at") for line in res.summary())
    page = (tmp_path / "race" / "ladder.html").read_text()
    assert "Agreement with the rung below" in page and "greedy in disguise" not in page.split("</table>")[0]
    # a rerun resumes every game and reads the agreement back instead of replaying
    def replay(*args, **kwargs):
        raise AssertionError("the agreement was measured again")

    monkeypatch.setattr(agreement, "sample_agreement", replay)
    again = sim.ladder("hexflow/race", ["random", "greedy", "mcts:iterations=10"], games=12, self_games=12, seed=4,
                       jobs=1, out=tmp_path / "race", n_boot=50, agreement=24)
    pd.testing.assert_frame_equal(again.agreement, res.agreement, check_dtype=False)
    monkeypatch.undo()
    base = sim.load_variant("hexflow/race")
    for spec in ("greedy", "random"):
        b, v, seats = _self_seats(base, spec)
        got = agreement.sample_agreement(base.game, v.rules, seats, b, 7, 30, 60, seed=1)
        assert got.n == 60 and got.agree == 60, spec


def test_agreement_words_name_a_rung_in_disguise():
    from sim.stats.agreement import Sampled, agreement_row, words

    row = agreement_row("mcts(iterations=8)", "greedy", Sampled(agree=198, n=200, chance=40.0, games=50))
    assert row["share"] == 0.99 and row["share_low"] > 0.96 and row["chance"] == 0.2
    assert words(row).endswith("(chance 20.0%): greedy in disguise")
    assert not words(agreement_row("mcts", "greedy", Sampled(150, 200, 40.0, 50))).endswith("disguise")
    assert "not on the engine" in agreement_row("mcts", "greedy", None)["note"]


# ---- the oracle: the ceiling of skill --------------------------------------------------------------
@pytest.fixture
def with_oracle(monkeypatch):
    """The Hex fixture with a bot named `oracle` (two-ply minimax under that name: Hex has no
    hidden state, so it stands in for the bot that sees every hand); in this process only."""
    from sim.games.base import Bot
    from tests.fixtures.hexgame import kernel

    minimax = next(b for b in GAME.bots if b.name == "minimax")
    monkeypatch.setattr(GAME, "bots", (*GAME.bots, Bot("oracle", kernel.BOT_MINIMAX, "stand-in", minimax.params)))


def test_the_oracle_is_the_ceiling_not_a_rung(hex4, with_oracle, tmp_path):
    out = tmp_path / "lad"
    res = sim.ladder(str(hex4), ["random", "greedy", "oracle"], games=40, seed=3, jobs=1, out=out, n_boot=50,
                     backend="sequential", agreement=8)
    assert list(res.ratings["bot"]) == ["random", "greedy"] and list(res.by_skill["bot"]) == ["random", "greedy"]
    assert list(res.depth.steps["upper"]) == ["greedy"] and list(res.agreement["bot"]) == ["greedy"]
    c = res.ceiling.iloc[0]
    assert (c["bot"], c["against"], c["games"]) == ("oracle", "greedy", 40)
    assert c["wins"] + c["wins_against"] + c["draws"] == 40
    p = stats.wilson(int(c["wins"]), int(c["wins"] + c["wins_against"]))
    assert (c["decisive_share"], c["decisive_share_low"]) == (p.value, p.low)
    assert c["against_share"] == c["wins_against"] / 40
    line = next(x for x in res.summary() if x.startswith("ceiling: oracle wins"))
    assert "of decisive games against greedy; greedy still beats the oracle in" in line
    assert line.endswith("games: the share luck decides")
    summary = json.loads((out / "ladder.json").read_text())
    assert summary["first_mover_share"]["strongest"]["bot"] == "greedy"
    assert summary["ceiling"][0]["bot"] == "oracle" and "oracle" not in json.dumps(summary["answer"])
    page = (out / "ladder.html").read_text()
    assert "Ceiling of skill (a bot that cheats)" in page and "it cheats" in page
    # the report over the ladder's runs: the by-skill section leaves the ceiling out, and the
    # oracle's line-up gets no verdict
    rep = sim.report(sorted((out / "runs").iterdir()), tmp_path / "rep", replays=False)
    section = rep.markdown.read_text().split("## By skill")[1]
    assert "| oracle |" not in section
    v = rep.verdicts
    cheat = v[v["bots"].str.contains("oracle")]
    assert len(cheat) == 1 and (cheat["verdict"] == "no verdict: a bot cheats").all()
    assert not (v.loc[~v["bots"].str.contains("oracle"), "verdict"] == "no verdict: a bot cheats").any()


def test_a_ladder_of_the_oracle_alone_is_refused(hex4, with_oracle):
    with pytest.raises(UserError, match="ceiling of skill, not a rung"):
        sim.ladder(str(hex4), ["greedy", "oracle"], games=4, jobs=1, write=False, backend="sequential")


def test_a_sweep_table_judges_no_line_up_with_the_oracle(hex4, with_oracle, tmp_path):
    from sim.runs.variants import load
    from sim.stats import metrics

    for bot, judged in (("oracle", False), ("minimax", True)):
        v = load(str(hex4), {"seats.A": {"bot": bot}, "seats.B": {"bot": "greedy"}})
        r = sim.run(v, 40, seed=1, jobs=1, out=tmp_path / bot, backend="sequential", progress=False)
        row = metrics.metric_table(r.table(), v).dropna(subset=["fair"]).iloc[0]
        assert (row["fairness"] is not None) == judged
        assert ("No verdict: oracle sees every hidden hand" in row["fairness_sentence"]) != judged
