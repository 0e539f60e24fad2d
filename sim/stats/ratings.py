"""Ratings of bots from their games: Elo from a score, its interval, the sequential probability
ratio test of an Elo difference, and Bradley-Terry strengths of a ladder's pairings."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps
from scipy.optimize import brentq

from sim.stats.estimators import NAN

# ---- sequential testing and Elo (bot ladders) -----------------------------------------------

_SCORES = np.array([1.0, 0.5, 0.0])  # win, draw, loss


def elo_to_score(elo: float) -> float:
    """Expected score of a player `elo` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_interval(wins: int, draws: int, losses: int, conf: float = 0.95) -> tuple[float, float, float]:
    """(Elo, low, high) of a win/draw/loss record: normal interval on the mean score (trinomial
    variance), mapped through the logistic Elo curve."""
    n = wins + draws + losses
    if n == 0:
        return NAN, NAN, NAN
    s = (wins + 0.5 * draws) / n
    var = (wins * (1 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n
    half = float(sps.norm.ppf(0.5 + conf / 2)) * math.sqrt(var / n)
    return score_to_elo(s), score_to_elo(s - half), score_to_elo(s + half)


def _constrained_loglik(counts: np.ndarray, score: float) -> float:
    """Max log-likelihood of trinomial counts (win, draw, loss) over outcome probabilities with
    expected score `score` in (0, 1).

    Lagrange: p_i = n_i / (N (1 + lam d_i)), d_i = x_i - score, where lam keeps every
    1 + lam d_i >= 0 (KKT for unobserved outcomes) and solves sum n_i d_i / (1 + lam d_i) = 0.
    That sum decreases in lam; when it has no root inside the bracket the optimum sits on the
    bracket's end and the missing mass goes to the unobserved outcome that fixes it.
    """
    n = counts.sum()
    d = _SCORES - score
    lo = max(-1 / x for x in d if x > 0)
    hi = min(-1 / x for x in d if x < 0)
    live = counts > 0
    c, dl = counts[live], d[live]
    f = lambda lam: float(np.sum(c * dl / (1 + lam * dl)))
    eps = 1e-12 * max(1.0, abs(lo), abs(hi))
    if f(hi - eps) >= 0:
        lam = hi
    elif f(lo + eps) <= 0:
        lam = lo
    else:
        lam = brentq(f, lo + eps, hi - eps, xtol=1e-15)
    p = c / (n * (1 + lam * dl))
    return float(np.sum(c * np.log(p)))


@dataclass(frozen=True)
class SPRTResult:
    llr: float
    lower: float
    upper: float
    decision: str  # "H1" (elo >= elo1 accepted), "H0" (elo <= elo0 accepted) or "continue"
    elo0: float
    elo1: float


def gsprt(wins: int, draws: int, losses: int, elo0: float = 0.0, elo1: float = 10.0,
          alpha: float = 0.05, beta: float = 0.05) -> SPRTResult:
    """Generalised sequential probability ratio test on a win/draw/loss record, as chess-engine
    testing runs it: the log-likelihood ratio of "score = score(elo1)" against "score =
    score(elo0)", each side maximised over the draw rate (trinomial MLE), against Wald's bounds
    log(beta / (1 - alpha)) and log((1 - beta) / alpha). Stop at the first crossing."""
    counts = np.array([wins, draws, losses], dtype=np.float64)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    if counts.sum() == 0:
        return SPRTResult(0.0, lower, upper, "continue", elo0, elo1)
    llr = (_constrained_loglik(counts, elo_to_score(elo1))
           - _constrained_loglik(counts, elo_to_score(elo0)))
    decision = "H1" if llr >= upper else "H0" if llr <= lower else "continue"
    return SPRTResult(float(llr), lower, upper, decision, elo0, elo1)


def bradley_terry(wins: np.ndarray, iterations: int = 10_000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths of k bots as Elo ratings (mean 0) from a k x k matrix,
    wins[i, j] = games i won against j (count a draw as half a win to each side).

    Hunter's (2004) MM iteration: p_i <- W_i / sum_j n_ij / (p_i + p_j). A bot that never lost
    (or never won) has no finite rating; its entry is +inf (-inf).
    """
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    games = w + w.T
    total = w.sum(axis=1)
    lost = w.sum(axis=0)
    out = np.zeros(k)
    finite = (total > 0) & (lost > 0)
    out[(total > 0) & (lost == 0)] = math.inf
    out[total == 0] = -math.inf
    idx = np.flatnonzero(finite)
    if idx.size:
        g, t = games[np.ix_(idx, idx)], total[idx] - w[np.ix_(idx, ~finite)].sum(axis=1)
        p = np.ones(idx.size)
        for _ in range(iterations):
            denom = (g / (p[:, None] + p[None, :])).sum(axis=1)
            new = t / denom
            new /= np.exp(np.log(new).mean())
            if np.max(np.abs(new - p)) < tol:
                p = new
                break
            p = new
        r = 400 * np.log10(p)
        out[idx] = r - r.mean()
    return out
