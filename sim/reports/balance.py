"""The balance report: run folders in, `report.md`, a self-contained `report.html` and
`summary.csv` out.

`build_report(run_dirs, out_dir)` reads each run's `manifest.json` and only the outcome columns it
needs (pyarrow column selection), computes every number once into summary rows (metric, variant,
value, successes, n, ci_low, ci_high), then renders the same document blocks to Markdown and HTML.
It knows games only through the Game interface (`end_reasons`, `seat_names`, `report_metrics`);
when a game cannot be imported, its own section is skipped with a note and everything else stays.

Readings (documented in the report's method notes too):
- seat fairness and first-player advantage are tested on decisive games (draws removed) against
  the fair share 1/seats, so a drawish game does not look like a seat disadvantage; the rates shown
  are over all games;
- a "non-win" end reason (stalemate, turn cap, tie-break...) is the manifest's turn-cap reason,
  any name in the game's optional `non_win_end_reasons`, or a name containing one of
  `NON_WIN_WORDS`; when one decides more than half the games the report says so at the top;
- per-bot win rates (rotated seats) count one appearance per seat a bot holds in a game.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sim import display
from sim.errors import UserError
from sim.reports import plots
from sim.reports.analysis import SUMMARY_COLUMNS, Analysis, Comparison, analyse, comparisons, groups_of
from sim.reports.document import (  # noqa: F401  (re-exported: sim.reports.balance.Doc and the formats)
    CSS,
    Doc,
    Group,
    Raw,
    ci,
    ci1,
    ci_pts,
    num,
    pct,
    prop_cells,
    pval,
    slug,
)
from sim.reports.ladder import by_skill_section
from sim.reports.sections import (
    one_length,
    render_appendix,
    render_comparisons,
    render_ludii,
    render_methods,
    render_variant,
    render_why,
)
from sim.reports.verdict import (
    VERDICT_COLOURS,
    cheating,
    fairness_of,
    fairness_verdict,
    mark_repeats,
    render_verdict,
    render_warnings,
    verdict_order,
    verdict_table,
)
from sim.runs import tables
from sim.runs.folder import (  # noqa: F401  (re-exported: sim.reports.balance.load_run and the run reader)
    Run,
    default_game_lookup,
    load_run,
    mode_of,
    non_win_reasons,
    read_games,
    read_manifest,
)
from sim.stats import skill as skill_mod

# ---- writing the report ---------------------------------------------------------------------

@dataclass
class ReportResult:
    summary: pd.DataFrame
    out_dir: Path
    markdown: Path
    html: Path
    csv: Path
    figures: dict[str, Path]
    warnings: list[str]
    comparison: pd.DataFrame | None = None
    verdicts: pd.DataFrame | None = None  # one row per variant: `verdict_table`
    partial: dict[str, str] = field(default_factory=dict)  # label -> "partial: 200 of 3,000 games"

    def __repr__(self) -> str:
        return display.text(f"ReportResult: {self.summary['variant'].nunique()} variant(s) in {self.out_dir}", [
            f"report: {self.html}", f"metrics: {self.csv} (.summary)", *self.partial.values(),
            f"{len(self.warnings)} warnings (.warnings)" if self.warnings else ""])

    def _repr_html_(self) -> str:
        return display.html(f"ReportResult: {self.html}", self.verdicts,
                            ["variant", "bots", "first_mover_share", "ci_low", "ci_high", "verdict"])


def build_report(run_dirs: Sequence[str | Path], out_dir: str | Path,
                 game_lookup: Callable[[str], Any] = default_game_lookup,
                 references: Sequence[str] = (), replays: bool = True,
                 partial: bool = False, ladders: Sequence[str | Path] = ()) -> ReportResult:
    """Read the runs, compute every metric, write report.md, report.html, summary.csv, figures.

    `references`: variants (label, name or folder) the others of their mode are compared with;
    `replays`: draw example games (the shortest, a typical one per common end reason);
    `partial`: report unfinished runs too (marked "partial" in the verdict), else refuse them;
    `ladders`: ladder folders (`hexsim ladder`'s, or folders of them) whose strongest rung gives
    the verdict table its "with stronger play" column (`sim.stats.skill`) and the ladders' index page."""
    if not run_dirs:
        raise UserError("report: give at least one run folder")
    runs = [load_run(d, game_lookup) for d in run_dirs]
    refuse_unfinished(runs, partial)
    lads = skill_mod.load_ladders(ladders) if ladders else []
    seen: dict[str, int] = {}
    for r in runs:  # the same variant twice (other seed, other commit): tell them apart
        seen[r.label] = seen.get(r.label, 0) + 1
    for r in runs:
        if seen[r.label] > 1:
            r.label = f"{r.label} ({r.path.name})"
    analyses = [analyse(r) for r in runs]
    play_rows = play_metric_rows(analyses) if replays else pd.DataFrame(columns=SUMMARY_COLUMNS)
    for a in analyses:
        mark_repeats(a)
        if not a.repeats and not cheating(a):
            a.skill = skill_mod.skill_of(a.run.manifest["variant"].get("name", ""),
                                         a.run.manifest.get("variant_hash", ""), a.seat_bots, fairness_of(a), lads)
    comps = comparisons(analyses, references)

    verdicts = verdict_table(analyses)
    rows = [row | {"verdict": v, "bots": b} for a, v, b in
            zip(analyses, verdicts["verdict"], verdicts["bots"], strict=True) for row in a.rows]
    for comparison in comps:
        for r in comparison.rows:
            base = {k: r[k] for k in ("metric", "variant", "value", "ci_low", "ci_high")}
            rows.append(base | {"successes": math.nan, "n": math.nan})
            for key in ("p_value", "p_holm"):
                rows.append({"metric": f"{r['metric']}_{key}", "variant": r["variant"],
                             "value": r[key], "successes": math.nan, "n": math.nan,
                             "ci_low": math.nan, "ci_high": math.nan})
        for label, m in comparison.mde.items():
            rows.append({"metric": "mde_diff_seat_win_rate", "variant": label, "value": m,
                         "successes": math.nan, "n": math.nan, "ci_low": math.nan, "ci_high": math.nan})
    summary = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)

    out = Path(out_dir)
    tables.make_dir(out)
    (out / "figures").mkdir(exist_ok=True)
    figs = make_figures(analyses)
    pictures = example_pictures(analyses, out / "figures") if replays else {}
    if replays:
        summary = pd.concat([summary, play_rows], ignore_index=True)
    for pics in pictures.values():
        for pic in pics:
            figs[pic["key"]] = pic["png"]
    fig_files = {}
    for key, data in figs.items():
        path = out / "figures" / f"{key}.png"
        path.write_bytes(data)
        fig_files[key] = path
    doc = render(analyses, comps, pictures, out)
    figs.update(by_skill_section(doc, runs, out / "figures"))
    md_path, html_path, csv_path = out / "report.md", out / "report.html", out / "summary.csv"
    md_path.write_text(doc.markdown({k: f"figures/{k}.png" for k in figs}))
    if lads:
        write_ladder_index(lads, out)
    html_path.write_text(doc.html(figs, "hexsim balance report"))
    summary.to_csv(csv_path, index=False)
    warnings = [w for a in analyses for w in a.warnings]
    comp_df = pd.DataFrame([r for c in comps for r in c.rows]) if comps else None
    return ReportResult(summary, out, md_path, html_path, csv_path, fig_files, warnings, comp_df, verdicts,
                        {r.label: r.partial for r in runs if r.partial})


def refuse_unfinished(runs: Sequence[Run], partial: bool) -> None:
    """An unfinished run's verdict would read like a finished one's: it is reported only when
    asked for (`partial`), before anything is written."""
    unfinished = [f"{r.path} ({r.partial})" for r in runs if r.partial]
    if unfinished and not partial:
        raise UserError(f"unfinished run: {', '.join(unfinished)}; rerun the same `hexsim run` "
                        "command to finish it, or give --partial to report it as it is")


def write_ladder_index(lads: Sequence[skill_mod.Ladder], out: Path) -> Path:
    """ladders.html beside the report: every ladder it read, its answer in one sentence and a
    link to its page."""
    doc = Doc()
    doc.h(1, "Skill ladders")
    doc.p("Each ladder rates bots of one variant against each other and plays each bot against "
          "itself; its answer compares the first mover's share at its strongest rung with the "
          "variant's own bot's.")
    rows = [[lad.variant, lad.strongest,
             (lad.answer or {}).get("sentence", f"{lad.strongest} is the strongest bot of this ladder."),
             Raw(f"<a href='{html.escape(os.path.relpath(lad.path / 'ladder.html', out), quote=True)}'>page</a>",
                 f"[page]({os.path.relpath(lad.path / 'ladder.html', out)})")] for lad in lads]
    doc.table(["variant", "strongest bot", "answer", "ladder"], rows)
    path = out / "ladders.html"
    path.write_text(doc.html({}, "hexsim skill ladders"))
    return path


def example_pictures(analyses: Sequence[Analysis], fig_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Each variant's example games re-played from their seeds and drawn (downscaled), with the
    exact `hexsim replay` command. A game without replays, or a variant whose file changed
    since the run (its hash differs), gets a note instead."""
    from sim.runs.replay import draw_example

    out: dict[str, list[dict[str, Any]]] = {}
    for a in analyses:
        pics = []
        for ex in a.examples:
            try:
                pic = draw_example(a.run.manifest, ex, a.run.game)
            except UserError as e:
                a.replay_note = f"{a.run.label}: example games not drawn ({e})."
                break
            if pic is None:
                a.replay_note = (f"{a.run.label}: example games not drawn: game "
                                 f"{a.run.game_name!r} has no replay.")
                break
            pics.append(ex | pic | {"key": f"game_{slug(a.run.label)}_{ex['game']}_r{ex['rotation']}"})
        out[a.run.label] = pics
    return out


def play_metric_rows(analyses: Sequence[Analysis]) -> pd.DataFrame:
    """Ludii's play metrics (sim/stats/playmetrics.py) of each variant, over its first replayed games;
    summary rows `play.<metric>`. A variant that cannot replay gets a note instead."""
    from sim.runs.replay import variant_spec
    from sim.runs.variants import load
    from sim.stats import playmetrics

    rows = []
    for a in analyses:
        try:
            spec, overrides = variant_spec(a.run.manifest)
            v = load(spec, overrides or None)
        except UserError as e:
            a.play = playmetrics.PlayMetrics(pd.DataFrame(), pd.DataFrame(), str(e))
            continue
        a.play = playmetrics.play_metrics(v, int(a.run.manifest.get("seed", 0)),
                                          min(playmetrics.DEFAULT_GAMES, a.n))
        for r in a.play.summary.itertuples():
            rows.append({"metric": f"play.{r.metric}", "variant": a.run.label, "value": r.value,
                         "successes": math.nan, "n": r.games, "ci_low": r.low, "ci_high": r.high})
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def make_figures(analyses: Sequence[Analysis]) -> dict[str, bytes]:
    figs: dict[str, bytes] = {}
    order = [a for _, items in verdict_order(analyses) for a in items]
    figs["forest"] = plots.png(plots.forest(
        [plots.Interval(a.run.label, a.first_decisive.value, a.first_decisive.low,
                        a.first_decisive.high, 1 / len(a.run.seats), a.run.group,
                        VERDICT_COLOURS.get(fairness_verdict(a)[0], ""))
         for a in order if a.first_decisive and a.first_decisive.n],
        "First mover's share of decisive games (95% Wilson)"))
    for group, items in groups_of(analyses).items():
        panels = [plots.Stacked(a.run.stem, a.end_hist[0], a.end_hist[1],
                                [str(c) for c in a.run.df["end_reason"].astype("category").cat.categories])
                  for a in items if a.end_hist is not None and not one_length(a)]
        if panels:
            game_reasons = [r for a in items for r in a.run.end_reasons]
            figs[f"ends_{slug(group)}"] = plots.png(plots.stacked_lengths(panels, group,
                                                                          all_reasons=game_reasons))
        scores = {}
        for a in items:
            for s in a.scores:
                if a.n:
                    scores.setdefault(s, {})[a.run.stem] = a.run.df[f"score_{s}"].to_numpy()
        if scores:
            hist = {}
            for s, per in scores.items():
                lo = min(float(v.min()) for v in per.values())
                hi = max(float(v.max()) for v in per.values())
                hist[s] = {k: plots.histogram(v, 60, lo, hi) for k, v in per.items()}
            figs[f"scores_{slug(group)}"] = plots.png(plots.score_distributions(hist))
        seat_bars = [plots.Interval(f"{a.run.stem}: {s}", p.value, p.low, p.high, 1 / len(a.run.seats),
                                    a.run.stem) for a in items for s, p in zip(a.run.seats, a.seat_rates,
                                                                              strict=True) if p.n]
        if seat_bars:
            figs[f"seats_{slug(group)}"] = plots.png(plots.forest(
                seat_bars, f"{group}: win rate per seat, all games (95% Wilson)", xlabel="win rate"))
    if any(a.bots for a in analyses):
        figs["bots"] = plots.png(plots.forest(
            [plots.Interval(f"{a.run.stem}: {b}", p.value, p.low, p.high, 1 / len(a.run.seats),
                            a.run.group) for a in analyses for b, p, _ in a.bots],
            "Win rate per bot, seats rotated (95% Wilson)", xlabel="share of seat-games"))
    return figs


def render(analyses: Sequence[Analysis], comps: Sequence[Comparison],
           pictures: dict[str, list] | None = None, out: Path = Path(".")) -> Doc:
    doc = Doc()
    doc.h(1, "Balance report")
    games = sorted({a.n for a in analyses})
    doc.p(f"{len(analyses)} variant(s) of {', '.join(dict.fromkeys(a.run.game_name for a in analyses))}"
          f", {' / '.join(num(g) for g in games[:3])}{'...' if len(games) > 3 else ''} games each. "
          "The verdict first, then why games end, the outcome metrics, each mode's variants "
          "against its reference, every variant in detail, and the rule-text readings. "
          "Terms: docs/glossary.md.")
    render_verdict(doc, analyses, {c.group: c.baseline for c in comps}, out)
    render_warnings(doc, analyses)
    render_why(doc, analyses, pictures or {})
    render_ludii(doc, analyses)
    if comps:
        render_comparisons(doc, comps)
    doc.h(2, "Variants in detail")
    for group, items in groups_of(analyses).items():
        doc.fold(f"{group}: {len(items)} variant{'s' if len(items) != 1 else ''} (seats, draws, "
                 "end reasons, length, scores, game metrics; figures)")
        doc.fold(f"{group}: win rate per seat and score distributions (figures)")
        doc.fig(f"seats_{slug(group)}", f"{group}: win rate per seat, all games (95% Wilson intervals)")
        doc.fig(f"scores_{slug(group)}", f"{group}: score distribution per seat")
        if any(a.bots for a in items):
            doc.fig("bots", "Win rate per bot, seats rotated (95% Wilson intervals)")
        doc.endfold()
        for a in items:
            render_variant(doc, a)
        doc.endfold()
    render_appendix(doc, analyses)
    render_methods(doc)
    return doc
