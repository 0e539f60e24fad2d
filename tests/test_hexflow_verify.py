"""The HEXFLOW trace checks share one copy of the turn rules (sim/games/hexflow/verify.py): the
pass rule, alternation, dealing and the turn cap. They must still accept every mode's real games
and refuse the same games tampered with: a pass while a placement was legal, a move out of turn,
a game cut short, a wrong pass count, a bag that is not the seat's tile set."""

from __future__ import annotations

import copy

import pytest

from sim.games.hexflow import GAME
from sim.games.hexflow.verify import PassRule, capped, draw_after
from sim.testing import seats_for

MODES = {"race": {}, "battle": {"mode": "battle"}, "tri": {"mode": "tri"}, "tri2p": {"mode": "tri2p"}}


def _trace(mode: str, bot: str = "greedy", game_index: int = 0):
    rules = GAME.resolve_rules(MODES[mode], "verify-test")
    return GAME.play_traced(rules, seats_for(GAME, rules, bot), game_index, 11)


def _first_placement(trace) -> int:
    return next(i for i, m in enumerate(trace.moves) if m["move"] != "pass" and i > 1)


@pytest.mark.parametrize("mode", list(MODES))
def test_real_games_replay(mode):
    for bot in ("random", "greedy"):
        for g in range(3):
            GAME.verify_trace(_trace(mode, bot, g))


@pytest.mark.parametrize("mode", list(MODES))
def test_a_pass_with_a_legal_placement_is_refused(mode):
    trace = _trace(mode)
    i = _first_placement(trace)
    bad = copy.deepcopy(trace)
    mv = bad.moves[i]
    bad.moves[i] = {"seat": mv["seat"], "move": "pass", "turn": mv["turn"], "kind": "pass"}
    with pytest.raises(AssertionError, match="passed with"):
        GAME.verify_trace(bad)


@pytest.mark.parametrize("mode", list(MODES))
def test_a_move_out_of_turn_is_refused(mode):
    trace = _trace(mode)
    bad = copy.deepcopy(trace)
    i = _first_placement(trace)
    bad.moves[i]["seat"] = bad.moves[i - 1]["seat"]
    with pytest.raises(AssertionError, match="same seat twice|out of turn order"):
        GAME.verify_trace(bad)


@pytest.mark.parametrize("mode", list(MODES))
def test_a_game_cut_short_is_refused(mode):
    bad = copy.deepcopy(_trace(mode))
    bad.moves = bad.moves[:-1]
    with pytest.raises(AssertionError, match="no end reason"):
        GAME.verify_trace(bad)


@pytest.mark.parametrize("mode", list(MODES))
def test_a_bag_that_is_not_the_tile_set_is_refused(mode):
    bad = copy.deepcopy(_trace(mode))
    bag = bad.data["bags"][0]
    bag[0] = (bag[0] + 1) % 11  # another of the 11 types: the bag's multiset changes
    with pytest.raises(AssertionError, match="not its tile set"):
        GAME.verify_trace(bad)


@pytest.mark.parametrize("mode", list(MODES))
def test_a_wrong_pass_count_is_refused(mode):
    rules = GAME.resolve_rules(MODES[mode], "verify-test")
    seats = seats_for(GAME, rules, "random")
    # the first of the run's games with a pass in it (every mode has one among its first 50)
    trace = next(t for t in (GAME.play_traced(rules, seats, g, 11) for g in range(200))
                 if any(m["move"] == "pass" for m in t.moves))
    seat = next(m["seat"] for m in trace.moves if m["move"] == "pass")
    bad = copy.deepcopy(trace)
    bad.row[f"hexflow_passes_{seat}"] += 1
    with pytest.raises(AssertionError, match=f"hexflow_passes_{seat}"):
        GAME.verify_trace(bad)


class _NoPlacement:
    def legal_moves(self, q, hand):
        return []


class _OnePlacement:
    def legal_moves(self, q, hand):
        return ["a1"]


def test_pass_rule_counts_passes_and_ends_after_a_full_round():
    for n in (2, 3):
        rule = PassRule(n, lose_holding=False)
        ends = [rule.passed(i, _NoPlacement(), i % n, [3], "X") for i in range(n)]
        assert ends == [None] * (n - 1) + ["stalemate"]
        assert rule.passes == [1] * n


def test_pass_rule_placement_ends_the_row():
    rule = PassRule(2, lose_holding=False)
    assert rule.passed(0, _NoPlacement(), 0, [], "A") is None
    rule.placed()
    assert rule.passed(2, _NoPlacement(), 1, [], "B") is None
    assert rule.in_a_row == 1 and rule.passes == [1, 1]


def test_pass_rule_no_move_lose_only_for_a_seat_holding_tiles():
    rule = PassRule(2, lose_holding=True)
    assert rule.passed(0, _NoPlacement(), 0, [], "A") is None  # an empty hand passes
    assert rule.passed(1, _NoPlacement(), 1, [4], "B") == "no_move_loss"
    with pytest.raises(AssertionError, match="B passed with 1 legal moves"):
        PassRule(2, False).passed(3, _OnePlacement(), 1, [4], "B")


def test_draw_after_and_turn_cap():
    hands, bags = [[1, 2], [3]], [[7, 8], []]
    draw_after(hands, bags, 0, 2)
    draw_after(hands, bags, 1, 3)
    assert hands == [[1, 8], []] and bags == [[7], []]
    assert capped("path", [0] * 3, {"max_turns": 400}) == "path"
    assert capped(None, [0] * 400, {"max_turns": 400}) == "turn_cap"
    with pytest.raises(AssertionError, match="no end reason"):
        capped(None, [0] * 399, {"max_turns": 400})
