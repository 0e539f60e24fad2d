"""Pure-Python position API of Four flags (written apart from the kernels, used to verify them).

A `Position` is the public board: owner and units per hex. Text notation, one line per row
(shifted rows may be indented; indentation is ignored), seven tokens per row:
    .    empty territory hex          F    a flag hex (must sit where the layout puts flags)
    A3   seat A holds the hex with 3   B12  seat B holds it with 12
Example (standard layout, N flag held by A):

    .  A2 F  A2 .  .  .
      .  .  A3 A2 .  .  .
    ... (8 rows)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.games.flags.geometry import COLS, N_HEX, ROWS, ascii_board, board

SEATS = "AB"


def card_value(card: int) -> int:
    """2..10 face value, J 11, Q 12, K 13, A 14 (card = suit * 13 + rank index)."""
    return card % 13 + 2


def card_name(card: int) -> str:
    return "23456789TJQKA"[card % 13] + "shdc"[card // 13]


@dataclass
class Position:
    layout: str = "standard"
    owner: list[int] = field(default_factory=lambda: [-1] * N_HEX)
    units: list[int] = field(default_factory=lambda: [0] * N_HEX)

    @property
    def board(self):
        return board(self.layout)

    # ---- text -----------------------------------------------------------------------------------
    @classmethod
    def from_text(cls, text: str, layout: str = "standard") -> Position:
        rows = [ln.split() for ln in text.strip("\n").splitlines() if ln.strip()]
        if len(rows) != ROWS or any(len(r) != COLS for r in rows):
            raise ValueError(f"need {ROWS} rows of {COLS} tokens")
        pos = cls(layout)
        b = pos.board
        for r, row in enumerate(rows):
            for c, tok in enumerate(row):
                h = r * COLS + c
                if tok == "F":
                    if not b.is_flag[h]:
                        raise ValueError(f"row {r} col {c}: no flag here in layout {layout}")
                    continue
                if b.is_flag[h]:
                    raise ValueError(f"row {r} col {c}: this hex is a flag, write F")
                if tok == ".":
                    continue
                if tok[0] not in SEATS or not tok[1:].isdigit() or int(tok[1:]) < 1:
                    raise ValueError(f"row {r} col {c}: bad token {tok!r}")
                pos.owner[h] = SEATS.index(tok[0])
                pos.units[h] = int(tok[1:])
        return pos

    def to_text(self) -> str:
        def cell(h: int) -> str:
            if self.board.is_flag[h]:
                return " F "
            if self.owner[h] < 0:
                return " . "
            return f"{SEATS[self.owner[h]]}{self.units[h]:<2}"
        return ascii_board(self.layout, cell)

    # ---- rules ----------------------------------------------------------------------------------
    def total_units(self, seat: int) -> int:
        return sum(u for o, u in zip(self.owner, self.units, strict=True) if o == seat)

    def holds(self, seat: int, flag: int, min_hold: int = 2) -> bool:
        """A flag is held while every neighbour hex is the seat's with at least min_hold units."""
        b = self.board
        return all(self.owner[h] == seat and self.units[h] >= min_hold
                   for h in b.flag_nbrs[flag, :b.flag_nn[flag]])

    def held(self, seat: int, min_hold: int = 2) -> set[int]:
        return {f for f in range(4) if self.holds(seat, f, min_hold)}

    def step_error(self, seat: int, src: int, dst: int, k: int, bleed: bool = True) -> str | None:
        """Why moving k units src -> dst is illegal for seat (None when it is legal)."""
        b = self.board
        if not (0 <= src < N_HEX and 0 <= dst < N_HEX):
            return "off the board"
        if self.owner[src] != seat:
            return "source is not the mover's"
        if dst not in set(int(x) for x in b.nbr[src, :b.nbr_n[src]]):
            return "not adjacent"
        if b.is_flag[dst]:
            return "flags hold no units"
        keep = 1 if bleed else 0
        if k < 1 or k > self.units[src] - keep:
            return f"moves {k} of {self.units[src]} (at least {keep} must stay)"
        if self.owner[dst] == 1 - seat and k <= self.units[dst]:
            return f"attacks {self.units[dst]} with {k}: must be strictly more"
        return None

    def legal_steps(self, seat: int, bleed: bool = True) -> list[tuple[int, int, int]]:
        b = self.board
        out = []
        for src in range(N_HEX):
            if self.owner[src] != seat:
                continue
            for dst in b.nbr[src, :b.nbr_n[src]]:
                for k in range(1, self.units[src] + 1):
                    if self.step_error(seat, src, int(dst), k, bleed) is None:
                        out.append((src, int(dst), k))
        return out

    def step(self, seat: int, src: int, dst: int, k: int, bleed: bool = True) -> int:
        """Apply a legal step; returns the units lost in combat (both sides)."""
        err = self.step_error(seat, src, dst, k, bleed)
        if err:
            raise ValueError(f"illegal step {src}->{dst} x{k}: {err}")
        self.units[src] -= k
        if self.units[src] == 0:
            self.owner[src] = -1
        if self.owner[dst] == 1 - seat:
            lost = 2 * self.units[dst]
            self.units[dst] = k - self.units[dst]
            self.owner[dst] = seat
            return lost
        if self.owner[dst] == -1:
            self.owner[dst] = seat
        self.units[dst] += k
        return 0

    def card_effect(self, seat: int, hex_: int) -> str:
        """What a card pointing at hex_ does: 'place' (empty), 'reinforce' (own), 'discard'."""
        if self.owner[hex_] == -1:
            return "place"
        return "reinforce" if self.owner[hex_] == seat else "discard"

    def play_card(self, seat: int, hex_: int, value: int,
                  alloc: list[tuple[int, int]] | None = None) -> str:
        """Play a card pointing at hex_: place, reinforce by `alloc` [(hex, units)], or discard."""
        effect = self.card_effect(seat, hex_)
        if effect == "place":
            self.owner[hex_] = seat
            self.units[hex_] = value
        elif effect == "reinforce":
            alloc = alloc or []
            if sum(a for _, a in alloc) != value:
                raise ValueError(f"reinforcement of {value} distributed as {alloc}")
            for h, a in alloc:
                if self.owner[h] != seat or a < 1:
                    raise ValueError(f"reinforcement {a} on hex {h} not held by the mover")
                self.units[h] += a
        return effect


def claim_result(claim: tuple[int, set[int]] | None, mover: int, held_mover: set[int],
                 held_other: set[int], flags_to_win: int = 3, still_hold: str = "same"):
    """End of mover's turn: judge the other seat's claim, then maybe start mover's claim.

    Returns (winner or None, new claim or None), claim = (seat, flags held when claimed).
    """
    if claim is not None and claim[0] == 1 - mover:
        if still_hold == "same":
            kept = claim[1] <= held_other
        else:
            kept = len(held_other) >= flags_to_win
        if kept:
            return 1 - mover, claim
        claim = None
    if len(held_mover) >= flags_to_win:
        claim = (mover, set(held_mover))
    return None, claim
