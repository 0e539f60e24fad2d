"""HEXATILE as a hexsim game: parameter schema, bots, columns, traces; play comes from sim.engine
(the rules as engine functions are in kernel.py, their tables and position in state.py)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from sim import engine
from sim.engine import search
from sim.engine.rng import game_seed
from sim.errors import VariantError
from sim.games.base import SWAP, Bot, Game, Param, SeatBot, Trace
from sim.games.hexatile import kernel as K
from sim.games.hexatile import state as S
from sim.games.hexatile import templates as TP
from sim.games.hexatile.geometry import geometry
from sim.games.hexatile.state import ISLAND, LONG_STRAIGHT, SPACING, TILE_CHOICE

SEATS = ("A", "B", "C")
PATTERN_COLS = ("radian", "super_radian", "set", "arrow", "straight")

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
    Param(
        "pattern_points",
        "table",
        {"radian": 2, "super_radian": 5, "straight": 1, "set": 1, "arrow": 1},
        "Points per pattern (the scoring, the variety cap and the bots' point tables read it).",
        low=0,
        high=100,
        seed_text="ラジアン　２点 / スーパーラジアン　５点 / ストレート　１点 / セット　１点 / アロー　１点",
        omit_default=True,
    ),
    Param(
        "tiles",
        "table",
        dict(TP.TILE_COUNTS),
        "Tiles in the box by the colour of their back (white: black-red-yellow counter-clockwise, red: "
        "the mirror image); the island, when there is one, is one of the red-backed tiles. All must fit "
        "on the board's cells (the free board: at most 25).",
        low=0,
        high=61,
        seed_text="１９枚で１セット分です。配色が異なるものが２種類あり、裏が白いタイルが９枚、赤が１０枚あります。",
        omit_default=True,
    ),
    Param(
        "board_radius",
        "int",
        2,
        "Radius of the hexagonal board (board = 'standard'): 2 is the card's 19 cells, 3 a 37-cell board "
        "(a reading of the expansion board the card mentions), 4 a 61-cell board.",
        low=2,
        high=4,
        seed_text="蜂の巣状の１９ヘックスを利用します。拡張版もあります。",
        omit_default=True,
    ),
    Param(
        "arrow_voids",
        "str",
        "anyone",
        "Which Arrows the Arrow rules void: any Arrow joined to a Set, Radian or Straight, whoever completed "
        "it (anyone), or only one completed by its own colour's player (owner: an Arrow a player makes in "
        "another player's colour scores for that player and voids nothing).",
        choices=("anyone", "owner"),
        seed_text="以上のルールを侵した場合、アローを含んだポイントパターンは０点になります。",
        omit_default=True,
    ),
    Param(
        "chain_rope",
        "bool",
        True,
        "The longest chain rope is added to each player's points at the end (false: it is not counted, "
        "and the rope column reads 0).",
        seed_text="※チェインの有無、４ストレート、５ストレートの点数化なども使用者間で決める事もできます。",
        omit_default=True,
    ),
    Param(
        "voided_radian_wins",
        "bool",
        True,
        "Radian wins: a Radian that the Arrow rules void as it is made (it shares a rhombus with an Arrow "
        "that voids) still wins at once (false: it does not, and the game goes on).",
        seed_text="ラジアンを作成した段階で勝利となります / "
        "以上のルールを侵した場合、アローを含んだポイントパターンは０点になります。",
        omit_default=True,
    ),
    Param(
        "second_player_bonus",
        "int",
        0,
        "Points added to the total of the player who moves second (a compensation, not on the card; 2 "
        "players; negative: taken off). They count in the score, the winner and the tie-break (points "
        "without the rope), not in the pattern columns.",
        low=-20,
        high=20,
        seed_text="獲得ポイントとボーナスポイントの合計が多い人の勝ちです。同点時はチェインロープを省いたポイントが多い人の勝ちです。",
        omit_default=True,
    ),
    SWAP,
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
GREEDY = Bot(
    "greedy",
    S.BOT_GREEDY,
    "Immediate points for itself minus for the others, minus what the move "
    "sets up for them, plus own set-ups and rope joins.",
    GREEDY_PARAMS,
)
RANDOM = Bot("random", S.BOT_RANDOM, "Uniformly random legal cell, tile and rotation.")
BOTS = (
    RANDOM,
    GREEDY,
    # greedy rollouts: uniform ones lose to greedy at these budgets (10:48 at 100 iterations)
    search.mcts_bot(GREEDY, iterations=150, random=RANDOM, rollout="greedy"),
)


@lru_cache(maxsize=64)
def _tables(key: tuple) -> S.Tables:
    return S.build_tables({k: dict(v) if isinstance(v, tuple) else v for k, v in key})


def tables(rules) -> S.Tables:
    """The engine tables of a resolved rule set (built once per rule set)."""
    return _tables(tuple(sorted((k, tuple(v.items()) if isinstance(v, dict) else v) for k, v in rules.items())))


class Hexatile(engine.EngineGame, Game):
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
        if rules["board"] == "free" and rules["board_radius"] != 2:
            raise VariantError(f"{where}: [rules] board_radius applies to board = 'standard'; the free "
                               f"board has no edge (got board_radius = {rules['board_radius']})")
        counts = rules["tiles"]
        total = sum(counts.values())
        island = rules["island"] != "none"
        if island and counts["red"] < 1:
            raise VariantError(f"{where}: [rules] tiles.red = 0 leaves no red-backed tile for the island; "
                               "allowed: tiles.red >= 1, or island = 'none'")
        if total - island < 1:
            raise VariantError(f"{where}: [rules] tiles = {counts} leaves no tile to place; allowed: at least "
                               f"{1 + island} tiles")
        cells = len(tables_geometry(rules).cells) if rules["board"] == "standard" else 25
        if total > cells:
            fit = (f"the {cells}-cell board (board_radius = {rules['board_radius']})"
                   if rules["board"] == "standard" else "the free board (at most 25 tiles)")
            raise VariantError(f"{where}: [rules] tiles = {counts}: {total} tiles do not fit on {fit}")
        if rules["second_player_bonus"] and rules["players"] != 2:
            raise VariantError(f"{where}: [rules] second_player_bonus needs 2 players (these rules seat "
                               f"{rules['players']})")
        if rules["scoring"] == "rope_only" and not rules["chain_rope"]:
            raise VariantError(f"{where}: [rules] scoring = 'rope_only' needs chain_rope = true "
                               "(nothing would score)")

    def warnings(self, rules):
        out = [
            "The rule card's photos are lost: Radian, Super Radian, Straight, Set and Arrow shapes are a "
            "reading (templates.py, drawn by `hexsim rules hexatile --draw DIR`).",
            "The worked example's label 'ラジアン５ｐ' is 5 points, the Super Radian value, "
            "not a 5-point Radian.",
        ]
        if rules["board"] == "standard" and rules["board_radius"] != 2:
            out.append(
                "The card mentions an expansion board without its size: board_radius = "
                f"{rules['board_radius']} (a hexagon of {len(tables_geometry(rules).cells)} cells) is a reading."
            )
        played = sum(rules["tiles"].values()) - (0 if rules["island"] == "none" else 1)
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

    # ---- play: the engine's drivers on kernel.py's rules ----------------------------------------------
    def tables(self, rules) -> S.Tables:
        return tables(rules)

    def columns_of(self, rules) -> dict[str, tuple[int, type]]:
        """After the scores, per seat the 8 entries of rules.score_board, then the island."""
        names = self.seat_names(rules)
        cols = {}
        for s, nm in enumerate(names):
            b = s * S.SCORE_W
            for i, pc in enumerate(PATTERN_COLS):
                cols[f"hexatile_{pc}_{nm}"] = (b + i, np.int16)
            cols[f"hexatile_rope_{nm}"] = (b + 5, np.int16)
            cols[f"hexatile_base_{nm}"] = (b + 7, np.int16)
            cols[f"hexatile_void_{nm}"] = (b + 6, np.int16)
        cols["hexatile_island"] = (len(names) * S.SCORE_W, np.int16)
        return cols

    def _check_seats(self, rules, seats: Sequence[SeatBot]) -> None:
        if len(seats) != rules["players"]:
            raise VariantError(f"hexatile: {rules['players']} seats needed, got {len(seats)}")

    def play_chunk(self, rules, seats, first_game, n_games, run_seed):
        self._check_seats(rules, seats)
        return super().play_chunk(rules, seats, first_game, n_games, run_seed)

    def describe(self, rules, seat, move):
        types = list(TP.TILE_TYPES)
        if move in (S.KEEP, S.RETURN):
            return "keep the drawn tile" if move == S.KEEP else "put the drawn tile back"
        if move >= S.PICK:
            return f"hand over a {types[move - S.PICK]}-backed tile"
        q, r = tables_geometry(rules).cells[move // 12]
        return f"{types[move % 12 // 6]} r{move % 6} @({q},{r})"

    def play_traced(self, rules, seats, game_index, run_seed):
        """The engine's trace (every decision, data["rec"]) with one move per tile placed: cell,
        tile, rotation, and under bag draws the first tile drawn and whether it went back, under
        opponent picks who picked which kind (replayed from the decisions)."""
        self._check_seats(rules, seats)
        tr = super().play_traced(rules, seats, game_index, run_seed)
        row = {k: v.item() for k, v in tr.row.items()}
        island = int(row["hexatile_island"])
        g = tables_geometry(rules)
        data = dict(tr.data, island=g.cells[island] if island >= 0 else None)
        return Trace(self.name, dict(rules), tr.seat_names, game_index, run_seed,
                     self._placements(rules, tr), row, data)

    def _placements(self, rules, tr: Trace) -> list[dict]:
        tb = self.tables(rules)
        names = tr.seat_names
        types = list(TP.TILE_TYPES)
        pos, rng = engine.start(tb, np.uint64(game_seed(np.uint64(tr.run_seed), np.int64(tr.game_index))))
        moves = []
        after_swap = False
        for seat, move, state in tr.data["rec"]:
            if move == engine.SWAP_MOVE:
                after_swap = True  # the next placement is the first player's, from the second seat
                continue
            st = pos.st
            if st[S.PHASE] == S.PH_PLACE:
                c, o = divmod(int(move), 12)
                m = {"seat": names[seat], "move": self.describe(rules, seat, int(move)),
                     "cell": tables_geometry(rules).cells[c], "tile": types[o // 6], "rotation": o % 6}
                if rules["tile_choice"] == "bag":
                    m["drawn"] = types[st[S.DRAWN]]
                    m["redraw"] = bool(st[S.REDRAWN])
                if st[S.PICKER] >= 0:
                    m["picked_by"] = names[st[S.PICKER]]
                    m["picked"] = types[st[S.DRAWN]]
                if after_swap:
                    m["after_swap"] = True  # replays and pictures show the swap before this move
                    after_swap = False
                moves.append(m)
            rng[0] = np.int64(state).view(np.uint64)
            engine.play(tb, pos, np.int64(move), rng)
        return moves

    def verify_trace(self, trace: Trace) -> None:
        """The engine's replay (every decision legal, the result row the position's), then the
        independent Python position API (position.py) on the placements."""
        from sim.games.hexatile.position import verify_trace

        super().verify_trace(trace)
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

    warm_parts = (("all", 59.0),)

    def warm(self, part: str = "all") -> None:
        """Compile the engine's drivers: random vs greedy, greedy vs greedy under the pie rule (the
        drivers with it), the search bot vs greedy."""
        rules = self.resolve_rules({}, "warm")
        seats = [SeatBot(b, {p.name: p.default for p in b.params}) for b in self.bots]
        self.play_chunk(rules, seats[:2], 0, 2, 1)
        self.play_chunk(self.resolve_rules({"swap": True}, "warm"), [seats[1], seats[1]], 0, 1, 1)
        self.play_chunk(rules, [seats[2], seats[1]], 0, 1, 1)


def tables_geometry(rules):
    """The board geometry (geometry.py) of a rule set."""
    return geometry(S.board_radius(rules))


def score_tiles(rules, tiles: dict, island=None) -> np.ndarray:
    """Kernel scoring of a hand-made position: tiles maps axial cell -> (tile type, rotation) or
    (tile type, rotation, seat), placed in that order (the seat completing a point matters under
    arrow_voids = "owner"; seat 0 when not given). Returns out[4, 8] per colour (see
    rules.score_board). For tests and designers."""
    g = tables_geometry(rules)
    types = list(TP.TILE_TYPES)
    cells = np.array([g.cell_index[c] for c in tiles], np.int64)
    orients = np.array([types.index(t[0]) * 6 + t[1] for t in tiles.values()], np.int64)
    seats = np.array([t[2] if len(t) > 2 else 0 for t in tiles.values()], np.int64)
    out = np.zeros((4, 8), np.int64)
    K.score_placed(tables(rules), cells, orients, seats, np.int64(-1 if island is None else g.cell_index[island]),
                   out)
    return out
