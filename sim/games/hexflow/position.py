"""Pure-Python position API for HEXFLOW Race mode (tests, trace verification, designers).

Written independently of the compiled kernel: connectivity here is a search over line
*endpoints* (hex, side), not the kernel's union-find over networks, so the two check each other.

    pos = Position.from_moves(["A Yr0 a9", "B S60 a1", "A St0 a8"])
    pos.legal_moves("B", ["straight", "block"])     # [(hex, tile, rotation), ...]
    pos.place("B", "a2", "straight", 0)
    pos.winner()                                    # (seat or None, reason or None)
    print(pos.ascii())

Moves in text: "<seat> <tile code><rotation> <hex>", e.g. "A St0 a9" (tile codes in tiles.py,
rotation 0..5 clockwise sixths, hex = column letter + row from the top of the column).

ASCII boards (`ascii()` / `from_ascii`): 19 lines, one per half-hex height; even lines hold
columns b, d, f, h, odd lines a, c, e, g, i; each hex is "." or "<code><rotation><seat>"
(e.g. "St0A"); tokens are read in order, spacing is free.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any

from .board import BOARD, SEATS, board_of, corners_of
from .rules import PARAMS, dot_multiplier_table, dots_for
from .tiles import BLOCK, TILE_TYPES, TYPE_BY_CODE, TYPE_BY_NAME, networks, orientations

NH = BOARD.size


class _Budget(Exception):
    pass


def _seat(s: str | int) -> int:
    if isinstance(s, int):
        return s
    return SEATS.index(s)


def _hex(h: str | int) -> int:
    return int(h) if not isinstance(h, str) else BOARD.hex_id(h)


def _tile(t: str | int) -> int:
    if not isinstance(t, str):
        return int(t)
    if t in TYPE_BY_NAME:
        return TYPE_BY_NAME[t]
    if t in TYPE_BY_CODE:
        return TYPE_BY_CODE[t]
    raise KeyError(f"unknown tile {t!r}; tiles: {', '.join(TYPE_BY_NAME)}")


def parse_move(text: str) -> tuple[int, int, int, int]:
    """'A St0 a9' -> (seat, hex, tile, rotation)."""
    seat, tile, hx = text.split()
    return _seat(seat), _hex(hx), _tile(tile[:2]), int(tile[2:])


class TileLines:
    """The line networks of the tiles on a board (self.tiles: {hex: (seat, type, rotation)},
    self.board's neighbour table), for the Race and Battle positions."""

    tiles: dict[int, tuple[int, int, int]]
    board: Any

    def nets(self, h: int) -> list[int]:
        """Side masks of the line networks on hex h (empty list for empty hex or Block)."""
        if h not in self.tiles:
            return []
        _, t, r = self.tiles[h]
        return networks(t, r)

    def ends(self, h: int) -> int:
        """Every side of hex h a line of its tile ends on."""
        m = 0
        for n in self.nets(h):
            m |= n
        return m

    def joined(self, h: int, m: int):
        """The (hex, network) pairs the line network with side mask m on hex h runs into: across
        each of its sides, the neighbour's network that ends on the facing side."""
        for s in range(6):
            if not (m >> s) & 1:
                continue
            n = int(self.board.nbr[h, s])
            if n < 0:
                continue
            for m2 in self.nets(n):
                if (m2 >> ((s + 3) % 6)) & 1:
                    yield n, m2


class Position(TileLines):
    """A Race-mode board: tiles placed so far (owner, type, rotation per hex), on the board of
    the rules' board_columns."""

    def __init__(self, rules: dict[str, Any] | None = None, dots=None):
        self.rules = {p.name: p.default for p in PARAMS}
        self.rules.update(rules or {})
        self.columns = self.rules["board_columns"]
        self.board = board_of(self.columns)
        self.corners = [[int(x) for x in c] for c in corners_of(self.columns)]
        self.dots = list(dots) if dots is not None else dots_for(self.rules).tolist()
        self.mult = dot_multiplier_table(self.rules).tolist()
        self.tiles: dict[int, tuple[int, int, int]] = {}
        self.placed_any = [False, False]

    def _hex(self, h: str | int) -> int:
        return int(h) if not isinstance(h, str) else self.board.hex_id(h)

    def multiplier(self, h: int) -> int:
        """The path multiplier of hex h (dot_multipliers by its dots; 0 for a plain hex)."""
        return self.mult[self.dots[h]]

    # ---- building -----------------------------------------------------------------------------
    @classmethod
    def from_moves(cls, moves: Iterable[str], rules=None, dots=None, check: bool = True) -> Position:
        pos = cls(rules, dots)
        for m in moves:
            seat, tile, hx = m.split()
            pos.place(seat, pos._hex(hx), _tile(tile[:2]), int(tile[2:]), check=check)
        return pos

    @classmethod
    def from_ascii(cls, text: str, rules=None, dots=None) -> Position:
        lines = [ln.split() for ln in text.strip("\n").splitlines() if ln.strip()]
        if len(lines) != 19:
            raise ValueError(f"an ASCII board has 19 lines, got {len(lines)}")
        pos = cls(rules, dots)
        for dy, toks in enumerate(lines):
            cols = [c for c in range(pos.columns) if (c + dy) % 2 == 1]
            if len(toks) != len(cols):
                raise ValueError(f"line {dy} needs {len(cols)} hexes, got {len(toks)}")
            for c, tok in zip(cols, toks, strict=True):
                if tok == ".":
                    continue
                t, r, seat = TYPE_BY_CODE[tok[:2]], int(tok[2]), SEATS.index(tok[3])
                h = pos.board.index[(c, dy)]
                pos.tiles[h] = (seat, t, r)
                pos.placed_any[seat] = True
        return pos

    def ascii(self) -> str:
        out = []
        for dy in range(19):
            line = ""
            for c in range(self.columns):
                if (c + dy) % 2 == 0:
                    continue
                h = self.board.index[(c, dy)]
                if h in self.tiles:
                    seat, t, r = self.tiles[h]
                    tok = f"{TILE_TYPES[t].code}{r}{SEATS[seat]}"
                else:
                    tok = "."
                line = line.ljust(c * 6) + tok
            out.append(line.rstrip())
        return "\n".join(out)

    # ---- placement ----------------------------------------------------------------------------
    def why_illegal(self, seat, h, t, r) -> str | None:
        seat, h, t = _seat(seat), self._hex(h), _tile(t)
        if h in self.tiles:
            return "hex is occupied"
        if t == BLOCK and self.rules["block_placement"] == "connected":
            return "a Block has no line to connect (block_placement = 'connected')"
        if not self.placed_any[seat]:
            if h not in self.corners[seat]:
                return "the first tile must go on one of the player's own corners"
            if self.rules["first_tile"] == "onto_board" and not any(
                    (m >> s) & 1 and self.board.nbr[h, s] >= 0 for m in networks(t, r) for s in range(6)):
                return "a first tile needs a line end facing a hex of the board (first_tile = 'onto_board')"
            return None
        if self.rules["opponent_corners"] == "reserved" and h in self.corners[1 - seat]:
            return "the opponent's starting corner is reserved for them (opponent_corners = 'reserved')"
        if not any(int(n) in self.tiles for n in self.board.nbr[h] if n >= 0):
            return "not adjacent to any tile"
        if t == BLOCK:
            return None
        mine = 0
        for m in networks(t, r):
            mine |= m
        for s in range(6):
            n = int(self.board.nbr[h, s])
            if n >= 0 and (mine >> s) & 1 and (self.ends(n) >> ((s + 3) % 6)) & 1:
                return None
        return "no line connects to a line of an adjacent tile"

    def is_legal(self, seat, h, t, r) -> bool:
        return self.why_illegal(seat, h, t, r) is None

    def legal_moves(self, seat, hand: Iterable[str | int]) -> list[tuple[int, int, int]]:
        """Distinct (hex, tile, rotation) placements seat may make with these tiles."""
        out = []
        for t in sorted({_tile(x) for x in hand}):
            for r in orientations(t):
                for h in range(self.board.size):
                    if self.is_legal(seat, h, t, r):
                        out.append((h, t, r))
        return out

    def place(self, seat, h, t, r, check: bool = True) -> None:
        seat, h, t = _seat(seat), self._hex(h), _tile(t)
        if check:
            why = self.why_illegal(seat, h, t, r)
            if why:
                raise ValueError(f"illegal: {SEATS[seat]} {TILE_TYPES[t].name} rot {r} on "
                                 f"{self.board.names[h]}: {why}")
        self.tiles[h] = (seat, t, r % 6)
        self.placed_any[seat] = True

    # ---- goals --------------------------------------------------------------------------------
    def _search(self, seat, potential: bool) -> bool:
        """Endpoint search from one corner to the other. With `potential`, empty hexes carry
        a line between any two of their sides (a tile could still be laid there)."""
        a, b = self.corners[_seat(seat)]

        def sides(h):
            if h in self.tiles:
                return [(m, s) for m in self.nets(h) for s in range(6) if (m >> s) & 1]
            return [(63, s) for s in range(6)] if potential else []

        start = [(a, s) for _, s in sides(a)]
        seen = set(start)
        todo = deque(start)
        while todo:
            h, s = todo.popleft()
            if h == b:
                return True
            for m, s2 in sides(h):  # along a line inside the hex
                if (m >> s) & 1 and (h, s2) not in seen:
                    seen.add((h, s2))
                    todo.append((h, s2))
            n = int(self.board.nbr[h, s])  # across the shared edge
            o = (s + 3) % 6
            if n >= 0 and any(s2 == o for _, s2 in sides(n)) and (n, o) not in seen:
                seen.add((n, o))
                todo.append((n, o))
        return False

    def connected(self, seat) -> bool:
        """Do placed lines join seat's two corners?"""
        return self._search(seat, potential=False)

    def can_complete(self, seat) -> bool:
        """Could seat still join its corners through empty hexes and compatible placed lines?"""
        return self._search(seat, potential=True)

    def _line_hexes_from(self, start: int) -> set[int]:
        todo = [(start, m) for m in self.nets(start)]
        seen = set(todo)
        while todo:
            for nxt in self.joined(*todo.pop()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return {h for h, _ in seen}

    def reach(self, seat) -> int | None:
        """Stalemate measure: nearest hex distance from the lines on one of seat's corners to its
        other corner (None if seat has lines on neither corner)."""
        best = None
        corners = self.corners[_seat(seat)]
        for k in range(2):
            goal = corners[1 - k]
            for h in self._line_hexes_from(corners[k]):
                d = int(self.board.dist[h, goal])
                best = d if best is None or d < best else best
        return best

    def best_path(self, seat, budget: int = 400_000) -> tuple[int, int, list[int]]:
        """Best-scoring simple path of placed lines between seat's corners: (sum of dot
        multipliers over its distinct hexes, hexes on it, the hexes); ties -> fewer hexes.
        (-1, 0, []) when the corners are not joined; OverflowError past `budget` steps."""
        a, b = self.corners[_seat(seat)]
        best = (-1, 0, [])
        # the dots of every hex the corner's lines reach: no path can collect more
        total = sum(self.multiplier(x) for x in self._line_hexes_from(a))
        steps = 0

        def visit(node, on, hexes):
            nonlocal best, steps
            steps += 1
            if steps > budget:
                raise _Budget
            if total < best[0] or (total == best[0] and len(set(hexes)) >= best[1]):
                return
            h, m = node
            if h == b:
                score = sum(self.multiplier(x) for x in set(hexes))
                n = len(set(hexes))
                if score > best[0] or (score == best[0] and n < best[1]):
                    best = (score, n, list(dict.fromkeys(hexes)))
                return
            for nxt in self.joined(h, m):
                if nxt not in on:
                    on.add(nxt)
                    hexes.append(nxt[0])
                    visit(nxt, on, hexes)
                    hexes.pop()
                    on.discard(nxt)

        try:
            for m in self.nets(a):
                visit((a, m), {(a, m)}, [a])
        except _Budget:
            raise OverflowError("best_path: search budget exceeded") from None
        return best

    def score(self, seat) -> int:
        """Tournament score of a winner: base_score (10) x the sum of the multipliers on the best
        path, base_score without one."""
        s = self.best_path(seat)[0]
        base = self.rules["base_score"]
        return base * s if s > 0 else base

    def winner(self) -> tuple[str | None, str | None]:
        """Who has joined their corners by placed lines: ('A', 'path'), ... or (None, None).
        (When both have, only `judge` knows the mover.)"""
        for seat in SEATS:
            if self.connected(seat):
                return seat, "path"
        return None, None

    def judge(self, mover, tile, blocked_before=(False, False)):
        """Outcome right after `mover` placed `tile`, following the rule switches:
        (winner seat index or None, end reason or None if play goes on, blocked flags now)."""
        p = _seat(mover)
        o = 1 - p
        blocked = list(blocked_before)
        if self.connected(p):
            return p, "path", blocked
        if self.connected(o):
            return o, "opponent_path", blocked
        if not self.rules["blocked_player_loses"]:
            return None, None, blocked
        newly = [False, False]
        for q in range(2):
            if not blocked[q] and not self.can_complete(q):
                blocked[q] = True
                newly[q] = True
        if self.rules["block_win_trigger"] == "any_tile" or _tile(tile) == BLOCK:
            if newly[p] and newly[o]:
                return self.stalemate_winner(), "both_blocked", blocked
            if newly[o]:
                return p, "blocked", blocked
            if newly[p]:
                return o, "self_blocked", blocked
        return None, None, blocked

    def stalemate_winner(self) -> int | None:
        """stalemate_rule: 'closest' (nearest reach wins, tie = draw) or 'draw'."""
        if self.rules["stalemate_rule"] == "draw":
            return None
        ra, rb = (self.reach(s) for s in SEATS)
        ra = 99 if ra is None else ra
        rb = 99 if rb is None else rb
        if ra == rb:
            return None
        return 0 if ra < rb else 1


# ---- Tri-Board (modes "tri" and "tri2p") ------------------------------------------------------

class TriPosition:
    """Pure-Python Tri-Board position, written apart from the kernel (tri.py): connectivity is a
    search over line endpoints (hex, network), not union-find.

        pos = TriPosition({"mode": "tri"})           # rules: any resolved hexflow rules
        pos.place("III", "a14", "y_right", 0)
        pos.legal_moves("II", ["straight", "wildcard"])
        pos.centres_reached("III")                  # set of centre hexes joined by lines
    """

    def __init__(self, rules: dict[str, Any], dots=None):
        from .triboard import TRI2P_SEATS, TRI_SEATS, tri_board

        full = {p.name: p.default for p in PARAMS}
        full.update(rules)
        self.rules = full
        self.tb = tri_board(full["board_side"])
        self.board = self.tb.board
        self.seats = TRI_SEATS if full["mode"] == "tri" else TRI2P_SEATS
        self.dead = self.tb.corner["I"] if full["mode"] == "tri2p" else None
        self.corner = [self.tb.corner[s] for s in self.seats]
        self.centres = list(self.tb.centres)
        self.tiles: dict[int, tuple[int, int, int]] = {}  # hex -> (seat, declared type, rotation)
        self.wild: set[int] = set()
        self.dots = list(dots) if dots is not None else list(self.tb.default_dots())
        # tile points of each seat's tiles ([rules.tiles.<type>] points, by seat): a tile on the
        # board is worth its placer's points
        self.points = [[TILE_TYPES[t].points for t in range(len(TILE_TYPES))] for _ in self.seats]
        for name, entry in full.get("tiles", {}).items():
            v = entry.get("points")
            if v is not None:
                t = [tt.name for tt in TILE_TYPES].index(name)
                for q, s in enumerate(self.seats):
                    self.points[q][t] = v[s] if isinstance(v, dict) else v

    # -- helpers
    def seat(self, s: str | int) -> int:
        return self.seats.index(s) if isinstance(s, str) else int(s)

    def tile_points(self, h: int) -> int:
        """The points of the tile on hex h (its placer's value of its declared type)."""
        q, t, _ = self.tiles[h]
        return self.points[q][t]

    def hex(self, h: str | int) -> int:
        return self.board.hex_id(h) if isinstance(h, str) else int(h)

    def nbr(self, h: int, s: int) -> int:
        n = int(self.board.nbr[h, s])
        if n < 0 or n == self.dead or h == self.dead:
            return -1
        return n

    def nets(self, h: int) -> list[int]:
        seat, t, r = self.tiles[h]
        return networks(t, r)

    def _line_at(self, h: int, side: int) -> int | None:
        """Index of the network of the tile on h with an endpoint on `side`, or None."""
        if h not in self.tiles:
            return None
        for j, m in enumerate(self.nets(h)):
            if (m >> side) & 1:
                return j
        return None

    def legal(self, q: int, h: int, t: int, r: int) -> bool:
        if h in self.tiles or h == self.dead:
            return False
        if h in self.corner and self.corner.index(h) != q:
            return False
        block_conn = self.rules["block_placement"] == "connected"
        if not any(s == q for s, _, _ in self.tiles.values()):
            return h == self.corner[q] and not (t == BLOCK and block_conn)
        occupied = [s for s in range(6) if self.nbr(h, s) in self.tiles]
        if not occupied:
            return False
        if t == BLOCK:
            return not block_conn
        lines = 0
        for m in networks(t, r):
            lines |= m
        return any((lines >> s) & 1 and self._line_at(self.nbr(h, s), (s + 3) % 6) is not None
                   for s in occupied)

    def legal_moves(self, q, hand) -> list[tuple[int, int, int, int]]:
        """Distinct (hex, hand tile, declared type, rotation); hand tiles by index or name."""
        from .triboard import WILDCARD

        q = self.seat(q)
        out = []
        kinds = sorted({WILDCARD if t == "wildcard" else (_tile(t) if isinstance(t, str) else t)
                        for t in hand})
        for th in kinds:
            if th == WILDCARD:
                declared = [d for d in range(len(TILE_TYPES))
                            if d != BLOCK or self.rules["wildcard_block"]]
            else:
                declared = [th]
            for d in declared:
                for r in orientations(d):
                    for h in range(self.board.size):
                        if self.legal(q, h, d, r):
                            out.append((h, th, d, r))
        return out

    def place(self, q, h, t, r, wildcard: bool = False, check: bool = True) -> None:
        q, h, t = self.seat(q), self.hex(h), _tile(t)
        if check and not self.legal(q, h, t, r):
            raise ValueError(f"illegal: {self.seats[q]} {TILE_TYPES[t].name} r{r} on "
                             f"{self.board.names[h]}")
        self.tiles[h] = (q, t, r)
        if wildcard:
            self.wild.add(h)

    def _component(self, h: int) -> set[tuple[int, int]]:
        """(hex, network) nodes joined by lines to any network of the tile on h."""
        todo = [(h, j) for j in range(len(self.nets(h)))] if h in self.tiles else []
        seen = set(todo)
        while todo:
            x, j = todo.pop()
            m = self.nets(x)[j]
            for s in range(6):
                if (m >> s) & 1:
                    n = self.nbr(x, s)
                    k = self._line_at(n, (s + 3) % 6) if n >= 0 else None
                    if k is not None and (n, k) not in seen:
                        seen.add((n, k))
                        todo.append((n, k))
        return seen

    def centres_reached(self, q) -> set[int]:
        comp = self._component(self.corner[self.seat(q)])
        return {c for c in self.centres if any((c, j) in comp for j in range(2))}

    def can_reach(self, q) -> bool:
        """Could a line still join q's corner to a centre hex (empty hexes carry any line)?"""
        c = self.corner[self.seat(q)]
        start = [(c, -1)] if c not in self.tiles else [(c, j) for j in range(len(self.nets(c)))]
        seen, todo = set(start), list(start)
        while todo:
            x, j = todo.pop()
            if x in self.centres:
                return True
            m = 63 if j < 0 else self.nets(x)[j]
            for s in range(6):
                if not (m >> s) & 1:
                    continue
                n = self.nbr(x, s)
                if n < 0:
                    continue
                k = -1 if n not in self.tiles else self._line_at(n, (s + 3) % 6)
                if k is None or (n, k) in seen:
                    continue
                seen.add((n, k))
                todo.append((n, k))
        return False

    def path_value(self, q, weight) -> int:
        """Best sum of weight[hex] over the distinct hexes of a simple line path from q's corner
        to a reached centre hex (exhaustive search). A path ends where it first enters its
        centre hex; it may pass through other centre hexes (and through a hex twice on two
        separate lines of one tile), but coming back into its own centre hex by another line of
        that tile is not a path to it."""
        q = self.seat(q)
        c = self.corner[q]
        goals = self.centres_reached(q)
        best = -1

        def dfs(node, on, hexes, val, first):
            nonlocal best
            x, j = node
            if x in goals and first:  # a path may also run on through one centre hex to another
                best = max(best, val)
            m = self.nets(x)[j]
            for s in range(6):
                if (m >> s) & 1:
                    n = self.nbr(x, s)
                    k = self._line_at(n, (s + 3) % 6) if n >= 0 else None
                    if k is None or (n, k) in on:
                        continue
                    add = 0 if n in hexes else weight[n]
                    dfs((n, k), on | {(n, k)}, hexes | {n}, val + add, n not in hexes)

        if c in goals:
            return weight[c]
        for j in range(len(self.nets(c))):
            dfs((c, j), {(c, j)}, {c}, weight[c], True)
        return best

    def standing(self, q) -> tuple[int, int, int]:
        """Draw list: (hexes from q's corner lines to the nearest centre, their tile points,
        their dot hexes); no corner tile, or a Block there with corner_block = 'no_path',
        = (large, 0, 0)."""
        c = self.corner[self.seat(q)]
        if c not in self.tiles or (self.tiles[c][1] == BLOCK and self.rules["corner_block"] == "no_path"):
            return 1 << 20, 0, 0
        hexes = {x for x, _ in self._component(c)} | {c}
        d = min(int(self.board.dist[x, y]) for x in hexes for y in self.centres)
        pts = sum(self.tile_points(x) for x in hexes)
        return d, pts, sum(1 for x in hexes if self.dots[x] >= 2)
