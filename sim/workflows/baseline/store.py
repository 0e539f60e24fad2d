"""Regression baselines, stored: what a baseline records and how it is saved and read
(`hexsim baseline save VARIANT...` or `--shipped`); the check is in check.py.

A baseline (JSON, `<folder>/<game>/<name>.json`: data/baselines for hexsim's shipped variants,
./baselines under the working directory for any other) records how a variant played: the variant
by spec (shipped `game/name` or a path, re-resolved from its file as it is now at check time),
its hash and resolved set-up, games, run seed, code version, a digest of the exact outcome table,
the design of its statistical check (`design`: fresh games, levels, measured error rates; see
`sim.stats.drift`), every metric with what the check tests, and a sample of outcome rows: its first
games plus the first few games of every (end reason, winner, first seat) outcome and of every
column's extremes, so rare outcomes are in it too.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import display, stats
from sim.errors import UserError
from sim.runs.variants import Variant, find, load, name_of
from sim.stats import drift, metrics

ROOT = Path(__file__).resolve().parents[3]
BASELINES_DIR = ROOT / "data" / "baselines"  # the shipped variants' baselines (hexsim's own)
LOCAL_DIR = Path("baselines")  # any other variant's: under the working directory
FORMAT = 2
OLD_FORMATS = (1,)  # read for the exact check; reported as "re-save"
SAMPLE = 200  # first games whose outcomes are stored for the exact check and the definitions
PER_OUTCOME = 3  # further games of every (end reason, winner, first seat) outcome
EXTRA = 150  # at most this many further games
PILOT = 3000  # games played to choose a baseline's size
SMALL_CHECK = 500  # fresh games of the small statistical check (`make test`)
PILOT_CHECK = 200  # at most this many games timed to estimate a check (a baseline with no speed)
ID_COLUMNS = ("variant", "variant_hash")  # names, not outcomes: left out of the digest
RESAVE = "hexsim baseline save --shipped"


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


def jsonable(values: pd.Series) -> list:
    if isinstance(values.dtype, pd.CategoricalDtype) or values.dtype == object:
        return values.astype(str).tolist()
    return values.to_numpy().tolist()


def sample_rows(df: pd.DataFrame, first: int = SAMPLE, per_outcome: int = PER_OUTCOME,
                extra: int = EXTRA) -> np.ndarray:
    """Row positions of the sample: the first `first` games, then (at most `extra` more) the
    first `per_outcome` games of every (end reason, winner, first seat) outcome and the first
    game at each column's minimum and maximum, in game order."""
    df = df[df["rotation"] == 0]
    head = list(range(min(first, len(df))))
    seen = set(head)
    more: list[int] = []

    def add(pos):
        for i in pos:
            if len(more) >= extra:
                return
            if i not in seen:
                seen.add(i)
                more.append(int(i))

    keys = df[["end_reason", "winner", "first_seat"]].astype(str).agg("|".join, axis=1).to_numpy()
    _, first_of = np.unique(keys, return_index=True)
    for i in np.sort(first_of):
        add(np.flatnonzero(keys == keys[i])[:per_outcome])
    for c in outcome_columns(df):
        col = df[c]
        if c in ("game", "seed") or not pd.api.types.is_numeric_dtype(col) or col.dtype == bool:
            continue
        v = col.to_numpy()
        add([int(np.argmin(v)), int(np.argmax(v))])
    return np.array(head + sorted(more), dtype=np.int64)


def sample_of(df: pd.DataFrame, rows: np.ndarray, first: int) -> dict[str, Any]:
    """The stored sample: outcome columns of the given rows (the first `first` of them the
    table's first games), with each column's dtype (and categories) so the rows can be rebuilt
    as the table held them."""
    part = df[df["rotation"] == 0].iloc[rows]
    dtypes, cats = {}, {}
    for c in outcome_columns(part):
        if isinstance(part[c].dtype, pd.CategoricalDtype):
            dtypes[c] = "category"
            cats[c] = [str(x) for x in part[c].cat.categories]
        else:
            dtypes[c] = str(part[c].dtype)
    return {"games": len(part), "first_games": int(min(first, len(part))),
            "columns": {c: jsonable(part[c]) for c in outcome_columns(part)},
            "dtypes": dtypes, "categories": cats}


def sample_table(b: Baseline) -> pd.DataFrame:
    """The stored sample rows as a table (dtypes as the run wrote them)."""
    s = b.data["sample"]
    v = b.data["variant"]
    n = len(next(iter(s["columns"].values()), []))
    frame: dict[str, Any] = {"variant": pd.Categorical([v["name"]] * n),
                             "variant_hash": pd.Categorical([v["hash"]] * n)}
    for c, vals in s["columns"].items():
        dt = s.get("dtypes", {}).get(c)
        if dt == "category":
            frame[c] = pd.Categorical(vals, categories=s["categories"][c])
        elif dt is not None:
            frame[c] = np.asarray(vals, dtype=dt)
        else:
            frame[c] = np.asarray(vals)
    return pd.DataFrame(frame)


# ---- metric records ---------------------------------------------------------------------------
def _plain(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def tested_as(m: metrics.Metric, games: int) -> str | None:
    """How the check tests a metric: proportion, mean, quantile, or None (not tested: a game
    value known only through a bootstrap, or a rate over several events per game)."""
    if m.kind == "proportion":
        return "proportion" if m.n <= games else None
    if m.kind == "mean":
        return "mean"
    if m.kind == "quantile":
        return "quantile"
    return None


def _fingerprint(m: metrics.Metric) -> dict[str, Any]:
    return {"kind": m.kind, "value": _plain(float(m.value)), "n": int(m.n),
            "successes": None if m.successes is None else int(m.successes)}


def definitions_of(df: pd.DataFrame, variant: Variant) -> dict[str, dict[str, Any]]:
    """Every metric today's code computes on `df` (the sample rows): its definition's fingerprint."""
    return {m.name: _fingerprint(m) for m in metrics.outcome_metrics(df, variant)}


def metric_records(df: pd.DataFrame, variant: Variant) -> list[dict[str, Any]]:
    games = len(df)
    rows = []
    for m in metrics.outcome_metrics(df, variant):
        r: dict[str, Any] = {"metric": m.name, "kind": m.kind, "value": float(m.value), "n": int(m.n),
                             "successes": None if m.successes is None else int(m.successes),
                             "test": tested_as(m, games), "fair": m.fair}
        if m.kind == "proportion" and m.n:
            ci = stats.wilson(m.successes, m.n)
            r["ci_low"], r["ci_high"] = ci.low, ci.high
        if m.kind in ("mean", "quantile"):
            r["sd"] = float(np.std(m.data, ddof=1)) if m.n > 1 else 0.0
        if m.kind == "quantile":
            r["q"], r["column"] = m.q, "turns"
        rows.append({k: _plain(v) for k, v in r.items()})
    return rows


def histogram(x: np.ndarray) -> dict[str, list]:
    vals, counts = np.unique(np.asarray(x, dtype=np.float64), return_counts=True)
    return {"values": vals.tolist(), "counts": counts.astype(int).tolist()}


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


def is_shipped(variant: Variant) -> bool:
    """A variant file of hexsim's own (under its variants/ folder), not a plug-in's or a designer's."""
    from sim.runs.variants import VARIANTS_DIR

    return variant.path is not None and variant.path.resolve().is_relative_to(VARIANTS_DIR.resolve())


def default_path(variant: Variant, folder: str | Path | None = None) -> Path:
    """`folder/<game>/<name>.json`; without a folder, data/baselines for a shipped variant and
    ./baselines (under the working directory) for any other: never hexsim's own tree."""
    game, _, stem = variant.name.partition("/")
    if folder is None:
        folder = BASELINES_DIR if is_shipped(variant) else LOCAL_DIR
    return Path(folder) / game / f"{stem}.json"


@dataclass
class Baseline:
    path: Path
    data: dict[str, Any]

    @property
    def format(self) -> int:
        return int(self.data.get("hexsim_baseline", 0))

    def __repr__(self) -> str:
        d = self.data
        return display.text(f"Baseline {d['variant']['name']}: {d['games']:,} games, seed {d['seed']}, "
                            f"saved {d.get('created', '?')}", [f"file: {self.path}"])


def _rates(df: pd.DataFrame) -> tuple[float, float]:
    """First mover's share of decisive games, and the decisive rate."""
    winner, first = df["winner"].to_numpy(), df["first_seat"].to_numpy()
    dec = winner >= 0
    return (float((winner == first)[dec].mean()) if dec.any() else 0.5), float(dec.mean())


def choose_games(variant: Variant, seed: int = 0, jobs: int | None = None,
                 levels: drift.Levels = drift.DESIGN, pilot: int = PILOT) -> int:
    """Games for a baseline of this variant: a pilot run estimates the first mover's share and
    the decisive rate (each taken 2 standard errors towards the harder case), then
    `drift.design_games` gives the smallest size with the power the design asks."""
    from sim.runs import runner

    with tempfile.TemporaryDirectory(prefix="hexsim-pilot-") as tmp:
        df = runner.run(variant, pilot, seed=seed, jobs=jobs, out=Path(tmp) / "run", progress=False).table()
    p, dec = _rates(df)
    d = max(dec * len(df), 1)
    p = p + np.sign(0.5 - p) * min(abs(0.5 - p), 2 * math.sqrt(p * (1 - p) / d))
    dec = max(dec - 2 * math.sqrt(dec * (1 - dec) / len(df)), 0.5 / len(df))
    return drift.design_games(p, dec, levels)


def make_baseline(variant: Variant, games: int | None = None, seed: int = 0, sample: int = SAMPLE,
                  jobs: int | None = None, progress: bool = False) -> dict[str, Any]:
    """Play the variant and build the baseline record (nothing written). `games=None`: the
    size the design needs (`choose_games`)."""
    from sim import __version__
    from sim.runs import runner
    from sim.runs.runner import git_commit

    if variant.overrides:
        raise UserError(f"{variant.name}: a baseline records a variant file as it is; "
                        "overrides are not allowed")
    if games is None:
        games = choose_games(variant, seed, jobs)
    with tempfile.TemporaryDirectory(prefix="hexsim-baseline-") as tmp:
        run = runner.run(variant, games, seed=seed, jobs=jobs, out=Path(tmp) / "run", progress=progress)
        df = run.table()
    rows = sample_rows(df, first=sample)
    smp = sample_of(df, rows, sample)
    probe = definitions_of(sample_table(Baseline(Path("."), {"sample": smp, "variant": {
        "name": variant.name, "hash": variant.hash}})), variant)
    mrecs = metric_records(df, variant)
    for r in mrecs:
        r["definition"] = probe.get(r["metric"])
    p, dec = _rates(df)
    return {
        "hexsim_baseline": FORMAT,
        "variant": {"spec": spec_of(variant), "name": variant.name, "hash": variant.hash,
                    "resolved": variant.resolved()},
        "games": games,
        "seed": seed,
        "code": {"package_version": __version__, "git_commit": git_commit()},
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "timings": {k: run.manifest["timings"].get(k) for k in ("games_per_second", "jobs")},
        "table_digest": table_digest(df),
        "design": drift.design_record(p, dec, games),
        "histograms": {"turns": histogram(df["turns"].to_numpy())},
        "definitions": {"new_metrics_on_sample": sorted(set(probe) - {r["metric"] for r in mrecs})},
        "metrics": mrecs,
        "sample": smp,
    }


def save(variants: Sequence[str | Variant], games: int | None = None, seed: int = 0,
         out: str | Path | None = None, sample: int = SAMPLE, jobs: int | None = None,
         progress: bool = False) -> list[Baseline]:
    """Save one baseline per variant: to `out` when it is a .json file (one variant), under `out`
    when it is a folder, else to each variant's `default_path` (shipped variants in
    data/baselines, others in ./baselines). `games=None`: each variant gets the size its design
    needs."""
    from sim.runs import tables

    loaded = [v if isinstance(v, Variant) else load(v) for v in variants]
    if not loaded:
        raise UserError("baseline save: name at least one variant")
    to_file = out is not None and Path(out).suffix == ".json"
    if to_file and len(loaded) > 1:
        raise UserError("--out FILE.json: only with a single variant (give a folder for several)")
    if (games is not None and games < 1) or sample < 1:
        raise UserError("--games and --sample must be at least 1")
    saved = []
    for i, v in enumerate(loaded, 1):
        t0 = time.perf_counter()
        data = make_baseline(v, games, seed, sample, jobs, progress)
        path = Path(out) if to_file else default_path(v, out)
        tables.write_json(path, data)
        saved.append(Baseline(path, data))
        if progress:
            wall = time.perf_counter() - t0
            print(f"[{i}/{len(loaded)}] {v.name}: {data['games']:,} games in {wall:.0f} s "
                  f"(power {data['design']['power']:.3f} at a {drift.SHIFT:g} change of the "
                  f"first mover's share)", file=sys.stderr, flush=True)
    return saved


def save_shipped(games: int | None = None, seed: int = 0, jobs: int | None = None,
                 progress: bool = False) -> list[Baseline]:
    """Baselines for every shipped variant (the committed ones under data/baselines) and every
    variant in the HEXSIM_VARIANTS folders."""
    from sim.runs.variants import list_shipped

    return save(list_shipped(), games, seed, jobs=jobs, progress=progress)


def read(path: str | Path) -> Baseline:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: no such baseline file") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: not a baseline (bad JSON: {e})") from None
    need = ("variant", "games", "seed", "table_digest", "sample", "metrics")
    if not isinstance(data, dict) or data.get("hexsim_baseline") not in (FORMAT, *OLD_FORMATS) or any(
            k not in data for k in need):
        raise UserError(f"{path}: not a hexsim baseline (format {FORMAT} with keys "
                        f"{', '.join(need)})")
    return Baseline(path, data)


def find_baselines(paths: Sequence[str | Path] | None = None, shipped: bool = False) -> list[Path]:
    """Baseline files: the given files, every *.json under given folders, and with `shipped`
    those of the shipped variants (data/baselines); with neither, the working directory's
    ./baselines."""
    paths = [*(paths or []), *([BASELINES_DIR] if shipped else [])]
    if not paths and not LOCAL_DIR.is_dir():
        raise UserError(f"check: no {LOCAL_DIR}/ folder here ({Path.cwd()}): name baseline files or "
                        "folders, or give --shipped for the shipped variants' baselines")
    out: list[Path] = []
    for p in map(Path, paths or [LOCAL_DIR]):
        if p.is_dir():
            out += sorted(p.rglob("*.json"))
        elif p.is_file():
            out.append(p)
        else:
            raise UserError(f"{p}: no such baseline file or folder")
    return out


def joint_pass(paths: Sequence[str | Path] | None = None) -> tuple[int, float]:
    """(count, probability): how many baselines there are (default: the committed ones) and the
    probability, at least, that all of them pass the statistical check together while nothing
    changed (`drift.joint_pass` over the false-drift rate each file's design states)."""
    found = [read(p) for p in find_baselines(paths, shipped=paths is None)]
    rates = [b.data.get("design", {}).get("false_drift", drift.FALSE_DRIFT) for b in found]
    return len(found), drift.joint_pass(rates)


def variant_of(b: Baseline) -> Variant:
    spec = b.data["variant"]["spec"]
    p = Path(spec)
    if not p.is_absolute() and (ROOT / p).is_file():
        spec = str(ROOT / p)
    try:
        return load(spec)
    except UserError as e:
        raise UserError(f"{b.path}: its variant cannot be loaded: {e}") from None
