"""`hexsim sweep VARIANT --set rules.x=a,b,c [--set rules.y=...]`: every metric over a grid.

Each grid point is the variant with `section.key = value` overrides, played with the same run
seed (common random numbers across the grid). Every metric gets a 95% interval (Wilson for
proportions, bootstrap otherwise). The first mover's share of decisive games is judged by
`sim.stats.fairness` against the fair share 1/seats +/- `margin` (default 2 points): "fair" only
where an equivalence test (two one-sided exact tests) shows the share is inside the margin,
"unfair" where it differs detectably, otherwise "cannot tell" with about how many games would
decide it. An interval that merely includes the fair share is no evidence of fairness.
One parameter: metrics against the parameter with interval bands; two: heatmaps; more: table.
"""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import _callable_module, metrics
from sim.compare import run_folder
from sim.errors import UserError
from sim.runner import RunResult
from sim.variants import Variant, load

FAIR_METRIC = "first_mover_share"


def parse_value(text: str) -> Any:
    """A TOML literal (2, 0.5, true, "x") or, failing that, the bare text as a string."""
    text = text.strip()
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_set(option: str) -> tuple[str, list[Any]]:
    """`rules.hand_size=2,3,4,5` -> ("rules.hand_size", [2, 3, 4, 5])."""
    key, eq, values = option.partition("=")
    key = key.strip()
    if not eq or not key or not values.strip():
        raise UserError(f"--set {option}: use --set rules.NAME=V1,V2,...")
    section, _, name = key.partition(".")
    if section not in ("rules", "seats") or not name:
        raise UserError(f"--set {option}: the key must be rules.NAME or seats.SEAT")
    vals = [parse_value(v) for v in values.split(",")]
    if len(set(map(repr, vals))) != len(vals):
        raise UserError(f"--set {option}: a value is repeated")
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


def _point_name(point: dict[str, Any]) -> str:
    return ",".join(f"{k.partition('.')[2]}={v}" for k, v in point.items()).replace("/", "_")


def sweep(variant: str, grid: dict[str, list[Any]], games: int = 10_000, seed: int = 0,
          jobs: int | None = None, out: str | Path | None = None, progress: bool = False,
          write: bool = True, margin: float = metrics.MARGIN) -> SweepResult:
    """Play every point of the grid (all points are validated before any game is played);
    `margin`: how far from the fair share a first-mover share may be and still be fair."""
    if not grid:
        raise UserError("sweep: give at least one --set rules.NAME=V1,V2,...")
    base = load(variant)
    metrics.check_margin(margin, len(base.seat_names))
    out = Path(out) if out is not None else Path("reports") / f"sweep-{base.name.replace('/', '-')}"
    keys = list(grid)
    points = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*grid.values())]
    loaded = [load(variant, overrides=p) for p in points]
    import sim

    frames, runs = [], []
    for p, v in zip(points, loaded, strict=True):
        r = sim.run(v, games, seed=seed, jobs=jobs, progress=progress,
                    out=out / "runs" / run_folder(_point_name(p), v, games, seed))
        mt = metrics.metric_table(r.table(), v, seed=seed, margin=margin)
        for k in reversed(keys):
            mt.insert(0, k, [p[k]] * len(mt))
        frames.append(mt)
        runs.append(r)
    res = SweepResult(keys, pd.concat(frames, ignore_index=True), loaded, runs, games, seed, margin)
    if write:
        res.files = write_sweep(res, out)
    return res


# ---- output ------------------------------------------------------------------------------------
def write_sweep(res: SweepResult, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / "sweep.csv", "md": out / "sweep.md"}
    res.table.to_csv(files["csv"], index=False)
    if len(res.params) == 1:
        files["png"] = _lines(res, out / "sweep.png")
    elif len(res.params) == 2:
        files["png"] = _heatmaps(res, out / "sweep.png")
    files["md"].write_text(_markdown(res, files))
    return files


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
             f"First mover, per setting (fair = shown within +/-{m} points of the fair share by "
             "two one-sided exact tests; unfair = differs detectably; otherwise cannot tell):", ""]
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
        lines += ["", f"![sweep]({files['png'].name})"]
    return "\n".join(lines) + "\n"


_callable_module(__name__, "sweep")  # `sim.sweep(...)` works once this module is imported too
