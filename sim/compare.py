"""`hexsim compare A B`: did my rule edit change anything, and by how much?

Both variants are played with the same run seed, so game i of A and game i of B start from the
same seed (common random numbers: where the set-ups match, the same dice and draws). The games
then pair, and every metric of `sim.metrics.outcome_metrics` is compared on the pairs: rates by
the exact McNemar test with Newcombe's paired interval, means by the paired t-test over
game-by-game differences, quantiles and shares of decisive games by a paired bootstrap (details
in `sim.metrics.compare_metric`). Where the games do not pair (different seat counts, or
`common_seeds=False`), the comparison says so and uses two-sample methods. Every metric gets
B - A with a 95% interval and an interval at the level of the verdicts (Bonferroni over the
hypotheses), a p-value, the Holm-adjusted p-value and a verdict that states the minimum
detectable effect when it finds no change.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim import _callable_module, metrics
from sim.errors import UserError
from sim.runner import RunResult
from sim.variants import Variant, load

CSV_COLUMNS = ["metric", "value_a", "value_b", "diff", "ci_low", "ci_high", "p_value",
               "p_adjusted", "verdict", "successes_a", "n_a", "successes_b", "n_b", "mde", "kind",
               "ci_low_adj", "ci_high_adj", "method", "discordant", "same_as", "paired"]


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
    import sim

    seed_b = seed if common_seeds else seed + 1
    ra = sim.run(va, games, seed=seed, jobs=jobs, out=runs / run_folder("a", va, games, seed, rotate_seats),
                 rotate_seats=rotate_seats, progress=progress)
    rb = sim.run(vb, games, seed=seed_b, jobs=jobs,
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
    return [f"A = {a.name} (hash {a.hash}), B = {b.name} (hash {b.hash})",
            f"{res.games:,} games each, run seed {res.seed}." + same,
            paired,
            f"{changed} of {len(t)} metrics changed (Holm-adjusted p < {metrics.ALPHA} over "
            f"{family} hypotheses; a metric that repeats another's is tested once). diff = B - A; "
            f"95% interval unadjusted; the adjusted interval is at level {metrics.ALPHA}/{family} "
            "(Bonferroni, simultaneous), the level the 'could have seen' changes use."]


def _rows(res: Comparison) -> list[list[str]]:
    return [[r.metric, _fmt(r.value_a), _fmt(r.value_b), _fmt(r.diff),
             f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]",
             f"[{_fmt(r.ci_low_adj)}, {_fmt(r.ci_high_adj)}]", _fmt(r.p_value, 3),
             _fmt(r.p_adjusted, 3), r.verdict] for r in res.table.itertuples()]


HEAD = ["metric", "A", "B", "B - A", "95% interval", "adjusted interval", "p", "p (Holm)",
        "verdict"]


def _markdown(res: Comparison, files: dict[str, Path]) -> str:
    lines = ["# Comparison", ""] + [f"- {h}" for h in _header(res)] + [""]
    lines += ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    lines += ["| " + " | ".join(r) + " |" for r in _rows(res)]
    lines += [""] + [f"![{k}]({p.name})" for k, p in files.items() if p.suffix == ".png"]
    return "\n".join(lines) + "\n"


def _html(res: Comparison, files: dict[str, Path]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in HEAD)
    body = []
    for r, row in zip(_rows(res), res.table.itertuples(), strict=True):
        cls = ' class="changed"' if row.verdict == "changed" else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>")
    figs = "".join(f'<figure><img src="{e(p.name)}" alt="{e(k)}"></figure>'
                   for k, p in files.items() if p.suffix == ".png")
    items = "".join(f"<li>{e(h)}</li>" for h in _header(res))
    return ("<!doctype html><html><head><meta charset='utf-8'><title>hexsim comparison</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
            "td:first-child,td:last-child{text-align:left}tr.changed{background:#fde2e2}"
            "img{max-width:900px}</style></head><body><h1>Comparison</h1>"
            f"<ul>{items}</ul><table><tr>{head}</tr>{''.join(body)}</table>{figs}</body></html>\n")


def _figures(res: Comparison, out: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    da, db = res.run_a.table(), res.run_b.table()
    la, lb = f"A: {res.variant_a.name}", f"B: {res.variant_b.name}"
    files = {}

    t = res.table[res.table["kind"] == "proportion"]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(t) + 1.5))
    y = np.arange(len(t))
    for off, side, lab, col in ((-0.18, "a", la, "tab:blue"), (0.18, "b", lb, "tab:orange")):
        ks, ns = t[f"successes_{side}"].to_numpy(), t[f"n_{side}"].to_numpy()
        vals = t[f"value_{side}"].to_numpy()
        ci = np.array([metrics.wilson(int(k), int(n)) for k, n in zip(ks, ns, strict=True)])
        ax.errorbar(vals, y + off, xerr=np.abs(ci.T - vals), fmt="o", color=col, label=lab,
                    capsize=3)
    ax.set_yticks(y, t["metric"])
    ax.invert_yaxis()
    ax.set_xlabel("rate (95% Wilson interval)")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    files["rates"] = out / "rates.png"
    fig.savefig(files["rates"], dpi=90)
    plt.close(fig)

    cols = ["turns"] + [f"score_{s}" for s in res.variant_a.seat_names if f"score_{s}" in db]
    fig, axes = plt.subplots(1, len(cols), figsize=(4 * len(cols), 3.2), squeeze=False)
    for ax, c in zip(axes[0], cols, strict=True):
        xa, xb = da[c].to_numpy(dtype=float), db[c].to_numpy(dtype=float)
        lo, hi = min(xa.min(), xb.min()), max(xa.max(), xb.max())
        bins = np.arange(lo - 0.5, hi + 1.5) if hi - lo < 80 else 60
        ax.hist(xa, bins=bins, histtype="step", density=True, label=la, color="tab:blue")
        ax.hist(xb, bins=bins, histtype="step", density=True, label=lb, color="tab:orange")
        ax.set_title(c)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    files["distributions"] = out / "distributions.png"
    fig.savefig(files["distributions"], dpi=90)
    plt.close(fig)
    return files


_callable_module(__name__, "compare")  # `sim.compare(...)` works once this module is imported too
