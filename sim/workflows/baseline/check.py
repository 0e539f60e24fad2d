"""The regression check of stored baselines (`hexsim check`).

`check` verifies each baseline three ways:
- exact: re-plays the sampled games and names the first games whose winner, turns, scores or
  other columns differ (`full=True` re-plays every game and compares the table digest);
- definitions: computes every metric on the stored sample rows with today's code and compares
  with what the saving code computed on the same rows; a difference means the metric's
  definition changed ("re-save"), not that the games drifted;
- statistical: plays fresh seeds (run seed + 1 unless given) and tests every testable metric
  against the baseline (see `sim.stats.drift`: the first mover's share at its own level, the others
  under Holm), so an unchanged variant passes with probability at least 1 - 2e-4.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import display
from sim.errors import UserError
from sim.runs.variants import Variant
from sim.stats import drift, metrics
from sim.workflows.baseline.store import (
    OLD_FORMATS,
    PILOT_CHECK,
    RESAVE,
    Baseline,
    definitions_of,
    find_baselines,
    jsonable,
    outcome_columns,
    read,
    sample_table,
    table_digest,
    variant_of,
)


@dataclass
class CheckResult:
    """The verdict on one baseline."""

    path: Path
    variant: str
    variant_changed: list[str] = field(default_factory=list)  # resolved set-up differences
    exact_games: int = 0
    exact_mismatches: list[str] = field(default_factory=list)  # first games that differ
    exact_differing: int = 0
    digest_checked: bool = False
    stale: list[str] = field(default_factory=list)  # why the baseline must be re-saved
    stats: pd.DataFrame | None = None  # one row per metric (statistical check)
    fresh_games: int = 0
    games_per_second: float | None = None

    @property
    def exact_ok(self) -> bool:
        return not self.exact_differing

    @property
    def stats_ok(self) -> bool:
        return self.stats is None or not self.stats["drifted"].any()

    @property
    def ok(self) -> bool:
        return self.exact_ok and self.stats_ok and not self.stale

    @property
    def status(self) -> str:
        if not (self.exact_ok and self.stats_ok):
            return "DRIFT"
        return "STALE" if self.stale else "ok"

    def __repr__(self) -> str:
        head, *rest = self.summary().splitlines()
        return display.text(f"CheckResult {head}", [s.strip() for s in rest[:6]])

    def summary(self) -> str:
        lines = [f"{self.status:5s} {self.variant} ({self.path})"]
        for d in self.variant_changed:
            lines.append(f"    variant file changed since the baseline: {d}")
        if self.exact_games:
            what = "all games (table digest)" if self.digest_checked else f"{self.exact_games} sampled games"
            if self.exact_ok:
                lines.append(f"    exact: {what} replay identically")
            else:
                why = ("the variant file changed" if self.variant_changed
                       else "the rules code changed behaviour")
                lines.append(f"    exact: {self.exact_differing} of {self.exact_games} games differ "
                             f"({why}); first:")
                lines += [f"      {m}" for m in self.exact_mismatches]
        if self.stale:
            lines.append(f"    stale, re-save it ({RESAVE}, or hexsim baseline save "
                         f"{self.variant}):")
            lines += [f"      {s}" for s in self.stale]
        if self.stats is not None:
            st = self.stats
            tested = st[st["status"].isin(["ok", "drift"])]
            bad = st[st["drifted"]]
            untestable = st[st["status"] == "not testable"]
            rate = f", {self.games_per_second:,.0f} games/s" if self.games_per_second else ""
            lines.append(f"    statistical: {len(tested) - len(bad)} of {len(tested)} tested metrics "
                         f"hold on {self.fresh_games:,} fresh games{rate}; {len(untestable)} not "
                         f"testable at this size (too few events), "
                         f"{int((st['status'] == 'not tested').sum())} not tested (no per-game test)")
            for r in bad.to_dict("records"):
                lines.append(f"      {r['metric']}: baseline {r['baseline']:.4g}, now {r['value']:.4g} "
                             f"(p {r['p_value']:.3g}, adjusted {r['p_adjusted']:.3g} < "
                             f"{r['level']:.3g})" + (f"; {r['note']}" if r["note"] else ""))
        return "\n".join(lines)


@dataclass
class CheckReport:
    results: list[CheckResult]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def _title(self) -> str:
        return f"CheckReport: {self.summary().splitlines()[-1]}"

    def __repr__(self) -> str:
        lines = [f"{r.status:5s} {r.variant} ({r.path})" for r in self.results]
        more = [f"... {len(lines) - 8} more (.results)"] if len(lines) > 8 else []
        return display.text(self._title(), [*lines[:8], *more, "in full: .summary()"])

    def _repr_html_(self) -> str:
        rows = pd.DataFrame({"status": [r.status for r in self.results],
                             "variant": [r.variant for r in self.results],
                             "fresh games": [r.fresh_games for r in self.results],
                             "file": [str(r.path) for r in self.results]})
        return display.html(self._title(), rows, max_rows=20)

    def summary(self) -> str:
        drifted = sum(r.status == "DRIFT" for r in self.results)
        stale = sum(r.status == "STALE" for r in self.results)
        n = len(self.results)
        if not drifted and not stale:
            tail = f"{n} baselines hold"
        else:
            parts = [f"{drifted} of {n} baselines drifted"] if drifted else []
            parts += [f"{stale} of {n} baselines stale (re-save: {RESAVE})"] if stale else []
            tail = "; ".join(parts)
        return "\n".join([r.summary() for r in self.results] + [tail])

    def junit_xml(self, path: str | Path) -> Path:
        """JUnit XML for CI systems: a suite per baseline, a case per check and metric."""
        suites = ET.Element("testsuites", name="hexsim check")
        for r in self.results:
            cases = []
            if r.exact_games:
                msg = None if r.exact_ok else f"{r.exact_differing} of {r.exact_games} games differ"
                cases.append(("exact replay", msg, "\n".join(r.variant_changed + r.exact_mismatches)))
            if r.stale:
                cases.append(("metric definitions", f"stale baseline, re-save ({RESAVE})",
                              "\n".join(r.stale)))
            if r.stats is not None:
                for s in r.stats.to_dict("records"):
                    msg = (f"{s['metric']}: baseline {s['baseline']:.6g}, now {s['value']:.6g}, "
                           f"p {s['p_value']:.3g}, adjusted {s['p_adjusted']:.3g} < {s['level']:.3g}"
                           if s["drifted"] else None)
                    cases.append((f"metric {s['metric']}", msg, s["status"]))
            suite = ET.SubElement(suites, "testsuite", name=r.variant, tests=str(len(cases)),
                                  failures=str(sum(m is not None for _, m, _ in cases)))
            for name, msg, text in cases:
                case = ET.SubElement(suite, "testcase", classname=r.variant, name=name,
                                     file=str(r.path))
                if msg is not None:
                    fail = ET.SubElement(case, "failure", message=msg)
                    fail.text = text or msg
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
        return path


def _setup_diff(old: dict[str, Any], new: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k, "(absent)"), new.get(k, "(absent)")
        if isinstance(a, dict) and isinstance(b, dict):
            out += _setup_diff(a, b, f"{prefix}{k}.")
        elif a != b:
            out.append(f"{prefix}{k}: {a!r} -> {b!r}")
    return out


def _play(variant: Variant, first: int, n: int, seed: int) -> pd.DataFrame:
    from sim.runs.runner import play_range

    return play_range(variant, first, n, seed)


def _play_games(variant: Variant, games: Sequence[int], seed: int) -> pd.DataFrame:
    """Rows of the given games (each run of consecutive games in one call), in the given order."""
    games = [int(g) for g in games]
    if not games:
        return _play(variant, 0, 0, seed)
    parts, start = [], 0
    for i in range(1, len(games) + 1):
        if i == len(games) or games[i] != games[i - 1] + 1:
            parts.append(_play(variant, games[start], i - start, seed))
            start = i
    return pd.concat(parts, ignore_index=True)


def exact_differences(stored: dict[str, list], now: pd.DataFrame, limit: int = 5,
                      seat_names: Sequence[str] = ()) -> tuple[int, list[str]]:
    """How many sampled games differ, and a line for each of the first `limit` of them
    (seats by name: "winner A -> B", "winner B -> draw")."""

    def show(c, v):
        if c in ("winner", "first_seat") and isinstance(v, int) and -1 <= v < len(seat_names):
            return "draw" if v == -1 else seat_names[v]
        return repr(v)

    cols = list(stored)
    missing = [c for c in cols if c not in now]
    added = [c for c in outcome_columns(now) if c not in stored]
    n = len(stored[cols[0]]) if cols else 0
    if missing or added or len(now) != n:
        note = "; ".join(filter(None, [f"columns gone: {', '.join(missing)}" if missing else "",
                                       f"new columns: {', '.join(added)}" if added else ""]))
        return max(n, 1), [f"the outcome table changed shape ({note or f'{len(now)} rows'})"]
    now_vals = {c: jsonable(now[c]) for c in cols}
    lines, count = [], 0
    for i in range(n):
        diffs = [f"{c} {show(c, stored[c][i])} -> {show(c, now_vals[c][i])}" for c in cols
                 if stored[c][i] != now_vals[c][i]]
        if diffs:
            count += 1
            if len(lines) < limit:
                lines.append(f"game {stored['game'][i]} (seed {stored['seed'][i]}): "
                             + ", ".join(diffs))
    return count, lines


def check_exact(b: Baseline, variant: Variant, sample: int | None = None, full: bool = False,
                result: CheckResult | None = None) -> CheckResult:
    res = result or CheckResult(b.path, variant.name)
    d = b.data
    seed = int(d["seed"])
    stored = d["sample"]["columns"]
    if full:
        from sim.runs import runner

        chunk = runner.default_chunk(d["games"], 1)
        now = pd.concat([_play(variant, f, min(chunk, d["games"] - f), seed)
                         for f in range(0, d["games"], chunk)], ignore_index=True)
        res.digest_checked = True
        res.exact_games = int(d["games"])
        if table_digest(now) != d["table_digest"]:
            rows = np.asarray(stored["game"], dtype=np.int64)
            count, lines = exact_differences(stored, now.iloc[rows].reset_index(drop=True),
                                             seat_names=variant.seat_names)
            res.exact_differing = max(count, 1)
            res.exact_mismatches = lines or [
                f"table digest {d['table_digest'][:19]}... -> {table_digest(now)[:19]}...: "
                f"the {len(rows)} sampled games agree, another game differs"]
        return res
    k = len(stored["game"])
    k = min(k, sample) if sample else k
    stored = {c: v[:k] for c, v in stored.items()}
    now = _play_games(variant, stored["game"], seed)
    res.exact_games = k
    res.exact_differing, res.exact_mismatches = exact_differences(stored, now,
                                                                  seat_names=variant.seat_names)
    return res


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if a["kind"] != b["kind"] or a["n"] != b["n"] or a.get("successes") != b.get("successes"):
        return False
    x, y = a["value"], b["value"]
    if x is None or y is None:
        return x is None and y is None
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def check_definitions(b: Baseline, variant: Variant, result: CheckResult | None = None
                      ) -> tuple[CheckResult, set[str]]:
    """Compare every metric's value on the stored sample rows, today's code against the saving
    code's; returns the result (its `stale` reasons) and the names whose definition changed."""
    res = result or CheckResult(b.path, variant.name)
    if b.format in OLD_FORMATS:
        res.stale.append(f"saved by older code (baseline format {b.format} records no metric "
                         "definitions and no check design)")
        return res, set()
    now = definitions_of(sample_table(b), variant)
    changed: set[str] = set()
    recorded = {r["metric"] for r in b.data["metrics"]}
    for r in b.data["metrics"]:
        then = r.get("definition")
        if then is None:
            continue
        if r["metric"] not in now:
            changed.add(r["metric"])
            res.stale.append(f"{r['metric']}: metric definition changed (no longer produced on the "
                             "same games)")
        elif not _same(then, now[r["metric"]]):
            changed.add(r["metric"])
            t, n = then, now[r["metric"]]
            res.stale.append(f"{r['metric']}: metric definition changed (on the same "
                             f"{len(b.data['sample']['columns']['game'])} sampled games: "
                             f"{_show(t)} then, {_show(n)} now)")
    known = recorded | set(b.data.get("definitions", {}).get("new_metrics_on_sample", []))
    for name in sorted(set(now) - known):
        res.stale.append(f"{name}: new metric, not in the baseline")
    return res, changed


def _show(f: dict[str, Any]) -> str:
    if f["kind"] == "proportion":
        return f"{f['successes']} of {f['n']}"
    return "none" if f["value"] is None else f"{f['value']:.6g}"


def _row(r: dict[str, Any], role: str, level: float, value=float("nan"), p=float("nan"),
         status: str = "ok", note: str = "") -> dict[str, Any]:
    return {"metric": r["metric"], "kind": r["kind"], "test": r.get("test"), "role": role,
            "baseline": r["value"] if r["value"] is not None else float("nan"), "value": value,
            "p_value": p, "level": level, "status": status, "note": note}


def check_statistical(b: Baseline, variant: Variant, games: int | None = None,
                      seed: int | None = None, levels: drift.Levels | None = None,
                      jobs: int | None = None, result: CheckResult | None = None,
                      skip: set[str] = frozenset(), progress: bool = False) -> CheckResult:
    """Play fresh games and test every testable metric against the baseline (`sim.stats.drift`).
    `games`: default the baseline's design. Metrics in `skip` (definition changed) are left out."""
    from sim.runs import runner

    res = result or CheckResult(b.path, variant.name)
    d = b.data
    design = d.get("design", {})
    if levels is None:
        fd = design.get("false_drift", drift.FALSE_DRIFT)
        levels = drift.Levels(fd, design.get("alpha_primary", fd * drift.PRIMARY_SHARE) / fd)
    games = int(games or design.get("fresh_games") or d["games"])
    seed = int(d["seed"]) + 1 if seed is None else seed
    with tempfile.TemporaryDirectory(prefix="hexsim-check-") as tmp:
        run = runner.run(variant, games, seed=seed, jobs=jobs, out=Path(tmp) / "run", progress=progress)
        df = run.table()
    res.fresh_games = games
    res.games_per_second = run.manifest["timings"]["games_per_second"]
    now = {m.name: m for m in metrics.outcome_metrics(df, variant)}
    nb_games = int(d["games"])
    others = [r for r in d["metrics"] if r["metric"] != drift.PRIMARY and r.get("test")]
    lvl_other = levels.others / max(len(others), 1)  # testability: Holm's strictest step
    hist = d.get("histograms", {}).get("turns")
    rows = []
    for r in d["metrics"]:
        role = "primary" if r["metric"] == drift.PRIMARY else "other"
        level = levels.primary if role == "primary" else levels.others
        m = now.get(r["metric"])
        if r["metric"] in skip:
            rows.append(_row(r, role, level, status="definition changed", note="re-save"))
            continue
        test = r.get("test")
        if test is None:
            rows.append(_row(r, role, level, m.value if m else float("nan"), status="not tested",
                             note="no per-game test for this metric"))
            continue
        if test == "proportion":
            expect = r["n"] * games / nb_games
            if not drift.testable_prop(r["successes"], r["n"], expect,
                                       levels.primary if role == "primary" else lvl_other):
                rows.append(_row(r, role, level, m.value if m else float("nan"), status="not testable",
                                 note=f"rarer outcome {min(r['successes'], r['n'] - r['successes'])} "
                                      f"of {r['n']:,}: too few events at this size"))
                continue
            if m is None or m.kind != "proportion" or m.n == 0:
                rows.append(_row(r, role, level, p=0.0, status="drift",
                                 note=f"not produced by the fresh games (the baseline had {r['n']:,})"))
                continue
            p = float(drift.prop_p(r["successes"], r["n"], m.successes, m.n))
            rows.append(_row(r, role, level, m.value, p, note=f"{r['successes']} of {r['n']:,} -> "
                                                               f"{m.successes} of {m.n:,}"))
        elif test == "mean":
            if m is None or m.n < drift.MIN_MEAN_N or r["n"] < drift.MIN_MEAN_N:
                rows.append(_row(r, role, level, status="not testable", note="too few games"))
                continue
            sd_n = float(np.std(m.data, ddof=1))
            p = float(drift.mean_p(r["value"], r["sd"], r["n"], m.value, sd_n, m.n))
            rows.append(_row(r, role, level, m.value, p))
        elif test == "quantile":
            if m is None or hist is None:
                rows.append(_row(r, role, level, status="not testable", note="no histogram"))
                continue
            vb = np.asarray(hist["values"])
            vals = np.union1d(vb, np.unique(m.data))
            cb = np.zeros(vals.size, dtype=np.int64)
            cb[np.searchsorted(vals, vb)] = hist["counts"]
            u, c = np.unique(m.data, return_counts=True)
            cn = np.zeros(vals.size, dtype=np.int64)
            cn[np.searchsorted(vals, u)] = c
            p, sb, sn = drift.quantile_p(vals, cb, cn, r["q"])
            t = drift.pooled_threshold(vals, cb, cn, r["q"])
            rows.append(_row(r, role, level, m.value, float(p), note=f"share of games <= {t:g} turns "
                                                                     f"(pooled quantile) {sb:.4f} -> {sn:.4f}"))
    st = pd.DataFrame(rows)
    tested = st["status"] == "ok"
    prim = tested & (st["role"] == "primary")
    oth = tested & (st["role"] == "other")
    st["p_adjusted"] = np.nan
    st.loc[prim, "p_adjusted"] = st.loc[prim, "p_value"]
    if oth.any():
        st.loc[oth, "p_adjusted"] = metrics.holm(st.loc[oth, "p_value"].to_numpy())
    forced = st["status"] == "drift"  # a testable metric the fresh games no longer produce
    st["drifted"] = forced | (tested & (st["p_adjusted"] < st["level"]))
    st.loc[st["drifted"], "status"] = "drift"
    res.stats = st
    return res


def games_to_play(b: Baseline, exact: bool = True, statistical: bool = True, sample: int | None = None,
                  full: bool = False, games: int | None = None) -> tuple[int, int]:
    """(replayed, fresh): the games `check` plays for this baseline (definitions play none)."""
    stored = len(b.data["sample"]["columns"].get("game", []))
    replayed = (int(b.data["games"]) if full else min(stored, sample or stored)) if exact else 0
    design = b.data.get("design") or {}
    fresh = int(games or design.get("fresh_games") or b.data["games"]) \
        if statistical and b.format not in OLD_FORMATS else 0
    return replayed, fresh


def core_rate(b: Baseline, v: Variant, pilot: int = PILOT_CHECK) -> tuple[float, bool]:
    """(games per second on one core, measured now?): from the speed the baseline recorded when
    it was saved, else timed on a pilot of `pilot` games (after one game that compiles)."""
    t = b.data.get("timings") or {}
    if t.get("games_per_second") and t.get("jobs"):
        return float(t["games_per_second"]) / int(t["jobs"]), False
    seed = int(b.data["seed"])
    _play(v, 0, 1, seed)
    t0 = time.perf_counter()
    _play(v, 1, pilot, seed)
    return pilot / max(time.perf_counter() - t0, 1e-6), True


def estimate(pairs: Sequence[tuple[Baseline, Variant]], exact: bool = True, statistical: bool = True,
             sample: int | None = None, full: bool = False, games: int | None = None,
             jobs: int | None = None) -> str:
    """The line `check` prints before playing: how many games, and about how long (replays on
    one core, fresh games on `jobs`), from each baseline's recorded speed or a short pilot."""
    import os

    cores = jobs or os.cpu_count() or 1
    replayed = fresh = 0
    seconds, measured = 0.0, []
    for b, v in pairs:
        r, f = games_to_play(b, exact, statistical, sample, full, games)
        if r + f:
            rate, piloted = core_rate(b, v, max(10, min(PILOT_CHECK, (r + f) // 10)))
            measured.append(piloted)
            replayed, fresh, seconds = replayed + r, fresh + f, seconds + r / rate + f / (rate * cores)
    if not measured:
        return f"check: {len(pairs)} baseline(s), no games to play"
    source = " and ".join(filter(None, [
        f"the speed {measured.count(False)} baseline(s) recorded when saved" if not all(measured) else "",
        f"a short timed pilot of {sum(measured)} variant(s) on one core" if any(measured) else ""]))
    return (f"check: {len(pairs)} baseline(s), {replayed + fresh:,} games to play ({replayed:,} "
            f"replayed, {fresh:,} fresh on {cores} core(s)): about {display.duration(seconds)} "
            f"(an estimate from {source})")


def _levels_for(alpha: float | None) -> drift.Levels | None:
    if alpha is None:
        return None
    if not 0 < alpha < 1:
        raise UserError(f"--false-drift {alpha}: must be in (0, 1)")
    return drift.Levels(alpha)


def check(paths: Sequence[str | Path] | None = None, exact: bool = True, statistical: bool = True,
          sample: int | None = None, full: bool = False, games: int | None = None,
          seed: int | None = None, false_drift: float | None = None, jobs: int | None = None,
          progress: bool = False, definitions: bool = True, shipped: bool = False) -> CheckReport:
    """Check baselines: the given files and folders, with `shipped` those of the shipped variants
    (data/baselines); with neither, the working directory's ./baselines. Every file is read and
    its variant re-resolved before any game is played. `games` / `false_drift`: default each
    baseline's design. `progress`: first how many games and about how long (`estimate`), then
    a line per baseline (and the fresh run's bar) on stderr. `definitions=False`: a changed
    metric definition is not reported (the games alone)."""
    if not exact and not statistical and not definitions:
        raise UserError("check: nothing to do (--no-exact, --no-statistical and --no-definitions)")
    if games is not None and games < 1:
        raise UserError(f"--games {games}: must be at least 1")
    levels = _levels_for(false_drift)
    found = [read(p) for p in find_baselines(paths, shipped)]
    pairs = [(b, variant_of(b)) for b in found]
    if progress and pairs:
        print(estimate(pairs, exact, statistical, sample, full, games, jobs), file=sys.stderr, flush=True)
    results = []
    for i, (b, v) in enumerate(pairs, 1):
        t0 = time.perf_counter()
        if progress:
            print(f"[{i}/{len(pairs)}] {v.name}", file=sys.stderr, flush=True)
        res = CheckResult(b.path, v.name)
        if v.hash != b.data["variant"]["hash"]:
            res.variant_changed = _setup_diff(b.data["variant"].get("resolved", {}), v.resolved()) \
                or [f"hash {b.data['variant']['hash']} -> {v.hash}"]
        if exact:
            check_exact(b, v, sample, full, res)
        changed: set[str] = set()
        if definitions:
            _, changed = check_definitions(b, v, res)
        if statistical and b.format not in OLD_FORMATS:
            check_statistical(b, v, games, seed, levels, jobs, res, skip=changed, progress=progress)
        results.append(res)
        if progress:
            rate = (f", {res.fresh_games:,} fresh games at {res.games_per_second:,.0f} games/s"
                    if res.games_per_second else "")
            print(f"[{i}/{len(pairs)}] {v.name}: {res.status} ({time.perf_counter() - t0:.1f} s{rate})",
                  file=sys.stderr, flush=True)
    return CheckReport(results)
