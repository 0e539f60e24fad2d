"""The Tri-Board trace verifier (modes "tri", 3 players, and "tri2p").

The rules are engine functions in tri_engine.py (tables in tri_tables.py), the bots in
tri_bots.py, played by the engine's drivers (sim/engine/drivers.py) like every game's.

What Tri-Board adds to Race's rules (kernel.py), all in tri_engine.py:
- seats 0..ns-1 each own ONE corner (corners[q]); goals are the centre hexes (any of them);
  a corner is reserved for its owner; in tri2p the dead corner I is cut out of `nbr`;
- a hand tile may be the Wildcard (index WILD = 11), declared as a standard type when placed;
- after each placement every seat joined by lines to a centre hex has a path; several at once
  are resolved by the card's tiebreak (`_resolve`), per centre hex or over all (shared_all);
- when no one can place, the card's draw list decides (`_standing`);
- tri2p keeps Race's blocked-player loss: a witness way per seat is searched again only when a
  tile breaks it (lands on one of its empty hexes without carrying it on, `_judge_blocked`).

Outputs: one int64 row per game in the engine's layout (tri_engine.columns).
"""

from __future__ import annotations

from . import verify as V
from .kernel import empty_links  # noqa: F401  (re-exported)
from .position import TriPosition
from .rules import WILD, dot_multiplier_table, hand_sizes, tri_tile_sets
from .tiles import BLOCK
from .tri_engine import TB_DOTS, TB_NONE, TB_ORDER, TB_POINTS, by_player, tri_seats  # noqa: F401
from .tri_tables import TriTables  # noqa: F401  (re-exported)


def tri_verify(game, trace) -> None:
    """Replay a Tri-Board trace with the pure-Python TriPosition: hands from the recorded bags,
    turn order III, II, I, every placement legal and from the mover's hand, passes only without
    a legal placement, tiles conserved, winners / tiebreak / shared mask / scores / end reason."""
    rules = trace.rules
    pos = TriPosition(rules, dots=trace.data["dots"])
    seats = list(pos.seats)
    ns = len(seats)
    order = [seats.index(s) for s in ("III", "II", "I") if s in seats]
    sets, sizes = tri_tile_sets(rules, seats)
    full_sets = [sorted(sets[q, :sizes[q]].tolist()) for q in range(ns)]
    bags, hands = V.deal(trace, full_sets, hand_sizes(rules, seats), seats)
    row = V.row_by_seat(trace, lambda cols, swapped: by_player(rules, cols, swapped))
    game_end = _replay_moves(pos, rules, trace.moves, hands, bags, order)
    wins, reason, level, tallies = _draw_list(pos, rules, *game_end)
    # conservation: board + hand + bag = the set, per seat
    for p in range(ns):
        on_board = [WILD if h in pos.wild else t for h, (s, t, _) in pos.tiles.items() if s == p]
        assert sorted(on_board + hands[p] + bags[p]) == full_sets[p], f"seat {p}: tiles not conserved"
        for what, counts in tallies.items():
            assert row[f"hexflow_{what}_{seats[p]}"] == counts[p], f"hexflow_{what}_{seats[p]}"
        assert row[f"hexflow_reach_{seats[p]}"] == min(pos.standing(p)[0], 99)
    assert game.end_reasons[row["end_reason"]] == reason, \
        f"declared {game.end_reasons[row['end_reason']]}, replay gives {reason}"
    first = next((p for p in order if p in wins), -1)
    assert row["winner"] == first, f"declared winner {row['winner']}, replay gives {first}"
    assert row["hexflow_winners"] == len(wins)
    assert row["hexflow_shared_mask"] == (sum(1 << p for p in wins) if len(wins) > 1 else 0)
    assert row["hexflow_tiebreak"] == level
    assert row["turns"] == len(trace.moves)
    assert row["first_seat"] == order[0]
    _check_scores(pos, rules, row, wins, reason)


def _replay_moves(pos, rules, moves, hands, bags, order):
    """Play the moves on pos (hands and bags updated): (winners, end reason or None or
    "stalemate", tiebreak level, per-seat tallies of passes, Blocks and Wildcards)."""
    ns = len(order)
    turns = V.PassRule(ns, False)  # no_move = "lose" is a two-seat rule
    tallies = {"passes": turns.passes, "blocks": [0] * ns, "wildcards": [0] * ns}
    blocked = [False] * ns
    wins: set[int] = set()
    reason = None
    level = TB_NONE
    for i, mv in enumerate(moves):
        assert reason is None, f"move {i} after the game ended ({reason})"
        q = pos.seats.index(mv["seat"])
        assert q == order[i % ns], f"move {i}: {mv['seat']} out of turn order"
        if mv["move"] == "pass":
            reason = turns.passed(i, pos, q, hands[q], mv["seat"])
            continue
        turns.placed()
        t = TILE_TYPES_BY_NAME[mv["tile"]]
        th = WILD if mv["wildcard"] else t
        assert th in hands[q], f"move {i}: {mv['move']} not in {mv['seat']}'s hand {hands[q]}"
        if th == WILD:
            assert t != BLOCK or rules["wildcard_block"], f"move {i}: Wildcard declared a Block"
        pos.place(q, mv["hex"], t, mv["rotation"], wildcard=th == WILD)
        V.draw_after(hands, bags, q, th)
        tallies["blocks"][q] += t == BLOCK
        tallies["wildcards"][q] += th == WILD
        reached = {p: pos.centres_reached(p) for p in range(ns)}
        joined = [p for p in range(ns) if reached[p]]
        if joined:
            wins, level = _py_resolve(pos, joined, reached, order, rules["shared_victory"])
            reason = "path" if q in wins else "opponent_path"
        elif rules["mode"] == "tri2p" and rules["blocked_player_loses"]:
            wins, reason = _py_blocked(pos, rules, q, t, blocked, wins)
    return wins, V.capped(reason, moves, rules), level, tallies


def _py_blocked(pos, rules, q, t, blocked, wins):
    """tri2p's blocking rule after q placed type t (blocked: who is cut off, updated): (winners,
    end reason or None)."""
    ns = len(blocked)
    newly = set()
    for p in range(ns):
        if not blocked[p] and not pos.can_reach(p):
            blocked[p] = True
            newly.add(p)
    if not newly or (rules["block_win_trigger"] != "any_tile" and t != BLOCK):
        return wins, None
    if q in newly and len(newly) > 1:
        return wins, "both_blocked"
    if newly - {q}:
        return {q}, "blocked"
    return set(range(ns)) - {q}, "self_blocked"


def _draw_list(pos, rules, wins, reason, level, tallies):
    """The stalemate's end reason and the card's draw list where it decides (nearest to a centre
    hex, then tile points, then dot hexes; a tie is a draw)."""
    if reason == "stalemate":
        reason = "stalemate_closest" if rules["stalemate_rule"] == "closest" else "stalemate_draw"
    if reason == "stalemate_closest" or (reason == "both_blocked" and rules["stalemate_rule"] == "closest"):
        keys = [(-pos.standing(p)[0], pos.standing(p)[1], pos.standing(p)[2]) for p in range(len(pos.seats))]
        top = max(keys)
        if keys.count(top) == 1:
            wins = {keys.index(top)}
        elif reason == "stalemate_closest":
            reason = "stalemate_draw"
    return wins, reason, level, tallies


def _check_scores(pos, rules, row, wins, reason):
    """Each winner scores base_score plus, for a path win, the dot bonuses of its best path."""

    table = dot_multiplier_table(rules, "dot_bonuses")
    bon = [int(table[d]) for d in pos.dots]
    base = rules["base_score"]
    for p, seat in enumerate(pos.seats):
        want = 0
        if p in wins:
            want = base + pos.path_value(p, bon) if reason in ("path", "opponent_path") else base
        assert row[f"score_{seat}"] == want, f"score_{seat} = {row[f'score_{seat}']}, replay gives {want}"


def _py_resolve(pos, joined, reached, order, shared):
    """Python tiebreak (independent of `_resolve`): contests = groups of seats whose reached
    centre hexes overlap (or all, shared = 'tiebreak')."""
    groups: list[set[int]] = []
    for p in joined:
        merged = {p}
        rest = []
        for g in groups:
            if shared == "tiebreak" or any(reached[p] & reached[x] for x in g):
                merged |= g
            else:
                rest.append(g)
        groups = rest + [merged]
    pts_w = [0] * pos.board.size
    dot_w = [1 if d >= 2 else 0 for d in pos.dots]
    for h in pos.tiles:
        pts_w[h] = pos.tile_points(h)
    wins, level = set(), TB_NONE
    for g in groups:
        if len(g) == 1:
            wins |= g
            continue
        key = {p: (pos.path_value(p, pts_w), pos.path_value(p, dot_w), -order.index(p)) for p in g}
        best = max(g, key=lambda p: key[p])
        wins.add(best)
        if sum(key[p][0] == key[best][0] for p in g) == 1:
            lv = TB_POINTS
        elif sum(key[p][:2] == key[best][:2] for p in g) == 1:
            lv = TB_DOTS
        else:
            lv = TB_ORDER
        level = max(level, lv)
    return wins, level


def _tile_names():
    from .tiles import TILE_TYPES as TT

    return TT, {t.name: i for i, t in enumerate(TT)}


TILE_TYPES, TILE_TYPES_BY_NAME = _tile_names()
