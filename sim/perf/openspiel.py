"""`make bench-openspiel`: the search bot against OpenSpiel's C++ MCTS on Hex, iterations per second
at equal settings, timed in alternating rounds.

Both sides search the same decisions: Hex on a size x size rhombus, from the empty board and
from positions a few random stones in (each side's own random stones: the cost of a decision
depends on the empty cells, which both have alike). Settings: UCT with exploration c (OpenSpiel's
`uct_c`, hexsim's `c`), one uniform random rollout to the end of the game per iteration, no
prior, no solver or win check, the tree search at the root; `iterations` simulations a
decision. OpenSpiel's side is `pyspiel.MCTSBot` with a `RandomRolloutEvaluator(1)`, run in
another Python (`--python`, an environment with `open_spiel` installed: the Makefile target
makes one beside the project's, never a dependency of hexsim). hexsim's side is the `mcts` bot
of the guide's Hex fixture (tests/fixtures/hexgame), so this needs a checkout of the repository.

    python -m sim.perf.openspiel --python .venv-openspiel/bin/python [--size 7] [--iterations 1000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from sim import engine
from sim.games.base import SeatBot
from sim.perf.bench import bare_fixture

# OpenSpiel's side, run by the other interpreter: argv size, iterations, c, decisions, stones, seed;
# prints the seconds its decisions took and the simulations they ran
THEIRS = r"""
import json, sys, time
import numpy as np
import pyspiel
size, iters, c, decisions, stones, seed = (int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]),
                                           int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
game = pyspiel.load_game(f"hex(board_size={size})")
rng = np.random.default_rng(seed)
bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), c, iters, 1 << 12, False, seed, False)
states = []
for d in range(decisions):
    s = game.new_initial_state()
    for _ in range(stones * (d % 3)):
        s.apply_action(int(rng.choice(s.legal_actions())))
    states.append(s)
bot.step(states[0].clone())  # warm
t0 = time.process_time()
for s in states:
    bot.step(s)
print(json.dumps({"seconds": time.process_time() - t0, "iterations": iters * len(states)}))
"""


def theirs(python: str, size: int, iters: int, c: float, decisions: int, stones: int, seed: int) -> dict:
    out = subprocess.run([python, "-c", THEIRS, str(size), str(iters), str(c), str(decisions), str(stones),
                          str(seed)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def ours(size: int, iters: int, c: float, decisions: int, stones: int, seed: int) -> dict:
    """The same decisions searched by the Hex fixture's `mcts`, in this process."""
    game = bare_fixture("hex")
    if game is None:
        raise SystemExit("sim.perf.openspiel needs a checkout of the repository (tests/fixtures/hexgame)")
    rules = game.resolve_rules({"size": size}, "openspiel")
    t = game.tables(rules)
    b = game.bot("mcts", "openspiel")
    params = {p.name: p.default for p in b.params}
    params.update(iterations=iters, c=c, rollout="random", rollout_depth=0, prior_depth=0, prior=0.0,
                  win_check=0, root="uct")
    codes, par = engine.bot_arrays([SeatBot(b, params)])
    gen = np.random.default_rng(seed)
    states = []
    for d in range(decisions):
        pos, _ = engine.start(t, np.uint64(seed + d))
        for _ in range(stones * (d % 3)):
            moves = engine.moves_of(t, pos)
            engine.play(t, pos, np.int64(moves[gen.integers(len(moves))]), np.zeros(1, np.uint64))
        states.append(pos)
    rng = np.array([seed], np.uint64)

    def decide(pos) -> None:
        engine.bot_choice(t, pos, int(engine.seat_to_move(t, pos)), codes[0], par[0], rng)

    decide(states[0])  # compile or load
    t0 = time.process_time()
    for pos in states:
        decide(pos)
    return {"seconds": time.process_time() - t0, "iterations": iters * len(states)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", required=True, help="a Python with open_spiel installed")
    ap.add_argument("--size", type=int, default=7)
    ap.add_argument("--iterations", type=int, default=1000, help="simulations per decision, both sides")
    ap.add_argument("--c", type=float, default=2.0, help="UCT exploration, both sides (OpenSpiel's default)")
    ap.add_argument("--decisions", type=int, default=12, help="decisions per round")
    ap.add_argument("--stones", type=int, default=8, help="random stones before every second and third decision")
    ap.add_argument("--rounds", type=int, default=4, help="rounds, each timing both sides in turn")
    a = ap.parse_args(argv)
    rounds = []  # per round: iterations/s of each side, timed one after the other (order alternates)
    for r in range(a.rounds):
        args = (a.size, a.iterations, a.c, a.decisions, a.stones, 100 + r)
        got = {}
        for side in ("openspiel", "hexsim")[::1 if r % 2 == 0 else -1]:
            res = theirs(a.python, *args) if side == "openspiel" else ours(*args)
            got[side] = res["iterations"] / res["seconds"]
        rounds.append(got)
    print(f"Hex {a.size}x{a.size}, {a.iterations} iterations a decision, c = {a.c}, one random rollout each, "
          f"{a.decisions} decisions a round, {a.rounds} rounds (CPU time of each process)")
    for side in ("openspiel", "hexsim"):
        each = ", ".join(f"{g[side]:,.0f}" for g in rounds)
        print(f"  {side:9s} {max(g[side] for g in rounds):>9,.0f} iterations/s (rounds: {each})")
    ratios = [g["hexsim"] / g["openspiel"] for g in rounds]
    print(f"  hexsim / OpenSpiel C++: {max(g['hexsim'] for g in rounds) / max(g['openspiel'] for g in rounds):.2f}x "
          f"(fastest of each; per round {min(ratios):.2f}-{max(ratios):.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
