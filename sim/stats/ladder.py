"""What a skill ladder measured, from its run folders: pairing counts, Bradley-Terry Elo ratings,
the skill depth, Ludii's SkillTrace, the by-skill rows, the ceiling of a bot that sees hidden
state, and `LadderResult`, what `sim.ladder` returns (the playing is in sim.ladder, the pages
in sim.ladder_report)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import beta
from statsmodels.stats.proportion import proportion_confint

from sim import display, stats
from sim.games.base import end_reason_groups
from sim.runs.variants import Variant
from sim.stats.agreement import COLUMNS as AGREEMENT_COLUMNS
from sim.stats.agreement import words as agreement_words_of
from sim.stats.intervals import elo_text

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



@dataclass
class Pairing:
    a: str
    b: str
    runs: list[Path] = field(default_factory=list)
    played_now: int = 0  # games this call played (the rest were resumed from the run folders)
    resumed: int = 0
    stopped_early: bool = False
    decision: str = ""


def outcomes(df: pd.DataFrame, seats: Sequence[str], a: str) -> np.ndarray:
    """Per game: +1 when a seat of bot `a` won, -1 when another bot's seat won, 0 for a draw."""
    w = df["winner"].to_numpy().astype(np.int64)
    labels = np.stack([df[f"bot_{s}"].astype(str).to_numpy() for s in seats], axis=1)
    won = labels[np.arange(len(w)), np.clip(w, 0, None)]
    return np.where(w < 0, 0.0, np.where(won == a, 1.0, -1.0))


def pairing_counts(runs: Sequence, a: str, b: str) -> tuple[int, int, int]:
    """(wins of a, wins of b, draws) over the games of runs seating exactly the bots a and b."""
    wa = wb = d = 0
    for run in runs:
        o = outcomes(run.df, run.seats, a)
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
        if run.seat_bots.count(strong) != 1:
            continue
        o = outcomes(run.df, run.seats, strong)
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
    row: dict[str, Any] = {"bot": run.seat_bots[0], "games": n, "decisive": decisive, "first_wins": first_wins}

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


def _rating_notes(counts: dict, order: Sequence[str], idx: dict[str, int], linked: np.ndarray, anchor: str,
                  nm) -> tuple[np.ndarray, dict[str, list[str]]]:
    """Games per rung, and the notes of its rating: the anchor, a rating that is only a bound
    (every decisive game won or lost against someone), a rung no games link to the anchor."""
    games = np.zeros(len(order), dtype=np.int64)
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
    return games, notes


def _pairing_table(counts: dict, elo: np.ndarray, idx: dict[str, int], early: dict | None,
                   nm) -> tuple[pd.DataFrame, stats.Proportion]:
    """PAIRING_COLUMNS for every pairing played, and the upset rate over all of them (the lower
    rated bot's share of decisive games)."""
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
    return pd.DataFrame(rows, columns=PAIRING_COLUMNS), stats.wilson(up_k, up_n)


def skill_tables(pair_runs: dict[tuple[str, str], list], self_runs: dict[str, Any], order: Sequence[str],
                 non_win: set[str], early: dict[tuple[str, str], Pairing] | None = None,
                 n_boot: int = 1000, seed: int = 0, smoothing: float = SMOOTHING,
                 names: dict[str, str] | None = None) -> SkillTables:
    """Every ladder table from loaded runs (sim.reports.balance.Run): pairings keyed (a, b) with a below
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

    games, notes = _rating_notes(counts, order, idx, linked, anchor, nm)
    ratings = pd.DataFrame({"bot": [nm(b) for b in order], "elo": elo, "elo_low": lo, "elo_high": hi, "games": games,
                            "gap_below": gap, "gap_below_low": gap_lo, "gap_below_high": gap_hi,
                            "note": ["; ".join(notes[b]) for b in order]}, columns=RATING_COLUMNS)

    pairings, upsets = _pairing_table(counts, elo, idx, early, nm)
    skill = [by_skill_row(self_runs[b], non_win) | {"bot": nm(b), "elo": float(elo[idx[b]])}
             for b in order if b in self_runs]
    by_skill = pd.DataFrame(skill)
    if len(by_skill):
        by_skill = by_skill[["bot", "elo"] + [c for c in by_skill.columns if c not in ("bot", "elo")]]
    return SkillTables(ratings, pairings, by_skill, skill_depth(order, counts, names), trace, st_ci,
                       upsets, nm(anchor), [nm(b) for b in order])


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
    # would have made alike (sim.stats.agreement.COLUMNS)
    agreement: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=AGREEMENT_COLUMNS))
    # bots that see hidden state (sim.stats.skill.cheats), each against a fair rung: CEILING_COLUMNS
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


def agreement_words(r: dict[str, Any]) -> str:
    return agreement_words_of(r)


