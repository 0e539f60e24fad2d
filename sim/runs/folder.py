"""Reading a run folder: its manifest and only the outcome columns a report needs, checked
against the manifest (a damaged or foreign part is refused with a one-line error, never read)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads

from sim.errors import UserError
from sim.games import base
from sim.runs import tables


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
    mode: str = "default"

    @property
    def group(self) -> str:
        """Game and mode ("hexflow race"): reports compare variants only within one group."""
        return self.game_name if self.mode == "default" else f"{self.game_name} {self.mode}"

    @property
    def seat_bots(self) -> list[str]:
        """Each seat's bot as the manifest labels it: the bot's name plus only its non-default
        parameters ("mcts(iterations=800)")."""
        labels = self.manifest.get("seat_labels") or {}
        if all(s in labels for s in self.seats):
            return [labels[s] for s in self.seats]
        seats_cfg = self.manifest["variant"].get("seats", {}) or {}
        out = []
        for s in self.seats:
            cfg = seats_cfg.get(s, {})
            bot = cfg.get("bot", "?") if isinstance(cfg, dict) else str(cfg)
            params = cfg.get("params", {}) if isinstance(cfg, dict) else {}
            extra = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
            out.append(f"{bot}({extra})" if extra else bot)
        return out

    @property
    def stem(self) -> str:
        return self.label.rsplit("/", 1)[-1]

    @property
    def expected(self) -> int:
        """Games the manifest asks for: a run with rotated seats plays every game once per
        rotation."""
        rotations = self.manifest.get("rotations") or (len(self.seats) if self.rotate else 1)
        return int(self.manifest.get("games", len(self.df))) * int(rotations)

    @property
    def partial(self) -> str:
        """"partial: 200 of 3,000 games" for an unfinished run (fewer games than the manifest
        asks for, or a manifest not marked complete), else "": such a run is reported only on
        request, and marked wherever its verdict is shown."""
        n, status = len(self.df), self.manifest.get("status")
        if n < self.expected:
            return f"partial: {n:,} of {self.expected:,} games"
        if status not in (None, "complete"):
            return f"partial: run {status}, {n:,} of {self.expected:,} games"
        return ""


def mode_of(game: Any, rules: dict[str, Any]) -> str:
    """The game's mode whose rule overrides the variant's rules all match (the most specific
    one), or "default" for a game without modes."""
    try:
        modes = list(game.modes()) if game is not None else []
    except Exception:  # noqa: BLE001 - a game without modes() is one mode
        modes = []
    best, size = "default", -1
    for label, overrides in modes:
        if all(rules.get(k) == v for k, v in overrides.items()) and len(overrides) > size:
            best, size = label, len(overrides)
    return best


def default_game_lookup(name: str):
    """The registered Game, or raise (the report turns any failure into a skipped section)."""
    from sim.games import get

    return get(name)


def _games_files(run_dir: Path, manifest: dict[str, Any]) -> list[str]:
    """The finished Parquet parts (`games/**/*.parquet`, or `part-*.parquet` beside the
    manifest), each checked against the manifest: a damaged table is refused, never read."""
    games = run_dir / "games"
    files = tables.finished_parts(run_dir) if games.is_dir() else sorted(run_dir.glob("part-*.parquet"))
    if not files:
        raise UserError(f"{run_dir}: no outcome table (expected {games}/part-*.parquet)")
    return [str(p) for p in tables.verified(files, manifest)]


def read_manifest(run_dir: Path) -> dict[str, Any]:
    manifest = tables.read_manifest(run_dir)
    for key in ("variant", "seat_names"):
        if key not in manifest:
            raise UserError(f"{run_dir / tables.MANIFEST}: missing key {key!r}")
    return manifest


def read_games(files: Sequence[str], game_name: str, seats: Sequence[str]) -> pd.DataFrame:
    """Only the columns the report uses: outcome, per-seat bot and score, `<game>_` columns.

    Strings come back as pandas categoricals (cheap on a million rows). A part that cannot be
    read (a run from before parts were checksummed) is a one-line error.
    """
    try:
        table = _outcome_columns(pads.dataset(list(files), format="parquet"), game_name, seats)
    except (pa.ArrowException, OSError) as e:
        raise UserError(f"{Path(files[0]).parent}: cannot read the outcome table "
                        f"({tables.one_line(e)})") from None
    # split_blocks + self_destruct: each Arrow column is freed as it is converted, so the peak
    # is about one copy of the columns, not two (10M rows: see README, Scale)
    return table.to_pandas(strings_to_categorical=True, split_blocks=True, self_destruct=True)


def _outcome_columns(dataset: pads.Dataset, game_name: str, seats: Sequence[str]) -> pa.Table:
    names = dataset.schema.names
    want = ["game", "winner", "end_reason", "turns", "first_seat", "rotation", "swapped"]
    want += [f"bot_{s}" for s in seats] + [f"score_{s}" for s in seats]
    want += [c for c in names if c.startswith(f"{game_name}_")]
    missing = [c for c in ("winner", "end_reason", "turns", "first_seat") if c not in names]
    if missing:
        raise UserError(f"{Path(dataset.files[0]).parent}: outcome table lacks column(s) "
                        f"{', '.join(missing)}")
    return dataset.to_table(columns=[c for c in want if c in names])


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
    df = read_games(_games_files(run_dir, manifest), game_name, seats)
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
               rotate=bool(manifest.get("rotate_seats", False)), df=df, game=game, game_error=error,
               mode=mode_of(game, variant.get("rules", {}) or {}))


def non_win_reasons(run: Run) -> set[str]:
    """The run's end reasons that are not a win on the board (sim.games.base.non_win_reasons)."""
    return base.non_win_reasons(run.game, run.end_reasons, run.turn_cap_reason)

