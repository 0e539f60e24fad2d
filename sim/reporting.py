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

import base64
import html
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.dataset as pads

from sim import plots, stats
from sim.errors import UserError

NON_WIN_WORDS = ("stalemate", "turn_cap", "cap", "draw", "timeout", "time_out", "exhaust",
                 "closest", "no_move", "limit", "tiebreak", "tie_break", "deadlock")
SUMMARY_COLUMNS = ["metric", "variant", "value", "successes", "n", "ci_low", "ci_high"]
CONF = 0.95
ALPHA = 0.05
POWER = 0.8


# ---- reading runs ---------------------------------------------------------------------------

@dataclass
class Run:
    """One run folder: its manifest, the columns the report needs, and its Game (if importable)."""

    path: Path
    manifest: dict[str, Any]
    label: str
    game_name: str
    seats: list[str]
    end_reasons: list[str]
    turn_cap_reason: str | None
    rotate: bool
    df: pd.DataFrame
    game: Any = None
    game_error: str = ""


def default_game_lookup(name: str):
    """The registered Game, or raise (the report turns any failure into a skipped section)."""
    from sim.games import get

    return get(name)


def _games_files(run_dir: Path) -> list[str]:
    """The finished Parquet parts: `games/**/*.parquet` (or `part-*.parquet` beside the manifest),
    leaving out hidden and `_`-prefixed files such as a writer's temporary parts."""
    games = run_dir / "games"
    if games.is_dir():
        files = [p for p in games.rglob("*.parquet")
                 if not any(x.startswith((".", "_")) for x in p.relative_to(games).parts)]
    else:
        files = list(run_dir.glob("part-*.parquet"))
    if not files:
        raise UserError(f"{run_dir}: no outcome table (expected {games}/part-*.parquet)")
    return sorted(str(p) for p in files)


def read_manifest(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "manifest.json"
    if not path.is_file():
        raise UserError(f"{path}: missing; is {run_dir} a run folder (made by `hexsim run`)?")
    try:
        manifest = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise UserError(f"{path}: not valid JSON ({e})") from None
    for key in ("variant", "seat_names"):
        if key not in manifest:
            raise UserError(f"{path}: missing key {key!r}")
    return manifest


def read_games(files: Sequence[str], game_name: str, seats: Sequence[str]) -> pd.DataFrame:
    """Only the columns the report uses: outcome, per-seat bot and score, `<game>_` columns.

    Strings come back as pandas categoricals (cheap on a million rows).
    """
    dataset = pads.dataset(list(files), format="parquet")
    names = dataset.schema.names
    want = ["winner", "end_reason", "turns", "first_seat", "rotation"]
    want += [f"bot_{s}" for s in seats] + [f"score_{s}" for s in seats]
    want += [c for c in names if c.startswith(f"{game_name}_")]
    missing = [c for c in ("winner", "end_reason", "turns", "first_seat") if c not in names]
    if missing:
        raise UserError(f"{Path(files[0]).parent}: outcome table lacks column(s) {', '.join(missing)}")
    table = dataset.to_table(columns=[c for c in want if c in names])
    # split_blocks + self_destruct: each Arrow column is freed as it is converted, so the peak
    # is about one copy of the columns, not two (10M rows: see README, Scale)
    return table.to_pandas(strings_to_categorical=True, split_blocks=True, self_destruct=True)


def load_run(run_dir: str | Path, game_lookup: Callable[[str], Any] = default_game_lookup) -> Run:
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    variant = manifest["variant"]
    game_name = variant.get("game", "")
    seats = list(manifest["seat_names"])
    game, error = None, ""
    try:
        game = game_lookup(game_name)
    except Exception as e:  # noqa: BLE001 - any import or registry failure only skips a section
        error = f"{type(e).__name__}: {e}"
    end_reasons = list(manifest.get("end_reasons") or getattr(game, "end_reasons", ()) or ())
    df = read_games(_games_files(run_dir), game_name, seats)
    if pd.api.types.is_integer_dtype(df["end_reason"]):  # kernel codes: name them
        codes = df["end_reason"].to_numpy()
        if len(codes) and (codes.min() < 0 or codes.max() >= len(end_reasons)):
            raise UserError(f"{run_dir}: end_reason codes {codes.min()}..{codes.max()} do not fit the "
                            f"{len(end_reasons)} end reasons in manifest.json")
        df["end_reason"] = pd.Categorical.from_codes(codes, categories=end_reasons)
    for seen in df["end_reason"].astype("category").cat.categories.astype(str):
        if seen not in end_reasons:
            end_reasons.append(seen)
    return Run(path=run_dir, manifest=manifest, label=variant.get("name") or run_dir.name,
               game_name=game_name, seats=seats, end_reasons=end_reasons,
               turn_cap_reason=manifest.get("turn_cap_reason"),
               rotate=bool(manifest.get("rotate_seats", False)), df=df, game=game, game_error=error)


def non_win_reasons(run: Run) -> set[str]:
    declared = set(getattr(run.game, "non_win_end_reasons", ()) or ())
    if run.turn_cap_reason:
        declared.add(run.turn_cap_reason)
    pattern = re.compile("|".join(NON_WIN_WORDS))
    return declared | {r for r in run.end_reasons if pattern.search(r.lower())}


# ---- analysis: every number once, as summary rows --------------------------------------------

@dataclass
class Analysis:
    """One variant's numbers, as rows for summary.csv plus what the renderer and plots need."""

    run: Run
    rows: list[dict[str, Any]] = field(default_factory=list)
    seat_rates: list[stats.Proportion] = field(default_factory=list)
    seat_p: list[float] = field(default_factory=list)
    seat_p_holm: list[float] = field(default_factory=list)
    seat_bots: list[str] = field(default_factory=list)
    decisive: int = 0
    draw: stats.Proportion | None = None
    turn_cap: stats.Proportion | None = None
    first: stats.Proportion | None = None
    first_decisive: stats.Proportion | None = None
    first_p: float = math.nan
    first_seats: list[int] = field(default_factory=list)
    balance: float = math.nan
    turns: dict[str, float] = field(default_factory=dict)
    turns_mean: stats.MeanInterval | None = None
    turns_median_ci: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    scores: dict[str, stats.MeanInterval] = field(default_factory=dict)
    score_q: dict[str, dict[str, float]] = field(default_factory=dict)
    end_rows: list[tuple[str, stats.Proportion, int, bool]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    mde: float = math.nan
    bots: list[tuple[str, stats.Proportion, float]] = field(default_factory=list)
    game_rows: list[dict[str, Any]] = field(default_factory=list)
    game_note: str = ""

    @property
    def n(self) -> int:
        return len(self.run.df)

    def add(self, metric: str, value: float, successes: float = math.nan, n: float = math.nan,
            low: float = math.nan, high: float = math.nan) -> None:
        self.rows.append({"metric": metric, "variant": self.run.label, "value": value,
                          "successes": successes, "n": n, "ci_low": low, "ci_high": high})

    def add_prop(self, metric: str, p: stats.Proportion) -> None:
        self.add(metric, p.value, p.successes, p.n, p.low, p.high)


def _seat_bot_labels(run: Run) -> list[str]:
    labels = run.manifest.get("seat_labels") or {}
    if all(s in labels for s in run.seats):  # bot name plus only the non-default parameters
        return [labels[s] for s in run.seats]
    seats_cfg = run.manifest["variant"].get("seats", {}) or {}
    out = []
    for s in run.seats:
        cfg = seats_cfg.get(s, {})
        bot = cfg.get("bot", "?") if isinstance(cfg, dict) else str(cfg)
        params = cfg.get("params", {}) if isinstance(cfg, dict) else {}
        extra = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
        out.append(f"{bot}({extra})" if extra else bot)
    return out


def analyse(run: Run) -> Analysis:
    a = Analysis(run)
    df, seats, n = run.df, run.seats, len(run.df)
    k = len(seats)
    fair = 1.0 / k
    winner = df["winner"].to_numpy().astype(np.int64)
    a.add("games", n, n=n)
    if n != run.manifest.get("games", n):
        a.warnings.append(f"{run.label}: the table holds {n:,} games but the manifest asked for "
                          f"{run.manifest['games']:,} (unfinished or resumed run?)")

    # seats
    counts = np.bincount(winner + 1, minlength=k + 1)
    draws = int(counts[0])
    a.decisive = n - draws
    a.seat_bots = _seat_bot_labels(run)
    for i, s in enumerate(seats):
        p = stats.wilson(int(counts[i + 1]), n)
        a.seat_rates.append(p)
        a.seat_p.append(stats.binom_test(int(counts[i + 1]), a.decisive, fair))
        a.add_prop(f"win_rate.{s}", p)
    a.seat_p_holm = list(stats.adjust_pvalues(a.seat_p, "holm"))
    for s, p, ph in zip(seats, a.seat_p, a.seat_p_holm, strict=True):
        a.add(f"win_rate.{s}.p_value", p)
        a.add(f"win_rate.{s}.p_holm", ph)
    a.draw = stats.wilson(draws, n)
    a.add_prop("draw_rate", a.draw)
    # end reasons through categorical codes: a million strings are never compared
    reason_cat = df["end_reason"].astype("category")
    reason_code = reason_cat.cat.codes.to_numpy().astype(np.int64)
    names = [str(c) for c in reason_cat.cat.categories]
    by_code = np.bincount(reason_code, minlength=len(names))
    draws_by_code = np.bincount(reason_code[winner < 0], minlength=len(names))
    reason_count = {r: int(c) for r, c in zip(names, by_code, strict=True)}
    reason_draws = {r: int(c) for r, c in zip(names, draws_by_code, strict=True)}
    if run.turn_cap_reason:
        a.turn_cap = stats.wilson(reason_count.get(run.turn_cap_reason, 0), n)
        a.add_prop("turn_cap_rate", a.turn_cap)

    # first player
    first = df["first_seat"].to_numpy().astype(np.int64)
    first_wins = int(np.count_nonzero(winner == first))
    a.first_seats = sorted(set(np.unique(first).tolist()))
    a.first = stats.wilson(first_wins, n)
    a.first_decisive = stats.wilson(first_wins, a.decisive)
    a.first_p = stats.binom_test(first_wins, a.decisive, fair)
    a.add_prop("first_player_win_rate", a.first)
    a.add_prop("first_player_share_of_decisive", a.first_decisive)
    a.add("first_player_share_of_decisive.p_value", a.first_p)

    a.balance = stats.ludii_balance([p.value for p in a.seat_rates])
    a.add("balance", a.balance)

    # length
    turns = df["turns"].to_numpy()
    a.turns = stats.quantiles(turns)
    a.turns_mean = stats.mean_interval(turns)
    a.turns_median_ci = stats.bootstrap_interval(turns, 0.5, seed=1)
    a.add("turns.mean", a.turns_mean.value, n=n, low=a.turns_mean.low, high=a.turns_mean.high)
    for name, _ in stats.QUANTILES:
        if name == "median":
            a.add("turns.median", a.turns["median"], n=n, low=a.turns_median_ci[1],
                  high=a.turns_median_ci[2])
        else:
            a.add(f"turns.{name}", a.turns[name], n=n)

    # scores
    for s in seats:
        col = f"score_{s}"
        if col in df:
            x = df[col].to_numpy()
            a.scores[s] = stats.mean_interval(x)
            a.score_q[s] = stats.quantiles(x)
            a.add(f"score.{s}.mean", a.scores[s].value, n=n, low=a.scores[s].low, high=a.scores[s].high)
            a.add(f"score.{s}.median", a.score_q[s]["median"], n=n)

    # end reasons
    non_win = non_win_reasons(run)
    for r in run.end_reasons:
        p = stats.wilson(reason_count.get(r, 0), n)
        a.end_rows.append((r, p, reason_draws.get(r, 0), r in non_win))
        a.add_prop(f"end_reason.{r}", p)
        if r in non_win and p.value > 0.5:
            a.warnings.append(
                f"{run.label}: {p.value:.1%} of games (95% CI {p.low:.1%}-{p.high:.1%}) end by "
                f"'{r}', not by a win on the board: the seat and length numbers mostly measure "
                f"that rule")
    if a.draw.value > 0.5:
        a.warnings.append(f"{run.label}: {a.draw.value:.1%} of games are draws")

    a.mde = stats.mde_proportion(n, fair, ALPHA, POWER)
    a.add("mde.seat_win_rate", a.mde, n=n)

    if run.rotate:
        a.bots = bot_rates(df, seats, winner, fair)
        for b, p, pv in a.bots:
            a.add_prop(f"bot_win_rate.{b}", p)
            a.add(f"bot_win_rate.{b}.p_value", pv)

    game_section(a)
    return a


def bot_rates(df: pd.DataFrame, seats: Sequence[str], winner: np.ndarray,
              fair: float) -> list[tuple[str, stats.Proportion, float]]:
    """Per bot over every seat it held: wins / appearances (Wilson), and the binomial test of
    its share of decisive appearances against 1/seats."""
    appear: dict[str, int] = {}
    wins: dict[str, int] = {}
    decisive: dict[str, int] = {}
    for i, s in enumerate(seats):
        col = f"bot_{s}"
        if col not in df:
            continue
        cat = df[col].astype("category")
        codes = cat.cat.codes.to_numpy()
        m = len(cat.cat.categories)
        seen = np.bincount(codes, minlength=m)
        won = np.bincount(codes[winner == i], minlength=m)
        dec = np.bincount(codes[winner >= 0], minlength=m)
        for j, b in enumerate(cat.cat.categories.astype(str)):
            appear[b] = appear.get(b, 0) + int(seen[j])
            wins[b] = wins.get(b, 0) + int(won[j])
            decisive[b] = decisive.get(b, 0) + int(dec[j])
    return [(b, stats.wilson(wins[b], appear[b]), stats.binom_test(wins[b], decisive[b], fair))
            for b in sorted(appear) if appear[b] > 0]


def game_section(a: Analysis) -> None:
    run = a.run
    if run.game is None:
        a.game_note = (f"Game-specific section skipped: game {run.game_name!r} is not available "
                       f"({run.game_error}).")
        return
    try:
        rows = run.game.report_metrics(run.df, run.manifest["variant"].get("rules", {}))
    except Exception as e:  # noqa: BLE001 - a broken game hook must not lose the whole report
        a.game_note = f"Game-specific section skipped: report_metrics failed ({type(e).__name__}: {e})."
        return
    for row in rows or []:
        row = dict(row)
        metric = f"game.{row['metric']}"
        if row.get("successes") is not None and row.get("n") is not None:
            p = stats.wilson(int(row["successes"]), int(row["n"]))
            row.update(value=p.value, ci_low=p.low, ci_high=p.high)
            a.add_prop(metric, p)
        else:
            a.add(metric, float(row.get("value", math.nan)), low=row.get("ci_low", math.nan),
                  high=row.get("ci_high", math.nan))
        a.game_rows.append(row)
    if not a.game_rows:
        a.game_note = f"The game {run.game_name!r} reports no metrics of its own."


# ---- comparison across variants -------------------------------------------------------------

@dataclass
class Comparison:
    baseline: str
    rows: list[dict[str, Any]]  # metric, variant ("X vs base"), value, ci, p_value, p_holm, method
    mde: dict[str, float]


def compare(analyses: Sequence[Analysis]) -> Comparison:
    """Every other variant against the first: proportions by Newcombe interval and two-proportion
    test, lengths by bootstrap (mean, median), Mann-Whitney and KS; Holm over the whole family."""
    base = analyses[0]
    out: list[dict[str, Any]] = []
    mde: dict[str, float] = {}

    def props(a: Analysis) -> dict[str, stats.Proportion]:
        d = {f"win_rate.{s}": p for s, p in zip(a.run.seats, a.seat_rates, strict=True)}
        d["draw_rate"] = a.draw
        d["first_player_win_rate"] = a.first
        if a.turn_cap is not None:
            d["turn_cap_rate"] = a.turn_cap
        for r, p, _, _ in a.end_rows:
            if r != a.run.turn_cap_reason:  # already there as turn_cap_rate: test it once
                d[f"end_reason.{r}"] = p
        return d

    pb = props(base)
    tb = base.run.df["turns"].to_numpy()
    for a in analyses[1:]:
        label = f"{a.run.label} vs {base.run.label}"
        mde[label] = stats.mde_two_proportions(a.n, base.n, 1 / len(a.run.seats), ALPHA, POWER)
        pa = props(a)
        for metric in [m for m in pa if m in pb]:
            x, y = pa[metric], pb[metric]
            d = stats.newcombe_diff(x.successes, x.n, y.successes, y.n)
            out.append({"metric": f"diff.{metric}", "variant": label, "value": d.value, "ci_low": d.low,
                        "ci_high": d.high, "p_value": d.p_value, "method": "Newcombe / z-test"})
        ta = a.run.df["turns"].to_numpy()
        for stat, name in (("mean", "turns.mean"), (0.5, "turns.median")):
            d = stats.bootstrap_diff(ta, tb, stat, seed=2)
            out.append({"metric": f"diff.{name}", "variant": label, "value": d.value, "ci_low": d.low,
                        "ci_high": d.high, "p_value": d.p_value, "method": "bootstrap"})
        mw, ks = stats.mann_whitney(ta, tb), stats.ks_test(ta, tb)
        out.append({"metric": "diff.turns.distribution", "variant": label, "value": ks.statistic,
                    "ci_low": math.nan, "ci_high": math.nan, "p_value": ks.p_value, "method": "KS"})
        out.append({"metric": "diff.turns.rank", "variant": label,
                    "value": mw.statistic / max(len(ta) * len(tb), 1), "ci_low": math.nan,
                    "ci_high": math.nan, "p_value": mw.p_value, "method": "Mann-Whitney (U/n1n2)"})
    holm = stats.adjust_pvalues([r["p_value"] for r in out], "holm")
    bh = stats.adjust_pvalues([r["p_value"] for r in out], "bh")
    for r, h, b in zip(out, holm, bh, strict=True):
        r["p_holm"], r["p_bh"] = float(h), float(b)
    return Comparison(base.run.label, out, mde)


# ---- document blocks, rendered to Markdown and HTML ------------------------------------------

class Doc:
    """A list of blocks (heading, paragraph, warning, table, figure) with two renderers."""

    def __init__(self) -> None:
        self.blocks: list[tuple] = []

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", level, text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def warn(self, text: str) -> None:
        self.blocks.append(("warn", text))

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        self.blocks.append(("table", list(headers), [[str(c) for c in r] for r in rows]))

    def fig(self, key: str, caption: str) -> None:
        """Figures are shown once: overlaid ones in the comparison, else in the variant section."""
        if not any(b[0] == "fig" and b[1] == key for b in self.blocks):
            self.blocks.append(("fig", key, caption))

    def markdown(self, fig_files: dict[str, str]) -> str:
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "warn":
                out.append(f"> **WARNING:** {b[1]}")
            elif b[0] == "table":
                cell = lambda c: c.replace("|", "\\|")
                out.append("| " + " | ".join(cell(c) for c in b[1]) + " |")
                out.append("|" + "|".join("---" for _ in b[1]) + "|")
                out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in b[2]]
            elif b[0] == "fig" and b[1] in fig_files:
                out.append(f"![{b[2]}]({fig_files[b[1]]})")
            out.append("")
        return "\n".join(out)

    def html(self, fig_png: dict[str, bytes], title: str) -> str:
        e = html.escape
        out = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'>", f"<title>{e(title)}</title>",
               "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
               "table{border-collapse:collapse;margin:.5em 0 1.2em}"
               "td,th{border:1px solid #bbb;padding:.25em .6em;text-align:right}"
               "th{background:#eee}td:first-child,th:first-child{text-align:left}"
               ".warn{background:#fff1c2;border-left:6px solid #e0a000;padding:.6em 1em;margin:.6em 0;"
               "font-weight:bold}img{max-width:100%}figcaption{color:#555;font-size:90%}</style>",
               "</head><body>"]
        for b in self.blocks:
            if b[0] == "h":
                out.append(f"<h{b[1]}>{e(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                out.append(f"<p>{e(b[1])}</p>")
            elif b[0] == "warn":
                out.append(f"<div class='warn'>WARNING: {e(b[1])}</div>")
            elif b[0] == "table":
                out.append("<table><tr>" + "".join(f"<th>{e(c)}</th>" for c in b[1]) + "</tr>")
                out += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in b[2]]
                out.append("</table>")
            elif b[0] == "fig" and b[1] in fig_png:
                data = base64.b64encode(fig_png[b[1]]).decode("ascii")
                out.append(f"<figure><img alt='{e(b[2])}' src='data:image/png;base64,{data}'>"
                           f"<figcaption>{e(b[2])}</figcaption></figure>")
        out.append("</body></html>")
        return "\n".join(out)


def pct(p: float, digits: int = 2) -> str:
    return "n/a" if p is None or not np.isfinite(p) else f"{100 * p:.{digits}f}%"


def ci(lo: float, hi: float, as_pct: bool = True) -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "n/a"
    return f"[{pct(lo)}, {pct(hi)}]" if as_pct else f"[{num(lo)}, {num(hi)}]"


def num(x: float) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "n/a"
    if float(x) == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.4g}" if abs(x) < 1e4 else f"{x:,.1f}"


def pval(p: float) -> str:
    if p is None or not np.isfinite(p):
        return "n/a"
    return "<1e-300" if p == 0 else f"{p:.3g}"


def prop_cells(p: stats.Proportion | None) -> list[str]:
    if p is None:
        return ["n/a", "n/a"]
    return [pct(p.value), ci(p.low, p.high)]


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


def build_report(run_dirs: Sequence[str | Path], out_dir: str | Path,
                 game_lookup: Callable[[str], Any] = default_game_lookup) -> ReportResult:
    """Read the runs, compute every metric, write report.md, report.html, summary.csv, figures."""
    if not run_dirs:
        raise UserError("report: give at least one run folder")
    runs = [load_run(d, game_lookup) for d in run_dirs]
    seen: dict[str, int] = {}
    for r in runs:  # the same variant twice (other seed, other commit): tell them apart
        seen[r.label] = seen.get(r.label, 0) + 1
    for r in runs:
        if seen[r.label] > 1:
            r.label = f"{r.label} ({r.path.name})"
    analyses = [analyse(r) for r in runs]
    comparison = compare(analyses) if len(analyses) > 1 else None

    rows = [row for a in analyses for row in a.rows]
    if comparison:
        for r in comparison.rows:
            base = {k: r[k] for k in ("metric", "variant", "value", "ci_low", "ci_high")}
            rows.append(base | {"successes": math.nan, "n": math.nan})
            for key in ("p_value", "p_holm"):
                rows.append({"metric": f"{r['metric']}.{key}", "variant": r["variant"],
                             "value": r[key], "successes": math.nan, "n": math.nan,
                             "ci_low": math.nan, "ci_high": math.nan})
        for label, m in comparison.mde.items():
            rows.append({"metric": "mde.diff_seat_win_rate", "variant": label, "value": m,
                         "successes": math.nan, "n": math.nan, "ci_low": math.nan, "ci_high": math.nan})
    summary = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)

    out = Path(out_dir)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    figs = make_figures(analyses)
    fig_files = {}
    for key, data in figs.items():
        path = out / "figures" / f"{key}.png"
        path.write_bytes(data)
        fig_files[key] = path
    doc = render(analyses, comparison)
    figs.update(_by_skill_section(doc, runs, out / "figures"))
    md_path, html_path, csv_path = out / "report.md", out / "report.html", out / "summary.csv"
    md_path.write_text(doc.markdown({k: f"figures/{k}.png" for k in figs}))
    html_path.write_text(doc.html(figs, "hexsim balance report"))
    summary.to_csv(csv_path, index=False)
    warnings = [w for a in analyses for w in a.warnings]
    comp_df = pd.DataFrame(comparison.rows) if comparison else None
    return ReportResult(summary, out, md_path, html_path, csv_path, fig_files, warnings, comp_df)


def _by_skill_section(doc: Doc, runs: Sequence[Run], fig_dir: Path) -> dict[str, bytes]:
    """The "by skill" section (sim/ladder_report.py) when the runs hold several bot line-ups of
    one variant; its figures are written into fig_dir and returned."""
    from sim.ladder_report import by_skill_section

    return by_skill_section(doc, runs, fig_dir)


def make_figures(analyses: Sequence[Analysis]) -> dict[str, bytes]:
    figs: dict[str, bytes] = {}
    seat_bars = [plots.Bars(a.run.label, a.run.seats + ["draw"],
                            [p.value for p in a.seat_rates] + [a.draw.value],
                            [p.low for p in a.seat_rates] + [a.draw.low],
                            [p.high for p in a.seat_rates] + [a.draw.high]) for a in analyses]
    fair = {1 / len(a.run.seats) for a in analyses}
    figs["win_rates"] = plots.png(plots.interval_bars(
        seat_bars, "Win rate per seat (95% Wilson)", reference=fair.pop() if len(fair) == 1 else None,
        reference_label="fair share"))
    end_bars = [plots.Bars(a.run.label, [r for r, *_ in a.end_rows], [p.value for _, p, *_ in a.end_rows],
                           [p.low for _, p, *_ in a.end_rows], [p.high for _, p, *_ in a.end_rows])
                for a in analyses]
    figs["end_reasons"] = plots.png(plots.interval_bars(end_bars, "How games end (95% Wilson)",
                                                        reference=0.5, reference_label="half of games"))
    lo = min(float(a.run.df["turns"].min()) for a in analyses if a.n) if any(a.n for a in analyses) else 0
    hi = max(float(a.run.df["turns"].max()) for a in analyses if a.n) if any(a.n for a in analyses) else 1
    hists = {a.run.label: plots.histogram(a.run.df["turns"].to_numpy(), 80, lo, hi) for a in analyses}
    figs["length"] = plots.png(plots.length_histograms(hists, {a.run.label: a.turns["median"]
                                                               for a in analyses}))
    scores: dict[str, dict[str, tuple]] = {}
    for a in analyses:
        for s in a.scores:
            scores.setdefault(s, {})
    for s in scores:
        cols = [a.run.df[f"score_{s}"].to_numpy() for a in analyses if s in a.scores and a.n]
        if not cols:
            continue
        slo, shi = min(float(c.min()) for c in cols), max(float(c.max()) for c in cols)
        for a in analyses:
            if s in a.scores and a.n:
                scores[s][a.run.label] = plots.histogram(a.run.df[f"score_{s}"].to_numpy(), 60, slo, shi)
    scores = {s: v for s, v in scores.items() if v}
    if scores:
        figs["scores"] = plots.png(plots.score_distributions(scores))
    if any(a.bots for a in analyses):
        bot_bars = [plots.Bars(a.run.label, [b for b, _, _ in a.bots], [p.value for _, p, _ in a.bots],
                               [p.low for _, p, _ in a.bots], [p.high for _, p, _ in a.bots])
                    for a in analyses if a.bots]
        figs["bots"] = plots.png(plots.interval_bars(bot_bars, "Win rate per bot, seats rotated "
                                                                "(95% Wilson)", ylabel="share of seat-games"))
    return figs


def render(analyses: Sequence[Analysis], comparison: Comparison | None) -> Doc:
    doc = Doc()
    doc.h(1, "Balance report")
    doc.table(["variant", "game", "games", "seats (bot)", "seed", "rotate seats", "commit", "description"],
              [[a.run.label, a.run.game_name, num(a.n),
                ", ".join(f"{s} ({b})" for s, b in zip(a.run.seats, a.seat_bots, strict=True)),
                a.run.manifest.get("seed", "?"), "yes" if a.run.rotate else "no",
                str(a.run.manifest.get("git_commit", "?"))[:10],
                a.run.manifest["variant"].get("description", "")] for a in analyses])
    for a in analyses:
        for w in a.warnings:
            doc.warn(w)
    # rule-text warnings once each, naming the variants they apply to
    text_warnings: dict[str, list[str]] = {}
    for a in analyses:
        for w in a.run.manifest.get("warnings", []) or []:
            text_warnings.setdefault(w, []).append(a.run.label)
    for w, labels in text_warnings.items():
        who = "all variants" if len(labels) == len(analyses) > 1 else ", ".join(labels)
        doc.warn(f"rule text ({who}): {w}")

    doc.h(2, "How games end")
    doc.p("Share of games per end reason with 95% Wilson intervals. Reasons marked non-win end a "
          "game without a win on the board (stalemate rule, turn cap, tie-break); when one of them "
          "decides most games, the balance numbers below mostly measure that rule.")
    reasons: list[str] = []
    for a in analyses:
        reasons += [r for r, *_ in a.end_rows if r not in reasons]
    table = []
    for r in reasons:
        row = [r]
        flag = ""
        for a in analyses:
            match = [x for x in a.end_rows if x[0] == r]
            if match:
                _, p, r_draws, nw = match[0]
                flag = "non-win" if nw else flag or "win"
                row.append(f"{pct(p.value)} {ci(p.low, p.high)} ({num(p.successes)}; draws {num(r_draws)})")
            else:
                row.append("-")
        table.append(row[:1] + [flag] + row[1:])
    doc.table(["end reason", "kind"] + [a.run.label for a in analyses], table)
    doc.fig("end_reasons", "End reasons per variant (95% Wilson intervals)")

    if comparison:
        render_comparison(doc, analyses, comparison)
    for a in analyses:
        render_variant(doc, a)
    render_methods(doc)
    return doc


def render_comparison(doc: Doc, analyses: Sequence[Analysis], comparison: Comparison) -> None:
    doc.h(2, "Variants side by side")
    head = ["metric"] + [a.run.label for a in analyses]
    rows = [["games"] + [num(a.n) for a in analyses]]
    seats: list[str] = []
    for a in analyses:
        seats += [s for s in a.run.seats if s not in seats]
    for s in seats:
        row = [f"win rate {s}"]
        for a in analyses:
            i = a.run.seats.index(s) if s in a.run.seats else -1
            row.append(" ".join(prop_cells(a.seat_rates[i])) if i >= 0 else "-")
        rows.append(row)
    rows.append(["draw rate"] + [" ".join(prop_cells(a.draw)) for a in analyses])
    rows.append(["turn-cap rate"] + [" ".join(prop_cells(a.turn_cap)) if a.turn_cap else "no cap"
                                     for a in analyses])
    rows.append(["first-player win rate"] + [" ".join(prop_cells(a.first)) for a in analyses])
    rows.append(["balance (Ludii)"] + [f"{a.balance:.4f}" for a in analyses])
    rows.append(["median turns"] + [num(a.turns["median"]) for a in analyses])
    rows.append(["mean turns"] + [f"{a.turns['mean']:.2f}" for a in analyses])
    rows.append(["MDE seat win rate"] + [pct(a.mde) for a in analyses])
    doc.table(head, rows)
    doc.fig("win_rates", "Win rate per seat and draws, all variants (95% Wilson intervals)")
    doc.fig("length", "Game length, all variants overlaid")
    doc.fig("scores", "Score distribution per seat, all variants overlaid")
    doc.fig("bots", "Win rate per bot (seats rotated), all variants")

    doc.h(3, f"Differences against {comparison.baseline}")
    doc.p("Proportions: difference with Newcombe's 95% interval and the two-proportion z-test; game "
          "length: seeded percentile bootstrap (mean, median), Kolmogorov-Smirnov (value = D) and "
          "Mann-Whitney (value = U/(n1 n2), 0.5 = no shift). p-values are adjusted over the whole "
          "table (Holm: family-wise; BH: false discovery rate).")
    doc.table(["comparison", "metric", "difference", "95% CI", "p", "p (Holm)", "p (BH)", "method"],
              [[r["variant"], r["metric"].removeprefix("diff."),
                (f"{100 * r['value']:+.2f} pts" if _is_prop(r["metric"]) else num(r["value"])),
                (f"[{100 * r['ci_low']:+.2f}, {100 * r['ci_high']:+.2f}] pts" if _is_prop(r["metric"])
                 else ci(r["ci_low"], r["ci_high"], as_pct=False)),
                pval(r["p_value"]), pval(r["p_holm"]), pval(r["p_bh"]), r["method"]]
               for r in comparison.rows])
    doc.p("Smallest difference in a seat win rate these sample sizes detect (80% power, 5% level): "
          + "; ".join(f"{k}: {pct(v)}" for k, v in comparison.mde.items()) + ".")


def _is_prop(metric: str) -> bool:
    return not metric.startswith("diff.turns")


def render_variant(doc: Doc, a: Analysis) -> None:
    run = a.run
    k = len(run.seats)
    doc.h(2, f"Variant {run.label}")
    doc.p(f"{num(a.n)} games ({num(a.decisive)} decisive) of {run.game_name}. "
          f"Minimum detectable effect: with this many games a seat whose true win rate is "
          f"{pct(a.mde)} above the fair share {pct(1 / k)} would be found with 80% power at the 5% level.")
    doc.h(3, "Seats")
    doc.table(["seat", "bot", "wins", "win rate", "95% CI", "p vs fair share", "p (Holm)"],
              [[s, "rotated" if run.rotate else b, num(p.successes), *prop_cells(p), pval(pv), pval(ph)]
               for s, b, p, pv, ph in zip(run.seats, a.seat_bots, a.seat_rates, a.seat_p, a.seat_p_holm,
                                          strict=True)])
    doc.p(f"Tests: exact binomial test of each seat's share of the {num(a.decisive)} decisive games "
          f"against 1/{k}; Holm-adjusted across seats.")
    doc.fig("win_rates", "Win rate per seat and draws (95% Wilson intervals)")
    rows = [["draw rate", *prop_cells(a.draw)]]
    rows.append(["turn-cap rate", *prop_cells(a.turn_cap)] if a.turn_cap else
                ["turn-cap rate", "no turn cap", ""])
    rows.append(["first-player win rate (all games)", *prop_cells(a.first)])
    rows.append(["first-player share of decisive games", *prop_cells(a.first_decisive)])
    rows.append(["balance (Ludii: 1 - largest seat gap)", f"{a.balance:.4f}", ""])
    doc.table(["metric", "value", "95% CI"], rows)
    fs = ", ".join(run.seats[i] if 0 <= i < k else str(i) for i in a.first_seats)
    fs = f"always {fs}" if len(a.first_seats) == 1 else f"varies over {fs}"
    doc.p(f"First-player advantage: the seat that moved first ({fs}) won {pct(a.first_decisive.value)} "
          f"of decisive games against a fair share of {pct(1 / k)}; exact binomial test "
          f"p = {pval(a.first_p)}." + (" The same seat always moves first, so this is also that "
                                       "seat's advantage." if len(a.first_seats) == 1 else ""))
    if a.bots:
        doc.h(3, "Bots (seats rotated)")
        doc.table(["bot", "seat-games", "wins", "win rate", "95% CI", "p vs fair share"],
                  [[b, num(p.n), num(p.successes), *prop_cells(p), pval(pv)] for b, p, pv in a.bots])
        doc.p("A bot's rate counts every seat it held in a game; the test compares its share of "
              "decisive appearances with 1/seats.")
        doc.fig("bots", "Win rate per bot (95% Wilson intervals)")
    doc.h(3, "Game length (turns)")
    t = a.turns
    doc.table(["p5", "p25", "median", "p75", "p95", "mean"],
              [[num(t["p5"]), num(t["p25"]),
                f"{num(t['median'])} {ci(a.turns_median_ci[1], a.turns_median_ci[2], False)}",
                num(t["p75"]), num(t["p95"]),
                f"{t['mean']:.2f} {ci(a.turns_mean.low, a.turns_mean.high, False)}"]])
    doc.fig("length", "Game length distribution (share of games per number of turns)")
    doc.h(3, "Scores")
    if a.scores:
        doc.table(["seat", "mean", "95% CI", "sd", "p5", "median", "p95"],
                  [[s, num(m.value), ci(m.low, m.high, False), num(m.sd), num(a.score_q[s]["p5"]),
                    num(a.score_q[s]["median"]), num(a.score_q[s]["p95"])] for s, m in a.scores.items()])
        doc.fig("scores", "Score distribution per seat")
    else:
        doc.p("No score columns in the table.")
    doc.h(3, f"{run.game_name} metrics")
    if a.game_note:
        doc.p(a.game_note)
    if a.game_rows:
        doc.table(["metric", "value", "successes / n", "95% CI"],
                  [[r["metric"], pct(r["value"]) if r.get("n") is not None else num(r["value"]),
                    f"{num(r['successes'])} / {num(r['n'])}" if r.get("n") is not None else "",
                    ci(r.get("ci_low", math.nan), r.get("ci_high", math.nan),
                       as_pct=r.get("n") is not None)] for r in a.game_rows])


def render_methods(doc: Doc) -> None:
    doc.h(2, "Method notes")
    for line in (
        "Proportions: 95% Wilson score intervals (statsmodels); the exact binomial test (scipy).",
        "Seat fairness and first-player advantage are tested on decisive games (draws removed) "
        "against 1/seats; rates are shown over all games. Balance (Ludii) = 1 - (highest - lowest "
        "seat win rate).",
        "Minimum detectable effect: arcsine effect size, two-sided 5% level, 80% power "
        "(statsmodels NormalIndPower).",
        "Game length: quantiles by linear interpolation; the median's interval is a seeded "
        "percentile bootstrap, the mean's a Student-t interval.",
        "Non-win end reasons: the run's turn-cap reason, those a game declares, and names containing "
        + ", ".join(NON_WIN_WORDS) + ".",
    ):
        doc.p(line)
