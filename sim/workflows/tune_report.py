"""The pages of `hexsim tune` (tune.csv, best.toml, tune.md, tune.html and their figures) and
of `hexsim sensitivity` (sensitivity.csv/.md/.html, tornado figures), with the words both use.
The workflows (sim/workflows/tune.py, sim/workflows/sensitivity.py) import this module; it imports neither."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from sim.reports.document import Doc
from sim.runs.variants import find, name_of, split_path
from sim.stats.metrics import is_share
from sim.workflows.sweep import value_text

BAND = "#1e8449"
WIN = "#c0392b"
BLUE = "#1f5fbf"


# the headline metrics of a sensitivity study, and their names in the pages
HEADLINE = ("first_mover_share", "decided_off_board", "turns_p50")
WORDS = {"first_mover_share": "first mover's share of decisive games",
         "decided_off_board": "games decided off the board", "turns_p50": "median length (turns)"}


def change_text(r: dict[str, Any]) -> str:
    """An alternative in words, naming the seat where one seat's entry moved:
    "rules.hand_size A: 3 -> 2", "rules.bias: 0.55 -> 0.605"; restricted play by its label."""
    if r["param"].startswith("restricted: "):
        return r["param"]
    return f"{r['param']}{' ' if _seat(r) else ': '}{move_text(r)}"


def move_text(r: dict[str, Any]) -> str:
    """What an alternative moved: "A: 3 -> 2" (seat A's entry), "3 -> 2", or restricted play's values."""
    if r["param"].startswith("restricted: "):
        return str(r["value"])
    return f"{r['seat'] + ': ' if _seat(r) else ''}{r['base_value']} -> {r['value']}"


def bar_text(r: dict[str, Any]) -> str:
    """A tornado bar's label: the alternative value, or "A: 3 -> 2" where one seat's entry moved."""
    return move_text(r) if _seat(r) else str(r["value"])


def _seat(r: dict[str, Any]) -> bool:
    return isinstance(r.get("seat"), str) and bool(r["seat"])  # "" (or NaN from a CSV): every seat


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def write_tune(res, out: Path, spec) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / "tune.csv", "toml": out / "best.toml", "md": out / "tune.md",
             "html": out / "tune.html"}
    table = res.table.drop(columns=["key"], errors="ignore")
    table.to_csv(files["csv"], index=False)
    files["toml"].write_text(best_toml(res, spec, out))
    files["progress"] = _progress(res, out / "progress.png")
    files["confirmation"] = _confirmation(res, out / "confirmation.png")
    files["by_value"] = _by_dim(res, out / "by_value.png")
    if len(res.targets) >= 2:
        files["pareto"] = _pareto(res, out / "pareto.png")
    doc = _doc(res)
    files["md"].write_text(doc.markdown({k: p.name for k, p in files.items() if p.suffix == ".png"}))
    figs = {k: p.read_bytes() for k, p in files.items() if p.suffix == ".png"}
    files["html"].write_text(doc.html(figs, f"hexsim tune: {res.variant.name}"))
    return files


# ---- best.toml -----------------------------------------------------------------------------------
def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v) if not (isinstance(v, float) and not math.isfinite(v)) else str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} as TOML")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def best_toml(res, spec, out: Path) -> str:
    """A variant file of the winner that `extends` the searched variant: the whole value of every
    rule and every seat a searched path touches (so the merge of `extends`, which replaces a
    rule's value as a whole, gives exactly the winner's set-up)."""
    wv, base = res.winner_variant, res.variant
    path = find(str(spec))
    if name_of(path) is not None and not Path(str(spec)).suffix:
        ref = str(spec)  # a shipped (or HEXSIM_VARIANTS) name: found from anywhere
    else:
        ref = os.path.relpath(path.resolve(), out.resolve())
    setting = ", ".join(f"{d.path} = {value_text(res.winner[d.path])}" for d in res.dims)
    lines = [f"# Written by hexsim tune: the confirmed {'winner' if res.met else 'closest setting'}"
             f" of {base.name} ({setting}).", f"# {res.statement}",
             f"game = {toml_value(base.game.name)}", f"extends = {toml_value(ref)}",
             f"description = {toml_value(f'{base.name} tuned: {setting}')}", "", "[rules]"]
    rules = sorted({split_path(d.path)[1] for d in res.dims if d.path.startswith("rules.")})
    lines += [f"{_key(r)} = {toml_value(wv.rules[r])}" for r in rules]
    seats = sorted({split_path(d.path)[1] for d in res.dims if d.path.startswith("seats.")})
    for s in seats:
        b = wv.seats[s]
        lines += ["", f"[seats.{_key(s)}]", f"bot = {toml_value(b.bot.name)}"]
        lines += [f"{_key(k)} = {toml_value(x)}" for k, x in b.params.items()]
    return "\n".join(lines) + "\n"


# ---- the search on the terminal ------------------------------------------------------------------
def search_lines(trials: list[dict[str, Any]], seen: dict[str, dict[str, Any]], targets, rungs: int) -> list[str]:
    """One line per distinct setting the search tried (optuna asks for a setting again and again:
    its trials share its games), most games then best objective first: its values, how many
    trials asked for it, the rung and games it reached, and its objective and each target's
    estimate there."""
    from collections import Counter

    asked = Counter(t["key"] for t in trials)

    def order(kv):
        obj = kv[1].get("objective", math.nan)
        return -kv[1]["games"], obj if np.isfinite(obj) else math.inf

    lines = []
    for key, r in sorted(seen.items(), key=order):
        point = ", ".join(f"{p}={value_text(x)}" for p, x in r["point"].items())
        tried = f"{asked[key]} trial{'s' if asked[key] != 1 else ''}"
        if not r["games"]:
            lines.append(f"{point}: {tried}, " + (f"not a valid variant ({r['note']})" if r["note"] else "not played"))
            continue
        est = ", ".join(f"{t.metric} {fmt_metric(t.metric)(r['values'][t.metric])}" for t in targets)
        lines.append(f"{point}: {tried}, rung {r['rung'] + 1}/{rungs} ({r['games']:,} games); "
                     f"objective {r['objective']:.3g}; {est}")
    return lines


# ---- figures -------------------------------------------------------------------------------------
def fmt_metric(metric: str):
    """A formatter of a metric's values: percent (points for a difference) for a share."""
    if is_share(metric):
        return lambda x, diff=False: f"{100 * x:.1f}" + (" pts" if diff else "%")
    return lambda x, diff=False: f"{x:.3g}"


def _pct_axis(ax, metric: str, axis: str = "y") -> None:
    from matplotlib.ticker import PercentFormatter

    if is_share(metric):
        (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0, decimals=0))


def _band(ax, t, axis: str = "y") -> None:
    lo = t.low if np.isfinite(t.low) else None
    hi = t.high if np.isfinite(t.high) else None
    span = ax.axhspan if axis == "y" else ax.axvspan
    line = ax.axhline if axis == "y" else ax.axvline
    a, b = (ax.get_ylim() if axis == "y" else ax.get_xlim())
    span(lo if lo is not None else a, hi if hi is not None else b, color=BAND, alpha=0.13,
         label=f"target {t.band_text()}")
    if t.value is not None:
        line(t.value, color=BAND, ls="--", lw=1)


def _progress(res, path: Path) -> Path:
    """Each search setting's value of every target metric (95% interval) in the order the
    search tried it, dot size by games, the target band shaded; the confirmed winner red."""
    plt = _plt()
    s = res.settings[res.settings["stage"] == "search"].copy()
    first = res.progress.drop_duplicates("key").set_index("key")["trial"]
    s["order"] = s["key"].map(first)
    s = s.sort_values("order")
    k = len(res.targets)
    fig, axes = plt.subplots(k, 1, figsize=(9, 3.0 * k + 0.4), squeeze=False)
    x = np.arange(1, len(s) + 1)
    games = s["games"].to_numpy(dtype=float)
    size = 12 + 60 * (games / max(games.max(), 1))
    win = (s["key"] == res.confirmation.loc[res.confirmation["winner"], "key"].iloc[0]).to_numpy()
    for ax, t in zip(axes[:, 0], res.targets, strict=True):
        y = s[t.metric].to_numpy(dtype=float)
        lo, hi = s[f"{t.metric}_low"].to_numpy(dtype=float), s[f"{t.metric}_high"].to_numpy(dtype=float)
        ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="none", ecolor="#9aa7b8", lw=0.8, zorder=1)
        ax.scatter(x, y, s=size, color=BLUE, alpha=0.75, zorder=2,
                   label="setting tried (dot size: games played)")
        if win.any():
            ax.scatter(x[win], y[win], s=size[win] * 1.6, facecolor="none", edgecolor=WIN, lw=2,
                       zorder=3, label="confirmed winner (search estimate)")
        _band(ax, t)
        _pct_axis(ax, t.metric)
        ax.set_ylabel(t.metric.replace("_", " "))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, frameon=False, loc="best")
    axes[-1, 0].set_xlabel("setting, in the order the search first tried it")
    axes[0, 0].set_title(f"Search: {len(s)} settings, {int(s['games'].sum()):,} games "
                         "(95% intervals; promising settings got more games)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _by_dim(res, path: Path) -> Path:
    """Each target metric of every search setting against each searched value (one panel per
    value and target), dot size by games, the band shaded: where in the space the targets lie."""
    plt = _plt()
    s = res.settings[res.settings["stage"] == "search"]
    dims, tg = res.dims, res.targets
    cols = min(len(dims), 3)
    blocks = -(-len(dims) // cols)  # rows of panels per target
    fig, grid = plt.subplots(len(tg) * blocks, cols, figsize=(3.9 * cols + 0.6, 2.9 * len(tg) * blocks + 0.5),
                             squeeze=False)
    for ax in grid.flat:
        ax.set_visible(False)
    axes = np.empty((len(tg), len(dims)), dtype=object)
    for i in range(len(tg)):
        for j in range(len(dims)):
            axes[i, j] = grid[i * blocks + j // cols, j % cols]
            axes[i, j].set_visible(True)
    games = s["games"].to_numpy(dtype=float)
    size = 10 + 50 * games / max(games.max(), 1)
    win = res.confirmation.loc[res.confirmation["winner"]].iloc[0]
    for i, t in enumerate(tg):
        for j, d in enumerate(dims):
            ax = axes[i, j]
            raw = s[d.path].tolist()
            if d.kind == "choice":
                labels = [value_text(c) for c in d.choices]
                x = np.array([labels.index(str(v)) if str(v) in labels else np.nan for v in
                              (value_text(v) if isinstance(v, bool) else v for v in raw)], dtype=float)
                ax.set_xticks(range(len(labels)), labels, fontsize=8)
                wx = labels.index(value_text(res.winner[d.path]))
            else:
                x = np.asarray(raw, dtype=float)
                wx = float(res.winner[d.path])
                if d.kind == "int" and d.high - d.low <= 12:
                    ax.set_xticks(range(int(d.low), int(d.high) + 1))
            jitter = (np.random.default_rng(j).random(len(x)) - 0.5) * (0.25 if d.kind != "float" else 0)
            ax.scatter(x + jitter, s[t.metric], s=size, color=BLUE, alpha=0.6)
            ax.plot(wx, win[t.metric], "D", color=WIN, ms=7, label="winner (confirmed)")
            _band(ax, t)
            _pct_axis(ax, t.metric)
            ax.grid(alpha=0.3)
            ax.set_xlabel(d.path, fontsize=8)
            if j % cols == 0:
                ax.set_ylabel(t.metric.replace("_", " "), fontsize=8)
    axes[0, 0].legend(fontsize=7, frameon=False, loc="best")
    fig.suptitle("Search settings by each searched value (dot size: games; red: the confirmed winner)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _confirmation(res, path: Path) -> Path:
    """Per target: the starting variant and each re-played setting on the fresh seeds, with
    their simultaneous intervals, the target band shaded, the winner in red."""
    plt = _plt()
    c = res.confirmation
    k = len(res.targets)
    fig, axes = plt.subplots(1, k, figsize=(4.8 * k + 2.6, 0.75 * len(c) + 1.6), squeeze=False)
    labels = _short_labels(res, c)
    yy = np.arange(len(c))[::-1]
    for ax, t in zip(axes[0], res.targets, strict=True):
        v = c[t.metric].to_numpy(dtype=float)
        lo, hi = c[f"{t.metric}_low"].to_numpy(dtype=float), c[f"{t.metric}_high"].to_numpy(dtype=float)
        colours = [WIN if w else ("#555555" if st.startswith("start") else BLUE)
                   for w, st in zip(c["winner"], c["stage"], strict=True)]
        for yi, vi, a, b, col in zip(yy, v, lo, hi, colours, strict=True):
            ax.plot([a, b], [yi, yi], color=col, lw=2.2)
            ax.plot(vi, yi, "o", color=col, ms=7)
            ax.annotate(fmt_metric(t.metric)(vi), (vi, yi), textcoords="offset points", xytext=(0, 7),
                        ha="center", fontsize=7, color=col)
        ax.set_yticks(yy, labels if ax is axes[0][0] else [""] * len(c), fontsize=8)
        ax.set_ylim(-0.7, len(c) - 0.3)
        _band(ax, t, axis="x")
        _pct_axis(ax, t.metric, "x")
        ax.set_xlabel(t.metric.replace("_", " "))
        ax.grid(alpha=0.3, axis="x")
        ax.legend(fontsize=7, frameon=False, loc="lower right")
    level = float(c["level"].iloc[0])
    axes[0][0].set_title(f"Confirmation: {int(c['games'].iloc[0]):,} fresh games each\n"
                         f"{100 * level:.3g}% simultaneous intervals; red: the winner", fontsize=9,
                         loc="left")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _pareto(res, path: Path) -> Path:
    """The first two targets' shortfalls of every search setting; the Pareto front joined."""
    plt = _plt()
    s = res.settings[res.settings["stage"] == "search"]
    t1, t2 = res.targets[:2]
    front = res.pareto()
    (k1, u1), (k2, u2) = _scale(t1.metric), _scale(t2.metric)
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    ax.scatter(k1 * s[f"{t1.metric}_shortfall"], k2 * s[f"{t2.metric}_shortfall"], color=BLUE,
               alpha=0.5, s=18, label="setting tried")
    f = front.sort_values(f"{t1.metric}_shortfall")
    ax.plot(k1 * f[f"{t1.metric}_shortfall"], k2 * f[f"{t2.metric}_shortfall"], "o-", color=WIN,
            ms=6, label="Pareto front (no setting is closer on both)")
    for r in f.head(8).to_dict("records"):
        ax.annotate(_setting_label(res, r), (k1 * r[f"{t1.metric}_shortfall"],
                                             k2 * r[f"{t2.metric}_shortfall"]),
                    textcoords="offset points", xytext=(6, 4), fontsize=7, color=WIN)
    ax.set_xlabel(f"{t1.metric} shortfall from {t1.band_text()}{u1}")
    ax.set_ylabel(f"{t2.metric} shortfall from {t2.band_text()}{u2}")
    ax.set_title("Search settings: distance from each target (0 = met)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _short_labels(res, c) -> list[str]:
    """Labels of the confirmation rows that name only the searched values in which the re-played
    settings differ (all of them if they differ in none), two to a line."""
    cand = c[~c["stage"].astype(str).str.startswith("start")]
    differ = [d for d in res.dims if cand[d.path].astype(str).nunique() > 1] or res.dims
    out = []
    for r in c.to_dict("records"):
        if str(r["stage"]).startswith("start"):
            out.append(f"start: {res.variant.name}")
            continue
        parts = [f"{d.path.split('.', 1)[1]}={value_text(r[d.path])}" for d in differ]
        text = "\n".join(", ".join(parts[i:i + 2]) for i in range(0, len(parts), 2))
        out.append(text + ("\n(winner)" if r["winner"] else ""))
    return out


def _setting_label(res, row: dict[str, Any]) -> str:
    if str(row["stage"]).startswith("start"):
        return f"start: {res.variant.name}"
    return ", ".join(f"{d.path.split('.', 1)[1]}={value_text(row[d.path])}" for d in res.dims)


# ---- the page ------------------------------------------------------------------------------------
def _ci(metric: str, v, lo, hi) -> str:
    f = fmt_metric(metric)
    if not np.isfinite(v):
        return "n/a"
    return f"{f(v)} ({f(lo)}-{f(hi)})"


def _doc(res):
    from sim.workflows.compare import diff_text, metric_words
    doc = Doc()
    c = res.confirmation
    search = res.settings[res.settings["stage"] == "search"]
    doc.h(1, f"Tune: {res.variant.name}")
    doc.p(res.statement)
    doc.items(["Searched: " + "; ".join(_dim_text(d) for d in res.dims),
               "Targets: " + "; ".join(f"{t.metric} {t.band_text()}" for t in res.targets),
               f"Budget {res.budget:,} games; played {res.games_played:,} "
               f"({int(search['games'].sum()):,} in the search over {len(search)} settings, "
               f"{int(c['games'].sum()):,} in the confirmation), run seed {res.seed} "
               f"(confirmation seed {res.confirm_seed}).",
               "Search: optuna's TPE sampler (seeded) with successive halving: every setting "
               "starts with the first rung of games, the best third of a rung goes on with 3x "
               "the games. Several targets: one objective, the sum of squared shortfalls in "
               "units of each target's tolerance.",
               f"Confirmation: the best {len(c) - 1} settings of the search and the starting "
               f"variant re-played on fresh seeds; the winner picked from these games only; "
               f"intervals at {100 * float(c['level'].iloc[0]):.3g}% (simultaneous over the "
               "re-played settings and targets, so the winner's hold at 95% although it was "
               "picked from the same games).",
               "best.toml: the winner as a variant file extending the searched one "
               "(hexsim run best.toml plays it)."])
    doc.h(2, "Confirmation: the winner against the starting variant")
    doc.fig("confirmation", "Each re-played setting and the starting variant on fresh seeds, "
                            "target band shaded")
    head = ["setting", "games"] + [f"{t.metric} (target {t.band_text()})" for t in res.targets]
    rows = []
    for r in c.to_dict("records"):
        mark = " (winner)" if r["winner"] else ""
        rows.append([_setting_label(res, r) + mark, f"{int(r['games']):,}"] +
                    [f"{_ci(t.metric, r[t.metric], r[f'{t.metric}_low'], r[f'{t.metric}_high'])}: "
                     f"{r[f'{t.metric}_verdict']}" for t in res.targets])
    doc.table(head, rows)
    vs = res.winner_vs_start
    note = side_effects(res)
    if note:
        doc.warn(note)
    if len(vs):
        doc.p("The winner minus the starting variant on the same fresh seeds (paired, as hexsim "
              "compare; 95% intervals):")
        doc.table(["metric", "start", "winner", "winner - start [95% interval]"],
                  [[metric_words(r.metric), fmt_metric(r.metric)(r.value_a), fmt_metric(r.metric)(r.value_b),
                    diff_text(r)] for r in vs.itertuples()])
    doc.h(2, "Search progress")
    doc.fig("by_value", "Each target metric against each searched value: where the targets lie")
    doc.fig("progress", "Every setting the search tried, in order, with its 95% interval")
    if len(res.targets) >= 2:
        front = res.pareto()
        doc.h(2, "Pareto front")
        doc.fig("pareto", "Shortfall from each target; the front: settings no other beats on both")
        doc.table([d.path for d in res.dims] + ["games"] +
                  [t.metric for t in res.targets],
                  [[value_text(r[d.path]) for d in res.dims] + [f"{int(r['games']):,}"] +
                   [_ci(t.metric, r[t.metric], r[f"{t.metric}_low"], r[f"{t.metric}_high"])
                    for t in res.targets] for r in front.to_dict("records")])
    doc.h(2, "Every setting tried")
    doc.fold(f"{len(search)} search settings, best first (95% intervals)")
    order = search.sort_values(["objective", "games"], ascending=[True, False])
    doc.table([d.path for d in res.dims] + ["games", "objective"] + [t.metric for t in res.targets],
              [[value_text(r[d.path]) for d in res.dims] + [f"{int(r['games']):,}", f"{r['objective']:.3g}"] +
               [_ci(t.metric, r[t.metric], r[f"{t.metric}_low"], r[f"{t.metric}_high"])
                for t in res.targets] for r in order.to_dict("records")])
    doc.endfold()
    bad = res.settings[res.settings["stage"] == "invalid"]
    if len(bad):
        doc.p(f"{len(bad)} proposed settings were not valid variants (the game refused them): "
              + "; ".join(str(x) for x in bad["note"].head(3)))
    return doc


def side_effects(res) -> str:
    """A sentence naming the headline metrics (not among the targets) that the winner moves a lot
    against the starting variant: 5 points or more for a share, a quarter or more of the median
    length; '' when none does."""
    from sim.workflows.compare import metric_words
    targeted = {t.metric for t in res.targets}
    moved, hints = [], []
    names = {"turns_p50": "median_turns", "decided_off_board": "decided_off_board"}
    for r in res.winner_vs_start.itertuples():
        if r.metric in targeted or not np.isfinite(r.diff):
            continue
        name = names.get(r.metric, r.metric)
        if is_share(r.metric) and abs(r.diff) >= 0.05:
            moved.append(f"{metric_words(r.metric)} {100 * r.value_a:.1f}% -> {100 * r.value_b:.1f}%")
            op = "<=" if r.diff > 0 else ">="
            hints.append(f'--target "{name}{op}{round(r.value_a + r.diff / 2, 2):g}"')
        elif not is_share(r.metric) and abs(r.diff) >= 0.25 * max(abs(r.value_a), 1e-9):
            moved.append(f"{metric_words(r.metric)} {r.value_a:.3g} -> {r.value_b:.3g}")
            hints.append(f'--target "{name}={0.8 * r.value_a:.3g}..{1.25 * r.value_a:.3g}"')
    if not moved:
        return ""
    return ("The winner also changes the game: " + "; ".join(moved) + ". If that matters, add a "
            "target for it, e.g. " + " ".join(hints[:2]) + ".")


def _dim_text(d) -> str:
    if d.kind == "choice":
        return f"{d.path} in {{{', '.join(value_text(c) for c in d.choices)}}}"
    return f"{d.path} from {d.low} to {d.high} ({'integers' if d.kind == 'int' else 'reals'})"


# ---- hexsim sensitivity --------------------------------------------------------------------------
DIRECTION_COLOURS = {"down": "#1f5fbf", "up": "#c0392b", "other": "#7d3c98"}


def write_sensitivity(res, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / "sensitivity.csv", "md": out / "sensitivity.md",
             "html": out / "sensitivity.html"}
    res.table.to_csv(files["csv"], index=False)
    for m in HEADLINE:
        files[f"tornado_{m}"] = _tornado(res, m, out / f"tornado_{m}.png")
    doc = _sensitivity_doc(res)
    files["md"].write_text(doc.markdown({k: p.name for k, p in files.items() if p.suffix == ".png"}))
    figs = {k: p.read_bytes() for k, p in files.items() if p.suffix == ".png"}
    files["html"].write_text(doc.html(figs, f"hexsim sensitivity: {res.variant.name}"))
    return files


def _scale(metric: str) -> tuple[float, str]:
    return (100.0, " (points)") if is_share(metric) else (1.0, "")


def _tornado(res, metric: str, path: Path) -> Path:
    """One row per parameter, the largest change on top: each alternative's change of the metric
    from the base as a bar from 0 (blue: a step down, red: a step up, purple: another choice),
    its 95% paired interval as a whisker, the alternative written at the bar's end; a grey
    label where no game changed."""
    plt = _plt()
    t = res.table.copy()
    k, unit = _scale(metric)
    t["size"] = t[f"{metric}_diff"].abs()
    order = t.groupby("param")["size"].max().sort_values(ascending=False)
    order = order.fillna(-1).sort_values(ascending=False)
    params = list(order.index)
    per = t.groupby("param").size().reindex(params).to_numpy()
    bar, gap = 0.42, 0.45
    height = max(2.8, 0.3 * (bar * per.sum() + gap * len(params)) + 1.9)
    fig, ax = plt.subplots(figsize=(10.5, height))
    y = 0.0
    ticks, labels = [], []
    span = float(np.nanmax(np.abs(t[[f"{metric}_ci_low", f"{metric}_ci_high"]].to_numpy(dtype=float))) * k) \
        if t[f"{metric}_ci_low"].notna().any() else 1.0
    span = span if np.isfinite(span) and span > 0 else 1.0
    for g, param in enumerate(params):
        rows = t[t["param"] == param]
        n = len(rows)
        ys = y - bar * np.arange(n)
        ticks.append(float(ys.mean()))
        if g % 2 == 0:  # a pale band groups a parameter's alternatives
            ax.axhspan(ys[-1] - bar / 2 - gap / 2, ys[0] + bar / 2 + gap / 2, color="#f2f2f2", zorder=0)
        bases = {str(b) for b in rows["base_value"]}  # seats' own bases: on their bars
        labels.append(param.removeprefix("rules.") + ("" if param.startswith("restricted") or len(bases) > 1
                                                      else f"\n(base {bases.pop()})"))
        for yi, r in zip(ys, rows.to_dict("records"), strict=True):
            d, lo, hi = (r[f"{metric}_diff"] * k, r[f"{metric}_ci_low"] * k, r[f"{metric}_ci_high"] * k)
            col = DIRECTION_COLOURS.get(r["direction"], "#7d3c98")
            if not np.isfinite(d):
                ax.text(0, yi, f"  {bar_text(r)}: n/a", va="center", fontsize=7, color="#888888")
                continue
            ax.barh(yi, d, height=bar * 0.85, color=col, alpha=0.85, zorder=2)
            if np.isfinite(lo) and np.isfinite(hi):
                ax.plot([lo, hi], [yi, yi], color="black", lw=0.9, zorder=3)
            edge = max(abs(d), abs(hi) if d >= 0 else abs(lo)) if np.isfinite(lo) else abs(d)
            sig = r[f"{metric}_p_adjusted"] < 0.05
            text = bar_text(r) + (" *" if sig else "")
            if r.get("games_changed") == 0:
                text = f"{bar_text(r)}: no game changed"
                col = "#888888"
            ax.text((edge + 0.02 * span) * (1 if d >= 0 else -1), yi, text, va="center",
                    ha="left" if d >= 0 else "right", fontsize=7.5, color=col, zorder=4)
        y = ys[-1] - bar - gap
    ax.set_ylim(y + gap / 2, bar + gap / 2)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.set_xlim(-1.35 * span, 1.35 * span)
    ax.set_xlabel(f"change of the {WORDS.get(metric, metric)} from the base{unit}")
    base = t[f"{metric}_base"].dropna()
    b = f"{100 * base.iloc[0]:.1f}%" if k == 100 and len(base) else (f"{base.iloc[0]:.3g}" if len(base) else "")
    ax.set_title(f"Which rule moves the {WORDS.get(metric, metric)} most?\n"
                 f"{res.variant.name} (base {b}), {res.games:,} games per value on the base's seeds. "
                 "Bars: blue a step down, red a step up,\npurple another choice; whiskers: 95% "
                 "paired intervals; * Holm-adjusted p < 0.05", fontsize=9, loc="left")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _sensitivity_doc(res):
    doc = Doc()
    t = res.table
    doc.h(1, f"Sensitivity: {res.variant.name}")
    top = res.ranking("first_mover_share").head(3)
    lines = []
    for r in top.to_dict("records"):
        lines.append(f"{change_text(r).removeprefix('rules.')} ("
                     f"{100 * r['first_mover_share_diff']:+.1f} points "
                     f"[{100 * r['first_mover_share_ci_low']:+.1f}, {100 * r['first_mover_share_ci_high']:+.1f}])")
    doc.p("The rules that move the first mover's share most: " + "; ".join(lines) + ".")
    doc.p(f"{len(t)} alternatives of {t['param'].nunique()} parameters, each played for "
          f"{res.games:,} games on the base variant's seeds (run seed {res.seed}): every difference "
          "is paired game by game, as in hexsim compare (first mover's share: paired bootstrap "
          "interval and paired delta-method z test; decided off the board: exact McNemar and "
          "Newcombe's paired interval; median length: paired bootstrap and McNemar on the games "
          "at or below the pooled median). p-values Holm-adjusted over the alternatives, per "
          "metric. Alternatives: other choices, the other truth value, one step down and up.")
    for m in HEADLINE:
        k, unit = _scale(m)
        doc.h(2, WORDS[m].capitalize())
        doc.fig(f"tornado_{m}", f"Change of the {WORDS[m]} per alternative (95% paired intervals)")
        rank = res.ranking(m)
        doc.table(["rank", "parameter", "largest change", f"change{unit} [95% interval]", "p (Holm)"],
                  [[str(i), r["param"], move_text(r),
                    f"{k * r[f'{m}_diff']:+.2f} [{k * r[f'{m}_ci_low']:+.2f}, {k * r[f'{m}_ci_high']:+.2f}]",
                    f"{r[f'{m}_p_adjusted']:.3g}"] for i, r in enumerate(rank.to_dict("records"), 1)])
    doc.h(2, "Every alternative")
    doc.fold(f"{len(t)} alternatives (changes in points for shares)")
    doc.table(["parameter", "base", "alternative", "games changed"] + [WORDS[m] for m in HEADLINE],
              [[r["path"], str(r["base_value"]), str(r["value"]),
                f"{int(r['games_changed']):,}" if np.isfinite(r["games_changed"]) else "n/a"] +
               [f"{_scale(m)[0] * r[f'{m}_diff']:+.2f} [{_scale(m)[0] * r[f'{m}_ci_low']:+.2f}, "
                f"{_scale(m)[0] * r[f'{m}_ci_high']:+.2f}]" for m in HEADLINE]
               for r in t.to_dict("records")])
    doc.endfold()
    if len(res.skipped):
        doc.p("Not varied: " + "; ".join(f"{r['param']} ({r['why']})" for r in res.skipped.to_dict("records")))
    return doc
