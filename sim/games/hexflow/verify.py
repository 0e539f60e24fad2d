"""The turn rules every HEXFLOW trace check replays the same way, written once for Race
(game.py), Battle (battle_verify.py) and the Tri modes (tri.py): the hands dealt from the
recorded bags, the pie rule's row, the pass rule, the draw after a placement and the turn cap.

These are the Python side of the kernels' rules (race.pass_turn, tri_engine._pass, the chunk
driver's turn cap), independent of them: a replay that agrees with a kernel's table checks it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def deal(trace, full_sets: Sequence[list[int]], hand_sizes: Sequence[int], seats: Sequence[str]):
    """Each recorded bag checked to be its seat's tile set (sorted in full_sets); returns (bags,
    hands), each hand drawn from the end of its bag as the kernels deal it."""
    bags = [list(b) for b in trace.data["bags"]]
    for q, seat in enumerate(seats):
        assert sorted(bags[q]) == list(full_sets[q]), f"seat {seat}'s bag is not its tile set"
    hands = [[bags[q].pop() for _ in range(min(hs, len(bags[q])))] for q, hs in enumerate(hand_sizes)]
    return bags, hands


def row_by_seat(trace, exchange: Callable[[dict, np.ndarray], dict]) -> dict[str, Any]:
    """The trace's result row by seat: under the pie rule a swapped game's row is by player, and
    exchange(cols, swapped) (the mode's by_player) turns it back; a swap is checked to be where
    the rule offers it, the second decision, and nowhere in an unswapped game."""
    moves = trace.moves
    if not trace.data.get("swapped"):
        assert not any(m.get("after_swap") for m in moves), "a swap move in an unswapped game"
        return trace.row
    assert trace.rules["swap"], "a swap without the pie rule"
    assert moves[1].get("after_swap"), "the swap is not at the second decision"
    cols = exchange({k: np.asarray(v) for k, v in trace.row.items()}, np.array(True))
    return {k: np.asarray(v).item() for k, v in cols.items()}


def check_alternation(i: int, q: int, moves, first_seat: int, seats: Sequence[str]) -> None:
    """Two seats take turns, the first mover being the row's first_seat."""
    if i == 0:
        assert q == first_seat, "first mover differs from first_seat"
    else:
        assert q != seats.index(moves[i - 1]["seat"]), f"move {i}: same seat twice"


class PassRule:
    """The pass rule as every mode's kernel plays it: a seat passes only without a legal
    placement; under no_move = "lose" (lose_holding, the two-seat modes) a seat still holding
    tiles loses instead; otherwise the pass is counted (passes[q]) and n_seats passes in a row
    end the game by the mode's stalemate rule. A placement ends the row (placed)."""

    def __init__(self, n_seats: int, lose_holding: bool):
        self.n_seats = n_seats
        self.lose_holding = lose_holding
        self.passes = [0] * n_seats
        self.in_a_row = 0

    def passed(self, i: int, pos, q: int, hand: list[int], seat: str) -> str | None:
        """Seat q's pass at move i: the end reason it brings ("no_move_loss", "stalemate") or None."""
        legal = pos.legal_moves(q, hand) if hand else []
        assert not legal, f"move {i}: {seat} passed with {len(legal)} legal moves"
        if hand and self.lose_holding:
            return "no_move_loss"
        self.passes[q] += 1
        self.in_a_row += 1
        return "stalemate" if self.in_a_row >= self.n_seats else None

    def placed(self) -> None:
        self.in_a_row = 0


def draw_after(hands: list[list[int]], bags: list[list[int]], q: int, tile: int) -> None:
    """The placed tile leaves q's hand, and q draws the next tile of its bag while it lasts."""
    hands[q].remove(tile)
    if bags[q]:
        hands[q].append(bags[q].pop())


def capped(reason: str | None, moves, rules: dict[str, Any]) -> str:
    """A game the moves did not end stopped at the turn cap (max_turns decisions): a draw."""
    if reason is not None:
        return reason
    assert len(moves) >= rules["max_turns"], "game stopped with no end reason"
    return "turn_cap"
