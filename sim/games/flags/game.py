"""The Four flags Game object: parameter schema, bots, outcome columns and entry points."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.errors import VariantError
from sim.games.base import Bot, Game, Param, SeatBot, Trace
from sim.games.flags import kernel as K
from sim.games.flags.geometry import LAYOUTS, board

SEATS = ["A", "B"]
_STILL = {"same": K.STILL_SAME, "any3": K.STILL_ANY}
_FIRST = {"roll": K.FIRST_ROLL, "A": K.FIRST_A, "B": K.FIRST_B, "alternate": K.FIRST_ALTERNATE}

PARAMS = (
    Param("hand_size", "int", 5, "cards in hand after drawing back up", low=1, high=20,
          seed_text="Deal 5 cards to each player. / Draw back up to 5 cards."),
    Param("cards_per_turn", "int", 2, "cards played each turn (exactly this many, one at a time)",
          low=1, high=20, seed_text="Play exactly 2 cards, one at a time."),
    Param("die_sides", "int", 6, "sides of the movement die; a turn makes up to the roll in steps",
          low=1, high=100, seed_text="Roll the die and move that many steps."),
    Param("min_hold_units", "int", 2, "units each surrounding hex needs for the flag to be held",
          low=1, high=50, seed_text="holding every connected hex with at least 2 units each"),
    Param("flags_to_win", "int", 3, "flags a player must hold at once (and keep) to win",
          low=1, high=4, seed_text="Hold 3 of the 4 flags at once"),
    Param("still_hold", "str", "same",
          "after the opponent's next turn the claimer must still hold the same flags ('same') "
          "or any flags_to_win flags ('any3')", choices=("same", "any3"),
          seed_text="and still hold them after your opponent's next turn"),
    Param("bleed", "bool", True,
          "true: every move step leaves at least 1 unit on its source hex (the bleed and 'leaving "
          "at least 1 behind' are one rule); false: a step may move the whole stack, emptying the hex",
          seed_text="Every move\u2011step leaves 1 unit behind \u2014 the bleed."),
    Param("first_player", "str", "roll",
          "who starts: 'roll' (both roll the die, higher starts, ties re-rolled), 'A', 'B', or "
          "'alternate' (A in even-numbered games, B in odd: a match)",
          choices=("roll", "A", "B", "alternate"),
          seed_text="Both players roll a die; the higher roll goes first."),
    Param("max_turns", "int", 200, "turn cap (both players' turns counted); the game is a draw "
          "when it is reached", low=2, high=100000, seed_text="(not in the rules: a simulator cap)"),
    Param("board", "str", "standard",
          "board layout: 'standard' (odd rows shifted right; W flag at row 4, E at row 3) or "
          "'mirrored' (even rows shifted; its mirror image)", choices=LAYOUTS,
          seed_text="A 7 \u00d7 8 hex board: 52 territory hexes + 4 fixed flags."),
)

BOTS = (
    Bot("random", 0, "uniform over the hand's cards, each reinforcement unit to a uniform own "
        "hex, each step uniform over legal (from, to) pairs and stopping, uniform unit count"),
    Bot("greedy", 1, "works toward surrounding flags: claims and reinforces flag neighbours, "
        "attacks the opponent's surrounds, protects its own, holds many hexes; one-step lookahead",
        params=(Param("aggression", "float", 1.0, "weight on the opponent's surrounds (attack)",
                      low=0.0, high=10.0),
                Param("defence", "float", 0.25, "weight on own hexes an enemy stack could take",
                      low=0.0, high=10.0),
                Param("territory", "float", 8.0, "worth of holding a hex (own cards pointing "
                      "there reinforce, the opponent's are wasted)", low=0.0, high=100.0))),
)


_NO_RECORD = np.zeros((1, K.REC_COLS), dtype=np.int64)


def rule_vector(rules: dict[str, Any]) -> np.ndarray:
    rp = np.zeros(K.N_RULES, dtype=np.int64)
    rp[K.R_HAND] = rules["hand_size"]
    rp[K.R_CARDS] = rules["cards_per_turn"]
    rp[K.R_DIE] = rules["die_sides"]
    rp[K.R_MIN] = rules["min_hold_units"]
    rp[K.R_WIN] = rules["flags_to_win"]
    rp[K.R_STILL] = _STILL[rules["still_hold"]]
    rp[K.R_BLEED] = 1 if rules["bleed"] else 0
    rp[K.R_FIRST] = _FIRST[rules["first_player"]]
    rp[K.R_MAXT] = rules["max_turns"]
    return rp


def bot_arrays(seats: Sequence[SeatBot]) -> tuple[np.ndarray, np.ndarray]:
    codes = np.array([s.bot.code for s in seats], dtype=np.int64)
    bp = np.array([[1.0, 0.25, 8.0], [1.0, 0.25, 8.0]], dtype=np.float64)
    for i, s in enumerate(seats):
        vec = s.param_vector()
        bp[i, :len(vec)] = vec
    return codes, bp


def _columns(out: np.ndarray) -> dict[str, np.ndarray]:
    return {
        "winner": out[:, 0].astype(np.int8),
        "end_reason": out[:, 1].astype(np.int8),
        "turns": out[:, 2].astype(np.int32),
        "first_seat": out[:, 3].astype(np.int8),
        "score_A": out[:, 4].astype(np.int16),
        "score_B": out[:, 5].astype(np.int16),
        "flags_held_A": out[:, 4].astype(np.int8),
        "flags_held_B": out[:, 5].astype(np.int8),
        "flags_first_flag_turn_A": out[:, 6].astype(np.int32),
        "flags_first_flag_turn_B": out[:, 7].astype(np.int32),
        "flags_combats": out[:, 8].astype(np.int32),
        "flags_units_A": out[:, 9].astype(np.int32),
        "flags_units_B": out[:, 10].astype(np.int32),
        "flags_cards_played": out[:, 11].astype(np.int32),
        "flags_claims": out[:, 12].astype(np.int32),
        "flags_claims_broken": out[:, 13].astype(np.int32),
    }


class FlagsGame(Game):
    name = "flags"
    title = "Four flags"
    description = ("Two players claim hexes with cards and march units to surround 3 of 4 flags "
                   "and keep them through the opponent's next turn.")
    params = PARAMS
    bots = BOTS
    end_reasons = ("flags", "turn_cap")
    default_bot = "greedy"

    def seat_names(self, rules: dict[str, Any]) -> list[str]:
        return list(SEATS)

    def validate(self, rules: dict[str, Any], where: str) -> None:
        if rules["cards_per_turn"] > rules["hand_size"]:
            raise VariantError(f"{where}: [rules] cards_per_turn = {rules['cards_per_turn']} is more "
                               f"than hand_size = {rules['hand_size']}; allowed: <= hand_size")
        if 2 * rules["hand_size"] > 52:
            raise VariantError(f"{where}: [rules] hand_size = {rules['hand_size']}: two hands "
                               "must fit in the 52-card deck; allowed: <= 26")

    def warnings(self, rules: dict[str, Any]) -> list[str]:
        out = ["flags: the rule text calls the board '7 \u00d7 8' but 52 territory hexes + 4 flags = 56 "
               "and the 4/4/3/3 neighbour counts only fit 8 rows x 7 columns; that is the board used."]
        out.append("flags: the text puts every flag at 'the middle of each edge', but with 8 rows "
                   "the West and East edges have no middle hex; W sits on row 4 and E on row 3 "
                   "(the board is symmetric under a half turn).")
        if rules.get("max_turns", 200) < 40:
            out.append(f"flags: max_turns = {rules['max_turns']} is short: many games will end "
                       "as turn-cap draws.")
        return out

    # ---- playing ------------------------------------------------------------------------------
    def _args(self, rules: dict[str, Any], seats: Sequence[SeatBot]):
        codes, bp = bot_arrays(seats)
        return board(rules["board"]).tables() + (rule_vector(rules), codes, bp)

    def play_chunk(self, rules, seats, first_game, n_games, run_seed):
        out, _, _ = K.run_kernel(np.uint64(run_seed), np.int64(first_game), np.int64(n_games),
                                 *self._args(rules, seats), False, _NO_RECORD)
        return _columns(out)

    def play_traced(self, rules, seats, game_index, run_seed) -> Trace:
        rows = rules["max_turns"] * (rules["cards_per_turn"] * 60 + rules["die_sides"]
                                     + rules["hand_size"] + 4) + 2 * rules["hand_size"] + 8
        rec = np.zeros((rows, K.REC_COLS), dtype=np.int64)
        out, card_hex, n = K.run_kernel(np.uint64(run_seed), np.int64(game_index), np.int64(1),
                                        *self._args(rules, seats), True, rec)
        from sim.games.flags.trace import moves_from_record
        n = int(n)
        row = {k: v[0].item() for k, v in _columns(out).items()}
        return Trace(game=self.name, rules=dict(rules), seat_names=list(SEATS),
                     game_index=game_index, run_seed=run_seed,
                     moves=moves_from_record(rec[:n]), row=row,
                     data={"record": rec[:n].copy(), "card_hex": card_hex.copy(),
                           "bots": [s.label() for s in seats]})

    def verify_trace(self, trace: Trace) -> None:
        from sim.games.flags.trace import verify
        verify(trace)

    def draw(self, trace: Trace, path: str, every_move: bool = False) -> None:
        from sim.games.flags.draw import draw_trace
        draw_trace(trace, path, every_move)

    def report_metrics(self, df, rules):
        from sim.games.flags.report import metrics
        return metrics(df, rules, self.end_reasons)

    warm_parts = (("all", 30.0),)

    def warm(self, part: str = "all") -> None:
        rules = self.defaults()
        seats = [SeatBot(BOTS[1], {p.name: p.default for p in BOTS[1].params})] * 2
        self.play_chunk(rules, seats, 0, 1, 0)
        self.play_traced(rules, seats, 0, 0)

