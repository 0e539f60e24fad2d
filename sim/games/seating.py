"""Who played which seat in a traced game, for replays and pictures.

Under the pie rule (`swap`) the second player may take over the first player's position at its
first decision; the players then exchange seats. The outcome table follows the players: player A
is the one who sat at seat A when the game began, whichever seat they finish in. A trace keeps its
moves by seat (the verifiers read the board by seat); replays and pictures name the players, and
the seat too wherever the two differ, so the move list, the winner line and the table agree.

A trace records the swap either as a move of its own (`swap` true, or the engine's SWAP_MOVE
code) or as a mark `after_swap` on the move that follows it (games whose move lists only hold
moves on the board)."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.engine import SWAP_MOVE
from sim.games.base import Trace


def is_swap(move: dict[str, Any]) -> bool:
    """A move record that is the pie rule's swap itself."""
    return bool(move.get("swap")) or (isinstance(move.get("move"), (int, np.integer)) and move["move"] == SWAP_MOVE)


def swap_index(trace: Trace) -> int | None:
    """Index in trace.moves of the swap (its own record, or the move just after it); None when the
    players kept their seats."""
    if not trace.data.get("swapped") or len(trace.seat_names) != 2:
        return None
    return next((i for i, m in enumerate(trace.moves) if is_swap(m) or m.get("after_swap")), None)


def seat_index(trace: Trace, seat: Any) -> int:
    """A move's seat as an index (games record the index or the name); -1 if unknown."""
    if isinstance(seat, (int, np.integer)):
        return int(seat) if 0 <= int(seat) < len(trace.seat_names) else -1
    return trace.seat_names.index(seat) if seat in trace.seat_names else -1


def exchanged(trace: Trace, i: int) -> bool:
    """Whether the players sit in each other's seats at move i (after the swap)."""
    k = swap_index(trace)
    return k is not None and (i > k or i == k and not is_swap(trace.moves[k]))


def players(trace: Trace, i: int | None = None) -> list[int]:
    """Seat index -> the index of the player in it, at move i (None: at the end of the game)."""
    n = len(trace.seat_names)
    if exchanged(trace, len(trace.moves) if i is None else i):
        return [1 - s for s in range(n)]
    return list(range(n))


def mover(trace: Trace, i: int) -> str:
    """Who made move i: the player's name, with the seat when they sit in the other one."""
    s = seat_index(trace, trace.moves[i].get("seat"))
    if s < 0:
        return str(trace.moves[i].get("seat", "?"))
    p = players(trace, i)[s]
    names = trace.seat_names
    return names[p] if p == s else f"{names[p]} (seat {names[s]})"


def swap_text(trace: Trace, i: int) -> str:
    """The swap in words: who took over whose opening (the moves after it name the seats)."""
    names = trace.seat_names
    # the swapper's seat: the swap record's, or the next move's (made by the other player from it)
    s = seat_index(trace, trace.moves[i].get("seat"))
    p, o = names[s], names[1 - s]
    return f"{p} swaps (pie rule): {p} takes {o}'s opening, the players exchange seats"


def move_text(move: dict[str, Any]) -> str:
    """A move in words: the game's description (`describe`, kept as "text") or its move field."""
    text = move.get("text")
    return str(text if isinstance(text, str) else move.get("move", ""))


def move_entries(trace: Trace) -> list[tuple[int | None, str, str]]:
    """The move list as (number, who, text): moves numbered from 1 as the table counts turns, and
    the swap, unnumbered (it is no move on the board), where it happened."""
    k = swap_index(trace)
    out: list[tuple[int | None, str, str]] = []
    n = 0
    for i, m in enumerate(trace.moves):
        if i == k:
            out.append((None, "", swap_text(trace, i)))
            if is_swap(m):
                continue
        n += 1
        out.append((n, mover(trace, i), move_text(m)))
    return out


def move_lines(trace: Trace, width: int = 3, skip: tuple[str, ...] = ()) -> list[str]:
    """The move list as lines, `N. WHO move` (the swap between, without a number); moves whose
    text starts with one of `skip` left out (a picture's shorter list)."""
    return [f"{'' if n is None else n:>{width}}{'.' if n else ' '} {who + ' ' if who else ''}{text}"
            for n, who, text in move_entries(trace) if n is None or not text.startswith(skip)]


def player_words(trace: Trace, p: int, short: bool = False) -> str:
    """Player p by name, and under a swap the seat they ended in and (unless `short`) whether they
    moved first or second at the start."""
    names = trace.seat_names
    if swap_index(trace) is None:
        return names[p]
    seat = f"seat {names[players(trace).index(p)]} after the swap"
    if short:
        return f"{names[p]} ({seat})"
    when = "first" if p == int(trace.row.get("first_seat", 0)) else "second"
    return f"{names[p]}, the player who moved {when} at the start ({seat})"


def winner_words(trace: Trace, short: bool = False) -> str:
    """The winner as the table has it (a player), with the seat they won from under a swap."""
    w = int(trace.row["winner"])
    return player_words(trace, w, short) if 0 <= w < len(trace.seat_names) else "draw"


def picture_note(trace: Trace) -> str:
    """A picture's note on the swap ("" without one)."""
    k = swap_index(trace)
    if k is None:
        return ""
    s = seat_index(trace, trace.moves[k].get("seat"))
    p, o = trace.seat_names[s], trace.seat_names[1 - s]
    return f"pie rule: {p} took over {o}'s opening, the players exchanged seats"
