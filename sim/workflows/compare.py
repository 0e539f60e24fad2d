"""`hexsim compare A B`: did my rule edit change anything, and by how much?

Both variants are played with the same run seed, so game i of A and game i of B start from the
same seed (common random numbers: where the set-ups match, the same dice and draws). The games
then pair, and every metric of `sim.stats.metrics.outcome_metrics` is compared on the pairs: rates by
the exact McNemar test with Newcombe's paired interval, means by the paired t-test over
game-by-game differences, quantiles and shares of decisive games by a paired bootstrap (details
in `sim.stats.metrics.compare_metric`). Where the games do not pair (different seat counts, or
`common_seeds=False`), the comparison says so and uses two-sample methods. Every metric gets
B - A with a 95% interval and an interval at the level of the verdicts (Bonferroni over the
hypotheses), a p-value, the Holm-adjusted p-value and a verdict that states the minimum
detectable effect when it finds no change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim import display
from sim.errors import UserError
from sim.reports.document import Doc
from sim.runs.runner import RunResult
from sim.runs.variants import Variant, load
from sim.stats import intervals, metrics

CSV_COLUMNS = ["metric", "value_a", "value_b", "diff", "ci_low", "ci_high", "p_value",
               "p_adjusted", "verdict", "successes_a", "n_a", "successes_b", "n_b", "mde", "kind",
               "ci_low_adj", "ci_high_adj", "method", "discordant", "same_as", "paired",
               "fairness_a", "fairness_b"]


@dataclass
class Comparison:
    """The result of `compare`: the table (one row per metric) and both runs."""

    table: pd.DataFrame
    variant_a: Variant
    variant_b: Variant
    run_a: RunResult
    run_b: RunResult
    seed: int
    games: int
    identical: float | None = None  # share of seeds whose game came out the same in A and B
    identical_games: int | None = None  # how many games that is
    pairing: str | None = None  # None when the games pair, else why they do not
    files: dict[str, Path] = field(default_factory=dict)

    def changed(self) -> pd.DataFrame:
        return self.table[self.table["verdict"] == "changed"]

    def _headline(self) -> pd.DataFrame:
        """The first mover's share, then every changed metric."""
        t = self.table
        return t[(t["metric"] == "first_mover_share") | (t["verdict"] == "changed")]

    def _title(self) -> str:
        seeds = "common seeds" if self.pairing is None else "independent seeds"
        return (f"Comparison {self.variant_a.name} vs {self.variant_b.name}: {self.games:,} games "
                f"each on {seeds} (seed {self.seed})")

    def __repr__(self) -> str:
        changed = self.changed()["metric"].tolist()
        fm = self.table[self.table["metric"] == "first_mover_share"].to_dict("records")
        same = (f"{self.identical:.1%} of the games came out identical" if self.identical is not None
                else f"games do not pair: {self.pairing}")
        return display.text(self._title(), [
            f"{len(changed)} of {len(self.table)} metrics changed" + (f": {display.names(changed)}" if changed else ""),
            *(f"first mover's share {r['value_a']:.4f} -> {r['value_b']:.4f} ({r['diff']:+.4f}, "
              f"95% [{r['ci_low']:+.4f}, {r['ci_high']:+.4f}])" for r in fm),
            same, display.folder(self.files) or f"runs: {self.run_a.path.parent}",
            "every metric: .table; changed ones: .changed()"])

    def _repr_html_(self) -> str:
        return display.html(self._title(), self._headline(),
                            ["metric", "value_a", "value_b", "diff", "ci_low", "ci_high", "p_adjusted", "verdict"])


def load_pair(a: str | Variant, b: str | Variant) -> tuple[Variant, Variant]:
    va = a if isinstance(a, Variant) else load(a)
    vb = b if isinstance(b, Variant) else load(b)
    if va.game.name != vb.game.name:
        raise UserError(f"compare: {va.name} is a {va.game.name} variant and {vb.name} a "
                        f"{vb.game.name} one; compare variants of the same game")
    return va, vb


def _label(v: Variant) -> str:
    return v.name.replace("/", "-")


def run_folder(prefix: str, v: Variant, games: int, seed: int, rotate: bool = False) -> str:
    """One folder per exact set-up, game count and seed: re-running a comparison resumes it,
    and editing a variant or asking for more games plays into a new folder instead of
    tripping the runner's refusal to mix runs."""
    return f"{prefix}-{_label(v)}-{v.hash[:8]}-n{games}-s{seed}" + ("-rot" if rotate else "")


def compare(a: str | Variant, b: str | Variant, games: int = 10_000, seed: int = 0,
            jobs: int | None = None, out: str | Path | None = None, rotate_seats: bool = False,
            progress: bool = False, alpha: float = metrics.ALPHA, write: bool = True,
            common_seeds: bool = True) -> Comparison:
    """Play A and B on the same seeds and compare every metric. Returns data before any
    printing; with `write`, also writes comparison.csv/.md/.html and figures into `out`.
    `common_seeds=False` plays B from run seed `seed + 1` (independent games, unpaired methods)."""
    va, vb = load_pair(a, b)
    out = Path(out) if out is not None else Path("reports") / f"compare-{_label(va)}-vs-{_label(vb)}"
    runs = out / "runs"
    from sim.runs import runner

    seed_b = seed if common_seeds else seed + 1
    ra = runner.run(va, games, seed=seed, jobs=jobs, out=runs / run_folder("a", va, games, seed, rotate_seats),
                 rotate_seats=rotate_seats, progress=progress)
    rb = runner.run(vb, games, seed=seed_b, jobs=jobs,
                 out=runs / run_folder("b", vb, games, seed_b, rotate_seats),
                 rotate_seats=rotate_seats, progress=progress)
    da, db = ra.table(), rb.table()
    table = metrics.compare_tables(da, db, va, vb, seed=seed, alpha=alpha)
    same = identical_games(da, db)
    res = Comparison(table, va, vb, ra, rb, seed, games,
                     None if same is None else same / len(da) if len(da) else None, same,
                     table.attrs.get("pairing"))
    if write:
        res.files = write_comparison(res, out)
    return res


def identical_games(da: pd.DataFrame, db: pd.DataFrame) -> int | None:
    """How many common seeds gave a game that ended the same (winner, turns, scores) in A and
    B: how much of the comparison the common random numbers held fixed (None if seeds do not
    pair)."""
    if len(da) != len(db) or not np.array_equal(da["seed"].to_numpy(), db["seed"].to_numpy()):
        return None
    cols = ["winner", "turns"] + [c for c in da if c.startswith("score_") and c in db]
    same = np.ones(len(da), dtype=bool)
    for c in cols:
        same &= da[c].to_numpy() == db[c].to_numpy()
    return int(same.sum())


def identical_share(da: pd.DataFrame, db: pd.DataFrame) -> float | None:
    """`identical_games` as a share of the games."""
    k = identical_games(da, db)
    return None if k is None or not len(da) else k / len(da)


# ---- output ------------------------------------------------------------------------------------
def write_comparison(res: Comparison, out: str | Path) -> dict[str, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / "comparison.csv", "md": out / "comparison.md",
             "html": out / "comparison.html"}
    res.table[CSV_COLUMNS].to_csv(files["csv"], index=False)
    files.update(_figures(res, out))
    files["md"].write_text(_markdown(res, files))
    files["html"].write_text(_html(res, files))
    return files


def _fmt(x, digits=4) -> str:
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{x:.{digits}g}"


# ---- the metrics in words, headline first ------------------------------------------------------

SEQUENTIAL_NOTE = ("A fixed-size comparison tests every metric on all the games at once (Holm over "
                   "the table); `--sequential` tests only the first mover's win rate and stops as "
                   "soon as a GSPRT decides it moved by --margin or not, so near the margin the two "
                   "can disagree: each answers its own question at its own error rates.")


def metric_words(metric: str) -> str:
    """A metric's name as the comparison prints it."""
    if metric == "first_mover_share":
        return "first mover's share of decisive games"
    if metric == "win_rate_first_mover":
        return "first mover's win rate (all games)"
    if metric.startswith("win_rate_"):
        return f"seat {metric.removeprefix('win_rate_')} win rate"
    if metric.startswith("score_mean_"):
        return f"seat {metric.removeprefix('score_mean_')} mean score"
    if metric.startswith("end_"):
        return f"games ending by {metric.removeprefix('end_')}"
    return {"draw_rate": "draws", "cap_rate": "games reaching the turn cap",
            "swap_rate": "games where the second player took the opening (pie rule)",
            "turns_mean": "length, mean turns", "turns_p50": "length, median turns",
            "turns_p10": "length, 10th percentile", "turns_p90": "length, 90th percentile"}.get(
        metric, metric)


def headline(table: pd.DataFrame) -> np.ndarray:
    """Rows a designer reads first: seat and first-mover rates, draws, the turn cap, the end
    reasons that end at least 5% of either variant's games (how much is decided off the board),
    and the mean and median length."""
    m = table["metric"].astype(str)
    main = m.str.startswith("win_rate_") | m.isin(["first_mover_share", "draw_rate", "cap_rate",
                                                   "turns_mean", "turns_p50"])
    ends = m.str.startswith("end_") & (np.maximum(table["value_a"].astype(float),
                                                  table["value_b"].astype(float)) >= 0.05)
    return (main | ends).to_numpy()


def _is_rate(row) -> bool:
    return getattr(row, "kind", "") == "proportion"


def value_text(row, side: str) -> str:
    v = getattr(row, f"value_{side}")
    return (f"{100 * v:.1f}%" if np.isfinite(v) else "n/a") if _is_rate(row) else _fmt(v)


def diff_text(row) -> str:
    if _is_rate(row):
        return (f"{100 * row.diff:+.1f} pts {intervals.points(row.ci_low, row.ci_high)}"
                if np.isfinite(row.diff) else "n/a")
    if not np.isfinite(row.diff):
        return "n/a"
    return f"{row.diff:+.3g} [{row.ci_low:+.3g}, {row.ci_high:+.3g}]"


def verdict_text(row) -> str:
    """'changed', or 'no detectable change' with the change this run could have seen, in the
    metric's units (points for rates)."""
    v = str(row.verdict)
    if v == "changed":
        return "changed"
    tail = v[v.index("(no game"):] if "(no game" in v else ""
    mde = getattr(row, "mde", np.nan)
    if np.isfinite(mde):
        seen = f"{100 * mde:.1f} pts" if _is_rate(row) else _fmt(mde, 3)
        return f"no detectable change (could have seen {seen}) {tail}".strip()
    return v


def stdout_lines(res: Comparison) -> list[str]:
    """What `hexsim compare` prints: which variant is A and which is B, the headline metrics with
    both values, B - A with its interval and the verdict, then a count of the rest."""
    a, b, t = res.variant_a, res.variant_b, res.table
    lines = [f"A = {a.name}  ({a.description})" if a.description else f"A = {a.name}",
             f"B = {b.name}  ({b.description})" if b.description else f"B = {b.name}",
             f"{res.games:,} games each, run seed {res.seed}; B - A with 95% intervals; "
             "Holm-adjusted verdicts"]
    rows = [r for r, h in zip(t.itertuples(), headline(t), strict=True) if h]
    names = [metric_words(r.metric) for r in rows]
    w = max([len(x) for x in names] + [10])
    lines.append(f"{'metric':{w}s}  {'A':>8s}  {'B':>8s}  {'B - A [95% interval]':30s}  verdict")
    for r, name in zip(rows, names, strict=True):
        lines.append(f"{name:{w}s}  {value_text(r, 'a'):>8s}  {value_text(r, 'b'):>8s}  "
                     f"{diff_text(r):30s}  {verdict_text(r)}")
    rest = t[~headline(t)]
    changed = rest[rest["verdict"] == "changed"]["metric"].map(metric_words).tolist()
    lines.append(f"{len(rest)} more metrics in the report; changed among them: "
                 + (", ".join(changed) if changed else "none"))
    lines.append(f"intervals: 95% unadjusted; the verdicts use level {metrics.ALPHA} over "
                 f"{t.attrs.get('family', len(t))} hypotheses (Holm; adjusted intervals in the report)")
    if "fairness_a" in t:  # each side's first-mover sentence, which names its side
        lines += [x for side in ("a", "b") for x in t[f"fairness_{side}"] if x]
    return lines


# ---- the page ------------------------------------------------------------------------------------

def _header(res: Comparison) -> list[str]:
    a, b = res.variant_a, res.variant_b
    t = res.table
    changed = int((t["verdict"] == "changed").sum())
    family = t.attrs.get("family", len(t))
    same = ("" if res.identical is None else
            f" {res.identical_games:,} of {res.games:,} games ({res.identical:.1%}) came out "
            "identically (same winner, turns, scores).")
    paired = ("Paired analysis: game i of A and of B share their seed (McNemar, paired "
              "interval, paired t / bootstrap)." if res.pairing is None else
              f"Not paired ({res.pairing}): two-sample methods.")
    fair = [x for x in list(t["fairness_a"]) + list(t["fairness_b"]) if x] if "fairness_a" in t else []
    return [f"A = {a.name} (hash {a.hash}): {a.description}",
            f"B = {b.name} (hash {b.hash}): {b.description}",
            *fair,
            f"{res.games:,} games each, run seed {res.seed}." + same,
            paired,
            f"{changed} of {len(t)} metrics changed (Holm-adjusted p < {metrics.ALPHA} over "
            f"{family} hypotheses; a metric that repeats another's is tested once). diff = B - A; "
            f"95% interval unadjusted; the adjusted interval is at level {metrics.ALPHA}/{family} "
            "(Bonferroni, simultaneous), the level the 'could have seen' changes use.",
            SEQUENTIAL_NOTE]


def _rows(res: Comparison, mask: np.ndarray | None = None) -> list[list[str]]:
    rows = list(res.table.itertuples())
    if mask is not None:
        rows = [r for r, keep in zip(rows, mask, strict=True) if keep]
    out = []
    for r in rows:
        adj = (intervals.points(r.ci_low_adj, r.ci_high_adj) if _is_rate(r)
               else f"[{_fmt(r.ci_low_adj)}, {_fmt(r.ci_high_adj)}]")
        out.append([f"{metric_words(r.metric)} ({r.metric})", value_text(r, "a"), value_text(r, "b"),
                    diff_text(r), adj, _fmt(r.p_value, 3), _fmt(r.p_adjusted, 3), verdict_text(r)])
    return out


HEAD = ["metric", "A", "B", "B - A [95% interval]", "adjusted interval", "p", "p (Holm)",
        "verdict"]


def _doc(res: Comparison):
    doc = Doc()
    doc.h(1, f"Comparison: A = {res.variant_a.name}, B = {res.variant_b.name}")
    doc.items(_header(res))
    t = res.table
    doc.h(2, "Headline metrics")
    doc.table(HEAD, _rows(res, headline(t)))
    doc.fig("differences", "B - A for each headline rate with its 95% interval (points; dashed: "
                           "no change)")
    rest = ~headline(t)
    doc.h(2, "Every other metric")
    doc.fold(f"{int(rest.sum())} more metrics "
             f"({int((t[rest]['verdict'] == 'changed').sum())} changed)")
    doc.table(HEAD, _rows(res, rest))
    doc.endfold()
    doc.fig("distributions", "Length and score distributions, A and B overlaid")
    return doc


def _markdown(res: Comparison, files: dict[str, Path]) -> str:
    return _doc(res).markdown({k: p.name for k, p in files.items() if p.suffix == ".png"})


def _html(res: Comparison, files: dict[str, Path]) -> str:
    figs = {k: p.read_bytes() for k, p in files.items() if p.suffix == ".png"}
    return _doc(res).html(figs, f"hexsim comparison: {res.variant_a.name} vs {res.variant_b.name}")


def _figures(res: Comparison, out: Path) -> dict[str, Path]:
    from sim.reports import plots

    da, db = res.run_a.table(), res.run_b.table()
    la, lb = f"A: {res.variant_a.name}", f"B: {res.variant_b.name}"
    files = {}
    t = res.table[headline(res.table)]
    t = t[(t["kind"] == "proportion") & ((t["value_a"] > 0) | (t["value_b"] > 0))]
    fig = plots.differences([(metric_words(r.metric), r.diff, r.ci_low, r.ci_high, r.verdict == "changed")
                             for r in t.itertuples()], f"B - A  ({lb} minus {la})")
    files["differences"] = out / "differences.png"
    files["differences"].write_bytes(plots.png(fig))

    import matplotlib.pyplot as plt

    cols = ["turns"] + [f"score_{s}" for s in res.variant_a.seat_names if f"score_{s}" in db]
    fig, axes = plt.subplots(1, len(cols), figsize=(min(4 * len(cols), 12), 3.0), squeeze=False)
    for ax, c in zip(axes[0], cols, strict=True):
        xa, xb = da[c].to_numpy(dtype=float), db[c].to_numpy(dtype=float)
        lo, hi = min(xa.min(), xb.min()), max(xa.max(), xb.max())
        bins = np.arange(lo - 0.5, hi + 1.5) if hi - lo < 80 else 60
        ax.hist(xa, bins=bins, histtype="step", density=True, label=la, color="tab:blue")
        ax.hist(xb, bins=bins, histtype="step", density=True, label=lb, color="tab:orange")
        ax.set_title("length (turns)" if c == "turns" else f"score of seat {c.removeprefix('score_')}",
                     fontsize=9)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    files["distributions"] = out / "distributions.png"
    files["distributions"].write_bytes(plots.png(fig, dpi=90))
    return files
