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
hidden state (`oracle`, sim.skill.cheats) is no rung; it plays greedy (else the top rung) apart,
and takes no part in the ratings, the skill depth or the by-skill rows.

Ratings: Bradley-Terry maximum likelihood by choix (I-LSR, dense), draws as half a win, a prior of
`smoothing` games won each way added to every pair that played (OpenSpiel's smoothing, without
linking pairs that never met), as Elo (400 log10 of the strength ratio), anchored so that
`random` is 0 when it is on the ladder, otherwise the first rung. 95% intervals: percentile
bootstrap over games (each pairing's games resampled, refitted). Ludii's SkillTrace and the
skill depth are defined in `skill_trace` and `skill_depth`.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import beta
from statsmodels.stats.proportion import proportion_confint

from sim import _callable_module, display, stats
from sim.agreement import COLUMNS as AGREEMENT_COLUMNS
from sim.errors import UserError
from sim.games.base import Game, SeatBot, end_reason_groups
from sim.variants import Variant

ELO_PER_NAT = 400.0 / math.log(10.0)
SMOOTHING = 0.1  # OpenSpiel's default prior games per pair and direction
DEFAULT_AGREEMENT = 200  # decisions sampled per rung for its agreement with the rung below
DEPTH_SHARE = 0.55  # a rung "beats the one below" at >= 55% of decisive games, lower bound > 50%
RATING_COLUMNS = ["bot", "elo", "elo_low", "elo_high", "games", "gap_below", "gap_below_low",
                  "gap_below_high", "note"]
CEILING_COLUMNS = ["bot", "against", "games", "wins", "wins_against", "draws", "decisive_share",
                   "decisive_share_low", "decisive_share_high", "against_share", "against_share_low",
                   "against_share_high"]
PAIRING_COLUMNS = ["bot_a", "bot_b", "games", "wins_a", "wins_b", "draws", "score_a", "score_a_low",
                   "score_a_high", "decisive_share_b", "decisive_share_b_low", "decisive_share_b_high",
                   "upset_rate", "stopped_early", "decision"]


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
    params = {**{p.name: p.default for p in bot.params}, **(game.bot_defaults(rules, bot.name) if rules else {})}
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
def _derived_seed(seed: int, *parts: Any) -> int:
    """A run seed for one pairing, line-up and batch, from the ladder seed and the bots' labels
    (not their positions, so adding a rung leaves the other pairings' games as they were)."""
    text = "|".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def _seat_spec(b: SeatBot) -> dict[str, Any]:
    return {"bot": b.bot.name, **b.params}


def lineups(base: Variant, a: SeatBot, b: SeatBot) -> list[Variant]:
    """The variants a pairing plays: a in the first j seats, b in the others (j = 1 .. seats - 1);
    the runner rotates each over every seat. One line-up (rotated) for two seats."""
    from sim.variants import load

    seats = base.seat_names
    out = []
    for j in range(1, len(seats)):
        over = {f"seats.{s}": _seat_spec(a if i < j else b) for i, s in enumerate(seats)}
        out.append(load(base.path or base.name, {**base.overrides, **over}))
    return out


def self_lineup(base: Variant, a: SeatBot) -> Variant:
    from sim.variants import load

    return load(base.path or base.name, {**base.overrides, **{f"seats.{s}": _seat_spec(a) for s in base.seat_names}})


@dataclass
class Pairing:
    a: str
    b: str
    runs: list[Path] = field(default_factory=list)
    played_now: int = 0  # games this call played (the rest were resumed from the run folders)
    resumed: int = 0
    stopped_early: bool = False
    decision: str = ""


def _play_pairing(base: Variant, a: SeatBot, b: SeatBot, games: int, seed: int, runs_dir: Path,
                  run_kw: dict[str, Any], sequential: dict[str, Any] | None, names: dict[str, str]) -> Pairing:
    import sim
    from sim.compare import run_folder
    from sim.sequential import SequentialTest

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
            s = _derived_seed(seed, pairing.a, pairing.b, j, k if sequential else "all")
            path = runs_dir / run_folder(f"pair{j}" + (f"-b{k}" if sequential else ""), v, g, s, True)
            r = sim.run(v, g, seed=s, out=path, rotate_seats=True, **run_kw)
            pairing.runs.append(path)
            pairing.played_now += r.manifest["timings"]["games_played_now"]
            pairing.resumed += r.manifest["timings"]["games_resumed"]
            if test is not None:
                frames.append(_outcomes(r.table(["winner", *[f"bot_{x}" for x in v.seat_names]]),
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


def _outcomes(df: pd.DataFrame, seats: Sequence[str], a: str) -> np.ndarray:
    """Per game: +1 when a seat of bot `a` won, -1 when another bot's seat won, 0 for a draw."""
    w = df["winner"].to_numpy().astype(np.int64)
    labels = np.stack([df[f"bot_{s}"].astype(str).to_numpy() for s in seats], axis=1)
    won = labels[np.arange(len(w)), np.clip(w, 0, None)]
    return np.where(w < 0, 0.0, np.where(won == a, 1.0, -1.0))


# ---- the analysis, from run folders ------------------------------------------------------------
def _bots_of(run) -> list[str]:
    from sim.reporting import _seat_bot_labels

    return _seat_bot_labels(run)


def pairing_counts(runs: Sequence, a: str, b: str) -> tuple[int, int, int]:
    """(wins of a, wins of b, draws) over the games of runs seating exactly the bots a and b."""
    wa = wb = d = 0
    for run in runs:
        o = _outcomes(run.df, run.seats, a)
        wa += int((o > 0).sum())
        wb += int((o < 0).sum())
        d += int((o == 0).sum())
    return wa, wb, d


def ceiling_row(runs: Sequence, bot: str, against: str, names: dict[str, str] | None = None) -> dict[str, Any]:
    """The ceiling's line (CEILING_COLUMNS): the cheating bot's share of the decisive games against
    `against` and `against`'s share of all games (what luck still decides), with Wilson intervals."""
    nm = names or {}
    wa, wb, d = pairing_counts(runs, against, bot)
    won, luck = stats.wilson(wb, wa + wb), stats.wilson(wa, wa + wb + d)
    return {"bot": nm.get(bot, bot), "against": nm.get(against, against), "games": wa + wb + d, "wins": wb,
            "wins_against": wa, "draws": d, "decisive_share": won.value, "decisive_share_low": won.low,
            "decisive_share_high": won.high, "against_share": luck.value, "against_share_low": luck.low,
            "against_share_high": luck.high}


def strong_seat_counts(runs: Sequence, strong: str) -> tuple[int, int, int]:
    """(won, drawn, lost) by bot `strong` over the games of runs where it holds exactly one seat
    (every run of a two-seat pairing; the line-up with the other bot on every other seat else)."""
    won = drawn = lost = 0
    for run in runs:
        if _bots_of(run).count(strong) != 1:
            continue
        o = _outcomes(run.df, run.seats, strong)
        won += int((o > 0).sum())
        drawn += int((o == 0).sum())
        lost += int((o < 0).sum())
    return won, drawn, lost


def fit_elo(scores: np.ndarray, played: np.ndarray, smoothing: float = SMOOTHING) -> np.ndarray:
    """Bradley-Terry ratings in Elo (mean 0) from scores[i, j] = wins of i over j plus half the
    draws; `smoothing` games each way are added to every pair that played (played[i, j])."""
    import choix

    w = np.asarray(scores, dtype=np.float64) + smoothing * np.asarray(played, dtype=bool)
    np.fill_diagonal(w, 0.0)
    theta = choix.ilsr_pairwise_dense(w, max_iter=100_000, tol=1e-13)
    r = ELO_PER_NAT * (theta - theta.mean())
    return r


def skill_trace(utilities: Sequence[float]) -> float:
    """Ludii's SkillTrace (metrics.designer.SkillTrace) from the strong side's mean utility per
    level (win 1, draw 0, loss -1 in a two-player game; level k: budget 2^(k+1) against 2^k):
    a least-squares line through (k, u_k), k = 0 .. M - 1, predicted at M + 1 and clamped to
    [0, 1] gives y; the area is the sum of max(u_k, 0); SkillTrace = y + (1 - y) area / M.
    With one level the line is undefined (Ludii's regression divides by zero): NaN."""
    u = np.asarray(utilities, dtype=np.float64)
    m = u.size
    if m < 2 or np.isnan(u).any():
        return math.nan
    from scipy.stats import linregress

    fit = linregress(np.arange(m, dtype=np.float64), u)
    y = fit.intercept + fit.slope * (m + 1)
    y = min(max(y, 0.0), 1.0)
    area = float(np.maximum(u, 0.0).sum())
    return float(y + (1 - y) * area / m)


@dataclass
class Depth:
    depth: int
    steps: pd.DataFrame  # lower, upper, decisive, upper_wins, share, low, high, beats, p_real
    expected: float = math.nan  # the depth's mean under the steps' p_real
    range95: tuple[int, int] = (0, 0)  # its central 95% range

    def words(self) -> str:
        """"2 of 3 steps (expected 1.8, 95% range 1-3)": the count and its uncertainty."""
        lo, hi = self.range95
        spread = f"{lo}" if lo == hi else f"{lo}-{hi}"
        return (f"{self.depth} of {len(self.steps)} steps (expected {self.expected:.1f}, "
                f"95% range {spread})")


def depth_law(p_real: Sequence[float]) -> np.ndarray:
    """P(depth = d), d = 0 .. len(p_real), when step i is real with probability p_real[i],
    independently (the pairings are separate games): depth counts real steps from the weakest
    up to the first that is not."""
    p = np.asarray(p_real, dtype=np.float64)
    reach = np.concatenate([[1.0], np.cumprod(p)])  # P(depth >= d)
    return reach - np.concatenate([reach[1:], [0.0]])


def skill_depth(order: Sequence[str], counts: dict[tuple[str, str], tuple[int, int, int]],
                names: dict[str, str] | None = None) -> Depth:
    """Consecutive rungs, from the weakest, where each beats the one below in at least 55% of
    their decisive games with the 95% Wilson lower bound above 50%; the first step that fails
    ends the count. Its uncertainty: each step's `p_real`, the posterior probability (uniform
    prior, Beta) that the upper rung's true share of their decisive games is at least 55%, and
    the depth's law under them (`depth_law`): its mean and central 95% range."""
    rows, depth, broken = [], 0, False
    nm = names or {}
    for lo, up in zip(order[:-1], order[1:], strict=True):
        w_lo, w_up, _ = counts.get((lo, up), (0, 0, 0))  # a step not played cannot count
        p = stats.wilson(w_up, w_lo + w_up)
        beats = bool(w_lo + w_up > 0 and p.value >= DEPTH_SHARE and p.low > 0.5)
        if beats and not broken:
            depth += 1
        else:
            broken = True
        p_real = float(beta.sf(DEPTH_SHARE, 1 + w_up, 1 + w_lo)) if (lo, up) in counts else 0.0
        rows.append({"lower": nm.get(lo, lo), "upper": nm.get(up, up), "played": (lo, up) in counts,
                     "decisive": w_lo + w_up, "upper_wins": w_up, "share": p.value, "low": p.low,
                     "high": p.high, "beats": beats, "p_real": p_real})
    steps = pd.DataFrame(rows, columns=["lower", "upper", "played", "decisive", "upper_wins", "share", "low",
                                        "high", "beats", "p_real"])
    law = depth_law(steps["p_real"].to_numpy())
    cdf = np.cumsum(law)
    lo95, hi95 = int(np.searchsorted(cdf, 0.025 - 1e-12)), int(np.searchsorted(cdf, 0.975 - 1e-12))
    return Depth(depth, steps, float(np.dot(np.arange(law.size), law)), (lo95, min(hi95, law.size - 1)))


def by_skill_row(run, non_win: set[str]) -> dict[str, Any]:
    """One self-play run: first mover's share of decisive games, seat win rates, draw rate,
    share decided off the board, median length, each end reason's share; 95% intervals
    (Wilson; percentile bootstrap for the median)."""
    df = run.df
    n = len(df)
    w = df["winner"].to_numpy().astype(np.int64)
    first = df["first_seat"].to_numpy().astype(np.int64)
    decisive = int((w >= 0).sum())
    reasons = df["end_reason"].astype(str).to_numpy()
    first_wins = int((w == first).sum())
    row: dict[str, Any] = {"bot": _bots_of(run)[0], "games": n, "decisive": decisive, "first_wins": first_wins}

    def put(key: str, p: stats.Proportion) -> None:
        row[key], row[f"{key}_low"], row[f"{key}_high"] = p.value, p.low, p.high

    put("first_mover_share", stats.wilson(first_wins, decisive))
    put("draw_rate", stats.wilson(int((w < 0).sum()), n))
    put("off_board_share", stats.wilson(int(np.isin(reasons, list(non_win)).sum()), n))
    med, lo, hi = stats.bootstrap_interval(df["turns"].to_numpy(), 0.5, seed=1)
    row["median_turns"], row["median_turns_low"], row["median_turns_high"] = med, lo, hi
    for i, s in enumerate(run.seats):
        put(f"win_rate_{s}", stats.wilson(int((w == i).sum()), n))
    for r in run.end_reasons:
        put(f"end_{r}", stats.wilson(int((reasons == r).sum()), n))
    for g, members in end_reason_groups(run.game, run.end_reasons).items():
        put(f"ends_{g}", stats.wilson(int(np.isin(reasons, members).sum()), n))
    return row


@dataclass
class SkillTables:
    ratings: pd.DataFrame
    pairings: pd.DataFrame
    by_skill: pd.DataFrame
    depth: Depth
    skill_trace: float
    skill_trace_ci: tuple[float, float]
    upset: stats.Proportion
    anchor: str
    order: list[str]


def skill_tables(pair_runs: dict[tuple[str, str], list], self_runs: dict[str, Any], order: Sequence[str],
                 non_win: set[str], early: dict[tuple[str, str], Pairing] | None = None,
                 n_boot: int = 1000, seed: int = 0, smoothing: float = SMOOTHING,
                 names: dict[str, str] | None = None) -> SkillTables:
    """Every ladder table from loaded runs (sim.reporting.Run): pairings keyed (a, b) with a below
    b in `order`, self-play runs keyed by bot (labels as in the tables' bot columns; `names` maps
    them to the names the output shows)."""
    order = list(order)
    names = names or {}
    nm = lambda b: names.get(b, b)
    idx = {b: i for i, b in enumerate(order)}
    k = len(order)
    counts = {key: pairing_counts(runs, *key) for key, runs in pair_runs.items()}
    keys = list(counts)
    rec = np.array([counts[key] for key in keys], dtype=np.int64).reshape(-1, 3)

    def matrices(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sc, pl = np.zeros((k, k)), np.zeros((k, k), dtype=bool)
        for (a, b), (wa, wb, d) in zip(keys, r, strict=True):
            i, j = idx[a], idx[b]
            sc[i, j] += wa + d / 2
            sc[j, i] += wb + d / 2
            pl[i, j] = pl[j, i] = wa + wb + d > 0
        return sc, pl

    anchor = "random" if "random" in idx else order[0]
    # only bots linked to the anchor by games have a rating; the others get NaN
    from scipy.sparse.csgraph import connected_components

    _, comp = connected_components(matrices(rec)[1], directed=False)
    linked = comp == comp[idx[anchor]]

    def anchored(sc_pl: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        out = np.full(k, math.nan)
        if linked.sum() > 1:
            sub = np.ix_(linked, linked)
            out[linked] = fit_elo(sc_pl[0][sub], sc_pl[1][sub], smoothing=smoothing)
        out[idx[anchor]] = out[idx[anchor]] if linked.sum() > 1 else 0.0
        return out - out[idx[anchor]]

    steps = list(zip(order[:-1], order[1:], strict=True))
    strong = np.array([strong_seat_counts(pair_runs[st], st[1]) for st in steps if st in pair_runs],
                      dtype=np.int64).reshape(-1, 3)
    seats = len(next(iter(pair_runs.values()))[0].seats) if pair_runs else 2

    def trace_of(c: np.ndarray) -> float:
        """SkillTrace over the chain's steps, Ludii's utilities: the strong bot in one seat,
        win 1, draw 0, another seat's win -1 / (seats - 1) (its rank shared by the losers)."""
        if len(c) < len(steps) or (c.sum(axis=1) == 0).any():
            return math.nan
        return skill_trace([(w - lost / (seats - 1)) / max(w + d + lost, 1) for w, d, lost in c])

    elo = anchored(matrices(rec))
    trace = trace_of(strong)
    rng = np.random.default_rng(seed)
    boot_elo, boot_trace = [], []

    def resample(c: np.ndarray) -> np.ndarray:
        t = c.sum(axis=1)
        return np.stack([rng.multinomial(n, row / max(n, 1)) for n, row in zip(t, c, strict=True)]) \
            if len(c) else c

    if keys:
        for _ in range(n_boot):
            boot_elo.append(anchored(matrices(resample(rec))))
            boot_trace.append(trace_of(resample(strong)))
    boot = np.array(boot_elo) if boot_elo else elo[None, :]
    lo, hi = np.quantile(boot, [0.025, 0.975], axis=0)
    # the step from the rung below (ladder order): its interval is far narrower than the anchored
    # ones when a weak link (e.g. random against greedy, 1:999) makes every rating loose
    gap = np.r_[math.nan, np.diff(elo)]
    gap_lo, gap_hi = (np.r_[math.nan, q] for q in np.quantile(np.diff(boot, axis=1), [0.025, 0.975], axis=0))
    st_ci = tuple(float(x) for x in np.nanquantile(boot_trace, [0.025, 0.975])) if boot_trace and \
        not np.isnan(boot_trace).all() else (math.nan, math.nan)

    games = np.zeros(k, dtype=np.int64)
    notes: dict[str, list[str]] = {b: [] for b in order}
    for (a, b), (wa, wb, d) in counts.items():
        games[idx[a]] += wa + wb + d
        games[idx[b]] += wa + wb + d
        for win, lose, w_win, w_lose in ((a, b, wa, wb), (b, a, wb, wa)):
            if w_win > 0 and w_lose == 0:  # no finite maximum-likelihood gap: the prior sets it
                notes[win].append(f"won every decisive game against {nm(lose)} (a lower bound)")
                notes[lose].append(f"lost every decisive game to {nm(win)} (an upper bound)")
    notes[anchor].insert(0, "anchor: 0 by definition")
    for b in order:
        if not linked[idx[b]]:
            notes[b].append(f"no games link it to {nm(anchor)}: no rating")
    ratings = pd.DataFrame({"bot": [nm(b) for b in order], "elo": elo, "elo_low": lo, "elo_high": hi, "games": games,
                            "gap_below": gap, "gap_below_low": gap_lo, "gap_below_high": gap_hi,
                            "note": ["; ".join(notes[b]) for b in order]}, columns=RATING_COLUMNS)

    rows = []
    up_k = up_n = 0
    for (a, b), (wa, wb, d) in counts.items():
        n = wa + wb + d
        s = (wa + d / 2) / n if n else math.nan
        s_lo, s_hi = proportion_confint(wa + d / 2, n, method="wilson") if n else (math.nan, math.nan)
        share_b = stats.wilson(wb, wa + wb)
        lower_wins = wa if elo[idx[a]] < elo[idx[b]] else wb  # both linked: they played
        up_k += lower_wins
        up_n += wa + wb
        p = early.get((a, b)) if early else None
        rows.append({"bot_a": nm(a), "bot_b": nm(b), "games": n, "wins_a": wa, "wins_b": wb, "draws": d,
                     "score_a": s, "score_a_low": float(s_lo), "score_a_high": float(s_hi),
                     "decisive_share_b": share_b.value, "decisive_share_b_low": share_b.low,
                     "decisive_share_b_high": share_b.high,
                     "upset_rate": lower_wins / (wa + wb) if wa + wb else math.nan,
                     "stopped_early": bool(p.stopped_early) if p else False,
                     "decision": p.decision if p else ""})
    pairings = pd.DataFrame(rows, columns=PAIRING_COLUMNS)
    skill = [by_skill_row(self_runs[b], non_win) | {"bot": nm(b), "elo": float(elo[idx[b]])}
             for b in order if b in self_runs]
    by_skill = pd.DataFrame(skill)
    if len(by_skill):
        by_skill = by_skill[["bot", "elo"] + [c for c in by_skill.columns if c not in ("bot", "elo")]]
    return SkillTables(ratings, pairings, by_skill, skill_depth(order, counts, names), trace, st_ci,
                       stats.wilson(up_k, up_n), nm(anchor), [nm(b) for b in order])


# ---- the command -------------------------------------------------------------------------------
@dataclass
class LadderResult:
    """What `sim.ladder` returns: the frames, the depth, SkillTrace and where the files are."""

    variant: Variant
    tables: SkillTables  # ratings, pairings, by_skill, depth, SkillTrace ... (read as res.ratings etc.)
    budgets: list[float] | None  # the doubled parameter per rung (a doubling chain), else None
    budget_param: str | None
    games: int
    seed: int
    pairs: str
    wall_seconds: float
    out: Path
    rungs: dict[str, dict[str, Any]] = field(default_factory=dict)  # label -> bot and every parameter
    played_now: int = 0  # games this call played; the others were resumed from OUT/runs
    resumed: int = 0
    files: dict[str, Path] = field(default_factory=dict)
    # each rung above the first against the rung below: the share of its decisions the lower bot
    # would have made alike (sim.agreement.COLUMNS)
    agreement: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=AGREEMENT_COLUMNS))
    # bots that see hidden state (sim.skill.cheats), each against a fair rung: CEILING_COLUMNS
    ceiling: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CEILING_COLUMNS))

    def __getattr__(self, name: str):
        if name == "tables":  # not set yet (unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.tables, name)

    def _title(self) -> str:
        return (f"LadderResult {self.variant.name}: {len(self.ratings)} rungs, {self.games:,} games "
                f"per pairing ({self.pairs}, seed {self.seed})")

    def __repr__(self) -> str:
        return display.text(self._title(), [*self.summary()[:8], f"files: {self.out}",
                                            "frames: .ratings, .pairings, .by_skill, .skill_depth"])

    def _repr_html_(self) -> str:
        return display.html(self._title(), self.ratings, ["bot", "elo", "elo_low", "elo_high", "games", "note"])

    def summary(self) -> list[str]:
        """The answer in a few lines: ratings, early stops, skill depth, SkillTrace, and the first
        mover's share of decisive games at the weakest and the strongest rung (by Elo)."""
        from sim.intervals import elo_text

        lines = [f"{r.bot:28s} Elo {r.elo:6.0f} {elo_text(r.elo_low, r.elo_high, r.note, r.bot == self.anchor)}"
                 f"  {r.games:,} games"
                 + (f"  ({r.note})" if r.note else "") for r in self.ratings.itertuples()]
        lines += [f"{r.bot_a} vs {r.bot_b}: {r.decision}" for r in self.pairings.itertuples() if r.stopped_early]
        st = "n/a" if math.isnan(self.skill_trace) else \
            f"{self.skill_trace:.3f} [{self.skill_trace_ci[0]:.3f}, {self.skill_trace_ci[1]:.3f}]"
        lines.append(f"skill depth {self.depth.words()}; SkillTrace {st}")
        lines += [agreement_words(r) for r in self.agreement.to_dict("records")]
        lines += [ceiling_words(r) for r in self.ceiling.to_dict("records")]
        lines.append(f"{self.played_now:,} games played in {self.wall_seconds:.0f} s wall, "
                     f"{self.resumed:,} resumed from {self.out / 'runs'}")
        if len(self.by_skill):
            b = self.by_skill.sort_values("elo", kind="stable")
            for what, r in (("weakest", b.iloc[0]), ("strongest", b.iloc[-1])):
                lines.append(f"first mover's share of decisive games at the {what} rung ({r['bot']}): "
                             f"{r['first_mover_share']:.1%} [{r['first_mover_share_low']:.1%}, "
                             f"{r['first_mover_share_high']:.1%}]")
        return lines


def ceiling_words(r: dict[str, Any]) -> str:
    """"ceiling: oracle wins 97.0% [95.1, 98.2] of decisive games against greedy; greedy still
    beats the oracle in 3.0% [1.8, 4.9] of games: the share luck decides"."""
    pc = lambda x: f"{100 * x:.1f}"  # noqa: E731
    if not r["games"]:
        return f"ceiling: {r['bot']} played no games against {r['against']}"
    return (f"ceiling: {r['bot']} wins {pc(r['decisive_share'])}% [{pc(r['decisive_share_low'])}, "
            f"{pc(r['decisive_share_high'])}] of decisive games against {r['against']}; {r['against']} "
            f"still beats the {r['bot']} in {pc(r['against_share'])}% [{pc(r['against_share_low'])}, "
            f"{pc(r['against_share_high'])}] of {r['games']:,} games: the share luck decides")


def ceiling_reference(fair: Sequence[SeatBot]) -> SeatBot:
    """The fair rung a ceiling bot plays: greedy when it is on the ladder, else the top rung."""
    return next((b for b in fair if b.bot.name == "greedy"), fair[-1])


def _agreements(base: Variant, fair: Sequence[SeatBot], names: dict[str, str], self_games: int, seed: int,
                sample: int, out: Path) -> pd.DataFrame:
    """Each rung above the first against the rung below, over its self-play games (sim.agreement).
    A rung measured before with the same variant, rules code, bots, seeds and sample is read back
    from OUT/agreement-cache.json (a resumed ladder replays no game for it)."""
    import json

    from sim import agreement
    from sim.runner import rotated

    path = out / "agreement-cache.json"
    cache = json.loads(path.read_text()) if path.exists() else {}
    rows = []
    for lo, up in zip(fair[:-1], fair[1:], strict=True):
        v = self_lineup(base, up)
        run_seed, draw_seed = _derived_seed(seed, up.label(), "self"), _derived_seed(seed, up.label(), lo.label(), "agree")
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
    from sim.reporting import load_run

    ref = ceiling_reference(fair)
    rows, now, resumed = [], 0, 0
    for c in cheats:
        p = _play_pairing(base, ref, c, games, seed, runs_dir, run_kw, None, names)
        now, resumed = now + p.played_now, resumed + p.resumed
        rows.append(ceiling_row([load_run(x) for x in p.runs], p.b, p.a, names))
    return pd.DataFrame(rows, columns=CEILING_COLUMNS), now, resumed


def agreement_words(r: dict[str, Any]) -> str:
    from sim.agreement import words

    return words(r)


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
    below (sim.agreement; 0: none). A bot that sees hidden state (`oracle`, sim.skill.cheats) is
    no rung: it plays greedy (else the top rung) as the ceiling of skill."""
    from sim.reporting import load_run, non_win_reasons
    from sim.variants import load

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
    from sim.skill import cheats as sees_hidden

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
    import sim
    from sim.compare import run_folder

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
        s = _derived_seed(seed, b.label(), "self")
        path = runs_dir / run_folder("self", v, self_games, s)
        t = sim.run(v, self_games, seed=s, out=path, **run_kw).manifest["timings"]
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
        from sim.ladder_report import write_ladder

        res.files = write_ladder(res)
    return res


_callable_module(__name__, "ladder")  # `sim.ladder(...)` works once this module is imported too
