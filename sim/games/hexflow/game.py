"""The HEXFLOW Game object: schema, thin wrappers around the compiled kernel, traces, reports."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim import engine
from sim.engine import search
from sim.errors import VariantError
from sim.games.base import Game, SeatBot, Trace

from . import battle, battle_bots, battle_engine, battle_verify, race, race_bots, tri_bots, tri_engine  # noqa: F401  (race_bots, battle_bots, tri_bots: engine.implement)
from . import kernel as K
from . import rules as R
from . import verify as V
from .board import BOARD, SEATS, board_of
from .draw import draw_battle, draw_trace, draw_tri_trace
from .position import Position
from .report import battle_metrics, metrics, tri_metrics
from .tiles import TILE_TYPES
from .tri import tri_verify
from .triboard import tri_board


def _is_tri(rules) -> bool:
    return rules["mode"] in ("tri", "tri2p")


# The rule parameters each mode plays by: what rules.Tables (Race), battle._bcfg and
# battle_tables (Battle, with Race's tile and dot tables) and tri.TriTables put into the kernels'
# tables, and the kernels then read (tri2p has no Wildcard in its bag; the 3-player tri has its
# own bag, a fixed turn order, always passes and never applies the blocked-player loss). Any other
# key set off its default would change the variant hash and play the very same games: refused.
_EVERY_MODE = ("mode", "block_placement", "dots", "hand_size", "max_turns")
MODE_PARAMS: dict[str, tuple[str, ...]] = {
    "race": _EVERY_MODE + ("blocked_player_loses", "block_win_trigger", "stalemate_rule", "no_move",
                           "dot_list", "first_player", "copies_per_type", "tiles", "base_score",
                           "dot_multipliers", "board_columns", "opponent_corners", "first_tile", "swap"),
    "battle": _EVERY_MODE + ("no_move", "dot_list", "first_player", "copies_per_type", "battle_goal",
                             "battle_start", "battle_transit_home", "battle_tokens", "battle_orphan",
                             "battle_capture_points", "battle_stalemate_length", "tiles", "base_score",
                             "dot_multipliers", "board_columns", "swap"),
    "tri": _EVERY_MODE + ("stalemate_rule", "board_side", "shared_victory", "wildcard_block", "tiles",
                          "base_score", "dot_bonuses", "corner_block"),
    "tri2p": _EVERY_MODE + ("stalemate_rule", "board_side", "shared_victory", "blocked_player_loses",
                            "block_win_trigger", "copies_per_type", "tiles", "base_score", "dot_bonuses",
                            "swap", "corner_block"),
}
# why a mode refuses a rule number another mode reads (added to the one-line refusal)
MODE_REASONS = {
    ("tri", "dot_multipliers"): "Tri-Board dot hexes add flat bonuses, not multipliers (the card: 'Dot hexes "
                                "award flat bonus points (not multipliers)'): set dot_bonuses",
    ("race", "dot_bonuses"): "Race multiplies the base score by its dot hexes: set dot_multipliers",
    ("battle", "dot_bonuses"): "Battle's stalemate score multiplies by its dot hexes: set dot_multipliers",
    ("tri", "first_player"): "the card fixes the turn order: III first",
}
MODE_REASONS[("tri2p", "dot_multipliers")] = MODE_REASONS[("tri", "dot_multipliers")]
MODE_REASONS[("tri2p", "first_player")] = MODE_REASONS[("tri", "first_player")]
# modes that take a hand size by seat
PER_SEAT_HAND = ("race", "battle", "tri", "tri2p")


# why a mode reads no tile points (the tiles.<type>.points refusal says it)
NO_POINTS = {
    "race": "Race scores base_score x the dot multipliers of the path and breaks stalemates by hex distance",
    "battle": "Battle's stalemate score counts every tile of the chain as 1 whatever its type, plus the "
              "capture points and the dot multipliers; a path win scores base_score",
}


def _columns(res: np.ndarray) -> dict[str, np.ndarray]:
    return {name: res[:, idx].astype(dt) for name, idx, dt in R.column_names()}


# modes whose rules are engine functions (sim/engine/drivers.py; Battle's in battle_engine.py, Tri-Board's
# in tri_engine.py): every mode seats the search bot (ENGINE_BOTS: the modes each engine bot plays
# in; lookahead is Race's)
ENGINE_MODES = ("race", "battle", "tri", "tri2p")
ENGINE_BOTS = {search.BOT_MCTS: ENGINE_MODES, K.BOT_LOOKAHEAD: ("race",)}
# Race defaults of the search bot (docs/ladder.md, "The search bot"): greedy rollouts cut off after
# 3 decisions and scored by greedy's evaluation (a cost difference in hexes, so 3 hexes per
# logistic unit), little exploration (c = 0.3: about 40 moves share the budget), the root looking
# one ply ahead (prior_depth 1, prior 1: a softmax of the evaluation after each move); against
# greedy, seats rotated, 200 games: 76.1% of decisive games (74.4% without the look); four times
# the budget against this one 62.6% (100 games)
RACE_MCTS = {"iterations": 120, "c": 0.3, "rollout": "greedy", "rollout_depth": 3, "eval_scale": 3.0,
             "prior_depth": 1, "prior": 1.0}
# Battle's: Race's settings at 50 iterations (docs/rules/hexflow.md: 69.4% of decisive games
# against greedy, 4x the budget 66.5% against it, 1,000 games each; 13 games/s per core)
BATTLE_MCTS = {**RACE_MCTS, "iterations": 50}


# Tri-Board defaults of the search bot where they differ from Race's (docs/ladder.md), chosen by
# measurement against greedy: tri2p keeps Race's greedy rollouts cut after 3 decisions but scores
# the cut-off more softly (the Tri evaluation spans about -30..+45 hexes: 8 hexes per logistic
# unit) with twice the iterations, its root halving its moves on shared sampled worlds with a
# UCT tree below each move once it has had 16 playouts (root "hybrid", tree_after 16), the tree
# expanding greedy's reply first and widening slowly (prior_depth 2, policy_greedy 1, widening
# 0.3; no separate look for a win: a winning move's playouts find it): 72.3% of decisive games
# against greedy, 4x the budget 60.9% against it (1,000 games each). The 3-player tri
# plays uniform rollouts to the end (greedy's evaluation of a three-way race misleads the search:
# most games end by the draw list, not by a completion), and the root's look alone misleads it
# too (one mcts seat against two greedy: 22.4% of decisive games with it, 40.6% without, 150
# games each); half of the look's p on greedy's own move (policy_greedy 0.5) makes 42.3%
TRI_MCTS = {"tri2p": {"iterations": 240, "eval_scale": 8.0, "prior_depth": 2, "prior": 0.1, "root": "hybrid",
                      "policy_greedy": 1.0, "win_check": 0, "widening": 0.3, "tree_after": 16},
            "tri": {"iterations": 240, "rollout": "random", "rollout_depth": 0, "prior_depth": 1, "prior": 1.0,
                    "policy_greedy": 0.5}}
# each mode's settings of the search bot where they differ from Race's (HexflowGame.bot_defaults:
# a seat resolved in that mode starts from them)
MODE_MCTS = {"battle": {"iterations": BATTLE_MCTS["iterations"]}, **TRI_MCTS}


def _race_mcts() -> search.SearchBot:
    bot = search.mcts_bot(next(b for b in R.BOTS if b.code == K.BOT_GREEDY),
                          random=next(b for b in R.BOTS if b.code == K.BOT_RANDOM))
    params = tuple(dataclasses.replace(p, default=RACE_MCTS.get(p.name, p.default)) for p in bot.params)
    modes = "; ".join(f"{m}: " + ", ".join(f"{k} = {v!r}" for k, v in d.items()) for m, d in MODE_MCTS.items())
    race = {p.name: p.default for p in params}
    priors = "".join(f" In {m}, b{search.prior_doc({**race, **d})[1:]}" for m, d in MODE_MCTS.items()
                     if "prior_depth" in d or "prior" in d)
    return dataclasses.replace(bot, params=params, doc=bot.doc + (
        " HEXFLOW: every mode. The defaults shown are Race's; a seat in another mode starts from "
        f"that mode's own ({modes}), and a parameter the seat names keeps its value.{priors}"))


MCTS = _race_mcts()
ORACLE = search.oracle_bot(MCTS)  # sees every hand: the ceiling of skill, never a verdict seat


def _bag_sizes(rules: dict[str, Any], seats: Sequence[str]) -> list[int]:
    """Tiles in each seat's bag under these rules (the Tri modes: rules.tri_tile_sets)."""
    if _is_tri(rules):
        return R.tri_tile_sets(rules, list(seats))[1].tolist()
    return R.tile_counts(rules, list(seats)).sum(axis=1).tolist()


def race_by_player(cols: dict[str, np.ndarray], swapped: np.ndarray) -> dict[str, np.ndarray]:
    """Race columns from the position's seats to the players' where the pie rule swapped them
    (engine.exchange_seats, and the tile tallies hexflow_tiles_<seat>_<type>); the same call
    turns them back."""
    out = engine.exchange_seats(cols, swapped, list(SEATS))
    for tt in TILE_TYPES:
        a, b = f"hexflow_tiles_A_{tt.name}", f"hexflow_tiles_B_{tt.name}"
        out[a] = np.where(swapped, cols[b], cols[a]).astype(np.asarray(cols[a]).dtype)
        out[b] = np.where(swapped, cols[a], cols[b]).astype(np.asarray(cols[b]).dtype)
    return out


def _start(t, game_index, run_seed):
    """A game's start position and each seat's bag as dealt (draws only lower bagn, so a bag
    keeps its shuffled order: each seat's own tiles, then -1s)."""
    pos, rng = engine.start(t, np.uint64(engine.game_seed(np.uint64(run_seed), np.int64(game_index))))
    return pos, rng, [[int(x) for x in b[:n]] for b, n in zip(np.asarray(pos.bag), t.nbag, strict=True)]


def _replayed(t, rec, game_index, run_seed):
    """The final position of a traced game (its decisions replayed from its start) and the bags."""
    pos, rng, bags = _start(t, game_index, run_seed)
    for _, move, state in rec:
        if move == engine.SWAP_MOVE:  # the pie rule: the position does not change
            continue
        rng[0] = np.int64(state).view(np.uint64)
        engine.play(t, pos, np.int64(move), rng)
    return pos, bags


def _trace_moves(rec, pass_move, seat_names, describe, **pass_fields) -> list[dict[str, Any]]:
    """The move list of a traced game of any mode (the engine's decision records), in the format
    the verifiers, the pictures and `hexsim replay` read: turns numbered from 1, a pass as
    {seat, move "pass", turn, **pass_fields}, any other move as describe(seat, turn, move) gives
    it; a pie-rule swap (a record with engine.SWAP_MOVE, not a move) marks the move after it
    (`after_swap`, read by sim.games.seating)."""
    moves = []
    after_swap = False
    for seat, move, _ in rec:
        if move == engine.SWAP_MOVE:
            after_swap = True  # the next move is the first player's, from the second seat
            continue
        turn = len(moves) + 1
        if move == pass_move:
            m = {"seat": seat_names[seat], "move": "pass", "turn": turn, **pass_fields}
        else:
            m = describe(int(seat), turn, int(move))
        if after_swap:
            m["after_swap"] = True  # replays and pictures show the swap before this move
            after_swap = False
        moves.append(m)
    return moves


def _placement(seat, turn, h, tile, r, names=BOARD.names) -> dict[str, Any]:
    return {"seat": SEATS[seat], "turn": turn, "hex": names[h], "tile": TILE_TYPES[tile].name,
            "rotation": int(r), "move": f"{TILE_TYPES[tile].code}{r} {names[h]}"}


def _race_moves(t, rules, rec, pos) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A Race game's move list in the format the Position replay (verify_trace) and the pictures
    read, and its dots and scored path read off the final position."""
    names = board_of(rules["board_columns"]).names

    def describe(seat, turn, move):
        h, tile, r = move // (t.n_types * 6), (move // 6) % t.n_types, move % 6  # race.decode
        return _placement(seat, turn, h, tile, r, names)

    nodes = np.zeros(2 * t.nh + 1, np.int64)
    _, _, npath = race.path_nodes(t, pos, nodes)
    return _trace_moves(rec, t.pass_move, SEATS, describe), {
        "dots": np.asarray(pos.hx[race.H_DOTS]).tolist(), "path": [names[int(v) >> 1] for v in nodes[:npath]]}


def _battle_moves(t, rules, rec, pos) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A Battle game's move list in the format of battle_verify.verify and draw.draw_battle (kind
    place / displace / pass), and its dots."""
    names = board_of(rules["board_columns"]).names

    def describe(seat, turn, move):
        x = move // (t.n_types * 6)  # battle_engine.decode
        mv = _placement(seat, turn, x % t.nh, (move // 6) % t.n_types, move % 6, names)
        mv["kind"] = "displace" if x >= t.nh else "place"
        if x >= t.nh:
            mv["move"] += " (displaces)"
        return mv

    return _trace_moves(rec, t.pass_move, SEATS, describe, kind="pass"), {
        "dots": np.asarray(pos.hx[battle_engine.H_DOTS]).tolist()}


def _tri_moves(t, rules, rec, pos) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A Tri-Board game's move list (either mode) in the format the TriPosition replay
    (tri.tri_verify) and the pictures read, and its dots."""
    names = tri_board(rules["board_side"]).board.names
    seat_names = R.tri_seats(rules)

    def describe(seat, turn, move):
        h, wild, d, r = (int(x) for x in tri_engine.decode(t, move))
        code = TILE_TYPES[d].code
        return {"seat": seat_names[seat], "turn": turn, "hex": names[h], "tile": TILE_TYPES[d].name,
                "rotation": r, "wildcard": bool(wild), "move": f"{'W=' if wild else ''}{code}{r} {names[h]}"}

    return _trace_moves(rec, t.pass_move, seat_names, describe), {
        "dots": np.asarray(pos.hx[tri_engine.H_DOTS]).tolist()}


class HexflowGame(engine.EngineGame, Game):
    name = "hexflow"
    title = "HEXFLOW (Race, Battle, Tri-Board and 2-player Tri-Board)"
    description = ("Players lay line tiles; first to join their two diagonal corners (Race), "
                   "their side to the far side under the transit rule with displacement "
                   "(Battle), or their corner to a centre hex of the triangular Tri-Board wins.")
    params = R.PARAMS
    bots = (*R.BOTS, R.LOOKAHEAD, MCTS, ORACLE)
    end_reasons = R.END_REASONS
    end_reason_grouping = (("blocking", ("blocked", "self_blocked", "both_blocked")),
                           ("path", ("path", "opponent_path")),
                           ("stalemate", ("stalemate_closest", "stalemate_draw", "stalemate_score")))
    default_bot = "greedy"

    def seat_names(self, rules: dict[str, Any]) -> list[str]:
        if _is_tri(rules):
            return list(R.tri_seats(rules))
        return list(SEATS)

    def validate(self, rules: dict[str, Any], where: str) -> None:
        seats = self.seat_names(rules)
        rules["tiles"] = R.canonical_tiles(rules, where, seats)
        R.validate(rules, where)
        mode = rules["mode"]
        if isinstance(rules["hand_size"], dict) and mode not in PER_SEAT_HAND:
            raise VariantError(f"{where}: [rules] hand_size = {rules['hand_size']!r}: a hand size by "
                               f"seat is read in modes {', '.join(PER_SEAT_HAND)} only; allowed in mode "
                               f"{mode!r}: one whole number in [1, 6]")
        for name, entry in rules["tiles"].items():
            if "points" in entry and not _is_tri(rules):
                raise VariantError(
                    f"{where}: [rules] tiles.{name}.points = {entry['points']!r}: no rule of mode "
                    f"{mode!r} reads tile points ({NO_POINTS.get(mode, 'its scores count no tile type')}); "
                    f"allowed here: tiles.{name}.count")
            if name == R.WILDCARD_NAME and mode != "tri":
                raise VariantError(f"{where}: [rules] tiles.{name}: mode {mode!r} has no Wildcard (only "
                                   f"the 3-player Tri-Board's bag holds one); allowed in mode 'tri'")
            if name == R.WILDCARD_NAME and "points" in entry:
                raise VariantError(f"{where}: [rules] tiles.{name}.points: a Wildcard is worth its "
                                   f"declared type's points (the card); allowed: tiles.{name}.count")
        if mode in ("race", "battle", "tri", "tri2p"):
            for seat, n in zip(seats, _bag_sizes(rules, seats), strict=True):
                if n == 0:
                    raise VariantError(f"{where}: [rules] tiles: seat {seat}'s bag would be empty "
                                       f"(every count 0); allowed: at least one tile per seat")
        for p in self.params:
            if p.name not in MODE_PARAMS[mode] and rules[p.name] != p.default:
                why = MODE_REASONS.get((mode, p.name), "it would change the variant, not the games")
                raise VariantError(
                    f"{where}: [rules] {p.name} = {rules[p.name]!r} does not apply to mode {mode!r} "
                    f"({why}); leave it at its default "
                    f"{p.default!r}; mode {mode!r} uses: {', '.join(MODE_PARAMS[mode])}")

    def bot_defaults(self, rules: dict[str, Any], bot: str) -> dict[str, Any]:
        """The search bot's measured settings in this mode where they differ from Race's (MODE_MCTS);
        a seat that names a parameter keeps its value."""
        return dict(MODE_MCTS.get(rules["mode"], {})) if bot in (MCTS.name, ORACLE.name) else {}

    def check_seats(self, rules: dict[str, Any], seats: dict[str, SeatBot], where: str) -> None:
        """The search bot plays only in modes on the engine interface, lookahead only in Race."""
        for name, s in seats.items():
            modes = ENGINE_BOTS.get(s.bot.code)
            if modes is not None and rules["mode"] not in modes:
                raise VariantError(f"{where}: seats.{name}: bot {s.bot.name!r} is not available in mode "
                                   f"{rules['mode']!r}; allowed in modes: {', '.join(modes)}")

    def warnings(self, rules: dict[str, Any]) -> list[str]:
        if rules["mode"] == "battle":
            return R.line_warnings(rules) + R.battle_warnings(rules)
        return R.warnings(rules)

    # ---- the engine: each mode's tables and outcome columns (engine.EngineGame plays them) ------
    def tables(self, rules):
        if _is_tri(rules):
            return tri_engine.tables(rules)
        return battle_engine.tables(rules) if rules["mode"] == "battle" else race.tables(rules)

    def max_decisions(self, rules) -> int:
        return rules["max_turns"] + 2

    def outcome_columns(self, rules, rows) -> dict[str, np.ndarray]:
        if _is_tri(rules):
            return tri_engine.outcome_columns(rules, rows)
        return battle.columns(rows) if rules["mode"] == "battle" else _columns(rows)

    def by_player(self, rules, cols, swapped) -> dict[str, np.ndarray]:
        """Race's tile tallies and tri2p's shared-victory bits exchange too."""
        if _is_tri(rules):
            return tri_engine.by_player(rules, cols, swapped)
        return super().by_player(rules, cols, swapped) if rules["mode"] == "battle" else \
            race_by_player(cols, swapped)

    def play_traced(self, rules, seats, game_index, run_seed) -> Trace:
        """One game through the engine's traced driver, as a Trace in the move-list format of the
        mode's reference replay (verify_trace) and pictures; bags and dots read off the replay."""
        t, rec, res, swapped = self.replay(rules, seats, game_index, run_seed)
        pos, bags = _replayed(t, rec, game_index, run_seed)
        moves_of = _tri_moves if _is_tri(rules) else _battle_moves if rules["mode"] == "battle" else _race_moves
        moves, data = moves_of(t, rules, rec, pos)
        row = {k: v[0].item() for k, v in self._columns(rules, res[None, :], np.array([swapped])).items()}
        return Trace("hexflow", dict(rules), self.seat_names(rules), game_index, run_seed, moves, row,
                     {"bags": bags, **data, "swapped": bool(swapped)})

    # each mode has its own kernels (tri and tri2p share theirs: the engine's drivers over
    # tri_engine.py's rules and tri_bots.py's bots); seconds measured on this machine
    # (each part alone from an empty cache, `make bench`, 2026-12-05; tri scaled by 120/69 s, its
    # time with and without tri2p's hybrid search on 2026-12-07: the order is longest first)
    warm_parts = (("tri", 134.0), ("race", 106.0), ("battle", 77.0))

    def warm(self, part: str = "all") -> None:
        parts = [p for p, _ in self.warm_parts] if part == "all" else [part]
        seats = [SeatBot(b, {p.name: p.default for p in b.params}) for b in R.BOTS]
        for label, overrides in self.modes():
            if {"tri2p": "tri"}.get(label, label) in parts:
                rules = self.resolve_rules(overrides, "warm")
                n = len(self.seat_names(rules))
                # mixed bots: the plain chunk driver; random bots alone: its games by `rollout`
                self.play_chunk(rules, (seats * 2)[:n], 0, 2, 0)
                self.play_chunk(rules, [seats[0]] * n, 0, 2, 0)
                if label in ("race", "battle"):  # greedy under the pie rule: the drivers with it
                    self.play_chunk(self.resolve_rules({**overrides, "swap": True}, "warm"), [seats[1]] * 2, 0, 1, 0)
                if label == "race":  # lookahead, Race's costly bot: the drivers compiled with it
                    look = SeatBot(R.LOOKAHEAD, {p.name: p.default for p in R.LOOKAHEAD.params})
                    self.play_chunk(rules, [look, seats[1]], 0, 2, 0)
        for label, overrides in (("race", {}), ("battle", {"mode": "battle"}), ("tri", {"mode": "tri"}),
                                 ("tri", {"mode": "tri2p"})):
            if label in parts:  # the engine path: the search bot's chunks and traced games
                rules = self.resolve_rules(overrides, "warm")
                n = len(self.seat_names(rules))
                # at the mode's own settings (bot_defaults: tri2p's hybrid root compiles other parts
                # of the search than tri's tree), at a small budget
                mcts = SeatBot(MCTS, {**self.bot_params(rules, MCTS), "iterations": 4})
                self.play_chunk(rules, [mcts] + [seats[1]] * (n - 1), 0, 1, 0)
                self.play_traced(rules, (seats * 2)[:n], 0, 0)

    # ---- verification -------------------------------------------------------------------------
    def verify_trace(self, trace: Trace) -> None:
        """Replay with the pure-Python Position: hands drawn from the recorded bags, every
        placement legal and from the mover's hand, passes only without a legal placement,
        tiles conserved, declared winner, end reason, score and path columns right."""
        if _is_tri(trace.rules):
            return tri_verify(self, trace)
        rules = trace.rules
        if rules["mode"] == "battle":
            return battle_verify.verify(trace, self.end_reasons)
        pos = Position(rules, dots=trace.data["dots"])
        counts = R.tile_counts(rules, list(SEATS))
        full_sets = [np.repeat(np.arange(len(TILE_TYPES)), counts[q]).tolist() for q in range(2)]
        bags, hands = V.deal(trace, full_sets, R.hand_sizes(rules, list(SEATS)), SEATS)
        blocked = [False, False]
        winner, reason = None, None
        row = V.row_by_seat(trace, race_by_player)
        turns = V.PassRule(2, rules["no_move"] == "lose")
        for i, mv in enumerate(trace.moves):
            assert reason is None, f"move {i} played after the game ended ({reason})"
            q = SEATS.index(mv["seat"])
            V.check_alternation(i, q, trace.moves, row["first_seat"], SEATS)
            if mv["move"] == "pass":
                reason = turns.passed(i, pos, q, hands[q], mv["seat"])
                if reason == "no_move_loss":
                    winner = 1 - q
                elif reason == "stalemate":
                    winner = pos.stalemate_winner()
                    reason = "stalemate_closest" if rules["stalemate_rule"] == "closest" \
                        else "stalemate_draw"
                continue
            turns.placed()
            t = TILE_TYPES_BY_NAME[mv["tile"]]
            assert t in hands[q], f"move {i}: {mv['tile']} not in {mv['seat']}'s hand {hands[q]}"
            pos.place(q, mv["hex"], t, mv["rotation"])  # raises if illegal
            V.draw_after(hands, bags, q, t)
            winner, reason, blocked = pos.judge(q, t, blocked)
        reason = V.capped(reason, trace.moves, rules)
        passes = turns.passes
        # conservation: board + hand + bag = the set, per seat
        for q in range(2):
            on_board = [t for (s, t, _) in pos.tiles.values() if s == q]
            assert sorted(on_board + hands[q] + bags[q]) == full_sets[q], f"seat {q}: tiles not conserved"
            for t, tt in enumerate(TILE_TYPES):
                col = f"hexflow_tiles_{SEATS[q]}_{tt.name}"
                assert row[col] == on_board.count(t), f"{col} = {row[col]}, board has {on_board.count(t)}"
            col = f"hexflow_passes_{SEATS[q]}"
            assert row[col] == passes[q], f"{col} = {row[col]}, replay gives {passes[q]}"
        assert self.end_reasons[row["end_reason"]] == reason, \
            f"declared {self.end_reasons[row['end_reason']]}, replay gives {reason}"
        assert row["winner"] == (-1 if winner is None else winner), \
            f"declared winner {row['winner']}, replay gives {winner}"
        assert row["turns"] == len(trace.moves)
        if reason in ("path", "opponent_path"):
            assert row["hexflow_path_completed"]
            score, length, hexes = pos.best_path(winner)
            assert row[f"score_{SEATS[winner]}"] == pos.score(winner)
            assert row["hexflow_path_len"] == length
            assert len(trace.data["path"]) >= 1
        else:
            assert not row["hexflow_path_completed"]
            want = rules["base_score"] if winner is not None else 0
            assert row["score_A"] + row["score_B"] == want

    # ---- pictures and reports -----------------------------------------------------------------
    def draw(self, trace: Trace, path: str, every_move: bool = False) -> None:
        if _is_tri(trace.rules):
            return draw_tri_trace(trace, path, every_move)
        if trace.rules["mode"] == "battle":
            return draw_battle(trace, path, every_move)
        draw_trace(trace, path, every_move)

    def report_metrics(self, df, rules: dict[str, Any]) -> list[dict[str, Any]]:
        if _is_tri(rules):
            return tri_metrics(df, rules, self.seat_names(rules))
        if rules["mode"] == "battle":
            return battle_metrics(df, rules, self.end_reasons)
        return metrics(df, rules)

    def restricted_play(self, rules: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """Race (for `hexsim sensitivity`): each tile type removed from both bags, a type neither
        bag holds left out."""
        if rules["mode"] != "race":
            return []
        held = R.tile_counts(rules, list(SEATS)).sum(axis=0)
        return [(f"no {tt.name}", {f"rules.tiles.{tt.name}.count": 0})
                for t, tt in enumerate(TILE_TYPES) if held[t] > 0]

    def modes(self) -> list[tuple[str, dict[str, Any]]]:
        return [("race", {}), ("battle", {"mode": "battle"}), ("tri", {"mode": "tri"}),
                ("tri2p", {"mode": "tri2p"})]


TILE_TYPES_BY_NAME = {t.name: i for i, t in enumerate(TILE_TYPES)}
