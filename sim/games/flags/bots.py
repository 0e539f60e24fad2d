"""Compiled bots of Four flags. Each decision function sees only what its player sees: its own
hand (one row), the board (owner, units, card labels) and the rules. Never the other hand, the
deck order or anything else hidden; the kernel calls them before it draws.

Bots dispatch on `code`: 0 random, 1 greedy. Greedy parameters bp = (aggression, defence, territory).

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
protect a surround, and makes move steps one at a time while one improves the score.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rng import below

BOT_RANDOM, BOT_GREEDY = 0, 1
W_FLAG = 3.0
_DECAY = np.array([0.7 ** d for d in range(12)])  # field falls off with distance
EPS = 1e-6
# rule vector indices (kept equal to kernel.R_*)
_R_DIE, _R_MIN, _R_WIN, _R_BLEED = 2, 3, 4, 6


@njit(cache=True)
def _value(card):
    return card % 13 + 2


# ---- random -------------------------------------------------------------------------------------
@njit(cache=True)
def random_card(rng, hn):
    """Index into the hand of the card to play next: uniform."""
    return below(rng, hn)


@njit(cache=True)
def random_step(seat, owner, units, nbr, nbr_n, is_flag, bleed, rng, legal, mv):
    """Uniform over (source, destination) pairs with a legal step, plus stopping; then a uniform
    legal unit count. legal (336,) is scratch: source * 6 + neighbour slot, in board order."""
    keep = 1 if bleed else 0
    n = 0
    for src in range(56):
        if owner[src] != seat or units[src] - keep < 1:
            continue
        for i in range(nbr_n[src]):
            dst = nbr[src, i]
            if is_flag[dst] == 1 or (owner[dst] == 1 - seat and units[src] - keep <= units[dst]):
                continue
            legal[n] = src * 6 + i
            n += 1
    pick = below(rng, n + 1)
    mv[0] = -1
    if pick == n:
        return
    src = legal[pick] // 6
    dst = nbr[src, legal[pick] % 6]
    kmin = units[dst] + 1 if owner[dst] == 1 - seat else 1
    kmax = units[src] - keep
    mv[0] = src
    mv[1] = dst
    mv[2] = kmin + below(rng, kmax - kmin + 1)


@njit(cache=True)
def random_reinforce(seat, v, owner, rng, alloc):
    """Each of the v units to a uniformly chosen own hex; alloc[:n] = (hex, units) in hex order."""
    n_own = 0
    for h in range(56):
        if owner[h] == seat:
            alloc[n_own, 0] = h
            alloc[n_own, 1] = 0
            n_own += 1
    for _ in range(v):
        alloc[below(rng, n_own), 1] += 1
    n = 0
    for j in range(n_own):
        if alloc[j, 1] > 0:
            alloc[n, 0] = alloc[j, 0]
            alloc[n, 1] = alloc[j, 1]
            n += 1
    return n


# ---- greedy evaluation --------------------------------------------------------------------------
@njit(cache=True)
def _counts(owner, units, flag_nbrs, flag_nn, m, cnt):
    """cnt[q, f] = neighbours of flag f held by seat q with >= m units."""
    for f in range(4):
        cnt[0, f] = 0
        cnt[1, f] = 0
        for i in range(flag_nn[f]):
            h = flag_nbrs[f, i]
            if owner[h] >= 0 and units[h] >= m:
                cnt[owner[h], f] += 1


@njit(cache=True)
def _flag_score(cnt, seat, flag_nn, ftw, aggr):
    mine = 0.0
    theirs = 0.0
    hm = 0
    ho = 0
    for f in range(4):
        k = cnt[seat, f]
        mine += k * k + (6.0 if k == flag_nn[f] else 0.0)
        hm += 1 if k == flag_nn[f] else 0
        k = cnt[1 - seat, f]
        theirs += k * k + (6.0 if k == flag_nn[f] else 0.0)
        ho += 1 if k == flag_nn[f] else 0
    mine += 3.0 * hm * hm + (60.0 if hm >= ftw else 0.0)
    theirs += 3.0 * ho * ho + (60.0 if ho >= ftw else 0.0)
    return W_FLAG * (mine - aggr * theirs)


@njit(cache=True)
def workspace(dec):
    """Greedy's tables for one game, all derived from the public board, as one tuple:
    cnt (2, 4), field (56,), tm (56,), valid (3,) (see prepare), dec (56, 56) = 0.7 ** distance,
    fpart (2, 4, 56) and fsig (2, 4) (each seat's field per flag, and the surround it was built
    for), and scratch: ks (4,) unit counts a step tries, legal (336,) the random bot's step list,
    mv (3,) the step chosen."""
    return (np.zeros((2, 4), dtype=np.int64), np.zeros(56), np.zeros(56, dtype=np.int64),
            np.array([0, 0, -1], dtype=np.int64), dec, np.zeros((2, 4, 56)),
            -np.ones((2, 4), dtype=np.int64), np.zeros(4, dtype=np.int64),
            np.zeros(56 * 6, dtype=np.int64), np.zeros(3, dtype=np.int64))


@njit(cache=True)
def prepare(seat, owner, units, flag_nbrs, flag_nn, near, rp, aggr, ws):
    """Bring the per-turn tables up to date (valid[0]: tm, valid[1]: cnt and field; the kernel
    clears them when the board changes in a way that matters). Returns the flag score.

    cnt[q, f]: counted neighbours of flag f for seat q. field[h]: worth of one spare unit on h
    (near flag hexes that need units: own surrounds to complete, enemy surrounds to break).
    tm[h]: most units one enemy stack can bring to h within half a die roll."""
    cnt, field, tm, valid, dec, fpart, fsig = ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6]
    m = rp[_R_MIN]
    o = 1 - seat
    if valid[0] == 0:
        keep = 1 if rp[_R_BLEED] == 1 else 0
        reach = (rp[_R_DIE] + 1) // 2
        for h in range(56):
            tm[h] = 0
        for e in range(56):
            ue = units[e]
            if owner[e] != o or ue - keep < 1:
                continue
            # with the bleed a stack brings ue - d units d steps away: none from ue steps on
            lim = reach if keep == 0 or ue > reach else ue - 1
            for j in range(1, 56):  # j = 0 is e itself
                d = near[e, j, 1]
                if d > lim:
                    break
                h = near[e, j, 0]
                x = ue - keep * d
                if x > tm[h]:
                    tm[h] = x
        valid[0] = 1
    if valid[1] == 0:
        _counts(owner, units, flag_nbrs, flag_nn, m, cnt)
        # field = the largest pull of any flag; a flag's pull only depends on who holds its
        # surrounding hexes and which of them count, so each seat keeps it per flag and
        # rebuilds it only when that surround changed (a max does not depend on the order)
        changed = valid[2] != seat
        for f in range(4):
            nn = flag_nn[f]
            sig = 0
            for i in range(nn):
                t = flag_nbrs[f, i]
                st = 0 if owner[t] < 0 else 1 + 2 * owner[t] + (1 if units[t] >= m else 0)
                sig = sig * 5 + st
            if sig == fsig[seat, f]:
                continue
            fsig[seat, f] = sig
            changed = True
            for h in range(56):
                fpart[seat, f, h] = 0.02
            occ = 0
            for i in range(nn):
                if owner[flag_nbrs[f, i]] == o:
                    occ += 1
            for i in range(nn):
                t = flag_nbrs[f, i]
                if owner[t] == o:
                    if cnt[o, f] == nn:
                        imp = 3.0 * aggr
                    elif cnt[o, f] == nn - 1:
                        imp = 1.5 * aggr
                    else:
                        imp = 0.5 + 0.5 * cnt[seat, f]
                elif owner[t] == -1 or units[t] < m:
                    imp = 1.0 + cnt[seat, f] - 0.5 * occ
                    if imp < 0.3:
                        imp = 0.3
                else:
                    continue
                for h in range(56):
                    fpart[seat, f, h] = max(fpart[seat, f, h], imp * dec[t, h])
        if changed:
            for h in range(56):
                field[h] = max(max(fpart[seat, 0, h], fpart[seat, 1, h]),
                               max(fpart[seat, 2, h], fpart[seat, 3, h]))
            valid[2] = seat
        valid[1] = 1
    return _flag_score(cnt, seat, flag_nn, rp[_R_WIN], aggr)


# The helpers below take scalars only: array arguments to a numba function cost reference
# counting on every call, which made the evaluation several times slower.
@njit(cache=True)
def _risk(u, field_h, fo, cs, nn):
    """What losing an own hex (u units; fo its flag or -1, cs counted neighbours of that flag,
    nn its neighbour count) to the enemy would cost."""
    r = 0.3 * u * field_h
    if fo >= 0:
        r += W_FLAG * (2.0 * cs + 1.0)
        if cs == nn:
            r += 3.0 * W_FLAG
    return r


@njit(cache=True)
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


@njit(cache=True)
def _counted(o, u, m):
    return o >= 0 and u >= m


@njit(cache=True)
def _recount(cnt, f, o, u, o_new, u_new, m):
    """A hex around flag f (f = -1: none, nothing to do) goes from (o, u) to (o_new, u_new):
    move its count in cnt. Called again with the states swapped, it undoes itself."""
    if f >= 0:
        if _counted(o, u, m):
            cnt[o, f] -= 1
        if _counted(o_new, u_new, m):
            cnt[o_new, f] += 1


# inlined into its callers: it takes seven arrays, and their reference counting on every call
# cost more than the evaluation (greedy vs greedy 1,840-1,900 -> 2,160-2,270 games/s per core;
# compile time unchanged)
@njit(cache=True, inline="always")
def delta(seat, h1, o1n, u1n, h2, o2n, u2n, owner, units, cnt, base, field, tm, flag_nn,
          flag_of, m, ftw, aggr, dfn, tw):
    """Score change when hex h1 (or -1) becomes (o1n, u1n) and hex h2 becomes (o2n, u2n)."""
    d = 0.0
    f1 = flag_of[h1] if h1 >= 0 else -1
    f2 = flag_of[h2]
    o1 = owner[h1] if h1 >= 0 else -1
    u1 = units[h1] if h1 >= 0 else 0
    o2 = owner[h2]
    u2 = units[h2]
    c1 = f1 >= 0 and (_counted(o1, u1, m) != _counted(o1n, u1n, m) or
                      (_counted(o1, u1, m) and o1 != o1n))
    c2 = f2 >= 0 and (_counted(o2, u2, m) != _counted(o2n, u2n, m) or
                      (_counted(o2, u2, m) and o2 != o2n))
    if c1 or c2:  # some surround count changes: score the counts as they would be, then undo
        _recount(cnt, f1, o1, u1, o1n, u1n, m)
        _recount(cnt, f2, o2, u2, o2n, u2n, m)
        d += _flag_score(cnt, seat, flag_nn, ftw, aggr) - base
        _recount(cnt, f2, o2n, u2n, o2, u2, m)
        _recount(cnt, f1, o1n, u1n, o1, u1, m)
    if h1 >= 0:
        cs = cnt[seat, f1] if f1 >= 0 else 0
        nn = flag_nn[f1] if f1 >= 0 else 0
        d += (_hex_value(o1n, u1n, seat, f1, cs, nn, field[h1], tm[h1], m, dfn, tw)
              - _hex_value(o1, u1, seat, f1, cs, nn, field[h1], tm[h1], m, dfn, tw))
    cs = cnt[seat, f2] if f2 >= 0 else 0
    nn = flag_nn[f2] if f2 >= 0 else 0
    d += (_hex_value(o2n, u2n, seat, f2, cs, nn, field[h2], tm[h2], m, dfn, tw)
          - _hex_value(o2, u2, seat, f2, cs, nn, field[h2], tm[h2], m, dfn, tw))
    return d




@njit(cache=True)
def _greedy_reinforce(seat, v, owner, units, flag_nn, flag_of, rp, aggr, dfn, tw, cnt, field,
                      tm, alloc):
    """Spend v units on own hexes: first where a few units complete or protect a surround (best
    gain per unit), the rest on the safe own hex where a spare unit is worth most.
    Needs prepare() done. Returns (entries, gain); the board is left unchanged."""
    m = rp[_R_MIN]
    ftw = rp[_R_WIN]
    rem = v
    n = 0
    gain = 0.0
    while rem > 0:
        base = _flag_score(cnt, seat, flag_nn, ftw, aggr)
        best_r = -1e18
        best_h = -1
        best_a = 0
        # the spare-unit hex: most field among own hexes the enemy cannot take
        spare = -1
        for h in range(56):
            if owner[h] == seat and (spare < 0 or field[h] > field[spare]) and tm[h] < units[h] + rem:
                spare = h
        for h in range(56):
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
            g = delta(seat, -1, 0, 0, h, seat, u + a, owner, units, cnt, base, field, tm, flag_nn,
                      flag_of, m, ftw, aggr, dfn, tw)
            if g / a > best_r:
                best_r = g / a
                best_h = h
                best_a = a
        if best_h < 0:  # no own hex qualifies (cannot happen: the card's hex is own): any own hex
            for h in range(56):
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
    # merge entries for the same hex
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
    return k, gain


# ---- decisions (what the kernel calls) ------------------------------------------------------------
# The kernel calls random_card / random_reinforce / random_step for the random bot and these for
# greedy, which keeps its per-turn tables in a workspace the kernel owns (see workspace): all of
# it derived from the public board. Each takes only what it uses: every array argument of a
# call costs reference counting.

@njit(cache=True)
def choose_card(par, seat, hand, hn, owner, units, card_hex, flag_nbrs, flag_nn, flag_of, near, rp,
                ws, scratch):
    """Index into `hand` (own cards only) of the card to play next."""
    cnt, field, tm = ws[0], ws[1], ws[2]
    aggr = par[0]
    dfn = par[1]
    tw = par[2]
    m = rp[_R_MIN]
    ftw = rp[_R_WIN]
    base = prepare(seat, owner, units, flag_nbrs, flag_nn, near, rp, aggr, ws)
    best = -1e18
    bi = 0
    for i in range(hn):
        card = hand[i]
        h = card_hex[card]
        v = _value(card)
        if owner[h] == -1:
            val = delta(seat, -1, 0, 0, h, seat, v, owner, units, cnt, base, field, tm, flag_nn,
                        flag_of, m, ftw, aggr, dfn, tw)
        elif owner[h] == seat:
            val = _greedy_reinforce(seat, v, owner, units, flag_nn, flag_of, rp, aggr, dfn, tw,
                                    cnt, field, tm, scratch)[1]
        else:
            val = -0.001 * v  # wasted: throw away the lowest card
        if val > best:
            best = val
            bi = i
    return bi


@njit(cache=True)
def reinforce_plan(par, seat, v, owner, units, flag_nbrs, flag_nn, flag_of, near, rp, ws, alloc):
    """Distribute v units over own hexes: alloc[:n] = (hex, units); returns n."""
    prepare(seat, owner, units, flag_nbrs, flag_nn, near, rp, par[0], ws)
    return _greedy_reinforce(seat, v, owner, units, flag_nn, flag_of, rp, par[0], par[1], par[2],
                             ws[0], ws[1], ws[2], alloc)[0]


@njit(cache=True)
def choose_step(par, seat, owner, units, nbr, nbr_n, is_flag, flag_nbrs, flag_nn, flag_of, near,
                rp, ws, mv):
    """Next move step: mv = (src, dst, k), or mv[0] = -1 to stop."""
    bleed = rp[_R_BLEED] == 1
    cnt, field, tm, ks = ws[0], ws[1], ws[2], ws[7]
    aggr = par[0]
    dfn = par[1]
    tw = par[2]
    m = rp[_R_MIN]
    ftw = rp[_R_WIN]
    keep = 1 if bleed else 0
    base = prepare(seat, owner, units, flag_nbrs, flag_nn, near, rp, aggr, ws)
    o = 1 - seat
    best = EPS
    mv[0] = -1
    for src in range(56):
        if owner[src] != seat:
            continue
        u = units[src]
        kmax = u - keep
        if kmax < 1:
            continue
        fs = flag_of[src]
        for i in range(nbr_n[src]):
            dst = nbr[src, i]
            if is_flag[dst] == 1:
                continue
            od = owner[dst]
            ud = units[dst]
            if od == o:
                if kmax <= ud:
                    continue
            elif fs < 0 and flag_of[dst] < 0 and field[dst] <= field[src] and tm[src] < u:
                continue  # spare units going nowhere useful
            # unit counts worth trying: all that may move; only the spare units from a hex that
            # surrounds a flag; just enough to beat the defender (and to keep min_hold there);
            # just enough to make a surrounding hex count
            spare = u - (m if m > tm[src] + 1 else tm[src] + 1)
            ks[0] = kmax if fs < 0 or od == o else 0
            ks[1] = spare if fs >= 0 else 0
            ks[2] = 0
            ks[3] = 0
            if od == o:
                ks[2] = ud + 1
                ks[3] = ud + m
            elif flag_of[dst] >= 0:
                ks[2] = m - (ud if od == seat else 0)
            for j in range(4):
                k = ks[j]
                if k < 1 or k > kmax or (od == o and k <= ud):
                    continue
                if (j > 0 and k == ks[0]) or (j > 1 and k == ks[1]) or (j == 3 and k == ks[2]):
                    continue
                if od == seat:
                    u2 = ud + k
                elif od == -1:
                    u2 = k
                else:
                    u2 = k - ud
                o1 = seat if u - k > 0 else -1
                val = delta(seat, src, o1, u - k, dst, seat, u2, owner, units, cnt, base, field,
                            tm, flag_nn, flag_of, m, ftw, aggr, dfn, tw)
                if val > best:
                    best = val
                    mv[0] = src
                    mv[1] = dst
                    mv[2] = k


@njit(cache=True)
def decay_table(near):
    """dec[t, h] = 0.7 ** (steps from t to h), 0 beyond 11 steps or through a flag."""
    dec = np.zeros((56, 56))
    for t in range(56):
        for j in range(56):
            d = near[t, j, 1]
            if d >= 12:
                break
            dec[t, near[t, j, 0]] = _DECAY[d]
    return dec
