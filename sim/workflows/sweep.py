"""`hexsim sweep VARIANT --set PATH=a,b,c [--set PATH=...]`: every metric over a grid.

A PATH names any value a variant can say (`sim.runs.variants.apply_paths`): `rules.hand_size`,
`rules.hand_size.B` (one seat's entry), `rules.tiles.block.count` (a nested table),
`seats.A.defense` (a bot parameter), `seats.A.bot`. Values are split on the commas outside
brackets, braces and quotes, each a TOML or JSON value (`split_values`, `parse_value`), so lists
and tables are values too: `rules.dot_list=[["e5",2]],[]` is two alternatives.

Each grid point is the variant with `section.key = value` overrides, played with the same run
seed (common random numbers across the grid). Every metric gets a 95% interval (Wilson for
proportions, bootstrap otherwise). The first mover's share of decisive games is judged by
`sim.stats.fairness` against the fair share 1/seats +/- `margin` (default 2 points): "fair" only
where an equivalence test (two one-sided exact tests) shows the share is inside the margin,
"unfair" only where its 95% interval lies wholly beyond the margin, otherwise "cannot tell" with
about how many games would decide it. An interval that merely includes the fair share is no evidence of fairness.
One parameter: metrics against the parameter with interval bands; two: heatmaps; more: table.
"""

from __future__ import annotations

import itertools
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import display, stats
from sim.errors import UserError
from sim.reports.document import Doc
from sim.runs.runner import RunResult
from sim.runs.variants import Variant, load
from sim.stats import intervals, metrics
from sim.workflows.compare import run_folder

FAIR_METRIC = "first_mover_share"


VALUES_HELP = ("alternatives separated by commas outside brackets, braces and quotes; each a TOML "
               "value (2, 0.5, true, \"x\", [[1, 2], [3, 4]], { A = 3, B = 4 }), a JSON one "
               "({\"A\": 3}) or bare text (a string)")


def parse_value(text: str) -> Any:
    """A TOML value (2, 0.5, true, "x", [1, 2], { A = 3 }), else a JSON one ({"A": 3}), else the
    bare text as a string."""
    import json

    text = text.strip()
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    if text[:1] in "[{":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return text


def split_values(text: str, option: str = "--set") -> list[str]:
    """Split on the commas outside brackets, braces and quotes: `1,[2,3],{A=1,B=2}` is three
    alternatives. Unbalanced brackets or quotes are a UserError naming the option."""
    out, depth, quote, cur = [], 0, "", []
    closing = {"]": "[", "}": "{"}
    stack: list[str] = []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}":
            if not stack or stack.pop() != closing[ch]:
                raise UserError(f"{option}: {ch!r} closes nothing in {text!r}; {VALUES_HELP}")
        elif ch == "," and not stack:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    depth = len(stack)
    if quote or depth:
        raise UserError(f"{option}: unbalanced {'quote' if quote else repr(stack[-1])} in {text!r}; "
                        f"{VALUES_HELP}")
    out.append("".join(cur))
    if any(not v.strip() for v in out):
        raise UserError(f"{option}: an empty alternative in {text!r}; {VALUES_HELP}")
    return out


def parse_set(option: str, name: str = "--set") -> tuple[str, list[Any]]:
    """`rules.hand_size=2,3,4,5` -> ("rules.hand_size", [2, 3, 4, 5]); the key is a variant path
    (`sim.runs.variants.split_path`), the values as `split_values` splits them."""
    from sim.runs.variants import PATH_HELP, split_path

    key, eq, values = option.partition("=")
    key = key.strip()
    if not eq or not key or not values.strip():
        raise UserError(f"{name} {option}: use {name} PATH=V1,V2,... (PATH: {PATH_HELP})")
    try:
        split_path(key)
    except UserError:
        raise UserError(f"{name} {option}: the key must be a variant path: {PATH_HELP}") from None
    vals = [parse_value(v) for v in split_values(values, f"{name} {option}")]
    if len(set(map(repr, vals))) != len(vals):
        raise UserError(f"{name} {option}: a value is repeated")
    return key, vals


@dataclass
class SweepResult:
    """One row per (grid point, metric): the parameter values, then `metric_table` columns."""

    params: list[str]
    table: pd.DataFrame
    variants: list[Variant]
    runs: list[RunResult]
    games: int
    seed: int
    margin: float = metrics.MARGIN
    files: dict[str, Path] = field(default_factory=dict)

    def points(self, verdict: str) -> pd.DataFrame:
        """The grid points whose first-mover share has this fairness verdict."""
        t = self.table
        return t[(t["metric"] == FAIR_METRIC) & (t["fairness"] == verdict)][self.params]

    def fair_points(self) -> pd.DataFrame:
        """Grid points shown fair within +/-margin by the equivalence test."""
        return self.points("fair")

    def _title(self) -> str:
        return (f"SweepResult {self.variants[0].name if self.variants else '?'} over "
                f"{', '.join(self.params)}: {len(self.variants)} settings, {self.games:,} games each "
                f"(seed {self.seed})")

    def __repr__(self) -> str:
        share = self.table[self.table["metric"] == FAIR_METRIC]
        fair = len(self.fair_points())
        return display.text(self._title(), [
            f"first mover's share {share['value'].min():.3f} to {share['value'].max():.3f}; "
            f"{fair} setting(s) fair within +/-{self.margin:g}" if len(share) else "",
            display.folder(self.files), "one row per (setting, metric): .table; fair ones: .fair_points()"])

    def _repr_html_(self) -> str:
        return display.html(self._title(), self.table[self.table["metric"] == FAIR_METRIC],
                            [*self.params, "metric", "value", "ci_low", "ci_high", "fairness"])


def value_text(v: Any) -> str:
    """A value as the --set syntax writes it (TOML inline for lists and tables)."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {value_text(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    if isinstance(v, str):
        return v
    return str(v)


def _point_name(point: dict[str, Any]) -> str:
    import re

    text = ",".join(f"{k.partition('.')[2]}={value_text(v)}" for k, v in point.items())
    return re.sub(r"[^A-Za-z0-9_.,=+-]+", "_", text)[:80]


def cell(v: Any) -> Any:
    """A value as a table cell: scalars as they are, lists and tables as --set text."""
    return value_text(v) if isinstance(v, (list, dict)) else v


def _load_point(variant: str, point: dict[str, Any]) -> Variant:
    """The variant with these path values; a bad path or value names the --set option."""
    from sim.errors import VariantError

    try:
        return load(variant, overrides=point)
    except VariantError as e:
        given = ", ".join(f"{k}={value_text(v)}" for k, v in point.items())
        raise VariantError(f"--set {given}: {e}") from None


def sweep(variant: str, grid: dict[str, list[Any]], games: int = 10_000, seed: int = 0,
          jobs: int | None = None, out: str | Path | None = None, progress: bool = False,
          write: bool = True, margin: float = metrics.MARGIN,
          rotate_seats: bool = False) -> SweepResult:
    """Play every point of the grid (all points are validated before any game is played);
    `margin`: how far from the fair share a first-mover share may be and still be fair;
    `rotate_seats`: every seed once per seat rotation. With `progress`, each setting is named on
    stderr before its bar."""
    if not grid:
        raise UserError("sweep: give at least one --set rules.NAME=V1,V2,...")
    base = load(variant)
    metrics.check_margin(margin, len(base.seat_names))
    out = Path(out) if out is not None else Path("reports") / f"sweep-{base.name.replace('/', '-')}"
    keys = list(grid)
    points = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*grid.values())]
    for k, values in grid.items():  # each value alone first: the error names its option
        for x in values:
            _load_point(variant, {k: x})
    loaded = [_load_point(variant, p) for p in points]
    from sim.runs import runner

    frames, runs = [], []
    for i, (p, v) in enumerate(zip(points, loaded, strict=True), 1):
        if progress:
            print(f"setting {i}/{len(points)}: " + ", ".join(f"{k}={x}" for k, x in p.items()),
                  file=sys.stderr)
        r = runner.run(v, games, seed=seed, jobs=jobs, progress=progress, rotate_seats=rotate_seats,
                    out=out / "runs" / run_folder(_point_name(p), v, games, seed, rotate_seats))
        mt = metrics.metric_table(r.table(), v, seed=seed, margin=margin)
        for k in reversed(keys):
            mt.insert(0, k, [cell(p[k])] * len(mt))
        frames.append(mt)
        runs.append(r)
    res = SweepResult(keys, pd.concat(frames, ignore_index=True), loaded, runs, games, seed, margin)
    if write:
        res.files = write_sweep(res, out)
    return res


# ---- output ------------------------------------------------------------------------------------
def write_sweep(res: SweepResult, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / "sweep.csv", "md": out / "sweep.md", "html": out / "sweep.html"}
    res.table.to_csv(files["csv"], index=False)
    if len(res.params) == 1:
        files["first_mover"] = _share_lines(res, out / "first_mover.png")
        files["png"] = _lines(res, out / "sweep.png")
    elif len(res.params) == 2:
        files["first_mover"] = _share_heatmap(res, out / "first_mover.png")
        files["png"] = _heatmaps(res, out / "sweep.png")
    files["md"].write_text(_markdown(res, files))
    files["html"].write_text(_html(res, files))
    return files


VERDICT_COLOURS = {"fair": "#1e8449", "unfair": "#c0392b", "cannot tell": "#7f7f7f"}


def _share_rows(res: SweepResult) -> pd.DataFrame:
    return res.table[res.table["metric"] == FAIR_METRIC]


def _share_lines(res: SweepResult, path: Path) -> Path:
    """The first mover's share of decisive games against the one parameter: its 95% interval as
    a band, the fair share with the fair band (+/- margin) shaded, points coloured by verdict."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter

    key = res.params[0]
    t = _share_rows(res)
    x, labels = _xs(t[key].tolist())
    fair = float(t["fair"].dropna().iloc[0]) if t["fair"].notna().any() else 0.5
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    ax.axhspan(fair - res.margin, fair + res.margin, color="#1e8449", alpha=0.12,
               label=f"fair band (fair share +/-{100 * res.margin:g} points)")
    ax.axhline(fair, color="#1e8449", ls="--", lw=1, label=f"fair share {100 * fair:.1f}%")
    ax.fill_between(x, t["ci_low"], t["ci_high"], color="#1f5fbf", alpha=0.2, label="95% interval")
    ax.plot(x, t["value"], color="#1f5fbf", lw=1.2)
    for verdict, colour in VERDICT_COLOURS.items():
        ok = (t["fairness"] == verdict).to_numpy(dtype=bool)
        if ok.any():
            ax.plot(x[ok], t["value"].to_numpy()[ok], "o", color=colour, ms=7, label=verdict)
    if labels:
        ax.set_xticks(x, labels)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel(key)
    ax.set_ylabel("first mover's share of decisive games")
    ax.set_title(f"First mover's share of decisive games against {key}", fontsize=10)
    ax.legend(fontsize=7, frameon=False, loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _share_heatmap(res: SweepResult, path: Path) -> Path:
    """The first mover's share over a two-parameter grid: white at the fair share, red where the
    first mover is ahead and blue where behind, the scale symmetric around the fair share (so an
    unfair cell never looks pale); each cell gives the share, its interval and the verdict."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    kx, ky = res.params
    t = _share_rows(res)
    xs, ys = list(dict.fromkeys(t[kx])), list(dict.fromkeys(t[ky]))
    grid = np.full((len(ys), len(xs)), np.nan)
    fair = float(t["fair"].dropna().iloc[0]) if t["fair"].notna().any() else 0.5
    fig, ax = plt.subplots(figsize=(max(5.0, 1.5 * len(xs) + 2.5), max(3.2, 0.9 * len(ys) + 1.8)))
    for row in t.to_dict("records"):
        grid[ys.index(row[ky]), xs.index(row[kx])] = row["value"]
    span = max(float(np.nanmax(np.abs(grid - fair))) if np.isfinite(grid).any() else 0.0,
               2 * res.margin)
    for row in t.to_dict("records"):
        i, j = ys.index(row[ky]), xs.index(row[kx])
        dark = abs(row["value"] - fair) > 0.55 * span  # white text on the deep colours
        ax.text(j, i, f"{100 * row['value']:.1f}%\n{intervals.share(row['ci_low'], row['ci_high'])}"
                f"\n{row['fairness']}", ha="center", va="center", fontsize=8,
                color="white" if dark else "black")
    im = ax.imshow(grid, origin="lower", cmap="RdBu_r", aspect="auto",
                   norm=Normalize(fair - span, fair + span))
    from matplotlib.ticker import PercentFormatter

    bar = fig.colorbar(im, ax=ax, format=PercentFormatter(1.0, decimals=0))
    bar.set_label(f"first mover's share (white = fair share {100 * fair:.1f}%)", fontsize=8)
    ax.set_xticks(range(len(xs)), [str(v) for v in xs])
    ax.set_yticks(range(len(ys)), [str(v) for v in ys])
    ax.set_xlabel(kx)
    ax.set_ylabel(ky)
    ax.set_title("First mover's share of decisive games", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _doc(res: SweepResult, files: dict[str, Path]):
    t = res.table
    m = f"{100 * res.margin:g}"
    doc = Doc()
    name = res.variants[0].name if res.variants else ""
    doc.h(1, f"Sweep of {name} over {', '.join(res.params)}")
    doc.p(f"{len(res.runs)} settings x {res.games:,} games, run seed {res.seed} (common seeds). "
          "95% intervals: Wilson for proportions, bootstrap otherwise. "
          f"{stats.verdict_rule(res.margin).capitalize()}.")
    doc.h(2, "First mover")
    doc.fig("first_mover", "First mover's share of decisive games per setting (fair band shaded)"
            if len(res.params) == 1 else "First mover's share of decisive games per setting "
            "(white = the fair share; red: the first mover ahead, blue: behind)")
    doc.table([*res.params, "first mover's share", "verdict", "in words"],
              [[*(str(r[k]) for k in res.params),
                f"{100 * r['value']:.1f}% {intervals.share(r['ci_low'], r['ci_high'])}",
                str(r["fairness"]), str(r["fairness_sentence"])] for r in _share_rows(res).to_dict("records")])
    fair = res.fair_points()
    if len(fair):
        pts = "; ".join(", ".join(f"{k}={v}" for k, v in r.items()) for r in fair.to_dict("records"))
        doc.p(f"Fair within +/-{m} points at: {pts}")
    else:
        doc.p(f"No setting is shown fair within +/-{m} points.")
    doc.h(2, "Every metric")
    doc.fold(f"every metric against the settings ({t['metric'].nunique()} metrics, figure and table)")
    doc.fig("png", "Every metric per setting (95% intervals)")
    doc.table([*res.params, "metric", "value", "95% interval", "fairness"],
              [[*(str(r[k]) for k in res.params), r["metric"], f"{r['value']:.4g}",
                f"[{r['ci_low']:.4g}, {r['ci_high']:.4g}]",
                r["fairness"] if isinstance(r["fairness"], str) else ""] for r in t.to_dict("records")])
    doc.endfold()
    return doc


def _html(res: SweepResult, files: dict[str, Path]) -> str:
    figs = {k: p.read_bytes() for k, p in files.items() if p.suffix == ".png" and p.exists()}
    return _doc(res, files).html(figs, f"hexsim sweep: {', '.join(res.params)}")


def _metrics_to_plot(res: SweepResult) -> list[str]:
    """Every metric, the first mover's share first (what a designer looks for)."""
    have = list(dict.fromkeys(res.table["metric"]))
    return [m for m in have if m == FAIR_METRIC] + [m for m in have if m != FAIR_METRIC]


def _grid(plt, k: int, w: float, h: float):
    cols = min(k, 4)
    rows = -(-k // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(w * cols, h * rows), squeeze=False)
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:k])


def _xs(values: list[Any]) -> tuple[np.ndarray, list[str] | None]:
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=float), None
    return np.arange(len(values), dtype=float), [str(v) for v in values]


def _lines(res: SweepResult, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    key = res.params[0]
    names = _metrics_to_plot(res)
    fig, axes = _grid(plt, len(names), 3.6, 3.1)
    for ax, m in zip(axes, names, strict=True):
        t = res.table[res.table["metric"] == m]
        x, labels = _xs(t[key].tolist())
        ax.fill_between(x, t["ci_low"], t["ci_high"], alpha=0.25, label="95% interval")
        ax.plot(x, t["value"], marker="o")
        if labels:
            ax.set_xticks(x, labels)
        fair = t["fair"].dropna()
        if len(fair):
            ax.axhline(fair.iloc[0], color="k", ls=":", label="fair share")
            ok = (t["fairness"] == "fair").to_numpy(dtype=bool)
            ax.plot(x[ok], t["value"].to_numpy()[ok], "o", ms=11, mfc="none", mec="tab:green",
                    mew=2, label=f"fair within +/-{100 * res.margin:g} points (equivalence)")
            ax.legend(fontsize=7)
        ax.set_title(m, fontsize=9)
        ax.set_xlabel(key)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _heatmaps(res: SweepResult, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kx, ky = res.params
    names = _metrics_to_plot(res)
    fig, axes = _grid(plt, len(names), 5.0, 4.0)
    for ax, m in zip(axes, names, strict=True):
        t = res.table[res.table["metric"] == m]
        xs, ys = list(dict.fromkeys(t[kx])), list(dict.fromkeys(t[ky]))
        grid = np.full((len(ys), len(xs)), np.nan)
        for row in t.to_dict("records"):
            i, j = ys.index(row[ky]), xs.index(row[kx])
            grid[i, j] = row["value"]
            mark = " *" if row["fairness"] == "fair" else ""
            ax.text(j, i, f"{row['value']:.3g}{mark}\n[{row['ci_low']:.3g}, {row['ci_high']:.3g}]",
                    ha="center", va="center", fontsize=7)
        norm = None
        fair = t["fair"].dropna()
        if len(fair) and np.nanmin(grid) < fair.iloc[0] < np.nanmax(grid):
            from matplotlib.colors import TwoSlopeNorm

            norm = TwoSlopeNorm(vcenter=fair.iloc[0])  # white = fair, red = first mover ahead
        im = ax.imshow(grid, origin="lower", cmap="coolwarm", aspect="auto", norm=norm)
        fig.colorbar(im, ax=ax)
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_yticks(range(len(ys)), [str(v) for v in ys])
        ax.set_xlabel(kx)
        ax.set_ylabel(ky)
        ax.set_title(m + (f" (* fair within +/-{100 * res.margin:g} points)" if m == FAIR_METRIC
                          else ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _markdown(res: SweepResult, files: dict[str, Path]) -> str:
    t = res.table
    m = f"{100 * res.margin:g}"
    lines = [f"# Sweep of {res.variants[0].name if res.variants else ''}", "",
             f"{len(res.runs)} settings x {res.games:,} games, run seed {res.seed} (common seeds). "
             "95% intervals: Wilson for proportions, bootstrap otherwise.", "",
             f"First mover, per setting ({stats.verdict_rule(res.margin)}):", ""]
    for r in t[t["metric"] == FAIR_METRIC].to_dict("records"):
        point = ", ".join(f"{k}={r[k]}" for k in res.params)
        lines.append(f"- {point}: {r['fairness_sentence']}")
    fair = res.fair_points()
    lines.append("")
    if len(fair):
        pts = "; ".join(", ".join(f"{k}={v}" for k, v in r.items()) for r in fair.to_dict("records"))
        lines.append(f"Fair within +/-{m} points at: {pts}")
    else:
        lines.append(f"No setting is shown fair within +/-{m} points.")
    lines += ["", "| " + " | ".join(res.params) + " | metric | value | 95% interval | fairness |",
              "|" + "---|" * (len(res.params) + 4)]
    for r in t.to_dict("records"):
        mark = r["fairness"] if isinstance(r["fairness"], str) else ""
        lines.append("| " + " | ".join(str(r[k]) for k in res.params) +
                     f" | {r['metric']} | {r['value']:.4g} | [{r['ci_low']:.4g}, {r['ci_high']:.4g}] | {mark} |")
    if "png" in files:
        lines += ["", f"![first mover]({files['first_mover'].name})", "", f"![sweep]({files['png'].name})"]
    return "\n".join(lines) + "\n"
