"""Pure-Python HEXATILE position API, written apart from the kernels (vectors, not lookup tables):
build a position from moves or a small text notation, list legal moves, apply one, score it,
ask who has won.

Used by scenario tests, by `verify_trace` (every move of a kernel game re-checked and the result
recomputed here) and by the drawings.

Text notation: one token per cell `q,r:TILE` where TILE is `w0`..`w5` / `r0`..`r5` (white- or
red-backed tile, rotation) or `X` for the island, tokens separated by spaces, e.g.
"0,0:X 1,0:w3 -1,1:r0".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sim.games.hexatile import templates as TP
from sim.games.hexatile.geometry import U, board_cells, centre, direction_sector, hex_distance, xy

TYPES = tuple(TP.TILE_TYPES)  # ("white", "red")


@dataclass(frozen=True)
class Rhombus:
    cell: tuple
    colour: int
    tips: tuple  # two lattice points (acute corners)
    obtuse: tuple  # outer obtuse corner (the other is the tile centre)


@dataclass
class Pattern:
    kind: str  # radian, super_radian, set, arrow, straight
    colour: int
    rhombi: tuple  # indices into Position.rhombi()
    point: tuple | None = None  # lattice point for point patterns
    value: int = 0
    void: bool = False


def tile_rhombi(cell, tile: str, rotation: int) -> list[Rhombus]:
    a, b = centre(*cell)
    out = []
    for i, col in enumerate(TP.TILE_TYPES[tile]):
        j = (2 * i + 1 + rotation) % 6
        p = lambda k: (a + U[k % 6][0], b + U[k % 6][1])  # noqa: E731
        out.append(Rhombus(cell, col, (p(j - 1), p(j + 1)), p(j)))
    return out


def _sub(p, q):
    return (p[0] - q[0], p[1] - q[1])


def _mask(secs, colour: int, tip: bool) -> int:
    """Bit mask of the sectors holding a tip (or an obtuse corner) of a colour."""
    return sum(1 << s for s, (_, c, t) in enumerate(secs) if c == colour and t == tip)


def straight_value(length: int, mode: str, line: int) -> int:
    """Straights in a line of `length` rhombi, `line` rhombi a Straight (the template's)."""
    if length < line:
        return 0
    return {"thirds": length // line, "once": 1, "window": length - line + 1}[mode]


@dataclass
class Position:
    rules: dict
    tiles: dict = field(default_factory=dict)  # cell -> (tile, rotation, seat)
    island: tuple | None = None
    history: list = field(default_factory=list)  # (seat, cell, tile, rotation)

    # ---- set-up --------------------------------------------------------------------------------
    @classmethod
    def start(cls, rules, island=None):
        pos = cls(dict(rules))
        if island is None and rules["island"] == "centre":
            island = (0, 0)
        pos.island = island
        return pos

    @classmethod
    def from_text(cls, rules, text: str):
        pos = cls(dict(rules))
        for tok in text.split():
            cell_s, tile = tok.split(":")
            cell = tuple(int(x) for x in cell_s.split(","))
            if tile == "X":
                pos.island = cell
            else:
                pos.tiles[cell] = ({"w": "white", "r": "red"}[tile[0]], int(tile[1]), -1)
        return pos

    @classmethod
    def from_moves(cls, rules, moves, island=None):
        """Play (cell, tile, rotation) moves in seat order from the start; each must be legal."""
        pos = cls.start(rules, island)
        for t, (cell, tile, rot) in enumerate(moves):
            pos.apply(t % rules["players"], tuple(cell), tile, rot)
        return pos

    def seat_colours(self) -> list:
        first = 1 if self.rules["first_colour"] == "black" else 2
        return [first, 3 - first, TP.YELLOW][: self.rules["players"]]

    def winner(self) -> int:
        """Seat with the most points (tie: most points without rope), -1 for a draw; a Radian
        made by the last tile decides at once under radian_wins. Meaningful once all tiles are down."""
        cols = self.seat_colours()
        if self.rules["radian_wins"]:
            made = [c for c in self.radian_made_by_last() if c in cols]
            if made:
                mover = self.history[-1][0]
                return mover if cols[mover] in made else cols.index(made[0])
        sc = self.score()
        bonus = self.bonus()
        return winner_of([sc[c]["total"] + b for c, b in zip(cols, bonus, strict=True)],
                         [sc[c]["base"] + b for c, b in zip(cols, bonus, strict=True)])

    def bonus(self) -> list:
        """Points added per seat: second_player_bonus to the seat that moves second (2 players)."""
        out = [0] * self.rules["players"]
        if self.rules["players"] == 2:
            out[1] = self.rules["second_player_bonus"]
        return out

    def to_text(self) -> str:
        toks = [] if self.island is None else [f"{self.island[0]},{self.island[1]}:X"]
        toks += [f"{q},{r}:{t[0]}{rot}" for (q, r), (t, rot, _) in sorted(self.tiles.items())]
        return " ".join(toks)

    def cells(self):
        if self.rules["board"] == "standard":
            return board_cells(self.rules["board_radius"])
        return board_cells(max(sum(self.rules["tiles"].values()) - 1, 1))

    def remaining(self) -> dict:
        rem = dict(self.rules["tiles"])
        if self.island is not None:
            rem["red"] -= 1
        for t, _, _ in self.tiles.values():
            rem[t] -= 1
        return rem

    def tiles_to_play(self) -> int:
        return sum(self.rules["tiles"].values()) - (1 if self.island is not None else 0)

    # ---- placement -------------------------------------------------------------------------------
    def legal_cells(self, seat: int) -> list:
        empty = [c for c in self.cells() if c not in self.tiles and c != self.island]
        if self.rules["board"] == "free":
            if not self.tiles:
                empty = [(0, 0)]
            else:
                empty = [c for c in empty if any(hex_distance(c, t) == 1 for t in self.tiles)]
        if not self.history:
            return empty
        spacing = self.rules["spacing"]
        last = self.history[-1][1]
        if spacing == "last":
            ok = [c for c in empty if hex_distance(c, last) != 1]
        elif spacing == "adjacent_only":
            ok = [c for c in empty if hex_distance(c, last) == 1]
        elif spacing == "all":
            theirs = [c for c, (_, _, s) in self.tiles.items() if s != seat]
            ok = [c for c in empty if all(hex_distance(c, t) != 1 for t in theirs)]
        else:
            ok = empty
        return ok if ok else empty

    def legal_moves(self, seat: int) -> list:
        rots = range(6) if self.rules["rotation"] else range(1)
        rem = self.remaining()
        return [(c, t, r) for c in self.legal_cells(seat) for t in TYPES if rem[t] > 0 for r in rots]

    def apply(self, seat: int, cell, tile: str, rotation: int) -> None:
        if (cell, tile, rotation) not in self.legal_moves(seat):
            raise ValueError(f"illegal move {tile} r{rotation} at {cell} for seat {seat}")
        self.tiles[cell] = (tile, rotation, seat)
        self.history.append((seat, cell, tile, rotation))

    # ---- patterns ------------------------------------------------------------------------------
    def rhombi(self) -> list[Rhombus]:
        out = []
        for cell in sorted(self.tiles):
            t, rot, _ = self.tiles[cell]
            out += tile_rhombi(cell, t, rot)
        return out

    def point_sectors(self) -> dict:
        """Per lattice point, its six sectors (unit triangles, counter-clockwise from 0 degrees)
        as (rhombus index, colour, is a tip) or None, from the rhombi's vectors: a tip covers
        the sector along its long diagonal, an obtuse corner the two either side of its short one."""
        at: dict = {}
        for i, r in enumerate(self.rhombi()):
            for k, p in enumerate(r.tips):
                x, y = xy(_sub(r.tips[1 - k], p))
                at.setdefault(p, [None] * 6)[direction_sector((x, y))] = (i, r.colour, True)
            c = centre(*r.cell)
            x, y = xy(_sub(c, r.obtuse))
            for turn in (-30.0, 30.0):
                a = math.radians(turn)
                s = direction_sector((x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)))
                at.setdefault(r.obtuse, [None] * 6)[s] = (i, r.colour, False)
        return at

    def completed_by(self, point) -> int:
        """Seat whose tile filled the last of the cells round a lattice point (-1 unknown)."""
        cells = {cell for cell in self.tiles if any(
            (centre(*cell)[0] + u[0], centre(*cell)[1] + u[1]) == point for u in U)}
        order = [(t, seat) for t, (seat, cell, _, _) in enumerate(self.history) if cell in cells]
        return max(order)[1] if order else -1

    def patterns(self) -> list[Pattern]:
        """Every pattern on the board, with the Arrow rules applied (void flags). Point patterns
        come from the templates (templates.TEMPLATES, matched by templates.point_pattern) on
        every full point (six sectors covered), Straights from the `line` template."""
        rules = self.rules
        players = rules["players"]
        rh = self.rhombi()
        scored = (1, 2, 3) if players == 3 else (1, 2)
        masks = TP.template_masks()
        pats: list[Pattern] = []
        tips_at: dict = {}
        for p, secs in self.point_sectors().items():
            for sec in secs:
                if sec is not None and sec[2]:
                    tips_at.setdefault(p, []).append(sec[0])
            if any(sec is None for sec in secs):
                continue
            for col in scored:
                kind = TP.point_pattern(masks, col, _mask(secs, col, True), _mask(secs, col, False),
                                        _mask(secs, TP.YELLOW, True))
                if kind is None:
                    continue
                if kind == "super_radian" and players == 3:
                    kind = "radian"
                ids = tuple(sorted({i for i, c, _ in secs if c == col}))
                pats.append(Pattern(kind, col, ids, p))
        # straights: runs of same-colour rhombi joined tip to tip with opposite axes
        parent = list(range(len(rh)))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for p, lst in tips_at.items():
            for x in range(len(lst)):
                for y in range(x + 1, len(lst)):
                    i, j = lst[x], lst[y]
                    di = _sub(rh[i].tips[1] if rh[i].tips[0] == p else rh[i].tips[0], p)
                    dj = _sub(rh[j].tips[1] if rh[j].tips[0] == p else rh[j].tips[0], p)
                    if rh[i].colour == rh[j].colour and di == (-dj[0], -dj[1]):
                        parent[find(i)] = find(j)
        runs: dict = {}
        for i in range(len(rh)):
            runs.setdefault(find(i), []).append(i)
        line = TP.TEMPLATES["straight"]["line"]
        for members in runs.values():
            col = rh[members[0]].colour
            if col in scored and straight_value(len(members), rules["long_straight"], line) > 0:
                pats.append(Pattern("straight", col, tuple(sorted(members))))
        pts = rules["pattern_points"]
        for q in pats:
            q.value = (
                pts["straight"] * straight_value(len(q.rhombi), rules["long_straight"], line)
                if q.kind == "straight"
                else pts[q.kind]
            )
        if rules["arrow_rules"]:
            cols = self.seat_colours()
            for a in pats:
                if a.kind != "arrow":
                    continue
                if rules["arrow_voids"] == "owner" and self.completed_by(a.point) != cols.index(a.colour):
                    continue  # completed by another player than the colour's: it voids nothing
                for q in pats:
                    if q is not a and q.kind != "arrow" and set(q.rhombi) & set(a.rhombi):
                        a.void = q.void = True
        return pats

    def rope(self, colour: int) -> int:
        """Longest chain rope of a colour: rhombi joined acute tip to acute tip, bends allowed."""
        edges = [r.tips for r in self.rhombi() if r.colour == colour]
        simple = self.rules["rope_path"] == "simple"
        at: dict = {}
        for e, (p, q) in enumerate(edges):
            at.setdefault(p, []).append(e)
            at.setdefault(q, []).append(e)
        best = 0

        def walk(p, used, seen, n):
            nonlocal best
            best = max(best, n)
            for e in at[p]:
                if e in used:
                    continue
                q = edges[e][1] if edges[e][0] == p else edges[e][0]
                if simple and q in seen:
                    continue
                walk(q, used | {e}, seen | {q}, n + 1)

        for p in at:
            walk(p, frozenset(), frozenset([p]), 0)
        return best

    def score(self) -> dict:
        """Per colour: points per pattern type, rope (0 without chain_rope), void, base (patterns
        without rope), total (base + rope; the seats' bonus is added by `winner`)."""
        rules = self.rules
        cols = (1, 2, 3) if rules["players"] == 3 else (1, 2)
        out = {
            c: {k: 0 for k in ("radian", "super_radian", "set", "arrow", "straight", "void")} for c in cols
        }
        for q in self.patterns():
            if q.void:
                out[q.colour]["void"] += q.value
            else:
                out[q.colour][q.kind] += q.value
        kinds = ("radian", "super_radian", "set", "arrow", "straight")
        for c in cols:
            if rules["variety"]:
                for k in kinds:
                    out[c][k] = min(out[c][k], rules["pattern_points"][k])
            out[c]["rope"] = self.rope(c) if rules["chain_rope"] else 0
            out[c]["base"] = 0 if rules["scoring"] == "rope_only" else sum(out[c][k] for k in kinds)
            out[c]["total"] = out[c]["base"] + out[c]["rope"]
        return out

    def radian_made_by_last(self) -> list:
        """Colours (player colours) with a Radian at a corner of the last tile placed (with
        voided_radian_wins = false, not one the Arrow rules void now)."""
        if not self.history:
            return []
        cell = self.history[-1][1]
        a, b = centre(*cell)
        corners = {(a + u[0], b + u[1]) for u in U}
        return sorted(
            {q.colour for q in self.patterns() if q.kind in ("radian", "super_radian") and q.point in corners
             and not (q.void and not self.rules["voided_radian_wins"])}
        )


def winner_of(totals, bases) -> int:
    best = max(zip(totals, bases, strict=True))
    tops = [s for s, tb in enumerate(zip(totals, bases, strict=True)) if tb == best]
    return tops[0] if len(tops) == 1 else -1


def verify_trace(game, trace) -> None:
    """Replay a kernel game with this API: every move legal, tiles conserved, result right."""
    rules = trace.rules
    names = trace.seat_names
    isl = trace.data["island"]
    pos = Position.start(rules, island=tuple(isl) if isl is not None else None)
    if rules["island"] == "none":
        assert pos.island is None
    players = rules["players"]
    first = 1 if rules["first_colour"] == "black" else 2
    colours = [first, 3 - first, 3][:players]
    made_radian = []
    for t, m in enumerate(trace.moves):
        seat = names.index(m["seat"])
        assert seat == t % players, f"move {t}: seat {m['seat']} out of turn"
        if rules["tile_choice"] == "bag":
            assert m["tile"] == m["drawn"] or m["redraw"], f"move {t}: used {m['tile']} but drew {m['drawn']}"
            assert not (m["redraw"] and rules["must_use_drawn"]), f"move {t}: redraw with must_use_drawn"
        if "picked" in m:
            assert m["tile"] == m["picked"], f"move {t}: used {m['tile']} but was handed {m['picked']}"
            assert names.index(m["picked_by"]) == (seat - 1) % players, f"move {t}: picked by the wrong seat"
        elif rules["tile_choice"] == "opponent":
            assert min(pos.remaining().values()) == 0, f"move {t}: no pick although both kinds were left"
        pos.apply(seat, tuple(m["cell"]), m["tile"], m["rotation"])
        if rules["radian_wins"]:
            made_radian = [c for c in pos.radian_made_by_last() if c in colours]
            if made_radian:
                assert t == len(trace.moves) - 1, f"move {t}: a Radian was made but the game went on"
    rem = pos.remaining()
    assert min(rem.values()) >= 0, f"tiles not conserved: {rem}"
    placed = len(pos.tiles)
    assert placed == len(trace.moves) and placed + sum(rem.values()) == pos.tiles_to_play()
    row = trace.row
    if trace.data.get("swapped"):  # the pie rule: the row is by player, the board by seat
        import numpy as np

        from sim.engine import exchange_seats

        row = {k: np.asarray(v).item() for k, v in exchange_seats(row, True, names).items()}
    assert row["turns"] == len(trace.moves)
    sc = pos.score()
    early = bool(made_radian)
    assert row["end_reason"] == (1 if early else 0), "end reason"
    if not early:
        assert sum(rem.values()) == 0, "game ended with tiles left"
    totals, bases = [], []
    bonus = pos.bonus()
    for s, nm in enumerate(names):
        c = sc[colours[s]]
        rope = 0 if early else c["rope"]
        for k in ("radian", "super_radian", "set", "arrow", "straight", "void"):
            assert row[f"hexatile_{k}_{nm}"] == c[k], f"seat {nm}: {k} {row[f'hexatile_{k}_{nm}']} != {c[k]}"
        assert row[f"hexatile_rope_{nm}"] == rope, f"seat {nm}: rope {row[f'hexatile_rope_{nm}']} != {rope}"
        assert row[f"hexatile_base_{nm}"] == c["base"], f"seat {nm}: base"
        assert row[f"score_{nm}"] == c["base"] + rope + bonus[s], f"seat {nm}: score"
        totals.append(c["base"] + rope + bonus[s])
        bases.append(c["base"] + bonus[s])
    if early:
        mover = names.index(trace.moves[-1]["seat"])
        owners = [colours.index(c) for c in made_radian]
        expect = mover if mover in owners else owners[0]
        # with several non-mover owners the kernel takes the first found; accept any owner then
        assert row["winner"] == expect or (mover not in owners and row["winner"] in owners), "radian winner"
    else:
        assert row["winner"] == winner_of(totals, bases), f"winner {row['winner']} vs {totals} {bases}"
