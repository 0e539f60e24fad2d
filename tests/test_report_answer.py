"""The answer-first report: the verdict (sorted, judged by stats.fairness), why games end (end
reasons over length, spikes and dominating end reasons, example games), Ludii's outcome metrics
against direct computations, variants grouped by game and mode with comparisons only within a
mode against its reference, warnings once; and `hexsim games` / `hexsim replay` output."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from sim import stats
from sim.errors import UserError
from sim.reports import analysis
from sim.reports import balance as report
from sim.reports import verdict as verdicts
from tests.test_report import REASONS, make_run, toy_lookup


def set_first_mover(path: Path, share: float, seed: int = 0) -> pd.DataFrame:
    """Rewrite a run's games so the first mover wins about `share` of decisive games."""
    rng = np.random.default_rng(seed)
    parts = sorted((path / "games").glob("*.parquet"))
    df = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
    w = df["winner"].to_numpy()
    other = (w + 1) % 2
    first = np.where(rng.random(len(df)) < share, w, other)
    df["first_seat"] = np.where(w >= 0, first, rng.integers(0, 2, len(df))).astype(np.int8)
    for p in parts:
        p.unlink()
    df.to_parquet(path / "games" / "part-00000.parquet", index=False)
    return df


class ModeGame:
    """The report's toy game with two modes (as HEXFLOW has race and battle)."""

    name = "toy"
    end_reasons = REASONS

    def seat_names(self, rules):
        return ["A", "B"]

    def modes(self):
        return [("race", {}), ("battle", {"mode": "battle"})]

    def report_metrics(self, df, rules):
        return []


def set_rules(path: Path, rules: dict) -> None:
    m = json.loads((path / "manifest.json").read_text())
    m["variant"]["rules"] = rules
    (path / "manifest.json").write_text(json.dumps(m))


def test_verdict_comes_first_sorted_by_unfairness_in_words(tmp_path):
    shares = {"mild": 0.53, "wild": 0.65, "fair": 0.50}
    dfs = {}
    for i, (name, share) in enumerate(shares.items()):
        make_run(tmp_path / name, 4000, seed=i, name=name, parts=1)
        dfs[name] = set_first_mover(tmp_path / name, share, seed=i)
    res = report.build_report([tmp_path / n for n in shares], tmp_path / "out", game_lookup=toy_lookup)
    md = res.markdown.read_text()
    assert re.findall(r"^## .*$", md, re.M)[0] == "## Verdict"
    verdict = md[md.index("## Verdict"):md.index("### In words")]
    order = [n for n in re.findall(r"^\| (\w+) \|", verdict, re.M) if n in shares]
    assert order == ["wild", "mild", "fair"]
    for name, df in dfs.items():
        dec = df[df.winner >= 0]
        k = int((dec.winner == dec.first_seat).sum())
        f = stats.fairness(k, len(dec), p0=0.5, margin=analysis.FAIR_MARGIN)
        row = res.verdicts.set_index("variant").loc[name]
        assert row["bots"] == "greedy on A, random on B"  # every verdict names who played
        assert row["verdict"] == f.verdict and row["first_mover_share"] == f.share
        who = "With greedy on A, random on B, the first player"
        assert f"{name}: {f.sentence(what=who, unit='decisive games')}" in md
        assert f"| {name} | greedy / random | " in verdict and f"| {f.verdict} |" in verdict
        assert set(res.summary.loc[res.summary["variant"] == name, "verdict"]) == {f.verdict}
    page = res.html.read_text()
    assert page.index("table class='verdict'") < page.index("Why games end")
    assert page.count("<svg class='forest'") == 3  # one forest row per variant
    assert page.count("<svg class='forest-axis'") == 1  # its axis, in the column's header


def test_ludii_outcome_metrics_match_direct_computation(tmp_path):
    df = make_run(tmp_path / "run", 3000, p_win=(0.5, 0.3), p_reason=(0.6, 0.3, 0.1))
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup,
                              replays=False)
    s = res.summary.set_index("metric")
    capped = df.end_reason == "turn_cap"
    assert s.loc["ludii.Completion", "successes"] == ((df.winner >= 0) & ~capped).sum()
    assert s.loc["ludii.Drawishness", "successes"] == ((df.winner < 0) & ~capped).sum()
    assert s.loc["ludii.Timeouts", "successes"] == capped.sum()
    # OutcomeUniformity: 1 - mean over seats of the population variance of its utility
    util = np.where(df.winner.to_numpy()[:, None] < 0, 0.0,
                    np.where(df.winner.to_numpy()[:, None] == np.arange(2)[None, :], 1.0, -1.0))
    ou = s.loc["ludii.OutcomeUniformity"]
    assert ou.value == pytest.approx(1 - util.var(axis=0).mean())
    assert ou.ci_low < ou.value < ou.ci_high


def test_outcome_uniformity_three_seats_by_hand():
    # 3 seats: winner 1, losers -1/2, draw 0 for everyone
    winners = np.array([0, 0, 1, 2, -1, -1])
    util = np.where(winners[:, None] < 0, 0.0,
                    np.where(winners[:, None] == np.arange(3)[None, :], 1.0, -0.5))
    counts = np.array([2, 1, 1, 2])
    assert analysis.outcome_uniformity(counts) == pytest.approx(1 - util.var(axis=0).mean())


def test_seat_gap_interval_has_the_multinomial_spread():
    rng = np.random.default_rng(3)
    n, p = 5000, np.array([0.52, 0.44, 0.04])
    draws = rng.multinomial(n, p, size=4000) / n
    sd = np.std(draws[:, 0] - draws[:, 1])
    rates = [stats.wilson(int(p[0] * n), n), stats.wilson(int(p[1] * n), n)]
    d, lo, hi, top, bottom = analysis.seat_gap(rates, ["A", "B"], n)
    assert (top, bottom) == ("A", "B") and d == pytest.approx(0.08)
    assert (hi - lo) / (2 * 1.96) == pytest.approx(sd, rel=0.05)


def test_rotated_run_is_not_flagged_incomplete(tmp_path):
    make_run(tmp_path / "run", 2000, rotate=True, manifest_games=1000)
    m = json.loads((tmp_path / "run" / "manifest.json").read_text())
    m["rotations"] = 2
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(m))
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup)
    assert not any("manifest asked for" in w for w in res.warnings)
    make_run(tmp_path / "short", 1500, rotate=True, manifest_games=1000)
    res = report.build_report([tmp_path / "short"], tmp_path / "out2", game_lookup=toy_lookup,
                              partial=True)
    assert any("holds 1,500 games but the manifest asked for 2,000" in w for w in res.warnings)


def test_modes_are_compared_only_within_against_their_reference(tmp_path):
    names = {"race": {}, "race_x": {}, "battle": {"mode": "battle"}, "battle_y": {"mode": "battle"},
             "battle_z": {"mode": "battle"}}
    for i, (name, rules) in enumerate(names.items()):
        make_run(tmp_path / name, 800, seed=i, name=name, parts=1)
        set_rules(tmp_path / name, rules)
    runs = [tmp_path / n for n in ("battle_y", "race_x", "battle", "race", "battle_z")]
    res = report.build_report(runs, tmp_path / "out", game_lookup=lambda n: ModeGame(), replays=False)
    pairs = set(res.comparison["variant"])
    assert pairs == {"race_x vs race", "battle_y vs battle", "battle_z vs battle"}
    md = res.markdown.read_text()
    assert "### toy battle: against battle" in md and "### toy race: against race" in md
    res = report.build_report(runs, tmp_path / "out2", game_lookup=lambda n: ModeGame(),
                              references=["battle_z"], replays=False)
    assert set(res.comparison["variant"]) == {"race_x vs race", "battle_y vs battle_z",
                                              "battle vs battle_z"}
    with pytest.raises(UserError, match="--reference nope: no such variant"):
        report.build_report(runs, tmp_path / "out3", game_lookup=lambda n: ModeGame(),
                            references=["nope"])


def test_why_games_end_flags_a_spike_and_a_dominating_end(tmp_path):
    make_run(tmp_path / "run", 3000, p_reason=(0.04, 0.95, 0.01), parts=1)
    part = next((tmp_path / "run" / "games").glob("*.parquet"))
    df = pd.read_parquet(part)
    df.loc[: len(df) // 5, "turns"] = 3  # a fifth of the games over at turn 3
    df.to_parquet(part, index=False)
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup)
    md = res.markdown.read_text()
    share = (df.turns <= 3).mean()
    assert f"{share:.0%} of games are over by turn 3" in md and "degenerate strategy?" in md
    assert "one way to end dominates" in md
    a = report.analyse(report.load_run(tmp_path / "run", toy_lookup))
    assert a.examples[0]["title"] == "shortest game" and a.examples[0]["turns"] == 3
    turns, counts = a.end_hist
    assert counts.sum() == len(df) and counts[:, list(turns).index(3)].sum() == (df.turns == 3).sum()
    # the toy game cannot replay: said once, no pictures
    assert "example games not drawn: game 'toy' has no replay" in md


def test_a_single_way_to_win_is_not_flagged_for_dominating(tmp_path):
    # the toy's only win reason is path; 95% of games by path, the rest stalemates and caps
    make_run(tmp_path / "win", 3000, p_reason=(0.95, 0.04, 0.01), parts=1)
    a = report.analyse(report.load_run(tmp_path / "win", toy_lookup))
    assert a.dominant is None and not any(k == "dominant" for k, _ in a.flags)
    # a stalemate tiebreak deciding 95% of games is flagged
    make_run(tmp_path / "off", 3000, p_reason=(0.04, 0.95, 0.01), parts=1)
    a = report.analyse(report.load_run(tmp_path / "off", toy_lookup))
    assert a.dominant[0] == "stalemate_closest"
    assert any(k == "dominant" and "one way to end dominates" in t for k, t in a.flags)


def test_every_warning_once(tmp_path):
    for i in range(3):
        make_run(tmp_path / f"r{i}", 600, seed=i, name=f"r{i}", p_reason=(0.3, 0.6, 0.1))
    res = report.build_report([tmp_path / f"r{i}" for i in range(3)], tmp_path / "out",
                              game_lookup=toy_lookup, replays=False)
    md = res.markdown.read_text()
    assert md.count("the tile counts do not add up") == 1
    assert md.count("**WARNING:**") == 1 and "3 variants: r0:" in md  # one box for one kind


def test_games_command_lists_and_draws(tmp_path, variant_file):
    import sim
    from sim.cli import app

    v = variant_file("v.toml", 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
                               '[seats]\nA = "random"\nB = "greedy"\n')
    r = sim.run(str(v), 300, seed=5, jobs=1, out=tmp_path / "run", progress=False)
    df = r.table()
    short = int(df["turns"].min())
    res = CliRunner().invoke(app, ["games", str(r.path), "--where",
                                   f"turns <= {short} and winner_seat == 'B'", "--replay", "2",
                                   "--out", str(tmp_path / "pics")])
    assert res.exit_code == 0, res.output
    n = int(((df.turns <= short) & (df.winner == 1)).sum())
    assert res.output.startswith(f"{n:,} of 300 games match")
    assert len(list((tmp_path / "pics").glob("game*.png"))) == min(2, n)
    assert f"hexsim replay {v} --game" in res.output and "--seed 5" in res.output
    bad = CliRunner().invoke(app, ["games", str(r.path), "--where", "turnz < 3"])
    assert bad.exit_code == 2 and "--where 'turnz < 3'" in bad.output and "Traceback" not in bad.output


def test_replay_prints_names_and_numbers_moves(tmp_path, variant_file):
    from sim.cli import app

    v = variant_file("v.toml", 'game = "racedice"\ndescription = "d"\n[rules]\ngoal = 25\n'
                               '[seats]\nA = "random"\nB = "greedy"\n')
    res = CliRunner().invoke(app, ["replay", str(v), "--game", "3", "--out", str(tmp_path / "g.png")])
    assert res.exit_code == 0, res.output
    assert re.search(r"^winner: (A|B|draw)$", res.output, re.M)  # no swap: the player and the seat are one
    assert re.search(r"^end reason: (goal|turn_cap)$", res.output, re.M)
    assert re.search(r"^\s+1\. [AB] ", res.output, re.M)
    assert "result: {" not in res.output


def test_a_long_verdict_table_folds_each_group_keeping_its_extremes_and_reference(tmp_path, monkeypatch):
    # 9 variants of one mode and 2 of another; a table of at most 8 rows folds the large group
    runs = []
    for i in range(11):
        name = f"race_{i}" if i < 9 else f"battle_{i}"
        make_run(tmp_path / name, 600, seed=i, name=name, parts=1)
        set_first_mover(tmp_path / name, 0.50 + 0.02 * i, seed=i)
        if i >= 9:
            set_rules(tmp_path / name, {"mode": "battle"})
        runs.append(tmp_path / name)
    monkeypatch.setattr(verdicts, "VERDICT_ROWS", 8)
    res = report.build_report(runs, tmp_path / "out", game_lookup=lambda n: ModeGame(),
                              references=["race_4"], replays=False)
    page = res.html.read_text()
    main = page[page.index("<table class='verdict'>"):]
    main = main[:main.index("</table>")]
    shown = re.findall(r"<span title='[^']*'>(\w+)</span>", main)
    share = res.summary[res.summary.metric == "first_mover_share"].set_index("variant")
    race = sorted((f"race_{i}" for i in range(9)), key=lambda v: -abs(share.value[v] - 0.5))
    assert set(shown) == {race[0], race[-1], "race_4", "battle_9", "battle_10"}
    assert "6 more folded below the table" in main
    fold = page[page.index("<summary>toy race: the other 6 variants</summary>"):]
    fold = fold[:fold.index("</details>")]
    assert sorted(re.findall(r"<span title='[^']*'>(\w+)</span>", fold)) == sorted(
        set(race) - {race[0], race[-1], "race_4"})
    assert page.count("<svg class='forest'") == 11  # every variant's row once


def test_games_that_repeat_get_no_verdict(tmp_path):
    """A game without chance played by bots that always choose alike repeats a handful of games:
    counted from the replayed games' move sequences, it gets no verdict and a warning, whatever
    its share; a game whose replays all differ keeps its verdict."""
    from sim.stats import playmetrics

    make_run(tmp_path / "run", 4000, seed=3, name="det", parts=1)
    set_first_mover(tmp_path / "run", 0.65, seed=3)
    a = report.analyse(report.load_run(tmp_path / "run", toy_lookup))
    assert report.fairness_verdict(a)[0] == "unfair"
    fake = lambda seqs: playmetrics.PlayMetrics(pd.DataFrame({"move_sequence": seqs}), pd.DataFrame())  # noqa: E731
    a.play = fake([f"g{i}" for i in range(200)])
    report.mark_repeats(a)
    assert a.repeats is None and report.fairness_verdict(a)[0] == "unfair"
    a.play = fake([f"g{i % 4}" for i in range(200)])  # 4 distinct games in 200, as a solved opening
    report.mark_repeats(a)
    word, sentence = report.fairness_verdict(a)
    assert a.repeats == (4, 200) and word == "cannot tell"
    assert "no verdict: only 4 distinct games among the first 200 replayed" in sentence
    assert any(kind == "repeats" for kind, _ in a.flags)


def _seat_bots(path: Path, bots: dict[str, str]) -> None:
    """Give a run's manifest and table other bots (by seat)."""
    m = json.loads((path / "manifest.json").read_text())
    m["variant"]["seats"] = {s: {"bot": b, "params": {}} for s, b in bots.items()}
    (path / "manifest.json").write_text(json.dumps(m))
    for part in (path / "games").glob("*.parquet"):
        df = pd.read_parquet(part)
        for s, b in bots.items():
            df[f"bot_{s}"] = b
        df.to_parquet(part, index=False)


def _fake_ladder(folder: Path, variant: str, strongest: str, answer: dict | None) -> None:
    """A ladder.json as `hexsim ladder` writes it, with the fields the report reads."""
    folder.mkdir(parents=True)
    (folder / "ladder.json").write_text(json.dumps({
        "variant_name": variant, "variant_hash": "h" + variant, "seats": 2,
        "first_mover_share": {"strongest": {"bot": strongest}}, "answer": answer}))


def test_a_line_up_with_a_bot_that_cheats_gets_no_verdict(tmp_path):
    """A run where the oracle (it sees every hand) holds a seat: no fairness verdict, the
    verdict column says why, it sorts after the judged rows and takes no skill column; the other
    run keeps its verdict."""
    make_run(tmp_path / "cheat", 4000, seed=1, name="cheat", parts=1)
    set_first_mover(tmp_path / "cheat", 0.70, seed=1)
    _seat_bots(tmp_path / "cheat", {"A": "oracle", "B": "greedy"})
    make_run(tmp_path / "fair", 4000, seed=2, name="fair", parts=1)
    set_first_mover(tmp_path / "fair", 0.56, seed=2)
    res = report.build_report([tmp_path / "cheat", tmp_path / "fair"], tmp_path / "out", game_lookup=toy_lookup)
    v = res.verdicts.set_index("variant")
    assert v.loc["cheat", "verdict"] == verdicts.CHEAT_VERDICT == "no verdict: a bot cheats"
    assert "no verdict: oracle sees every hidden hand" in v.loc["cheat", "sentence"]
    assert v.loc["fair", "verdict"] in ("unfair", "cannot tell")  # 56%: judged as ever
    md = res.markdown.read_text()
    verdict = md[md.index("## Verdict"):md.index("### In words")]
    rows = [n for n in re.findall(r"^\| (\w+) \|", verdict, re.M) if n in ("cheat", "fair")]
    assert rows == ["fair", "cheat"]  # 70% would sort first; a cheating line-up sorts last
    assert f"| {verdicts.CHEAT_VERDICT} |" in verdict


def test_the_oracle_is_never_the_stronger_play_of_a_verdict(tmp_path):
    """A ladder whose strongest rung is a bot that cheats (a ladder.json written with the oracle
    as a rung) gives no "with stronger play" answer; an honest ladder of the same variant does."""
    from sim.stats import skill

    make_run(tmp_path / "run", 4000, seed=4, name="v", parts=1)
    _seat_bots(tmp_path / "run", {"A": "greedy", "B": "greedy"})
    a = report.analyse(report.load_run(tmp_path / "run", toy_lookup))
    counts = {"successes": 700, "n": 1200, "verdict": "unfair"}
    cheat = {"base_bot": "greedy", "strong_bot": "oracle", "answer": "changes with stronger play",
             "base": counts, "strong": counts, "sentence": ""}
    _fake_ladder(tmp_path / "lad" / "cheat", "v", "oracle", cheat)
    lads = skill.load_ladders([tmp_path / "lad"])
    assert skill.skill_of("v", "hv", a.seat_bots, report.fairness_of(a), lads) is None
    _fake_ladder(tmp_path / "lad" / "honest", "v", "mcts", cheat | {"strong_bot": "mcts"})
    lads = skill.load_ladders([tmp_path / "lad"])
    got = skill.skill_of("v", "hv", a.seat_bots, report.fairness_of(a), lads)
    assert got is not None and got.strong_bot == "mcts" and got.ladder.path.name == "honest"
    assert skill.cheats("oracle") and skill.cheats("oracle(iterations=50)") and not skill.cheats("mcts")
