"""Greedy's per-turn tables in Four flags (bots.prepare) are kept between calls: the field per
flag and seat (rebuilt only for a surround that changed) and the enemy reach. Over random
sequences of boards, the kept tables must equal the tables computed from scratch, here in plain
Python from their definitions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.flags.bots import new_scratch, prepare
from sim.games.flags.game import tables
from sim.games.flags.geometry import LAYOUTS, N_HEX, board


def field_from_scratch(b, owner, units, seat, m, aggr):
    """field[h] = max(0.02, imp(t) * 0.7 ** steps(t, h)) over surrounding hexes t that need
    units: enemy ones (to break the surround) and empty or weak ones (to complete it)."""
    o = 1 - seat
    field = np.full(N_HEX, 0.02)
    for f in range(4):
        ts = [int(t) for t in b.flag_nbrs[f, :b.flag_nn[f]]]
        nn = len(ts)
        cnt = [sum(1 for t in ts if owner[t] == q and units[t] >= m) for q in (0, 1)]
        occ = sum(1 for t in ts if owner[t] == o)
        for t in ts:
            if owner[t] == o:
                imp = (3.0 * aggr if cnt[o] == nn else 1.5 * aggr if cnt[o] == nn - 1
                       else 0.5 + 0.5 * cnt[seat])
            elif owner[t] == -1 or units[t] < m:
                imp = max(0.3, 1.0 + cnt[seat] - 0.5 * occ)
            else:
                continue
            for h in range(N_HEX):
                if b.hd[t, h] < 12:
                    field[h] = max(field[h], imp * 0.7 ** b.hd[t, h])
    return field


def reach_from_scratch(b, owner, units, seat, die, bleed):
    """tm[h]: most units one enemy stack (other than one on h) brings to h in half a roll."""
    keep = 1 if bleed else 0
    tm = np.zeros(N_HEX, dtype=np.int64)
    for e in range(N_HEX):
        if owner[e] != 1 - seat or units[e] - keep < 1:
            continue
        for h in range(N_HEX):
            d = b.hd[e, h]
            if 1 <= d <= (die + 1) // 2:
                tm[h] = max(tm[h], units[e] - keep * d)
    return tm


@settings(max_examples=30, deadline=None)
@given(layout=st.sampled_from(LAYOUTS), m=st.integers(1, 4), die=st.integers(1, 12),
       bleed=st.booleans(), aggr=st.sampled_from([0.0, 0.7, 1.0, 2.5]), seed=st.integers(0, 2**32))
def test_kept_tables_equal_tables_from_scratch(layout, m, die, bleed, aggr, seed):
    b = board(layout)
    t = tables({"hand_size": 5, "cards_per_turn": 2, "die_sides": die, "min_hold_units": m,
                "flags_to_win": 3, "still_hold": "same", "bleed": bleed, "first_player": "roll",
                "max_turns": 200, "board": layout})
    sc = new_scratch(t)
    cnt, field, tm = sc.cnt, sc.field, sc.tm
    par = np.array([aggr, 0.25, 8.0])
    rng = np.random.default_rng(seed)
    owner = -np.ones(N_HEX, dtype=np.int64)
    units = np.zeros(N_HEX, dtype=np.int64)
    surround = b.flag_nbrs[b.flag_nbrs >= 0]
    for _ in range(40):
        # change a few hexes, mostly around the flags (where the field lives); sometimes none
        for _ in range(rng.integers(0, 4)):
            h = int(rng.choice(surround) if rng.random() < 0.7 else rng.choice(b.terr))
            owner[h] = rng.integers(-1, 2)
            units[h] = 0 if owner[h] < 0 else rng.integers(1, 3 * m + 2)
        seat = int(rng.integers(0, 2))
        score = prepare(t, seat, owner, units, par, sc)
        for q in (0, 1):
            for f in range(4):
                ts = b.flag_nbrs[f, :b.flag_nn[f]]
                assert cnt[q, f] == sum(1 for t in ts if owner[t] == q and units[t] >= m)
        assert np.allclose(field, field_from_scratch(b, owner, units, seat, m, aggr),
                           rtol=1e-12, atol=0)
        assert (tm == reach_from_scratch(b, owner, units, seat, die, bleed)).all()
        # the kept tables are exactly what a fresh scratch builds
        fresh = new_scratch(t)
        assert prepare(t, seat, owner, units, par, fresh) == score
        assert (fresh.field == field).all() and (fresh.tm == tm).all() and (fresh.cnt == cnt).all()


@settings(max_examples=25, deadline=None)
@given(layout=st.sampled_from(LAYOUTS), aggr=st.sampled_from([0.0, 1.0, 2.5]),
       seed=st.integers(0, 2**32))
def test_the_card_choice_hands_on_the_plan_a_fresh_scratch_makes(layout, aggr, seed):
    """choose_card keeps the chosen card's reinforcement plan as the plan the REINF decisions
    play (keyed on this board, seat, value and parameters): it must be the plan reinforce_plan
    makes for that card from a fresh scratch, and a choice of a card not on an own hex must
    leave no plan keyed to this board."""
    from sim.games.flags import bots as B

    b = board(layout)
    t = tables({"hand_size": 5, "cards_per_turn": 2, "die_sides": 6, "min_hold_units": 2,
                "flags_to_win": 3, "still_hold": "same", "bleed": True, "first_player": "roll",
                "max_turns": 200, "board": layout})
    par = np.array([aggr, 0.25, 8.0])
    rng = np.random.default_rng(seed)
    sc = new_scratch(t)
    card_hex = np.array(rng.choice(b.terr, t.n_cards), dtype=np.int64)
    own_cards = 0
    for _ in range(30):
        owner = rng.integers(-1, 2, N_HEX).astype(np.int64)
        units = np.where(owner >= 0, rng.integers(1, 8, N_HEX), 0).astype(np.int64)
        seat = int(rng.integers(0, 2))
        hand = np.array(rng.choice(t.n_cards, 5, replace=False), dtype=np.int64)
        i = B.choose_card(t, sc, par, seat, hand, 5, owner, units, card_hex)
        h, v = card_hex[hand[i]], t.card_val[hand[i]]
        keyed = (sc.sv[B.PLAN_SEAT] == seat and sc.sv[B.PLAN_V] == v
                 and (sc.plan_on[0] == owner).all() and (sc.plan_on[1] == units).all()
                 and (sc.fv[B.PLAN_PAR:B.PLAN_PAR + 3] == par).all())
        if owner[h] != seat:
            assert not keyed
            continue
        own_cards += 1
        assert keyed
        fresh = new_scratch(t)
        n = B.reinforce_plan(t, fresh, par, seat, v, owner, units.copy(), fresh.plan)
        assert sc.sv[B.PLAN_N] == n
        assert (sc.plan[:n] == fresh.plan[:n]).all()
        assert sc.plan[:n, 1].sum() == v
    assert own_cards > 0
