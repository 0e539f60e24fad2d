"""The Tri-Board chunk kernel (modes "tri", 3 players, and "tri2p") and the trace verifier.

The rules are engine functions in tri_engine.py (tables, position, the rule helpers and the
bots); `_play` is the chunk kernel they were ported from, one call per chunk with every array a
local. It plays the same games from the same helpers and stays for random-only line-ups, which
it plays ~1.7x faster than the engine's drivers (per-decision calls that hand the tables,
position and scratch on; docs/rules/hexflow.md, "Tri-Board on the engine"), and as the oracle
the engine is tested against (tests/test_hexflow_tri_engine.py). Every other line-up and every
traced game plays on the engine.

What Tri-Board adds to Race's rules (kernel.py):
- seats 0..ns-1 each own ONE corner (corners[q]); goals are the centre hexes (any of them);
  a corner is reserved for its owner; in tri2p the dead corner I is cut out of `nbr`;
- a hand tile may be the Wildcard (index WILD = 11), declared as a standard type when placed;
- after each placement every seat joined by lines to a centre hex has a path; several at once
  are resolved by the card's tiebreak (`_resolve`), per centre hex or over all (cfg C_SHARED);
- when no one can place, the card's draw list decides (`_standing`);
- tri2p keeps Race's blocked-player loss: a witness way per seat is re-searched only when a
  tile lands on one of its empty hexes (`_reach_goal`).

Graph nodes as in kernel.py: h*2 = empty hex h, h*2 + j = network j of the tile on h.
Outputs: one int64 row per game, O_* columns (tri_columns).
"""

from __future__ import annotations

import json

import numpy as np
from numba import njit

from sim.rng import game_seed, new_state

from .kernel import _deal, _lay_dots, _place, empty_links  # noqa: F401  (empty_links: re-exported)
from .tri_engine import (  # noqa: F401  (the rule helpers, the tables and the seats are tri_engine's)
    C_BLOCK_CHECK,
    C_BLOCK_CONNECTED,
    C_BLOCKED_LOSES,
    C_DOTS_RANDOM,
    C_HAND,
    C_MAX_TURNS,
    C_SHARED,
    C_STALEMATE,
    C_WILD_BLOCK,
    N_CFG,
    TriTables,
    _centre_mask,
    _dist_map,
    _greedy_move,
    _path_value,
    _random_move,
    _reach_goal,
    _relink,
    _standing,
    tri_seats,
)

INF = 1 << 20
BLOCK = 4
WILD = 11

# end reasons: the Race tuple's codes (rules.END_REASONS)
E_PATH, E_OPP_PATH, E_BLOCKED, E_SELF_BLOCKED, E_BOTH_BLOCKED, E_ST_CLOSEST, E_ST_DRAW, \
    E_NO_MOVE, E_TURN_CAP = range(9)
# tiebreak levels (column hexflow_tiebreak)
TB_NONE, TB_POINTS, TB_DOTS, TB_ORDER = 0, 1, 2, 3
O_WINNER, O_REASON, O_TURNS, O_FIRST, O_SHARED, O_NWIN, O_TIEBREAK = range(7)
O_SCORE = 7
O_PASS = 10
O_BLOCKS = 13
O_REACH = 16
O_WILD = 19
N_OUT = 22
BOT_RANDOM, BOT_GREEDY = 0, 1


@njit(cache=True)
def _resolve(wmask, cmask, mover, ns, order_pos, shared, corners, centres, points, dots, nbr,
             ttype, towner, emask, netid, netm, par, sn, ss, on, hc, bn, row):
    """Several seats joined a centre hex with one placement: returns the winners' bit mask and
    writes the tiebreak level. Seats whose reached centre hexes overlap (all of them when
    shared = 1, 'tiebreak') are one contest: tile points of the best path, then dot hexes of the
    best path, then the earlier seat in turn order."""
    nh = ttype.shape[0]
    pmult = np.zeros(nh, np.int64)
    dmult = np.zeros(nh, np.int64)
    for h in range(nh):
        if ttype[h] >= 0:
            pmult[h] = points[towner[h], ttype[h]]
        if dots[h] >= 2:
            dmult[h] = 1
    grp = np.arange(ns)
    for a in range(ns):
        for b in range(a + 1, ns):
            if (wmask >> a) & 1 and (wmask >> b) & 1:
                if shared == 1 or (cmask[a] & cmask[b]) != 0:
                    ga = grp[a]
                    gb = grp[b]
                    for q in range(ns):
                        if grp[q] == gb:
                            grp[q] = ga
    pts = np.zeros(ns, np.int64)
    ndh = np.zeros(ns, np.int64)
    level = TB_NONE
    win = 0
    for g in range(ns):
        members = 0
        cntm = 0
        for q in range(ns):
            if (wmask >> q) & 1 and grp[q] == g:
                members |= 1 << q
                cntm += 1
        if cntm == 0:
            continue
        if cntm == 1:
            win |= members
            continue
        for q in range(ns):
            if (members >> q) & 1:
                pts[q] = _path_value(corners[q], cmask[q], centres, nbr, ttype, emask, netid,
                                     netm, par, pmult, sn, ss, on, hc, bn)
                ndh[q] = _path_value(corners[q], cmask[q], centres, nbr, ttype, emask, netid,
                                     netm, par, dmult, sn, ss, on, hc, bn)
        bq = -1
        lv = TB_ORDER
        for q in range(ns):
            if not (members >> q) & 1:
                continue
            if bq < 0:
                bq = q
                continue
            if pts[q] != pts[bq]:
                if pts[q] > pts[bq]:
                    bq = q
            elif ndh[q] != ndh[bq]:
                if ndh[q] > ndh[bq]:
                    bq = q
            elif order_pos[q] < order_pos[bq]:
                bq = q
        # the level the contest was decided at
        top_p = pts[bq]
        n_p = 0
        n_d = 0
        for q in range(ns):
            if (members >> q) & 1:
                if pts[q] == top_p:
                    n_p += 1
                    if ndh[q] == ndh[bq]:
                        n_d += 1
        if n_p == 1:
            lv = TB_POINTS
        elif n_d == 1:
            lv = TB_DOTS
        level = max(level, lv)
        win |= 1 << bq
    row[O_TIEBREAK] = level
    return win


@njit(cache=True)
def _play(first_game, n_games, run_seed, cfg, order, bot_code, bot_par, corners, corner_owner,
          centres, is_centre, dcen, nbr, dist, n_orient, rot_of, net_mask, emask_t, points,
          tileset, dots_fixed, dot_pool, free_hexes, lnk0, res):
    """Play games first_game .. first_game + n_games - 1 of a Tri-Board mode; res[n_games, N_OUT].

    order: seats in turn order (III first). lnk0: the empty board's link table (`empty_links`),
    kept up to date only when a greedy seat reads it."""
    nh = nbr.shape[0]
    nn = nh * 2
    ns = corners.shape[0]
    nbag = tileset.shape[0]
    hand_size = cfg[C_HAND]
    block_connected = cfg[C_BLOCK_CONNECTED] != 0
    blocked_loses = cfg[C_BLOCKED_LOSES] != 0
    wild_block = cfg[C_WILD_BLOCK] != 0
    max_turns = cfg[C_MAX_TURNS]
    order_pos = np.empty(ns, np.int64)
    for k in range(ns):
        order_pos[order[k]] = k
    ttype = np.full(nh, -1, np.int64)
    trot = np.full(nh, -1, np.int64)
    towner = np.full(nh, -1, np.int64)
    emask = np.zeros(nh, np.int64)
    netid = np.full(nh * 6, -1, np.int64)
    netm = np.zeros(nn, np.int64)
    par = np.arange(nn)
    adj = np.zeros(nh, np.int64)
    need = np.zeros(nh, np.int64)
    front = np.empty(nh, np.int64)
    pos = np.full(nh, -1, np.int64)
    dots = np.empty(nh, np.int64)
    mult = np.empty(nh, np.int64)
    bag = np.empty((ns, nbag), np.int64)
    bagn = np.empty(ns, np.int64)
    hand = np.empty((ns, hand_size), np.int64)
    placed_any = np.empty(ns, np.int64)
    blocked = np.empty(ns, np.int64)
    wit = np.zeros((ns, nh), np.int64)
    seen = np.zeros(nn, np.int64)
    stamp = np.zeros(1, np.int64)
    stack = np.empty(nn * 8, np.int64)
    nopt_max = hand_size * 70
    ot = np.empty(nopt_max, np.int64)
    od = np.empty(nopt_max, np.int64)
    orr = np.empty(nopt_max, np.int64)
    fit = np.empty(64, np.int64)
    mv = np.empty(4, np.int64)
    dfw = np.empty((ns, nn), np.int64)
    dgo = np.empty(nn, np.int64)
    dq = np.empty(nn * 12 + 4, np.int64)
    crit = np.zeros((ns, nh), np.int64)
    cnt = np.empty(nh + 2, np.int64)
    a1 = np.empty((ns, 6), np.int64)
    a2 = np.empty(6, np.int64)
    src = np.empty(max(3, centres.shape[0]), np.int64)
    newc = np.empty(3 * ns, np.int64)  # new costs, current costs, costs avoiding the hex
    wq = np.empty(ns, np.float64)  # the greedy's opponent weights
    cmask = np.zeros(ns, np.int64)
    key = np.empty(ns, np.int64)  # draw-list standing per seat
    endm = np.zeros(nh, np.int64)
    sn = np.empty(nn + 1, np.int64)
    ss = np.empty(nn + 1, np.int64)
    on = np.zeros(nn, np.int64)
    hc = np.zeros(nh, np.int64)
    bn = np.empty(nn + 1, np.int64)
    shuf = free_hexes.copy()
    lnk = lnk0.copy()
    greedy = False
    for q in range(ns):
        if bot_code[q] == BOT_GREEDY:
            greedy = True
    rng = new_state(0)
    for g in range(n_games):
        rng[0] = game_seed(run_seed, first_game + g)
        if greedy:
            for i in range(lnk.shape[0]):
                lnk[i] = lnk0[i]
        for h in range(nh):
            ttype[h] = -1
            trot[h] = -1
            towner[h] = -1
            emask[h] = 0
            adj[h] = 0
            need[h] = 0
            pos[h] = -1
        for i in range(nh * 6):
            netid[i] = -1
        for i in range(nn):
            netm[i] = 0
            par[i] = i
        nfront = 0
        row = res[g]
        for c in range(row.shape[0]):
            row[c] = 0
        _lay_dots(rng, cfg[C_DOTS_RANDOM] != 0, free_hexes, dot_pool, dots_fixed, shuf, dots, mult)
        for q in range(ns):
            _deal(rng, q, tileset, nbag, bag, bagn, hand, hand_size, False, bag)
            placed_any[q] = 0
            blocked[q] = 0
            if blocked_loses:
                _reach_goal(corners[q], is_centre, dcen, nbr, ttype, emask, netid, netm, seen,
                            stamp, stack, wit[q])
        oi = 0
        turn = 0
        consec = 0
        winner = -1
        reason = -1
        wins = 0
        while True:
            if turn >= max_turns:
                reason = E_TURN_CAP
                break
            turn += 1
            cur = order[oi]
            oi = (oi + 1) % ns
            if bot_code[cur] == BOT_GREEDY:
                ok = _greedy_move(cur, rng, bot_par[cur, 0], bot_par[cur, 1], ns, block_connected, wild_block,
                                  corners, corner_owner, is_centre, centres, nbr, n_orient, rot_of,
                                  net_mask, emask_t, ttype, emask, netid, netm, par, adj, need,
                                  front, nfront, placed_any, hand, ot, od, orr, lnk, dfw, dgo, dq,
                                  crit, cnt, a1, a2, src, newc, wq, endm, mv)
            else:
                ok = _random_move(cur, rng, block_connected, wild_block, corners, corner_owner,
                                  n_orient, rot_of, emask_t, ttype, adj, need, front, nfront,
                                  placed_any, hand, ot, od, orr, fit, mv)
            if not ok:
                row[O_PASS + cur] += 1
                consec += 1
                if consec >= ns:
                    reason = E_ST_CLOSEST if cfg[C_STALEMATE] == 0 else E_ST_DRAW
                    break
                continue
            consec = 0
            h = mv[0]
            th = mv[1]
            t = mv[2]
            r = mv[3]
            nfront = _place(cur, h, t, r, nbr, net_mask, emask_t, ttype, trot, towner, emask,
                            netid, netm, par, adj, need, front, pos, nfront)
            if greedy:
                _relink(h, nbr, ttype, emask, netid, netm, lnk)
            placed_any[cur] = 1
            if t == BLOCK:
                row[O_BLOCKS + cur] += 1
            if th == WILD:
                row[O_WILD + cur] += 1
            for k in range(hand_size):
                if hand[cur, k] == th:
                    if bagn[cur] > 0:
                        bagn[cur] -= 1
                        hand[cur, k] = bag[cur, bagn[cur]]
                    else:
                        hand[cur, k] = -1
                    break
            wmask = 0
            for q in range(ns):
                cmask[q] = _centre_mask(corners[q], centres, ttype, netm, par)
                if cmask[q] != 0:
                    wmask |= 1 << q
            if wmask != 0:
                wins = wmask
                if wmask & (wmask - 1):
                    wins = _resolve(wmask, cmask, cur, ns, order_pos, cfg[C_SHARED], corners,
                                    centres, points, dots, nbr, ttype, towner, emask, netid, netm, par,
                                    sn, ss, on, hc, bn, row)
                reason = E_PATH if (wins >> cur) & 1 else E_OPP_PATH
                break
            if blocked_loses:
                newly = 0
                for q in range(ns):
                    if blocked[q] or wit[q, h] == 0:
                        continue
                    if not _reach_goal(corners[q], is_centre, dcen, nbr, ttype, emask, netid,
                                       netm, seen, stamp, stack, wit[q]):
                        blocked[q] = 1
                        newly |= 1 << q
                if newly != 0 and (cfg[C_BLOCK_CHECK] == 0 or t == BLOCK):
                    others = newly & ~(1 << cur)
                    if (newly >> cur) & 1 and others != 0:
                        reason = E_BOTH_BLOCKED
                        break
                    if others != 0:
                        wins = 1 << cur
                        reason = E_BLOCKED
                        break
                    wins = ((1 << ns) - 1) & ~(1 << cur)
                    reason = E_SELF_BLOCKED
                    break
        # resolution and scores
        for q in range(ns):
            d, pt, nd = _standing(q, corners[q], centres, dist, points, dots, ttype, towner, netm, par)
            row[O_REACH + q] = min(d, 99)
            # the card's draw list: nearest to a centre, then tile points, then dot hexes
            key[q] = (INF - d) * 1000000 + pt * 1000 + nd
        if reason == E_ST_CLOSEST or (reason == E_BOTH_BLOCKED and cfg[C_STALEMATE] == 0):
            bd = key.max()
            nb = 0
            for q in range(ns):
                if key[q] == bd:
                    nb += 1
            if nb == 1:
                for q in range(ns):
                    if key[q] == bd:
                        wins = 1 << q
            if reason == E_ST_CLOSEST and wins == 0:
                reason = E_ST_DRAW
        nwin = 0
        for k in range(ns):
            q = order[k]
            if (wins >> q) & 1:
                nwin += 1
                if winner < 0:
                    winner = q
                if reason == E_PATH or reason == E_OPP_PATH:
                    cq = _centre_mask(corners[q], centres, ttype, netm, par)
                    row[O_SCORE + q] = 10 + _path_value(corners[q], cq, centres, nbr, ttype,
                                                        emask, netid, netm, par, mult, sn, ss, on,
                                                        hc, bn)
                else:
                    row[O_SCORE + q] = 10
        row[O_WINNER] = winner
        row[O_REASON] = reason
        row[O_TURNS] = turn
        row[O_FIRST] = order[0]
        row[O_SHARED] = wins if nwin > 1 else 0
        row[O_NWIN] = nwin


# ---- Python side: tables, the thin wrapper, outcome columns -------------------------------------

def tri_columns(rules) -> list[tuple[str, int, object]]:
    seats = tri_seats(rules)
    cols = [("winner", O_WINNER, np.int8), ("end_reason", O_REASON, np.int8),
            ("turns", O_TURNS, np.int32), ("first_seat", O_FIRST, np.int8)]
    cols += [(f"score_{s}", O_SCORE + q, np.int32) for q, s in enumerate(seats)]
    cols += [("hexflow_shared_mask", O_SHARED, np.int8), ("hexflow_winners", O_NWIN, np.int8),
             ("hexflow_tiebreak", O_TIEBREAK, np.int8)]
    for what, base, dt in (("passes", O_PASS, np.int16), ("blocks", O_BLOCKS, np.int8),
                           ("reach", O_REACH, np.int8), ("wildcards", O_WILD, np.int8)):
        cols += [(f"hexflow_{what}_{s}", base + q, dt) for q, s in enumerate(seats)]
    return cols


_TRI_TABLES: dict[str, TriTables] = {}


def tri_tables(rules) -> TriTables:
    """TriTables of a rule set, built once per process (the chunks of a run share them)."""
    key = json.dumps(rules, sort_keys=True)
    if key not in _TRI_TABLES:
        _TRI_TABLES[key] = TriTables(rules)
    return _TRI_TABLES[key]


def tri_run(rules, seats, first_game, n_games, run_seed) -> np.ndarray:
    """Result rows (the O_* columns) of games first_game .. first_game + n_games - 1 by _play."""
    from .rules import N_BOT_PARAMS

    tb = tri_tables(rules)
    ns = len(tb.seats)
    if len(seats) != ns:
        raise ValueError(f"hexflow {rules['mode']} needs {ns} seats, got {len(seats)}")
    codes = np.array([s.bot.code for s in seats], dtype=np.int64)
    par = np.zeros((ns, N_BOT_PARAMS), dtype=np.float64)
    for i, s in enumerate(seats):
        v = s.param_vector()
        par[i, : len(v)] = v
    res = np.zeros((n_games, N_OUT), dtype=np.int64)
    _play(np.int64(first_game), np.int64(n_games), np.uint64(run_seed), tb.cfg, tb.order, codes,
          par, tb.corners, tb.corner_owner, tb.centres, tb.is_centre, tb.dcen, tb.nbr, tb.dist,
          tb.n_orient, tb.rot_of, tb.net_mask, tb.emask, tb.points, tb.tileset, tb.dots,
          tb.dot_pool, tb.free, tb.lnk0, res)
    return res


def tri_verify(game, trace) -> None:
    """Replay a Tri-Board trace with the pure-Python TriPosition: hands from the recorded bags,
    turn order III, II, I, every placement legal and from the mover's hand, passes only without
    a legal placement, tiles conserved, winners / tiebreak / shared mask / scores / end reason."""
    from .position import TriPosition
    from .rules import dot_multiplier_table, hand_sizes
    from .tri_engine import by_player, tri_tile_sets

    rules = trace.rules
    pos = TriPosition(rules, dots=trace.data["dots"])
    seats = list(pos.seats)
    ns = len(seats)
    order = [seats.index(s) for s in ("III", "II", "I") if s in seats]
    bags = [list(b) for b in trace.data["bags"]]
    sets, sizes = tri_tile_sets(rules, seats)
    full_sets = [sorted(sets[q, :sizes[q]].tolist()) for q in range(ns)]
    for q in range(ns):
        assert sorted(bags[q]) == full_sets[q], f"seat {seats[q]}'s bag is not its tile set"
    hands = [[bags[q].pop() for _ in range(min(hs, len(bags[q])))]
             for q, hs in enumerate(hand_sizes(rules, seats))]
    row = trace.row
    moves = trace.moves
    if trace.data.get("swapped"):  # the pie rule: the row is by player, the board by seat
        assert rules["swap"], "a swap without the pie rule"
        assert moves[1].get("after_swap"), "the swap is not at the second decision"
        row = {k: np.asarray(v).item() for k, v in
               by_player(rules, {k: np.asarray(v) for k, v in row.items()}, np.array(True)).items()}
    else:
        assert not any(m.get("after_swap") for m in moves), "a swap move in an unswapped game"
    passes, blocks, wilds = [0] * ns, [0] * ns, [0] * ns
    blocked = [False] * ns
    consec = 0
    wins: set[int] = set()
    reason = None
    level = TB_NONE
    tri2p_block = rules["mode"] == "tri2p" and rules["blocked_player_loses"]
    for i, mv in enumerate(moves):
        assert reason is None, f"move {i} after the game ended ({reason})"
        q = seats.index(mv["seat"])
        assert q == order[i % ns], f"move {i}: {mv['seat']} out of turn order"
        if mv["move"] == "pass":
            legal = pos.legal_moves(q, hands[q]) if hands[q] else []
            assert not legal, f"move {i}: {mv['seat']} passed with {len(legal)} legal moves"
            passes[q] += 1
            consec += 1
            if consec >= ns:
                reason = "stalemate"
            continue
        consec = 0
        t = TILE_TYPES_BY_NAME[mv["tile"]]
        th = WILD if mv["wildcard"] else t
        assert th in hands[q], f"move {i}: {mv['move']} not in {mv['seat']}'s hand {hands[q]}"
        if th == WILD:
            assert t != BLOCK or rules["wildcard_block"], f"move {i}: Wildcard declared a Block"
        pos.place(q, mv["hex"], t, mv["rotation"], wildcard=th == WILD)
        hands[q].remove(th)
        if bags[q]:
            hands[q].append(bags[q].pop())
        blocks[q] += t == BLOCK
        wilds[q] += th == WILD
        reached = {p: pos.centres_reached(p) for p in range(ns)}
        joined = [p for p in range(ns) if reached[p]]
        if joined:
            wins, level = _py_resolve(pos, joined, reached, order, rules["shared_victory"])
            reason = "path" if q in wins else "opponent_path"
            continue
        if tri2p_block:
            newly = set()
            for p in range(ns):
                if not blocked[p] and not pos.can_reach(p):
                    blocked[p] = True
                    newly.add(p)
            if newly and (rules["block_win_trigger"] == "any_tile" or t == BLOCK):
                if q in newly and len(newly) > 1:
                    reason = "both_blocked"
                elif newly - {q}:
                    wins, reason = {q}, "blocked"
                else:
                    wins, reason = set(range(ns)) - {q}, "self_blocked"
    if reason is None:
        assert len(moves) >= rules["max_turns"], "game stopped with no end reason"
        reason = "turn_cap"
    if reason == "stalemate":
        reason = "stalemate_closest" if rules["stalemate_rule"] == "closest" else "stalemate_draw"
    if reason == "stalemate_closest" or (reason == "both_blocked"
                                         and rules["stalemate_rule"] == "closest"):
        keys = [(-pos.standing(p)[0], pos.standing(p)[1], pos.standing(p)[2]) for p in range(ns)]
        top = max(keys)
        if keys.count(top) == 1:
            wins = {keys.index(top)}
        elif reason == "stalemate_closest":
            reason = "stalemate_draw"
    # conservation: board + hand + bag = the set, per seat
    for p in range(ns):
        on_board = [WILD if h in pos.wild else t for h, (s, t, _) in pos.tiles.items() if s == p]
        assert sorted(on_board + hands[p] + bags[p]) == full_sets[p], f"seat {p}: tiles not conserved"
        assert row[f"hexflow_passes_{seats[p]}"] == passes[p]
        assert row[f"hexflow_blocks_{seats[p]}"] == blocks[p]
        assert row[f"hexflow_wildcards_{seats[p]}"] == wilds[p]
        assert row[f"hexflow_reach_{seats[p]}"] == min(pos.standing(p)[0], 99)
    assert game.end_reasons[row["end_reason"]] == reason, \
        f"declared {game.end_reasons[row['end_reason']]}, replay gives {reason}"
    first = next((p for p in order if p in wins), -1)
    assert row["winner"] == first, f"declared winner {row['winner']}, replay gives {first}"
    assert row["hexflow_winners"] == len(wins)
    assert row["hexflow_shared_mask"] == (sum(1 << p for p in wins) if len(wins) > 1 else 0)
    assert row["hexflow_tiebreak"] == level
    assert row["turns"] == len(moves)
    assert row["first_seat"] == order[0]
    table = dot_multiplier_table(rules, "dot_bonuses")
    bon = [int(table[d]) for d in pos.dots]
    base = rules["base_score"]
    for p in range(ns):
        want = 0
        if p in wins:
            want = base + pos.path_value(p, bon) if reason in ("path", "opponent_path") else base
        assert row[f"score_{seats[p]}"] == want, \
            f"score_{seats[p]} = {row[f'score_{seats[p]}']}, replay gives {want}"


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
