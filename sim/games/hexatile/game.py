"""HEXATILE as a hexsim game: parameter schema, bots, columns, and the thin wrappers round the kernels."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sim.errors import VariantError
from sim.games.base import Bot, Game, Param, SeatBot, Trace
from sim.games.hexatile import kernel as K
from sim.games.hexatile import templates as TP
from sim.games.hexatile.geometry import geometry

STANDARD_RADIUS = 2
SEATS = ("A", "B", "C")
PATTERN_COLS = ("radian", "super_radian", "set", "arrow", "straight")
SPACING = ("last", "all", "none", "adjacent_only")
TILE_CHOICE = ("open", "bag", "opponent")
ISLAND = ("centre", "random", "none")
LONG_STRAIGHT = ("thirds", "once", "window")

PARAMS = (
    Param(
        "players",
        "int",
        2,
        "Number of players; with 3, yellow is the third player's colour.",
        choices=(2, 3),
        seed_text="プレー人数２～３名 / 黄色は中立色ですが、３人プレーの際はプレーヤーカラーとなります。",
    ),
    Param(
        "spacing",
        "str",
        "last",
        "Where a tile may go: not next to the tile just placed by the previous player (last), not next "
        "to any tile of another player (all), anywhere (none), only next to the tile just placed "
        "(adjacent_only). If no cell qualifies, anywhere.",
        choices=SPACING,
        seed_text="後手以降は相手が置いたタイルから1つ以上離れた距離にしか置けません。"
        "１つ以上離れたところが開いていないときは好きな場所に置けます。",
    ),
    Param(
        "tile_choice",
        "str",
        "open",
        "Which tile a player uses: any of the shared tiles (open), one drawn blind from the bag (bag), "
        "the one the previous player picks for them (opponent).",
        choices=TILE_CHOICE,
        seed_text="１．タイルを袋に入れて見ないで１枚引く。 ２．相手が相手の使用駒を選ぶ。",
    ),
    Param(
        "must_use_drawn",
        "bool",
        False,
        "Bag draw: the drawn tile must be used. When false, a player may put the drawn tile back once "
        "and must use the second draw.",
        seed_text="一度引いた駒を必ず使用",
    ),
    Param(
        "rotation",
        "bool",
        True,
        "Tiles may be turned to any of 6 rotations before placing.",
        seed_text="３色の菱形の並びが異なる６角形を使用します。",
    ),
    Param(
        "island",
        "str",
        "centre",
        "Where the face-down red-backed tile (the island) lies: board centre, a random cell, or no island.",
        choices=ISLAND,
        seed_text="１枚を裏返し、島として中央、もしくは好きな位置に配置します。",
    ),
    Param(
        "board",
        "str",
        "standard",
        "standard: the 19-cell board; free: no board edge (each tile after the first touches a tile).",
        choices=("standard", "free"),
        seed_text="ボード未使用島でプレイし、１つとばし置きルールと島をなくし、自由にタイルを配置",
    ),
    Param(
        "long_straight",
        "str",
        "thirds",
        "A line of L rhombi scores L//3 Straights (thirds: a 4th or 5th adds nothing), 1 (once) or "
        "L-2 (window).",
        choices=LONG_STRAIGHT,
        seed_text="ストレートに４つめのダイヤを並べても無効とします。※４ストレート、５ストレートの点数化なども使用者間で決める",
    ),
    Param(
        "arrow_rules",
        "bool",
        True,
        "An Arrow sharing a rhombus with a Set, a Radian or a Straight scores 0, and so does that pattern.",
        seed_text="ルール１　アローとセットをつなげることはできない。"
        "ルール２　アローをチェインに含む事はできない。",
    ),
    Param(
        "radian_wins",
        "bool",
        False,
        "A Radian (or Super Radian) wins at once for its colour's owner.",
        seed_text="ラジアンを作成した段階で勝利となりますが、最後まで完成しなかった際は、獲得ポイントで勝敗を決めます。",
    ),
    Param(
        "scoring",
        "str",
        "total",
        "total: patterns + chain rope; rope_only: only the chain rope counts.",
        choices=("total", "rope_only"),
        seed_text="チェインロープの長さだけを競います。ポイントパターンは関係ありません。",
    ),
    Param(
        "variety",
        "bool",
        False,
        "Variety match: each pattern type scores at most once per player.",
        seed_text="対戦中同じポイントパターンは得点にならない。",
    ),
    Param(
        "rope_path",
        "str",
        "trail",
        "Chain rope: each rhombus used once, a point may be passed twice (trail), or each point once "
        "(simple).",
        choices=("trail", "simple"),
        seed_text="菱形の鋭角同士がつながっていれば、折れ曲がっていても構いません。",
    ),
    Param(
        "first_colour",
        "str",
        "black",
        "The colour seat A (the first player) takes.",
        choices=("black", "red"),
        seed_text="先手のプレーヤーが黒か赤の好きな色を選びます。",
    ),
)

GREEDY_PARAMS = (
    Param(
        "setup_weight",
        "float",
        0.5,
        "Weight of the points the move leaves for others to complete.",
        low=0.0,
        high=10.0,
    ),
    Param(
        "plan_weight", "float", 0.25, "Weight of the points the move prepares for itself.", low=0.0, high=10.0
    ),
    Param("rope_weight", "float", 0.3, "Weight of tip-to-tip joins (chain rope growth).", low=0.0, high=10.0),
    Param(
        "arrow_foresight",
        "bool",
        True,
        "Foresee the Arrow rules: an Arrow joined to a scored pattern "
        "(or a pattern joined to an Arrow) is a loss, for its own colour or a gain for another's.",
    ),
    Param(
        "rope_gain_weight",
        "float",
        0.0,
        "Weight of the longest chain rope's estimated growth (longest ropes from the new rhombus's "
        "tips; recomputed every move, so 0 skips it). Helps in rope_only, not in the basic game.",
        low=0.0,
        high=10.0,
    ),
)
BOTS = (
    Bot("random", K.BOT_RANDOM, "Uniformly random legal cell, tile and rotation."),
    Bot(
        "greedy",
        K.BOT_GREEDY,
        "Immediate points for itself minus for the others, minus what the move "
        "sets up for them, plus own set-ups and rope joins.",
        GREEDY_PARAMS,
    ),
)


class Tables:
    """Geometry and template tables for one board radius (built once, passed to the kernels)."""

    def __init__(self, radius: int):
        g = geometry(radius)
        self.geo = g
        self.ocol = TP.orient_colours()
        self.contrib = TP.contrib_table()
        self.vtype = TP.vertex_types()
        self.ntip = TP.tip_counts()
        self.centre = g.cell_index[(0, 0)]


_TABLES: dict = {}


def tables(rules) -> Tables:
    radius = STANDARD_RADIUS if rules["board"] == "standard" else free_radius()
    if radius not in _TABLES:
        _TABLES[radius] = Tables(radius)
    return _TABLES[radius]


def free_radius() -> int:
    """Without a board edge every tile lies within 18 cells of the first (19 tiles, touching)."""
    return sum(TP.TILE_COUNTS.values()) - 1


def points_vector() -> np.ndarray:
    p = np.zeros(6, np.int64)
    for name, tid in (("radian", 1), ("super_radian", 2), ("set", 3), ("arrow", 4), ("straight", 5)):
        p[tid] = TP.TEMPLATES[name]["points"]
    return p


def rules_vector(rules, tab: Tables) -> np.ndarray:
    ri = np.zeros(17, np.int64)
    ri[0] = rules["players"]
    ri[1] = SPACING.index(rules["spacing"])
    ri[2] = TILE_CHOICE.index(rules["tile_choice"])
    ri[3] = int(rules["must_use_drawn"])
    ri[4] = int(rules["rotation"])
    ri[5] = ISLAND.index(rules["island"])
    ri[6] = int(rules["board"] == "free")
    ri[7] = LONG_STRAIGHT.index(rules["long_straight"])
    ri[8] = int(rules["arrow_rules"])
    ri[9] = int(rules["radian_wins"])
    ri[10] = int(rules["scoring"] == "rope_only")
    ri[11] = int(rules["variety"])
    ri[12] = int(rules["rope_path"] == "simple")
    ri[13] = 1 if rules["first_colour"] == "black" else 2
    ri[14] = tab.centre
    ri[15] = TP.TILE_COUNTS["white"]
    ri[16] = TP.TILE_COUNTS["red"]
    return ri


def seat_colours(rules) -> list[int]:
    first = 1 if rules["first_colour"] == "black" else 2
    cols = [first, 3 - first]
    if rules["players"] == 3:
        cols.append(TP.YELLOW)
    return cols


def bot_points(rules, pts) -> tuple[np.ndarray, np.ndarray]:
    """What a pattern is worth to the bots, per colour: [4, 6] and straights [4]."""
    ptsc = np.zeros((4, 6), np.float64)
    spts = np.zeros(4, np.float64)
    if rules["scoring"] == "rope_only":
        return ptsc, spts
    for col in seat_colours(rules):
        ptsc[col, :] = pts
        if rules["players"] == 3:
            ptsc[col, TP.SUPER_RADIAN] = pts[TP.RADIAN]
        if rules["radian_wins"]:
            ptsc[col, TP.RADIAN] = ptsc[col, TP.SUPER_RADIAN] = 50.0
        spts[col] = pts[TP.STRAIGHT]
    return ptsc, spts


class Hexatile(Game):
    name = "hexatile"
    title = "HEXATILE"
    description = (
        "Shared hexagonal tiles of three rhombi (black, red, neutral yellow) on a 19-cell board; "
        "patterns score for their colour's owner, the longest chain rope is added at the end."
    )
    params = PARAMS
    bots = BOTS
    end_reasons = ("tiles_placed", "radian")
    default_bot = "greedy"

    def seat_names(self, rules):
        return list(SEATS[: rules.get("players", 2)])

    def validate(self, rules, where):
        if rules["board"] == "free" and rules["island"] != "none":
            raise VariantError(
                f"{where}: [rules] board = 'free' needs island = 'none' "
                f"(the free match has no island); got island = {rules['island']!r}"
            )

    def warnings(self, rules):
        out = [
            "The rule card's photos are lost: Radian, Super Radian, Straight, Set and Arrow shapes are a "
            "reading (templates.py, drawn by `hexsim rules hexatile --draw DIR`).",
            "The worked example's label 'ラジアン５ｐ' is 5 points, the Super Radian value, "
            "not a 5-point Radian.",
        ]
        played = sum(TP.TILE_COUNTS.values()) - (0 if rules["island"] == "none" else 1)
        if played % rules["players"]:
            out.append(
                f"{played} tiles for {rules['players']} players: the first player(s) place one more "
                "(the card turns one tile over 'to make the tile numbers equal', the free match "
                "drops the island)."
            )
        if rules["players"] == 3 and rules["spacing"] == "last":
            out.append(
                "3 players: the card lets each player place anywhere (spacing = 'none'); "
                "spacing 'last' is the card's optional 'of course you may keep the gap'."
            )
        return out

    # ---- kernels ------------------------------------------------------------------------------
    def _args(self, rules, seats: Sequence[SeatBot]):
        tab = tables(rules)
        g = tab.geo
        pts = points_vector()
        ptsc, spts = bot_points(rules, pts)
        pot = TP.potential(tab.vtype, ptsc)
        ri = rules_vector(rules, tab)
        n = rules["players"]
        if len(seats) != n:
            raise VariantError(f"hexatile: {n} seats needed, got {len(seats)}")
        code = np.array([s.bot.code for s in seats], np.int64)
        par = np.zeros((n, 5), np.float64)
        for i, s in enumerate(seats):
            v = s.param_vector()
            par[i, : len(v)] = v
        return (
            ri,
            code,
            par,
            g.neigh,
            g.cell_vert,
            g.cell_slot,
            g.low_tri,
            g.vslot_cell,
            g.vslot_k,
            g.line_next,
            g.line_side,
            g.rh_tip,
            g.rh_obt,
            tab.ocol,
            tab.contrib,
            tab.vtype,
            tab.ntip,
            pot,
            ptsc,
            spts,
            pts,
        )

    def _columns(self, rules, raw: np.ndarray) -> dict[str, np.ndarray]:
        names = self.seat_names(rules)
        cols = {
            "winner": raw[:, 0].astype(np.int8),
            "end_reason": raw[:, 1].astype(np.int8),
            "turns": raw[:, 2].astype(np.int32),
            "first_seat": np.zeros(raw.shape[0], np.int8),
        }
        for s, nm in enumerate(names):
            b = 4 + s * 8
            cols[f"score_{nm}"] = (raw[:, b + 7] + raw[:, b + 5]).astype(np.int32)
        for s, nm in enumerate(names):
            b = 4 + s * 8
            for i, pc in enumerate(PATTERN_COLS):
                cols[f"hexatile_{pc}_{nm}"] = raw[:, b + i].astype(np.int16)
            cols[f"hexatile_rope_{nm}"] = raw[:, b + 5].astype(np.int16)
            cols[f"hexatile_base_{nm}"] = raw[:, b + 7].astype(np.int16)
            cols[f"hexatile_void_{nm}"] = raw[:, b + 6].astype(np.int16)
        cols["hexatile_island"] = raw[:, 3].astype(np.int16)
        return cols

    def play_chunk(self, rules, seats, first_game, n_games, run_seed):
        args = self._args(rules, seats)
        raw = np.zeros((n_games, 4 + rules["players"] * 8), np.int64)
        K.play_chunk_kernel(np.uint64(run_seed), np.int64(first_game), np.int64(n_games), *args, raw)
        return self._columns(rules, raw)

    def play_traced(self, rules, seats, game_index, run_seed):
        args = self._args(rules, seats)
        n_cells = len(tables(rules).geo.cells)
        rec = np.full((n_cells, K.REC_W), -9, np.int64)
        raw = np.zeros((1, 4 + rules["players"] * 8), np.int64)
        K.play_traced_kernel(np.uint64(run_seed), np.int64(game_index), *args, rec, raw[0])
        cols = self._columns(rules, raw)
        row = {k: v[0].item() for k, v in cols.items()}
        names = self.seat_names(rules)
        g = tables(rules).geo
        types = list(TP.TILE_TYPES)
        moves = []
        for t in range(int(raw[0, 2])):
            seat, c, o, drawn, redraw, picker = (int(x) for x in rec[t])
            q, r = g.cells[c]
            m = {
                "seat": names[seat],
                "move": f"{types[o // 6]} r{o % 6} @({q},{r})",
                "cell": (q, r),
                "tile": types[o // 6],
                "rotation": o % 6,
            }
            if rules["tile_choice"] == "bag":
                m["drawn"] = types[drawn]
                m["redraw"] = bool(redraw)
            if picker >= 0:
                m["picked_by"] = names[picker]
                m["picked"] = types[drawn]
            moves.append(m)
        island = int(raw[0, 3])
        data = {"island": g.cells[island] if island >= 0 else None}
        return Trace(self.name, dict(rules), names, game_index, run_seed, moves, row, data)

    def verify_trace(self, trace: Trace) -> None:
        from sim.games.hexatile.position import verify_trace

        verify_trace(self, trace)

    def draw(self, trace, path, every_move=False):
        from sim.games.hexatile.drawing import draw_trace

        draw_trace(self, trace, path, every_move)

    def draw_rules(self, out_dir):
        from sim.games.hexatile.drawing import draw_rules

        return draw_rules(self, out_dir)

    def report_metrics(self, df, rules):
        from sim.games.hexatile.report import metrics

        return metrics(self, df, rules)

    warm_parts = (("all", 25.0),)

    def warm(self, part: str = "all") -> None:
        rules = self.resolve_rules({}, "warm")
        seats = [SeatBot(b, {p.name: p.default for p in b.params}) for b in self.bots]
        self.play_chunk(rules, seats, 0, 2, 1)


def score_tiles(rules, tiles: dict, island=None) -> np.ndarray:
    """Kernel scoring of a hand-made position: tiles maps axial cell -> (tile type, rotation).
    Returns out[4, 8] per colour (see kernel.score_board). For tests and designers."""
    tab = tables(rules)
    g = tab.geo
    types = list(TP.TILE_TYPES)
    rh = np.zeros(len(g.cells) * 6, np.int8)
    cell_o = np.full(len(g.cells), -1, np.int32)
    placer = np.full(len(g.cells), -1, np.int32)
    vcode = np.zeros(len(g.vert_pts), np.int32)
    for v in range(len(g.vert_pts)):
        vcode[v] = sum(
            int(K.POW11[i])
            for i in range(3)
            if g.vslot_cell[v, i] >= 0 and (island is None or g.vslot_cell[v, i] != g.cell_index[island])
        )
    for cell, (t, rot) in tiles.items():
        K._apply(
            g.cell_index[cell],
            types.index(t) * 6 + rot,
            0,
            rh,
            cell_o,
            placer,
            vcode,
            g.cell_vert,
            g.cell_slot,
            g.low_tri,
            tab.contrib,
            tab.ocol,
        )
    out = np.zeros((4, 8), np.int64)
    K.score_board(
        rules_vector(rules, tab),
        rh,
        vcode,
        g.vslot_cell,
        g.vslot_k,
        g.line_next,
        g.line_side,
        g.rh_tip,
        tab.vtype,
        points_vector(),
        out,
    )
    return out
