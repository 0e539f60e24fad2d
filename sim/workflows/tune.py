"""`hexsim tune VARIANT --vary PATH=RANGE --target METRIC=VALUE --budget GAMES`: find the setting.

A designer names the rule values that may change (`--vary`, any variant path) and what the
games should look like (`--target`); tune spends `--budget` games in all:

1. **Search** (three quarters of the budget by default). optuna's TPE sampler (seeded) proposes
   settings; each is played for a first rung of games and reported to optuna's successive-halving
   pruner, which lets the best third of the settings at a rung go on to three times the games
   (three rungs), so promising settings get more games and poor ones stop early. TPE because it
   is made for noisy, mixed (integer, real, categorical) spaces with a few dozen to a few hundred
   evaluations and works with the pruner; several targets are scalarised into one objective
   (the sum of each target's squared shortfall in units of its tolerance, 0 when every target is
   met), because the designer wants all targets met at once, which a scalar expresses directly,
   and optuna's pruners do not work with its multi-objective samplers (NSGA-II also needs many
   generations of a large population: more settings than a game budget pays for). The Pareto
   front over the targets is still computed from the settings tried and shown.
   Every search setting is played from the same run seed (common random numbers, as a sweep):
   its games depend on the seed and the setting only, never on the optimiser's timing, and the
   sampler is seeded from the seed, so a tune is identical for any --jobs or backend. A setting
   asked for again reuses its games (a run folder per setting, grown rung by rung: resumable).
2. **Confirmation** (the rest). The best few settings of the search (`confirm`, from the
   highest rung reached) and the starting variant are played again on fresh seeds (a run seed
   derived from the seed), equally many games each. The winner is picked from these games only:
   the search's best is biased towards luck (its estimate was the smallest of many noisy ones).
   The confirmation intervals are simultaneous over the re-played settings and the targets
   (Bonferroni: level alpha / (settings x targets)), so the winner's intervals cover its true
   values with probability at least 1 - alpha although it was picked from the same games.
   A target is "met" when the winner's interval lies inside the target's band, "missed" when it
   lies outside, otherwise "cannot tell" (with about how many games would tell).

Targets: `metric=value` (band value +/- tolerance: `+-t` after the value, default 1.5 points for
a share, 5% of the value otherwise), `metric>=v`, `metric<=v`, `metric=lo..hi`. Metrics: every
metric of `sim.stats.metrics.outcome_metrics` (`first_mover_share`, `draw_rate`, `end_<reason>`,
`turns_p50`, ...) plus `decided_off_board` (the share of games ending by a non-win reason: a
stalemate rule, the turn cap, ...), `decided_on_board` and the aliases `median_turns`,
`mean_turns`.
"""

from __future__ import annotations

import math
import re
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import display, stats
from sim.errors import UserError, VariantError
from sim.games.base import non_win_reasons
from sim.runs.seeds import derived_seed
from sim.runs.variants import Variant, load, split_path
from sim.stats import metrics
from sim.stats.metrics import is_share
from sim.workflows.sweep import cell, parse_value, split_values, value_text
from sim.workflows.tune_report import fmt_metric, search_lines, write_tune

ALIASES = {"median_turns": "turns_p50", "mean_turns": "turns_mean"}
EXTRA = ("decided_off_board", "decided_on_board")
SHARE_TOLERANCE = 0.015
REDUCTION = 3  # successive halving: the best 1/3 of a rung go on, with 3x the games
RUNGS = 3


# ---- what may change ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Dim:
    """One searched path: an int or float range (inclusive) or a list of choices."""

    path: str
    kind: str  # "int" | "float" | "choice"
    low: float | None = None
    high: float | None = None
    choices: tuple = ()

    def size(self) -> float:
        if self.kind == "int":
            return self.high - self.low + 1
        return len(self.choices) if self.kind == "choice" else math.inf

    def suggest(self, trial) -> Any:
        name = self.path
        if self.kind == "int":
            return trial.suggest_int(name, int(self.low), int(self.high))
        if self.kind == "float":  # on a grid of 1/100 to 1/1000 of the range: readable values
            step = 10.0 ** (math.floor(math.log10(self.high - self.low)) - 2)
            x = trial.suggest_float(name, float(self.low), float(self.high), step=step)
            return float(f"{x:.12g}")
        labels = [value_text(c) for c in self.choices]
        return self.choices[labels.index(trial.suggest_categorical(name, labels))]


def parse_vary(option: str) -> Dim:
    """`rules.hand_size.B=2..5` (ints), `rules.x=0.5..2.0` (reals), `rules.swap=true,false` or
    `rules.dots=default,none` (choices; lists and tables as for --set)."""
    path, eq, text = option.partition("=")
    path, text = path.strip(), text.strip()
    if not eq or not path or not text:
        raise UserError(f"--vary {option}: use --vary PATH=LOW..HIGH or PATH=V1,V2,...")
    try:
        split_path(path)
    except VariantError as e:
        raise UserError(f"--vary {option}: {e}") from None
    m = re.fullmatch(r"([-+]?[0-9.eE+-]+)\s*\.\.\s*([-+]?[0-9.eE+-]+)", text)
    if m:
        lo, hi = parse_value(m.group(1)), parse_value(m.group(2))
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (lo, hi)):
            raise UserError(f"--vary {option}: a range needs two numbers, LOW..HIGH")
        if lo >= hi:
            raise UserError(f"--vary {option}: the range {lo}..{hi} is empty or one value "
                            "(LOW below HIGH)")
        kind = "int" if isinstance(lo, int) and isinstance(hi, int) else "float"
        return Dim(path, kind, lo, hi)
    values = [parse_value(v) for v in split_values(text, f"--vary {option}")]
    if len(values) < 2:
        raise UserError(f"--vary {option}: give at least two values (V1,V2,...) or a range LOW..HIGH")
    if len(set(map(value_text, values))) != len(values):
        raise UserError(f"--vary {option}: a value is repeated")
    return Dim(path, "choice", choices=tuple(values))


# ---- what the games should look like --------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """A band a metric should lie in: [low, high] (either end open), `value` for `=` targets."""

    text: str
    metric: str  # the metric's name in the tables (aliases resolved)
    op: str  # "=" | ">=" | "<=" | "range"
    low: float
    high: float
    value: float | None
    scale: float  # the shortfall that counts as one unit in the objective

    def shortfall(self, v: float) -> float:
        """How far v lies from the target: |v - value| for `=`, the distance outside the band
        otherwise (0 inside). NaN (the metric undefined, e.g. no decisive game) counts as far."""
        if not np.isfinite(v):
            return math.inf
        if self.op == "=":
            return abs(v - self.value)
        return max(self.low - v, v - self.high, 0.0)

    def judge(self, lo: float, hi: float) -> str:
        """met (the interval inside the band), missed (outside) or cannot tell."""
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return "cannot tell"
        if self.low <= lo and hi <= self.high:
            return "met"
        if hi < self.low or lo > self.high:
            return "missed"
        return "cannot tell"

    def band_text(self) -> str:
        f = fmt_metric(self.metric)
        if self.op == ">=":
            return f">= {f(self.low)}"
        if self.op == "<=":
            return f"<= {f(self.high)}"
        if self.op == "=":
            return f"{f(self.value)} +/- {f(self.scale, True)}"
        return f"{f(self.low)}..{f(self.high)}"


def parse_target(text: str) -> Target:
    """`first_mover_share=0.5`, `first_mover_share=0.5+-0.02`, `decided_on_board>=0.6`,
    `median_turns<=40`, `median_turns=20..40`."""
    m = re.fullmatch(r"\s*([A-Za-z0-9_.]+)\s*(>=|<=|=)\s*(.+?)\s*", text)
    if not m:
        raise UserError(f"--target {text}: use METRIC=VALUE, METRIC=VALUE+-TOL, METRIC>=V, "
                        "METRIC<=V or METRIC=LOW..HIGH")
    name, op, rhs = m.groups()
    metric = ALIASES.get(name) or metrics.current_name(name)

    def num(s: str) -> float:
        try:
            return float(s)
        except ValueError:
            raise UserError(f"--target {text}: {s!r} is not a number") from None

    if op == "=" and ".." in rhs:
        lo, hi = (num(x) for x in rhs.split("..", 1))
        if lo >= hi:
            raise UserError(f"--target {text}: the band {lo}..{hi} is empty (LOW below HIGH)")
        return Target(text, metric, "range", lo, hi, None, (hi - lo) / 2)
    if op == "=":
        value, _, tol = rhs.partition("+-")
        v = num(value)
        t = num(tol) if tol else (SHARE_TOLERANCE if is_share(metric) else 0.05 * abs(v) or 1.0)
        if t <= 0:
            raise UserError(f"--target {text}: the tolerance must be above 0")
        return Target(text, metric, "=", v - t, v + t, v, t)
    v = num(rhs)
    scale = SHARE_TOLERANCE if is_share(metric) else 0.05 * abs(v) or 1.0
    return Target(text, metric, op, v if op == ">=" else -math.inf, v if op == "<=" else math.inf,
                  None, scale)


def objective(values: dict[str, float], targets: list[Target]) -> float:
    """The scalarised distance to the targets: sum of (shortfall / scale)^2 (0 when all met)."""
    return float(sum((t.shortfall(values[t.metric]) / t.scale) ** 2 for t in targets))


# ---- metrics of one table ------------------------------------------------------------------------
def table_metrics(df: pd.DataFrame, variant: Variant) -> dict[str, metrics.Metric]:
    """Every metric of `outcome_metrics`, plus decided_off_board and decided_on_board."""
    out = {m.name: m for m in metrics.outcome_metrics(df, variant)}
    reasons = df["end_reason"].astype(str).to_numpy()
    game = variant.game
    cap = "turn_cap" if "turn_cap" in game.end_reasons else None  # as the runner's manifest names it
    off = np.isin(reasons, sorted(non_win_reasons(game, turn_cap_reason=cap)))
    for name, hits in (("decided_off_board", off), ("decided_on_board", ~off)):
        out[name] = metrics.Metric(name, "proportion", float(hits.mean()) if hits.size else math.nan,
                                   int(hits.size), successes=int(hits.sum()), hits=hits)
    return out


def available_metrics(variant: Variant, seed: int = 0) -> list[str]:
    """The metric names a target may use for this variant (from a few games played in memory)."""
    from sim.runs.runner import play_range

    return list(table_metrics(play_range(variant, 0, 20, seed), variant))


def estimates(df: pd.DataFrame, variant: Variant, names: list[str], alpha: float = metrics.ALPHA,
              seed: int = 0) -> dict[str, tuple[float, float, float, int]]:
    """metric -> (value, low, high, n) at level 1 - alpha: Wilson for shares, a percentile
    bootstrap for means and quantiles, the game's bootstrap for its own values."""
    ms = table_metrics(df, variant)
    rng = np.random.default_rng(seed)
    out = {}
    for name in names:
        m = ms[name]
        if m.kind == "proportion":
            ci = stats.wilson(m.successes, m.n, conf=1 - alpha)
            lo, hi = (ci.low, ci.high) if m.n else (math.nan, math.nan)
        else:
            reps = metrics.boot_replicates(m, df, variant, metrics.BOOT, rng)
            lo, hi = metrics._percentile(reps, alpha)
        out[name] = (m.value, lo, hi, m.n)
    return out


def games_to_meet(t: Target, value: float, lo: float, hi: float, games: int) -> int | None:
    """About how many games would make an interval of this width fit inside the target's band
    around this value (widths shrink as 1/sqrt(games)); None when the value lies outside it."""
    room = min(value - t.low, t.high - value)
    half = (hi - lo) / 2
    if not (np.isfinite(room) and np.isfinite(half)) or room <= 0 or half <= 0:
        return None
    return int(math.ceil(games * (half / room) ** 2))


# ---- the search ----------------------------------------------------------------------------------
@dataclass
class TuneResult:
    """`settings`: every setting tried (values, games, each target metric with its 95% interval,
    objective, stage, `confirmed`, `winner`); `confirmation`: the re-played settings and the
    starting variant on fresh seeds (simultaneous intervals); `winner_vs_start`: the winner
    against the starting variant on those common seeds (paired intervals, as compare);
    `progress`: one row per trial (games so far, objective, best so far)."""

    variant: Variant
    dims: list[Dim]
    targets: list[Target]
    settings: pd.DataFrame
    confirmation: pd.DataFrame
    winner_vs_start: pd.DataFrame
    progress: pd.DataFrame
    winner: dict[str, Any] | None
    winner_variant: Variant | None
    met: bool
    statement: str
    budget: int
    games_played: int
    seed: int
    confirm_seed: int
    alpha: float
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def table(self) -> pd.DataFrame:
        """tune.csv: the search's settings and the confirmation's rows."""
        return pd.concat([self.settings, self.confirmation], ignore_index=True)

    def pareto(self) -> pd.DataFrame:
        """Search settings no other search setting beats on every target's shortfall."""
        return pareto_front(self.settings[self.settings["stage"] == "search"], self.targets)

    def _title(self) -> str:
        return (f"TuneResult {self.variant.name}: {', '.join(t.text for t in self.targets)} "
                f"{'met' if self.met else 'not met'} ({self.games_played:,} of {self.budget:,} games)")

    def __repr__(self) -> str:
        best = ", ".join(f"{k} = {v}" for k, v in (self.winner or {}).items())
        return display.text(self._title(), [
            f"best: {best}" if best else "no setting confirmed", self.statement,
            display.folder(self.files), "settings tried: .settings; re-played on fresh seeds: .confirmation"])

    def _repr_html_(self) -> str:
        cols = [d.path for d in self.dims] + [t.metric for t in self.targets] + ["objective", "winner"]
        return display.html(self._title(), self.confirmation, cols)


def _folder(point: dict[str, Any], v: Variant, seed: int) -> str:
    text = ",".join(f"{k.split('.', 1)[1]}={value_text(x)}" for k, x in point.items())
    return f"{re.sub(r'[^A-Za-z0-9_.,=+-]+', '_', text)[:80]}-{v.hash[:8]}-s{seed}"


def pareto_front(t: pd.DataFrame, targets: list[Target]) -> pd.DataFrame:
    if t.empty or len(targets) < 2:
        return t.iloc[:0]
    cols = [f"{x.metric}_shortfall" for x in targets]
    x = t[cols].to_numpy(dtype=float)
    keep = []
    for i in range(len(x)):
        dominated = np.any(np.all(x <= x[i], axis=1) & np.any(x < x[i], axis=1))
        keep.append(not dominated)
    return t[np.asarray(keep, dtype=bool)]


def tune(variant: str | Path, vary: list[str | Dim], targets: list[str | Target], budget: int,
         seed: int = 0, jobs: int | None = None, out: str | Path | None = None,
         backend: str = "loky", scheduler: str | None = None, progress: bool = False,
         confirm: int = 3, confirm_share: float = 0.25, alpha: float = metrics.ALPHA,
         first_rung: int | None = None, write: bool = True) -> TuneResult:
    """Search the `vary` space for the `targets` within `budget` games, then confirm the best
    `confirm` settings on fresh seeds (see the module docstring). Returns frames; with `write`,
    tune.csv, best.toml, tune.md and tune.html (and figures) in `out`."""
    dims = [d if isinstance(d, Dim) else parse_vary(d) for d in vary]
    tgts = [t if isinstance(t, Target) else parse_target(t) for t in targets]
    base = _checked_inputs(variant, dims, tgts, seed, confirm, confirm_share)
    search_budget = int(budget * (1 - confirm_share))
    confirm_games = (budget - search_budget) // (confirm + 1)
    rung = int(first_rung or max(100, search_budget // 150))
    if confirm_games < 100 or rung * 2 > search_budget:
        least = max(int(200 / (1 - confirm_share)), int(100 * (confirm + 1) / confirm_share))
        raise UserError(f"--budget {budget}: too small for a search and a confirmation of "
                        f"{confirm} settings; give at least {least:,} games")
    out = Path(out) if out is not None else Path("reports") / f"tune-{base.name.replace('/', '-')}"
    run_kw = {"jobs": jobs, "backend": backend, "scheduler": scheduler}
    search = _Search(variant, dims, tgts, seed, out, run_kw, [rung * REDUCTION ** k for k in range(RUNGS)])
    search.run(search_budget, progress)
    tried = {k: r for k, r in search.seen.items() if r["games"]}
    if not tried:
        raise UserError("tune: no setting of the --vary space is valid for this variant: "
                        + next(iter(search.seen.values()))["note"])
    ranked = sorted(tried.items(), key=lambda kv: (-kv[1]["games"], kv[1]["objective"]))
    conf = _confirm(base, dims, tgts, ranked[:confirm], derived_seed(seed, "confirm"), alpha,
                    (budget - search.played) // (min(confirm, len(ranked)) + 1), out, run_kw, progress)
    settings = _settings(search.seen, tried, dims, tgts, alpha, seed)
    res = TuneResult(base, dims, tgts, settings, conf.table, conf.vs, pd.DataFrame(search.trials),
                     dict(tried[conf.winner]["point"]), tried[conf.winner]["variant"], conf.met, conf.statement,
                     budget, search.played + conf.played, seed, conf.seed, alpha)
    if write:
        res.files = write_tune(res, out, variant)
    return res


def _checked_inputs(variant, dims: list[Dim], tgts: list[Target], seed: int, confirm: int,
                    confirm_share: float) -> Variant:
    """The base variant, once every flag and every value of the space is checked (before any
    game is played)."""
    if not dims:
        raise UserError("tune: give at least one --vary PATH=LOW..HIGH or PATH=V1,V2,...")
    if not tgts:
        raise UserError("tune: give at least one --target, e.g. first_mover_share=0.5")
    if len({d.path for d in dims}) != len(dims):
        raise UserError("--vary: a path is given twice")
    if not 0 < confirm_share < 1:
        raise UserError(f"--confirm-share {confirm_share}: must be between 0 and 1")
    if confirm < 1:
        raise UserError(f"--confirm {confirm}: must be at least 1")
    base = load(variant)
    names = available_metrics(base, seed)
    for t in tgts:
        if t.metric not in names:
            raise UserError(f"--target {t.text}: unknown metric {t.metric!r}; allowed: "
                            f"{', '.join(names + list(ALIASES))}")
    if len({t.metric for t in tgts}) != len(tgts):
        raise UserError("--target: a metric is given twice")
    for d in dims:
        for x in ([d.low, d.high] if d.kind != "choice" else d.choices):
            _load(variant, {d.path: int(x) if d.kind == "int" else x}, "--vary")
    return base


@dataclass
class _Search:
    """The search stage: TPE proposes settings, successive halving plays each on growing rungs
    of the same seeds (a setting asked again is resumed, never replayed)."""

    variant: Any
    dims: list[Dim]
    tgts: list[Target]
    seed: int
    out: Path
    run_kw: dict[str, Any]
    rungs: list[int]
    played: int = 0
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)  # setting key -> its record
    trials: list[dict[str, Any]] = field(default_factory=list)

    def run(self, budget: int, progress: bool) -> None:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(seed=derived_seed(self.seed, "tpe") % 2**32, multivariate=True,
                                             n_startup_trials=10)
        pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=self.rungs[0], reduction_factor=REDUCTION,
                                                        bootstrap_count=0)
        study = optuna.create_study(direction="minimize", sampler=sampler, pruner=pruner)
        space = math.prod(d.size() for d in self.dims)
        repeats = fails = 0
        while self.played + self.rungs[0] <= budget and repeats < 50 and fails < 50:
            trial = study.ask()
            point = {d.path: d.suggest(trial) for d in self.dims}
            key = "|".join(value_text(point[d.path]) for d in self.dims)
            try:
                v = _load(self.variant, point, "--vary")
            except UserError as e:
                fails += 1
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                self.seen.setdefault(key, {"point": point, "games": 0, "note": str(e), "variant": None})
                self.trials.append({"trial": trial.number, "key": key, "games_so_far": self.played,
                                    "objective": math.nan, "games": 0, "state": "invalid"})
                continue
            fails = 0
            rec = self.seen.setdefault(key, {"point": point, "games": 0, "note": "", "variant": v})
            repeats = repeats + 1 if rec["games"] else 0
            state, value = self._climb(trial, rec, point, v, budget)
            if state == "complete" or (state != "pruned" and np.isfinite(value)):
                study.tell(trial, value if np.isfinite(value) else 1e12)
            else:
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
            self.trials.append({"trial": trial.number, "key": key, "games_so_far": self.played,
                                "objective": value, "games": rec["games"], "state": state})
            if progress and sys.stderr.isatty():  # one status line, rewritten: not a line per trial
                print(f"\rtune: searching: trial {len(self.trials)}, {len(self.seen)} settings, "
                      f"{self.played:,}/{budget:,} games", end="", file=sys.stderr, flush=True)
            if len([r for r in self.seen.values() if r["games"] >= self.rungs[-1]]) >= space:
                break  # every setting of a finite space played at the last rung
        if progress:
            _print_search(self.trials, self.seen, self.tgts, len(self.rungs), self.played)

    def _climb(self, trial, rec: dict[str, Any], point: dict[str, Any], v: Variant,
               budget: int) -> tuple[str, float]:
        """Play one setting up the rungs until the pruner stops it or the budget would be
        passed: (state, objective at the last rung played)."""
        state, value = "complete", math.nan
        for k, n in enumerate(self.rungs):
            if n > rec["games"]:
                if self.played + n - rec["games"] > budget:
                    return "stopped (budget)", value
                rec["table"] = play_first(v, n, self.seed, self.out / "runs" / "search" / _folder(point, v, self.seed),
                                          **self.run_kw)
                self.played += n - rec["games"]
                rec["games"] = n
            vals = {name: m.value for name, m in table_metrics(rec["table"], v).items()}
            value = objective(vals, self.tgts)
            rec.update(values=vals, objective=value, rung=k)
            trial.report(value, n)
            if k < len(self.rungs) - 1 and trial.should_prune():
                return "pruned", value
        return state, value


@dataclass
class _Confirmation:
    table: pd.DataFrame
    vs: pd.DataFrame
    winner: str
    met: bool
    statement: str
    seed: int
    played: int


def _confirm(base: Variant, dims: list[Dim], tgts: list[Target], picked: list, confirm_seed: int,
             alpha: float, games: int, out: Path, run_kw: dict[str, Any], progress: bool) -> _Confirmation:
    """The start and the `picked` settings replayed on fresh seeds; the winner, and the winner
    against the start on every headline metric."""
    level = confirmation_level(alpha, len(picked), len(tgts))
    crows, cruns, played = [], {}, 0
    for label, point, v in [("start", {}, base)] + [(k, r["point"], r["variant"]) for k, r in picked]:
        df = play_first(v, games, confirm_seed,
                        out / "runs" / "confirm" / (_folder(point, v, confirm_seed) if point
                                                    else f"start-{v.hash[:8]}-s{confirm_seed}"),
                        progress=progress, **run_kw)
        played += games
        cruns[label] = (df, v)
        est = estimates(df, v, [t.metric for t in tgts], level, seed=confirm_seed)
        vals = {m: e[0] for m, e in est.items()}
        row = _row(dims, point if point else _start_point(base, dims), games, est, tgts,
                   "confirmation" if point else "start (confirmation)", True)
        row.update(objective=objective(vals, tgts), key=label, level=1 - level)
        crows.append(row)
    confirmation = pd.DataFrame(crows)
    winner = choose_winner(confirmation, tgts)
    confirmation["winner"] = confirmation["key"] == winner
    best = confirmation[confirmation["winner"]].iloc[0]
    met = bool(sum(best[f"{t.metric}_verdict"] == "met" for t in tgts) == len(tgts))
    (df_a, _), (df_b, wv) = cruns["start"], cruns[winner]
    vs = metrics.compare_tables(df_a, df_b, base, wv, seed=confirm_seed, alpha=alpha)
    vs = vs[vs["metric"].isin([t.metric for t in tgts] + ["first_mover_share", "draw_rate", "turns_p50"])]
    off = _paired_off_board(df_a, df_b, base, wv, alpha)
    if off is not None:
        vs = pd.concat([vs, off], ignore_index=True)
    return _Confirmation(confirmation, vs.reset_index(drop=True), winner, met,
                         _statement(best, tgts, met, dims, games, level), confirm_seed, played)


def _settings(seen: dict, tried: dict, dims: list[Dim], tgts: list[Target], alpha: float, seed: int) -> pd.DataFrame:
    """Every setting the search played (its estimates at its last rung) and every invalid one."""
    srows = []
    for k, r in tried.items():
        est = estimates(r["table"], r["variant"], [t.metric for t in tgts], alpha, seed=seed)
        row = _row(dims, r["point"], r["games"], est, tgts, "search", False)
        row.update(objective=r["objective"], key=k, level=1 - alpha, rung=r["rung"] + 1)
        srows.append(row)
    for k, r in seen.items():
        if not r["games"]:
            srows.append({**{d.path: cell(r["point"][d.path]) for d in dims}, "stage": "invalid",
                          "games": 0, "confirmed": False, "note": r["note"], "key": k})
    settings = pd.DataFrame(srows)
    settings["winner"] = False
    return settings


def _print_search(trials, seen, tgts, rungs: int, played: int) -> None:
    """The search's settings on stderr: a line each, however many trials asked for it."""
    print(("\n" if sys.stderr.isatty() else "") + f"tune: search: {len(trials)} trials of "
          f"{len(seen)} distinct settings, {played:,} games", file=sys.stderr)
    for line in search_lines(trials, seen, tgts, rungs):
        print(f"  {line}", file=sys.stderr)


def play_first(v: Variant, n: int, seed: int, folder: Path, **run_args) -> pd.DataFrame:
    """The first n games of the run of `v` from `seed` in `folder`, through the runner (resumed,
    grown, or read from a folder already holding more games: a rerun of a tune reads the games a
    killed or finished one played and gets the same tables)."""
    from sim.runs import runner, tables

    games = n
    if (folder / tables.MANIFEST).exists():
        games = max(n, int(tables.read_manifest(folder).get("games") or 0))
    r = runner.run(v, games, seed=seed, out=folder, **{"progress": False, **run_args})
    df = r.table()
    return df[df["game"] < n].reset_index(drop=True) if games > n else df


def confirmation_level(alpha: float, settings: int, targets: int) -> float:
    """The level of each confirmation interval: Bonferroni over the re-played settings, the
    starting variant and the targets, so the winner's intervals, although it was picked from
    the same games, cover its true values with probability at least 1 - alpha."""
    return alpha / ((settings + 1) * targets)


def choose_winner(confirmation: pd.DataFrame, targets: list[Target]) -> str:
    """The key of the winner among the re-played settings (not the starting variant), from the
    confirmation's games only: the most targets met by their intervals, then the smallest
    objective of the confirmation's estimates (the first of equals)."""
    cands = confirmation[confirmation["key"] != "start"]
    met = [sum(r[f"{t.metric}_verdict"] == "met" for t in targets) for r in cands.to_dict("records")]
    order = np.lexsort((cands["objective"].to_numpy(dtype=float), -np.asarray(met)))
    return str(cands["key"].iloc[int(order[0])])


def _load(variant, point: dict[str, Any], option: str) -> Variant:
    try:
        return load(variant, overrides=point)
    except VariantError as e:
        given = ", ".join(f"{k}={value_text(x)}" for k, x in point.items())
        raise UserError(f"{option} {given}: {e}") from None


def _start_point(base: Variant, dims: list[Dim]) -> dict[str, Any]:
    """The starting variant's value at every searched path (blank where it has none)."""
    out = {}
    for d in dims:
        parts = split_path(d.path)
        node: Any = base.rules if parts[0] == "rules" else {
            s: {"bot": b.bot.name, **b.params} for s, b in base.seats.items()}
        for p in parts[1:]:
            if isinstance(node, dict) and p in node:
                node = node[p]
            elif not isinstance(node, dict) and parts[0] == "rules":
                break  # a single value stands for every seat
            else:
                node = ""
                break
        out[d.path] = node.get("bot", "") if isinstance(node, dict) and parts[0] == "seats" else node
    return out


def _row(dims, point, games, est, tgts, stage, confirmed) -> dict[str, Any]:
    row: dict[str, Any] = {d.path: cell(point.get(d.path, "")) for d in dims}
    row.update(stage=stage, games=games, confirmed=confirmed)
    for t in tgts:
        value, lo, hi, n = est[t.metric]
        row.update({t.metric: value, f"{t.metric}_low": lo, f"{t.metric}_high": hi,
                    f"{t.metric}_n": n, f"{t.metric}_shortfall": t.shortfall(value),
                    f"{t.metric}_verdict": t.judge(lo, hi)})
    return row


def _paired_off_board(da, db, va, vb, alpha) -> pd.DataFrame | None:
    """The winner minus the start in the share decided off the board, paired by seed (exact
    McNemar, Newcombe's paired interval), as compare does for rates."""
    if len(da) != len(db) or not np.array_equal(da["seed"].to_numpy(), db["seed"].to_numpy()):
        return None
    a = table_metrics(da, va)["decided_off_board"].hits
    b = table_metrics(db, vb)["decided_off_board"].hits
    cells = (int((a & b).sum()), int((b & ~a).sum()), int((a & ~b).sum()), int((~a & ~b).sum()))
    diff, lo, hi = stats.newcombe_paired(*cells, 1 - alpha)
    return pd.DataFrame([{"metric": "decided_off_board", "kind": "proportion",
                          "value_a": a.mean(), "value_b": b.mean(), "diff": b.mean() - a.mean(),
                          "ci_low": lo, "ci_high": hi, "p_value": stats.mcnemar_exact(cells[1], cells[2]),
                          "method": "paired: exact McNemar, Newcombe paired interval"}])


def _statement(best, tgts: list[Target], met: bool, dims, games: int, level: float) -> str:
    setting = ", ".join(f"{d.path} = {value_text(best[d.path])}" for d in dims)
    parts = []
    for t in tgts:
        f = fmt_metric(t.metric)
        lo, hi, v = best[f"{t.metric}_low"], best[f"{t.metric}_high"], best[t.metric]
        parts.append(f"{t.metric} {f(v)} ({f(lo)}-{f(hi)}; target {t.band_text()}: "
                     f"{best[f'{t.metric}_verdict']})")
    conf = f"{100 * (1 - level):.4g}%"
    if met:
        return (f"Confirmed on {games:,} fresh games: {setting} meets every target: "
                + "; ".join(parts) + f" ({conf} intervals, simultaneous over the re-played "
                "settings).")
    need = []
    for t in tgts:
        if best[f"{t.metric}_verdict"] == "cannot tell":
            n = games_to_meet(t, best[t.metric], best[f"{t.metric}_low"], best[f"{t.metric}_high"],
                              games)
            if n:
                need.append(f"{t.metric} would need about {n:,} games to show it")
    if any(best[f"{t.metric}_verdict"] == "missed" for t in tgts):
        return ("No setting tried meets the targets. The closest, confirmed on "
                f"{games:,} fresh games, is {setting}: " + "; ".join(parts) + f" ({conf} intervals).")
    return (f"The best setting, confirmed on {games:,} fresh games, is {setting}, but its intervals "
            "do not yet show it inside every target band: " + "; ".join(parts) +
            f" ({conf} intervals)." + (" " + "; ".join(need) + " (a larger --budget)." if need else ""))
