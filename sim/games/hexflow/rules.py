"""HEXFLOW parameter schema, bots and end reasons (one place: drives validation, docs, kernels)."""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.errors import VariantError
from sim.games.base import Bot, Param

from . import kernel as K
from .board import BOARD, CORNERS, DEFAULT_DOTS, dots_array, non_corner_hexes
from .tiles import N_TYPES, TILE_TYPES, orientation_tables, tile_set

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
    Param("hand_size", "int", 3, "Tiles in hand (refilled after each turn while the bag lasts).",
          low=1, high=6, seed_text="Each player draws 3 tiles to form a starting hand."),
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

END_REASONS = ("path", "opponent_path", "blocked", "self_blocked", "both_blocked",
               "stalemate_closest", "stalemate_draw", "no_move_loss", "turn_cap", "stalemate_score")


def validate(rules: dict[str, Any], where: str) -> None:
    if rules["mode"] in ("tri", "tri2p"):
        if rules["dots"] == "list" or rules["dot_list"]:
            raise VariantError(f"{where}: [rules] dots = 'list' / dot_list are Race-mode only; "
                               f"allowed in mode {rules['mode']!r}: dots = 'default', 'none', "
                               f"'random'")
        return
    if rules["dots"] == "list":
        if not rules["dot_list"]:
            raise VariantError(f"{where}: [rules] dots = 'list' needs a non-empty dot_list")
        seen = set()
        for entry in rules["dot_list"]:
            ok = (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                  and isinstance(entry[1], int) and not isinstance(entry[1], bool))
            if not ok or entry[0] not in BOARD.names or not 2 <= entry[1] <= 5:
                raise VariantError(f"{where}: [rules] dot_list entry {entry!r}; allowed: "
                                   f"[hex, dots] with hex one of a1..i9 (b..h to 10), dots 2..5")
            if entry[0] in seen:
                raise VariantError(f"{where}: [rules] dot_list names hex {entry[0]!r} twice")
            seen.add(entry[0])
    elif rules["dot_list"]:
        raise VariantError(f"{where}: [rules] dot_list is only used with dots = 'list' "
                           f"(dots = {rules['dots']!r})")


def warnings(rules: dict[str, Any]) -> list[str]:
    if rules["mode"] in ("tri", "tri2p"):
        return tri_warnings(rules)
    out = [
        "hexflow: the card ends the game 'if all 85 hexes fill', but 2 x 22 = 44 tiles cannot fill "
        "85 hexes; the game ends when no player can place and stalemate_rule decides.",
        "hexflow: 'No passing ... Skipping is never allowed' cannot hold when no legal placement "
        f"exists; no_move = {rules['no_move']!r} decides.",
        "hexflow: the Block has no lines, so it can never satisfy the line-connection rule; "
        f"block_placement = {rules['block_placement']!r} decides.",
    ]
    if rules["block_placement"] == "connected":
        out.append("hexflow: with block_placement = 'connected' Block tiles are never placeable "
                   "and stay in hand for the whole game.")
    return out


def tri_warnings(rules: dict[str, Any]) -> list[str]:
    n = rules["board_side"]
    out = [
        f"hexflow tri: the card's '14 hexes per side', '91 hexes' and '3 centre hexes' cannot all "
        f"hold (side 14 = 105 hexes, 3 centre hexes; side 13 = 91 hexes, 1 centre hex); "
        f"board_side = {n} gives {n * (n + 1) // 2} hexes.",
        "hexflow tri: the card's draw list starts 'If all 91 hexes fill', which the tiles cannot "
        "do; it is applied when no player can place.",
    ]
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
    if rules["dots"] in ("default", "random"):
        return dots_array(DEFAULT_DOTS)
    if rules["dots"] == "none":
        return dots_array(())
    return dots_array([tuple(e) for e in rules["dot_list"]])


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
