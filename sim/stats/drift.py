"""The statistics of the regression check (`hexsim check`): which metrics are tested, how, at
which level, how many games a baseline needs, and the simulation that measures the check's
error rates on synthetic outcomes.

The design of one baseline (stored in its file, `design`):
- false drift: an unchanged variant is reported as drifted with probability at most
  FALSE_DRIFT = 2e-4, so k baselines checked together all pass with probability at least
  1 - k x 2e-4 (Bonferroni over baselines: `joint_pass`; `sim.baseline.joint_pass` counts the
  baselines that exist and sums their stated rates). Half of it is spent on the primary
  metric, the first mover's share of the decisive games; the other half on every other tested
  metric with Holm's procedure (a baseline drifts when either family rejects);
- power: the baseline and the fresh run hold the same number of games, the smallest multiple of
  1,000 for which a 2-point change of the first mover's share (either way) is flagged with
  probability at least 0.8, measured by simulating the test on binomial counts.

The tests (two-sided; each valid at any size):
- a proportion of games (or of decisive games): Fisher's exact test (hypergeometric tails,
  doubled) when the smallest margin of the 2x2 table is at most EXACT_LIMIT, else the score
  test (pooled z; statsmodels' `test_proportions_2indep`, score method). Fisher keeps rare events
  and unequal sizes (the small check) honest; with both margins large the z test is accurate;
- a mean of a per-game column: Welch's t-test from the summary statistics (scipy);
- a quantile of game length: the share of games at most as long as the quantile of both samples
  pooled, by the proportion test (Mood's median test, generalised): the pooled threshold treats
  both samples alike, so the test keeps its level where the baseline's own quantile would not.

A proportion is testable when even the vanishing of its rarer outcome in the fresh games would
be flagged at its level; otherwise "not testable at this size" (too few events), never drift.
Game-specific values (bootstrap-only statistics) and rates counting several events per game are
not tested statistically: no per-game test holds its level for them; their definitions are
still checked exactly (see `sim.baseline`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

FALSE_DRIFT = 2e-4
PRIMARY = "first_mover_share"
PRIMARY_SHARE = 0.5  # of FALSE_DRIFT spent on the primary metric
SHIFT = 0.02  # the change of the first mover's share the check must catch
POWER = 0.8
GAMES_STEP = 1000
MAX_GAMES = 1_000_000
EXACT_LIMIT = 1000  # Fisher's exact test when the smallest margin is at most this
MIN_MEAN_N = 30
SIM_REPS = 100_000


@dataclass(frozen=True)
class Levels:
    """The levels of one baseline's family of tests."""

    false_drift: float = FALSE_DRIFT
    primary_share: float = PRIMARY_SHARE

    @property
    def primary(self) -> float:
        return self.false_drift * self.primary_share

    @property
    def others(self) -> float:
        return self.false_drift * (1 - self.primary_share)


DESIGN = Levels()


def joint_pass(false_drifts) -> float:
    """Lower bound on the probability that baselines of unchanged variants, checked together,
    all pass: 1 minus the sum of their false-drift rates (Bonferroni: no independence needed)."""
    return max(0.0, 1.0 - float(np.sum(false_drifts)))


# ---- the tests (vectorised: every argument may be an array) -----------------------------------
def prop_p(kb, nb, kn, nn) -> np.ndarray:
    """Two-sided p-value of "the fresh proportion kn/nn equals the baseline's kb/nb"."""
    kb, nb, kn, nn = (np.asarray(a, dtype=np.int64) for a in np.broadcast_arrays(kb, nb, kn, nn))
    out = np.full(kb.shape, np.nan)
    m, k = nb + nn, kb + kn
    ok = (nb > 0) & (nn > 0)
    flat = ok & ((k == 0) | (k == m))  # nothing to tell apart: every game alike
    out[flat] = 1.0
    live = ok & ~flat
    margin = np.minimum(np.minimum(k, m - k), np.minimum(nb, nn))
    exact = live & (margin <= EXACT_LIMIT)
    if exact.any():
        M, K, N, x = m[exact], k[exact], nn[exact], kn[exact]
        lo = sps.hypergeom.cdf(x, M, K, N)
        hi = sps.hypergeom.sf(x - 1, M, K, N)
        out[exact] = np.minimum(1.0, 2 * np.minimum(lo, hi))
    z = live & ~exact
    if z.any():
        pbar = k[z] / m[z]
        se = np.sqrt(pbar * (1 - pbar) * (1 / nb[z] + 1 / nn[z]))
        stat = (kn[z] / nn[z] - kb[z] / nb[z]) / se
        out[z] = 2 * sps.norm.sf(np.abs(stat))
    return out


def mean_p(mb, sb, nb, mn, sn, nn) -> np.ndarray:
    """Two-sided p-value of Welch's t-test of equal means from summary statistics (scipy);
    two constant columns: 1 when equal, 0 when not."""
    mb, sb, nb, mn, sn, nn = (np.asarray(a, dtype=np.float64)
                              for a in np.broadcast_arrays(mb, sb, nb, mn, sn, nn))
    with np.errstate(all="ignore"):
        p = np.asarray(sps.ttest_ind_from_stats(mn, sn, nn, mb, sb, nb, equal_var=False).pvalue,
                       dtype=np.float64)
    const = (sb == 0) & (sn == 0)
    p = np.where(const, np.where(mb == mn, 1.0, 0.0), p)
    return np.where((nb < 2) | (nn < 2), np.nan, p)


def pooled_threshold(values: np.ndarray, counts_b: np.ndarray, counts_n: np.ndarray,
                     q: float) -> np.ndarray:
    """The inverted-cdf q-quantile of both samples pooled, from counts over sorted `values`
    (counts: (..., len(values)))."""
    pooled = np.cumsum(np.asarray(counts_b) + np.asarray(counts_n), axis=-1)
    total = pooled[..., -1:]
    k = np.maximum(1, np.ceil(total * q - 1e-9))
    return values[np.argmax(pooled >= k, axis=-1)]


def quantile_p(values, counts_b, counts_n, q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """p-value of "same q-quantile" (the share of games at most the pooled quantile long, both
    samples), with the shares of the baseline and of the fresh games at that threshold."""
    values = np.asarray(values, dtype=np.float64)
    cb, cn = np.asarray(counts_b, dtype=np.int64), np.asarray(counts_n, dtype=np.int64)
    t = pooled_threshold(values, cb, cn, q)
    below = values <= np.expand_dims(t, -1)
    kb, kn = (cb * below).sum(-1), (cn * below).sum(-1)
    nb, nn = cb.sum(-1), cn.sum(-1)
    return prop_p(kb, nb, kn, nn), kb / np.maximum(nb, 1), kn / np.maximum(nn, 1)


def testable_prop(kb: int, nb: int, nn: float, level: float) -> bool:
    """Would the vanishing of the rarer outcome in `nn` fresh units be flagged at `level`?"""
    nn = int(round(nn))
    if nb < 1 or nn < 1:
        return False
    rare = min(kb, nb - kb)
    return bool(prop_p(rare, nb, 0, nn)[()] < level)


def holm_reject(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's step-down rejections over the last axis (NaN: not tested)."""
    p = np.asarray(p, dtype=np.float64)
    m = np.sum(~np.isnan(p), axis=-1, keepdims=True)
    order = np.argsort(np.where(np.isnan(p), np.inf, p), axis=-1)
    ps = np.take_along_axis(p, order, axis=-1)
    steps = alpha / np.maximum(m - np.arange(p.shape[-1]), 1)
    ok = np.cumprod(ps <= steps, axis=-1).astype(bool)  # NaN compares False: stops there
    rej = np.zeros_like(ok)
    np.put_along_axis(rej, order, ok, axis=-1)
    return rej


def drifted(p_primary, p_others, levels: Levels = DESIGN) -> np.ndarray:
    """The check's verdict: the primary metric rejects at its level, or Holm over the others
    rejects any (which happens exactly when the smallest p is below others / m)."""
    prim = np.asarray(p_primary, dtype=np.float64) < levels.primary
    others = np.asarray(p_others, dtype=np.float64)
    if others.shape[-1] == 0:
        return prim
    return prim | holm_reject(others, levels.others).any(axis=-1)


# ---- the number of games and its measured error rates -----------------------------------------
def _analytic_power(p: float, decisive: float, games: int, shift: float, alpha: float) -> float:
    d = games * decisive
    if d <= 0:
        return 0.0
    za = sps.norm.isf(alpha / 2)
    worst = 1.0
    for s in (shift, -shift):
        p1 = min(max(p + s, 0.0), 1.0)
        pbar = (p + p1) / 2
        se0 = math.sqrt(max(pbar * (1 - pbar), 1e-12) * 2 / d)
        se1 = math.sqrt(max(p * (1 - p) + p1 * (1 - p1), 1e-12) / d)
        worst = min(worst, float(sps.norm.sf((za * se0 - abs(p1 - p)) / se1)))
    return worst


def simulate_primary(p: float, decisive: float, games_b: int, games_n: int, shift: float,
                     alpha: float, reps: int, rng: np.random.Generator) -> float:
    """Share of synthetic baseline/fresh pairs whose first-mover test rejects at `alpha`: the
    baseline's decisive games ~ Bin(games_b, decisive), its first-mover wins ~ Bin(D, p); the
    fresh run's alike with p + shift."""
    db = rng.binomial(games_b, decisive, reps)
    dn = rng.binomial(games_n, decisive, reps)
    kb = rng.binomial(db, p)
    kn = rng.binomial(dn, min(max(p + shift, 0.0), 1.0))
    pv = prop_p(kb, db, kn, dn)
    return float(np.mean(np.nan_to_num(pv, nan=1.0) < alpha))


def power(p: float, decisive: float, games: int, levels: Levels = DESIGN, shift: float = SHIFT,
          reps: int = SIM_REPS, seed: int = 0) -> tuple[float, float]:
    """Simulated power of the primary test against +shift and -shift (equal sizes)."""
    rng = np.random.default_rng(seed)
    return (simulate_primary(p, decisive, games, games, shift, levels.primary, reps, rng),
            simulate_primary(p, decisive, games, games, -shift, levels.primary, reps, rng))


def design_games(p: float, decisive: float, levels: Levels = DESIGN, shift: float = SHIFT,
                 target: float = POWER, reps: int = SIM_REPS, seed: int = 0,
                 margin: float = 0.005) -> int:
    """Smallest multiple of GAMES_STEP (at most MAX_GAMES) whose simulated power against a
    `shift` change of the first mover's share, either way, is at least `target`."""
    if decisive <= 0:
        return MAX_GAMES
    games = GAMES_STEP
    while games < MAX_GAMES and _analytic_power(p, decisive, games, shift, levels.primary) < target:
        games += GAMES_STEP
    # the simulation decides, with a margin of about 4 of its standard errors
    while games < MAX_GAMES and min(power(p, decisive, games, levels, shift, reps, seed)) < target + margin:
        games += GAMES_STEP
    return games


def design_record(p: float, decisive: float, games: int, levels: Levels = DESIGN,
                  shift: float = SHIFT, reps: int = SIM_REPS, seed: int = 0) -> dict:
    """The numbers a baseline file states: its games, levels, and the measured rates."""
    up, down = power(p, decisive, games, levels, shift, reps, seed)
    rng = np.random.default_rng(seed + 1)
    false_primary = simulate_primary(p, decisive, games, games, 0.0, levels.primary, reps, rng)
    return {
        "fresh_games": games,
        "primary": PRIMARY,
        "false_drift": levels.false_drift,
        "alpha_primary": levels.primary,
        "alpha_others": levels.others,
        "pass_unchanged_at_least": 1 - levels.false_drift,
        "shift": shift,
        "power_target": POWER,
        "power": min(up, down),
        "power_up": up,
        "power_down": down,
        "false_drift_primary_simulated": false_primary,
        "simulated_at": {"first_mover_share": p, "decisive_rate": decisive, "replicates": reps},
        "note": (f"An unchanged variant passes with probability at least {1 - levels.false_drift} "
                 f"(Bonferroni: {levels.primary:g} on {PRIMARY}, Holm at {levels.others:g} over "
                 f"the other tested metrics). A {shift:g} change of {PRIMARY} is caught with "
                 f"probability {min(up, down):.3f} (+{shift:g}: {up:.3f}, -{shift:g}: {down:.3f}); "
                 f"both measured by simulation on {reps:,} synthetic baseline/fresh pairs of "
                 f"{games:,} games each (binomial decisive games and first-mover wins at the "
                 f"baseline's rates); the primary test alone flagged "
                 f"{false_primary:.2g} of the unchanged pairs."),
    }
