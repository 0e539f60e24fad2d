"""`hexsim sensitivity VARIANT [--params rules.a,rules.b] --games N`: which rule matters most?

Every rule parameter (or the listed paths) is moved to each of its alternatives, one at a time,
and played against the base variant on common seeds (game i of both starts from the same seed),
so each difference is paired, as `hexsim compare` pairs them: the first mover's share of decisive
games by a paired bootstrap interval and the paired delta-method z test (`stats.paired_share_test`),
the share of games decided off the board by the exact McNemar test with Newcombe's paired
interval, the median length by a paired bootstrap with McNemar on the games at or below the
pooled median. p-values are Holm-adjusted over all alternatives, per metric: every test is
analytic or exact, so no resampling floor keeps a real change from passing Holm however many
alternatives there are.

Alternatives of a parameter: every other choice of a choice parameter, the other truth value of
a switch, one step down and one up for a number, within its range (integers: 1, or a tenth of
the value above 20; reals: a tenth of the value, or of the range at 0); a per-seat table: each
seat's entry moved alone. Lists and free text have no natural neighbour: name values with
`--params rules.NAME=V1,V2`. Parameters that pick a game mode (`Game.modes()`) are left out: a
mode is another game, not a tweak. A game can offer "restricted play" alternatives (e.g. one tile
type removed from both bags) through an optional hook `restricted_play(rules)` returning
`[(label, {path: value, ...}), ...]`; none by default.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import display, stats
from sim.errors import UserError, VariantError
from sim.games.base import Param
from sim.runs.variants import Variant, load, split_path
from sim.stats import metrics
from sim.workflows.compare import identical_games, run_folder
from sim.workflows.sweep import _point_name, cell, parse_set, split_values, value_text
from sim.workflows.tune import table_metrics
from sim.workflows.tune_report import HEADLINE, WORDS, bar_text, change_text, move_text, write_sensitivity  # noqa: F401


@dataclass
class SensitivityResult:
    """`table`: one row per alternative (param, seat: the seat whose entry of a per-seat rule
    moved alone, else "", path, base value, alternative value, games_changed,
    then per headline metric: base, alternative, diff, ci_low, ci_high, p_value, p_adjusted),
    ranked by the largest first-mover change; `skipped`: paths not played and why;
    `ranking`: per metric, each parameter's largest |diff| (which rule matters most)."""

    variant: Variant
    table: pd.DataFrame
    skipped: pd.DataFrame
    games: int
    seed: int
    files: dict[str, Path] = field(default_factory=dict)

    def _title(self) -> str:
        return (f"SensitivityResult {self.variant.name}: {len(self.table)} alternatives of "
                f"{self.table['param'].nunique() if len(self.table) else 0} rules, {self.games:,} games "
                f"each (seed {self.seed})")

    def __repr__(self) -> str:
        top = self.ranking().head(3).to_dict("records") if len(self.table) else []
        return display.text(self._title(), [
            *(f"{i}. {change_text(r)}: first mover's share "
              f"{100 * r['first_mover_share_diff']:+.1f} points" for i, r in enumerate(top, 1)),
            f"{len(self.skipped)} rules skipped (.skipped)" if len(self.skipped) else "",
            display.folder(self.files), "every alternative: .table; rules by effect: .ranking(metric)"])

    def _repr_html_(self) -> str:
        return display.html(self._title(), self.ranking() if len(self.table) else None)

    def ranking(self, metric: str = "first_mover_share") -> pd.DataFrame:
        t = self.table.assign(size=self.table[f"{metric}_diff"].abs())
        best = t.sort_values("size", ascending=False).drop_duplicates("param")
        return best[["param", "seat", "base_value", "value", f"{metric}_diff", f"{metric}_ci_low", f"{metric}_ci_high",
                     f"{metric}_p_adjusted"]].reset_index(drop=True)


def seat_of(base: Variant, path: str) -> str:
    """The seat whose entry of a per-seat rule `path` moves (rules.NAME.SEAT), else ""."""
    parts = split_path(path)
    if len(parts) != 3 or parts[0] != "rules" or parts[2] not in base.seat_names:
        return ""
    try:
        return parts[2] if base.game.param(parts[1]).per_seat else ""
    except KeyError:
        return ""


# ---- alternatives -------------------------------------------------------------------------------
def step_values(p: Param, v: Any) -> list[Any]:
    """A parameter value's neighbours: other choices, the other truth value, one step down/up."""
    if isinstance(v, bool):
        return [not v]
    if p.choices is not None and p.kind != "list":
        return [c for c in p.choices if c != v]
    if isinstance(v, int):
        step = 1 if abs(v) <= 20 else max(1, round(abs(v) / 10))
        cand = [v - step, v + step]
    elif isinstance(v, float):
        span = (p.high - p.low) if p.low is not None and p.high is not None else 1.0
        step = abs(v) / 10 if v else span / 10
        cand = [round(v - step, 12), round(v + step, 12)]
    else:
        return []
    return [c for c in cand if (p.low is None or c >= p.low) and (p.high is None or c <= p.high)]


def _param_at(base: Variant, path: str) -> tuple[Param | None, Any]:
    """The schema and the base value at a path (rules.NAME[.SEAT] or seats.SEAT.PARAM)."""
    parts = split_path(path)
    if parts[0] == "rules":
        try:
            p = base.game.param(parts[1])
        except KeyError:
            names = [q.name for q in base.game.params]
            from sim.games.base import unknown_key

            raise UserError("--params: " + unknown_key(path, "rules", parts[1], names)) from None
        value: Any = base.rules.get(parts[1])
        for k in parts[2:]:
            if isinstance(value, dict) and k in value:
                value = value[k]
            elif not isinstance(value, dict) and k in base.seat_names:
                pass  # one seat's entry of a single value
            else:
                raise UserError(f"--params {path}: no entry {k!r} in rules.{parts[1]} = {value!r}")
        return p, value
    if len(parts) != 3 or parts[1] not in base.seats:
        raise UserError(f"--params {path}: a seat path is seats.SEAT.PARAM with SEAT one of "
                        f"{', '.join(base.seat_names)}")
    sb = base.seats[parts[1]]
    for q in sb.bot.params:
        if q.name == parts[2]:
            return q, sb.params[q.name]
    raise UserError(f"--params {path}: bot {sb.bot.name} has no parameter {parts[2]!r}; allowed: "
                    f"{', '.join(q.name for q in sb.bot.params) or '(none)'}")


def alternatives(base: Variant, params: list[str] | None = None) -> tuple[list[tuple], list[dict[str, str]]]:
    """(param, path, base value, alternative, named) for every alternative (`named`: the user
    gave the value), and the paths left out with why. `params`: paths, each optionally
    `=V1,V2` for named values; default every rule."""
    game = base.game
    skipped: list[dict[str, str]] = []
    items: list[tuple[str, list[Any] | None]] = []
    if params:
        for text in params:
            if "=" in text:
                path, values = parse_set(text, "--params")
                items.append((path, values))
            else:
                split_path(text.strip())
                items.append((text.strip(), None))
    else:
        modal = {k for _, o in game.modes() for k in o}
        for p in game.params:
            if p.name in modal:
                skipped.append({"param": f"rules.{p.name}", "why": "picks the game mode (another "
                                "game, not a tweak)"})
            else:
                items.append((f"rules.{p.name}", None))
    out = []
    for path, given in items:
        p, value = _param_at(base, path)
        if given is None and isinstance(value, dict):  # a per-seat (or nested) table: each entry
            subs = [(f"{path}.{k}", x) for k, x in value.items() if not isinstance(x, dict)]
        elif given is None and p is not None and p.per_seat and len(split_path(path)) == 2:
            # a rule a seat may hold differently: every seat at once, then each seat alone
            subs = [(path, value)] + [(f"{path}.{seat}", value) for seat in base.seat_names]
        else:
            subs = [(path, value)]
        for sub, v in subs:
            vals = given if given is not None else step_values(p, v)
            if not vals:
                skipped.append({"param": sub, "why": f"a {p.kind} has no natural neighbour; "
                                f"name values: --params {sub}=V1,V2"})
            for x in vals:
                if value_text(x) != value_text(v):
                    out.append((path, sub, v, x, given is not None))
    restricted = getattr(game, "restricted_play", None)
    if restricted is not None and not params:
        for label, point in restricted(base.rules):
            out.append((f"restricted: {label}", ",".join(point), "", point, False))
    return out, skipped


# ---- play and compare ---------------------------------------------------------------------------
def _paired_rows(da, db, va, vb, rng) -> dict[str, dict[str, float]]:
    la, lb = table_metrics(da, va), table_metrics(db, vb)
    paired = metrics.pairing(da, db, va, vb) is None
    out = {}
    for m in HEADLINE:
        ma, mb = la[m], lb[m]
        if m == "decided_off_board" and paired:
            ha, hb = ma.hits, mb.hits
            cells = (int((ha & hb).sum()), int((hb & ~ha).sum()), int((ha & ~hb).sum()),
                     int((~ha & ~hb).sum()))
            _, lo, hi = stats.newcombe_paired(*cells, 1 - metrics.ALPHA)
            row = {"diff": mb.value - ma.value, "ci_low": lo, "ci_high": hi,
                   "p_value": stats.mcnemar_exact(cells[1], cells[2])}
        else:
            r = metrics.compare_metric(ma, mb, da, db, va, vb, rng, paired=paired)
            row = {k: r[k] for k in ("diff", "ci_low", "ci_high", "p_value")}
        out[m] = {"base": ma.value, "alt": mb.value, **row}
    return out


def sensitivity(variant: str | Path, params: list[str] | None = None, games: int = 10_000,
                seed: int = 0, jobs: int | None = None, out: str | Path | None = None,
                backend: str = "loky", scheduler: str | None = None, progress: bool = False,
                write: bool = True) -> SensitivityResult:
    """Play every alternative of every parameter against the base on common seeds (see the
    module docstring). Returns frames; with `write`, sensitivity.csv/.md/.html and a tornado
    plot per headline metric in `out`."""
    from sim.runs import runner

    base = load(variant)
    alts, skipped = alternatives(base, params)
    loaded = []
    for param, path, v0, x, named in alts:  # every alternative checked before any game is played
        point = x if param.startswith("restricted: ") else {path: x}
        try:
            loaded.append((param, path, v0, x, load(variant, overrides=point)))
        except VariantError as e:
            if named:
                raise UserError(f"--params {path}={value_text(x)}: {e}") from None
            why = str(e).removeprefix(f"{variant}: ")
            skipped.append({"param": f"{path} = {value_text(x)}",
                            "why": "not a valid variant: " + (why if len(why) < 160 else why[:157] + "...")})
    if not loaded:
        raise UserError("sensitivity: no alternative to play" +
                        (f" ({skipped[0]['param']}: {skipped[0]['why']})" if skipped else ""))
    out = Path(out) if out is not None else Path("reports") / f"sensitivity-{base.name.replace('/', '-')}"
    run_args = dict(seed=seed, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress)
    if progress:
        print(f"sensitivity: {len(loaded)} alternatives x {games:,} games, and the base", file=sys.stderr)
    rb = runner.run(base, games, out=out / "runs" / f"base-{base.hash[:8]}-n{games}-s{seed}", **run_args)
    db = rb.table()
    rows = []
    rng = np.random.default_rng(seed)
    for i, (param, path, v0, x, v) in enumerate(loaded, 1):
        point = {path: x} if not param.startswith("restricted: ") else x
        if progress:
            print(f"alternative {i}/{len(loaded)}: {path} = {value_text(x)}", file=sys.stderr)
        r = runner.run(v, games, out=out / "runs" / run_folder(_point_name(point), v, games, seed),
                    **run_args)
        da = r.table()
        same = identical_games(db, da)
        seat = "" if param.startswith("restricted: ") else seat_of(base, path)
        row: dict[str, Any] = {"param": path.removesuffix(f".{seat}") if seat else param,
                               "seat": seat, "path": path, "base_value": cell(v0),
                               "value": cell(x) if not param.startswith("restricted: ") else
                               ", ".join(f"{k}={value_text(y)}" for k, y in x.items()),
                               "direction": _direction(v0, x), "games": games,
                               "games_changed": games - same if same is not None else math.nan}
        for m, d in _paired_rows(db, da, base, v, rng).items():
            row.update({f"{m}_base": d["base"], f"{m}_alt": d["alt"], f"{m}_diff": d["diff"],
                        f"{m}_ci_low": d["ci_low"], f"{m}_ci_high": d["ci_high"],
                        f"{m}_p_value": d["p_value"]})
        rows.append(row)
    table = pd.DataFrame(rows)
    for m in HEADLINE:
        p = table[f"{m}_p_value"].to_numpy(dtype=float)
        adj = np.full(p.size, np.nan)
        ok = np.isfinite(p)
        if ok.any():
            adj[ok] = metrics.holm(p[ok])
        table[f"{m}_p_adjusted"] = adj
    table = table.assign(_r=table["first_mover_share_diff"].abs()).sort_values(
        "_r", ascending=False, kind="stable").drop(columns="_r").reset_index(drop=True)
    res = SensitivityResult(base, table, pd.DataFrame(skipped, columns=["param", "why"]), games, seed)
    if write:
        res.files = write_sensitivity(res, out)
    return res


def _direction(v0: Any, x: Any) -> str:
    if isinstance(v0, bool) or not isinstance(v0, (int, float)) or not isinstance(x, (int, float)):
        return "other"
    return "down" if x < v0 else "up"


def parse_params(text: str) -> list[str]:
    """`rules.a,rules.b` -> ["rules.a", "rules.b"]; `rules.a=1,2` keeps its values (commas after
    an `=` belong to that path until the next `,rules.` or `,seats.`)."""
    parts = split_values(text, "--params")
    out: list[str] = []
    for p in parts:
        p = p.strip()
        if out and "=" in out[-1] and not p.startswith(("rules.", "seats.")):
            out[-1] += "," + p
        else:
            out.append(p)
    return out
