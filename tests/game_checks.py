"""The shared check suite every game passes (STYLE.md 9): call `check_game(...)` from a game's
test file, and `tests/test_all_variants.py` runs it on every shipped variant.

For n random games of one rule set and seat line-up it checks:
- determinism: the same chunk twice gives identical columns;
- chunk independence: one chunk of n equals two chunks split anywhere;
- the column contract of `Game.play_chunk` (names, dtypes, lengths, value ranges);
- termination: every game ends with a declared end reason within the game's turn cap;
- the traced replay of sampled games equals their chunk row (same moves in both kernels);
- `verify_trace`: every move legal and every piece conserved, checked by the position API.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.games.base import Game, SeatBot


def seats_for(game: Game, rules: dict[str, Any],
              bots: Sequence[str | SeatBot] | str) -> list[SeatBot]:
    """Bot names (default parameters) or ready SeatBots (e.g. a variant's seats), one per seat."""
    names = game.seat_names(rules)
    if isinstance(bots, str):
        bots = [bots] * len(names)
    return [b if isinstance(b, SeatBot) else
            SeatBot(game.bot(b, "test"), {p.name: p.default for p in game.bot(b, "test").params})
            for b in bots]


def check_game(game: Game, rules: dict[str, Any], bots: Sequence[str | SeatBot] | str, n: int = 40,
               run_seed: int = 12345, traced: int = 4) -> dict[str, np.ndarray]:
    rules = game.resolve_rules(rules, "test")
    seats = seats_for(game, rules, bots)
    names = game.seat_names(rules)
    a = game.play_chunk(rules, seats, 0, n, run_seed)
    b = game.play_chunk(rules, seats, 0, n, run_seed)
    split = max(1, n // 3)
    c1 = game.play_chunk(rules, seats, 0, split, run_seed)
    c2 = game.play_chunk(rules, seats, split, n - split, run_seed)
    required = {"winner", "end_reason", "turns", "first_seat"} | {f"score_{s}" for s in names}
    assert required <= set(a), f"missing columns {required - set(a)}"
    for key, col in a.items():
        assert isinstance(col, np.ndarray) and col.shape == (n,), key
        assert key in required or key.startswith(game.name + "_"), f"unprefixed column {key}"
        np.testing.assert_array_equal(col, b[key], err_msg=f"{key} not deterministic")
        np.testing.assert_array_equal(col, np.concatenate([c1[key], c2[key]]),
                                      err_msg=f"{key} depends on chunking")
    assert a["winner"].min() >= -1 and a["winner"].max() < len(names)
    assert a["end_reason"].min() >= 0 and a["end_reason"].max() < len(game.end_reasons)
    assert (a["turns"] > 0).all()
    assert a["first_seat"].min() >= 0 and a["first_seat"].max() < len(names)
    for i in np.linspace(0, n - 1, traced).astype(int):
        trace = game.play_traced(rules, seats, int(i), run_seed)
        for key in a:
            assert trace.row[key] == a[key][i], (
                f"game {i}: traced {key}={trace.row[key]!r} but chunk gave {a[key][i]!r}")
        assert len(trace.moves) > 0
        game.verify_trace(trace)
    return a
