"""Regression baselines: `hexsim baseline save VARIANT...` and `hexsim check [PATHS]`.

A baseline (JSON, `data/baselines/<game>/<name>.json`) records how a variant played: the variant
by spec (shipped `game/name` or a path, re-resolved from its file as it is now at check time),
its hash and resolved set-up, games, run seed, code version, a digest of the exact outcome table,
the outcome columns of its first games (the exact sample) and every metric with its interval.

`check` verifies each baseline two ways:
- exact: re-plays the sampled games (one contiguous range, one `play_chunk` call) and names the
  first games whose winner, turns, scores or other columns differ (`full=True` re-plays every
  game and compares the table digest);
- statistical: plays fresh seeds (run seed + 1 unless given) and tests every metric against the
  baseline with a tolerance (two one-sided tests of "moved by more than the tolerance"), Holm
  correction across the metrics of the baseline.
"""

from __future__ import annotations

import hashlib
import json
import math
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from sim import metrics
from sim.errors import UserError
from sim.variants import Variant, find, load, name_of

ROOT = Path(__file__).resolve().parent.parent
BASELINES_DIR = ROOT / "data" / "baselines"
FORMAT = 1
SAMPLE = 200  # games whose outcomes are stored for the exact check
ID_COLUMNS = ("variant", "variant_hash")  # names, not outcomes: left out of the digest


# ---- table digest and sample ------------------------------------------------------------------
def outcome_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if c not in ID_COLUMNS]


def table_digest(df: pd.DataFrame) -> str:
    """sha256 over every outcome column (name, dtype, values) in table order."""
    h = hashlib.sha256()
    for c in outcome_columns(df):
        col = df[c]
        h.update(c.encode() + b"\0")
        if isinstance(col.dtype, pd.CategoricalDtype) or col.dtype == object:
            h.update(b"str\0" + "\0".join(col.astype(str)).encode())
        else:
            arr = np.ascontiguousarray(col.to_numpy())
            h.update(str(arr.dtype).encode() + b"\0" + arr.tobytes())
    return "sha256:" + h.hexdigest()


def _jsonable(values: pd.Series) -> list:
    if isinstance(values.dtype, pd.CategoricalDtype) or values.dtype == object:
        return values.astype(str).tolist()
    return values.to_numpy().tolist()


def sample_of(df: pd.DataFrame, k: int) -> dict[str, list]:
    head = df[df["rotation"] == 0].head(k)
    return {c: _jsonable(head[c]) for c in outcome_columns(head)}


# ---- save --------------------------------------------------------------------------------------
def spec_of(variant: Variant) -> str:
    """How `check` finds the variant again: `game/name` when shipped or on HEXSIM_VARIANTS, else a
    path (relative to the repository when inside it)."""
    if variant.path is None:
        raise UserError(f"{variant.name}: a baseline needs a variant loaded from a file")
    p = variant.path.resolve()
    if name_of(p) is not None and find(variant.name).resolve() == p:  # not a shadowed name
        return variant.name
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def default_path(variant: Variant) -> Path:
    game, _, stem = variant.name.partition("/")
    return BASELINES_DIR / game / f"{stem}.json"


@dataclass
class Baseline:
    path: Path
    data: dict[str, Any]


def make_baseline(variant: Variant, games: int, seed: int = 0, sample: int = SAMPLE,
                  jobs: int | None = None, progress: bool = False) -> dict[str, Any]:
    """Play the variant and build the baseline record (nothing written)."""
    import sim
    from sim.runner import git_commit

    if variant.overrides:
        raise UserError(f"{variant.name}: a baseline records a variant file as it is; "
                        "overrides are not allowed")
    with tempfile.TemporaryDirectory(prefix="hexsim-baseline-") as tmp:
        run = sim.run(variant, games, seed=seed, jobs=jobs, out=Path(tmp) / "run", progress=progress)
        df = run.table()
    mt = metrics.metric_table(df, variant, seed=seed)
    return {
        "hexsim_baseline": FORMAT,
        "variant": {"spec": spec_of(variant), "name": variant.name, "hash": variant.hash,
                    "resolved": variant.resolved()},
        "games": games,
        "seed": seed,
        "code": {"package_version": sim.__version__, "git_commit": git_commit()},
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "table_digest": table_digest(df),
        "sample": {"first_game": 0, "games": min(sample, games), "columns": sample_of(df, sample)},
        "metrics": [{k: _plain(v) for k, v in r.items()} for r in mt.to_dict("records")],
    }


def _plain(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def save(variants: Sequence[str | Variant], games: int, seed: int = 0, out: str | Path | None = None,
         sample: int = SAMPLE, jobs: int | None = None, progress: bool = False) -> list[Baseline]:
    """Save one baseline per variant (to `out` when one variant, else the default paths)."""
    from sim import tables

    loaded = [v if isinstance(v, Variant) else load(v) for v in variants]
    if not loaded:
        raise UserError("baseline save: name at least one variant")
    if out is not None and len(loaded) > 1:
        raise UserError("--out FILE: only with a single variant (several go to data/baselines)")
    if games < 1 or sample < 1:
        raise UserError("--games and --sample must be at least 1")
    saved = []
    for v in loaded:
        data = make_baseline(v, games, seed, sample, jobs, progress)
        path = Path(out) if out is not None else default_path(v)
        tables.write_json(path, data)
        saved.append(Baseline(path, data))
    return saved


def save_shipped(games: int, seed: int = 0, jobs: int | None = None) -> list[Baseline]:
    """Baselines for every shipped variant (the committed ones under data/baselines) and every
    variant in the HEXSIM_VARIANTS folders."""
    from sim.variants import list_shipped

    return save(list_shipped(), games, seed, jobs=jobs)


def read(path: str | Path) -> Baseline:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: no such baseline file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: not a baseline (bad JSON: {e})") from None
    need = ("variant", "games", "seed", "table_digest", "sample", "metrics")
    if not isinstance(data, dict) or data.get("hexsim_baseline") != FORMAT or any(
            k not in data for k in need):
        raise UserError(f"{path}: not a hexsim baseline (format {FORMAT} with keys "
                        f"{', '.join(need)})")
    return Baseline(path, data)


def find_baselines(paths: Sequence[str | Path] | None = None) -> list[Path]:
    """Baseline files: the given files, every *.json under given folders, or data/baselines."""
    paths = list(paths or [BASELINES_DIR])
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(p.rglob("*.json"))
        elif p.is_file():
            out.append(p)
        else:
            raise UserError(f"{p}: no such baseline file or folder")
    return out


def _resolve(b: Baseline) -> Variant:
    spec = b.data["variant"]["spec"]
    p = Path(spec)
    if not p.is_absolute() and (ROOT / p).is_file():
        spec = str(ROOT / p)
    try:
        return load(spec)
    except UserError as e:
        raise UserError(f"{b.path}: its variant cannot be loaded: {e}") from None


# ---- check -------------------------------------------------------------------------------------
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
    stats: pd.DataFrame | None = None  # one row per metric (statistical check)

    @property
    def exact_ok(self) -> bool:
        return not self.exact_differing

    @property
    def stats_ok(self) -> bool:
        return self.stats is None or not self.stats["drifted"].any()

    @property
    def ok(self) -> bool:
        return self.exact_ok and self.stats_ok

    def summary(self) -> str:
        lines = [f"{'ok  ' if self.ok else 'DRIFT'} {self.variant} ({self.path})"]
        for d in self.variant_changed:
            lines.append(f"    variant file changed since the baseline: {d}")
        if self.exact_games:
            what = "all games (table digest)" if self.digest_checked else f"games 0-{self.exact_games - 1}"
            if self.exact_ok:
                lines.append(f"    exact: {what} replay identically")
            else:
                why = ("the variant file changed" if self.variant_changed
                       else "the rules code changed behaviour")
                lines.append(f"    exact: {self.exact_differing} of {self.exact_games} games differ "
                             f"({why}); first:")
                lines += [f"      {m}" for m in self.exact_mismatches]
        if self.stats is not None:
            bad = self.stats[self.stats["drifted"]]
            lines.append(f"    statistical: {len(self.stats) - len(bad)} of {len(self.stats)} "
                         f"metrics hold (fresh seed, Holm-adjusted)")
            for r in bad.to_dict("records"):
                lines.append(f"      {r['metric']}: baseline {r['baseline']:.4g}, now {r['value']:.4g} "
                             f"(tolerance {r['tolerance']:.3g}, p_adj {r['p_adjusted']:.3g})"
                             + (f"; {r['note']}" if r["note"] else ""))
        return "\n".join(lines)


@dataclass
class CheckReport:
    results: list[CheckResult]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def summary(self) -> str:
        bad = sum(not r.ok for r in self.results)
        tail = (f"{len(self.results)} baselines hold" if not bad
                else f"{bad} of {len(self.results)} baselines drifted")
        return "\n".join([r.summary() for r in self.results] + [tail])

    def junit_xml(self, path: str | Path) -> Path:
        """JUnit XML for CI systems: a suite per baseline, a case per check and metric."""
        suites = ET.Element("testsuites", name="hexsim check")
        for r in self.results:
            cases = []
            if r.exact_games:
                msg = None if r.exact_ok else f"{r.exact_differing} of {r.exact_games} games differ"
                cases.append(("exact replay", msg, "\n".join(r.variant_changed + r.exact_mismatches)))
            if r.stats is not None:
                for s in r.stats.to_dict("records"):
                    msg = (f"{s['metric']}: baseline {s['baseline']:.6g}, now {s['value']:.6g}, "
                           f"tolerance {s['tolerance']:.3g}, p_adj {s['p_adjusted']:.3g}"
                           if s["drifted"] else None)
                    cases.append((f"metric {s['metric']}", msg, ""))
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
    from sim.runner import play_range

    return play_range(variant, first, n, seed)


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
    now_vals = {c: _jsonable(now[c]) for c in cols}
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
    if full:
        from sim import runner

        chunk = runner.default_chunk(d["games"], 1)
        now = pd.concat([_play(variant, f, min(chunk, d["games"] - f), seed)
                         for f in range(0, d["games"], chunk)], ignore_index=True)
        res.digest_checked = True
        res.exact_games = int(d["games"])
        stored = d["sample"]["columns"]
        if table_digest(now) != d["table_digest"]:
            k = len(next(iter(stored.values()), []))
            count, lines = exact_differences(stored, now.head(k), seat_names=variant.seat_names)
            res.exact_differing = max(count, 1)
            res.exact_mismatches = lines or [
                f"table digest {d['table_digest'][:19]}... -> {table_digest(now)[:19]}...: "
                f"the first {k} games agree, a later game differs"]
        return res
    stored = d["sample"]["columns"]
    k = len(next(iter(stored.values()), []))
    k = min(k, sample) if sample else k
    stored = {c: v[:k] for c, v in stored.items()}
    now = _play(variant, 0, k, seed)
    res.exact_games = k
    res.exact_differing, res.exact_mismatches = exact_differences(stored, now,
                                                                  seat_names=variant.seat_names)
    return res


def tolerance_p(row: dict[str, Any], m: metrics.Metric, tol: float, rel_tol: float
                ) -> tuple[float, float, str]:
    """p-value of "this metric moved away from the baseline by more than its tolerance"
    (two one-sided tests, Bonferroni over the two sides), the tolerance used and a note.

    Proportions: absolute tolerance `tol`. A quantile Q is tested through the share of games at
    most Q long (a proportion, tolerance `tol`). Means and game values: `rel_tol` x |baseline|."""
    kind = row["kind"]
    if kind == "proportion" or kind == "quantile":
        if kind == "proportion":
            kb, nb, kn, nn = row["successes"], row["n"], m.successes, m.n
        else:  # the share of games at most the baseline quantile long, before and now
            kb, nb = row["cdf_successes"], row["n"]
            kn, nn = int((m.data <= row["value"]).sum()), m.n
        if not nb or not nn:
            return float("nan"), tol, "no games"
        up = metrics.prop_test(kn, nn, kb, nb, value=tol, alternative="larger")
        down = metrics.prop_test(kn, nn, kb, nb, value=-tol, alternative="smaller")
        note = "" if kind == "proportion" else \
            f"share of games <= {row['value']:g} turns {kb / nb:.3f} -> {kn / nn:.3f}"
        return min(1.0, 2 * min(up, down)), tol, note
    t = rel_tol * abs(row["value"])
    if kind == "mean":
        sd_n = float(np.std(m.data, ddof=1)) if m.n > 1 else 0.0
        sd_b = row["sd"] or 0.0
        se = math.sqrt(sd_n**2 / m.n + sd_b**2 / row["n"])
    else:  # value: bootstrap standard errors of both sides
        se = math.sqrt((row.get("se") or 0.0) ** 2 + (row.get("se_now") or 0.0) ** 2)
    diff = m.value - row["value"]
    if se == 0:
        return (0.0 if abs(diff) > t else 1.0), t, "no spread"
    if kind == "mean" and m.n > 1 and row["n"] > 1:
        # Welch's test of |diff| > t, one side at a time, from summary statistics (scipy)
        ps = [sps.ttest_ind_from_stats(m.value - s * t, sd_n, m.n, row["value"], sd_b, row["n"],
                                       equal_var=False, alternative=alt).pvalue
              for s, alt in ((1, "greater"), (-1, "less"))]
        return min(1.0, 2 * float(np.nanmin(ps))), t, ""
    up, down = sps.norm.sf((diff - t) / se), sps.norm.cdf((diff + t) / se)
    return min(1.0, 2 * float(min(up, down))), t, ""


def check_statistical(b: Baseline, variant: Variant, games: int | None = None,
                      seed: int | None = None, tolerance: float = 0.01, rel_tolerance: float = 0.02,
                      alpha: float = 0.01, jobs: int | None = None,
                      result: CheckResult | None = None) -> CheckResult:
    import sim

    res = result or CheckResult(b.path, variant.name)
    d = b.data
    games = int(games or d["games"])
    seed = int(d["seed"]) + 1 if seed is None else seed
    with tempfile.TemporaryDirectory(prefix="hexsim-check-") as tmp:
        df = sim.run(variant, games, seed=seed, jobs=jobs, out=Path(tmp) / "run",
                     progress=False).table()
    ms = metrics.outcome_metrics(df, variant)
    metrics.attach_value_replicates(ms, df, variant, np.random.default_rng(seed))
    now = {m.name: m for m in ms}
    rows = []
    for r in d["metrics"]:
        m = now.get(r["metric"])
        if m is None or m.kind != r["kind"]:
            rows.append({"metric": r["metric"], "kind": r["kind"], "baseline": r["value"],
                         "value": float("nan"), "tolerance": 0.0, "p_value": 0.0,
                         "note": "metric no longer produced"})
            continue
        r = dict(r)
        if r["kind"] == "value":
            r["se_now"] = float(np.nanstd(m.reps, ddof=1))
        p, tol, note = tolerance_p(r, m, tolerance, rel_tolerance)
        rows.append({"metric": r["metric"], "kind": r["kind"], "baseline": r["value"],
                     "value": m.value, "tolerance": tol, "p_value": p, "note": note})
    st = pd.DataFrame(rows)
    st["p_adjusted"] = metrics.holm(st["p_value"])
    st["drifted"] = st["p_adjusted"] < alpha
    res.stats = st
    return res


def check(paths: Sequence[str | Path] | None = None, exact: bool = True, statistical: bool = True,
          sample: int | None = None, full: bool = False, games: int | None = None,
          seed: int | None = None, tolerance: float = 0.01, rel_tolerance: float = 0.02,
          alpha: float = 0.01, jobs: int | None = None) -> CheckReport:
    """Check baselines (default: every one under data/baselines). Every file is read and its
    variant re-resolved before any game is played."""
    if not exact and not statistical:
        raise UserError("check: nothing to do (both --no-exact and --no-statistical)")
    found = [read(p) for p in find_baselines(paths)]
    pairs = [(b, _resolve(b)) for b in found]
    results = []
    for b, v in pairs:
        res = CheckResult(b.path, v.name)
        if v.hash != b.data["variant"]["hash"]:
            res.variant_changed = _setup_diff(b.data["variant"].get("resolved", {}), v.resolved()) \
                or [f"hash {b.data['variant']['hash']} -> {v.hash}"]
        if exact:
            check_exact(b, v, sample, full, res)
        if statistical:
            check_statistical(b, v, games, seed, tolerance, rel_tolerance, alpha, jobs, res)
        results.append(res)
    return CheckReport(results)
