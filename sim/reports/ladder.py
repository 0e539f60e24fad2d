"""The ladder's files (ratings.csv, pairings.csv, by_skill.csv, skill_depth.csv, ladder.md,
ladder.html, figures) and the "by skill" section `hexsim report` adds when its run folders hold
several bot line-ups of one variant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import stats
from sim.games.base import end_reason_groups
from sim.reports import plots
from sim.reports.document import Doc
from sim.runs import tables
from sim.runs.folder import non_win_reasons
from sim.runs.runner import git_commit
from sim.runs.variants import Variant
from sim.stats import intervals
from sim.stats.agreement import DISGUISE, PER_GAME
from sim.stats.ladder import DEPTH_SHARE, LadderResult, SkillTables, ceiling_words, skill_tables
from sim.stats.skill import cheats


def _pct(x: float) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.1f}%"


def _ci(lo: float, hi: float) -> str:
    """A share's interval in percent, clipped to [0, 1]."""
    return intervals.text(lo, hi, _pct, intervals.SHARE)


def _elo(x: float) -> str:
    return "n/a" if not np.isfinite(x) else f"{x:.0f}"


# ---- figures -----------------------------------------------------------------------------------
def elo_figure(t: SkillTables, budgets: Sequence[float] | None, budget_param: str | None):
    import matplotlib.pyplot as plt

    r = t.ratings
    fig, ax = plt.subplots(figsize=(7, 3.8))
    if budgets:
        x = np.asarray(budgets, dtype=float)
        ax.set_xscale("log", base=2)
        ax.set_xlabel(f"{budget_param} (log scale)")
    else:
        x = np.arange(len(r))
        ax.set_xticks(x, r["bot"], rotation=20, ha="right", fontsize=8)
        ax.set_xlabel("rung (ladder order)")
    e = r["elo"].to_numpy()
    ax.errorbar(x, e, yerr=[np.maximum(e - r["elo_low"], 0), np.maximum(r["elo_high"] - e, 0)], fmt="o-",
                capsize=3)
    ax.set_ylabel(f"Elo ({t.anchor} = 0)")
    ax.set_title("Elo against budget (95% bootstrap intervals)")
    ax.grid(alpha=0.3)
    return fig


def first_mover_figure(t: SkillTables):
    import matplotlib.pyplot as plt

    b = t.by_skill.sort_values("elo")
    fig, ax = plt.subplots(figsize=(7, 3.8))
    x = b["elo"].to_numpy()
    ax.fill_between(x, b["first_mover_share_low"], b["first_mover_share_high"], alpha=0.25,
                    label="95% Wilson interval")
    ax.plot(x, b["first_mover_share"], "o-", label="first mover's share of decisive games")
    for xi, yi, lab in zip(x, b["first_mover_share"], b["bot"], strict=True):
        ax.annotate(lab, (xi, yi), fontsize=7, xytext=(3, 4), textcoords="offset points")
    seats = sum(1 for c in b.columns if c.startswith("win_rate_") and not c.endswith(("_low", "_high")))
    fair = 1 / max(seats, 2)
    ax.axhline(fair, color="0.3", ls="--", lw=1, label=f"{fair:.0%} (fair share)")
    ax.set_xlabel(f"Elo of the bot playing itself ({t.anchor} = 0)")
    ax.set_ylabel("share")
    ax.set_title("First mover's share against Elo")
    ax.legend(fontsize=8, frameon=False)
    ax.grid(alpha=0.3)
    return fig


def end_reason_figure(t: SkillTables, groups: dict[str, tuple[str, ...]]):
    """How games end against Elo, by group of end reasons as the game's docs read them (all
    blocking ends together), each in its first reason's colour."""
    import matplotlib.pyplot as plt

    b = t.by_skill.sort_values("elo")
    fig, ax = plt.subplots(figsize=(7, 3.8))
    x = b["elo"].to_numpy()
    colours = plots.reason_colours([r for members in groups.values() for r in members])
    for g, members in groups.items():
        col = f"ends_{g}"
        if col not in b or not (b[col] > 0).any():
            continue
        label = g if members == (g,) else f"{g} ({', '.join(members)})"
        ax.plot(x, b[col], "o-", label=label, color=colours[members[0]])
        ax.fill_between(x, b[f"{col}_low"], b[f"{col}_high"], alpha=0.2, color=colours[members[0]])
    ax.set_xlabel(f"Elo of the bot playing itself ({t.anchor} = 0)")
    ax.set_ylabel("share of games")
    ax.set_ylim(0, 1)
    ax.set_title("How games end against Elo (95% Wilson bands)")
    ax.legend(fontsize=8, frameon=False)
    ax.grid(alpha=0.3)
    return fig


def figures(t: SkillTables, groups: dict[str, tuple[str, ...]], budgets=None, budget_param=None,
            prefix: str = "") -> dict[str, bytes]:
    if not len(t.pairings):  # nothing rates the bots: no axis to draw them on
        return {}
    figs = {f"{prefix}elo": plots.png(elo_figure(t, budgets, budget_param))}
    if len(t.by_skill):
        figs[f"{prefix}first_mover"] = plots.png(first_mover_figure(t))
        figs[f"{prefix}end_reasons"] = plots.png(end_reason_figure(t, groups))
    return figs


# ---- the answer: does the first mover's edge hold with stronger play? ----------------------------
@dataclass
class LadderAnswer:
    """The strongest rung (by Elo) against the reference rung (the variant's own bot when it is
    on the ladder, else the weakest): the verdict's skill answer and how the commonest way to
    end moves between them."""

    base_bot: str
    strong_bot: str
    answer: stats.SkillAnswer
    ends: str  # one clause: the commonest way to end at each rung

    def sentence(self) -> str:
        b = self.answer.base
        return (f"With {self.base_bot} on every seat the first mover wins {100 * b.share:.1f}% "
                f"({100 * b.low:.1f}-{100 * b.high:.1f}) of decisive games ({b.verdict}). "
                f"{self.answer.sentence(self.base_bot, self.strong_bot)} {self.ends}")


def rung_fairness(row: dict[str, Any] | pd.Series, seats: int) -> stats.Fairness:
    """The verdict at one rung (its bot on every seat), by the report's rule."""
    return stats.fairness(int(row["first_wins"]), int(row["decisive"]), 1 / seats, stats.FAIR_MARGIN)


def _ends_clause(base: pd.Series, strong: pd.Series, groups: dict[str, tuple[str, ...]]) -> str:
    shares = {g: base.get(f"ends_{g}", np.nan) for g in groups}
    g = max(shares, key=lambda k: -1 if not np.isfinite(shares[k]) else shares[k])
    lo, hi = f"ends_{g}_low", f"ends_{g}_high"
    return (f"Games ending by {g}: {_pct(base[f'ends_{g}'])} {_ci(base[lo], base[hi])} with {base['bot']}, "
            f"{_pct(strong[f'ends_{g}'])} {_ci(strong[lo], strong[hi])} with {strong['bot']}.")


def ladder_answer(t: SkillTables, seats: int, base_bot: str | None,
                  groups: dict[str, tuple[str, ...]]) -> LadderAnswer | None:
    """None when fewer than two rated rungs played themselves, or when the reference rung is
    the strongest (nothing stronger to ask)."""
    if not len(t.by_skill) or "first_wins" not in t.by_skill:
        return None
    b = t.by_skill[np.isfinite(t.by_skill["elo"])].sort_values("elo", kind="stable")
    if len(b) < 2:
        return None
    strong = b.iloc[-1]
    base = b[b["bot"] == base_bot].iloc[0] if base_bot in set(b["bot"]) else b.iloc[0]
    if base["bot"] == strong["bot"]:
        return None
    answer = stats.skill_answer(rung_fairness(base, seats), rung_fairness(strong, seats))
    return LadderAnswer(str(base["bot"]), str(strong["bot"]), answer, _ends_clause(base, strong, groups))


def variant_bot(v: Variant) -> str | None:
    """The bot every seat of the variant holds (its label), None for a mixed line-up."""
    labels = {b.label() for b in v.seats.values()}
    return labels.pop() if len(labels) == 1 else None


def answer_words(ans: LadderAnswer | None, strongest: str) -> str:
    """The page's opening sentence."""
    if ans is None:
        return (f"The strongest rung is the variant's own bot ({strongest}): this ladder has no "
                "stronger play to check its verdict against.")
    return f"Does the first mover's edge hold with stronger play? {ans.sentence()}"


# ---- document ----------------------------------------------------------------------------------
def skill_blocks(doc, t: SkillTables, level: int, prefix: str = "", agreement: pd.DataFrame | None = None) -> None:
    """Ratings, pairings, skill depth, SkillTrace (with each rung's agreement with the rung below,
    when measured) and the by-skill table as document blocks (only the by-skill table when no two
    bots played each other)."""
    if len(t.pairings):
        _rating_blocks(doc, t, level)
    if agreement is not None and len(agreement):
        _agreement_blocks(doc, agreement, level)
    _by_skill_blocks(doc, t, level)
    doc.fig(f"{prefix}elo", "Elo against budget")
    doc.fig(f"{prefix}first_mover", "First mover's share of decisive games against Elo")
    doc.fig(f"{prefix}end_reasons", "End reasons against Elo")


def _rating_blocks(doc, t: SkillTables, level: int) -> None:
    doc.h(level, "Ratings")
    doc.p(f"Bradley-Terry fit (choix), draws as half a win, Elo anchored at {t.anchor} = 0; 95% "
          "percentile bootstrap over games. An anchored interval is loose when a link of the chain is "
          "one-sided; the step from the rung before has its own, usually much narrower, interval.")
    doc.table(["bot", "Elo", "95% interval", "games", "Elo above the rung before", "95% interval", "note"],
              [[r.bot, _elo(r.elo), intervals.elo_text(r.elo_low, r.elo_high, r.note, r.bot == t.anchor),
                f"{r.games:,}", "" if not np.isfinite(r.gap_below) else f"{r.gap_below:+.0f}",
                intervals.elo_text(r.gap_below_low, r.gap_below_high, r.note), r.note]
               for r in t.ratings.itertuples()])
    doc.h(level, "Pairings")
    up = t.upset
    doc.p(f"Upset rate (the lower-rated bot wins a decisive game): {_pct(up.value)} {_ci(up.low, up.high)} "
          f"of {up.n:,} decisive games. Score = (wins + draws / 2) / games, Wilson interval.")
    doc.table(["a", "b", "games", "wins a", "wins b", "draws", "score a", "95%", "b's share of decisive",
               "95%", "stopped early"],
              [[r.bot_a, r.bot_b, f"{r.games:,}", r.wins_a, r.wins_b, r.draws, _pct(r.score_a),
                _ci(r.score_a_low, r.score_a_high), _pct(r.decisive_share_b),
                _ci(r.decisive_share_b_low, r.decisive_share_b_high),
                (r.decision or "no") if r.stopped_early else "no"] for r in t.pairings.itertuples()])
    doc.h(level, "Skill depth and SkillTrace")
    st = t.skill_trace
    st_text = "n/a (it needs two or more steps, every one played)" if not np.isfinite(st) else f"{st:.3f}"
    if np.isfinite(st) and np.isfinite(t.skill_trace_ci[0]):
        st_text += f" [{t.skill_trace_ci[0]:.3f}, {t.skill_trace_ci[1]:.3f}] (95% bootstrap)"
    doc.p(f"Skill depth: {t.depth.words()}: consecutive rungs from the weakest where each beats the "
          f"one below in at least {DEPTH_SHARE:.0%} of decisive games with the 95% Wilson lower bound "
          f"above 50%. Each step's 'probability real' is the posterior probability (uniform prior) that "
          f"its true share is at least {DEPTH_SHARE:.0%}; the expected depth and its 95% range follow "
          f"from them. Ludii's SkillTrace over the same steps: {st_text}; it is Ludii's measure exactly "
          "when each rung doubles the budget of the one below.")
    doc.table(["lower", "upper", "decisive", "upper's share", "95%", "beats", "probability real"],
              [[r.lower, r.upper, f"{r.decisive:,}", _pct(r.share), _ci(r.low, r.high),
                ("yes" if r.beats else "no") if r.played else "not played", f"{r.p_real:.2f}"]
               for r in t.depth.steps.itertuples()])


def _agreement_blocks(doc, agreement: pd.DataFrame, level: int) -> None:
    doc.h(level, "Agreement with the rung below")
    doc.p("How often a rung picks the very move the rung below would pick in the same position: games "
          "of the rung playing itself are replayed, and at sampled decisions with a real choice (two "
          f"or more legal moves; at most {PER_GAME} per game) the lower bot is asked for its move, with "
          "the same information. A rung that beats the one below but agrees with it at nearly every "
          "decision is the lower bot in disguise: its extra strength comes from a few decisions. Chance: "
          "the agreement of a bot choosing uniformly among the legal moves. 95% Wilson intervals; "
          f"'in disguise' where the interval's lower bound is at least {DISGUISE:.0%}.")
    doc.table(["rung", "rung below", "same move", "95%", "decisions", "games", "chance", "reads as"],
              [[r["bot"], r["below"], _pct(r["share"]), _ci(r["share_low"], r["share_high"]), f"{r['decisions']:,}",
                f"{r['games']:,}", _pct(r["chance"]), _disguise_words(r, DISGUISE)]
               for r in agreement.to_dict("records")])


def _disguise_words(r: dict[str, Any], disguise: float) -> str:
    if not r["decisions"]:
        return r["note"]
    if r["share_low"] >= disguise:
        return f"{r['below']} in disguise"
    if r["share_low"] <= r["chance"] <= r["share_high"]:
        return "agrees no more than chance"
    if r["share_high"] < 0.5:
        return "decides most positions otherwise"
    return "agrees often, differs often"


def ceiling_blocks(doc, ceiling: pd.DataFrame, level: int) -> None:
    """The ceiling of skill: each bot that sees hidden state against the fair rung it played."""
    if not len(ceiling):
        return
    doc.h(level, "Ceiling of skill (a bot that cheats)")
    for r in ceiling.to_dict("records"):
        doc.p("The c" + ceiling_words(r)[1:] + ".")
    names = ", ".join(sorted(set(ceiling["bot"])))
    doc.p(f"A bot that cheats: {names} sees every player's hidden hand and what is left to draw. It is not a rung of "
          "fair play: it takes no part in the ratings, the skill depth, the by-skill table or the "
          "'with stronger play' answer. It marks how far skill can go in this game: what it cannot "
          "win against a fair bot, luck decides. 95% Wilson intervals.")
    doc.table(["ceiling", "against", "games", "its share of decisive games", "95%", "the fair bot still wins",
               "95%", "draws"],
              [[r["bot"], r["against"], f"{r['games']:,}", _pct(r["decisive_share"]),
                _ci(r["decisive_share_low"], r["decisive_share_high"]), _pct(r["against_share"]),
                _ci(r["against_share_low"], r["against_share_high"]), f"{r['draws']:,}"]
               for r in ceiling.to_dict("records")])


def _by_skill_blocks(doc, t: SkillTables, level: int) -> None:
    if len(t.by_skill):
        doc.h(level, "By skill (each bot playing itself)")
        doc.p(f"Verdict at each rung by the report's rule: {stats.verdict_rule(stats.FAIR_MARGIN)}.")
        b = t.by_skill
        seats = [c[len("win_rate_"):] for c in b.columns if c.startswith("win_rate_")
                 and not c.endswith(("_low", "_high"))]
        doc.table(["bot", "Elo", "games", "first mover's share of decisive", "verdict", "draws",
                   "decided off the board", "median turns"] + [f"seat {s} wins" for s in seats],
                  [[r["bot"], _elo(r["elo"]), f"{r['games']:,}",
                    f"{_pct(r['first_mover_share'])} {_ci(r['first_mover_share_low'], r['first_mover_share_high'])}",
                    rung_fairness(r, len(seats)).verdict if "first_wins" in r else "",
                    f"{_pct(r['draw_rate'])} {_ci(r['draw_rate_low'], r['draw_rate_high'])}",
                    f"{_pct(r['off_board_share'])} {_ci(r['off_board_share_low'], r['off_board_share_high'])}",
                    f"{r['median_turns']:g} "
                    f"{intervals.text(r['median_turns_low'], r['median_turns_high'], '{:.3g}'.format, intervals.COUNT)}"]
                   + [f"{_pct(r[f'win_rate_{s}'])} {_ci(r[f'win_rate_{s}_low'], r[f'win_rate_{s}_high'])}"
                      for s in seats] for r in b.to_dict("records")])
        _ends_blocks(doc, b)
        by_elo = b[np.isfinite(b["elo"])].sort_values("elo", kind="stable")
        if len(by_elo) < 2:
            return
        weak, strong = by_elo.iloc[0], by_elo.iloc[-1]
        doc.p(f"First mover's share of decisive games: {_pct(weak['first_mover_share'])} "
              f"{_ci(weak['first_mover_share_low'], weak['first_mover_share_high'])} at the weakest rung "
              f"({weak['bot']}, Elo {_elo(weak['elo'])}), {_pct(strong['first_mover_share'])} "
              f"{_ci(strong['first_mover_share_low'], strong['first_mover_share_high'])} at the strongest "
              f"({strong['bot']}, Elo {_elo(strong['elo'])}).")


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None  # JSON has no NaN


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame's rows for JSON: numbers as plain numbers, NaN as null."""
    out = []
    for r in df.to_dict("records"):
        out.append({k: (_finite(v) if isinstance(v, (float, np.floating)) else
                        int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else v)
                    for k, v in r.items()})
    return out


def _write_summary(res: LadderResult, path: Path) -> None:
    """ladder.json: what was asked (variant, rungs, games, seed, pairs) and the headline answers."""
    b = res.by_skill[np.isfinite(res.by_skill["elo"])].sort_values("elo", kind="stable") \
        if len(res.by_skill) else res.by_skill
    first = {what: {"bot": r["bot"], "share": _finite(r["first_mover_share"]),
                    "low": _finite(r["first_mover_share_low"]), "high": _finite(r["first_mover_share_high"])}
             for what, r in
             (("weakest", b.iloc[0]), ("strongest", b.iloc[-1]))} if len(b) else {}
    tables.write_json(path, {
        "variant": res.variant.describe(), "rungs": res.rungs, "games_per_pairing": res.games,
        "seed": res.seed, "pairs": res.pairs, "anchor": res.anchor, "skill_depth": res.depth.depth,
        "steps": len(res.order) - 1, "skill_trace": _finite(res.skill_trace),
        "skill_trace_ci": [_finite(x) for x in res.skill_trace_ci], "upset_rate": _finite(res.upset.value),
        "first_mover_share": first, "variant_name": res.variant.name, "variant_hash": res.variant.hash,
        "seats": len(res.variant.seat_names), "answer": _answer_json(res),
        "skill_depth_expected": _finite(res.depth.expected), "skill_depth_range95": list(res.depth.range95),
        "stopped_early": [f"{r.bot_a} vs {r.bot_b}" for r in res.pairings.itertuples() if r.stopped_early],
        "agreement": _records(res.agreement), "ceiling": _records(res.ceiling),
        "games_played_now": res.played_now, "games_resumed": res.resumed,
        "wall_seconds": round(res.wall_seconds, 3), "git_commit": git_commit()})


def _ladder_answer(res: LadderResult) -> LadderAnswer | None:
    v = res.variant
    return ladder_answer(res.tables, len(v.seat_names), variant_bot(v), end_reason_groups(v.game, v.game.end_reasons))


def _answer_json(res: LadderResult) -> dict[str, Any] | None:
    """The strong rung's counts and the answer, for `hexsim report --ladders` (`skill_column`)."""
    ans = _ladder_answer(res)
    if ans is None:
        return None
    a = ans.answer
    return {"base_bot": ans.base_bot, "strong_bot": ans.strong_bot, "answer": a.answer,
            "base": {"successes": a.base.successes, "n": a.base.n, "verdict": a.base.verdict},
            "strong": {"successes": a.strong.successes, "n": a.strong.n, "verdict": a.strong.verdict},
            "sentence": ans.sentence()}


def _strongest(res: LadderResult) -> str:
    """The strongest rung by Elo among those that played themselves (else the last listed)."""
    b = res.by_skill[np.isfinite(res.by_skill["elo"])] if len(res.by_skill) else res.by_skill
    if len(b):
        return str(b.sort_values("elo", kind="stable").iloc[-1]["bot"])
    return res.order[-1] if len(res.order) else ""


def write_ladder(res: LadderResult) -> dict[str, Path]:
    out = res.out
    out.mkdir(parents=True, exist_ok=True)
    files = {k: out / f"{k}.csv" for k in ("ratings", "pairings", "by_skill", "skill_depth", "agreement", "ceiling")}
    res.ratings.to_csv(files["ratings"], index=False)
    res.pairings.to_csv(files["pairings"], index=False)
    res.by_skill.to_csv(files["by_skill"], index=False)
    res.depth.steps.to_csv(files["skill_depth"], index=False)
    res.agreement.to_csv(files["agreement"], index=False)
    res.ceiling.to_csv(files["ceiling"], index=False)
    files["json"] = out / "ladder.json"
    _write_summary(res, files["json"])
    t = res.tables
    figs = figures(t, end_reason_groups(res.variant.game, res.variant.game.end_reasons), res.budgets,
                   res.budget_param)
    (out / "figures").mkdir(exist_ok=True)
    for k, data in figs.items():
        files[k] = out / "figures" / f"{k}.png"
        files[k].write_bytes(data)
    doc = Doc()
    v = res.variant
    doc.h(1, f"Skill ladder: {v.name}")
    doc.p(answer_words(_ladder_answer(res), _strongest(res)))
    early = int(res.pairings["stopped_early"].sum())
    doc.p(f"{v.name} (hash {v.hash}), {len(res.order)} rungs, pairings: {res.pairs} (plus each bot "
          f"against itself), {res.games:,} games per pairing with seats rotated, seed {res.seed}; "
          f"{early} pairing(s) stopped early by the sequential test; {res.played_now:,} games played in "
          f"{res.wall_seconds:.0f} s wall by the call that wrote this, {res.resumed:,} resumed from earlier calls.")
    doc.table(["rung", "bot", "parameters"],
              [[label, spec["bot"], ", ".join(f"{k}={v}" for k, v in spec.items() if k != "bot") or "-"]
               for label, spec in res.rungs.items()]
              + [[f"{r['bot']} (ceiling: it cheats)", r["bot"], f"plays {r['against']} apart; not rated"]
                 for r in res.ceiling.to_dict("records")])
    ceiling_blocks(doc, res.ceiling, 2)
    skill_blocks(doc, t, 2, agreement=res.agreement)
    files["md"], files["html"] = out / "ladder.md", out / "ladder.html"
    files["md"].write_text(doc.markdown({k: f"figures/{k}.png" for k in figs}))
    files["html"].write_text(doc.html(figs, f"hexsim ladder {v.name}"))
    return files


def _share_cells(b: pd.DataFrame, cols: Sequence[str]) -> list[list[str]]:
    return [[r["bot"]] + [f"{_pct(r[c])} {_ci(r[f'{c}_low'], r[f'{c}_high'])}" for c in cols]
            for r in b.to_dict("records")]


def _ends_blocks(doc, b: pd.DataFrame) -> None:
    """How games end at each rung, by the game's groups of end reasons (all blocking ends
    together), then every single reason folded."""
    groups = [c[len("ends_"):] for c in b.columns if c.startswith("ends_") and not c.endswith(("_low", "_high"))]
    reasons = [c[len("end_"):] for c in b.columns if c.startswith("end_") and not c.endswith(("_low", "_high"))]
    if groups:
        doc.p("How games end at each rung (share of all games, 95% Wilson interval), the end reasons "
              "grouped as the game's rules doc groups them:")
        doc.table(["bot"] + groups, _share_cells(b, [f"ends_{g}" for g in groups]))
    if reasons:
        doc.fold("every end reason at each rung")
        doc.table(["bot"] + reasons, _share_cells(b, [f"end_{r}" for r in reasons]))
        doc.endfold()


# ---- `hexsim report`: the "by skill" section ---------------------------------------------------
def _groups(runs: Sequence) -> dict[tuple[str, str], list]:
    """Runs of one variant (same game, name and rules), any seats."""
    import json

    out: dict[tuple[str, str], list] = {}
    for r in runs:
        v = r.manifest.get("variant", {})
        key = (v.get("name", r.label), json.dumps(v.get("rules", {}), sort_keys=True))
        out.setdefault(key, []).append(r)
    return out


def section_tables(runs: Sequence) -> list[tuple[str, SkillTables, dict[str, tuple[str, ...]]]]:
    """For each variant whose runs hold several bot line-ups: its ladder tables, the bots in
    Elo order (self-play runs give the by-skill rows, two-bot runs the pairings)."""

    found = []
    for (name, _), group in _groups(runs).items():
        lineups = {tuple(r.seat_bots) for r in group}
        if len(lineups) < 2:
            continue
        self_runs: dict[str, Any] = {}
        pair_runs: dict[frozenset, list] = {}
        for r in group:
            if any(cheats(b) for b in r.seat_bots):
                continue  # the ceiling of skill (it sees hidden state) is no rung
            bots = set(r.seat_bots)
            if len(bots) == 1:
                self_runs.setdefault(bots.pop(), r)  # one self-play table per bot
            elif len(bots) == 2:
                pair_runs.setdefault(frozenset(bots), []).append(r)
        names = sorted(set(self_runs) | {b for k in pair_runs for b in k})
        if len(names) < 2:
            continue
        keyed = {tuple(sorted(k)): v for k, v in pair_runs.items()}
        t = skill_tables(keyed, self_runs, names, non_win_reasons(group[0]), n_boot=200)
        order = list(t.ratings.sort_values("elo")["bot"])  # weakest first, then refit in that order
        keyed = {tuple(sorted(k, key=order.index)): v for k, v in pair_runs.items()}
        t = skill_tables(keyed, self_runs, order, non_win_reasons(group[0]), n_boot=200)
        found.append((name, t, end_reason_groups(group[0].game, group[0].end_reasons)))
    return found


def by_skill_section(doc, runs: Sequence, fig_dir: Path) -> dict[str, bytes]:
    """Append the "by skill" section to a report when its runs hold several bot line-ups of one
    variant; writes the section's figures into `fig_dir` and returns them (key -> PNG)."""
    found = section_tables(runs)
    figs: dict[str, bytes] = {}
    if not found:
        return figs
    doc.h(2, "By skill")
    doc.p("These run folders hold several bot line-ups of one variant. Runs of a bot against itself show "
          "how the game plays at that strength; runs of two bots rate them (Bradley-Terry, draws as half a "
          "win; intervals: bootstrap over games). Rungs are ordered by Elo; `hexsim ladder` plays a "
          "complete ladder.")
    for i, (name, t, groups) in enumerate(found):
        doc.h(3, name)
        prefix = f"by_skill_{i}_"
        skill_blocks(doc, t, 4, prefix)
        figs.update(figures(t, groups, prefix=prefix))
    fig_dir.mkdir(parents=True, exist_ok=True)
    for k, data in figs.items():
        (fig_dir / f"{k}.png").write_bytes(data)
    return figs
