"""Outcome tables: one row per game, stored as Parquet parts under `<run>/games/`.

Column order: the runner's identity columns, then the game's contract columns
(`first_seat, winner, end_reason, turns, score_<seat>`), then game-specific `<game>_*` columns.
"""

from __future__ import annotations

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
    path = Path(run_dir) / MANIFEST
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{run_dir}: not a hexsim run folder (no {MANIFEST})") from None
    except json.JSONDecodeError as e:
        raise UserError(f"{path}: corrupt manifest: {e}") from None


def clear_run(run_dir: str | Path) -> None:
    """Empty a run folder (its parts, then its manifest) so a new run can start there."""
    run_dir = Path(run_dir)
    for part in (run_dir / GAMES_DIR).glob("*.parquet"):
        part.unlink()
    (run_dir / MANIFEST).unlink(missing_ok=True)


def finished_parts(run_dir: str | Path) -> list[Path]:
    return sorted((Path(run_dir) / GAMES_DIR).glob("part-*.parquet"))


def read_table(run_dir: str | Path, columns: Iterable[str] | None = None) -> pd.DataFrame:
    """The whole outcome table of a run (only `columns` if given), in game order."""
    parts = finished_parts(run_dir)
    if not parts:
        raise UserError(f"{run_dir}: no finished games in {GAMES_DIR}/")
    cols = list(columns) if columns is not None else None
    if cols is not None:
        available = set(pq.read_schema(parts[0]).names)
        cols = [c for c in cols if c in available]
    return pq.ParquetDataset([str(p) for p in parts]).read(columns=cols).to_pandas()


def table_columns(run_dir: str | Path) -> list[str]:
    parts = finished_parts(run_dir)
    return pq.read_schema(parts[0]).names if parts else []
