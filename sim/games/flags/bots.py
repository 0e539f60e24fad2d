"""Bots of Four flags on the engine interface: `bot_move` (greedy; the random bot is the
engine's uniform bot over `legal_moves`), greedy's evaluation (`evaluate`) and its scratch.

Greedy reads only what its seat sees: its own hand row, the board (owner, units, card labels),
the public counters of the position (phase, pending step, reinforcement) and the rules. Never
the other hand, the deck order or anything else hidden.

Greedy scores a position from its own side as
    flag terms   sum over flags of fv(counted neighbours) + gv(flags held), minus the opponent's
                 (times aggression): a counted neighbour is one of the player's hexes with at
                 least min_hold units; fv grows with the square of the count, with a bonus when
                 the flag is held, gv jumps when the player holds flags_to_win flags;
    field        each spare unit (beyond what its hex needs) is worth field[hex]: how near the
                 hex is to surrounding hexes that need units (own surrounds to complete, enemy
                 surrounds to break), falling off as 0.7 ** distance;
    territory    each hex held is worth `territory` (own cards pointing there reinforce, the
                 opponent's are wasted);
    defence      own hexes an enemy stack within half a die roll could take count as at risk
                 (times defence).
It plays the card with the best score change, spends reinforcements where they complete or
protect a surround (planned once per card, then played one unit per decision), and makes move
steps one at a time while one improves the score (the step's unit count is the second decision
of the step, the best count for the chosen pair).

Every table greedy keeps in its scratch between decisions (enemy reach, the field per flag) is
keyed on the board it was built from, so a decision never depends on what the scratch saw
before: the same position gives the same move with a fresh scratch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.engine.jit import entry, hot, hot_fused, hot_inline, kernel
from sim.games.flags.kernel import (
    CARD,
    CARD_HEX,
    COUNT,
    FLAG_NN,
    FLAG_OF,
    HAND_N,
    IS_FLAG,
    MV_CARD,
    MV_COUNT,
    MV_REINF,
    MV_STEP,
    MV_STOP,
    NBR_N,
    OVER,
    PEND,
    PHASE,
    REINF,
    REINF_V,
    WINNER,
)

BOT_GREEDY = 1
GREEDY_DEFAULTS = (1.0, 0.25, 8.0)  # aggression, defence, territory (game.py's schema)
_DEFAULT_PAR = np.array(GREEDY_DEFAULTS)
W_FLAG = 3.0
_DECAY = np.array([0.7 ** d for d in range(12)])  # field falls off with distance
EPS = 1e-6
# scratch.sv fields
TM_SEAT, FIELD_SEAT, PLAN_N, PLAN_SEAT, PLAN_V, STEP_SEAT, STEP_PAIR, STEP_K = range(8)
# scratch.fv fields: aggression each seat's field was built with, the plan's and the step's
# parameters
AGGR_OF, PLAN_PAR, STEP_PAR = 0, 2, 5
# scratch.w: what the evaluation weighs with (bot parameters, the flag score now, two rules)
W_AGGR, W_DFN, W_TW, W_BASE, W_M, W_FTW = range(6)


class Scratch(NamedTuple):
    cnt: np.ndarray  # int64[3, 4]: counted neighbours of flag f for seat q; row 2: the
    #                  flag's neighbour count (all of them counted: the flag is held)
    field: np.ndarray  # float64[56]: worth of one spare unit on a hex (for sv[FIELD_SEAT])
    tm: np.ndarray  # int64[56]: most units one enemy stack brings to a hex in half a roll
    tm_of: np.ndarray  # int64[56]: the enemy stacks tm was built from (units, 0 elsewhere)
    fpart: np.ndarray  # float64[2, 4, 56]: each seat's field per flag ...
    fsig: np.ndarray  # int64[2, 4]: ... and the surround it was built for
    ks: np.ndarray  # int64[4]: unit counts a step tries
    mv: np.ndarray  # int64[3]: the step chosen (source, slot, units), source -1: stop
    alloc: np.ndarray  # int64[56, 2]: a reinforcement being tried
    plan: np.ndarray  # int64[56, 2]: the reinforcement being played, (hex, units) entries
    plan_on: np.ndarray  # int64[2, 56]: owner and units the plan was made on
    step_on: np.ndarray  # int64[2, 56]: owner and units the last step was chosen on
    sv: np.ndarray  # int64[8]: the fields named above
    fv: np.ndarray  # float64[8]
    w: np.ndarray  # float64[6]: W_* above, set by prepare
    # (shapes with the card's board, n_hex = 56; alloc and plan have n_hex + top card value rows)


@kernel
def new_scratch(t):
    sv = np.zeros(8, np.int64)
    sv[TM_SEAT] = -1
    sv[FIELD_SEAT] = -1
    sv[PLAN_SEAT] = -1
    sv[STEP_SEAT] = -1
    cnt = np.zeros((3, 4), np.int64)
    for f in range(cnt.shape[1]):  # element by element: docs/writing-a-game.md, "Compile time"
        cnt[2, f] = t.flags[f, FLAG_NN]
    n = t.n_hex
    entries = n + t.card_val.max()  # a reinforcement's (hex, units) entries: at most its units
    return Scratch(cnt, np.zeros(n), np.zeros(n, np.int64),
                   np.zeros(n, np.int64), np.zeros((2, 4, n)), -np.ones((2, 4), np.int64),
                   np.zeros(4, np.int64), np.zeros(3, np.int64), np.zeros((entries, 2), np.int64),
                   np.zeros((entries, 2), np.int64), np.zeros((2, n), np.int64),
                   np.zeros((2, n), np.int64), sv, -np.ones(8), np.zeros(6))


@entry
def decay_table(near):
    """dec[t, h] = 0.7 ** (steps from t to h), 0 beyond 11 steps or through a flag."""
    n = near.shape[0]
    dec = np.zeros((n, n))
    for t in range(n):
        for j in range(n):
            d = near[t, j, 1]
            if d >= 12:
                break
            dec[t, near[t, j, 0]] = _DECAY[d]
    return dec


# ---- the per-decision tables -----------------------------------------------------------------
# Hot loops read rule tables and scratch arrays through locals bound once at the top: taking an
# array out of a NamedTuple inside a loop costs reference counting on every pass.
@hot_fused
def _reach(t, seat, owner, units, sc):
    """sc.tm[h]: most units one enemy stack can bring to h within half a die roll; rebuilt only
    when the enemy's stacks (or the seat) differ from the ones it was built from."""
    o = 1 - seat
    tm, snap, near = sc.tm, sc.tm_of, t.near
    same = sc.sv[TM_SEAT] == seat
    for h in range(owner.shape[0]):
        x = units[h] if owner[h] == o else 0
        if x != snap[h]:
            same = False
            snap[h] = x
    if same:
        return
    sc.sv[TM_SEAT] = seat
    keep = t.keep
    reach = (t.die_sides + 1) // 2
    for h in range(owner.shape[0]):
        tm[h] = 0
    for e in range(owner.shape[0]):
        ue = units[e]
        if owner[e] != o or ue - keep < 1:
            continue
        # with the bleed a stack brings ue - d units d steps away: none from ue steps on
        lim = reach if keep == 0 or ue > reach else ue - 1
        for j in range(1, owner.shape[0]):  # j = 0 is e itself
            d = near[e, j, 1]
            if d > lim:
                break
            h = near[e, j, 0]
            x = ue - keep * d
            if x > tm[h]:
                tm[h] = x


@hot
def _flag_pull(t, seat, f, owner, units, aggr, sc):
    """fpart[seat, f]: the pull of flag f's surround on spare units."""
    o = 1 - seat
    cnt, fpart, dec, nbrs = sc.cnt, sc.fpart, t.dec, t.flags
    nn = cnt[2, f]
    m = t.min_hold
    for h in range(owner.shape[0]):
        fpart[seat, f, h] = 0.02
    occ = 0
    for i in range(nn):
        if owner[nbrs[f, i]] == o:
            occ += 1
    for i in range(nn):
        x = nbrs[f, i]
        if owner[x] == o:
            if cnt[o, f] == nn:
                imp = 3.0 * aggr
            elif cnt[o, f] == nn - 1:
                imp = 1.5 * aggr
            else:
                imp = 0.5 + 0.5 * cnt[seat, f]
        elif owner[x] == -1 or units[x] < m:
            imp = 1.0 + cnt[seat, f] - 0.5 * occ
            if imp < 0.3:
                imp = 0.3
        else:
            continue
        for h in range(owner.shape[0]):
            fpart[seat, f, h] = max(fpart[seat, f, h], imp * dec[x, h])


@hot_fused
def prepare(t, seat, owner, units, par, sc):
    """Bring greedy's tables up to date for this board; returns the flag score (also w[W_BASE]).

    cnt[q, f]: counted neighbours of flag f for seat q. field[h]: worth of one spare unit on h
    (near flag hexes that need units: own surrounds to complete, enemy surrounds to break),
    the largest pull of any flag; a flag's pull only depends on who holds its surrounding hexes
    and which of them count, so each seat keeps it per flag and rebuilds it only when that
    surround changed (a max does not depend on the order). tm: see _reach."""
    aggr = par[0]
    w, fsig, nbrs, cnt = sc.w, sc.fsig, t.flags, sc.cnt
    w[W_AGGR] = aggr
    w[W_DFN] = par[1]
    w[W_TW] = par[2]
    w[W_M] = t.min_hold
    w[W_FTW] = t.flags_to_win
    _reach(t, seat, owner, units, sc)
    m = t.min_hold
    _counts(owner, units, nbrs, m, cnt)
    if sc.fv[AGGR_OF + seat] != aggr:
        sc.fv[AGGR_OF + seat] = aggr
        fsig[seat, :] = -1
    changed = sc.sv[FIELD_SEAT] != seat
    for f in range(4):
        sig = 0
        for i in range(cnt[2, f]):
            x = nbrs[f, i]
            sig = sig * 5 + (0 if owner[x] < 0 else 1 + 2 * owner[x] + (1 if units[x] >= m else 0))
        if sig != fsig[seat, f]:
            fsig[seat, f] = sig
            changed = True
            _flag_pull(t, seat, f, owner, units, aggr, sc)
    if changed:
        fp, field = sc.fpart, sc.field
        for h in range(owner.shape[0]):
            field[h] = max(max(fp[seat, 0, h], fp[seat, 1, h]), max(fp[seat, 2, h], fp[seat, 3, h]))
        sc.sv[FIELD_SEAT] = seat
    w[W_BASE] = _flag_score(cnt, seat, w)
    return w[W_BASE]


@hot
def _counts(owner, units, flag_nbrs, m, cnt):
    """cnt[q, f] = neighbours of flag f held by seat q with >= m units (row 2: how many)."""
    for f in range(4):
        cnt[0, f] = 0
        cnt[1, f] = 0
        for i in range(cnt[2, f]):
            h = flag_nbrs[f, i]
            if owner[h] >= 0 and units[h] >= m:
                cnt[owner[h], f] += 1


@hot
def _flag_score(cnt, seat, w):
    ftw = np.int64(w[W_FTW])
    mine = 0.0
    theirs = 0.0
    hm = 0
    ho = 0
    for f in range(4):
        nn = cnt[2, f]
        k = cnt[seat, f]
        mine += k * k + (6.0 if k == nn else 0.0)
        hm += 1 if k == nn else 0
        k = cnt[1 - seat, f]
        theirs += k * k + (6.0 if k == nn else 0.0)
        ho += 1 if k == nn else 0
    mine += 3.0 * hm * hm + (60.0 if hm >= ftw else 0.0)
    theirs += 3.0 * ho * ho + (60.0 if ho >= ftw else 0.0)
    return W_FLAG * (mine - w[W_AGGR] * theirs)


# The helpers below take scalars only: array arguments to a numba function cost reference
# counting on every call, which made the evaluation several times slower.
@hot
def _risk(u, field_h, fo, cs, nn):
    """What losing an own hex (u units; fo its flag or -1, cs counted neighbours of that flag,
    nn its neighbour count) to the enemy would cost."""
    r = 0.3 * u * field_h
    if fo >= 0:
        r += W_FLAG * (2.0 * cs + 1.0)
        if cs == nn:
            r += 3.0 * W_FLAG
    return r


@hot
def _hex_value(o, u, seat, fo, cs, nn, field_h, tm_h, m, dfn, tw):
    """Worth of (owner o, u units) on a hex to seat, apart from the flag score."""
    if o != seat:
        return 0.0
    need = 0
    if fo >= 0:
        need = m if m > tm_h + 1 else tm_h + 1
    v = tw + 0.01 * u  # holding the hex: own cards pointing here reinforce, theirs are wasted
    if u > need:
        v += (u - need) * field_h
    if tm_h >= u:
        v -= dfn * _risk(u, field_h, fo, cs, nn)
    return v


@hot
def _counted(o, u, m):
    return o >= 0 and u >= m


@hot
def _recount(cnt, f, o, u, o_new, u_new, m):
    """A hex around flag f (f = -1: none, nothing to do) goes from (o, u) to (o_new, u_new):
    move its count in cnt. Called again with the states swapped, it undoes itself."""
    if f >= 0:
        if _counted(o, u, m):
            cnt[o, f] -= 1
        if _counted(o_new, u_new, m):
            cnt[o_new, f] += 1


# inlined into its callers (by LLVM: `hot_fused`), which pass the arrays they bound once: array
# arguments' reference counting on every call cost more than the evaluation (greedy vs greedy
# 1,840-1,900 -> 2,160-2,270 games/s per core)
@hot_fused
def delta(seat, h1, u1n, h2, u2n, owner, units, cnt, field, tm, flag_of, w):
    """Score change when the seat's hex h1 (or -1) keeps u1n units (0: it empties) and the
    seat holds hex h2 with u2n units (a placement, reinforcement or step)."""
    m = np.int64(w[W_M])
    dfn = w[W_DFN]
    tw = w[W_TW]
    o1n = seat if u1n > 0 else -1
    d = 0.0
    f1 = flag_of[h1] if h1 >= 0 else -1
    f2 = flag_of[h2]
    o1 = owner[h1] if h1 >= 0 else -1
    u1 = units[h1] if h1 >= 0 else 0
    o2 = owner[h2]
    u2 = units[h2]
    c1 = f1 >= 0 and (_counted(o1, u1, m) != _counted(o1n, u1n, m) or
                      (_counted(o1, u1, m) and o1 != o1n))
    c2 = f2 >= 0 and (_counted(o2, u2, m) != _counted(seat, u2n, m) or
                      (_counted(o2, u2, m) and o2 != seat))
    if c1 or c2:  # some surround count changes: score the counts as they would be, then undo
        _recount(cnt, f1, o1, u1, o1n, u1n, m)
        _recount(cnt, f2, o2, u2, seat, u2n, m)
        d += _flag_score(cnt, seat, w) - w[W_BASE]
        _recount(cnt, f2, seat, u2n, o2, u2, m)
        _recount(cnt, f1, o1n, u1n, o1, u1, m)
    if h1 >= 0:
        cs = cnt[seat, f1] if f1 >= 0 else 0
        nn = cnt[2, f1] if f1 >= 0 else 0
        d += (_hex_value(o1n, u1n, seat, f1, cs, nn, field[h1], tm[h1], m, dfn, tw)
              - _hex_value(o1, u1, seat, f1, cs, nn, field[h1], tm[h1], m, dfn, tw))
    cs = cnt[seat, f2] if f2 >= 0 else 0
    nn = cnt[2, f2] if f2 >= 0 else 0
    d += (_hex_value(seat, u2n, seat, f2, cs, nn, field[h2], tm[h2], m, dfn, tw)
          - _hex_value(o2, u2, seat, f2, cs, nn, field[h2], tm[h2], m, dfn, tw))
    return d


@hot
def _merge(alloc, n):
    """Merge alloc[:n] entries of the same hex (first occurrence's place); returns the count."""
    k = 0
    for j in range(n):
        found = False
        for i in range(k):
            if alloc[i, 0] == alloc[j, 0]:
                alloc[i, 1] += alloc[j, 1]
                found = True
        if not found:
            alloc[k, 0] = alloc[j, 0]
            alloc[k, 1] = alloc[j, 1]
            k += 1
    return k


@hot
def _greedy_reinforce(seat, v, owner, units, alloc, cnt, field, tm, w, flag_of):
    """Spend v units on own hexes: first where a few units complete or protect a surround (best
    gain per unit), the rest on the safe own hex where a spare unit is worth most.
    Needs prepare() done (cnt, field, tm, w are its tables). Returns (entries, gain); the board
    and the tables are left unchanged."""
    m = np.int64(w[W_M])
    base0 = w[W_BASE]
    rem = v
    n = 0
    gain = 0.0
    while rem > 0:
        w[W_BASE] = _flag_score(cnt, seat, w)
        best_r = -1e18
        best_h = -1
        best_a = 0
        # the spare-unit hex: most field among own hexes the enemy cannot take
        spare = -1
        for h in range(owner.shape[0]):
            if owner[h] == seat and (spare < 0 or field[h] > field[spare]) and tm[h] < units[h] + rem:
                spare = h
        for h in range(owner.shape[0]):
            if owner[h] != seat:
                continue
            u = units[h]
            if flag_of[h] >= 0 and (u < m or tm[h] >= u):
                a = m - u if u < m else tm[h] - u + 1
                if u < m and tm[h] >= m:
                    a = tm[h] - u + 1
            elif h == spare:
                a = rem
            else:
                continue
            if a > rem:
                a = rem
            g = delta(seat, -1, 0, h, u + a, owner, units, cnt, field, tm, flag_of, w)
            if g / a > best_r:
                best_r = g / a
                best_h = h
                best_a = a
        if best_h < 0:  # no own hex qualifies (cannot happen: the card's hex is own): any own hex
            for h in range(owner.shape[0]):
                if owner[h] == seat:
                    best_h = h
                    best_a = rem
                    best_r = 0.0
                    break
        gain += best_r * best_a
        _recount(cnt, flag_of[best_h], seat, units[best_h], seat, units[best_h] + best_a, m)
        units[best_h] += best_a
        alloc[n, 0] = best_h
        alloc[n, 1] = best_a
        n += 1
        rem -= best_a
    for j in range(n - 1, -1, -1):
        h = alloc[j, 0]
        _recount(cnt, flag_of[h], seat, units[h], seat, units[h] - alloc[j, 1], m)
        units[h] -= alloc[j, 1]
    w[W_BASE] = base0
    return _merge(alloc, n), gain


# ---- decisions ------------------------------------------------------------------------------------
# Each takes only what its seat sees: its own hand row and public state.
@hot
def choose_card(t, sc, par, seat, hand, hn, owner, units, card_hex):
    """Index into `hand` (own cards only) of the card to play next. A card on an own hex is
    judged by its reinforcement plan; the chosen card's plan is kept as the plan the REINF
    decisions that follow play (`_next_unit`, keyed on this board), so it is not made twice."""
    prepare(t, seat, owner, units, par, sc)
    cnt, field, tm, w, flag_of, alloc = sc.cnt, sc.field, sc.tm, sc.w, t.hexinfo[FLAG_OF], sc.alloc
    plan, sv = sc.plan, sc.sv
    best = -1e18
    bi = 0
    planned = False
    for i in range(hn):
        card = hand[i]
        h = card_hex[card]
        v = t.card_val[card]
        n = 0
        if owner[h] == -1:
            val = delta(seat, -1, 0, h, v, owner, units, cnt, field, tm, flag_of, w)
        elif owner[h] == seat:
            n, val = _greedy_reinforce(seat, v, owner, units, alloc, cnt, field, tm, w, flag_of)
        else:
            val = -0.001 * v  # wasted: throw away the lowest card
        if val > best:
            best = val
            bi = i
            planned = n > 0
            if planned:
                sv[PLAN_SEAT] = -1  # the plan's key is set below, once the choice is made
                sv[PLAN_V] = v
                sv[PLAN_N] = n
                for j in range(n):
                    plan[j, 0] = alloc[j, 0]
                    plan[j, 1] = alloc[j, 1]
    if planned:
        sv[PLAN_SEAT] = seat
        for i in range(3):
            sc.fv[PLAN_PAR + i] = par[i]
        _hold_board(sc.plan_on, owner, units, None)
    return bi


@hot
def reinforce_plan(t, sc, par, seat, v, owner, units, alloc):
    """Distribute v units over own hexes: alloc[:n] = (hex, units); returns n."""
    prepare(t, seat, owner, units, par, sc)
    return _greedy_reinforce(seat, v, owner, units, alloc, sc.cnt, sc.field, sc.tm, sc.w,
                             t.hexinfo[FLAG_OF])[0]


@hot_inline
def _hold_board(on, owner, units, less):
    """Is the board (owner, units - less; less None: units) the one `on` holds? on := that
    board either way. Without a branch per hex, so the compare runs as vector operations."""
    o, u = on[0], on[1]
    same = True
    for h in range(owner.shape[0]):
        b = units[h] if less is None else units[h] - less[h]
        same &= (o[h] == owner[h]) & (u[h] == b)
        o[h] = owner[h]
        u[h] = b
    return same


@hot_inline
def _next_unit(t, sc, par, seat, v, owner, units, placed):
    """The hex of the reinforcement's next unit: the plan for the board before this card's
    units (units - placed), entry by entry. The plan is kept while that board, v, the seat and
    the parameters are the ones it was made for."""
    on = sc.plan_on
    same = (sc.sv[PLAN_SEAT] == seat and sc.sv[PLAN_V] == v and sc.fv[PLAN_PAR] == par[0]
            and sc.fv[PLAN_PAR + 1] == par[1] and sc.fv[PLAN_PAR + 2] == par[2])
    same = _hold_board(on, owner, units, placed) and same
    if not same:
        sc.sv[PLAN_SEAT] = seat
        sc.sv[PLAN_V] = v
        for i in range(3):
            sc.fv[PLAN_PAR + i] = par[i]
        sc.sv[PLAN_N] = reinforce_plan(t, sc, par, seat, v, owner, on[1], sc.plan)
    plan = sc.plan
    for j in range(sc.sv[PLAN_N]):
        if placed[plan[j, 0]] < plan[j, 1]:
            return plan[j, 0]
    return plan[0, 0]


@hot_fused
def _step_counts(seat, u, od, ud, fs, fd, tm_src, m, keep, ks):
    """Unit counts worth trying for a step of a u-stack (fs: its flag) onto a hex of od with ud
    units (fd: its flag): all that may move; only the spare units from a hex that surrounds a
    flag; just enough to beat the defender (and to keep min_hold there); just enough to make a
    surrounding hex count. 0: none."""
    spare = u - (m if m > tm_src + 1 else tm_src + 1)
    ks[0] = u - keep if fs < 0 or od == 1 - seat else 0
    ks[1] = spare if fs >= 0 else 0
    ks[2] = 0
    ks[3] = 0
    if od == 1 - seat:
        ks[2] = ud + 1
        ks[3] = ud + m
    elif fd >= 0:
        ks[2] = m - (ud if od == seat else 0)


@hot_inline
def _wear_delta(seat, src, u1n, dst, u2n, owner, units, cnt, field, tm, flag_of, w):
    """Score change of an attack that does not take the enemy hex dst (attacks = "attrition"):
    the seat's src keeps u1n units (0: it empties), dst keeps u2n enemy units (0: it empties)."""
    m = np.int64(w[W_M])
    o1n = seat if u1n > 0 else -1
    o = owner[dst]
    o2n = o if u2n > 0 else -1
    f1 = flag_of[src]
    f2 = flag_of[dst]
    u1 = units[src]
    u2 = units[dst]
    _recount(cnt, f1, seat, u1, o1n, u1n, m)
    _recount(cnt, f2, o, u2, o2n, u2n, m)
    d = _flag_score(cnt, seat, w) - w[W_BASE]
    _recount(cnt, f2, o2n, u2n, o, u2, m)
    _recount(cnt, f1, o1n, u1n, seat, u1, m)
    cs = cnt[seat, f1] if f1 >= 0 else 0
    nn = cnt[2, f1] if f1 >= 0 else 0
    dfn, tw = w[W_DFN], w[W_TW]
    d += (_hex_value(o1n, u1n, seat, f1, cs, nn, field[src], tm[src], m, dfn, tw)
          - _hex_value(seat, u1, seat, f1, cs, nn, field[src], tm[src], m, dfn, tw))
    return d


@hot
def choose_step(t, sc, par, seat, owner, units, fix, mv):
    """Next move step: mv = (src, slot, k) with dst = nbr[src, slot], or mv[0] = -1 to stop.
    fix >= 0 (src * 6 + slot): the pair is chosen, only its best count is wanted."""
    prepare(t, seat, owner, units, par, sc)
    cnt, field, tm, w, ks = sc.cnt, sc.field, sc.tm, sc.w, sc.ks
    nbr, keep, m = t.nbr, t.keep, t.min_hold
    nbr_n, is_flag, flag_of = t.hexinfo[NBR_N], t.hexinfo[IS_FLAG], t.hexinfo[FLAG_OF]
    o = 1 - seat
    best = EPS if fix < 0 else -np.inf
    mv[0] = -1
    for src in range(owner.shape[0]):
        u = units[src]
        kmax = u - keep
        if owner[src] != seat or kmax < 1 or (fix >= 0 and src != fix // 6):
            continue
        for i in range(nbr_n[src]):
            dst = nbr[src, i]
            od = owner[dst]
            ud = units[dst]
            if is_flag[dst] == 1 or (fix >= 0 and i != fix % 6):
                continue
            if od == o and kmax <= ud:
                if t.attrition == 1:  # a failed or equal attack, all that may move: it wears down
                    val = _wear_delta(seat, src, u - kmax, dst, ud - kmax, owner, units, cnt, field, tm,
                                      flag_of, w)
                    if val > best:
                        best = val
                        mv[0] = src
                        mv[1] = i
                        mv[2] = kmax
                continue
            if (fix < 0 and od != o and flag_of[src] < 0 and flag_of[dst] < 0
                    and field[dst] <= field[src] and tm[src] < u):
                continue  # spare units going nowhere useful
            _step_counts(seat, u, od, ud, flag_of[src], flag_of[dst], tm[src], m, keep, ks)
            for j in range(4):
                k = ks[j]
                if k < 1 or k > kmax or (od == o and k <= ud):
                    continue
                if (j > 0 and k == ks[0]) or (j > 1 and k == ks[1]) or (j == 3 and k == ks[2]):
                    continue
                u2 = ud + k if od == seat else (k if od == -1 else k - ud)
                val = delta(seat, src, u - k, dst, u2, owner, units, cnt, field, tm, flag_of, w)
                if val > best:
                    best = val
                    mv[0] = src
                    mv[1] = i
                    mv[2] = k
    if fix >= 0 and mv[0] < 0:  # no candidate count for the chosen pair: all that may move
        mv[0] = fix // 6
        mv[1] = fix % 6
        mv[2] = units[fix // 6] - keep


# ---- the engine's bot and evaluation functions ------------------------------------------------


@hot_inline
def _step_memo(sc, par, seat, pair, owner, units):
    """The count of the step greedy chose at the STEP decision, when this COUNT decision is on
    that board, pair, seat and parameters; -1 otherwise (choose_step finds the pair's best)."""
    sv, fv = sc.sv, sc.fv
    ok = (sv[STEP_SEAT] == seat and sv[STEP_PAIR] == pair and fv[STEP_PAR] == par[0]
          and fv[STEP_PAR + 1] == par[1] and fv[STEP_PAR + 2] == par[2])
    if _hold_board(sc.step_on, owner, units, None) and ok:
        return sv[STEP_K]
    return -1


@hot_inline
def bot_move(t, pos, seat, code, par, sc, rng):
    """Greedy (code 1) for the decision the position asks for; -1 for an unknown code.
    Greedy's reinforcement units follow the card's plan and a step's count is the one
    chosen with its pair, so those decisions are table look-ups (the scratch keeps both, keyed
    on the board)."""
    if code != BOT_GREEDY:
        return -1
    st = pos.st
    ph = st[PHASE]
    if ph == REINF:
        return MV_REINF + _next_unit(t, sc, par, seat, st[REINF_V], pos.owner, pos.units,
                                     pos.reinf[0])
    if ph == CARD:
        i = choose_card(t, sc, par, seat, pos.hands[seat], st[HAND_N + seat], pos.owner,
                        pos.units, pos.cards[CARD_HEX])
        return MV_CARD + pos.hands[seat, i]
    mv = sc.mv
    if ph == COUNT:
        k = _step_memo(sc, par, seat, st[PEND], pos.owner, pos.units)
        if k < 0:
            choose_step(t, sc, par, seat, pos.owner, pos.units, st[PEND], mv)
            k = mv[2]
        return MV_COUNT + k
    choose_step(t, sc, par, seat, pos.owner, pos.units, np.int64(-1), mv)
    if mv[0] < 0:
        return MV_STOP
    sv = sc.sv
    sv[STEP_SEAT] = seat
    sv[STEP_PAIR] = mv[0] * 6 + mv[1]
    sv[STEP_K] = mv[2]
    for i in range(3):
        sc.fv[STEP_PAR + i] = par[i]
    _hold_board(sc.step_on, pos.owner, pos.units, None)
    return MV_STEP + mv[0] * 6 + mv[1]


@hot
def position_value(t, sc, seat, owner, units, par):
    """Greedy's score of a board for seat: flag terms plus every own hex's worth."""
    v = prepare(t, seat, owner, units, par, sc)
    cnt, field, tm, flag_of = sc.cnt, sc.field, sc.tm, t.hexinfo[FLAG_OF]
    m = t.min_hold
    for h in range(owner.shape[0]):
        f = flag_of[h]
        cs = cnt[seat, f] if f >= 0 else 0
        nn = cnt[2, f] if f >= 0 else 0
        v += _hex_value(owner[h], units[h], seat, f, cs, nn, field[h], tm[h], m, par[1], par[2])
    return v


@kernel
def evaluate(t, pos, seat):
    """Greedy's score of the board for `seat` minus its score for the other seat, both with
    greedy's default parameters (delta is the change of one of them), so the two seats'
    evaluations are opposite; +-1e9 once won or lost, 0 for a drawn game. The search bot scores
    a rollout it cuts off with it."""
    if pos.st[OVER] == 1:
        w = pos.st[WINNER]
        return 0.0 if w < 0 else (1e9 if w == seat else -1e9)
    sc = new_scratch(t)
    return (position_value(t, sc, seat, pos.owner, pos.units, _DEFAULT_PAR)
            - position_value(t, sc, 1 - seat, pos.owner, pos.units, _DEFAULT_PAR))
