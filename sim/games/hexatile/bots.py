"""HEXATILE's bots (random and greedy) and the foresight the greedy bot keeps in the position.

`mark_patterns` and `variety_update` run after every placement (kernel.apply) when the rules
need them, so what greedy knows is a function of the moves alone, whoever plays. Everything else
here only reads the position; random draws and greedy's tie-breaks use the game's generator in
the order the rules of a turn ask for them (redraw choice or pick, then the placement).
"""

from __future__ import annotations

from sim.engine.jit import hot, hot_fused, hot_inline
from sim.engine.rng import below
from sim.games.hexatile.rules import longest_rope, straight_value
from sim.games.hexatile.state import ARROW, POW11, RADIAN, SET, SUPER_RADIAN, TILE


# ---- foresight: which rhombi are in scored patterns or Arrows ------------------------------------
@hot_inline
def _run_beyond(tb, pos, r, side):
    """(colour, length, holds an Arrow's rhombus) of the same-colour straight run continuing
    beyond tip `side` of r."""
    rh, mark, line_next, line_side = pos.rh, pos.mark, tb.line_next, tb.line_side
    nx = line_next[r, side]
    if nx < 0:
        return 0, 0, False
    col = rh[nx]
    if col == 0:
        return 0, 0, False
    n = 1
    arrow = (mark[nx] & 2) != 0
    s = line_side[r, side]
    cur = nx
    while True:
        nn = line_next[cur, 1 - s]
        if nn < 0 or rh[nn] != col:
            break
        s = line_side[cur, 1 - s]
        cur = nn
        n += 1
        if mark[cur] & 2:
            arrow = True
    return col, n, arrow


@hot_inline
def _touching(tb, rh, v, i, col):
    """The rhombus of colour col of the tile in slot i at point v that touches v, or -1."""
    c = tb.vslot_cell[v, i]
    if c < 0:
        return -1
    k = tb.vslot_k[v, i]
    for dj in range(5, 8):
        r = c * 6 + (k + dj) % 6
        if rh[r] == col:
            return r
    return -1


@hot_inline
def _flag(tb, pos, r, bit, value):
    """Flag rhombus r (bit 1: in a scored pattern worth `value`, bit 2: in an Arrow) and the three
    points it touches (vflag[v, colour, 0] = best value there, vflag[v, colour, 1] = 1 if an Arrow)."""
    vflag, rh_tip = pos.vflag, tb.rh_tip
    pos.mark[r] |= bit
    col = pos.rh[r]
    for q in range(3):
        v = tb.rh_obt[r] if q == 2 else rh_tip[r, q]
        if bit == 2:
            vflag[v, col, 1] = 1.0
        elif value > vflag[v, col, 0]:
            vflag[v, col, 0] = value


@hot_inline
def _line(tb, pos, r0, col, flag, val):
    """Rhombi in the straight line of colour col through r0; with `flag`, those beyond r0 on
    both sides are flagged as in a scored pattern worth val."""
    rh, line_next, line_side = pos.rh, tb.line_next, tb.line_side
    n = 1
    for side in range(2):
        cur = r0
        sd = side
        while True:
            nx = line_next[cur, sd]
            if nx < 0 or rh[nx] != col:
                break
            sd = 1 - line_side[cur, sd]
            cur = nx
            n += 1
            if flag:
                _flag(tb, pos, cur, 1, val)
    return n


# mark_patterns and variety_update are calls, not inline into apply: numba copies an inline
# function's IR into each caller at a cost that grows with its size, and these two are large and
# run once per placement. A first greedy run from an empty cache compiled about a fifth less
# (33.2, 31.5 -> 29.0, 23.8 s wall, side by side), games/s within the machine's spread.
@hot
def mark_patterns(tb, pos, c, o, seat):
    """After `seat`'s placement on c: flag the rhombi now in a scored pattern or in an Arrow
    that voids (under arrow_voids = "owner" only one `seat` made in its own colour), for the
    bots' foresight of the Arrow rules and radian_winner's voided Radians."""
    cell_vert, vcode, vtype, rh, ptsc, ocol = tb.cell_vert, pos.vcode, tb.vtype, pos.rh, pos.ptsc, tb.ocol
    two = tb.n_seats == 2
    smode, line_n = tb.smode, tb.line_n
    owner, col_seat = tb.arrow_owner, tb.col_seat
    for k in range(6):
        v = cell_vert[c, k]
        code = vcode[v]
        for col in range(1, 4):
            ty = vtype[code, col]
            if ty == 0 or (two and col == 3):
                continue
            if ty == ARROW and owner == 1 and col_seat[col] != seat:
                continue  # an Arrow in another seat's colour: it scores, and voids nothing
            bit = 2 if ty == ARROW else 1
            for i in range(3):
                r = _touching(tb, rh, v, i, col)
                if r >= 0:
                    _flag(tb, pos, r, bit, ptsc[col, ty])
    for j in range(6):
        col = ocol[o, j]
        if col == 0:
            continue
        r0 = c * 6 + j
        # the whole line through r0 is flagged when it scores
        n = _line(tb, pos, r0, col, False, 0.0)
        if straight_value(n, smode, line_n) > 0:
            val = pos.spts[col] * straight_value(n, smode, line_n)
            _flag(tb, pos, r0, 1, val)
            _line(tb, pos, r0, col, True, val)


@hot
def variety_update(tb, pos, c, o):
    """Variety match: a pattern type a colour has made is worth nothing more to the bot."""
    cell_vert, vcode, vtype, ptsc, ocol = tb.cell_vert, pos.vcode, tb.vtype, pos.ptsc, tb.ocol
    for k in range(6):
        code = vcode[cell_vert[c, k]]
        for col in range(1, 4):
            ty = vtype[code, col]
            if ty > 0:
                ptsc[col, ty] = 0.0
                if tb.n_seats == 3:
                    ptsc[col, RADIAN] = 0.0
                    ptsc[col, SUPER_RADIAN] = 0.0
    for j in range(6):
        col = ocol[o, j]
        if col == 0:
            continue
        ca, la, _ = _run_beyond(tb, pos, c * 6 + j, 0)
        cb, lb, _ = _run_beyond(tb, pos, c * 6 + j, 1)
        L = 1 + (la if ca == col else 0) + (lb if cb == col else 0)
        if straight_value(L, tb.smode, tb.line_n) > 0:
            pos.spts[col] = 0.0


# ---- greedy ------------------------------------------------------------------------------------------
@hot
def update_ropes(tb, pos, sc):
    """Longest ropes of every seat's colour, and from each point (rope_gain_weight's estimate)."""
    for s in range(tb.n_seats):
        col = tb.seat_col[s]
        sc.rope_now[col] = longest_rope(tb, pos.rh, col, sc.lend[col], sc.rope)


@hot_inline
def _weights(tb, me, bp, w, wp):
    """Per colour: the weight of its points (1 mine, -1/(seats-1) another seat's) and of what a
    move prepares there (plan_weight mine, setup_weight theirs), into w and wp."""
    ns = tb.n_seats
    seat_col = tb.seat_col
    w[:] = 0.0
    wp[:] = 0.0
    for s in range(ns):
        oc = seat_col[s]
        if s == me:
            w[oc] = 1.0
            wp[oc] = bp[1]
        else:
            w[oc] = -1.0 / (ns - 1)
            wp[oc] = bp[0]


@hot_inline
def _corner_values(tb, pos, c, w, wp, arrows, mycol, vk):
    """vk[k, state]: what a tile showing `state` at corner k of cell c is worth (patterns there
    and what they prepare, the Arrow rules foreseen when arrows > 0; under arrow_voids =
    "owner" an Arrow the mover makes voids only in its own colour, mycol)."""
    cell_vert, cell_slot, vtype, pot = tb.cell_vert, tb.cell_slot, tb.vtype, tb.pot
    vcode, ptsc, vflag = pos.vcode, pos.ptsc, pos.vflag
    owner = tb.arrow_owner
    for k in range(6):
        v = cell_vert[c, k]
        base = vcode[v]
        pw = POW11[cell_slot[c, k]]
        for st in range(2, 11):
            code = base + (st - 1) * pw
            val = 0.0
            for col in range(1, 4):
                if w[col] == 0.0:
                    continue
                ty = vtype[code, col]
                p = ptsc[col, ty]
                if arrows > 0 and ty > 0 and p > 0.0:
                    if ty == ARROW and vflag[v, col, 0] > 0.0 and (owner == 0 or col == mycol):
                        p = -vflag[v, col, 0]  # voids itself and the pattern it joins
                    elif ty != ARROW and vflag[v, col, 1] > 0.0 and not (arrows == 2 and ty != SET):
                        p = -ptsc[col, ARROW]
                val += w[col] * (p + wp[col] * pot[code, col])
            vk[k, st] = val


@hot_fused
def _rhombus_values(tb, pos, sc, c, w, bp, arrows):
    """sc.vr[j, colour]: what a rhombus of that colour at position j of cell c is worth
    (Straights it extends, tip-to-tip joins, rope growth)."""
    bey_col, bey_len, bey_arr, vr, lend, rope_now = sc.bey_col, sc.bey_len, sc.bey_arr, sc.vr, sc.lend, sc.rope_now
    cell_vert, ntip, vcode, spts, ptsc = tb.cell_vert, tb.ntip, pos.vcode, pos.spts, pos.ptsc
    for j in range(6):
        for side in range(2):
            col, L, arr = _run_beyond(tb, pos, c * 6 + j, side)
            bey_col[j, side] = col
            bey_len[j, side] = L
            bey_arr[j, side] = arr
    smode, line_n, rope_on = tb.smode, tb.line_n, tb.rope_on
    for j in range(6):
        ja = cell_vert[c, (j + 5) % 6]
        jb = cell_vert[c, (j + 1) % 6]
        for col in range(1, 4):
            if w[col] == 0.0:
                vr[j, col] = 0.0
                continue
            la = bey_len[j, 0] if bey_col[j, 0] == col else 0
            lb = bey_len[j, 1] if bey_col[j, 1] == col else 0
            gain = spts[col] * (
                straight_value(la + 1 + lb, smode, line_n) - straight_value(la, smode, line_n)
                - straight_value(lb, smode, line_n)
            )
            if arrows > 0 and gain > 0.0 and ((la > 0 and bey_arr[j, 0]) or (lb > 0 and bey_arr[j, 1])):
                gain = -ptsc[col, ARROW]
            links = ntip[vcode[ja], col] + ntip[vcode[jb], col]
            rope = lend[col, ja] + 1 + lend[col, jb] - rope_now[col]
            if rope < 0 or rope_on == 0:
                rope = 0
            if rope_on == 0:
                links = 0  # without the chain rope tip-to-tip joins are worth nothing
            vr[j, col] = w[col] * (gain + bp[2] * links + bp[4] * rope)


@hot
def greedy(tb, pos, sc, me, ncell, bp, rng):
    """Best (cell, orientation) into sc.choice, among sc.cells[:ncell] and the tile types in
    sc.types_ok, by immediate points for me minus for the others (pattern points a tile creates,
    the Arrow rules ignored), minus what it leaves them to complete at its corners
    (setup_weight), plus what it prepares for me (plan_weight) and tip-to-tip joins
    (rope_weight). Ties broken at random. Returns the best value. sc.lend / sc.rope_now must be
    current when bp[4] (rope_gain_weight) is not 0 (`update_ropes`).

    Arrow rules (tb.arrows = 1; 2: Radians exempt because they win at once): an Arrow through a
    rhombus already in a scored pattern, or a pattern through an Arrow's rhombus, is worth minus
    an Arrow's points instead (both patterns would score 0).

    Per cell the value splits into a part per corner k and slot state (vk[6, 11]) and a part per
    rhombus position and colour (vr[6, 4]); an orientation then costs 6 + 3 lookups.
    """
    arrows = tb.arrows
    if bp[3] == 0.0:
        arrows = 0  # this bot does not foresee the Arrow rules
    w, wp = sc.w, sc.wp
    _weights(tb, me, bp, w, wp)
    vk, vr, cells, types_ok, choice = sc.vk, sc.vr, sc.cells, sc.types_ok, sc.choice
    contrib, low_tri, ocol, rot_n = tb.contrib, tb.low_tri, tb.ocol, tb.rot_n
    best = -1e18
    cnt = 0
    for ci in range(ncell):
        c = cells[ci]
        _corner_values(tb, pos, c, w, wp, arrows, tb.seat_col[me], vk)
        _rhombus_values(tb, pos, sc, c, w, bp, arrows)
        for t in range(2):
            if not types_ok[t]:
                continue
            for rot in range(rot_n):
                o = t * 6 + rot
                val = 0.0
                for k in range(6):
                    val += vk[k, contrib[o, k, low_tri[c, k]]]
                for j in range(6):
                    col = ocol[o, j]
                    if col != 0:
                        val += vr[j, col]
                if val > best + 1e-9:
                    best = val
                    cnt = 1
                    choice[0] = c
                    choice[1] = o
                elif val > best - 1e-9:
                    cnt += 1
                    if below(rng, cnt) == 0:
                        choice[0] = c
                        choice[1] = o
    return best


@hot
def type_values(tb, pos, sc, me, ncell, bp, rng):
    """Greedy's best value for `me` with only a Tile 1 and with only a Tile 2 (the bag redraw
    and the opponent's pick weigh them)."""
    sc.types_ok[0] = 1
    sc.types_ok[1] = 0
    v0 = greedy(tb, pos, sc, me, ncell, bp, rng)
    sc.types_ok[0] = 0
    sc.types_ok[1] = 1
    return v0, greedy(tb, pos, sc, me, ncell, bp, rng)


# ---- the decisions of a turn ------------------------------------------------------------------------
@hot
def put_back(tb, pos, sc, mover, ncell, greedy_bot, bp, rng):
    """Bag draw: does the mover put the drawn tile back? Random: a coin; greedy: when the drawn
    kind's best use is below the expected best use of a fresh draw."""
    if not greedy_bot:
        return below(rng, 2) == 1
    v0, v1 = type_values(tb, pos, sc, mover, ncell, bp, rng)
    rem = pos.rem
    expect = (rem[0] * v0 + rem[1] * v1) / (rem[0] + rem[1])
    return (v1 if pos.st[TILE] == 1 else v0) < expect - 1e-9


@hot
def pick_type(tb, pos, sc, mover, ncell, greedy_bot, bp, rng):
    """Opponent picks: the kind the picker hands the mover. Random: a coin; greedy: the kind
    whose best use is worst for the mover (a coin on a tie)."""
    if not greedy_bot:
        return below(rng, 2)
    v0, v1 = type_values(tb, pos, sc, mover, ncell, bp, rng)
    tt = 0 if v0 < v1 else 1
    if v0 == v1:
        tt = below(rng, 2)
    return tt


@hot_inline
def placement(tb, pos, sc, mover, ncell, greedy_bot, bp, rng):
    """(cell, orientation) the mover places, the tile types allowed in sc.types_ok. Random: a
    cell, then a type, then a rotation, uniformly; greedy: `greedy`."""
    if greedy_bot:
        greedy(tb, pos, sc, mover, ncell, bp, rng)
        return sc.choice[0], sc.choice[1]
    c = sc.cells[below(rng, ncell)]
    nt = sc.types_ok[0] + sc.types_ok[1]
    tt = below(rng, nt)
    if sc.types_ok[0] == 0:
        tt = 1
    o = tt * 6 + (below(rng, 6) if tb.rot_n == 6 else 0)
    return c, o
