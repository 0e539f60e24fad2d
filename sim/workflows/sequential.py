"""`hexsim compare A B --sequential --margin D`: stop as soon as the answer is known.

The statistic is paired, as chess-engine testing pairs games: game i of A and game i of B share
their seed, and d_i = x_i(B) - x_i(A), where x is 1 when the tested seat wins (by default the
seat that moves first; draws and losses are 0). The mean of d is the change of that seat's win
rate. Two one-sided GSPRTs (the normal-approximation generalised SPRT of fishtest) run side by
side (Sobel & Wald's two-sided construction):

    up:   H0 delta = 0  against  H1 delta = +D        down:  H0 delta = 0  against  H1 delta = -D

each with type-I error alpha/2 and type-II error beta, Wald's bounds
`lower = log(beta / (1 - alpha/2))`, `upper = log((1 - beta) / (alpha/2))`, and the GSPRT
log-likelihood ratio `LLR = N (d1 - d0) (2 mean - d0 - d1) / (2 var)` with the sample mean and
(maximum-likelihood) variance of the N pairs so far. The variance is floored at 1/N, as if at
least one pair in N differed: with common seeds most pairs are equal and an all-zero start
would otherwise decide on no evidence. Stop with "changed" as soon as one side reaches its upper
bound, with "no change of D or more" when both sides have reached their lower bound, and report
"undecided" at `max_games`. Checking only after each batch can only lower both error rates.

Minimum evidence. The normal approximation needs discordant pairs to estimate the variance, so
a side may decide only after `min_discordant` (default 10) pairs differed. With fewer, "no
change" is still accepted when the discordance alone excludes a change of D: any change of D
makes at least a share D of the pairs differ. With k of N pairs differing, the likelihood ratio
L = (r1 / D)^k ((1 - r1) / (1 - D))^(N - k) of a discordance r1 = D / 10 against D is a
supermartingale whenever the true discordance is D or more, so by Ville's inequality stopping
at L >= 1 / beta wrongly rules out a change of D with probability at most beta, however often
the test looks. (D = 0.03: 50 identical pairs give L = 3.9, no decision; 110 give L > 20.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from sim import display
from sim.errors import UserError
from sim.runs.variants import Variant


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Bounds of each one-sided test (type-I error alpha/2 of the two-sided test)."""
    return math.log(beta / (1 - alpha / 2)), math.log((1 - beta) / (alpha / 2))


def gsprt_llr(n: int, total: float, total_sq: float, d0: float, d1: float) -> float:
    """GSPRT log-likelihood ratio of mean d1 against d0 from N observations (sum, sum of squares)."""
    if n == 0:
        return 0.0
    mean = total / n
    var = max(total_sq / n - mean * mean, 1.0 / n)
    return n * (d1 - d0) * (2 * mean - d0 - d1) / (2 * var)


def fixed_games(margin: float, var: float, alpha: float, beta: float) -> int:
    """Pairs a fixed-size two-sided paired z-test needs for power 1 - beta at |delta| = margin
    (statsmodels' normal power, one sample of differences)."""
    from statsmodels.stats.power import NormalIndPower

    if var <= 0:
        return 1
    n = NormalIndPower().solve_power(effect_size=margin / math.sqrt(var), alpha=alpha,
                                     power=1 - beta, ratio=0, alternative="two-sided")
    return int(math.ceil(n))


@dataclass
class SequentialTest:
    """The running two-sided GSPRT; feed it batches of paired differences with `update`."""

    margin: float
    alpha: float = 0.05
    beta: float = 0.05
    n: int = 0
    total: float = 0.0
    total_sq: float = 0.0
    up: str | None = None  # None while running, "H0" or "H1" once the side decided
    down: str | None = None
    min_discordant: int = 10
    discordant: int = 0  # pairs whose outcomes differed so far
    trace: list[tuple[int, float, float, float]] = field(default_factory=list)

    def __post_init__(self):
        if not 0 < self.margin < 1:
            raise UserError(f"--margin {self.margin}: must be in (0, 1) (a win-rate change)")
        for name, v in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < v < 0.5:
                raise UserError(f"--{name} {v}: must be in (0, 0.5)")
        self.lower, self.upper = wald_bounds(self.alpha, self.beta)

    def llrs(self) -> tuple[float, float]:
        return (gsprt_llr(self.n, self.total, self.total_sq, 0.0, self.margin),
                gsprt_llr(self.n, self.total, self.total_sq, 0.0, -self.margin))

    def update(self, diffs: np.ndarray) -> str | None:
        """Add a batch of paired differences; returns the decision, or None to go on."""
        d = np.asarray(diffs, dtype=np.float64)
        self.n += d.size
        self.total += float(d.sum())
        self.total_sq += float((d * d).sum())
        self.discordant += int(np.count_nonzero(d))
        up, down = self.llrs()
        self.trace.append((self.n, up, down, self.total / max(self.n, 1)))
        if self.discordant >= self.min_discordant:
            for side, llr in (("up", up), ("down", down)):
                if getattr(self, side) is None:
                    if llr >= self.upper:
                        setattr(self, side, "H1")
                    elif llr <= self.lower:
                        setattr(self, side, "H0")
        elif self.discordance_rules_out_margin():
            self.up = self.up or "H0"
            self.down = self.down or "H0"
        return self.decision()

    def discordance_rules_out_margin(self) -> bool:
        """So few pairs differed that a change of `margin` (which makes at least that share of
        pairs differ) is ruled out at level beta (the likelihood-ratio supermartingale above)."""
        m, k = self.margin, self.discordant
        r1 = m / 10
        log_l = k * math.log(r1 / m) + (self.n - k) * math.log((1 - r1) / (1 - m))
        return log_l >= math.log(1 / self.beta)

    def decision(self) -> str | None:
        if self.up == "H1":
            return "changed: win rate went up"
        if self.down == "H1":
            return "changed: win rate went down"
        if self.up == "H0" and self.down == "H0":
            return "no change"
        return None

    def var(self) -> float:
        m = self.total / max(self.n, 1)
        return max(self.total_sq / max(self.n, 1) - m * m, 0.0)

    def trace_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.trace, columns=["games", "llr_up", "llr_down", "mean_diff"])


# ---- synthetic operating characteristics --------------------------------------------------------
def simulate_paired(delta: float, discordance: float, n: int, rng) -> np.ndarray:
    """n paired differences in {-1, 0, 1}: P(+1) = (r + delta)/2, P(-1) = (r - delta)/2."""
    p_up, p_down = (discordance + delta) / 2, (discordance - delta) / 2
    u = rng.random(n)
    return (u < p_up).astype(np.float64) - ((u >= p_up) & (u < p_up + p_down))


@dataclass
class OperatingCharacteristics:
    margin: float
    alpha: float
    beta: float
    discordance: float
    reps: int
    type1: float  # "changed" when delta = 0
    type2: float  # not "changed" in the right direction when delta = margin
    asn_h0: float  # mean pairs used
    asn_h1: float
    undecided: float  # share that reached max games
    fixed_n: int  # the fixed-size paired test with the same alpha and power

    def summary(self) -> str:
        return (f"margin {self.margin}, discordance {self.discordance}, {self.reps} runs each: "
                f"type I {self.type1:.3f} (nominal {self.alpha}), type II {self.type2:.3f} "
                f"(nominal {self.beta}); mean games {self.asn_h0:.0f} under H0, "
                f"{self.asn_h1:.0f} under H1, fixed-size test {self.fixed_n}")


def operating_characteristics(margin: float = 0.05, alpha: float = 0.05, beta: float = 0.05,
                              discordance: float = 0.3, reps: int = 1000, batch: int = 50,
                              max_games: int = 100_000, seed: int = 0) -> OperatingCharacteristics:
    """Run the test on synthetic paired outcomes under delta = 0 and delta = margin."""
    rng = np.random.default_rng(seed)
    res = {}
    for delta in (0.0, margin):
        wrong, used, undecided = 0, [], 0
        for _ in range(reps):
            t = SequentialTest(margin, alpha, beta)
            dec = None
            while dec is None and t.n < max_games:
                dec = t.update(simulate_paired(delta, discordance, batch, rng))
            used.append(t.n)
            undecided += dec is None
            wrong += (dec is not None and dec.startswith("changed")) if delta == 0 else \
                (dec != "changed: win rate went up")
        res[delta] = (wrong / reps, float(np.mean(used)), undecided / reps)
    fixed = fixed_games(margin, discordance, alpha, beta)
    return OperatingCharacteristics(margin, alpha, beta, discordance, reps, res[0.0][0],
                                    res[margin][0], res[0.0][1], res[margin][1],
                                    (res[0.0][2] + res[margin][2]) / 2, fixed)


# ---- the live comparison ----------------------------------------------------------------------
@dataclass
class SequentialResult:
    variant_a: Variant
    variant_b: Variant
    target: str
    test: SequentialTest
    decision: str  # "changed: ...", "no change" or "undecided"
    games: int
    rate_a: float
    rate_b: float
    ci: tuple[float, float]  # 95% interval of rate_b - rate_a (paired, normal)
    fixed_n: int  # the fixed-size test with the same power, at the observed variance
    seed: int
    files: dict[str, Path] = field(default_factory=dict)

    def __repr__(self) -> str:
        lo, hi = self.ci
        return display.text(
            f"SequentialResult {self.variant_a.name} vs {self.variant_b.name}: {self.decision} "
            f"after {self.games:,} game pairs",
            [f"{self.target} win rate A {self.rate_a:.4f}, B {self.rate_b:.4f}, B - A 95% [{lo:+.4f}, {hi:+.4f}]",
             f"a fixed-size test with the same power needs about {self.fixed_n:,}", display.folder(self.files),
             "in words: .summary()"])

    def summary(self) -> str:
        t = self.test
        few = (f"; only {t.discordant:,} pairs differed (at least {t.min_discordant} needed for "
               "the likelihood ratio)" if t.discordant < t.min_discordant else "")
        verdict = {"no change": f"no change of {self.test.margin} or more"
                                + (f" ({t.discordant:,} of {t.n:,} pairs differed: a change of "
                                   f"{t.margin} would have made more differ)" if few else ""),
                   "undecided": f"undecided after {self.games:,} games (max reached{few})"}.get(
            self.decision, f"{self.decision} (the data favour a change of {self.test.margin} "
                           "over none)")
        return (f"{self.target} win rate: A {self.rate_a:.4f}, B {self.rate_b:.4f}, "
                f"B - A {self.rate_b - self.rate_a:+.4f} (95% [{self.ci[0]:+.4f}, "
                f"{self.ci[1]:+.4f}]); GSPRT (margin {self.test.margin}, alpha {self.test.alpha}, "
                f"beta {self.test.beta}): {verdict} after {self.games:,} game pairs; a fixed-size "
                f"test with the same power needs about {self.fixed_n:,}")


def _target_wins(frame: pd.DataFrame, seat_names: list[str], target: str) -> np.ndarray:
    w = frame["winner"].to_numpy()
    if target == "first_mover":
        return (w == frame["first_seat"].to_numpy()).astype(np.float64)
    return (w == seat_names.index(target)).astype(np.float64)


def _batch(variant: Variant, first: int, n: int, seed: int, par, jobs: int) -> pd.DataFrame:
    from joblib import delayed

    from sim.runs.runner import play_range

    step = math.ceil(n / jobs)
    ranges = [(f, min(step, first + n - f)) for f in range(first, first + n, step)]
    if par is None:
        return pd.concat([play_range(variant, f, k, seed) for f, k in ranges], ignore_index=True)
    return pd.concat(par(delayed(play_range)(variant, f, k, seed) for f, k in ranges),
                     ignore_index=True)


def sequential_compare(a: str | Variant, b: str | Variant, margin: float, alpha: float = 0.05,
                       beta: float = 0.05, max_games: int = 200_000, batch: int = 1000,
                       seed: int = 0, jobs: int = 1, target: str = "first_mover",
                       out: str | Path | None = None) -> SequentialResult:
    """Play A and B in batches on common seeds until the GSPRT decides whether `target`'s win
    rate moved by `margin` or more (target: "first_mover" or a seat name)."""
    from sim.workflows.compare import load_pair

    va, vb = load_pair(a, b)
    if target != "first_mover" and target not in va.seat_names:
        raise UserError(f"--seat {target}: allowed: first_mover, {', '.join(va.seat_names)}")
    if batch < 1 or max_games < 1:
        raise UserError("--batch and --max-games must be at least 1")
    test = SequentialTest(margin, alpha, beta)
    wins_a = wins_b = 0.0
    decision = None
    from joblib import Parallel

    with Parallel(n_jobs=jobs) if jobs > 1 else _NoPool() as par:
        while decision is None and test.n < max_games:
            n = min(batch, max_games - test.n)
            xa = _target_wins(_batch(va, test.n, n, seed, par, jobs), va.seat_names, target)
            xb = _target_wins(_batch(vb, test.n, n, seed, par, jobs), vb.seat_names, target)
            wins_a += xa.sum()
            wins_b += xb.sum()
            decision = test.update(xb - xa)
    games = test.n
    se = math.sqrt(test.var() / games)
    diff = (wins_b - wins_a) / games
    res = SequentialResult(va, vb, target, test, decision or "undecided", games, wins_a / games,
                           wins_b / games, (diff - 1.96 * se, diff + 1.96 * se),
                           fixed_games(margin, max(test.var(), 1 / games), alpha, beta), seed)
    if out is not None:
        res.files = write_sequential(res, Path(out))
    return res


class _NoPool:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def write_sequential(res: SequentialResult, out: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    files = {"csv": out / "sequential.csv", "png": out / "sequential.png",
             "md": out / "sequential.md"}
    tr = res.test.trace_frame()
    tr.to_csv(files["csv"], index=False)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(tr["games"], tr["llr_up"], marker=".", label=f"LLR up (+{res.test.margin})")
    ax.plot(tr["games"], tr["llr_down"], marker=".", label=f"LLR down (-{res.test.margin})")
    ax.axhline(res.test.upper, color="tab:red", ls="--", label="changed bound")
    ax.axhline(res.test.lower, color="tab:green", ls="--", label="no-change bound")
    ax.set_xlabel("game pairs")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title(f"GSPRT {res.variant_a.name} vs {res.variant_b.name}: {res.decision}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(files["png"], dpi=90)
    plt.close(fig)
    files["md"].write_text(f"# Sequential comparison\n\n{res.summary()}\n\n![LLR trace]"
                           f"({files['png'].name})\n")
    return files
