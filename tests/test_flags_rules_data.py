"""Four flags' rule tweaks as data (issue 20): card values, the deck, the board and flag layout,
the attrition reading, and the first-player compensations (per-seat hand sizes, an extra card for
the second player, a shorter first turn, the pie rule). Each parameter: what it changes, in the
kernel and in the independent position API (traced games re-checked by trace.verify), its
one-line errors, and that at its default it leaves every baseline's hash (and games) alone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim import engine
from sim.errors import VariantError
from sim.games.flags import GAME
from sim.games.flags import kernel as K
from sim.games.flags.game import tables
from sim.games.flags.geometry import board, layout_of
from sim.games.flags.position import STANDARD, Deck, Position, deck_of
from sim.runs.variants import load as load_variant
from tests.game_checks import check_game, seats_for

NEW = ("board_rows", "board_cols", "flag_cells", "card_values", "deck", "attacks",
       "second_player_cards", "first_turn_cards", "swap")
ROOT = Path(__file__).resolve().parents[1]


def rules(**kw):
    return GAME.resolve_rules(kw, "test")


def play(r, n=200, seed=5, bots="random"):
    return GAME.play_chunk(r, seats_for(GAME, r, bots), 0, n, seed)


def traced(r, games, seed=5, bots="random"):
    """Traced games, each re-checked by verify_trace (engine replay and position API)."""
    out = []
    for i in games:
        t = GAME.play_traced(r, seats_for(GAME, r, bots), int(i), seed)
        GAME.verify_trace(t)
        out.append(t)
    return out


def actions(trace, kind):
    rec = trace.data["record"]
    return rec[rec[:, 1] == kind]


# ---- defaults change nothing -------------------------------------------------------------------
def test_new_parameters_keep_every_baseline_hash():
    """At their defaults the new parameters stay out of the variant hash: every committed Four
    flags baseline keeps its hash (`hexsim check` replays its games exactly)."""
    assert all(GAME.param(name).omit_default for name in NEW)
    for path in sorted((ROOT / "data" / "baselines" / "flags").glob("*.json")):
        stored = json.loads(path.read_text())["variant"]
        assert load_variant(f"flags/{path.stem}").hash == stored["hash"], path.name


def test_explicit_defaults_play_the_same_games():
    """Writing every new parameter at its default (the card's values, deck and board spelt out)
    plays exactly the games of the plain rules."""
    spelt = rules(board_rows=8, board_cols=7, flag_cells=[[0, 3], [7, 3], [4, 0], [3, 6]],
                  card_values={"J": 11, "A": 14}, deck={"2": 4}, attacks="strictly_more",
                  second_player_cards=0, first_turn_cards=2, hand_size={"A": 5, "B": 5}, swap=False)
    for bots in ("random", "greedy"):
        a, b = play(rules(), 60, bots=bots), play(spelt, 60, bots=bots)
        assert all((a[k] == b[k]).all() for k in a)


def test_rules_command_lists_them_per_seat_marked():
    from typer.testing import CliRunner

    from sim.cli import app

    out = CliRunner().invoke(app, ["rules", "flags"]).output
    for name in NEW:
        assert name in out
    for name in ("hand_size", "cards_per_turn"):
        assert "table by seat" in next(ln for ln in out.splitlines() if ln.startswith(name))
    assert "table by seat" not in next(ln for ln in out.splitlines() if ln.startswith("die_sides"))


# ---- cards and the deck ------------------------------------------------------------------------
def test_card_deck_matches_the_card():
    assert len(STANDARD) == 52
    assert [int(v) for v in STANDARD.values] == [c % 13 + 2 for c in range(52)]
    assert STANDARD.names[0] == "2s" and STANDARD.names[8] == "Ts" and STANDARD.names[51] == "Ac"


def test_card_values_change_what_a_card_places():
    r = rules(card_values={"A": 1, "2": 20})
    t = tables(r)
    d = deck_of(r)
    assert [int(x) for x in t.card_val] == [int(v) for v in d.values]
    ace, two = 12, 13  # As, 2h
    assert t.card_val[ace] == 1 and t.card_val[two] == 20 and t.card_val[3] == 5
    # the kernel places a card's value on an empty hex
    b = board()
    card_hex = list(b.terr)
    pos = K.make_position(t, [-1] * 56, [0] * 56, [[ace, two, 0, 1, 4], [5, 6, 7, 8, 9]],
                          list(range(20, 40)), card_hex, 0)
    rng = np.array([7], np.uint64)
    engine.play(t, pos, np.int64(K.MV_CARD + ace), rng)
    engine.play(t, pos, np.int64(K.MV_CARD + two), rng)
    assert pos.units[card_hex[ace]] == 1 and pos.units[card_hex[two]] == 20
    # games re-check against the position API with those values
    traced(r, range(3))
    traced(r, range(2), bots="greedy")


def test_deck_copies_remove_and_add_cards():
    small = rules(deck={"J": 0, "Q": 0, "K": 0, "A": 0})
    d = deck_of(small)
    assert len(d) == 36 and set(d.ranks) == {str(v) for v in range(2, 11)}
    assert int(tables(small).n_cards) == 36
    for t in traced(small, range(3)) + traced(small, range(2), bots="greedy"):
        # the 36 tiles label 36 distinct territory hexes; 16 stay unlabelled
        assert len(set(t.data["card_hex"].tolist())) == 36
        assert actions(t, K.K_PLAY)[:, 2].max() < 36
    double = Deck.of({"A": 8, "K": 2})
    assert len(double) == 10 and double.names[:2] == ("Ks", "As") and double.names[-1] == "Ac2"
    assert (double.values == [13, 14, 13, 14, 14, 14, 14, 14, 14, 14]).all()
    aces = rules(deck={"A": 8, "K": 0, "Q": 0, "J": 0, "10": 0}, card_values={"A": 3})
    assert len(deck_of(aces)) == 8 * 4 + 8
    tr = traced(aces, [1])[0]
    assert any("As2" in m["move"] for m in tr.moves)  # the second pack named apart


def test_deck_bounds_are_one_line_errors():
    with pytest.raises(VariantError, match=r"deck: 56 cards but 52 territory hexes"):
        rules(deck={"A": 8})
    with pytest.raises(VariantError, match=r"deck.Z: unknown"):
        rules(deck={"Z": 1})
    with pytest.raises(VariantError, match=r"card_values.J = 0"):
        rules(card_values={"J": 0})
    with pytest.raises(VariantError, match=r"the two hands hold 10 cards, the deck 8"):
        rules(deck={r: 0 for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q")})


# ---- the board ------------------------------------------------------------------------------------
def test_board_size_and_flag_cells_play_on_that_board():
    r = rules(board_rows=9, board_cols=9)
    lay = layout_of(r)
    b = board(lay)
    assert b.n_hex == 81 and len(b.terr) == 77 and int(tables(r).n_hex) == 81
    assert [tuple(int(x) for x in divmod(h, 9)) for h in b.flag_hex] == [(0, 4), (8, 4), (4, 0), (4, 8)]
    for t in traced(r, range(2)) + traced(r, range(2), bots="greedy"):
        steps = actions(t, K.K_STEP)
        assert steps[:, 2:4].max() < 81 and not b.is_flag[steps[:, 3]].any()
        assert (t.data["card_hex"] < 81).all()
    moved = rules(flag_cells=[[0, 1], [7, 5], [3, 0], [4, 6]])
    mb = board(layout_of(moved))
    assert list(mb.flag_hex) == [1, 54, 21, 34] and list(mb.flag_nn) == [4, 4, 5, 5]  # odd row 3 is shifted
    traced(moved, range(2), bots="greedy")
    p = Position(layout_of(moved))
    assert p.board.is_flag[1] and "F" in Position.from_text(p.to_text(), layout_of(moved)).to_text()


@pytest.mark.parametrize("change, message", [
    ({"flag_cells": [[0, 3], [7, 3], [4, 0]]}, "four"),
    ({"flag_cells": [[0, 3], [7, 3], [4, 0], [3, 9]]}, "flag E at \\[3, 9\\] is off the 8 x 7 board"),
    ({"flag_cells": [[0, 3], [7, 3], [4, 0], [0, 3]]}, "same cell"),
    ({"flag_cells": [[0, 3], [0, 5], [4, 0], [3, 6]]}, "touches flags N and S"),
    ({"flag_cells": [[0, 3], [7, 3], [4, 0], ["3", 6]]}, "whole numbers"),
    ({"board_rows": 12, "board_cols": 12}, "at most 99"),
    ({"board_rows": 6, "board_cols": 6}, "deck: 52 cards but 32 territory hexes"),
    ({"board_rows": 3}, "board_rows = 3 out of range"),
])
def test_bad_boards_are_one_line_errors(change, message):
    with pytest.raises(VariantError, match=message) as e:
        rules(**change)
    assert "\n" not in str(e.value) and "test: [rules]" in str(e.value)


# ---- attrition ------------------------------------------------------------------------------------
def test_attrition_allows_equal_and_fewer_attackers():
    """Under attacks = "attrition" a step may hit an enemy hex with as many or fewer units: both
    lose the attacker's count, the defender keeps the rest (the hex empties when equal). That is
    how an attack knocks a surrounding hex below 2 units without taking it."""
    src, dst = 9, 2  # 9 is a neighbour of 2 (both around flag N)
    for k, left_owner, left in ((2, 1, 1), (3, -1, 0)):
        pos = Position()
        pos.owner[src], pos.units[src] = 0, 5
        pos.owner[dst], pos.units[dst] = 1, 3
        assert pos.step_error(0, src, dst, k) is not None
        assert pos.step_error(0, src, dst, k, attrition=True) is None
        owner, units = np.array(pos.owner), np.array(pos.units)
        b = board()
        assert K.step_ok(owner, units, 0, src, dst, k, b.nbr, b.nbr_n, b.is_flag, True, True)
        assert not K.step_ok(owner, units, 0, src, dst, k, b.nbr, b.nbr_n, b.is_flag, True)
        assert K.apply_step(owner, units, 0, src, dst, k) == 2 * k
        assert pos.step(0, src, dst, k, attrition=True) == 2 * k
        assert (pos.owner[dst], pos.units[dst], pos.units[src]) == (left_owner, left, 5 - k)
        assert owner.tolist() == pos.owner and units.tolist() == pos.units


def test_attrition_changes_legal_moves_and_games():
    r = rules(attacks="attrition")
    t = tables(r)
    pos = K.make_position(t, [-1] * 56, [0] * 56, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]], list(range(20, 40)),
                          list(board().terr), 0)
    pos.owner[9], pos.units[9], pos.owner[2], pos.units[2] = 0, 3, 1, 6
    pos.st[K.PHASE], pos.st[K.STEPS_LEFT] = K.STEP, 3
    pair = K.MV_STEP + 9 * 6 + list(board().nbr[9]).index(2)
    assert pair in engine.moves_of(t, pos)
    assert pair not in engine.moves_of(tables(rules()), pos)
    pos.st[K.PHASE], pos.st[K.PEND] = K.COUNT, pair - K.MV_STEP
    assert list(engine.moves_of(t, pos)) == [K.MV_COUNT + 1, K.MV_COUNT + 2]
    a, b = play(rules(), 100), play(r, 100)
    assert (a["flags_combats"] != b["flags_combats"]).any()
    for tr in traced(r, range(3)) + traced(r, range(3), bots="greedy"):
        assert len(actions(tr, K.K_STEP)) > 0
    g = play(r, 100, bots="greedy")
    assert (g["end_reason"] == 0).mean() > 0.9


# ---- first-player compensation ------------------------------------------------------------------
def _hands_after(trace):
    """Each seat's hand size at every end of turn (replayed from the action record)."""
    n = [0, 0]
    sizes = []
    for seat, kind, *_ in trace.data["record"].tolist():
        if kind in (K.K_DEAL, K.K_DRAW):
            n[seat] += 1
        elif kind == K.K_PLAY:
            n[seat] -= 1
        elif kind == K.K_END:
            sizes.append(tuple(n))
    return sizes


def test_per_seat_hand_size():
    r = rules(hand_size={"A": 3, "B": 6})
    assert r["hand_size"] == {"A": 3, "B": 6} and rules(hand_size={"A": 5})["hand_size"] == 5
    for tr in traced(r, range(3)):
        assert set(_hands_after(tr)) == {(3, 6)}
    with pytest.raises(VariantError, match="hand_size.C: no such seat"):
        rules(hand_size={"C": 3})
    with pytest.raises(VariantError, match="cards_per_turn = 2 is more than hand_size.B = 1"):
        rules(hand_size={"B": 1})


def test_second_player_holds_an_extra_card():
    r = rules(second_player_cards=1)
    for tr in traced(r, range(4)) + traced(r, range(2), bots="greedy"):
        first = tr.row["first_seat"]
        want = (5, 6) if first == 0 else (6, 5)
        assert set(_hands_after(tr)) == {want}
        assert len(actions(tr, K.K_DEAL)) == 11
    a, b = play(rules(), 100, bots="greedy"), play(r, 100, bots="greedy")
    assert (a["winner"] != b["winner"]).any()


def test_first_turn_cards():
    r = rules(first_turn_cards=1)
    for tr in traced(r, range(3)) + traced(r, range(2), bots="greedy"):
        rec = tr.data["record"].tolist()
        end = next(i for i, x in enumerate(rec) if x[1] == K.K_END)
        plays = [x for x in rec[:end] if x[1] == K.K_PLAY]
        assert len(plays) == 1
        second = next(i for i, x in enumerate(rec[end + 1:]) if x[1] == K.K_END) + end + 1
        assert sum(1 for x in rec[end + 1:second] if x[1] == K.K_PLAY) == 2
    with pytest.raises(VariantError, match="first_turn_cards = 6 is more than hand_size = 5"):
        rules(first_turn_cards=6)


def _plays_per_turn(trace):
    """(seat, cards played) of every turn, replayed from the action record."""
    out, n = [], 0
    for seat, kind, *_ in trace.data["record"].tolist():
        if kind == K.K_PLAY:
            n += 1
        elif kind == K.K_END:
            out.append((seat, n))
            n = 0
    return out


def test_per_seat_cards_per_turn():
    """cards_per_turn by seat: every turn of a seat plays exactly its own number of cards
    (kernel, engine replay and the independent position API agree); first_turn_cards, when
    set, replaces the first player's number on the game's first turn only."""
    r = rules(cards_per_turn={"B": 3})
    assert r["cards_per_turn"] == {"A": 2, "B": 3} and rules(cards_per_turn={"A": 2, "B": 2})["cards_per_turn"] == 2
    for tr in traced(r, range(3)) + traced(r, range(2), bots="greedy"):
        turns = _plays_per_turn(tr)
        assert len(turns) > 4 and all(n == (2, 3)[seat] for seat, n in turns)
        assert set(_hands_after(tr)) == {(5, 5)}  # both still draw back up to hand_size
    r2 = rules(cards_per_turn={"A": 3, "B": 1}, first_turn_cards=2, first_player="B")
    for tr in traced(r2, range(3)) + traced(r2, range(2), bots="greedy"):
        turns = _plays_per_turn(tr)
        assert turns[0] == (1, 2) and all(n == (3, 1)[seat] for seat, n in turns[1:])
    # the seat's number matters: the same seeds play other games, and the seat with more cards
    # per turn wins most greedy games whoever starts
    plain, more = play(rules(), 200, bots="greedy"), play(r, 200, bots="greedy")
    assert (plain["winner"] != more["winner"]).any()
    assert (more["winner"] == 1).mean() > 0.7 and (more["first_seat"] == 0).mean() > 0.3
    assert (more["flags_cards_played"] > 0).all()
    with pytest.raises(VariantError, match=r"cards_per_turn.B = 6 is more than hand_size = 5; allowed"):
        rules(cards_per_turn={"B": 6})
    with pytest.raises(VariantError, match=r"cards_per_turn.A = 4 is more than hand_size.A = 3"):
        rules(cards_per_turn={"A": 4}, hand_size={"A": 3})
    with pytest.raises(VariantError, match="cards_per_turn.C: no such seat"):
        rules(cards_per_turn={"C": 3})


def test_pie_rule_is_legal_and_columns_follow_the_players():
    """swap = true: at the second player's first decision greedy takes over the first player's
    position when the evaluation says it is better (after one turn it always is), random by a
    coin; traced games re-check (a swap only where offered, columns exchanged by player)."""
    r = rules(swap=True)
    g = play(r, 40, bots="greedy")
    assert g["swapped"].all()
    plain = play(rules(), 40, bots="random")
    coin = play(r, 40, bots="random")
    assert 0 < coin["swapped"].mean() < 1
    for tr in traced(r, range(4)) + traced(r, range(2), bots="greedy"):
        swaps = int((tr.data["rec"][:, 1] == engine.SWAP_MOVE).sum())
        assert swaps == (1 if tr.data["swapped"] else 0)
    # a swapped game is the plain game with the players' columns exchanged where nothing else
    # differs (random bots: the coin is one more draw, so compare the swapped column only)
    assert set(coin) == set(plain) | {"swapped"}
    check_game(GAME, r, ["greedy", "random"], n=6, traced=2)


def test_compensation_variants_ship():
    assert load_variant("flags/second_extra_card").rules["second_player_cards"] == 1
    assert load_variant("flags/swap").rules["swap"] is True
    assert load_variant("flags/first_turn_one_card").rules["first_turn_cards"] == 1
    assert load_variant("flags/attrition").rules["attacks"] == "attrition"
    assert (ROOT / "data" / "baselines" / "flags" / "second_extra_card.json").exists()
