"""Is it fair? The verdict by equivalence (two one-sided tests against a margin around the fair
share), how many games a verdict is away, and whether a verdict holds with stronger play."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats as sps
from scipy.optimize import brentq
from statsmodels.stats.proportion import proportion_confint

from sim.stats.estimators import NAN, POWER_DEFAULT, Difference, binom_test, newcombe_diff, wilson

# ---- fairness by equivalence ------------------------------------------------------------------

VERDICTS = ("cannot tell", "fair", "unfair")  # the codes `verdict_codes` returns, in order


@dataclass(frozen=True)
class Fairness:
    """Is a share (e.g. the first mover's share of decisive games) fair, unfair, or undecided?

    `share` with its Wilson interval [`low`, `high`] at `conf`; `p_equivalence` is the exact
    two one-sided tests (TOST) p-value of "the true share lies within p0 +/- margin";
    `p_beyond` the exact one-sided p-value of "the true share lies within the margin" against
    "beyond it, on the side of the estimate"; `p_difference` the two-sided exact binomial
    p-value of "the true share is p0".

    The rule (alpha = 1 - conf), the same everywhere a verdict is printed (`verdict_codes`):
      - "fair" when TOST rejects at alpha: the data show the share is within the margin.
      - "unfair" when the share is shown beyond the margin: the exact (Clopper-Pearson) interval
        at `conf` lies wholly outside p0 +/- margin (p_beyond < alpha / 2), and so does the
        shown Wilson interval, so the sentence's interval and the verdict never disagree. A true
        share within the margin is called unfair with probability at most alpha / 2 at any n.
      - "cannot tell" otherwise (and with n = 0). When the interval excludes p0 the edge is
        detectable but not shown beyond the margin (`detectable`). `games_needed` estimates how
        many games of this kind would give a verdict with 80% probability if the true share
        were the observed one (p0 with n = 0; None once decided, and None when the observed
        share sits so close to the margin's edge that no affordable number of games decides:
        `games_to_decide`).
    """

    successes: int
    n: int
    p0: float
    margin: float
    conf: float
    share: float
    low: float
    high: float
    p_equivalence: float
    p_beyond: float
    p_difference: float
    verdict: str
    games_needed: int | None

    @property
    def detectable(self) -> bool:
        """The interval excludes the fair share (an edge is seen, whatever the verdict)."""
        return self.n > 0 and not self.low <= self.p0 <= self.high

    def sentence(self, what: str = "The first player", unit: str = "decisive games") -> str:
        if self.n == 0:
            return f"{what}: no {unit}: no claim possible."
        m = _points(self.margin)
        head = (f"{what} wins {100 * self.share:.1f}% of {unit} "
                f"({100 * self.low:.1f}-{100 * self.high:.1f})")
        off = _points(abs(self.share - self.p0))
        if self.verdict == "fair":
            extra = f" (a detectable edge of {off} points, inside the margin)" if self.detectable else ""
            return f"{head}: fair within +/-{m} points{extra}."
        if self.verdict == "unfair":
            return f"{head}: unfair, by about {off} points (beyond the +/-{m}-point margin)."
        edge = (f"a detectable edge of {off} points, not shown beyond the +/-{m}-point margin"
                if self.detectable else f"neither shown within nor beyond +/-{m} points")
        need = (f"; about {self.games_needed:,} {unit} would decide" if self.games_needed is not None
                else "; the edge sits at the margin, so no affordable number of games decides")
        return f"{head}: cannot tell: {edge}{need}."


def verdict_rule(margin: float) -> str:
    """The verdict rule in one sentence, as every page that prints a verdict states it."""
    m = _points(margin)
    return (f"fair = shown within +/-{m} points of the fair share (two one-sided exact tests); "
            f"unfair = shown beyond it (the 95% interval lies wholly outside fair +/-{m} points); "
            "otherwise cannot tell, with about how many games would decide")


def _points(x: float) -> str:
    """A share difference in percentage points, rounded as a sentence reads it (7, 1.5, 0.3)."""
    pts = 100 * float(x)
    return f"{pts:.0f}" if pts >= 3 else f"{pts:.1g}" if pts < 0.1 else f"{pts:.1f}".rstrip("0").rstrip(".")


def tost_binomial(successes, n: int, low: float, high: float) -> np.ndarray | float:
    """Exact two one-sided tests p-value of "low < p < high" for successes of n (vectorised over
    successes): max(P(X >= k | low), P(X <= k | high)). Same as statsmodels' `binom_tost`."""
    k = np.asarray(successes)
    p = np.maximum(sps.binom.sf(k - 1, n, low), sps.binom.cdf(k, n, high))
    return float(p) if p.ndim == 0 else p


def beyond_binomial(successes, n: int, low: float, high: float) -> np.ndarray | float:
    """Exact one-sided p-value of "low <= p <= high" against "p beyond it, on the estimate's
    side" (vectorised over successes): min(P(X >= k | high), P(X <= k | low)). Below alpha / 2
    exactly when the Clopper-Pearson interval at 1 - alpha lies wholly outside [low, high]."""
    k = np.asarray(successes)
    p = np.minimum(sps.binom.sf(k - 1, n, high), sps.binom.cdf(k, n, low))
    return float(p) if p.ndim == 0 else p


def verdict_codes(successes, n: int, p0: float, margin: float, conf: float = 0.95) -> np.ndarray:
    """The verdict of `Fairness` for each count in `successes` (0 cannot tell, 1 fair, 2 unfair;
    names in VERDICTS), vectorised so that its error rates can be computed exactly."""
    k = np.atleast_1d(np.asarray(successes))
    alpha = 1 - conf
    lo, hi = proportion_confint(k, n, alpha=alpha, method="wilson")
    fair = tost_binomial(k, n, p0 - margin, p0 + margin) < alpha
    outside = (np.asarray(lo) > p0 + margin) | (np.asarray(hi) < p0 - margin)
    unfair = outside & (beyond_binomial(k, n, p0 - margin, p0 + margin) < alpha / 2)
    return np.where(fair, 1, np.where(unfair, 2, 0))


def decided_probability(share: float, n: float, p0: float, margin: float, alpha: float) -> float:
    """Normal approximation of P(verdict "fair" or "unfair") after n games whose true share is
    `share`: the estimate lands within margin - z_{1-alpha} se of p0 (equivalence shown) or
    beyond margin + z_{1-alpha/2} se of it (shown beyond the margin), se = sqrt(share (1 -
    share) / n). tests/test_stats.py checks it against the exact probability."""
    se = math.sqrt(max(share * (1 - share), 1e-12) / n)
    d = share - p0
    inner = margin - float(sps.norm.ppf(1 - alpha)) * se
    outer = margin + float(sps.norm.ppf(1 - alpha / 2)) * se
    fair = (sps.norm.cdf((inner - d) / se) - sps.norm.cdf((-inner - d) / se)) if inner > 0 else 0.0
    unfair = sps.norm.sf((outer - d) / se) + sps.norm.cdf((-outer - d) / se)
    return float(fair + unfair)


MAX_GAMES = 10**9  # beyond this many games a verdict is not "about N games away"


def games_to_decide(share: float, p0: float, margin: float, alpha: float,
                    power: float = POWER_DEFAULT) -> int | None:
    """About how many games of a true share `share` give a verdict ("fair" or "unfair", see
    `fairness`) with probability `power` (`decided_probability` solved for n); None when even
    MAX_GAMES do not (a share at the margin's edge is never shown on either side of it)."""
    f = lambda log_n: decided_probability(share, math.exp(log_n), p0, margin, alpha) - power
    if f(0.0) >= 0:
        return 1
    if f(math.log(MAX_GAMES)) < 0:
        return None
    return int(math.ceil(math.exp(brentq(f, 0.0, math.log(MAX_GAMES), xtol=1e-6))))


@lru_cache(maxsize=4096)  # a report asks about each variant's share several times (table, sentence, plot)
def fairness(successes: int, n: int, p0: float = 0.5, margin: float = 0.02,
             conf: float = 0.95) -> Fairness:
    """Fair, unfair or cannot tell: a share against p0 +/- margin (see `Fairness`, immutable,
    so one answer serves every caller)."""
    k, n = int(successes), int(n)
    if not 0 < p0 < 1 or not 0 < margin < min(p0, 1 - p0) or not 0 < conf < 1:
        raise ValueError(f"fairness: need 0 < p0 < 1, 0 < margin < min(p0, 1 - p0) and "
                         f"0 < conf < 1; got p0={p0}, margin={margin}, conf={conf}")
    if not 0 <= k <= n:
        raise ValueError(f"fairness: need 0 <= successes <= n, got {k} of {n}")
    alpha = 1 - conf
    if n == 0:
        return Fairness(k, n, p0, margin, conf, NAN, NAN, NAN, NAN, NAN, NAN, "cannot tell",
                        games_to_decide(p0, p0, margin, alpha))
    ci = wilson(k, n, conf)
    verdict = VERDICTS[int(verdict_codes(k, n, p0, margin, conf)[0])]
    need = None
    if verdict == "cannot tell":
        need = games_to_decide(k / n, p0, margin, alpha)
        need = None if need is None else max(need, n + 1)
    return Fairness(k, n, p0, margin, conf, ci.value, ci.low, ci.high,
                    float(tost_binomial(k, n, p0 - margin, p0 + margin)),
                    float(beyond_binomial(k, n, p0 - margin, p0 + margin)), binom_test(k, n, p0),
                    verdict, need)


# ---- does a verdict hold with stronger play? -----------------------------------------------------

SKILL_WORDS = ("holds with stronger play", "changes with stronger play", "cannot tell yet")


@dataclass(frozen=True)
class SkillAnswer:
    """The verdict of one line-up (`base`, e.g. greedy on every seat) against the same variant
    played by a stronger line-up (`strong`): `answer` is one of SKILL_WORDS; `diff` is the
    strong minus the base share (Newcombe interval, two-proportion test; independent games).

    The rule (in order; "side" is which player an edge favours):
      - both verdicts decided (fair or unfair): holds when they are the same word on the same
        side, changes otherwise;
      - one rung decided and the other's interval wholly outside what that verdict claims (e.g.
        greedy unfair for the first player, the strong rung's interval wholly below fair +
        margin; or greedy undecided at 52.8% (51.9-53.7) and the strong rung unfair for the
        second player): changes;
      - base unfair, strong undecided: holds when the strong interval still excludes the fair
        share on the base's side and the difference is not significant (the edge persists, no
        detectable change);
      - base fair, strong undecided: holds when the strong interval includes the fair share and
        the difference is not significant;
      - otherwise cannot tell yet.
    A true share that stays put is called "changes" with probability at most about alpha / 2
    (tests/test_stats.py simulates both errors)."""

    base: Fairness
    strong: Fairness
    diff: Difference
    answer: str

    def sentence(self, base_bot: str, strong_bot: str) -> str:
        s, d = self.strong, self.diff
        if s.n == 0:
            return f"{strong_bot} on every seat: no decisive games."
        return (f"With {strong_bot} on every seat the first mover wins {100 * s.share:.1f}% "
                f"({100 * s.low:.1f}-{100 * s.high:.1f}) of {s.n:,} decisive games ({s.verdict}); "
                f"{strong_bot} minus {base_bot}: {100 * d.value:+.1f} points "
                f"({100 * d.low:+.1f} to {100 * d.high:+.1f}, p = {d.p_value:.2g}): the verdict "
                f"{self.answer.replace('cannot tell yet', 'cannot be told yet')}.")


def _side(f: Fairness) -> int:
    return int(np.sign(f.share - f.p0)) if f.n else 0


def _shown_outside(decided: Fairness, other: Fairness) -> bool:
    """`other`'s interval lies wholly outside the region `decided`'s verdict claims (fair: the
    margin; unfair: beyond the margin on its side): the two rungs cannot share that verdict."""
    lo, hi = decided.p0 - decided.margin, decided.p0 + decided.margin
    if decided.verdict == "fair":
        return other.low > hi or other.high < lo
    return other.high <= hi if _side(decided) > 0 else other.low >= lo


def skill_answer(base: Fairness, strong: Fairness) -> SkillAnswer:
    """Does `base`'s verdict hold when the game is played by a stronger line-up (`strong`)?
    See `SkillAnswer` for the rule."""
    diff = newcombe_diff(strong.successes, strong.n, base.successes, base.n, base.conf)
    significant = not diff.low <= 0 <= diff.high
    decided = ("fair", "unfair")
    if base.n == 0 or strong.n == 0:
        answer = SKILL_WORDS[2]
    elif base.verdict in decided and strong.verdict in decided:
        same = strong.verdict == base.verdict and (base.verdict == "fair" or _side(strong) == _side(base))
        answer = SKILL_WORDS[0] if same else SKILL_WORDS[1]
    elif (base.verdict in decided and _shown_outside(base, strong)) or \
            (strong.verdict in decided and _shown_outside(strong, base)):
        answer = SKILL_WORDS[1]
    elif base.verdict == "unfair":
        persists = strong.detectable and _side(strong) == _side(base) and not significant
        answer = SKILL_WORDS[0] if persists else SKILL_WORDS[2]
    elif base.verdict == "fair":
        answer = SKILL_WORDS[0] if not strong.detectable and not significant else SKILL_WORDS[2]
    else:
        answer = SKILL_WORDS[2]
    return SkillAnswer(base, strong, diff, answer)
