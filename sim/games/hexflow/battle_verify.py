"""HEXFLOW Battle's trace verifier, written apart from the compiled rules: `BattlePosition`, a
pure-Python Battle board that searches connectivity over line endpoints (hex, side) and shares no
code with battle.py's union-find and link tables; its stalemate scores (`_line_path_best` under
battle_stalemate_length = "path"); the card's score formula `stalemate_score`; `replay` (a
trace's positions, for the pictures and the tests); and `verify`, which replays a traced game
with verify.py's turn rules and checks every move, the tiles, the winner, the scores and the
columns.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from sim.engine import exchange_seats

from . import verify as V
from .battle import K_DISPLACE, K_PLACE, SEATS, battle_tables, board_columns
from .board import board_of, multiplier
from .position import TileLines
from .rules import dot_multiplier_table, hand_sizes, tile_counts
from .tiles import BLOCK, STAR6, TILE_TYPES, networks, orientations


# ---- pure-Python position (verification, tests, designers) ------------------------------------
class BattlePosition(TileLines):
    """A Battle-mode board, searched over line endpoints (hex, side); independent of the kernel.

    tiles: {hex: (seat, type, rotation)}; captures / tokens per seat.
    """

    def __init__(self, rules: dict[str, Any], dots=None):
        self.rules = rules
        self.board = board_of(board_columns(rules))
        self.dot_mult = dot_multiplier_table(rules)
        self.dots = list(dots) if dots is not None else [0] * self.board.size
        self.tiles: dict[int, tuple[int, int, int]] = {}
        self.placed_any = [False, False]
        self.tokens = [rules["battle_tokens"]] * 2
        self.captures = [0, 0]
        self.captured: list[list[int]] = [[], []]
        (self.tz, self.startm, self.goalm, self.firstc, self.corner_any) = battle_tables(rules)

    def mult(self, h: int) -> int:
        """The stalemate multiplier of hex h by its dots (dot_multipliers; 0 on a plain hex)."""
        return int(self.dot_mult[self.dots[h]])

    def _linked(self, h: int, ends: int) -> bool:
        for s in range(6):
            n = int(self.board.nbr[h, s])
            if (ends >> s) & 1 and n >= 0 and (self.ends(n) >> ((s + 3) % 6)) & 1:
                return True
        return False

    def why_illegal(self, seat: int, kind: int, h: int, t: int, r: int) -> str | None:
        block_conn = self.rules["block_placement"] == "connected"
        if t == BLOCK and block_conn:
            return "Blocks are never placeable (block_placement = 'connected')"
        ends = 0
        for m in networks(t, r):
            ends |= m
        if kind == K_PLACE:
            if h in self.tiles:
                return "hex is occupied"
            if not self.placed_any[seat]:
                return None if h in self.firstc[seat] else "first tile must go on an own corner"
            if not any(int(n) in self.tiles for n in self.board.nbr[h] if n >= 0):
                return "not adjacent to a tile"
            if t != BLOCK and not self._linked(h, ends):
                return "no line connects"
            return None
        if t not in (BLOCK, STAR6):
            return "only Block and Star-6 displace"
        if self.tokens[seat] <= 0:
            return "no displacement token left"
        if h not in self.tiles or self.tiles[h][0] == seat:
            return "target is not an opponent tile"
        if self.corner_any[h]:
            return "target is on a starting corner"
        if not any(n >= 0 and int(n) in self.tiles and self.tiles[int(n)][0] == seat
                   for n in self.board.nbr[h]):
            return "target is not adjacent to an own tile"
        if t != BLOCK and not self._linked(h, ends):
            return "no line connects"
        if self.rules["battle_orphan"] == "line":
            before = self.tiles[h]
            linked_before = {n: self._linked(n, self.ends(n)) for n in self._nbrs(h)}
            self.tiles[h] = (seat, t, r)
            try:
                for n, was in linked_before.items():
                    if was and not self._linked(n, self.ends(n)):
                        return f"displacement orphans the tile on {self.board.names[n]}"
            finally:
                self.tiles[h] = before
        return None

    def _nbrs(self, h: int) -> list[int]:
        return [int(n) for n in self.board.nbr[h] if n >= 0 and int(n) in self.tiles]

    def legal_moves(self, seat: int, hand) -> list[tuple[int, int, int, int]]:
        out = []
        for t in sorted(set(hand)):
            for r in orientations(t):
                for kind in (K_PLACE, K_DISPLACE):
                    for h in range(self.board.size):
                        if self.why_illegal(seat, kind, h, t, r) is None:
                            out.append((kind, h, t, r))
        return out

    def play(self, seat: int, kind: int, h: int, t: int, r: int) -> None:
        why = self.why_illegal(seat, kind, h, t, r)
        if why:
            raise ValueError(f"illegal: {SEATS[seat]} {TILE_TYPES[t].name} on {self.board.names[h]}: "
                             f"{why}")
        if kind == K_DISPLACE:
            self.captured[seat].append(self.tiles[h][1])
            self.captures[seat] += 1
            self.tokens[seat] -= 1
        self.tiles[h] = (seat, t, r % 6)
        self.placed_any[seat] = True

    def _path_stalemate(self, seat: int, cap: int) -> tuple[int, int]:
        return _line_path_best(self, seat, cap)

    def usable(self, seat: int, h: int) -> bool:
        """Transit rule for the tile on hex h."""
        return self.tiles[h][0] == seat or bool(self.tz[seat, h])

    def _walk(self, seat: int, transit: bool) -> set[tuple[int, int]]:
        """Endpoints (hex, side) reachable along placed lines from seat's start hexes."""
        ok = (lambda h: self.usable(seat, h)) if transit else (lambda h: True)
        todo = deque((h, s) for h in self.tiles if self.startm[seat, h] and ok(h)
                     for m in self.nets(h) for s in range(6) if (m >> s) & 1)
        seen = set(todo)
        while todo:
            h, s = todo.popleft()
            for m in self.nets(h):
                if (m >> s) & 1:
                    for s2 in range(6):
                        if (m >> s2) & 1 and (h, s2) not in seen:
                            seen.add((h, s2))
                            todo.append((h, s2))
            n = int(self.board.nbr[h, s])
            o = (s + 3) % 6
            if n >= 0 and n in self.tiles and ok(n) and (self.ends(n) >> o) & 1 \
                    and (n, o) not in seen:
                seen.add((n, o))
                todo.append((n, o))
        return seen

    def joined(self, seat: int, transit: bool = True) -> bool:
        return any(self.goalm[seat, h] for h, _ in self._walk(seat, transit))

    def judge(self, mover: int) -> tuple[int | None, str | None, list[bool]]:
        """After mover's placement: (winner, 'path' / 'opponent_path' / None, transit-blocked
        flags). Only transit-valid paths count, the mover's first: a mover whose joined line is
        transit-invalid hands the win to an opponent whose path is valid."""
        tblock = [False, False]
        for k, who in enumerate((mover, 1 - mover)):
            if self.joined(who):
                return who, ("path", "opponent_path")[k], tblock
            if self.joined(who, transit=False):
                tblock[who] = True
        return None, None, tblock

    def stalemate_score(self, seat: int) -> tuple[int, int]:
        """(score, L): best transit-valid chain from a start hex (see the kernel's _chain_score),
        or with battle_stalemate_length = "path" the best simple line path (_path_stalemate)."""
        cap = self.rules["battle_capture_points"] * self.captures[seat]
        if self.rules.get("battle_stalemate_length", "chain") == "path":
            return self._path_stalemate(seat, cap)
        best, best_l = cap, 0
        reach = self._walk(seat, True)
        done: set[tuple[int, int]] = set()
        for start in sorted(reach):
            if start in done or not self.startm[seat, start[0]]:
                continue
            # the chain of this start endpoint: endpoints joined to it
            comp = {start}
            todo = [start]
            while todo:
                h, s = todo.pop()
                nxt = [(h, s2) for m in self.nets(h) if (m >> s) & 1 for s2 in range(6)
                       if (m >> s2) & 1]
                n = int(self.board.nbr[h, s])
                if n >= 0 and n in self.tiles and self.usable(seat, n) and \
                        (self.ends(n) >> ((s + 3) % 6)) & 1:
                    nxt.append((n, (s + 3) % 6))
                for e in nxt:
                    if e not in comp:
                        comp.add(e)
                        todo.append(e)
            done |= comp
            hexes = {h for h, _ in comp}
            length = len(hexes)
            sc = length + cap + length * sum(self.mult(h) for h in hexes)
            if sc > best or (sc == best and length > best_l):
                best, best_l = sc, length
        return best, best_l


def _line_path_best(pos: BattlePosition, seat: int, cap: int) -> tuple[int, int]:
    """Every simple transit-valid line path from a start hex, searched exhaustively: a path is a
    sequence of (hex, line) with each line of a tile used at most once; its hexes count once."""
    best = [cap, 0]

    def score(hexes):
        n = len(hexes)
        return n + cap + n * sum(pos.mult(h) for h in hexes)

    def dfs(h, m, on, hexes):
        sc = score(hexes)
        if sc > best[0] or (sc == best[0] and len(hexes) > best[1]):
            best[0], best[1] = sc, len(hexes)
        for s in range(6):
            if not (m >> s) & 1:
                continue
            n = int(pos.board.nbr[h, s])
            o = (s + 3) % 6
            if n < 0 or n not in pos.tiles or not pos.usable(seat, n) or not (pos.ends(n) >> o) & 1:
                continue
            m2 = next(x for x in pos.nets(n) if (x >> o) & 1)
            if (n, m2) not in on:
                dfs(n, m2, on | {(n, m2)}, hexes | {n})

    for h in pos.tiles:
        if pos.startm[seat, h] and pos.usable(seat, h):
            for m in pos.nets(h):
                dfs(h, m, {(h, m)}, {h})
    return best[0], best[1]


def stalemate_score(length: int, captures: int, dot_counts, capture_points: int = 2) -> int:
    """The card's formula: L + capture_points x captures + L x (sum of the dot multipliers)."""
    return length + capture_points * captures + length * sum(multiplier(d) for d in dot_counts)


def replay(trace):
    """Yield (BattlePosition, move) before and after every move of a Battle trace."""
    pos = BattlePosition(trace.rules, dots=trace.data["dots"])
    yield pos, None
    for mv in trace.moves:
        if mv["kind"] != "pass":
            kind = K_DISPLACE if mv["kind"] == "displace" else K_PLACE
            pos.play(SEATS.index(mv["seat"]), kind, pos.board.hex_id(mv["hex"]),
                     _type(mv["tile"]), mv["rotation"])
        yield pos, mv


def _type(name: str) -> int:
    return next(i for i, t in enumerate(TILE_TYPES) if t.name == name)


def verify(trace, end_reasons) -> None:
    """Replay with BattlePosition: hands from the recorded bags (each seat's own tile set and
    hand size), every move legal and from the mover's hand, passes only without a legal move,
    tiles conserved (board + hand + bag + the opponent's capture pile), declared winner, reason,
    scores and columns right."""
    rules = trace.rules
    row = V.row_by_seat(trace, lambda cols, swapped: exchange_seats(cols, swapped, list(SEATS)))
    counts = tile_counts(rules, list(SEATS))
    full = [np.repeat(np.arange(len(TILE_TYPES)), counts[q]).tolist() for q in range(2)]
    bags, hands = V.deal(trace, full, hand_sizes(rules, list(SEATS)), SEATS)
    pos = BattlePosition(rules, dots=trace.data["dots"])
    winner, reason = None, None
    turns = V.PassRule(2, rules["no_move"] == "lose")
    tblock = [False, False]
    for i, mv in enumerate(trace.moves):
        assert reason is None, f"move {i} after the end ({reason})"
        q = SEATS.index(mv["seat"])
        V.check_alternation(i, q, trace.moves, row["first_seat"], SEATS)
        if mv["kind"] == "pass":
            reason = turns.passed(i, pos, q, hands[q], mv["seat"])
            if reason == "no_move_loss":
                winner = 1 - q
            elif reason == "stalemate":
                reason = "stalemate_score"
            continue
        turns.placed()
        t = _type(mv["tile"])
        assert t in hands[q], f"move {i}: {mv['tile']} not in hand {hands[q]}"
        kind = K_DISPLACE if mv["kind"] == "displace" else K_PLACE
        pos.play(q, kind, pos.board.hex_id(mv["hex"]), t, mv["rotation"])  # raises if illegal
        V.draw_after(hands, bags, q, t)
        winner, reason, tb = pos.judge(q)
        tblock = [a or b for a, b in zip(tblock, tb, strict=True)]
        if reason is not None:
            break
    reason = V.capped(reason, trace.moves, rules)
    passes = turns.passes
    for q in range(2):
        on_board = [t for (s, t, _) in pos.tiles.values() if s == q]
        assert sorted(on_board + hands[q] + bags[q] + pos.captured[1 - q]) == full[q], \
            f"seat {q}: tiles not conserved"
        col = f"hexflow_passes_{SEATS[q]}"
        assert row[col] == passes[q], f"{col} = {row[col]}, replay gives {passes[q]}"
        assert row[f"hexflow_battle_displacements_{SEATS[q]}"] == pos.captures[q]
        assert bool(row[f"hexflow_battle_transit_blocked_{SEATS[q]}"]) == tblock[q]
        assert pos.tokens[q] >= 0
    scores = [pos.stalemate_score(q) for q in range(2)]
    for q in range(2):
        assert row[f"hexflow_battle_chain_{SEATS[q]}"] == scores[q][1]
    if reason == "stalemate_score":
        a, b = scores[0][0], scores[1][0]
        winner = None if a == b else (0 if a > b else 1)
        assert (row["score_A"], row["score_B"]) == (a, b)
    else:  # a path or no-move win scores base_score (the card gives no Battle path score)
        won = [0, 0] if winner is None else [rules["base_score"] * (q == winner) for q in range(2)]
        assert (row["score_A"], row["score_B"]) == tuple(won), (row["score_A"], row["score_B"], won)
    assert end_reasons[row["end_reason"]] == reason, \
        f"declared {end_reasons[row['end_reason']]}, replay gives {reason}"
    assert row["winner"] == (-1 if winner is None else winner)
    assert row["turns"] == len(trace.moves)
    assert bool(row["hexflow_path_completed"]) == (reason in ("path", "opponent_path"))


