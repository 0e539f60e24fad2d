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

import numpy as np

from sim.games.flags.geometry import Layout, ascii_board, board

SEATS = "AB"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "shdc"
CARD_VALUES = {r: i + 2 for i, r in enumerate(RANKS)}  # the card's values: 2..10, J 11 ... A 14
DECK = {r: len(SUITS) for r in RANKS}  # copies of each rank: one per suit


@dataclass(frozen=True)
class Deck:
    """The cards of a game (`deck`: copies of each rank, `card_values`: units per rank). Card
    ids run copy by copy, rank by rank: copy j of rank r comes after every copy j - 1, so with
    four of each rank card = suit * 13 + rank index, as on the card's deck. Copy j is suit
    SUITS[j % 4], numbered from the second pack on (As, As2)."""

    ranks: tuple[str, ...]
    values: np.ndarray  # int64[cards]: units of each card
    names: tuple[str, ...]

    @classmethod
    def of(cls, copies: dict[str, int] | None = None, values: dict[str, int] | None = None) -> Deck:
        copies, values = copies or DECK, values or CARD_VALUES
        ranks, vals, names = [], [], []
        for j in range(max(copies.values(), default=0)):
            for r in RANKS:
                if copies.get(r, 0) > j:
                    ranks.append(r)
                    vals.append(values[r])
                    names.append(("T" if r == "10" else r) + SUITS[j % 4] + (str(j // 4 + 1) if j >= 4 else ""))
        return cls(tuple(ranks), np.array(vals, np.int64), tuple(names))

    def __len__(self) -> int:
        return len(self.ranks)


def deck_of(rules: dict) -> Deck:
    """The deck the resolved rules play with (cached: rules are resolved once per run)."""
    key = (tuple(sorted((rules.get("deck") or DECK).items())),
           tuple(sorted((rules.get("card_values") or CARD_VALUES).items())))
    if key not in _DECKS:
        _DECKS[key] = Deck.of(rules.get("deck"), rules.get("card_values"))
    return _DECKS[key]


_DECKS: dict[tuple, Deck] = {}
STANDARD = Deck.of()


def card_value(card: int, deck: Deck = STANDARD) -> int:
    """Units of a card: on the card's deck 2..10 face value, J 11, Q 12, K 13, A 14."""
    return int(deck.values[card])


def card_name(card: int, deck: Deck = STANDARD) -> str:
    return deck.names[card]


@dataclass
class Position:
    layout: str | Layout = "standard"
    owner: list[int] = field(default_factory=list)
    units: list[int] = field(default_factory=list)

    def __post_init__(self):
        n = self.board.n_hex
        self.owner = self.owner or [-1] * n
        self.units = self.units or [0] * n

    @property
    def board(self):
        return board(self.layout)

    # ---- text -----------------------------------------------------------------------------------
    @classmethod
    def from_text(cls, text: str, layout: str = "standard") -> Position:
        rows = [ln.split() for ln in text.strip("\n").splitlines() if ln.strip()]
        pos = cls(layout)
        b = pos.board
        if len(rows) != b.rows or any(len(r) != b.cols for r in rows):
            raise ValueError(f"need {b.rows} rows of {b.cols} tokens")
        for r, row in enumerate(rows):
            for c, tok in enumerate(row):
                h = r * b.cols + c
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

    def step_error(self, seat: int, src: int, dst: int, k: int, bleed: bool = True,
                   attrition: bool = False) -> str | None:
        """Why moving k units src -> dst is illegal for seat (None when it is legal); attrition:
        an attack may have equal or fewer units (attacks = "attrition")."""
        b = self.board
        if not (0 <= src < b.n_hex and 0 <= dst < b.n_hex):
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
        if self.owner[dst] == 1 - seat and k <= self.units[dst] and not attrition:
            return f"attacks {self.units[dst]} with {k}: must be strictly more"
        return None

    def legal_steps(self, seat: int, bleed: bool = True, attrition: bool = False) -> list[tuple[int, int, int]]:
        b = self.board
        out = []
        for src in range(b.n_hex):
            if self.owner[src] != seat:
                continue
            for dst in b.nbr[src, :b.nbr_n[src]]:
                for k in range(1, self.units[src] + 1):
                    if self.step_error(seat, src, int(dst), k, bleed, attrition) is None:
                        out.append((src, int(dst), k))
        return out

    def step(self, seat: int, src: int, dst: int, k: int, bleed: bool = True, attrition: bool = False) -> int:
        """Apply a legal step; returns the units lost in combat (both sides). An attack with
        more units takes the hex with the difference; with equal or fewer (attrition) both lose
        k and the defender keeps the rest (the hex empties when none are left)."""
        err = self.step_error(seat, src, dst, k, bleed, attrition)
        if err:
            raise ValueError(f"illegal step {src}->{dst} x{k}: {err}")
        self.units[src] -= k
        if self.units[src] == 0:
            self.owner[src] = -1
        if self.owner[dst] == 1 - seat and k <= self.units[dst]:
            self.units[dst] -= k
            if self.units[dst] == 0:
                self.owner[dst] = -1
            return 2 * k
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
