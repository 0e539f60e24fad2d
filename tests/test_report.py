"""The balance report on synthetic run folders (a made-up game "toy", registered nowhere):
numbers in summary.csv against direct pandas/scipy/statsmodels computations, every section in
report.md and report.html, warnings, the game hook, comparison of several runs."""

from __future__ import annotations

import base64
import html
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from sim import stats
from sim.errors import UserError
from sim.reports import balance as report

REASONS = ("path", "stalemate_closest", "turn_cap")


class ToyGame:
    """A stand-in with just what the report uses."""

    name = "toy"
    end_reasons = REASONS

    def seat_names(self, rules):
        return ["A", "B"]

    def report_metrics(self, df, rules):
        blocked = df["toy_blocked"].to_numpy()
        return [
            {"metric": "blocked_share", "value": float(blocked.sum()) / max(len(df), 1),
             "successes": int(blocked.sum()), "n": len(df)},
            {"metric": "mean_dots", "value": float(df["toy_dots"].sum()) / max(len(df), 1)},
        ]


class BrokenGame(ToyGame):
    def report_metrics(self, df, rules):
        raise RuntimeError("boom")


def toy_lookup(name):
    if name == "toy":
        return ToyGame()
    raise KeyError(name)


def make_run(path: Path, n: int, seats=("A", "B"), seed=0, p_win=(0.55, 0.40),
             p_reason=(0.7, 0.25, 0.05), rotate=False, name="race", parts=3,
             manifest_games=None) -> pd.DataFrame:
    """Write a run folder like the runner does: games/part-*.parquet and manifest.json."""
    rng = np.random.default_rng(seed)
    k = len(seats)
    (path / "games").mkdir(parents=True)
    w = rng.choice(k + 1, size=n, p=list(p_win) + [1 - sum(p_win)])
    winner = np.where(w == k, -1, w).astype(np.int8)
    rotation = (np.arange(n) % k if rotate else np.zeros(n, dtype=int)).astype(np.int8)
    bots = np.array(["greedy", "random"] + ["greedy"] * (k - 2))
    df = pd.DataFrame({"variant": name, "variant_hash": "h" + name,
                       "game": np.arange(n, dtype=np.int64),
                       "seed": rng.integers(0, 2**63, n).astype(np.uint64), "rotation": rotation})
    for i, s in enumerate(seats):
        df[f"bot_{s}"] = bots[(i + rotation.astype(int)) % k] if rotate else bots[i]
    df["first_seat"] = rng.integers(0, k, n).astype(np.int8)
    df["winner"] = winner
    df["end_reason"] = np.array(REASONS)[rng.choice(3, size=n, p=p_reason)]
    df["turns"] = (rng.poisson(30, n) + 5).astype(np.int32)
    for i, s in enumerate(seats):
        df[f"score_{s}"] = np.where(winner == i, 10 * rng.integers(1, 6, n), 0).astype(np.int64)
    df["toy_dots"] = rng.integers(0, 5, n).astype(np.int16)
    df["toy_blocked"] = rng.random(n) < 0.2
    for j, rows in enumerate(np.array_split(np.arange(n), parts)):
        df.iloc[rows].to_parquet(path / "games" / f"part-{j:05d}.parquet", index=False)
    manifest = {
        "variant": {"name": name, "game": "toy", "description": f"synthetic {name}", "rules": {},
                    "seats": {s: {"bot": str(bots[i]), "params": {}} for i, s in enumerate(seats)},
                    "hash": "h" + name},
        # the runner counts games per seat rotation
        "seat_names": list(seats),
        "games": (n // k if rotate else n) if manifest_games is None else manifest_games,
        "seed": seed, "rotate_seats": rotate, "end_reasons": list(REASONS),
        "turn_cap_reason": "turn_cap", "warnings": ["the tile counts do not add up"],
        "package_version": "0.1.0", "git_commit": "0123456789abcdef", "timings": {},
    }
    (path / "manifest.json").write_text(json.dumps(manifest))
    return df


def row(summary: pd.DataFrame, metric: str, variant: str = "race") -> pd.Series:
    hit = summary[(summary.metric == metric) & (summary.variant == variant)]
    assert len(hit) == 1, f"{metric} / {variant}: {len(hit)} rows"
    return hit.iloc[0]


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    root = tmp_path_factory.mktemp("single")
    df = make_run(root / "run", 3000)
    res = report.build_report([root / "run"], root / "out", game_lookup=toy_lookup)
    return df, res


def test_histogram_bins():
    from sim.reports import plots

    edges, counts = plots.histogram(np.array([3, 5, 5, 9]))
    assert list(edges) == [2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5] and list(counts) == [1, 0, 2, 0, 0, 0, 1]
    edges, counts = plots.histogram(np.array([3, 5]), lo=0, hi=10)  # shared range across variants
    assert edges[0] == -0.5 and edges[-1] == 10.5 and counts.sum() == 2
    x = np.random.default_rng(0).normal(size=1000)
    edges, counts = plots.histogram(x, max_bins=20)
    assert len(edges) == 21 and counts.sum() == 1000 and edges[0] == x.min() and edges[-1] == x.max()
    edges, counts = plots.histogram(np.arange(0, 10_000, 7))  # integers over a long range: binned
    assert len(counts) == 60 and counts.sum() == len(np.arange(0, 10_000, 7))


def test_summary_csv_columns_and_round_trip(single):
    _, res = single
    csv = pd.read_csv(res.csv)
    assert list(csv.columns) == ["metric", "variant", "value", "successes", "n", "ci_low", "ci_high",
                                 "verdict", "bots"]
    assert len(csv) == len(res.summary)
    np.testing.assert_allclose(csv["value"].to_numpy(float), res.summary["value"].to_numpy(float))


def test_seat_win_rates_match_direct_computation(single):
    df, res = single
    s = pd.read_csv(res.csv)
    n = len(df)
    decisive = int((df.winner >= 0).sum())
    for i, seat in enumerate("AB"):
        k = int((df.winner == i).sum())
        r = row(s, f"win_rate_{seat}")
        lo, hi = proportion_confint(k, n, method="wilson")
        assert (r.successes, r.n, r.value) == (k, n, pytest.approx(k / n))
        assert (r.ci_low, r.ci_high) == (pytest.approx(lo), pytest.approx(hi))
        assert row(s, f"win_rate_{seat}_p_value").value == pytest.approx(
            sps.binomtest(k, decisive, 0.5).pvalue)
    rates = [(df.winner == i).mean() for i in range(2)]
    assert row(s, "balance").value == pytest.approx(1 - (max(rates) - min(rates)))
    assert row(s, "games").value == n


def test_draw_turn_cap_and_first_player(single):
    df, res = single
    s = pd.read_csv(res.csv)
    n = len(df)
    draws = int((df.winner == -1).sum())
    assert row(s, "draw_rate").successes == draws
    cap = int((df.end_reason == "turn_cap").sum())
    r = row(s, "cap_rate")
    assert r.successes == cap and r.ci_low == pytest.approx(proportion_confint(cap, n, method="wilson")[0])
    first = int((df.winner == df.first_seat).sum())
    assert row(s, "win_rate_first_mover").successes == first
    r = row(s, "first_mover_share")
    assert (r.successes, r.n) == (first, n - draws)
    assert row(s, "first_mover_share_p_value").value == pytest.approx(
        sps.binomtest(first, n - draws, 0.5).pvalue)


def test_length_scores_end_reasons_and_mde(single):
    df, res = single
    s = pd.read_csv(res.csv)
    n = len(df)
    for name, q in [("p5", 0.05), ("p25", 0.25), ("p50", 0.5), ("p75", 0.75), ("p95", 0.95)]:
        assert row(s, f"turns_{name}").value == df.turns.quantile(q)
    r = row(s, "turns_mean")
    lo, hi = sps.t.interval(0.95, n - 1, loc=df.turns.mean(), scale=sps.sem(df.turns))
    assert (r.value, r.ci_low, r.ci_high) == (pytest.approx(df.turns.mean()), pytest.approx(lo),
                                             pytest.approx(hi))
    med = row(s, "turns_p50")
    assert med.ci_low <= med.value <= med.ci_high
    for seat in "AB":
        assert row(s, f"score_mean_{seat}").value == pytest.approx(df[f"score_{seat}"].mean())
        assert row(s, f"score_median_{seat}").value == df[f"score_{seat}"].median()
    for reason in REASONS:
        r = row(s, f"end_{reason}")
        assert r.successes == (df.end_reason == reason).sum() and r.n == n
    # MDE: on the decisive games, at the seat tests' Holm level 0.05 / 2 (tests/test_report_claims.py
    # checks its power)
    dec = int((df.winner >= 0).sum())
    r = row(s, "mde_seat_share")
    assert r.n == dec and r.value == pytest.approx(stats.mde_share(dec, 0.5, 0.05 / 2))


def test_game_section_gets_intervals(single):
    df, res = single
    s = pd.read_csv(res.csv)
    k = int(df.toy_blocked.sum())
    r = row(s, "game.blocked_share")
    lo, hi = proportion_confint(k, len(df), method="wilson")
    assert (r.successes, r.n) == (k, len(df))
    assert (r.ci_low, r.ci_high) == (pytest.approx(lo), pytest.approx(hi))
    assert row(s, "game.mean_dots").value == pytest.approx(df.toy_dots.mean())
    md = res.markdown.read_text()
    assert "### toy metrics" in md and "blocked_share" in md and "mean_dots" in md


SECTIONS = ["Balance report", "Verdict", "Why games end", "Outcome metrics (Ludii)",
            "Variants in detail", "Variant race", "Seats", "How games end", "Game length (turns)",
            "Scores", "toy metrics", "Appendix: runs and rule-text readings", "Method notes"]


def test_markdown_and_html_contain_every_section(single):
    _, res = single
    md = res.markdown.read_text()
    page = res.html.read_text()
    for title in SECTIONS:
        assert re.search(rf"^#+ {re.escape(title)}$", md, re.M), title
        assert re.search(rf"<h\d[^>]*>{re.escape(html.escape(title))}</h\d>", page), title
    for text in ["draw rate", "turn-cap rate", "first-player win rate", "balance (Ludii",
                 "Minimum detectable effect", "p vs fair share", "): the tile counts"]:
        assert text in md and text in page, text


def test_html_is_self_contained_and_md_figures_exist(single):
    _, res = single
    page = res.html.read_text()
    srcs = re.findall(r"src='([^']*)'", page)
    assert len(srcs) >= 3 and all(s.startswith("data:image/png;base64,") for s in srcs)
    for src in srcs:
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    assert "http" not in page and "<link" not in page and "<script" not in page
    md = res.markdown.read_text()
    figs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert {"figures/forest.png", "figures/ends_toy.png", "figures/seats_toy.png",
            "figures/scores_toy.png"} <= set(figs)
    for f in figs:
        assert (res.out_dir / f).is_file()


def test_end_reason_table_is_near_the_top_and_majority_warning(tmp_path):
    make_run(tmp_path / "run", 1500, p_reason=(0.3, 0.6, 0.1))
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup)
    md = res.markdown.read_text()
    warn = "**WARNING:** race: "
    assert md.index("## Verdict") < md.index(warn) < md.index("## Why games end")
    assert md.index("## Why games end") < md.index("#### Variant race")
    assert "end by 'stalemate_closest'" in md
    assert "end by 'stalemate_closest'" in html.unescape(res.html.read_text())
    assert "class='warn'" in res.html.read_text()
    assert any("stalemate_closest" in w for w in res.warnings)
    assert "| stalemate_closest | non-win |" in md and "| path | win |" in md


def test_draw_majority_and_no_turn_cap(tmp_path):
    make_run(tmp_path / "run", 800, p_win=(0.2, 0.2))
    m = json.loads((tmp_path / "run" / "manifest.json").read_text())
    m["turn_cap_reason"] = None
    m["end_reasons"] = ["path", "stalemate_closest", "turn_cap"]
    (tmp_path / "run" / "manifest.json").write_text(json.dumps(m))
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup)
    assert any(re.search(r"race: \d+\.\d% of games are draws", w) for w in res.warnings)
    assert not (res.summary.metric == "cap_rate").any()
    assert "| turn-cap rate | no turn cap |" in res.markdown.read_text()


def test_no_end_reason_warning_when_wins_dominate(single):
    _, res = single
    assert not any("end by" in w for w in res.warnings)
    assert "end by '" not in res.markdown.read_text()


def test_reads_only_needed_columns(tmp_path):
    make_run(tmp_path / "run", 200)
    run = report.load_run(tmp_path / "run", toy_lookup)
    assert not {"variant", "variant_hash", "seed"} & set(run.df.columns)
    assert {"winner", "end_reason", "turns", "first_seat", "bot_A", "score_B", "toy_dots"} <= set(run.df)


def test_unfinished_parts_are_ignored_and_empty_runs_do_not_crash(tmp_path):
    make_run(tmp_path / "run", 300, parts=3)
    (tmp_path / "run" / "games" / ".part-00003.parquet.tmp").write_bytes(b"half a file")
    (tmp_path / "run" / "games" / "_part-00004.parquet").write_bytes(b"half a file")
    run = report.load_run(tmp_path / "run", toy_lookup)
    assert len(run.df) == 300
    make_run(tmp_path / "empty", 0, parts=1, manifest_games=0)
    res = report.build_report([tmp_path / "empty", tmp_path / "run"], tmp_path / "out",
                              game_lookup=toy_lookup)
    assert row(res.summary, "games", "race (empty)").value == 0
    assert math.isnan(row(res.summary, "win_rate_A", "race (empty)").value)
    assert "#### Variant race (empty)" in res.markdown.read_text()


def test_end_reason_codes_are_named(tmp_path):
    df = make_run(tmp_path / "run", 100, parts=1)
    df["end_reason"] = df.end_reason.map({r: i for i, r in enumerate(REASONS)}).astype(np.int8)
    df.to_parquet(tmp_path / "run" / "games" / "part-00000.parquet")
    run = report.load_run(tmp_path / "run", toy_lookup)
    assert (run.df.end_reason.astype(str) == df.end_reason.map(dict(enumerate(REASONS)))).all()


def test_missing_outcome_column_is_a_user_error(tmp_path):
    df = make_run(tmp_path / "run", 50, parts=1)
    df.drop(columns=["turns"]).to_parquet(tmp_path / "run" / "games" / "part-00000.parquet")
    with pytest.raises(UserError, match="lacks column.*turns"):
        report.load_run(tmp_path / "run", toy_lookup)


def test_unknown_game_skips_only_its_section(tmp_path):
    make_run(tmp_path / "run", 300)
    res = report.build_report([tmp_path / "run"], tmp_path / "out")  # the real registry: no "toy"
    md = res.markdown.read_text()
    assert "Game-specific section skipped: game 'toy' is not available" in md
    assert "## Why games end" in md and not res.summary.metric.str.startswith("game.").any()
    assert (res.summary.metric == "win_rate_A").any()


def test_broken_report_metrics_skips_only_its_section(tmp_path):
    make_run(tmp_path / "run", 300)
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=lambda _: BrokenGame())
    assert "report_metrics failed (RuntimeError: boom)" in res.markdown.read_text()


def test_rotated_seats_report_each_bot(tmp_path):
    df = make_run(tmp_path / "run", 2000, rotate=True)
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup)
    s = res.summary
    for bot in ("greedy", "random"):
        wins = sum(((df[f"bot_{seat}"] == bot) & (df.winner == i)).sum() for i, seat in enumerate("AB"))
        seen = sum((df[f"bot_{seat}"] == bot).sum() for seat in "AB")
        dec = sum(((df[f"bot_{seat}"] == bot) & (df.winner >= 0)).sum() for seat in "AB")
        r = row(s, f"bot_win_rate_{bot}")
        assert (r.successes, r.n) == (wins, seen)
        assert row(s, f"bot_win_rate_{bot}_p_value").value == pytest.approx(
            sps.binomtest(int(wins), int(dec), 0.5).pvalue)
    md = res.markdown.read_text()
    assert "##### Bots (seats rotated)" in md and "figures/bots.png" in md


def test_two_runs_side_by_side(tmp_path):
    a = make_run(tmp_path / "a", 2500, name="race")
    b = make_run(tmp_path / "b", 2000, seed=5, p_win=(0.45, 0.45), name="battle")
    res = report.build_report([tmp_path / "a", tmp_path / "b"], tmp_path / "out", game_lookup=toy_lookup)
    md = res.markdown.read_text()
    assert "## Within each mode, against its reference" in md and "### toy: against race" in md
    s = res.summary
    ka, kb = int((a.winner == 0).sum()), int((b.winner == 0).sum())
    r = row(s, "diff.win_rate_A", "battle vs race")
    lo, hi = confint_proportions_2indep(kb, len(b), ka, len(a), method="newcomb")
    assert r.value == pytest.approx(kb / len(b) - ka / len(a))
    assert (r.ci_low, r.ci_high) == (pytest.approx(lo), pytest.approx(hi))
    p = sps.chi2_contingency([[kb, len(b) - kb], [ka, len(a) - ka]], correction=False).pvalue
    assert row(s, "diff.win_rate_A_p_value", "battle vs race").value == pytest.approx(p)
    assert row(s, "diff.turns_mean", "battle vs race").value == pytest.approx(b.turns.mean() - a.turns.mean())
    assert row(s, "diff.turns_rank_p_value", "battle vs race").value == pytest.approx(
        sps.mannwhitneyu(b.turns, a.turns).pvalue)
    # Holm over the whole comparison family
    comp = res.comparison
    np.testing.assert_allclose(comp.p_holm, np.minimum(1, np.maximum.accumulate(
        np.sort(comp.p_value) * (len(comp) - np.arange(len(comp)))))[np.argsort(np.argsort(comp.p_value))])
    assert row(s, "win_rate_A", "battle").n == 2000 and row(s, "win_rate_A", "race").n == 2500


def test_same_variant_twice_gets_distinct_labels(tmp_path):
    make_run(tmp_path / "seed1", 300)
    make_run(tmp_path / "seed2", 300, seed=2)
    res = report.build_report([tmp_path / "seed1", tmp_path / "seed2"], tmp_path / "out",
                              game_lookup=toy_lookup)
    assert set(res.summary.variant[res.summary.metric == "games"]) == {"race (seed1)", "race (seed2)"}


def test_three_seats(tmp_path):
    df = make_run(tmp_path / "run", 1200, seats=("red", "green", "blue"), p_win=(0.4, 0.3, 0.25))
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup)
    s = res.summary
    for i, seat in enumerate(("red", "green", "blue")):
        assert row(s, f"win_rate_{seat}").successes == (df.winner == i).sum()
    decisive = int((df.winner >= 0).sum())
    assert row(s, "win_rate_red_p_value").value == pytest.approx(
        sps.binomtest(int((df.winner == 0).sum()), decisive, 1 / 3).pvalue)
    assert "against 1/3" in res.markdown.read_text()


def test_incomplete_run_is_flagged(tmp_path):
    """An unfinished run is refused; with partial=True it is reported, marked partial."""
    make_run(tmp_path / "run", 300, manifest_games=1000)
    with pytest.raises(UserError, match=r"unfinished run: .*run \(partial: 300 of 1,000 games\)"):
        report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup)
    assert not (tmp_path / "out").exists()
    res = report.build_report([tmp_path / "run"], tmp_path / "out", game_lookup=toy_lookup,
                              partial=True)
    assert any("holds 300 games but the manifest asked for 1,000" in w for w in res.warnings)
    assert res.partial == {"race": "partial: 300 of 1,000 games"}
    assert "race (partial: 300 of 1,000 games)" in res.markdown.read_text()


def test_bad_run_folders_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="manifest.json: missing"):
        report.build_report([tmp_path], tmp_path / "out")
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(UserError, match="not valid JSON"):
        report.build_report([tmp_path], tmp_path / "out")
    (tmp_path / "manifest.json").write_text(json.dumps({"variant": {"game": "toy"}, "seat_names": ["A"]}))
    with pytest.raises(UserError, match="no outcome table"):
        report.build_report([tmp_path], tmp_path / "out")
    with pytest.raises(UserError, match="at least one run"):
        report.build_report([], tmp_path / "out")


def test_html_tables_left_align_text_columns_and_right_align_numbers():
    """A column of words (end reasons, flags) reads left-aligned, its header too; a column of
    numbers stays right-aligned so digits line up; a column never mixes both; short cells do not
    wrap."""
    from sim.reports.balance import Doc, Group

    doc = Doc()
    doc.table(["variant", "share", "other ends", "flag"],
              [Group("hexflow race"),
               ["race", "58.4% (56.2-60.6)", "stalemate_closest 3.2%, path 0.2%", "degenerate strategy? 17% over"],
               ["race_b", "-1.6 [-4.6, +1.5]", "blocked 24.2%", ""]])
    page = doc.html({}, "t")
    rows = re.findall(r"<tr>(.*?)</tr>", page)
    header = re.findall(r"<th([^>]*)>", rows[0])
    assert [("class=t" in h) for h in header] == [True, False, True, True]
    for row in rows[1:]:
        classes = [c.split() for c in re.findall(r"<td(?: class='([^']*)')?>", row)]
        assert ["t" in c for c in classes] == [True, False, True, True]
    assert "<td class='t nw'>blocked 24.2%</td>" in page
    assert "<td class='nw'>58.4% (56.2-60.6)</td>" in page


def test_old_summary_names_are_understood_with_a_deprecation_warning():
    from sim.stats.metrics import current_name

    old = {"first_player_share_of_decisive": "first_mover_share", "win_rate.A": "win_rate_A",
           "turns.median": "turns_p50", "turns.p95": "turns_p95", "end_reason.block": "end_block",
           "score.B.mean": "score_mean_B", "turn_cap_rate": "cap_rate"}
    for name, new in old.items():
        with pytest.warns(DeprecationWarning, match=new):
            assert current_name(name) == new
    assert current_name("first_mover_share") == "first_mover_share"  # today's names pass unchanged


def test_the_report_and_the_workflows_name_a_quantity_alike(tmp_path):
    """summary.csv uses the names compare, tune and baselines use (sim.stats.metrics)."""
    import sim
    from sim.runs.variants import load
    from sim.stats.metrics import outcome_metrics

    v = load("hexflow/race")
    r = sim.run(v, 40, seed=3, jobs=1, out=tmp_path / "run")
    res = sim.report([tmp_path / "run"], out=tmp_path / "rep", replays=False)
    names = set(res.summary["metric"])
    shared = {m.name for m in outcome_metrics(r.table(), v)} & names
    assert {"first_mover_share", "win_rate_A", "win_rate_first_mover", "draw_rate", "turns_mean",
            "turns_p50"} <= shared
    assert not {n for n in names if n.startswith(("win_rate.", "end_reason.", "turns.", "score."))}
