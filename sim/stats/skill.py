"""Does the verdict hold with stronger play? The report's skill column, from ladder folders.

`hexsim ladder` writes ladder.json with the strongest rung's first-mover counts (its bot on
every seat) and the bot it was measured against. `hexsim report --ladders DIR` reads every
ladder under DIR and, for each verdict row whose variant (name and hash) a ladder played and
whose line-up is that ladder's reference bot on every seat, judges the strong rung's share by
the verdict rule and the row's against it (`stats.skill_answer`: holds with stronger play /
changes with stronger play / cannot tell yet). A bot that sees hidden state (`oracle`, `cheats`)
is never that strong rung: the ladder shows it apart as the ceiling of skill.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim import stats
from sim.errors import UserError

CEILING_BOTS = ("oracle",)  # bots that see what their seat may not (everyone's hands): a ceiling of skill


def cheats(label: str) -> bool:
    """Whether a bot (by its name or a label "name(param=...)") sees hidden state: the ladder shows
    it as the ceiling of skill, never as a rung, and a run it plays in gets no fairness verdict."""
    return str(label).split("(")[0].strip() in CEILING_BOTS


@dataclass(frozen=True)
class Ladder:
    """One ladder folder's answer, as ladder.json gives it."""

    path: Path  # the folder (ladder.html is in it)
    variant: str
    variant_hash: str
    seats: int
    strongest: str  # the strongest rung's bot
    answer: dict[str, Any] | None  # None: the strongest rung is the variant's own bot


@dataclass(frozen=True)
class Skill:
    """A verdict row's skill column."""

    ladder: Ladder
    answer: stats.SkillAnswer | None  # None: no stronger bot than the row's on this ladder

    @property
    def strong_bot(self) -> str:
        """The strong rung's bot with its parameters, as the ladder names it."""
        return self.ladder.answer["strong_bot"] if self.ladder.answer else self.ladder.strongest

    def cell(self) -> str:
        """The verdict table's cell: "holds: mcts 54.3%" (the bot without its parameters; its
        sentence, the cell's tooltip, gives them and the intervals)."""
        short = self.strong_bot.split("(")[0]
        if self.answer is None:
            return f"{short} is the strongest bot"
        s = self.answer.strong
        word = self.answer.answer.replace(" with stronger play", "")
        return f"{word}: {short} {100 * s.share:.1f}%"

    def sentence(self, base_bot: str) -> str:
        if self.answer is None:
            return (f"No bot on its ladder is stronger than {self.ladder.strongest}, so this verdict is "
                    "the one at the strongest play measured.")
        return self.answer.sentence(base_bot, self.strong_bot)

    def link(self, out_dir: Path) -> str:
        """The ladder page, relative to the report folder."""
        return os.path.relpath(self.ladder.path / "ladder.html", out_dir)


def _read(path: Path) -> Ladder:
    try:
        d = json.loads(path.read_text())
        return Ladder(path.parent, d["variant_name"], d["variant_hash"], int(d["seats"]),
                      d["first_mover_share"]["strongest"]["bot"], d.get("answer"))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UserError(f"{path}: not a ladder summary this version writes ({type(e).__name__}: {e}); "
                        "play the ladder again with `hexsim ladder`") from None


def load_ladders(dirs: Sequence[str | Path]) -> list[Ladder]:
    """Every ladder.json in each folder or one level below it (`make run` writes one folder per
    variant under reports/ladder)."""
    found = []
    for d in map(Path, dirs):
        files = [d / "ladder.json"] if (d / "ladder.json").exists() else sorted(d.glob("*/ladder.json"))
        if not files:
            raise UserError(f"--ladders {d}: no ladder.json in it or in its folders; "
                            "`hexsim ladder VARIANT --out DIR` writes one")
        found += [_read(f) for f in files]
    return found


def skill_of(variant: str, variant_hash: str, bots: Sequence[str], base: stats.Fairness | None,
             ladders: Sequence[Ladder]) -> Skill | None:
    """The skill column of a verdict row (variant name and hash, its seats' bots, its verdict),
    from the ladder that played that variant with the row's bot as its reference; None when no
    ladder did."""
    for lad in ladders:
        if (lad.variant, lad.variant_hash) != (variant, variant_hash) or base is None or base.n == 0:
            continue
        if cheats(lad.strongest) or (lad.answer and cheats(lad.answer.get("strong_bot", ""))):
            continue  # a cheating bot is the ceiling of skill, never the stronger play of fair rules
        if lad.answer is None:
            if set(bots) == {lad.strongest}:
                return Skill(lad, None)
            continue
        if set(bots) != {lad.answer["base_bot"]}:
            continue
        s = lad.answer["strong"]
        strong = stats.fairness(int(s["successes"]), int(s["n"]), base.p0, base.margin, base.conf)
        return Skill(lad, stats.skill_answer(base, strong))
    return None
