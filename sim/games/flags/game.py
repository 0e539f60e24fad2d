"""The Four flags Game object: parameter schema, bots, outcome columns and entry points."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import numpy as np

from sim import engine
from sim.engine import search
from sim.engine.rng import game_seed
from sim.errors import VariantError
from sim.games.base import SWAP, Bot, Game, Param, SeatBot, Trace, oracle_of
from sim.games.flags import bots as B
from sim.games.flags import kernel as K
from sim.games.flags import planner as P
from sim.games.flags.bots import decay_table
from sim.games.flags.geometry import COLS, LAYOUTS, MAX_HEX, ROWS, Layout, board, check_layout, layout_of
from sim.games.flags.position import CARD_VALUES, DECK, deck_of

SEATS = ["A", "B"]

PARAMS = (
    Param("hand_size", "int", 5, "cards in hand after drawing back up", low=1, high=20,
          seed_text="Deal 5 cards to each player. / Draw back up to 5 cards.", per_seat=True),
    Param("cards_per_turn", "int", 2, "cards played each turn (exactly this many, one at a time); "
          "by seat, each plays its own number every turn (a compensation)",
          low=1, high=20, seed_text="Play exactly 2 cards, one at a time.", per_seat=True),
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
    # added after the baselines were saved: at their defaults they play (and hash) as before
    Param("board_rows", "int", ROWS, "rows of hexes (the card's board: 8); rows x cols at most "
          f"{MAX_HEX}", low=4, high=12, omit_default=True,
          seed_text="A 7 \u00d7 8 hex board: 52 territory hexes + 4 fixed flags."),
    Param("board_cols", "int", COLS, "hexes per row (the card's board: 7)", low=4, high=12,
          omit_default=True, seed_text="A 7 \u00d7 8 hex board: 52 territory hexes + 4 fixed flags."),
    Param("flag_cells", "list", [],
          "the four flags' cells, N, S, W, E, as [row, column] pairs, e.g. [[0, 3], [7, 3], [4, 0], "
          "[3, 6]]; [] = the middle of each edge (N at (0, cols // 2), S at (rows - 1, cols // 2), W "
          "and E on the middle rows, as on the card's board). Each flag needs a territory neighbour, "
          "and no hex may touch two flags", omit_default=True,
          seed_text="One flag sits fixed at the middle of each edge and never moves."),
    Param("card_values", "table", dict(CARD_VALUES),
          "units a card of each rank is worth (2..10 face value, J 11, Q 12, K 13, A 14)",
          low=1, high=50, omit_default=True,
          seed_text="2\u201310 = faceJ = 11Q = 12K = 13A = 14"),
    Param("deck", "table", dict(DECK),
          "copies of each rank in the deck (4: one per suit; 0 removes the rank; more than 4: a "
          "second pack). One hex tile per card: the deck may not hold more cards than the "
          "board's territory hexes (fewer leave hexes unlabelled, reached only by moving)",
          low=0, high=8, omit_default=True,
          seed_text="52 hex tiles, each marked with a card (2\u2013A, four suits). / A matching 52\u2011card "
                    "deck. / Shuffle the 52 hex tiles and place them at random to fill the board around the flags."),
    Param("attacks", "str", "strictly_more",
          "a step into an enemy hex: 'strictly_more' (only with more units than the defender; the "
          "mover takes the hex with the difference) or 'attrition' (also with equal or fewer: both "
          "sides lose the attacker's count, the defender keeps the rest, the hex empties when "
          "equal), the reading under which an attack can knock a surrounding hex below "
          "min_hold_units without taking it", choices=("strictly_more", "attrition"),
          omit_default=True,
          seed_text="To enter an enemy hex you must arrive with more units than the defender; you then "
                    "hold it with the difference. Equal is not enough. / the moment your opponent captures "
                    "one of those hexes or knocks it below 2 units, the surround breaks"),
    Param("second_player_cards", "int", 0,
          "more cards in the hand of the player who moves second, on the deal and every draw "
          "back up (a compensation, not on the card)", low=0, high=10, omit_default=True,
          seed_text="(not in the rules: a compensation for the first player's edge)"),
    Param("first_turn_cards", "int", 0,
          "cards the first player plays on the game's first turn (0: its cards_per_turn, as every "
          "turn; a compensation, not on the card)", low=0, high=20, omit_default=True,
          seed_text="Play exactly 2 cards, one at a time."),
    SWAP,
)

GREEDY = Bot(
    "greedy", B.BOT_GREEDY, "works toward surrounding flags: claims and reinforces flag neighbours, "
    "attacks the opponent's surrounds, protects its own, holds many hexes; one-step lookahead",
    params=(Param("aggression", "float", B.GREEDY_DEFAULTS[0], "weight on the opponent's surrounds (attack)",
                  low=0.0, high=10.0),
            Param("defence", "float", B.GREEDY_DEFAULTS[1], "weight on own hexes an enemy stack could take",
                  low=0.0, high=10.0),
            Param("territory", "float", B.GREEDY_DEFAULTS[2], "worth of holding a hex (own cards pointing "
                  "there reinforce, the opponent's are wasted)", low=0.0, high=100.0)))
PLANNER = Bot(
    "planner", P.BOT_PLANNER, "searches whole turns: at the start of a turn and after the die roll it makes "
    "candidate plans (greedy's decisions up to the roll or the turn's end, with greedy's weights perturbed and "
    "some cards and steps drawn at random), plays each in worlds redrawn for its seat, then greedy for "
    "`horizon` turns, and keeps the best by sequential halving on shared worlds; then plays that plan",
    params=(Param("playouts", "int", 64, "playouts per planning point (the budget; never time), split "
                  "evenly between the halving rounds", low=1, high=1_000_000),
            Param("plans", "int", 0, f"candidate plans per planning point (duplicates dropped), at most "
                  f"{P.MAX_PLANS}; 0 = by the budget, playouts / 8 (8 at 64 playouts)", low=0, high=P.MAX_PLANS),
            Param("horizon", "int", -1, "turns greedy plays on after the planned turn before the evaluation "
                  "scores the playout (both seats' turns counted); -1 = by the budget, 4 at 64 playouts "
                  "and 2 more per doubling (8 at 256)", low=-1, high=100_000),
            Param("eval_scale", "float", 300.0, "evaluation points per logistic unit at a playout's end",
                  low=1e-9, high=1e9),
            Param("spread", "float", 1.5, "a candidate's greedy weights are the defaults times "
                  "exp(spread * u), u uniform in [-1, 1]", low=0.0, high=10.0),
            Param("explore", "float", 0.25, "in every other candidate, the chance that a card or a move "
                  "step is drawn uniformly from the legal ones", low=0.0, high=1.0),
            Param("sees", "str", "own", "'own': the worlds redraw the other hand's unknown cards and the "
                  "deck's order; 'all': the deck's order alone, so it plans with the other hand in view "
                  "(cheating, for the oracle)", choices=("own", "all"))))
BOTS = (
    Bot("random", engine.BOT_UNIFORM, "uniform over the hand's cards, each reinforcement unit to a uniform own "
        "hex, each step uniform over legal (from, to) pairs and stopping, uniform unit count"),
    GREEDY,
    # greedy plays one decision after the tree, then evaluate scores the position; the root looks
    # one ply ahead (prior_depth 1, prior 1): 35.0% of decisive games against greedy (100 rotated
    # games; with p on greedy's move alone 40.0%, but then its decisions hardly move with its seed:
    # greedy in disguise; docs/ladder.md)
    search.mcts_bot(GREEDY, iterations=200, rollout="greedy", rollout_depth=1, eval_scale=100.0,
                    prior_depth=1, prior=1.0),
    PLANNER,
)
# Four flags' ceiling of skill (sim/stats/skill.py CEILING_BOTS): the planner, its strongest bot,
# with the other hand in view (the search bot seeing both hands would bound little: unseeing, it
# loses to greedy)
ORACLE = oracle_of(PLANNER, "the planner with the other hand in view (sees = all; the deck's order stays hidden)")
BOTS = (*BOTS, ORACLE)


EXTRA_DTYPES = {name: np.int8 if name.startswith("flags_held") else np.int32 for name in K.EXTRA}


@lru_cache(maxsize=32)
def _tables(key: str, traced: bool) -> K.Tables:
    rules = json.loads(key)
    lay = layout_of(rules)
    return K.build_tables(rules, board(lay).tables(), _decay(lay), deck_of(rules).values, traced)


@lru_cache(maxsize=8)
def _decay(lay: Layout) -> np.ndarray:
    return decay_table(board(lay).near)


def tables(rules: dict[str, Any], traced: bool = False) -> K.Tables:
    """The rule tables of resolved rules (cached); traced: with room for the action log."""
    return _tables(json.dumps(rules, sort_keys=True), traced)


engine.implement(K.Tables, no_alloc=True, new_position=K.new_position, new_position_at=K.new_position_at,
                 to_move=K.to_move, legal_moves=K.legal_moves, apply=K.apply, result=K.result,
                 copy_position=K.copy_position, sample_hidden=K.sample_hidden,
                 evaluate=B.evaluate, new_scratch=P.new_scratch, bot_move=P.bot_move,
                 costly_move=P.costly_move, costly_bots=(P.BOT_PLANNER,))


class FlagsGame(engine.EngineGame, Game):
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
        w = f"{where}: [rules]"
        hands = K.hand_sizes(rules)
        small = min(hands)
        for seat, cards, hand in zip(SEATS, K.cards_per_turn(rules), hands, strict=True):
            if cards > hand:
                key = "cards_per_turn" if not isinstance(rules["cards_per_turn"], dict) else f"cards_per_turn.{seat}"
                size = "hand_size" if not isinstance(rules["hand_size"], dict) else f"hand_size.{seat}"
                raise VariantError(f"{w} {key} = {cards} is more than {size} = {hand}; "
                                   "allowed: <= hand_size (each seat's)")
        if rules["first_turn_cards"] > small:
            raise VariantError(f"{w} first_turn_cards = {rules['first_turn_cards']} is more than hand_size = "
                               f"{small}; allowed: <= hand_size (each seat's)")
        cells = rules["flag_cells"]
        if cells and not (len(cells) == 4 and all(isinstance(c, list) and len(c) == 2 and all(
                isinstance(x, int) and not isinstance(x, bool) for x in c) for c in cells)):
            raise VariantError(f"{w} flag_cells = {cells!r}; allowed: [] or four [row, column] pairs "
                               "of whole numbers (N, S, W, E)")
        lay = layout_of(rules)
        problem = check_layout(lay)
        if problem:
            raise VariantError(f"{w} {problem}")
        n_cards, n_terr = len(deck_of(rules)), lay.n_hex - 4
        if n_cards > n_terr:
            raise VariantError(f"{w} deck: {n_cards} cards but {n_terr} territory hexes; allowed: at most "
                               "one card per territory hex (each card's tile labels one)")
        hands = sum(K.hand_sizes(rules)) + rules["second_player_cards"]
        if hands > n_cards:
            raise VariantError(f"{w} hand_size: the two hands hold {hands} cards, the deck {n_cards}; "
                               f"allowed: hands (with second_player_cards) of at most {n_cards} cards")

    def warnings(self, rules: dict[str, Any]) -> list[str]:
        """The text's contradictions about the board these rules build (the card's size warning
        only on 8 x 7; the edge-middle warning only for flags placed by that rule on an even
        number of rows), and a short turn cap."""
        lay = layout_of(rules)
        out = []
        if (lay.rows, lay.cols) == (ROWS, COLS):
            out.append("flags: the rule text calls the board '7 \u00d7 8' but 52 territory hexes + 4 flags = "
                       "56 and the 4/4/3/3 neighbour counts only fit 8 rows x 7 columns; that is the board used.")
        if not rules.get("flag_cells") and lay.rows % 2 == 0:
            (w, _), (e, _) = lay.flags[2], lay.flags[3]
            out.append(f"flags: the text puts every flag at 'the middle of each edge', but with {lay.rows} "
                       f"rows the West and East edges have no middle hex; W sits on row {w} and E on "
                       f"row {e}, one row apart.")
        if rules.get("max_turns", 200) < 40:
            out.append(f"flags: max_turns = {rules['max_turns']} is short: many games will end "
                       "as turn-cap draws.")
        return out

    # ---- playing: engine.EngineGame's drivers, the action log for pictures and the verifier ----
    extra_columns = {name: (i, EXTRA_DTYPES[name]) for i, name in enumerate(K.EXTRA)}
    score_dtype = np.int16

    def tables(self, rules: dict[str, Any]) -> K.Tables:
        return tables(rules)

    def max_decisions(self, rules: dict[str, Any]) -> int:
        return K.max_decisions(rules, int(deck_of(rules).values.max()))

    def describe(self, rules, seat, move):
        return describe(move, deck_of(rules).names)

    def play_traced(self, rules, seats, game_index, run_seed) -> Trace:
        """The engine's traced game, replayed once more with the action log on (deals, plays,
        allocations, rolls, steps, draws, reshuffles, ends of turn): `moves` are those actions."""
        from sim.games.flags.trace import moves_from_record

        trace = super().play_traced(rules, seats, game_index, run_seed)
        seed = game_seed(np.uint64(run_seed), np.int64(game_index))
        pos = K.replay(tables(rules, traced=True), np.uint64(seed), np.int64(game_index),
                       trace.data["rec"])
        record = np.asarray(pos.log)[:int(pos.st[K.LOG_N])].copy()
        trace.moves = moves_from_record(record, deck_of(rules), trace.data["swapped"])
        trace.data.update(record=record, card_hex=np.asarray(pos.card_hex).copy(),
                          bots=[s.label() for s in seats])
        return trace

    def verify_trace(self, trace: Trace) -> None:
        """Every decision legal and replayed through the rule functions (the engine's check),
        then the action log re-played by the independent position API (trace.verify)."""
        from sim.games.flags.trace import verify

        super().verify_trace(trace)
        verify(trace)

    def check_position(self, t, pos) -> None:
        """Cards conserved (hands, draw pile and discards hold each card once), units only on
        held territory hexes."""
        st = np.asarray(pos.st)
        hands, hand_n = np.asarray(pos.hands), np.asarray(pos.hand_n)
        cards = np.concatenate([hands[0, :hand_n[0]], hands[1, :hand_n[1]],
                                np.asarray(pos.deck)[:st[K.DECK_N]], np.asarray(pos.disc)[:st[K.DISC_N]]])
        assert sorted(cards.tolist()) == list(range(int(t.n_cards))), "cards not conserved"
        owner, units = np.asarray(pos.owner), np.asarray(pos.units)
        assert ((owner == -1) == (units == 0)).all() and (units >= 0).all(), "owner / units"
        assert (owner[np.asarray(t.is_flag) == 1] == -1).all(), "units on a flag"

    def draw(self, trace: Trace, path: str, every_move: bool = False) -> None:
        from sim.games.flags.draw import draw_trace
        draw_trace(trace, path, every_move)

    def report_metrics(self, df, rules):
        from sim.games.flags.report import metrics
        return metrics(df, rules, self.end_reasons)

    warm_parts = (("all", 72.0),)

    def warm(self, part: str = "all") -> None:
        """Compile the chunk and traced drivers of both bot families (sim/engine/drivers.py: without and
        with the search bot) and the verifier; greedy vs random (the random bot is the engine's
        uniform one: the drivers compiled with it and the pie rule, sim/engine/drivers.py `rare_for`),
        greedy vs greedy (the shipped line-up: the drivers without them), then the search bot (a
        small budget) vs greedy."""
        rules = self.defaults()
        greedy, rand, mcts = (SeatBot(b, {p.name: p.default for p in b.params}) for b in (GREEDY, BOTS[0], BOTS[2]))
        self.play_chunk(rules, [greedy, rand], 0, 1, 0)
        self.verify_trace(self.play_traced(rules, [greedy, rand], 0, 0))
        self.play_chunk(rules, [greedy, greedy], 0, 1, 0)
        mcts.params["iterations"] = 4
        self.play_chunk(rules, [mcts, greedy], 0, 1, 0)
        self.play_traced(rules, [mcts, greedy], 0, 0)


def describe(move: int, names: tuple[str, ...] = deck_of({}).names) -> str:
    """A decision's move code in words (the phase is part of the code; names: the deck's cards)."""
    if move < K.MV_REINF:
        return f"play {names[move - K.MV_CARD]}"
    if move < K.MV_STOP:
        return f"+1 on hex {move - K.MV_REINF}"
    if move == K.MV_STOP:
        return "stop"
    if move < K.MV_COUNT:
        src, slot = divmod(move - K.MV_STEP, 6)
        return f"step from {src} (neighbour {slot})"
    return f"x{move - K.MV_COUNT}"

