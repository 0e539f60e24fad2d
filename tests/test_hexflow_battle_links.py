"""HEXFLOW Battle greedy: the seats' link tables kept move by move (`_relink`) against the
table worked out from the board by definition, and the searches over them (`_cost_l`) against
the board-reading search `_cost`, on every position of random games with many displacements."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.hexflow import GAME
from sim.games.hexflow import battle as BT
from sim.games.hexflow import battle_bots as BB
from sim.games.hexflow.board import BOARD
from sim.games.hexflow.rules import Tables
from sim.games.hexflow.tiles import TILE_TYPES
from sim.games.hexflow.tri import empty_links
from tests import hexflow_reference as R
from tests.game_checks import seats_for

NH = BOARD.size


def links_by_definition(tz, nbr, ttype, towner, emask, netid, netm) -> np.ndarray:
    """lnk[q, u * 6 + s]: where seat q steps from node u (h*2: an empty hex, or network j of the
    tile on h at h*2 + j) across side s: (v << 1) | 1 onto the empty hex v // 2, v << 1 onto
    the network of a neighbouring tile whose line meets side s and which q may cross (its own,
    or transit-valid for q), -1 otherwise (no way out there, off the board, no line to meet)."""
    lnk = np.full((2, NH * 12), -1, np.int64)
    for q in range(2):
        for h in range(NH):
            for j in range(2):
                sides = (63 if j == 0 else 0) if ttype[h] < 0 else int(netm[h * 2 + j])
                for s in range(6):
                    n = int(nbr[h, s])
                    if not (sides >> s) & 1 or n < 0:
                        continue
                    o = (s + 3) % 6
                    if ttype[n] < 0:
                        lnk[q, (h * 2 + j) * 6 + s] = (n * 2) << 1 | 1
                    elif (emask[n] >> o) & 1 and (towner[n] == q or tz[q, n]):
                        lnk[q, (h * 2 + j) * 6 + s] = (n * 2 + int(netid[n * 6 + o])) << 1
    return lnk


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["allowed", "forbidden"]),
       st.sampled_from(["edge", "corners"]), st.sampled_from(["corners", "edge"]),
       st.sampled_from(["random", "greedy"]))
def test_link_tables_and_searches_match_the_board(index, home, goal, start, bot):
    check_links_along_a_game(index, home, goal, start, bot)


def test_the_check_sees_displacements():
    """The property above must meet displaced tiles (a relink after a tile leaves): some of a few
    fixed games do displace, and the check runs through them."""
    assert sum(check_links_along_a_game(i, "allowed", "edge", "corners", "greedy")
               for i in range(6)) > 0


def check_links_along_a_game(index, home, goal, start, bot) -> int:
    """Replay one Battle game move by move: after each tile, the kept link tables equal the
    definition and _cost_l equals the reference _cost. Returns the number of displacements."""
    r = GAME.resolve_rules({"mode": "battle", "battle_tokens": 22, "battle_orphan": "off",
                            "battle_transit_home": home, "battle_goal": goal,
                            "battle_start": start}, "test")
    tb = Tables(r)
    tz, startm, goalm, _, _ = BT.battle_tables(r)
    trace = GAME.play_traced(r, seats_for(GAME, r, bot), index, 11)
    ttype = np.full(NH, -1, np.int64)
    trot, towner = ttype.copy(), ttype.copy()
    emask, netm = np.zeros(NH, np.int64), np.zeros(NH * 2, np.int64)
    netid = np.full(NH * 6, -1, np.int64)
    lnk = np.stack([empty_links(tb.nbr)] * 2)
    d, d_l = np.zeros(NH * 2, np.int64), np.zeros(NH * 2, np.int64)
    dq = np.zeros(NH * 24 + 4, np.int64)  # as the kernel: 12 x 2 NH + 4
    rng = np.random.default_rng(index)
    displaced = 0
    for mv in trace.moves:
        if mv["kind"] == "pass":
            continue
        h = BOARD.hex_id(mv["hex"])
        displaced += mv["kind"] == "displace"
        t = next(i for i, x in enumerate(TILE_TYPES) if x.name == mv["tile"])
        BT._put(BT.SEATS.index(mv["seat"]), h, t, mv["rotation"], tb.net_mask, tb.emask, ttype,
                trot, towner, emask, netid, netm)
        BT._relink(h, tz, tb.nbr, ttype, towner, emask, netid, netm, lnk)
        want = links_by_definition(tz, tb.nbr, ttype, towner, emask, netid, netm)
        assert np.array_equal(lnk, want), mv
        for q in range(2):
            for src, dst in ((startm, goalm), (goalm, startm)):
                for blocked, stop in ((-1, 0), (int(rng.integers(NH)), 1)):
                    c = R._cost(q, 1, 1, blocked, stop, src, dst, tz, tb.nbr, ttype, towner,
                                 emask, netid, netm, d, dq)
                    c_l = BB._cost_l(q, blocked, stop, src, dst, lnk, tz, ttype, towner, netm,
                                     d_l, dq)
                    assert c == c_l, (mv, q, blocked)
                    if not stop:
                        assert np.array_equal(d, d_l), (mv, q)
    return displaced
