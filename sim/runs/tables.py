"""Outcome tables: one row per game, stored as Parquet parts under `<run>/games/`.

Column order: the runner's identity columns, then the game's contract columns
(`first_seat, winner, end_reason, turns, score_<seat>`), then game-specific `<game>_*` columns.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.errors import UserError

GAMES_DIR = "games"
MANIFEST = "manifest.json"


def part_name(rotation: int, first_game: int) -> str:
    """Names sort in table order: by rotation, then by first game index."""
    return f"part-r{rotation:02d}-{first_game:012d}.parquet"


def atomic_write_bytes(path: Path, write) -> None:
    """Write through a temp file in the same folder, then rename: never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name, suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_part(path: Path, frame: pd.DataFrame) -> None:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    atomic_write_bytes(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def part_record(path: Path, rows: int) -> dict[str, Any]:
    """What the manifest keeps of a finished part: its games, size and sha256, so that a part
    cut short, damaged or swapped later is told from the one the run wrote."""
    return {"rows": int(rows), "bytes": path.stat().st_size, "sha256": _sha256(path)}


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def expected_parts(manifest: dict[str, Any]) -> dict[str, int] | None:
    """Part name -> games of every part the manifest's run is made of (None when the manifest
    does not say how it was chunked, e.g. a table written by other tools)."""
    try:
        games, chunk = int(manifest["games"]), int(manifest["chunk_size"])
        rotations = int(manifest.get("rotations") or 1)
    except (KeyError, TypeError, ValueError):
        return None
    if chunk < 1:
        return None
    return {part_name(r, first): min(chunk, games - first)
            for r in range(rotations) for first in range(0, games, chunk)}


def part_problem(path: Path, rows: int | None, record: dict[str, Any] | None) -> str | None:
    """What is wrong with a part on disk (None: nothing). `rows`: the games it must hold, if
    known; `record`: what the manifest kept when it was written (runs made before parts were
    recorded have none: then only readability and the number of games are checked)."""
    if record is not None:
        why = _record_problem(path, record)
        have = int(record.get("rows", -1))
    else:
        why, have = _parquet_problem(path)
    if why is None and rows is not None and have != rows:
        why = f"holds {have:,} games, the run needs {rows:,} there"
    return why


def _record_problem(path: Path, record: dict[str, Any]) -> str | None:
    size, want = path.stat().st_size, record.get("bytes")
    if want is not None and size < want:
        return f"truncated ({size:,} of {want:,} bytes)"
    if want is not None and size != want:
        return f"not the part this run wrote ({size:,} bytes; it wrote {want:,})"
    if _sha256(path) != record.get("sha256"):
        return "not the part this run wrote (its sha256 differs: damaged or replaced)"
    return None


def _parquet_problem(path: Path) -> tuple[str | None, int]:
    try:
        return None, pq.read_metadata(path).num_rows
    except (pa.ArrowException, OSError) as e:
        return f"not a readable Parquet file ({one_line(e)})", -1


def one_line(exc: BaseException) -> str:
    """A library's error as one line: its type and the first line of its message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def part_problems(files: Iterable[Path], manifest: dict[str, Any]) -> dict[Path, str]:
    """The files of a run's table that are not the parts its manifest describes, and why:
    unlisted or foreign, cut short, damaged, unreadable, or holding another number of games."""
    layout = expected_parts(manifest)
    records = manifest.get("parts")
    found = {}
    for path in files:
        name = Path(path).name
        if layout is not None and name not in layout:
            why = "not a part of this run (a file from elsewhere?)"
        elif isinstance(records, dict) and name not in records:
            why = f"not listed in {MANIFEST} (written after its last update, or from elsewhere)"
        else:
            record = records.get(name) if isinstance(records, dict) else None
            why = part_problem(Path(path), layout.get(name) if layout else None, record)
        if why:
            found[Path(path)] = why
    return found


def verified(files: list[Path], manifest: dict[str, Any]) -> list[Path]:
    """The files, if every one is a sound part of the run; else a one-line error naming the
    first bad one (a report or listing never reads a damaged table)."""
    for path, why in part_problems(files, manifest).items():
        raise UserError(f"{path}: {why}; rerun the same `hexsim run` command to repair the run")
    return files


def make_dir(path: Path, flag: str = "--out") -> Path:
    """Create an output folder, or a one-line error naming the flag (not a traceback)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"{flag} {path}: cannot create the folder: {e.strerror or e}") from None
    return path


def write_json(path: Path, data: dict[str, Any]) -> None:
    def write(tmp):
        with open(tmp, "w") as f:
            json.dump(data, f, indent=2, sort_keys=False, default=_json_default)
            f.write("\n")
    atomic_write_bytes(path, write)


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def read_manifest(run_dir: str | Path) -> dict[str, Any]:
    """The run's manifest; a missing, unreadable, half-written or non-object one is a
    one-line error naming the file."""
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise UserError(f"{path}: missing; is {run_dir} a run folder (made by `hexsim run`)?")
    try:
        manifest = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: not valid JSON ({e}); a half-written or damaged manifest") from None
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror or e}") from None
    if not isinstance(manifest, dict):
        raise UserError(f"{path}: not a run manifest (a JSON {type(manifest).__name__}, "
                        "not an object)")
    return manifest


def clear_run(run_dir: str | Path) -> None:
    """Empty a run folder (its parts, then its manifest) so a new run can start there."""
    run_dir = Path(run_dir)
    for part in (run_dir / GAMES_DIR).glob("*.parquet"):
        part.unlink()
    (run_dir / MANIFEST).unlink(missing_ok=True)


def finished_parts(run_dir: str | Path) -> list[Path]:
    """Every Parquet file of the run's table: `games/**/*.parquet`, leaving out hidden and
    `_`-prefixed files such as a writer's temporary parts. Sorted: part names sort in game order."""
    games = Path(run_dir) / GAMES_DIR
    if not games.is_dir():
        return []
    return sorted(p for p in games.rglob("*.parquet")
                  if not any(x.startswith((".", "_")) for x in p.relative_to(games).parts))


def read_table(run_dir: str | Path, columns: Iterable[str] | None = None) -> pd.DataFrame:
    """The whole outcome table of a run (only `columns` if given), in game order; every part
    is checked against the manifest first."""
    return read_parts(verified(finished_parts(run_dir), read_manifest(run_dir)), run_dir, columns)


def read_parts(parts: list[Path], run_dir: str | Path, columns: Iterable[str] | None = None) -> pd.DataFrame:
    """These part files as one table, in the order given (`read_table` checks them first)."""
    if not parts:
        raise UserError(f"{run_dir}: no finished games in {GAMES_DIR}/")
    cols = list(columns) if columns is not None else None
    try:
        if cols is not None:
            available = set(pq.read_schema(parts[0]).names)
            cols = [c for c in cols if c in available]
        return pq.ParquetDataset([str(p) for p in parts]).read(columns=cols).to_pandas()
    except (pa.ArrowException, OSError) as e:
        raise UserError(f"{run_dir}: cannot read its outcome table ({one_line(e)})") from None


def table_columns(run_dir: str | Path) -> list[str]:
    parts = finished_parts(run_dir)
    return pq.read_schema(parts[0]).names if parts else []
