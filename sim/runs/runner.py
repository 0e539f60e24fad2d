"""Run a variant: seeds -> chunks -> joblib workers -> Parquet parts + manifest (resumable).

Each worker plays one chunk with one compiled call and writes its own part atomically, so memory
stays flat in the number of games and a killed run loses only the chunks in flight (and, killed
hard, the parts finished in its last FLUSH_SECONDS, not yet listed). The manifest lists every
finished part with its games, size and sha256; rerunning the same command keeps the parts that
match and plays any other again. Game `i` of a run is seeded by (run seed, i) alone, so the
table is identical for any --jobs, chunk size or backend, and a run can grow: a larger --games on
a finished folder plays only the missing games (the table equals a fresh run of that size).
"""

from __future__ import annotations

import contextlib
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import display
from sim.engine.rng import seeds_for
from sim.errors import UserError
from sim.games.base import Game, SeatBot
from sim.runs import tables
from sim.runs.variants import Variant, load

RUNS_DIR = Path("data/runs")
# Fields of the manifest that define the games: a folder holding other values is never mixed.
# code_hash: the game's rules code (Game.code_hash), so an edited kernel never resumes an old run.
# `games` is not among them: a folder of fewer games grows (only the missing games are played).
IDENTITY = ("variant_hash", "code_hash", "seed", "rotate_seats", "chunk_size")
MAX_RETRIES = 3  # worker deaths tolerated per run before giving up


class GameCrash(Exception):
    """A game raised inside a kernel (a rules bug): names variant, game index and run seed."""


class RuleFault(GameCrash):
    """A move the engine refused (a bot's illegal move), or in a checked run an error a kernel
    raised, located: names variant, game index, run seed, decision, seat and move."""


@dataclass
class RunResult:
    path: Path
    variant: Variant
    manifest: dict[str, Any]

    def table(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        return tables.read_table(self.path, columns)

    def __repr__(self) -> str:
        m, t = self.manifest, self.manifest.get("timings") or {}
        rate = t.get("games_per_second")
        return display.text(
            f"RunResult {self.variant.name}: {int(m.get('games') or 0):,} games, seed {m.get('seed')}, "
            f"{m.get('status', 'status unknown')}",
            [f"folder: {self.path}",
             f"{rate:,.0f} games/s, {t.get('wall_seconds', 0):.1f} s wall, {t.get('jobs')} jobs" if rate else "",
             "outcomes: .table() (one row per game)"])


@dataclass(frozen=True)
class _Task:
    game: Game
    variant: str
    variant_hash: str
    rules: dict[str, Any]
    seats: tuple[tuple[str, SeatBot], ...]  # seat name -> bot, already rotated
    rotation: int
    first: int
    n: int
    seed: int
    path: Path
    check: bool = False  # checked play (sim.engine.checking)


def rotated(seats: dict[str, SeatBot], rotation: int) -> tuple[tuple[str, SeatBot], ...]:
    """Rotation r gives seat s the bot of seat (s + r) mod n: every bot sits in every seat."""
    names, bots = list(seats), list(seats.values())
    k = len(names)
    return tuple((names[s], bots[(s + rotation) % k]) for s in range(k))


def default_chunk(games: int, jobs: int) -> int:
    return int(min(20_000, max(250, math.ceil(games / (8 * max(jobs, 1))))))


def git_commit() -> str | None:
    try:
        root = Path(__file__).resolve().parents[2]
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _constant(value: str, n: int) -> pd.Categorical:
    """A categorical column of n rows holding one value: from its codes (a list of n strings
    took a third of a short game's cost in the runner)."""
    return pd.Categorical.from_codes(np.zeros(n, np.int8), categories=[value])


def play_frame(task: _Task) -> pd.DataFrame:
    """Play one chunk and give its table rows (identity columns first)."""
    from sim import engine

    game = task.game
    seat_bots = [b for _, b in task.seats]
    try:
        with engine.checking(task.check):
            cols = game.play_chunk(task.rules, seat_bots, task.first, task.n, task.seed)
    except engine.MoveFault as fault:
        raise _fault_error(task, fault) from None
    except Exception as exc:  # noqa: BLE001 - a kernel error is reported with the game that raised
        raise _locate_crash(task, exc) from exc
    n = task.n
    frame = {
        "variant": _constant(task.variant, n),
        "variant_hash": _constant(task.variant_hash, n),
        "game": np.arange(task.first, task.first + n, dtype=np.int64),
        "seed": seeds_for(task.seed, task.first, n),
        "rotation": np.full(n, task.rotation, dtype=np.int8),
    }
    for seat, bot in task.seats:
        frame[f"bot_{seat}"] = _constant(bot.label(), n)
    frame["first_seat"] = cols.pop("first_seat")
    frame["winner"] = cols.pop("winner")
    frame["end_reason"] = pd.Categorical.from_codes(cols.pop("end_reason").astype(np.int64),
                                                    categories=list(game.end_reasons))
    frame["turns"] = cols.pop("turns")
    for seat, _ in task.seats:
        frame[f"score_{seat}"] = cols.pop(f"score_{seat}")
    frame.update(cols)
    return pd.DataFrame(frame)


def play_range(variant: Variant, first: int, n: int, seed: int, rotation: int = 0) -> pd.DataFrame:
    """Rows of games first .. first + n - 1 of a run with this seed, in memory (no files):
    exactly the rows `run` writes for them (baseline checks, sequential batches)."""
    return play_frame(_Task(variant.game, variant.name, variant.hash, variant.rules,
                            rotated(variant.seats, rotation), rotation, first, n, seed, Path(".")))


def _locate_crash(task: _Task, exc: Exception) -> GameCrash:
    bots = [b for _, b in task.seats]
    for i in range(task.first, task.first + task.n):
        try:
            task.game.play_chunk(task.rules, bots, i, 1, task.seed)
        except Exception as e:  # noqa: BLE001
            exc = e
            break
    else:
        i = task.first
    return GameCrash(f"{task.variant}: game {i} (run seed {task.seed}, rotation {task.rotation}) "
                     f"raised {type(exc).__name__}: {exc}; reproduce with: hexsim replay "
                     f"{task.variant} --game {i} --seed {task.seed}")


def _fault_error(task: _Task, fault) -> RuleFault:
    """A MoveFault of the engine's as one line naming the variant and the seat."""
    rotation = f", rotation {task.rotation}" if task.rotation else ""
    hint = "" if task.check else "; run with --check to test every move and index"
    return RuleFault(f"{task.variant}{rotation}: {fault.text([s for s, _ in task.seats])}{hint}")


def _play_part(task: _Task) -> tuple[str, int, dict[str, Any], float]:
    """Play and write one part; its record (games, size, sha256) goes back to the manifest."""
    t0 = time.perf_counter()
    with _crash_note(task):
        frame = play_frame(task)
    tables.write_part(task.path, frame)
    return task.path.name, task.n, tables.part_record(task.path, task.n), time.perf_counter() - t0


CRASH_NOTE = ".crash"  # a chunk's note, beside its part, while it plays (`_crash_note`)


def _crash_path(task: _Task) -> Path:
    return task.path.with_name(f".{task.path.stem}{CRASH_NOTE}")


@contextlib.contextmanager
def _crash_note(task: _Task) -> Iterator[None]:
    """While the chunk plays, a fatal signal (a segmentation fault in a kernel, which kills the
    process) has Python's faulthandler write into a note beside its part, removed when the
    chunk ends any other way: the run then names the chunk a worker died in (`_crash_of`). Not
    in a thread of the threading backend (the handler is one per process)."""
    import faulthandler
    import threading

    note = None
    if threading.current_thread() is threading.main_thread():
        with contextlib.suppress(OSError):
            note = open(_crash_path(task), "w")  # noqa: SIM115 - closed below
    if note is None:
        yield
        return
    was = faulthandler.is_enabled()
    faulthandler.enable(file=note)
    try:
        yield
    finally:
        faulthandler.disable()
        if was and sys.__stderr__ is not None:
            faulthandler.enable(file=sys.__stderr__)
        note.close()
        _crash_path(task).unlink(missing_ok=True)


def _crash_of(tasks: list[_Task]) -> GameCrash | None:
    """After a worker died: the chunk it died in, from the note a fatal signal wrote there, as
    one line (None if no note says so: a worker killed from outside); every note removed."""
    crash = None
    for t in tasks:
        path = _crash_path(t)
        try:
            text = path.read_text(errors="replace").strip()
        except OSError:
            continue
        path.unlink(missing_ok=True)
        if text and crash is None:
            what = _died_of(text)
            rotation = f", rotation {t.rotation}" if t.rotation else ""
            hint = "a checked run" if t.check else "run with --check to find the move or index"
            crash = GameCrash(f"{t.variant}: a worker died ({what}) playing games {t.first}..{t.first + t.n - 1} "
                              f"(run seed {t.seed}{rotation}); {hint}")
    return crash


def _died_of(note: str) -> str:
    """What a crash note says killed the process ("Segmentation fault")."""
    return note.splitlines()[0].removeprefix("Fatal Python error: ")


def _old_crash_notes(out: Path) -> None:
    """The crash notes of a run that died with its chunk in this process (--jobs 1): each named
    on stderr, then removed (the chunk is played again)."""
    for note in (out / tables.GAMES_DIR).glob(f".part-*{CRASH_NOTE}"):
        said, part = note.read_text(errors="replace").strip(), note.name[1:-len(CRASH_NOTE)]
        if said:
            print(f"hexsim: {out}: an earlier run died ({_died_of(said)}) playing the chunk from game "
                  f"{int(part.rsplit('-', 1)[-1])} ({part}); playing it again (--check finds the move or index)",
                  file=sys.stderr)
        note.unlink()


def _manifest(variant: Variant, games: int, seed: int, rotate: bool, chunk: int) -> dict[str, Any]:
    from sim import __version__
    from sim.games import game_version

    return {
        "hexsim_run": 1,
        "status": "running",
        "variant": variant.describe(),
        "variant_hash": variant.hash,
        "code_hash": variant.game.code_hash(),
        "seat_names": variant.seat_names,
        "seat_labels": {s: b.label() for s, b in variant.seats.items()},
        "games": games,
        "seed": seed,
        "rotate_seats": rotate,
        "rotations": len(variant.seats) if rotate else 1,
        "chunk_size": chunk,
        "end_reasons": list(variant.game.end_reasons),
        "turn_cap_reason": "turn_cap" if "turn_cap" in variant.game.end_reasons else None,
        "warnings": variant.warnings(),
        "package_version": __version__,
        "game_version": game_version(variant.game),  # a plug-in's own version
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _mismatch(have: dict[str, Any], want: dict[str, Any]) -> str | None:
    """Why a run folder's manifest cannot be resumed by this command, or None."""
    for key in IDENTITY:
        if have.get(key) != want[key]:
            if key == "code_hash":
                return (f"was played by other {want['variant']['game']} rules code (code_hash "
                        f"{have.get(key)!r}, commit {have.get('git_commit')!r}; this checkout "
                        f"has {want[key]!r}): its games would mix with this code's")
            return f"holds a run with {key} = {have.get(key)!r}, this command asks for {want[key]!r}"
    if have.get("games") is not None and have["games"] > want["games"]:
        return (f"holds {have['games']:,} games per rotation, this command asks for "
                f"{want['games']:,} (give --games {have['games']} to use it, or report it as it is)")
    return None


def _drop_partial_parts(out: Path, have: dict[str, Any], games: int) -> None:
    """Growing a run: the last part of the smaller run holds fewer games than a chunk; in the
    larger run that part is a full chunk (or a longer tail), so it is played again."""
    old, chunk = int(have.get("games") or 0), int(have["chunk_size"])
    if old >= games or old % chunk == 0:
        return
    for r in range(int(have.get("rotations") or 1)):
        (out / tables.GAMES_DIR / tables.part_name(r, old - old % chunk)).unlink(missing_ok=True)


def _check_existing(out: Path, want: dict[str, Any], replace_stale: bool) -> dict[str, Any] | None:
    if not (out / tables.MANIFEST).exists():
        if tables.finished_parts(out):
            raise UserError(f"{out}: holds game parts but no manifest; refusing to mix runs "
                            "(use another --out or delete the folder)")
        return None
    have = tables.read_manifest(out)
    why = _mismatch(have, want)
    if why is None:
        return have
    if replace_stale:
        tables.clear_run(out)
        return None
    raise UserError(f"{out}: {why}; refusing to mix runs (use another --out, delete the folder, "
                    "or --replace-stale to start it again)")


BACKENDS = ("loky", "threading", "sequential", "dask")
FLUSH_SECONDS = 0.1  # the manifest's part records are rewritten at most this often mid-run


def check_backend(backend: str, scheduler: str | None) -> None:
    """Refuse a backend before anything is written: a bad one found later would leave a
    manifest saying "running" (and an empty progress bar) behind."""
    if backend not in BACKENDS:
        raise UserError(f"--backend {backend}: allowed: {', '.join(BACKENDS)}")
    if backend == "dask" and not scheduler:
        raise UserError("--backend dask needs --scheduler tcp://HOST:PORT")


def _check_inputs(games: int, seed: int, chunk_size: int | None, backend: str,
                  scheduler: str | None) -> None:
    """Every number and name of a run, checked before its folder is touched."""
    if games < 1:
        raise UserError(f"--games {games}: must be at least 1")
    if seed < 0 or seed >= 2**63:
        raise UserError(f"--seed {seed}: must be in [0, 2**63)")
    if chunk_size is not None and chunk_size < 1:
        raise UserError(f"--chunk-size {chunk_size}: must be at least 1 (leave it out for the "
                        "default)")
    check_backend(backend, scheduler)


def run(variant: Variant | str | Path, games: int, seed: int = 0, jobs: int | None = None,
        out: str | Path | None = None, chunk_size: int | None = None,
        rotate_seats: bool = False, backend: str = "loky", scheduler: str | None = None,
        progress: bool = True, replace_stale: bool = False, check: bool = False) -> RunResult:
    """Play `games` games of `variant` (times the number of seats with `rotate_seats`).

    Writes `out/games/part-*.parquet` and `out/manifest.json`; resumes a run of the same
    variant, rules code, seed and chunking found in `out`, and grows one of fewer games (only the
    missing games are played); a folder holding any other run (or more games) is refused, or
    with `replace_stale` emptied and played again. A part on disk is kept only if it matches
    the record (games, size, sha256) the manifest took when it was written; any other is named
    on stderr and played again. Returns the run (its table is lazy). `variant`: a Variant, or
    a variant file or shipped `game/name` to load.

    `check`: checked play, for game authors (`hexsim run --check`): worker processes whose
    kernels numba compiles with bounds checking (cached apart, `checked_worker_env`) test every
    move a bot returns against `legal_moves`; the first illegal move or index out of bounds
    stops the run with a RuleFault naming the game, seed, decision, seat and move. The games
    are the same as unchecked; a stopped run stays unfinished.
    """
    if not isinstance(variant, Variant):
        variant = load(variant)
    _check_inputs(games, seed, chunk_size, backend, scheduler)
    if check and backend != "loky":
        raise UserError(f"--check plays in worker processes of its own: --backend loky, not {backend}")
    jobs = jobs or os.cpu_count() or 1
    out = Path(out) if out is not None else RUNS_DIR / variant.name
    given_chunk = chunk_size
    if (out / tables.MANIFEST).exists() and chunk_size is None:
        chunk_size = tables.read_manifest(out).get("chunk_size")  # resume with its chunking
    chunk = int(chunk_size or default_chunk(games, jobs))
    manifest = _manifest(variant, games, seed, rotate_seats, chunk)
    existing = _check_existing(out, manifest, replace_stale)
    if existing is None and given_chunk is None and chunk != default_chunk(games, jobs):
        # the replaced folder's chunking no longer binds: use this run's default
        chunk = default_chunk(games, jobs)
        manifest = _manifest(variant, games, seed, rotate_seats, chunk)
    if existing is not None:
        manifest["created"] = existing.get("created", manifest["created"])
        if int(existing.get("games") or 0) < games:
            manifest["grown_from"] = existing.get("grown_from", []) + [existing.get("games")]
            # before the new manifest is written, so a run killed while growing resumes
            # with every part on disk the size its new range says
            _drop_partial_parts(out, existing, games)
    manifest["parts"] = _sound_parts(out, existing, manifest)
    _start_folder(out, manifest)
    manifest["timings"] = _play_all(variant, out, manifest, jobs, backend, scheduler, progress, check)
    manifest["status"] = "complete"
    manifest["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    tables.write_json(out / tables.MANIFEST, manifest)
    return RunResult(out, variant, manifest)


def _sound_parts(out: Path, existing: dict[str, Any] | None,
                 manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The records of the parts a resume keeps: each part checked against the record its
    manifest took when it was written (a folder from before parts were recorded: readable
    Parquet holding the games its name says, recorded now). Any other file is named on stderr:
    a bad part is deleted and played again, a file that is no part of the run moved aside."""
    if existing is None:
        return {}
    records = existing.get("parts") if isinstance(existing.get("parts"), dict) else None
    layout = tables.expected_parts(manifest) or {}
    files = tables.finished_parts(out)
    problems = tables.part_problems(files, dict(manifest, parts=records))
    kept = {}
    for path in files:
        why = problems.get(path)
        if why is None:
            kept[path.name] = (records[path.name] if records is not None
                               else tables.part_record(path, layout[path.name]))
        elif path.name in layout:
            print(f"hexsim: {path}: {why}; playing it again", file=sys.stderr)
            path.unlink()
        else:
            path.replace(path.with_name(path.name + ".rejected"))
            print(f"hexsim: {path}: {why}; moved aside to {path.name}.rejected", file=sys.stderr)
    return kept


def _start_folder(out: Path, manifest: dict[str, Any]) -> None:
    """Create the folder, drop a killed writer's temporary parts, write the running manifest."""
    try:
        (out / tables.GAMES_DIR).mkdir(parents=True, exist_ok=True)
        for stale in (out / tables.GAMES_DIR).glob(".part-*.tmp"):
            stale.unlink()
        _old_crash_notes(out)
        tables.write_json(out / tables.MANIFEST, manifest)
    except OSError as e:
        raise UserError(f"{out}: cannot write the run folder: {e.strerror}") from None


def _pending(variant: Variant, out: Path, manifest: dict[str, Any], check: bool = False) -> list[_Task]:
    """Chunks whose part the manifest does not list yet (a listed part is complete and sound)."""
    games, chunk, seed = manifest["games"], manifest["chunk_size"], manifest["seed"]
    tasks = []
    for r in range(manifest["rotations"]):
        seats = rotated(variant.seats, r)
        for first in range(0, games, chunk):
            name = tables.part_name(r, first)
            if name not in manifest["parts"]:
                tasks.append(_Task(variant.game, variant.name, variant.hash, variant.rules, seats,
                                   r, first, min(chunk, games - first), seed,
                                   out / tables.GAMES_DIR / name, check))
    return tasks


class _Recorder:
    """Adds each finished part's record to the manifest and rewrites it (at most every
    FLUSH_SECONDS, and once more when the run stops for any reason), so the parts a resume
    trusts are exactly those the manifest lists."""

    def __init__(self, out: Path, manifest: dict[str, Any]) -> None:
        self.path, self.manifest, self.last = out / tables.MANIFEST, manifest, 0.0

    def __call__(self, name: str, record: dict[str, Any]) -> None:
        self.manifest["parts"][name] = record
        if time.monotonic() - self.last >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        tables.write_json(self.path, self.manifest)
        self.last = time.monotonic()


def _play_all(variant: Variant, out: Path, manifest: dict[str, Any], jobs: int, backend: str,
              scheduler: str | None, progress: bool, check: bool = False) -> dict[str, Any]:
    """Play every part the manifest does not list, retrying after a worker death (not one a
    chunk's fatal signal caused: it would die again); returns the run's timings. Finished parts
    stay recorded however the run stops."""
    total = manifest["games"] * manifest["rotations"]
    tasks = _pending(variant, out, manifest, check)
    done_before = total - sum(t.n for t in tasks)
    recorder = _Recorder(out, manifest)
    t0 = time.perf_counter()
    busy, retries = 0.0, 0
    try:
        while tasks:
            try:
                busy += _execute(tasks, jobs, backend, scheduler, progress, total,
                                 total - sum(t.n for t in tasks), variant.name, recorder)
            except OSError as e:
                raise UserError(f"{out}: cannot write game parts: {e.strerror or e}; finished "
                                "parts are kept, rerun the same command to resume") from None
            except Exception as e:  # a worker process died: retry what is not on disk yet
                if not _is_worker_death(e):
                    raise
                crash = _crash_of(tasks)  # a fatal signal in a chunk: it would die again
                if crash is not None:
                    raise crash from None
                if retries >= MAX_RETRIES:
                    raise
                retries += 1
                print(f"hexsim: a worker died ({type(e).__name__}); retrying the unfinished "
                      f"chunks ({retries}/{MAX_RETRIES})", file=sys.stderr)
            tasks = _pending(variant, out, manifest, check)
    finally:
        with contextlib.suppress(OSError):  # a full disk: the error above says so already
            recorder.flush()
    wall = time.perf_counter() - t0
    played = total - done_before
    return {
        "wall_seconds": round(wall, 3),
        "games_played_now": played,
        "games_resumed": done_before,
        "worker_seconds": round(busy, 3),
        "games_per_second": round(played / wall, 1) if wall > 0 and played else None,
        "jobs": jobs,
        "backend": backend,
        "worker_retries": retries,
        "checked": check,
    }


def _execute(tasks: list[_Task], jobs: int, backend: str, scheduler: str | None, progress: bool,
             total: int, done: int, label: str, on_part: Callable[[str, dict], None]) -> float:
    """Run the tasks; returns the summed worker seconds. Parts are written by the workers;
    `on_part(name, record)` is called in this process as each one is finished."""
    from tqdm.auto import tqdm  # a widget in a notebook

    bar = tqdm(total=total, initial=done, unit="game", unit_scale=True, desc=label,
               disable=not progress, file=sys.stderr, smoothing=0.1)
    busy = 0.0
    client = None
    try:
        if backend == "dask":
            client = _dask_client(scheduler)
        for name, n, record, seconds in _results(tasks, jobs, backend):
            busy += seconds
            bar.update(n)
            on_part(name, record)
    finally:
        bar.close()
        if client is not None:
            client.close()
    return busy


def _results(tasks: list[_Task], jobs: int, backend: str) -> Iterator[tuple]:
    """Each task's `_play_part` result as it finishes: in this process, or through joblib."""
    from joblib import Parallel, delayed, parallel_config

    if tasks and tasks[0].check:
        yield from _checked_results(tasks, jobs)
        return
    if backend == "sequential" or jobs == 1 and backend != "dask":
        yield from (_play_part(t) for t in tasks)
        return
    with parallel_config(backend=backend, n_jobs=jobs if backend != "dask" else -1):
        yield from Parallel(return_as="generator_unordered")(delayed(_play_part)(t) for t in tasks)


def checked_worker_env() -> dict[str, str]:
    """The environment of a checked run's workers: numba compiles every kernel with bounds
    checking (NUMBA_BOUNDSCHECK), into a cache folder of its own beside the normal one
    (NUMBA_CACHE_DIR + "-checked"): numba's cache index does not record the flag, so checked
    machine code must not replace the normal runs' (whose cache stays warm)."""
    from numba.core import config

    cache = os.environ.get("NUMBA_CACHE_DIR") or str(config.CACHE_DIR)
    return {"NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": cache.rstrip(os.sep) + "-checked"}


def _checked_results(tasks: list[_Task], jobs: int) -> Iterator[tuple]:
    """`_results` of a checked run: in loky worker processes started with `checked_worker_env`
    (even for one job: this process's kernels are not bounds-checked). After the first error
    the chunks not started are cancelled, and those the workers finish meanwhile are given too
    (so the manifest lists every part on disk); then the error of the earliest failed chunk is
    raised, whichever worker was faster, so the same run always names the same game."""
    from concurrent.futures import as_completed

    from joblib.externals.loky import ProcessPoolExecutor

    # a pool of its own, shut down at the end: loky's reusable executor is the one joblib's
    # Parallel reuses, and one started here (without joblib's memmapping set-up) broke the
    # parallel runs that came after it in the same process
    executor = ProcessPoolExecutor(max_workers=jobs, env=checked_worker_env())
    futures = {executor.submit(_play_part, t): t for t in tasks}
    errors = []
    try:
        for f in as_completed(futures):
            if f.cancelled():
                continue
            if f.exception() is None:
                yield f.result()
                continue
            if not errors:
                for g in futures:
                    g.cancel()
            errors.append((futures[f].rotation, futures[f].first, f.exception()))
    finally:
        for f in futures:
            f.cancel()
        executor.shutdown(wait=True)
    if errors:
        raise min(errors, key=lambda e: (e[1], e[0]))[2]


def _is_worker_death(exc: BaseException) -> bool:
    """A worker process killed or lost (loky, process pools, dask), not an error in a game."""
    from concurrent.futures.process import BrokenProcessPool

    from joblib.externals.loky.process_executor import TerminatedWorkerError

    if isinstance(exc, (TerminatedWorkerError, BrokenProcessPool)):
        return True
    return type(exc).__name__ in ("KilledWorker", "CommClosedError")


# how long `--backend dask` waits for its scheduler before the one-line error
CONNECT_TIMEOUT = "10s"


def _dask_client(scheduler: str | None):
    try:
        from dask.distributed import Client
    except ImportError:
        raise UserError("--backend dask needs dask.distributed: pip install 'hexsim[dask]'") from None
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as e:
        raise UserError(f"--scheduler {scheduler}: cannot connect: {e}") from None
