"""`make bench`: games/s per core for every game and bot pairing, compile time with an empty
cache, 1-vs-2-worker scaling and per-chunk overhead of the runner. Writes reports/bench.json.
Plug-in games named by HEXSIM_GAMES are benched like the package's own.

Usage: python -m sim.perf.bench [--seconds S] [--only GAME] [--modes M,...] [--no-compile] [--no-scaling]
                           [--out FILE]
Timing is done here, never in unit tests.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sim import games
from sim.games.base import Game, SeatBot
from sim.perf.bare import runner_against_bare
from sim.runs.variants import load


def seats(game: Game, rules: dict, bot: str) -> list[SeatBot]:
    b = game.bot(bot, "bench")
    params = game.bot_params(rules, b)
    return [SeatBot(b, dict(params)) for _ in game.seat_names(rules)]


FIRST = 10  # the timed chunks play games FIRST .. FIRST + n - 1 of run seed 1


def calibrate(game: Game, rules: dict, bot: str, share: float) -> tuple[list[SeatBot], int]:
    """The seats and a chunk size whose one call lasts about `share` CPU seconds."""
    s = seats(game, rules, bot)
    game.play_chunk(rules, s, 0, 2, 0)  # compile / load from cache
    n = 16
    while True:
        dt = time_chunk(game, rules, s, n)
        if dt > share / 2 or n >= 2_000_000:
            return s, n
        n = int(n * max(2.0, min(10.0, share / max(dt, 1e-6))))


def time_chunk(game: Game, rules: dict, s: list[SeatBot], n: int) -> float:
    """CPU seconds of one chunk of n games (a kernel is single-threaded: CPU time is its time
    on one core, and other processes on the machine do not count against it)."""
    t0 = time.process_time()
    game.play_chunk(rules, s, FIRST, n, 1)
    return time.process_time() - t0


def summarize(n: int, times: list[float]) -> dict:
    best = min(times)
    return {"games": n, "seconds": round(best, 3), "repeats": len(times),
            "games_per_second": round(n / best, 1),
            "median_games_per_second": round(n / sorted(times)[len(times) // 2], 1)}


def rate(game: Game, rules: dict, bot: str, seconds: float, repeats: int = 3) -> dict:
    """Games/s on this core: grow the chunk until one call lasts about `seconds` / (repeats + 1),
    then time `repeats` calls of that size (same games) and keep the fastest: on a shared
    virtual machine single timings of the same code vary by +/-20%, the minimum far less."""
    return rates([(game, rules, bot)], seconds, repeats)[0]


def rates(figures: list[tuple[Game, dict, str]], seconds: float, repeats: int = 3) -> list[dict]:
    """rate() of many (game, rules, bot) figures, timed in rounds: each round times every
    figure once, and each figure keeps its fastest round. This VM's speed drifts by up to 30%
    over minutes; timing a figure's repeats back to back let one slow phase set a whole figure,
    while rounds spread every figure's repeats over the whole bench. Even back to back, three
    calls on the same 1,600 Race greedy games read 1,750-2,690 games/s here, so the default is
    nine shorter calls per figure rather than three long ones."""
    share = seconds / (repeats + 1)
    setups = [(g, r, *calibrate(g, r, b, share)) for g, r, b in figures]
    times: list[list[float]] = [[] for _ in setups]
    for _ in range(repeats):
        for k, (g, r, s, n) in enumerate(setups):
            times[k].append(time_chunk(g, r, s, n))
    return [summarize(n, t) for (_, _, _, n), t in zip(setups, times, strict=True)]


def bench_bots(game: Game) -> list[str]:
    """The bots a game is timed with: random and greedy, or (a plug-in without them) its first
    two bots."""
    names = [b.name for b in game.bots]
    return [b for b in ("random", "greedy") if b in names] or names[:2]


def mcts_seats(game: Game, rules: dict, bot: str = "mcts") -> list[SeatBot] | None:
    """The search bot (or another bot a mode may not offer, e.g. lookahead; default parameters) on
    the first seat against greedy on the others, or None where the game or this mode offers none."""
    names = [b.name for b in game.bots]
    if bot not in names or "greedy" not in names:
        return None
    s = seats(game, rules, "greedy")
    s[0] = seats(game, rules, bot)[0]
    try:
        game.check_seats(rules, dict(zip(game.seat_names(rules), s, strict=True)), "bench")
    except Exception:  # noqa: BLE001  (a mode the search bot does not play)
        return None
    return s


def pair_rate(game: Game, rules: dict, s: list[SeatBot], seconds: float, repeats: int = 3) -> tuple[dict, int]:
    """Games/s of the seats s (chunks sized from one timed game), and the chunk size."""
    game.play_chunk(rules, s, 0, 1, 0)  # compile / load
    t0 = time.process_time()
    game.play_chunk(rules, s, FIRST, 1, 1)
    one = max(time.process_time() - t0, 1e-3)
    n = max(1, int(seconds / (repeats + 1) / one))
    return summarize(n, [time_chunk(game, rules, s, n) for _ in range(repeats)]), n


def mcts_rate(game: Game, rules: dict, s: list[SeatBot], seconds: float, repeats: int = 3) -> dict:
    """Games/s of mcts against greedy, and the search's iterations/s at these parameters: the
    mcts seat's decisions in the timed chunk's games (counted on their traces, untimed) times its
    iterations, over the chunk's CPU time (its fastest call, as games/s). Timing a few traced
    games once instead read 24,000-37,000 iterations/s for the same Race build; the chunk's
    calls are timed `repeats` times, like every games/s figure."""
    iterations = s[0].params["iterations"]
    out, n = pair_rate(game, rules, s, seconds, repeats)
    first = game.seat_names(rules)[0]
    decisions = 0
    for i in range(n):  # the chunk's own games: FIRST .. FIRST + n - 1 of run seed 1
        trace = game.play_traced(rules, s, FIRST + i, 1)
        rec = trace.data.get("rec")
        decisions += int((rec[:, 0] == 0).sum()) if rec is not None else sum(
            1 for m in trace.moves if m.get("seat") in (0, first))
    out["iterations"] = iterations
    out["prior_depth"] = s[0].params.get("prior_depth", 0)  # the root asks greedy (sim/engine/search.py)
    out["mcts_decisions"] = decisions
    out["iterations_per_second"] = round(decisions * iterations / max(out["seconds"], 1e-3), 1)
    return out


def playout_positions(game: Game, rules: dict, n: int) -> list[tuple]:
    """Up to n (tables, position, seat to move) spread evenly over the decisions of greedy-vs-greedy
    games FIRST, FIRST + 1 ... of run seed 1 (as many as give n decisions, at most 8 games; each
    position replayed from its game's start through the engine functions), or [] where the game
    offers no engine replay."""
    from sim import engine
    from sim.engine.rng import game_seed

    greedy = seats(game, rules, "greedy")
    replays, plies = [], []
    for gi in range(FIRST, FIRST + 8):
        got = game.engine_replay(rules, greedy, gi, 1)
        if got is None:
            return []
        replays.append((gi, *got))
        plies += [(len(replays) - 1, i) for i in range(got[1].shape[0]) if got[1][i, 1] != engine.SWAP_MOVE]
        if len(plies) >= n:
            break
    picked = [plies[int(k * len(plies) / n)] for k in range(n)] if len(plies) > n else plies
    out = []
    for g, ply in picked:
        gi, t, rec = replays[g]
        pos, rng = engine.start_at(t, np.uint64(game_seed(np.uint64(1), np.int64(gi))), np.int64(gi))
        for i in range(ply):
            if rec[i, 1] != engine.SWAP_MOVE:
                rng[0] = np.uint64(rec[i, 2])
                engine.play(t, pos, np.int64(rec[i, 1]), rng)
        out.append((t, pos, int(rec[ply, 0])))
    return out


def playout_rate(game: Game, rules: dict, s: list[SeatBot], seconds: float, repeats: int = 3) -> dict:
    """The playout target's measure: search iterations per CPU second of the search bot at its
    parameters in s[0] but with random rollouts to the end (`rollout = "random"`,
    `rollout_depth = 0`: every iteration copies the position, redraws what the seat cannot see,
    descends the tree and plays the game's random bot to the end), one decision at each of up to
    16 positions spread over greedy games (`playout_positions`), each timed `repeats` times
    (its fastest kept: see `rates`); playouts/s = all their iterations over the summed times.
    Each round also times a chunk of the mode's random games: `over_random_games_paired` is the
    median over rounds of that round's playouts/s over its random games/s (the target's ratio,
    both sides timed at the same machine speed)."""
    from sim import engine

    bot = s[0].bot
    params = {**s[0].params, "rollout": "random", "rollout_depth": 0}
    codes, par = engine.bot_arrays([SeatBot(bot, params)])

    def decide(t, pos, seat) -> float:
        rng = np.array([FIRST], np.uint64)
        t0 = time.process_time()
        engine.bot_choice(t, pos, seat, codes[0], par[0], rng)
        return time.process_time() - t0

    first = playout_positions(game, rules, 1)
    if not first:
        return {"iterations": int(params["iterations"]), "positions": 0, "repeats": repeats,
                "playouts_per_second": None}
    decide(*first[0])  # compile / load
    one = max(decide(*first[0]), 1e-4)
    positions = playout_positions(game, rules, int(min(16, max(4, seconds / (repeats * one)))))
    iterations = int(params["iterations"])
    # the mode's random games timed in the same rounds, a chunk as long as one pass over the
    # positions: this machine's speed swings by up to 1.5x within minutes (tri2p's random games
    # read 118,891 and 183,475 games/s four rounds apart), so a ratio to the random row timed
    # earlier in the bench measured the drift as much as the search
    has_random = "random" in [b.name for b in game.bots]
    rand = calibrate(game, rules, "random", one * len(positions)) if has_random else None
    times: list[list[float]] = [[] for _ in positions]
    ratios = []
    for _ in range(repeats):
        pass_times = [decide(*p) for p in positions]
        for t, dt in zip(times, pass_times, strict=True):
            t.append(dt)
        if rand is not None:
            games_per_second = rand[1] / time_chunk(game, rules, rand[0], rand[1])
            ratios.append(iterations * len(positions) / sum(pass_times) / games_per_second)
    best = [min(t) for t in times]
    paired = {"over_random_games_paired": round(float(np.median(ratios)), 2),
              "paired_ratios": [round(r, 3) for r in ratios]} if ratios else {}
    return {"iterations": iterations, "positions": len(positions), "repeats": repeats,
            "playouts_per_second": round(iterations * len(positions) / sum(best), 1), **paired,
            **rollouts_alone(game, rules, bot, positions, iterations, repeats)}


def rollouts_alone(game: Game, rules: dict, bot, positions: list[tuple], n: int, repeats: int) -> dict:
    """What a playout's rollout costs without the search, from the same positions: n rollouts of
    the search's random bot to the end from each, each from a copy with what its seat cannot see
    redrawn (`engine.redrawn_rollouts`; fastest of `repeats`), as rollouts/s; and the decisions
    they take on average against a whole random game's (rollouts from 200 set-ups of run seed 1):
    a playout from a position whose rollout runs longer than a game costs more than a game."""
    from sim import engine
    from sim.engine.rng import game_seed

    rand = getattr(bot, "random_bot", None)
    if rand is None:  # the engine's uniform bot: its rollouts are not the game's `rollout`
        return {}
    _, par = engine.bot_arrays([SeatBot(rand, {p.name: p.default for p in rand.params})])
    code = np.int64(rand.code)

    def run(t, pos, seat, count: bool) -> int:
        return int(engine.redrawn_rollouts(t, pos, seat, code, par[0], np.array([FIRST], np.uint64),
                                           np.int64(n), count))

    def timed(p) -> float:
        t0 = time.process_time()
        run(*p, False)
        return time.process_time() - t0

    run(*positions[0], False)  # compile / load
    best = [min(timed(p) for _ in range(repeats)) for p in positions]
    per_rollout = sum(run(*p, True) for p in positions) / (n * len(positions))
    t = positions[0][0]
    starts = [engine.start_at(t, np.uint64(game_seed(np.uint64(1), np.int64(gi))), np.int64(gi))[0]
              for gi in range(200)]
    per_game = sum(int(engine.redrawn_rollouts(t, p, engine.seat_to_move(t, p), code, par[0],
                                               np.array([gi + 1], np.uint64), np.int64(1), True))
                   for gi, p in enumerate(starts)) / len(starts)
    return {"rollouts_per_second": round(n * len(positions) / sum(best), 1),
            "rollout_decisions": round(per_rollout, 1), "game_decisions": round(per_game, 1)}


def warm_for_timing(name: str, part: str = "all") -> None:
    """Compile one part of a game: its `warm`, or, for a game that keeps the default no-op
    `warm` (a plug-in), two games of every mode with each bench bot."""
    game = games.get(name)
    if type(game).warm is not Game.warm:
        game.warm(part)
        return
    for _, overrides in game.modes():
        rules = game.resolve_rules(overrides, "bench")
        for bot in bench_bots(game):
            game.play_chunk(rules, seats(game, rules, bot), 0, 2, 0)


def compile_seconds(name: str, part: str = "all") -> float:
    """Compile one part of a game's kernels in a fresh process with an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = f"from sim.perf.bench import warm_for_timing; warm_for_timing({name!r}, {part!r})"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        return round(time.perf_counter() - t0, 1)


def scaling(variant_spec: str, games_n: int) -> dict:
    """Wall time of the real runner with 1 and 2 workers (same games, same table)."""
    import sim

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        # Start the 2 worker processes and load their kernels first (loky reuses them): the
        # timed runs then compare steady-state play, as in a long run; the 1-worker run plays
        # in this process, whose kernels are loaded already. Start-up is the per-chunk figure's.
        v = sim.load_variant(variant_spec)
        sim.run(v, 64, jobs=2, out=Path(tmp) / "warm", progress=False, chunk_size=8)
        for jobs in (1, 2):
            v = sim.load_variant(variant_spec)
            t0 = time.perf_counter()
            sim.run(v, games_n, jobs=jobs, out=Path(tmp) / f"j{jobs}", progress=False,
                    chunk_size=max(1, games_n // 16))
            out[f"jobs_{jobs}_seconds"] = round(time.perf_counter() - t0, 2)
        out["speedup_2_over_1"] = round(out["jobs_1_seconds"] / out["jobs_2_seconds"], 2)
        # per-chunk overhead: many one-game chunks through the runner vs one direct call
        v = sim.load_variant(variant_spec)
        n_small = 64
        t0 = time.perf_counter()
        sim.run(v, n_small, jobs=1, out=Path(tmp) / "small", progress=False, chunk_size=1)
        many = time.perf_counter() - t0
        t0 = time.perf_counter()
        v.game.play_chunk(v.rules, list(v.seats.values()), 0, n_small, 0)
        direct = time.perf_counter() - t0
        out["per_chunk_overhead_ms"] = round((many - direct) / n_small * 1000, 2)
    return {"variant": variant_spec, "games": games_n, **out}


# the runner against a bare loop (sim/perf/bare.py): random play, one variant each, as (variant
# or a fixture variant's file name, the file's text, the fixture); the engine fixtures of the
# guide (tests/fixtures) where the repository's tests are importable: Hex on 9x9 (about 71
# decisions a random game) and on 5x5 (about 21), and Nim on 41 stones (about 21, each much
# cheaper than a Hex move)
BARE = (("hexflow/race", None, None),
        ("hex9", 'game = "hex"\ndescription = "Hex 9x9."\n[rules]\nsize = 9\n', "hex"),
        ("hex5", 'game = "hex"\ndescription = "Hex 5x5."\n[rules]\nsize = 5\n', "hex"),
        ("nim", 'game = "nim"\ndescription = "Nim, 41 stones."\n[rules]\npile = 41\n', "nim"))


def bare_fixture(name: str):
    """The fixture game `name` registered, or None outside a checkout of the repository."""
    try:
        module = {"hex": "tests.fixtures.hexgame", "nim": "tests.fixtures.nim"}[name]
        game = importlib.import_module(module).GAME
    except ImportError:
        return None
    games.register(game)
    return game


def runner_rows(seconds: float, repeats: int) -> list[dict]:
    """`runner_against_bare` for each of BARE, sized so a bare round lasts about seconds / 4."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec, text, fixture in BARE:
            if text is not None:
                if bare_fixture(fixture) is None:
                    continue
                path = Path(tmp) / f"{spec}.toml"
                path.write_text(text)
                spec = str(path)
            v = load(spec, {f"seats.{s}": "random" for s in ("A", "B")})
            probe = runner_against_bare(v, 2_000, repeats=1)
            n = int(max(2_000, seconds / 4 / (probe["bare_us_per_game"] * 1e-6)))
            out.append(runner_against_bare(v, n, repeats))
    return out


def scaling_section(n: int) -> dict:
    """`scaling` of HEXFLOW Race greedy over n games, printed."""
    s = scaling("hexflow/race", n)
    print(f"scaling hexflow/race greedy, {n:,} games: 1 worker {s['jobs_1_seconds']} s, "
          f"2 workers {s['jobs_2_seconds']} s, speed-up {s['speedup_2_over_1']}x; "
          f"runner overhead {s['per_chunk_overhead_ms']} ms per chunk", flush=True)
    return s


def runner_section(seconds: float, repeats: int) -> list[dict]:
    """`runner_rows`, printed."""
    rows = runner_rows(max(seconds, 2.0), max(3, repeats // 3))
    for r in rows:
        print(f"runner {r['variant']:14s} {r['bot']} vs {r['bot']} ({r['turns_per_game']:.0f} turns a game): "
              f"hexsim run --jobs 1 {r['runner_us_per_game']} us "
              f"a game, a bare compiled loop {r['bare_us_per_game']} us: {r['runner_over_bare']:.2f}x the bare "
              f"loop's games/s ({r['games']:,} games a round)", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=4.0,
                    help="target CPU seconds per figure (split over the timed calls)")
    ap.add_argument("--repeats", type=int, default=9,
                    help="timed calls per figure, one per round; each figure keeps its fastest")
    ap.add_argument("--only", default=None, help="one game")
    ap.add_argument("--modes", default=None,
                    help="only these modes (comma-separated labels, e.g. tri2p,race) of the game(s)")
    ap.add_argument("--no-compile", action="store_true", help="skip the empty-cache compile timing")
    ap.add_argument("--no-scaling", action="store_true", help="skip the 1-vs-2-worker run")
    ap.add_argument("--no-runner", action="store_true", help="skip the runner against a bare loop")
    ap.add_argument("--scaling-games", type=int, default=0,
                    help="games for the 1-vs-2-worker run (default: 20 s of greedy play)")
    ap.add_argument("--out", default="reports/bench.json")
    args = ap.parse_args(argv)
    result = {"machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                          "processor": platform.processor() or platform.machine()},
              "games": {}}
    names = [args.only] if args.only else games.listed()
    wanted = set(args.modes.split(",")) if args.modes else None

    def modes(game: Game) -> list:
        return [(label, rules) for label, rules in game.modes() if wanted is None or label in wanted]
    figures = []  # (game name, key, rules, bot)
    for name in names:
        game = games.get(name)
        entry = result["games"].setdefault(name, {})
        if not args.no_compile:
            # each part alone from an empty cache: what a designer waits for who plays only it
            parts = {part: compile_seconds(name, part) for part, _ in game.warm_parts}
            entry["compile_seconds_empty_cache"] = round(sum(parts.values()), 1)
            entry["compile_seconds_by_part"] = parts
            detail = "" if list(parts) == ["all"] else " (" + ", ".join(
                f"{p} {s} s" for p, s in parts.items()) + ", each from an empty cache)"
            print(f"{name}: compile with an empty cache {entry['compile_seconds_empty_cache']} s"
                  f"{detail}", flush=True)
        figures += [(name, f"{label}/{bot}", game.resolve_rules(rules, "bench"), bot)
                    for label, rules in modes(game) for bot in bench_bots(game)]
    # every figure of every game in rounds (see rates): drift hits them all alike
    timed = rates([(games.get(name), rules, bot) for name, _, rules, bot in figures], args.seconds,
                  args.repeats)
    for (name, key, _, bot), r in zip(figures, timed, strict=True):
        result["games"][name][key] = r
        print(f"{name:9s} {key.split('/')[0]:12s} {bot:7s} vs {bot:7s} "
              f"{r['games_per_second']:>12,.0f} games/s per core "
              f"(median of {r['repeats']}: {r['median_games_per_second']:,.0f})", flush=True)
    # the search bot against greedy, where a game and mode offer it (issue: an mcts row per mode)
    for name in names:
        game = games.get(name)
        for label, overrides in modes(game):
            rules = game.resolve_rules(overrides, "bench")
            s = mcts_seats(game, rules)
            if s is None:
                continue
            r = mcts_rate(game, rules, s, args.seconds)
            r["playout"] = p = playout_rate(game, rules, s, args.seconds)
            rnd = result["games"][name].get(f"{label}/random", {}).get("games_per_second")
            rnd = rnd if p["playouts_per_second"] else None
            p["over_random_games"] = round(p["playouts_per_second"] / rnd, 2) if rnd else None
            result["games"][name][f"{label}/mcts_vs_greedy"] = r
            prior = f", prior_depth {r['prior_depth']}" if r["prior_depth"] else ""
            ratio = ""
            if p.get("over_random_games_paired") is not None:
                row = f"; {p['over_random_games']:.2f}x the random row above" if rnd else ""
                ratio = (f" = {p['over_random_games_paired']:.2f}x the random games/s timed in the same rounds "
                         f"(target 0.5x{row})")
            elif rnd:
                ratio = f" = {p['over_random_games']:.2f}x the random games/s (target 0.5x)"
            if p.get("rollouts_per_second"):
                p["over_rollouts"] = round(p["playouts_per_second"] / p["rollouts_per_second"], 2)
                ratio += (f"; the rollouts alone from the same positions {p['rollouts_per_second']:,.0f}/s "
                          f"(playouts {p['over_rollouts']:.2f}x that), {p['rollout_decisions']} decisions "
                          f"each against a random game's {p['game_decisions']}")
            print(f"{name:9s} {label:12s} mcts({r['iterations']}{prior}) vs greedy "
                  f"{r['games_per_second']:>8,.1f} games/s per core, {r['iterations_per_second']:,.0f} "
                  f"iterations/s; playouts (random rollouts to the end) {p['playouts_per_second'] or 0:,.0f}/s"
                  f"{ratio}", flush=True)
            # the middle rung (one reply ahead), where a mode offers it
            s = mcts_seats(game, rules, "lookahead")
            if s is not None:
                r, _ = pair_rate(game, rules, s, args.seconds)
                result["games"][name][f"{label}/lookahead_vs_greedy"] = r
                print(f"{name:9s} {label:12s} lookahead vs greedy {r['games_per_second']:>8,.1f} games/s per core",
                      flush=True)
    if "hexflow" in names and not args.no_scaling:
        gps = result["games"]["hexflow"].get("race/greedy", {}).get("games_per_second", 2000)
        result["scaling"] = scaling_section(args.scaling_games or int(max(2000, gps * 20)))
    if args.only is None and args.modes is None and not args.no_runner:
        result["runner_against_bare"] = runner_section(args.seconds, args.repeats)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
