"""Traces of Four flags: the kernel's action record -> readable moves, and an independent replay
(position.py) that re-checks every action, the card and unit conservation and the result."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.engine import exchange_seats
from sim.games.base import Trace
from sim.games.flags import kernel as K
from sim.games.flags.geometry import FLAG_NAMES, board, layout_of
from sim.games.flags.kernel import cards_per_turn, hand_sizes
from sim.games.flags.position import STANDARD, Deck, Position, claim_result, deck_of

_EFFECTS = ("place", "reinforce", "discard")


def _flags(mask: int) -> str:
    return "".join(FLAG_NAMES[f] for f in range(4) if mask >> f & 1) or "-"


def moves_from_record(rec: np.ndarray, deck: Deck = STANDARD, swapped: bool = False) -> list[dict[str, Any]]:
    """The action log as moves: "seat" is the seat acting, the text names players. Under the pie
    rule (`swapped`) the players exchange seats before the first action after the first turn (the
    second player's first decision): that action is marked `after_swap` (sim.games.seating), and the
    text after it names each seat's new player."""
    def card_name(card: int) -> str:
        return deck.names[card]

    def card_value(card: int) -> int:
        return int(deck.values[card])

    ends = [i for i, row in enumerate(rec.tolist()) if row[1] == K.K_END]
    swap_at = ends[0] + 1 if swapped and ends and ends[0] + 1 < len(rec) else None
    out = []
    for i, (seat, kind, a, b, c) in enumerate(rec.tolist()):
        names = "BA" if swap_at is not None and i >= swap_at else "AB"  # seat -> its player
        if kind == K.K_DEAL:
            text = f"dealt {card_name(a)}"
        elif kind == K.K_PLAY:
            text = f"plays {card_name(a)} -> hex {b}: {_EFFECTS[c]}" + \
                (f" {card_value(a)}" if c != K.EFFECT_DISCARD else "")
        elif kind == K.K_ALLOC:
            text = f"  +{b} on hex {a}"
        elif kind == K.K_ROLL:
            text = f"rolls {a}"
        elif kind == K.K_STEP:
            text = f"step {a}->{b} x{c}"
        elif kind == K.K_DRAW:
            text = f"draws {card_name(a)}"
        elif kind == K.K_SHUFFLE:
            text = f"reshuffles {a} discards into the deck"
        else:
            text = _end_of_turn(a, b, c, names)
        out.append({"seat": "AB"[seat], "move": text, **({"after_swap": True} if i == swap_at else {})})
    return out


def _end_of_turn(masks: int, claim: int, win: int, names: str) -> str:
    """An end of turn in words: the flags each player holds, a standing claim, the winner
    (`names`: seat -> the player in it)."""
    held = sorted((names[s], _flags(masks >> 4 * s & 15)) for s in (0, 1))
    text = "end of turn: " + ", ".join(f"{p} holds {f}" for p, f in held)
    if claim & 3:
        text += f"; claim by {names[(claim & 3) - 1]} on {_flags(claim >> 2)}"
    return text + ("" if win == 0 else f"; {names[win - 1]} wins")


def replay(trace: Trace) -> Iterator[tuple[Position, dict[str, Any]]]:
    """The position after every action (the same Position object, updated), with the action."""
    pos = Position(layout_of(trace.rules))
    bleed, wear = trace.rules["bleed"], trace.rules.get("attacks") == "attrition"
    values = deck_of(trace.rules).values
    card_hex = trace.data["card_hex"]
    for row, move in zip(trace.data["record"].tolist(), trace.moves, strict=True):
        seat, kind, a, b, c = row
        if kind == K.K_PLAY and c == K.EFFECT_PLACE:
            pos.owner[b] = seat
            pos.units[b] = int(values[a])
        elif kind == K.K_ALLOC:
            pos.units[a] += b
        elif kind == K.K_STEP:
            pos.step(seat, a, b, c, bleed, wear)
        yield pos, {"row": row, "card_hex": card_hex, **move}


@dataclass
class _Check:
    """What the independent replay of `verify` carries from action to action."""

    rules: dict
    cards: Deck
    card_hex: list[int]
    rec: list
    pos: Position
    deck: set[int]
    hands: list[set[int]] = field(default_factory=lambda: [set(), set()])
    disc: set[int] = field(default_factory=set)
    i: int = 0  # the next record
    units: int = 0  # units on the board, expected
    combats: int = 0
    played: int = 0

    def conserved(self, where: str) -> None:
        _conserved(where, self.deck, self.hands, self.disc, self.pos, self.units, len(self.cards))


def verify(trace: Trace) -> None:
    """Re-check a traced game action by action; AssertionError on the first problem."""
    r = trace.rules
    lay = layout_of(r)
    b = board(lay)
    cards = deck_of(r)
    card_hex = [int(x) for x in trace.data["card_hex"]]
    assert len(card_hex) == len(cards) and len(set(card_hex)) == len(cards) and \
        set(card_hex) <= {int(x) for x in b.terr}, "cards do not label distinct territory hexes"
    c = _Check(r, cards, card_hex, trace.data["record"].tolist(), Position(lay), set(range(len(cards))))
    per_turn, m = cards_per_turn(r), r["min_hold_units"]

    first, hand_size = _deal(trace, c.rec, c.deck, c.hands)
    c.i = sum(hand_size)
    c.conserved("deal")
    claim = None
    winner = -1
    turns = 0
    first_flag = [-1, -1]
    claims = broken = 0
    mover = first
    while c.i < len(c.rec):
        where = f"turn {turns + 1}"
        n_cards = (r.get("first_turn_cards") or per_turn[mover]) if turns == 0 else per_turn[mover]
        for _ in range(n_cards):
            _check_card(c, where, mover)
        _check_steps(c, where, mover)
        _check_draws(c, where, mover)
        assert len(c.hands[mover]) == hand_size[mover], f"{where}: hand not refilled"
        seat, kind, masks, cl, w = c.rec[c.i]
        c.i += 1
        assert seat == mover and kind == K.K_END, f"{where}: expected end of turn"
        turns += 1
        held = [c.pos.held(0, m), c.pos.held(1, m)]
        assert masks == sum(1 << f for f in held[0]) | sum(1 << f for f in held[1]) << 4, \
            f"{where}: held flags {held}"
        for s in (0, 1):
            if held[s] and first_flag[s] < 0:
                first_flag[s] = turns
        had = claim
        win, claim = claim_result(claim, mover, held[mover], held[1 - mover],
                                  r["flags_to_win"], r["still_hold"])
        broken += had is not None and had[0] == 1 - mover and win is None
        if win is None and claim is not None and claim[0] == mover:
            claims += 1
        assert w == (0 if win is None else win + 1), f"{where}: declared winner {w - 1}, rules say {win}"
        if win is not None:
            winner = win
            break
        mover = 1 - mover
    assert c.i == len(c.rec), "actions after the game ended"
    # the row follows the players; under the pie rule a swapped game's seats are exchanged back
    row = exchange_seats(trace.row, bool(trace.data.get("swapped")), ["A", "B"])
    _check_row(trace, row, c.pos, winner, turns, c.combats, c.played, first_flag, claims, broken)


def _check_card(c: _Check, where: str, mover: int) -> None:
    """One card play and its allocations (a reinforcement's units, hex by hex)."""
    seat, kind, card, h, eff = c.rec[c.i]
    c.i += 1
    assert seat == mover and kind == K.K_PLAY, f"{where}: expected a card play"
    assert card in c.hands[seat], f"{where}: {c.cards.names[card]} not in hand"
    assert c.card_hex[card] == h, f"{where}: card points elsewhere"
    c.hands[seat].remove(card)
    c.disc.add(card)
    c.played += 1
    effect = c.pos.card_effect(seat, h)
    assert _EFFECTS[eff] == effect, f"{where}: effect {_EFFECTS[eff]} should be {effect}"
    alloc = []
    while c.i < len(c.rec) and c.rec[c.i][1] == K.K_ALLOC:
        assert effect == "reinforce", f"{where}: allocation without reinforcement"
        alloc.append((c.rec[c.i][2], c.rec[c.i][3]))
        c.i += 1
    value = int(c.cards.values[card])
    c.pos.play_card(seat, h, value, alloc)
    if effect != "discard":
        c.units += value
    c.conserved(where)


def _check_steps(c: _Check, where: str, mover: int) -> None:
    """The roll, then at most that many steps, each legal; combat losses leave the board."""
    r = c.rules
    wear = r.get("attacks") == "attrition"
    seat, kind, roll = c.rec[c.i][0], c.rec[c.i][1], c.rec[c.i][2]
    c.i += 1
    assert seat == mover and kind == K.K_ROLL and 1 <= roll <= r["die_sides"], f"{where}: roll"
    steps = 0
    while c.rec[c.i][1] == K.K_STEP:
        seat, _, src, dst, k = c.rec[c.i]
        c.i += 1
        steps += 1
        assert seat == mover and steps <= roll, f"{where}: more steps than the roll"
        err = c.pos.step_error(seat, src, dst, k, r["bleed"], wear)
        assert err is None, f"{where}: illegal step {src}->{dst} x{k}: {err}"
        lost = c.pos.step(seat, src, dst, k, r["bleed"], wear)
        c.combats += lost > 0
        c.units -= lost
        c.conserved(where)


def _check_draws(c: _Check, where: str, mover: int) -> None:
    """The refill: draws from the deck, the discards reshuffled only once it is empty."""
    while c.rec[c.i][1] in (K.K_DRAW, K.K_SHUFFLE):
        seat, kind, x = c.rec[c.i][0], c.rec[c.i][1], c.rec[c.i][2]
        c.i += 1
        assert seat == mover
        if kind == K.K_SHUFFLE:
            assert not c.deck and len(c.disc) == x, f"{where}: reshuffle with cards left"
            c.deck, c.disc = c.disc, set()
        else:
            assert x in c.deck, f"{where}: drew a card not in the deck"
            c.deck.remove(x)
            c.hands[seat].add(x)
        c.conserved(where)


def _conserved(where: str, deck: set[int], hands: list[set[int]], disc: set[int], pos: Position,
               expected_units: int, n_cards: int) -> None:
    """Every card in one place, units conserved up to combat losses, none on a flag."""
    assert len(deck) + len(hands[0]) + len(hands[1]) + len(disc) == n_cards, f"{where}: card count"
    assert not (deck & disc or hands[0] & hands[1] or (hands[0] | hands[1]) & (deck | disc)), \
        f"{where}: a card in two places"
    assert sum(pos.units) == expected_units, f"{where}: units not conserved"
    b = pos.board
    for h in range(b.n_hex):
        assert (pos.owner[h] == -1) == (pos.units[h] == 0), f"{where}: hex {h} owner/units"
        assert pos.units[h] >= 0
        if b.is_flag[h]:
            assert pos.owner[h] == -1, f"{where}: units on a flag"


def _deal(trace: Trace, rec: list, deck: set[int], hands: list[set[int]]) -> tuple[int, list[int]]:
    """The deal: one card at a time, alternately, from the first seat, and once a hand is full
    the rest to the other (checked against the rules); returns the first seat and each seat's
    hand size (hand_size, and second_player_cards more for the second)."""
    first = trace.row["first_seat"]
    fp = trace.rules["first_player"]
    if fp in ("A", "B"):
        assert first == "AB".index(fp), "wrong first seat"
    elif fp == "alternate":
        assert first == trace.game_index % 2, "wrong first seat"
    size = list(hand_sizes(trace.rules))
    size[1 - first] += trace.rules.get("second_player_cards", 0)
    seat = first
    for j in range(sum(size)):
        if len(hands[seat]) == size[seat]:
            seat = 1 - seat
        s, kind, card = rec[j][0], rec[j][1], rec[j][2]
        assert kind == K.K_DEAL and s == seat, f"deal {j}"
        assert card in deck
        deck.remove(card)
        hands[seat].add(card)
        seat = 1 - seat
    return first, size


def _check_row(trace: Trace, row: dict, pos: Position, winner: int, turns: int, combats: int, played: int,
               first_flag: list[int], claims: int, broken: int) -> None:
    """The declared outcome row (by the position's seats) against the replayed game."""
    m = trace.rules["min_hold_units"]
    assert row["winner"] == winner, "winner"
    assert row["end_reason"] == (0 if winner >= 0 else 1), "end reason"
    assert winner >= 0 or turns == trace.rules["max_turns"], "a draw before the turn cap"
    assert row["turns"] == turns, "turns"
    assert (row["flags_held_A"], row["flags_held_B"]) == (len(pos.held(0, m)), len(pos.held(1, m)))
    assert (row["flags_units_A"], row["flags_units_B"]) == (pos.total_units(0), pos.total_units(1))
    assert row["flags_combats"] == combats, "combats"
    assert row["flags_cards_played"] == played, "cards played"
    assert (row["flags_first_flag_turn_A"], row["flags_first_flag_turn_B"]) == tuple(first_flag)
    assert (row["flags_claims"], row["flags_claims_broken"]) == (claims, broken), "claims"
