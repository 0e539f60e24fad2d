"""HEXFLOW parameter schema, bots and end reasons (one place: drives validation, docs, kernels)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.errors import VariantError
from sim.games.base import SWAP, Bot, Param

from . import kernel as K
from .board import BOARD, BOARD_COLUMNS, CORNERS, DEFAULT_DOTS, board_of, dots_array, non_corner_hexes
from .tiles import N_TYPES, TILE_TYPES, TYPE_BY_NAME, orientation_tables, tile_set
from .triboard import TRI2P_SEATS, TRI_DISTRIBUTION, TRI_SEATS, tri_board

# the entries of a [rules.tiles.<type>] table and their ranges
TILE_KEYS = {"count": (0, 4), "points": (0, 10)}
# the 3-player Tri-Board's hand-only tile: [rules.tiles.wildcard] count (game.validate: tri only)
WILDCARD_NAME = "wildcard"


@dataclass(frozen=True)
class TilesParam(Param):
    """`tiles`: a table by tile type of {count, points}, each one number or a table by seat name
    (`[rules.tiles.block] count = 0`, `[rules.tiles.star6] points = { A = 5, B = 4 }`). `check`
    reads the shape and the ranges; the seat names and the canonical form (entries equal to the
    default dropped, so a table that changes nothing plays and hashes as none) come in
    `canonical_tiles`, once the other rules are known."""

    def allowed(self) -> str:
        return (f"a table by tile type ({', '.join(TYPE_BY_NAME)}) of count (0..4; default "
                f"copies_per_type) and points (0..10; default the card's), each a whole number or "
                f"a table by seat name")

    def check(self, value: Any, where: str) -> Any:
        if not isinstance(value, dict):
            raise VariantError(f"{where}: tiles = {value!r} is {type(value).__name__}; allowed: "
                               f"{self.allowed()}")
        out = {}
        for name, entry in value.items():
            if name not in TYPE_BY_NAME and name != WILDCARD_NAME:
                raise VariantError(f"{where}: tiles.{name}: no such tile type; allowed: "
                                   f"{', '.join(TYPE_BY_NAME)} (and {WILDCARD_NAME} in mode 'tri')")
            if not isinstance(entry, dict):
                raise VariantError(f"{where}: tiles.{name} = {entry!r}; allowed: a table of "
                                   f"count and/or points, e.g. [rules.tiles.{name}] count = 1")
            out[name] = {}
            for key, v in entry.items():
                if key not in TILE_KEYS:
                    raise VariantError(f"{where}: tiles.{name}.{key}: unknown; allowed: "
                                       f"{', '.join(TILE_KEYS)}")
                lo, hi = TILE_KEYS[key]
                for seat, x in (v.items() if isinstance(v, dict) else [(None, v)]):
                    at = f"tiles.{name}.{key}" + (f".{seat}" if seat is not None else "")
                    if not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi:
                        raise VariantError(f"{where}: {at} = {x!r}; allowed: a whole number in "
                                           f"[{lo}, {hi}]" + ("" if seat is not None else
                                                              " or a table by seat name"))
                out[name][key] = dict(v) if isinstance(v, dict) else v
        return out

PARAMS: tuple[Param, ...] = (
    Param("mode", "str", "race",
          "Game mode: Race (2 players, diagonal corners), Battle (left edge against right edge, "
          "transit rule, displacement), Tri-Board for 3 players ('tri') or the 2-player "
          "Tri-Board variant ('tri2p').",
          choices=("race", "battle", "tri", "tri2p"),
          seed_text="HEXFLOW -- Reference Cards (Race, Battle, Tri-Board)"),
    Param("block_placement", "str", "adjacent",
          "A Block needs only an adjacent tile ('adjacent') or, like every tile, a line "
          "connection it can never have ('connected': Blocks are never placeable).",
          choices=("adjacent", "connected"),
          seed_text="Connection: At least one line on your tile must connect to a line on an "
                    "adjacent tile already on the board."),
    Param("blocked_player_loses", "bool", True,
          "After a placement, a player who can no longer complete any path (through empty hexes "
          "and existing compatible lines) loses (Race and tri2p; the 3-player tri ignores it).",
          seed_text="another Auto win is if a player places a block tile and stops their "
                    "opponents line and they have no other branches"),
    Param("block_win_trigger", "str", "any_tile",
          "Which placements can trigger the blocked-player loss: any tile that cuts the last way "
          "('any_tile') or only a Block tile ('block_tile', the card's literal wording).",
          choices=("any_tile", "block_tile"),
          seed_text="if a player places a block tile and stops their opponents line"),
    Param("stalemate_rule", "str", "closest",
          "When no one can place: the player whose corner network comes nearest (hex distance) "
          "to their other corner wins, tie = draw ('closest'); or always a draw ('draw').",
          choices=("closest", "draw"),
          seed_text="Draw: If all 85 hexes fill with no winner, the player whose longest connected "
                    "chain reaches furthest toward the opposing corner wins. If equal, it's a draw."),
    Param("no_move", "str", "pass",
          "A player holding tiles but with no legal placement passes (recorded) or loses.",
          choices=("pass", "lose"),
          seed_text="No passing: You must place exactly one tile per turn. Skipping is never "
                    "allowed."),
    Param("dots", "str", "default",
          "Dot hexes: the symmetric default layout, none, a random layout each game (the default "
          "layout's dot counts on random non-corner hexes), or dot_list.",
          choices=("default", "none", "random", "list"),
          seed_text="Dot hexes multiply the base score of 10 points (tournament play)."),
    Param("dot_list", "list", [],
          "Explicit dot hexes when dots = 'list': [[hex, dots], ...], hex like 'e5', dots 2..5.",
          seed_text="Dots Multiplier Score: 2 x3 ... 5 x6"),
    Param("first_player", "str", "random",
          "Who places first: coin flip ('random'; the winner is taken to choose first), or fixed.",
          choices=("random", "A", "B"),
          seed_text="Flip a coin to determine first player. Winner chooses to play first or second."),
    Param("hand_size", "int", 3,
          "Tiles in hand (refilled after each turn while the bag lasts); per seat in Race and "
          "Battle and the Tri modes, e.g. { A = 3, B = 4 } or { III = 4 }.",
          low=1, high=6, per_seat=True, seed_text="Each player draws 3 tiles to form a starting hand."),
    Param("copies_per_type", "int", 2, "Copies of each of the 11 tile types per player.",
          low=1, high=4, seed_text="22 tiles per player (2 copies each of 11 types)"),
    Param("board_side", "int", 14,
          "Tri modes: hexes per side of the triangle (14: 105 hexes, 3 centre hexes; 13: the "
          "card's 91 hexes but a single centre hex).",
          low=7, high=20,
          seed_text="Hexes per side 14 / Total hexes 91 / Centre hexes 3"),
    Param("shared_victory", "str", "shared",
          "Tri modes: players joining DIFFERENT centre hexes with one placement all win "
          "('shared'), or the same-centre tiebreak decides among all of them ('tiebreak').",
          choices=("shared", "tiebreak"),
          seed_text="Two players can each connect to different centre hexes simultaneously. In "
                    "casual play, this is a shared victory."),
    Param("wildcard_block", "bool", True,
          "Tri mode: the Wildcard may be declared a Block (the Block is one of the 11 standard "
          "types of the tile guide); false = only line tiles.",
          seed_text="Wildcard: Declared as any standard tile type at placement."),
    Param("corner_block", "str", "reaches",
          "Tri modes, the draw list: a Block on a seat's own corner is its corner tile (reach = the "
          "corner's hexes to the nearest centre hex, the Block's points and dot count: 'reaches'), "
          "or no path, as a Block carries no line (no reach, 0 points, as a bare corner: 'no_path').",
          choices=("reaches", "no_path"), omit_default=True,
          seed_text="Closest to Centre: Count tiles in longest connected path toward any centre "
                    "hex. Fewest remaining hexes wins."),
    Param("max_turns", "int", 400,
          "Safety cap on turns (placements and passes); a capped game is a draw (turn_cap).",
          low=10, high=5000, seed_text="(not in the text: a simulator safeguard)"),
    # ---- Battle mode only (Race ignores these) ----
    Param("battle_goal", "str", "edge",
          "Battle: where a path ends: any hex of the far edge column ('edge': A column i, B "
          "column a) or one of the opponent's starting corners ('corners').",
          choices=("edge", "corners"),
          seed_text="First player to complete a valid, transit-compliant path from their starting "
                    "side to the opponent's side wins immediately."),
    Param("battle_start", "str", "corners",
          "Battle: where a path starts: one of the player's two starting corners ('corners': A "
          "a1/a9, B i1/i9) or any hex of the player's own edge column ('edge').",
          choices=("corners", "edge"),
          seed_text="Player A starts from both left-side corners (top-left & bottom-left)."),
    Param("battle_transit_home", "str", "allowed",
          "Battle: may a path use an opponent tile standing in the player's OWN territory? "
          "'allowed' (only the opponent's territory is forbidden) or 'forbidden' (the "
          "transit-valid list is exhaustive).",
          choices=("allowed", "forbidden"),
          seed_text="Transit-Valid: Your own tiles (anywhere) + Any tile in the Contested Zone "
                    "(columns 4-6) + Your starting corner hexes. Transit-Invalid: Opponent-placed "
                    "tiles located in their Territory"),
    Param("battle_tokens", "int", 3,
          "Battle: displacement tokens per player (0 = no displacement).", low=0, high=22,
          seed_text="Each player takes 3 displacement tokens."),
    Param("battle_orphan", "str", "line",
          "Battle: a displacement is forbidden if a tile that had a line connection would have "
          "none after it ('line'), or never ('off').",
          choices=("line", "off"),
          seed_text="Displacement would not orphan any tiles on the board"),
    Param("battle_capture_points", "int", 2, "Battle: stalemate points per captured tile.",
          low=0, high=10, seed_text="Per Capture 2 pts"),
    Param("battle_stalemate_length", "str", "chain",
          "Battle: what L counts in the stalemate score: the tiles of the player's best transit-valid "
          "line chain touching a start hex (chain: every tile joined to it, branches included), or of "
          "the best simple line path from a start hex (path: one line through, as the card says).",
          choices=("chain", "path"), omit_default=True,
          seed_text="Longest transit-valid path toward goal (per tile) 1 pt each"),
    # ---- rule numbers as data (each mode reads its own: game.MODE_PARAMS) ----
    TilesParam("tiles", "table", {},
               "Race, Battle and the Tri modes: the tile mix per type, [rules.tiles.<type>] count "
               "= N (0..4 copies in each player's bag, default copies_per_type, in tri the card's "
               "list; 0 leaves the type out, the Block too; tri also takes wildcard) and points "
               "(0..10, default the card's; the Tri modes' tiebreak and draw list sum them, a tile "
               "worth its placer's points; no Race or Battle rule reads them, so both refuse "
               "them), each one number or a table by seat name, e.g. count = { A = 2, B = 1 }.",
               omit_default=True,
               seed_text="22 tiles per player (2 copies each of 11 types)"),
    Param("base_score", "int", 10,
          "Race: the tournament base score a win is worth; a path's dot multipliers multiply it. "
          "Battle: the score of a path (or no-move) win. Tri modes: a win's score before the "
          "path's dot bonuses are added.",
          low=1, high=1000, omit_default=True,
          seed_text="Dot hexes multiply the base score of 10 points (tournament play)."),
    Param("dot_multipliers", "table", {"2": 3, "3": 4, "4": 5, "5": 6},
          "Race: the multiplier of a dot hex on the scored path, by its dots (the path's score is "
          "base_score x the sum of the multipliers of its dot hexes; 0 = that dot hex scores "
          "nothing). The best-scoring path is searched with these values. Battle: the multipliers "
          "of the stalemate score (L x the sum over the chain's dot hexes).",
          low=0, high=50, omit_default=True,
          seed_text="Dots Multiplier Score: 2 x3 ... 5 x6"),
    Param("dot_bonuses", "table", {"2": 3, "3": 4, "4": 5, "5": 6},
          "Tri modes: the flat bonus of a dot hex on the winner's scored path, by its dots (a path "
          "win scores base_score + the sum of the bonuses of its dot hexes; 0 = that dot hex adds "
          "nothing). The best-scoring path is searched with these values.",
          low=0, high=50, omit_default=True,
          seed_text="Dot hexes award flat bonus points (not multipliers). Base win = 10 pts."),
    Param("board_columns", "int", 9,
          "Race and Battle: columns of the board (odd; the card's is 9, 85 hexes). Columns keep "
          "the card's heights (alternately 9 and 10 hexes), corners stay the top and bottom hexes "
          "of the outer columns; any width but 9 needs dots = 'none', 'random' or a dot_list (the "
          "default layout is the 9-column board's). Battle: the middle three columns are "
          "contested, the rest split evenly between the two territories.",
          choices=BOARD_COLUMNS, omit_default=True,
          seed_text="9x9 Main Board -- 85 hexes"),
    Param("opponent_corners", "str", "open",
          "Race: may a player place a tile on the opponent's starting corners while they are "
          "still empty? 'open' (as written: yes, so a Block there cuts the opponent off at once) "
          "or 'reserved' (only their owner may fill them, as on the Tri-Board).",
          choices=("open", "reserved"), omit_default=True,
          seed_text="Player A owns corners A (bottom-left & top-right). Player B owns corners B "
                    "(top-left & bottom-right)."),
    Param("first_tile", "str", "any",
          "Race: which tiles may be a player's first: 'any' (as written, so a Block, or a tile whose "
          "lines all point off the board, is legal and cuts the player off at once) or 'onto_board' "
          "(the first tile must carry a line end facing a hex of the board; a Block never may).",
          choices=("any", "onto_board"), omit_default=True,
          seed_text="Your first tile must go on one of your starting corner hexes."),
    SWAP,
)

BOTS: tuple[Bot, ...] = (
    Bot("random", K.BOT_RANDOM, "Uniform over legal placements (distinct hex, tile, rotation)."),
    Bot("greedy", K.BOT_GREEDY,
        "Distance-map player: scores each placement by own vs opponent completion cost, "
        "wins at once when it can, blocks when that pays.",
        (Param("block_weight", "float", 1.5,
               "Weight of raising the opponent's completion cost against lowering one's own.",
               low=0.0, high=10.0),
         Param("defense", "float", 3.0,
               "Penalty (in hexes of completion cost) for leaving the opponent a hex that would "
               "cut this player off: an own cut hex next to a tile, or a corner network with a "
               "single open line end.",
               low=0.0, high=20.0),
         Param("token_cost", "float", 1.0,
               "Battle: completion-cost gain (in hexes) a displacement must bring over the best "
               "plain placement before the greedy spends a token on it.",
               low=0.0, high=20.0),
         Param("stalemate_weight", "float", 0.1,
               "Battle: weight of the stalemate score a move gains (own chain grown, captures, "
               "opponent chain tiles taken) against completion cost.",
               low=0.0, high=10.0))),
)
N_BOT_PARAMS = 4
# Race only (race.py; game.py refuses it in other modes): greedy's two Race parameters
LOOKAHEAD = Bot(
    "lookahead", K.BOT_LOOKAHEAD,
    "Greedy that looks one opponent reply ahead: takes an immediate win, plays greedy's move unless "
    "the opponent could answer it with a winning placement (any tile the opponent may hold: its hand "
    "is hidden), and then the best move by greedy's measure that hands over no immediate win. "
    "Race mode only.",
    BOTS[1].params[:2])

END_REASONS = K.END_REASONS  # the end reasons of every mode (kernel.py: each E_* code indexes it)


def canonical_tiles(rules: dict[str, Any], where: str, seats: list[str]) -> dict[str, Any]:
    """rules["tiles"] in its canonical form: per type and key the value every seat holds, or a
    table of every seat when they differ; entries equal to the default (count = copies_per_type,
    points = the card's) dropped, so a table that changes nothing is {} (the default: it plays,
    and hashes, as no table). Refuses seat names these rules do not seat."""
    out: dict[str, Any] = {}
    for name, entry in rules["tiles"].items():
        default = {"count": default_count(rules, name),
                   "points": TILE_TYPES[TYPE_BY_NAME[name]].points if name in TYPE_BY_NAME else None}
        for key, v in entry.items():
            if isinstance(v, dict):
                bad = [k for k in v if k not in seats]
                if bad:
                    raise VariantError(f"{where}: [rules] tiles.{name}.{key}.{bad[0]}: no such "
                                       f"seat; seats here: {', '.join(seats)}")
                per = [v.get(seat, default[key]) for seat in seats]
                v = per[0] if len(set(per)) == 1 else dict(zip(seats, per, strict=True))
            if v != default[key]:
                out.setdefault(name, {})[key] = v
    return out


def default_count(rules: dict[str, Any], name: str) -> int:
    """Copies of a tile type in a bag when tiles.<name>.count is not set: copies_per_type (the
    Wildcard: none), or in the 3-player Tri-Board the card's list (triboard.TRI_DISTRIBUTION)."""
    if rules["mode"] == "tri":
        from .triboard import TRI_DISTRIBUTION

        return dict(TRI_DISTRIBUTION).get(name, 0)
    return 0 if name == WILDCARD_NAME else rules["copies_per_type"]


def _by_seat(rules: dict[str, Any], key: str, seats: list[str], default) -> np.ndarray:
    """int64[seats, N_TYPES]: a tiles key (count or points) of every type for every seat."""
    out = np.zeros((len(seats), N_TYPES), np.int64)
    for t, tt in enumerate(TILE_TYPES):
        v = rules["tiles"].get(tt.name, {}).get(key, default(tt))
        for q, seat in enumerate(seats):
            out[q, t] = v[seat] if isinstance(v, dict) else v
    return out


def tile_counts(rules: dict[str, Any], seats: list[str]) -> np.ndarray:
    """int64[seats, N_TYPES]: copies of each type in each seat's bag (tiles.<type>.count, else
    copies_per_type)."""
    return _by_seat(rules, "count", seats, lambda tt: default_count(rules, tt.name))


def tile_points(rules: dict[str, Any], seats: list[str]) -> np.ndarray:
    """int64[seats, N_TYPES]: each type's points for each seat (tiles.<type>.points, else the
    card's), for the modes whose rules count tile points."""
    return _by_seat(rules, "points", seats, lambda tt: tt.points)


def tile_sets(rules: dict[str, Any], seats: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(int64[seats, most tiles], int64[seats]): each seat's tiles before the shuffle, in type
    order (as tiles.tile_set: the default is copies_per_type of each type), padded with -1, and
    how many each seat has."""
    counts = tile_counts(rules, seats)
    sizes = counts.sum(axis=1)
    out = np.full((len(seats), max(1, int(sizes.max()))), -1, np.int64)
    for q in range(len(seats)):
        out[q, :sizes[q]] = np.repeat(np.arange(N_TYPES, dtype=np.int64), counts[q])
    return out, sizes.astype(np.int64)


def dot_multiplier_table(rules: dict[str, Any], key: str = "dot_multipliers") -> np.ndarray:
    """int64[6]: the path multiplier (Race) or, key = "dot_bonuses", flat bonus (the Tri modes)
    of a hex by its dots (0 and 1 dot: 0, a plain hex)."""
    out = np.zeros(6, np.int64)
    for k, v in rules[key].items():
        out[int(k)] = v
    return out


def hand_sizes(rules: dict[str, Any], seats: list[str]) -> list[int]:
    """Each seat's hand size (hand_size: one value or a table by seat)."""
    v = rules["hand_size"]
    return [v[s] for s in seats] if isinstance(v, dict) else [v] * len(seats)


def validate(rules: dict[str, Any], where: str) -> None:
    if rules["mode"] in ("tri", "tri2p"):
        if rules["dots"] == "list" or rules["dot_list"]:
            raise VariantError(f"{where}: [rules] dots = 'list' / dot_list are Race-mode only; "
                               f"allowed in mode {rules['mode']!r}: dots = 'default', 'none', "
                               f"'random'")
        return
    cols = rules["board_columns"]  # Race and Battle
    board = board_of(cols)
    if cols != 9 and rules["dots"] == "default":
        raise VariantError(f"{where}: [rules] board_columns = {cols}: the default dot layout is the "
                           f"9-column board's; allowed with board_columns = {cols}: dots = 'none', "
                           f"'random' or 'list' (with a dot_list)")
    if rules["dots"] == "list":
        if not rules["dot_list"]:
            raise VariantError(f"{where}: [rules] dots = 'list' needs a non-empty dot_list")
        seen = set()
        last = chr(ord("a") + cols - 1)
        odd = "".join(chr(ord("a") + c) for c in range(1, cols, 2))
        for entry in rules["dot_list"]:
            ok = (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                  and isinstance(entry[1], int) and not isinstance(entry[1], bool))
            if not ok or entry[0] not in board.names or not 2 <= entry[1] <= 5:
                raise VariantError(f"{where}: [rules] dot_list entry {entry!r}; allowed: "
                                   f"[hex, dots] with hex one of a1..{last}9 ({odd[0]}..{odd[-1]} "
                                   f"to 10), dots 2..5")
            if entry[0] in seen:
                raise VariantError(f"{where}: [rules] dot_list names hex {entry[0]!r} twice")
            seen.add(entry[0])
    elif rules["dot_list"]:
        raise VariantError(f"{where}: [rules] dot_list is only used with dots = 'list' "
                           f"(dots = {rules['dots']!r})")


def unfillable(rules: dict[str, Any], label: str, quote: str, then: str) -> list[str]:
    """The warning that the card's "if all N hexes fill" cannot happen, when the tiles of every
    bag (these rules' counts) are fewer than the hexes of the board these rules build; else none."""
    if rules["mode"] in ("tri", "tri2p"):
        tiles = int(tri_tile_sets(rules, list(tri_seats(rules)))[1].sum())
        hexes = tri_board(rules["board_side"]).size - (rules["mode"] == "tri2p")  # tri2p: no corner I
    else:
        tiles = int(tile_counts(rules, ["A", "B"]).sum())
        hexes = board_of(rules["board_columns"]).size
    if tiles >= hexes:
        return []
    return [f"{label}: {quote} cannot happen: {tiles} tiles cannot fill {hexes} hexes; {then}"]


def warnings(rules: dict[str, Any]) -> list[str]:
    """Race's warnings (tri_warnings in the Tri modes)."""
    if rules["mode"] in ("tri", "tri2p"):
        return tri_warnings(rules)
    return unfillable(rules, "hexflow", "the card's end 'if all 85 hexes fill'",
                      "the game ends when no player can place and stalemate_rule decides.") + line_warnings(rules)


def line_warnings(rules: dict[str, Any]) -> list[str]:
    """The warnings of Race and Battle about placing: passes and the Block."""
    out = [
        "hexflow: 'No passing ... Skipping is never allowed' cannot hold when no legal placement "
        f"exists; no_move = {rules['no_move']!r} decides.",
        "hexflow: the Block has no lines, so it can never satisfy the line-connection rule; "
        f"block_placement = {rules['block_placement']!r} decides.",
    ]
    if rules["block_placement"] == "connected":
        out.append("hexflow: with block_placement = 'connected' Block tiles are never placeable "
                   "and stay in hand for the whole game.")
    return out


def battle_warnings(rules: dict[str, Any]) -> list[str]:
    """Battle's own warnings (with line_warnings): the transit rule's reading, the full board, the
    displacing Block."""
    return [
        "hexflow battle: the transit-valid list (own tiles, contested zone, own corners) and the "
        "transit-invalid rule (opponent tiles in THEIR territory) disagree on opponent tiles in "
        f"your own territory; battle_transit_home = {rules['battle_transit_home']!r} decides.",
    ] + unfillable(rules, "hexflow battle", "the card's 'If all 85 hexes fill'",
                   "the stalemate score is taken when neither player can place.") + [
        "hexflow battle: the card says the Block 'Displaces any adjacent opponent tile' but also "
        "'Block immunity: the Block tile cannot carry any path': a displacing Block takes the "
        "target's hex and carries no line.",
    ]


def tri_warnings(rules: dict[str, Any]) -> list[str]:
    n = rules["board_side"]
    out = [
        f"hexflow tri: the card's '14 hexes per side', '91 hexes' and '3 centre hexes' cannot all "
        f"hold (side 14 = 105 hexes, 3 centre hexes; side 13 = 91 hexes, 1 centre hex); "
        f"board_side = {n} gives {n * (n + 1) // 2} hexes.",
    ] + unfillable(rules, "hexflow tri", "the card's draw list 'If all 91 hexes fill'",
                   "the list is applied when no player can place.")
    if rules["mode"] == "tri":
        out.append("hexflow tri: 'Tile Distribution (18 tiles each)' lists quantities that sum to "
                   "17; the list is used as given (17 tiles each).")
    from .triboard import tri_board

    tb = tri_board(n)
    far = {name: min(int(tb.board.dist[c, x]) for x in tb.centres) for name, c in tb.corner.items()}
    if len(set(far.values())) == 1:
        out.append(f"hexflow tri: the card's 'Asymmetric distances balanced through reverse turn "
                   f"order' does not hold on the triangle as built: every corner is "
                   f"{next(iter(far.values()))} hexes from its nearest centre hex (board_side = {n}); "
                   "the reverse turn order (III, II, I) is kept as the card says.")
    return out


def dots_for(rules: dict[str, Any]) -> np.ndarray:
    """The fixed dot layout of these rules (dots = 'random' lays the default's dots afresh each
    game; on boards other than 9 columns the default layout is refused, see validate)."""
    cols = rules.get("board_columns", 9)
    if rules["dots"] == "none" or rules["dots"] == "random" and cols != 9:
        return dots_array((), cols)
    if rules["dots"] in ("default", "random"):
        return dots_array(DEFAULT_DOTS)
    return dots_array([tuple(e) for e in rules["dot_list"]], cols)


class Tables:
    """Every array the kernel needs, built once per rule set."""

    def __init__(self, rules: dict[str, Any]):
        self.n_orient, self.rot_of, self.net_mask = (a.astype(np.int64) for a in orientation_tables())
        self.emask = (self.net_mask[:, :, 0] | self.net_mask[:, :, 1]).astype(np.int64)
        self.nbr = BOARD.nbr.astype(np.int64)
        self.dist = BOARD.dist.astype(np.int64)
        self.corners = CORNERS.copy()
        self.tileset = tile_set(rules["copies_per_type"]).astype(np.int64)
        self.dots = dots_for(rules)
        self.dot_pool = np.array([d for _, d in DEFAULT_DOTS], dtype=np.int64)
        self.free = non_corner_hexes()
        cfg = np.zeros(K.N_CFG, dtype=np.int64)
        cfg[K.C_HAND] = rules["hand_size"]
        cfg[K.C_BLOCK_CONNECTED] = rules["block_placement"] == "connected"
        cfg[K.C_BLOCKED_LOSES] = rules["blocked_player_loses"]
        cfg[K.C_STALEMATE] = ("closest", "draw").index(rules["stalemate_rule"])
        cfg[K.C_NO_MOVE] = ("pass", "lose").index(rules["no_move"])
        cfg[K.C_FIRST] = ("random", "A", "B").index(rules["first_player"])
        cfg[K.C_MAX_TURNS] = rules["max_turns"]
        cfg[K.C_DOTS_RANDOM] = rules["dots"] == "random"
        cfg[K.C_BLOCK_CHECK] = ("any_tile", "block_tile").index(rules["block_win_trigger"])
        self.cfg = cfg


def column_names() -> list[tuple[str, int, Any]]:
    """(column name, kernel output index, dtype) of every outcome column."""
    cols = [("winner", K.O_WINNER, np.int8), ("end_reason", K.O_REASON, np.int8),
            ("turns", K.O_TURNS, np.int32), ("first_seat", K.O_FIRST, np.int8),
            ("score_A", K.O_SCORE_A, np.int32), ("score_B", K.O_SCORE_B, np.int32),
            ("hexflow_passes_A", K.O_PASS_A, np.int16), ("hexflow_passes_B", K.O_PASS_B, np.int16),
            ("hexflow_blocks_A", K.O_BLOCKS_A, np.int8), ("hexflow_blocks_B", K.O_BLOCKS_B, np.int8),
            ("hexflow_path_completed", K.O_COMPLETED, np.bool_),
            ("hexflow_path_len", K.O_PATH_LEN, np.int16),
            ("hexflow_path_dot_hexes", K.O_PATH_DOT_HEXES, np.int8),
            ("hexflow_path_dots", K.O_PATH_DOTS, np.int16),
            ("hexflow_reach_A", K.O_DIST_A, np.int8), ("hexflow_reach_B", K.O_DIST_B, np.int8)]
    for s, seat in enumerate("AB"):
        for t in range(N_TYPES):
            cols.append((f"hexflow_tiles_{seat}_{TILE_TYPES[t].name}", K.O_TILES + s * N_TYPES + t,
                         np.int8))
    return cols


N_OUT = K.O_TILES + 2 * N_TYPES


# ---- the Tri modes' bags (tri_engine builds its tables from them) --------------------------------
WILD = 11  # the Wildcard's tile code in the Tri modes' bags


def tri_seats(rules) -> tuple[str, ...]:
    return TRI_SEATS if rules["mode"] == "tri" else TRI2P_SEATS


def tri_tile_sets(rules, seats) -> tuple[np.ndarray, np.ndarray]:
    """(int64[seats, most tiles], int64[seats]): each seat's tiles before the shuffle, padded with
    -1, and how many: tri lists the card's distribution in its order (triboard.TRI_DISTRIBUTION,
    the Wildcard as WILD), tri2p copies_per_type of each type in type order, each count replaced
    by [rules.tiles.<type>] count (rules.tile_counts; the Wildcard's: tiles.wildcard.count). At
    the defaults every row is triboard.tri_tile_set() (tri) or tiles.tile_set() (tri2p)."""
    counts = tile_counts(rules, seats)
    wild = rules["tiles"].get(WILDCARD_NAME, {}).get("count", default_count(rules, WILDCARD_NAME))
    names = [n for n, _ in TRI_DISTRIBUTION] if rules["mode"] == "tri" else list(TYPE_BY_NAME)
    rows = []
    for q, seat in enumerate(seats):
        row = []
        for name in names:
            if name == WILDCARD_NAME:
                row += [WILD] * (wild[seat] if isinstance(wild, dict) else wild)
            else:
                row += [TYPE_BY_NAME[name]] * int(counts[q, TYPE_BY_NAME[name]])
        rows.append(row)
    sizes = np.array([len(r) for r in rows], np.int64)
    out = np.full((len(seats), max(1, int(sizes.max()))), -1, np.int64)
    for q, row in enumerate(rows):
        out[q, :len(row)] = row
    return out, sizes
