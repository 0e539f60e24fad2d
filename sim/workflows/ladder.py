"""`hexsim ladder VARIANT --bot ...`: Elo ratings, skill depth and the balance by skill.

The ladder is a list of bots in the order given (weakest first, as a designer lists them) or a
budget-doubling chain (`--doubling mcts:iterations=50 --rungs 6`). Every game goes through the
runner (`sim.run`): each pairing is a variant whose seats are its two bots, played with seats
rotated, in its own resumable run folder, identical for any --jobs, chunk size or backend.

Which games:
- `--pairs neighbours` (the default): each bot against the next one in the ladder, k - 1
  pairings; `--pairs all`: every pair, k (k - 1) / 2. Neighbours are enough for a connected
  Bradley-Terry fit and for the skill depth, and keep the cost linear in the number of rungs.
- every bot also plays itself: the "by skill" numbers (how the game plays at that strength).
- 3-4 seats: a pairing (a, b) plays the line-ups a..ab..b with a in the first j seats, j = 1 ..
  seats - 1, each rotated over every seat, so both bots hold every seat equally often. A game
  counts as a win for the bot whose seat won (draws half each); this ranks by the game's own
  winner, not by a Plackett-Luce fit over finishing orders, because a line-up holds the same
  bot more than once and Plackett-Luce needs distinct items in an order.

Agreement (sim.agreement): for each rung above the first, the share of sampled decisions of its
self-play games at which the rung below would pick the same move. The ceiling: a bot that sees
hidden state (`oracle`, sim.stats.skill.cheats) is no rung; it plays greedy (else the top rung) apart,
and takes no part in the ratings, the skill depth or the by-skill rows.

Ratings: Bradley-Terry maximum likelihood by choix (I-LSR, dense), draws as half a win, a prior of
`smoothing` games won each way added to every pair that played (OpenSpiel's smoothing, without
linking pairs that never met), as Elo (400 log10 of the strength ratio), anchored so that
`random` is 0 when it is on the ladder, otherwise the first rung. 95% intervals: percentile
bootstrap over games (each pairing's games resampled, refitted). Ludii's SkillTrace and the
skill depth are defined in `skill_trace` and `skill_depth`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.errors import UserError
from sim.games.base import Game, SeatBot
from sim.reports.ladder import write_ladder
from sim.runs.folder import load_run, non_win_reasons
from sim.runs.runner import rotated
from sim.runs.runner import run as run_variant
from sim.runs.seeds import derived_seed
from sim.runs.variants import Variant, load
from sim.stats import agreement
from sim.stats.agreement import COLUMNS as AGREEMENT_COLUMNS
from sim.stats.ladder import (  # noqa: F401  (re-exported: sim.ladder's tables and result)
    CEILING_COLUMNS,
    DEFAULT_AGREEMENT,
    DEPTH_SHARE,
    ELO_PER_NAT,
    PAIRING_COLUMNS,
    RATING_COLUMNS,
    SMOOTHING,
    Depth,
    LadderResult,
    Pairing,
    SkillTables,
    agreement_words,
    by_skill_row,
    ceiling_row,
    ceiling_words,
    depth_law,
    fit_elo,
    outcomes,
    pairing_counts,
    skill_depth,
    skill_tables,
    skill_trace,
    strong_seat_counts,
)
from sim.stats.skill import cheats as sees_hidden
from sim.workflows.compare import run_folder
from sim.workflows.sequential import SequentialTest


# ---- bot specs ---------------------------------------------------------------------------------
def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_bot(game: Game, spec: str, rules: dict | None = None) -> SeatBot:
    """`NAME[:param=value[:param=value...]]` -> a resolved bot, validated like a variant's seat
    (with `rules`, the game's defaults for them: Game.bot_defaults)."""
    where = f"--bot {spec}"
    name, *pairs = spec.split(":")
    bot = game.bot(name.strip(), where)
    allowed = [p.name for p in bot.params]
    params = game.bot_params(rules, bot) if rules else {p.name: p.default for p in bot.params}
    for item in pairs:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise UserError(f"{where}: '{item}' is not param=value; a bot spec is "
                            f"NAME[:param=value...]; {name}'s parameters: {', '.join(allowed) or '(none)'}")
        if key not in allowed:
            raise UserError(f"{where}: {name} has no parameter '{key}'; allowed: {', '.join(allowed) or '(none)'}")
        param = next(p for p in bot.params if p.name == key)
        params[key] = param.check(_value(text.strip()), where)
    return SeatBot(bot, params)


def rung_name(b: SeatBot, spec: str) -> str:
    """The name a rung shows: its bot with the parameters the spec names (even at their default,
    so `mcts:iterations=200` reads as such) and any other non-default ones."""
    named = [item.partition("=")[0].strip() for item in spec.split(":")[1:]]
    defaults = {p.name: p.default for p in b.bot.params}
    keys = [k for k in b.params if k in named or b.params[k] != defaults[k]]
    return f"{b.bot.name}({','.join(f'{k}={b.params[k]}' for k in keys)})" if keys else b.bot.name


def doubling_chain(game: Game, spec: str, rungs: int, rules: dict | None = None) -> tuple[list[SeatBot], str]:
    """`rungs` bots from `spec`, the first parameter named in it doubled from rung to rung."""
    if rungs < 2:
        raise UserError(f"--rungs {rungs}: a chain needs at least 2 rungs")
    first = parse_bot(game, spec, rules)
    named = [item.partition("=")[0].strip() for item in spec.split(":")[1:]]
    if not named:
        numeric = [p.name for p in first.bot.params if p.kind in ("int", "float")]
        raise UserError(f"--doubling {spec}: name the parameter to double, e.g. "
                        f"{first.bot.name}:{numeric[0] if numeric else 'PARAM'}=50; "
                        f"numeric parameters: {', '.join(numeric) or '(none)'}")
    key = named[0]
    param = next(p for p in first.bot.params if p.name == key)
    if param.kind not in ("int", "float"):
        raise UserError(f"--doubling {spec}: {key} is a {param.kind}; only an int or float doubles")
    chain = []
    for r in range(rungs):
        value = first.params[key] * 2 ** r
        chain.append(SeatBot(first.bot, {**first.params, key: param.check(
            int(value) if param.kind == "int" else float(value), f"--doubling {spec} (rung {r + 1})")}))
    return chain, key


# ---- playing -----------------------------------------------------------------------------------
def _seat_spec(b: SeatBot) -> dict[str, Any]:
    return {"bot": b.bot.name, **b.params}


def lineups(base: Variant, a: SeatBot, b: SeatBot) -> list[Variant]:
    """The variants a pairing plays: a in the first j seats, b in the others (j = 1 .. seats - 1);
    the runner rotates each over every seat. One line-up (rotated) for two seats."""

    seats = base.seat_names
    out = []
    for j in range(1, len(seats)):
        over = {f"seats.{s}": _seat_spec(a if i < j else b) for i, s in enumerate(seats)}
        out.append(load(base.path or base.name, {**base.overrides, **over}))
    return out


def self_lineup(base: Variant, a: SeatBot) -> Variant:

    return load(base.path or base.name, {**base.overrides, **{f"seats.{s}": _seat_spec(a) for s in base.seat_names}})


def _play_pairing(base: Variant, a: SeatBot, b: SeatBot, games: int, seed: int, runs_dir: Path,
                  run_kw: dict[str, Any], sequential: dict[str, Any] | None, names: dict[str, str]) -> Pairing:

    variants = lineups(base, a, b)
    seats = len(base.seat_names)
    per_batch = len(variants) * seats  # games of one seed across every line-up and rotation
    pairing = Pairing(a.label(), b.label())
    test = SequentialTest(sequential["margin"]) if sequential else None
    batch = sequential["batch"] if sequential else games
    played, k = 0, 0
    while played < games:
        n = min(batch, games - played)
        g = max(1, math.ceil(n / per_batch))
        frames = []
        for j, v in enumerate(variants):
            s = derived_seed(seed, pairing.a, pairing.b, j, k if sequential else "all")
            path = runs_dir / run_folder(f"pair{j}" + (f"-b{k}" if sequential else ""), v, g, s, True)
            r = run_variant(v, g, seed=s, out=path, rotate_seats=True, **run_kw)
            pairing.runs.append(path)
            pairing.played_now += r.manifest["timings"]["games_played_now"]
            pairing.resumed += r.manifest["timings"]["games_resumed"]
            if test is not None:
                frames.append(outcomes(r.table(["winner", *[f"bot_{x}" for x in v.seat_names]]),
                                        v.seat_names, pairing.a))
        played += g * per_batch
        k += 1
        if test is not None:
            # d = +1 when b won, -1 when a won, 0 for a draw: its mean is P(b wins) - P(a wins)
            d = -np.concatenate(frames)
            decision = test.update(d)
            if decision is not None and decision.startswith("changed") and played < games:
                pairing.stopped_early = True
                stronger = names.get(pairing.b if decision.endswith("up") else pairing.a)
                pairing.decision = (f"stopped after {played:,} games: the GSPRT favours {stronger} winning "
                                    f"{test.margin:g} more often than the other over an even pairing")
                break
    if test is not None and not pairing.stopped_early:
        pairing.decision = f"played all {played:,} games (GSPRT: {test.decision() or 'undecided'})"
    return pairing


def ceiling_reference(fair: Sequence[SeatBot]) -> SeatBot:
    """The fair rung a ceiling bot plays: greedy when it is on the ladder, else the top rung."""
    return next((b for b in fair if b.bot.name == "greedy"), fair[-1])


def _agreements(base: Variant, fair: Sequence[SeatBot], names: dict[str, str], self_games: int, seed: int,
                sample: int, out: Path) -> pd.DataFrame:
    """Each rung above the first against the rung below, over its self-play games (sim.agreement).
    A rung measured before with the same variant, rules code, bots, seeds and sample is read back
    from OUT/agreement-cache.json (a resumed ladder replays no game for it)."""


    path = out / "agreement-cache.json"
    cache = json.loads(path.read_text()) if path.exists() else {}
    rows = []
    for lo, up in zip(fair[:-1], fair[1:], strict=True):
        v = self_lineup(base, up)
        run_seed, draw_seed = derived_seed(seed, up.label(), "self"), derived_seed(seed, up.label(), lo.label(), "agree")
        key = json.dumps([base.hash, base.game.code_hash(), up.label(), lo.label(), run_seed, draw_seed, sample,
                          self_games])
        if key not in cache:
            got = agreement.sample_agreement(base.game, v.rules, [b for _, b in rotated(v.seats, 0)], lo, run_seed,
                                             self_games, sample, draw_seed)
            cache[key] = agreement.agreement_row(up.label(), lo.label(), got)
        rows.append(cache[key] | {"bot": names[up.label()], "below": names[lo.label()]})
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cache, indent=1, default=float))
    return agreement.frame(rows)


def _ceilings(base: Variant, fair: Sequence[SeatBot], cheats: Sequence[SeatBot], games: int, seed: int,
              runs_dir: Path, run_kw: dict[str, Any], names: dict[str, str]) -> tuple[pd.DataFrame, int, int]:
    """Each cheating bot against `ceiling_reference(fair)`: (CEILING_COLUMNS frame, games played
    now, games resumed)."""

    ref = ceiling_reference(fair)
    rows, now, resumed = [], 0, 0
    for c in cheats:
        p = _play_pairing(base, ref, c, games, seed, runs_dir, run_kw, None, names)
        now, resumed = now + p.played_now, resumed + p.resumed
        rows.append(ceiling_row([load_run(x) for x in p.runs], p.b, p.a, names))
    return pd.DataFrame(rows, columns=CEILING_COLUMNS), now, resumed


def ladder(variant: str | Variant, bots: Sequence[str] = (), games: int = 1000, doubling: str | None = None,
           rungs: int = 6, pairs: str = "neighbours", seed: int = 0, jobs: int | None = None,
           out: str | Path | None = None, sequential: bool = False, margin: float = 0.1,
           batch: int = 200, backend: str = "loky", scheduler: str | None = None,
           progress: bool = False, n_boot: int = 1000, write: bool = True,
           self_games: int | None = None, agreement: int = DEFAULT_AGREEMENT) -> LadderResult:
    """Play the ladder and return its tables (see the module docstring); with `write`, also
    ratings.csv, pairings.csv, by_skill.csv, skill_depth.csv, agreement.csv, ceiling.csv,
    ladder.json, ladder.md and ladder.html in `out`. `self_games`: games of each bot against
    itself (default `games`): the by-skill rows' precision, e.g. +/-3 points on the first mover's
    share at about 1,100. `agreement`: decisions sampled per rung for its agreement with the rung
    below (sim.agreement; 0: none). A bot that sees hidden state (`oracle`, sim.stats.skill.cheats) is
    no rung: it plays greedy (else the top rung) as the ceiling of skill."""

    base = variant if isinstance(variant, Variant) else load(variant)
    game = base.game
    ladder_bots = [parse_bot(game, s, base.rules) for s in bots]
    shown = [rung_name(b, s) for b, s in zip(ladder_bots, bots, strict=True)]
    budgets, key = None, None
    if doubling:
        chain, key = doubling_chain(game, doubling, rungs, base.rules)
        budgets = [float(b.params[key]) for b in chain]
        ladder_bots += chain
        shown += [rung_name(b, doubling) for b in chain]
        if bots:
            budgets = None  # a mixed ladder: rungs are not one budget axis
    if len(ladder_bots) < 2:
        raise UserError("ladder: give at least two bots (--bot NAME[:param=value...], repeated) "
                        "or --doubling SPEC --rungs N")
    labels = [b.label() for b in ladder_bots]
    names = dict(zip(labels, shown, strict=True))
    dup = sorted({names[x] for x in labels if labels.count(x) > 1})
    if dup:
        raise UserError(f"--bot: {', '.join(dup)} given twice; every rung must be a different bot")

    cheats = [b for b in ladder_bots if sees_hidden(b.bot.name)]
    ladder_bots = [b for b in ladder_bots if not sees_hidden(b.bot.name)]
    if len(ladder_bots) < 2:
        raise UserError(f"ladder: {', '.join(names[b.label()] for b in cheats)} sees every hidden hand: "
                        "it is the ceiling of skill, not a rung; give at least two bots of fair play too")
    order = [b.label() for b in ladder_bots]
    if agreement < 0:
        raise UserError(f"--agreement {agreement}: must be at least 0 (0: no agreement measured)")
    if pairs not in ("neighbours", "all"):
        raise UserError(f"--pairs {pairs}: allowed: neighbours, all")
    if games < 1:
        raise UserError(f"--games {games}: must be at least 1")
    self_games = games if self_games is None else self_games
    if self_games < 1:
        raise UserError(f"--self-games {self_games}: must be at least 1")
    if sequential and not 0 < margin < 1:
        raise UserError(f"--margin {margin}: must be in (0, 1)")
    if batch < 1:
        raise UserError(f"--batch {batch}: must be at least 1")
    out = Path(out) if out is not None else Path("reports") / f"ladder-{base.name.replace('/', '-')}"
    runs_dir = out / "runs"
    run_kw = {"jobs": jobs, "backend": backend, "scheduler": scheduler, "progress": progress}
    plan = [(i, i + 1) for i in range(len(order) - 1)] if pairs == "neighbours" else \
        [(i, j) for i in range(len(order)) for j in range(i + 1, len(order))]
    t0 = time.perf_counter()

    played: dict[tuple[str, str], Pairing] = {}
    for i, j in plan:
        p = _play_pairing(base, ladder_bots[i], ladder_bots[j], games, seed, runs_dir, run_kw,
                          {"margin": margin, "batch": batch} if sequential else None, names)
        played[(p.a, p.b)] = p
    self_paths = {}
    now = sum(p.played_now for p in played.values())
    resumed = sum(p.resumed for p in played.values())
    for b in ladder_bots:
        v = self_lineup(base, b)
        s = derived_seed(seed, b.label(), "self")
        path = runs_dir / run_folder("self", v, self_games, s)
        t = run_variant(v, self_games, seed=s, out=path, **run_kw).manifest["timings"]
        now, resumed = now + t["games_played_now"], resumed + t["games_resumed"]
        self_paths[b.label()] = path
    ceiling, c_now, c_resumed = _ceilings(base, ladder_bots, cheats, games, seed, runs_dir, run_kw, names) \
        if cheats else (pd.DataFrame(columns=CEILING_COLUMNS), 0, 0)
    now, resumed = now + c_now, resumed + c_resumed
    agree = _agreements(base, ladder_bots, names, self_games, seed, agreement, out) if agreement else \
        pd.DataFrame(columns=AGREEMENT_COLUMNS)
    wall = time.perf_counter() - t0

    pair_runs = {key_: [load_run(p) for p in pr.runs] for key_, pr in played.items()}
    self_runs = {b: load_run(p) for b, p in self_paths.items()}
    first_run = next(iter(self_runs.values()))
    tables = skill_tables(pair_runs, self_runs, order, non_win_reasons(first_run), played, n_boot, seed,
                          names=names)
    res = LadderResult(base, tables, budgets, key, games, seed, pairs, wall, out,
                       {names[b.label()]: {"bot": b.bot.name, **b.params} for b in ladder_bots}, now, resumed,
                       agreement=agree, ceiling=ceiling)
    if write:

        res.files = write_ladder(res)
    return res
