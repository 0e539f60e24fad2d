"""Scale check: run `hexsim run` (and optionally `hexsim report`) in a child process and record
the memory of the whole process tree and the throughput over time.

Usage: python -m sim.perf.scale VARIANT --games N [--jobs J] [--out DIR] [--report] [--json FILE]

Memory is sampled every `--interval` seconds from /proc (Linux): RSS summed over the process tree
(an upper bound: pages shared between workers count once per process) and PSS (shared pages split
between the processes that map them; the honest total). Throughput is read off the part files as
they land, so a run whose memory or speed drifts with N shows it in the timeline. `make scale`
runs it; the issue's check is 1M against 10M games of hexflow/race (see README).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # the command name may hold spaces and parentheses: the parent pid follows the last ')'
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def tree(pid: int) -> list[int]:
    kids, out, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def memory_mb(pid: int) -> tuple[float, float]:
    """(RSS sum, PSS sum) of the process tree rooted at pid, in MB."""
    rss = pss = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/statm") as f:
                rss += int(f.read().split()[1]) * PAGE_KB
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1])
                        break
        except (OSError, ValueError, IndexError):
            continue  # the process ended between the listing and the read
    return rss / 1024, pss / 1024


def watch(cmd: list[str], interval: float, progress=None) -> dict:
    """Run cmd, sample its tree's memory until it exits; timeline rows (t, rss, pss, progress)."""
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    rows = []
    while child.poll() is None:
        rss, pss = memory_mb(child.pid)
        t = time.perf_counter() - t0
        rows.append([round(t, 2), round(rss, 1), round(pss, 1), progress() if progress else None])
        time.sleep(interval)
    seconds = time.perf_counter() - t0
    if child.returncode != 0:  # killed or failed: what was measured up to then still counts
        print(f"hexsim scale: {' '.join(cmd[2:4])} exited with {child.returncode}; "
              "recording the run up to there", file=sys.stderr)
    return {"seconds": round(seconds, 2), "exit_code": child.returncode,
            "peak_rss_mb": max((r[1] for r in rows), default=0.0),
            "peak_pss_mb": max((r[2] for r in rows), default=0.0),
            "timeline": rows}


def games_done(out: Path):
    parts = out / "games"

    def count() -> int:
        try:
            chunk = json.loads((out / "manifest.json").read_text())["chunk_size"]
            return chunk * sum(1 for p in parts.iterdir() if p.suffix == ".parquet")
        except (OSError, ValueError, KeyError):
            return 0
    return count


def phases(timeline: list, games: int) -> dict:
    """Peak memory and games/s in each fifth of the run: from the first sample with `lo` games
    done to the first with `hi` done."""
    done = [r for r in timeline if r[3] is not None]
    out = []
    marks = [games * k // 5 for k in range(6)]
    for lo, hi in zip(marks, marks[1:], strict=False):
        start = next((i for i, r in enumerate(done) if r[3] >= lo), None)
        end = next((i for i, r in enumerate(done) if r[3] >= hi), None)
        if start is None or end is None or end <= start:
            continue
        rows = done[start:end + 1]
        dt = rows[-1][0] - rows[0][0]
        out.append({"games_from": lo, "games_to": hi,
                    "peak_rss_mb": max(r[1] for r in rows), "peak_pss_mb": max(r[2] for r in rows),
                    "games_per_second": round((rows[-1][3] - rows[0][3]) / dt, 1)})
    return {"fifths": out}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant")
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--out", default=None, help="run folder (default data/runs/scale-<games>)")
    ap.add_argument("--report", action="store_true", help="then time `hexsim report` on the table")
    ap.add_argument("--interval", type=float, default=0.5)
    ap.add_argument("--json", default=None, help="result file (default reports/scale-<games>.json)")
    args = ap.parse_args(argv)
    out = Path(args.out or f"data/runs/scale-{args.games}")
    hexsim = [sys.executable, "-m", "sim.cli"]
    run = watch(hexsim + ["run", args.variant, "--games", str(args.games), "--jobs", str(args.jobs),
                          "--out", str(out), "--no-progress"], args.interval, games_done(out))
    done = games_done(out)() if run["exit_code"] else args.games
    run["games_done"] = min(done, args.games)
    run["games_per_second"] = round(run["games_done"] / run["seconds"], 1)
    run.update(phases(run["timeline"], args.games))
    result = {"variant": args.variant, "games": args.games, "jobs": args.jobs, "run": run}
    print(f"run {run['games_done']:,} of {args.games:,} games: {run['seconds']} s, "
          f"{run['games_per_second']:,} games/s, "
          f"peak tree RSS {run['peak_rss_mb']:.0f} MB, PSS {run['peak_pss_mb']:.0f} MB", flush=True)
    for f in run["fifths"]:
        print(f"  games {f['games_from']:>11,}-{f['games_to']:<11,} peak RSS {f['peak_rss_mb']:6.0f} MB"
              f"  PSS {f['peak_pss_mb']:6.0f} MB  {f['games_per_second'] or 0:>10,.0f} games/s")
    if args.report and run["exit_code"] == 0:
        rep = watch(hexsim + ["report", str(out), "--out", str(out) + "-report"], args.interval)
        result["report"] = rep
        print(f"report: {rep['seconds']} s, peak RSS {rep['peak_rss_mb']:.0f} MB, "
              f"PSS {rep['peak_pss_mb']:.0f} MB", flush=True)
    path = Path(args.json or f"reports/scale-{args.games}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result) + "\n")
    print(f"written {path}")
    return 0 if run["exit_code"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
