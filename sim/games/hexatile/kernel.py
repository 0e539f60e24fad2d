"""Compiled HEXATILE kernels: one call plays a whole chunk of games.

Board state of one game (N cells, NV lattice points, see geometry.py):
  rh[N*6]     int8  colour of the rhombus at position j of cell c (index c*6+j), 0 = none
  cell_o[N]   int32 orientation (type*6 + rotation) of the tile on c, -1 empty, -2 island
  placer[N]   int32 seat that placed the tile on c, -1 none
  vcode[NV]   int32 code of the three slot states round each lattice point (templates.py)

Rules vector ri (int64), see game.py `_rules_vector`:
  0 players, 1 spacing, 2 tile_choice, 3 must_use, 4 rotation, 5 island, 6 free board,
  7 long_straight, 8 arrow_rules, 9 radian_wins, 10 scoring, 11 variety, 12 rope_path,
  13 first colour, 14 island cell (fixed island), 15 white tiles, 16 red tiles
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.rng import below, game_seed, new_state

# pattern ids (templates.py)
RADIAN, SUPER_RADIAN, SET, ARROW, STRAIGHT = 1, 2, 3, 4, 5
# spacing codes
SP_LAST, SP_ALL, SP_NONE, SP_ADJ = 0, 1, 2, 3
# tile choice codes
TC_OPEN, TC_BAG, TC_OPPONENT = 0, 1, 2
# bots
BOT_RANDOM, BOT_GREEDY = 0, 1
# end reasons
END_TILES, END_RADIAN = 0, 1
POW11 = np.array([1, 11, 121], np.int32)
REC_W = 6  # per move record: seat, cell, orientation, first drawn type, redrawn, picker


@njit(cache=True)
def straight_value(L, mode):
    """Straights scored by a run of L rhombi joined tip to tip in one line."""
    if L < 3:
        return 0
    if mode == 0:  # thirds: a 4th or 5th adds nothing, 6 makes two
        return L // 3
    if mode == 1:  # once: any run of 3 or more is one Straight
        return 1
    return L - 2  # window: every 3 consecutive rhombi


@njit(cache=True)
def _run_beyond(rh, mark, line_next, line_side, r, side):
    """(colour, length, holds an Arrow's rhombus) of the same-colour straight run continuing
    beyond tip `side` of r."""
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


@njit(cache=True)
def _legal_cells(t, seat, ri, cell_o, placer, neigh, last_cell, out):
    """Fill out[] with the cells the mover may use; return how many (fallback: any empty)."""
    n = cell_o.shape[0]
    spacing = ri[1]
    free = ri[6]
    ns = 0
    for fallback in range(2):
        ns = 0
        for c in range(n):
            if cell_o[c] != -1:
                continue
            if free == 1:
                if t == 0:
                    if c != ri[14]:
                        continue
                else:
                    touch = False
                    for d in range(6):
                        nb = neigh[c, d]
                        if nb >= 0 and cell_o[nb] >= 0:
                            touch = True
                    if not touch:
                        continue
            if fallback == 0 and t > 0:
                ok = True
                if spacing == SP_LAST or spacing == SP_ADJ:
                    adj = False
                    for d in range(6):
                        if neigh[c, d] == last_cell and last_cell >= 0:
                            adj = True
                    ok = (not adj) if spacing == SP_LAST else adj
                elif spacing == SP_ALL:
                    for d in range(6):
                        nb = neigh[c, d]
                        if nb >= 0 and cell_o[nb] >= 0 and placer[nb] != seat:
                            ok = False
                if not ok:
                    continue
            out[ns] = c
            ns += 1
        if ns > 0:
            break
    return ns


@njit(cache=True)
def _cell_beyond(c, rh, mark, line_next, line_side, bey_col, bey_len, bey_arr):
    for j in range(6):
        for side in range(2):
            col, L, arr = _run_beyond(rh, mark, line_next, line_side, c * 6 + j, side)
            bey_col[j, side] = col
            bey_len[j, side] = L
            bey_arr[j, side] = arr


@njit(cache=True)
def _touching(v, i, col, rh, vslot_cell, vslot_k):
    """The rhombus of colour col of the tile in slot i at point v that touches v, or -1."""
    c = vslot_cell[v, i]
    if c < 0:
        return -1
    k = vslot_k[v, i]
    for dj in range(5, 8):
        r = c * 6 + (k + dj) % 6
        if rh[r] == col:
            return r
    return -1


@njit(cache=True)
def _flag(r, bit, value, mark, vflag, rh, rh_tip, rh_obt):
    """Flag rhombus r (bit 1: in a scored pattern worth `value`, bit 2: in an Arrow) and the three
    points it touches (vflag[v, colour, 0] = best value there, vflag[v, colour, 1] = 1 if an Arrow)."""
    mark[r] |= bit
    col = rh[r]
    for q in range(3):
        v = rh_obt[r] if q == 2 else rh_tip[r, q]
        if bit == 2:
            vflag[v, col, 1] = 1.0
        elif value > vflag[v, col, 0]:
            vflag[v, col, 0] = value


@njit(cache=True)
def _mark_patterns(
    c,
    o,
    players,
    rh,
    mark,
    vflag,
    vcode,
    cell_vert,
    vslot_cell,
    vslot_k,
    rh_tip,
    rh_obt,
    ocol,
    vtype,
    ptsc,
    spts,
    line_next,
    line_side,
    smode,
):
    """After a placement on c: flag the rhombi now in a scored pattern or in an Arrow, for the
    bots' foresight of the Arrow rules."""
    for k in range(6):
        v = cell_vert[c, k]
        code = vcode[v]
        for col in range(1, 4):
            ty = vtype[code, col]
            if ty == 0 or (players == 2 and col == 3):
                continue
            bit = 2 if ty == ARROW else 1
            for i in range(3):
                r = _touching(v, i, col, rh, vslot_cell, vslot_k)
                if r >= 0:
                    _flag(r, bit, ptsc[col, ty], mark, vflag, rh, rh_tip, rh_obt)
    for j in range(6):
        col = ocol[o, j]
        if col == 0:
            continue
        r0 = c * 6 + j
        # walk the whole line through r0 and flag it when it scores
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
        if straight_value(n, smode) > 0:
            val = spts[col] * straight_value(n, smode)
            _flag(r0, 1, val, mark, vflag, rh, rh_tip, rh_obt)
            for side in range(2):
                cur = r0
                sd = side
                while True:
                    nx = line_next[cur, sd]
                    if nx < 0 or rh[nx] != col:
                        break
                    sd = 1 - line_side[cur, sd]
                    cur = nx
                    _flag(cur, 1, val, mark, vflag, rh, rh_tip, rh_obt)


@njit(cache=True)
def _greedy(rng, cells, ncell, types_ok, rot_n, me, ns, seat_col, bp, view, smode, arrows, res):
    """Best (cell, orientation) by immediate points for me minus for the others (pattern points a
    tile creates, the Arrow rules ignored), minus what it leaves them to complete at its corners
    (setup_weight), plus what it prepares for me (plan_weight) and tip-to-tip joins (rope_weight).
    Ties broken at random. Returns the best value.

    Arrow rules (arrows = 1; 2: Radians exempt because they win at once): an Arrow through a
    rhombus already in a scored pattern, or a pattern through an Arrow's rhombus, is worth minus
    an Arrow's points instead (both patterns would score 0).

    Per cell the value splits into a part per corner k and slot state (vk[6, 11]) and a part per
    rhombus position and colour (vr[6, 4]); an orientation then costs 6 + 3 lookups.
    """
    (rh, mark, vflag, lend, rope_now, vcode, cell_vert, cell_slot, low_tri, vslot_cell, vslot_k, contrib,
     ocol, vtype, ntip, pot, ptsc, spts, line_next, line_side) = view
    if bp[3] == 0.0:
        arrows = 0  # this bot does not foresee the Arrow rules
    w = np.zeros(4)
    wp = np.zeros(4)
    for s in range(ns):
        oc = seat_col[s]
        if s == me:
            w[oc] = 1.0
            wp[oc] = bp[1]
        else:
            w[oc] = -1.0 / (ns - 1)
            wp[oc] = bp[0]
    vk = np.zeros((6, 11))
    vr = np.zeros((6, 4))
    bey_col = np.zeros((6, 2), np.int64)
    bey_len = np.zeros((6, 2), np.int64)
    bey_arr = np.zeros((6, 2), np.bool_)
    best = -1e18
    cnt = 0
    for ci in range(ncell):
        c = cells[ci]
        _cell_beyond(c, rh, mark, line_next, line_side, bey_col, bey_len, bey_arr)
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
                        if ty == ARROW and vflag[v, col, 0] > 0.0:
                            p = -vflag[v, col, 0]  # voids itself and the pattern it joins
                        elif ty != ARROW and vflag[v, col, 1] > 0.0 and not (arrows == 2 and ty != SET):
                            p = -ptsc[col, ARROW]
                    val += w[col] * (p + wp[col] * pot[code, col])
                vk[k, st] = val
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
                    straight_value(la + 1 + lb, smode) - straight_value(la, smode) - straight_value(lb, smode)
                )
                if arrows > 0 and gain > 0.0 and ((la > 0 and bey_arr[j, 0]) or (lb > 0 and bey_arr[j, 1])):
                    gain = -ptsc[col, ARROW]
                links = ntip[vcode[ja], col] + ntip[vcode[jb], col]
                rope = lend[col, ja] + 1 + lend[col, jb] - rope_now[col]
                if rope < 0:
                    rope = 0
                vr[j, col] = w[col] * (gain + bp[2] * links + bp[4] * rope)
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
                    res[0] = c
                    res[1] = o
                elif val > best - 1e-9:
                    cnt += 1
                    if below(rng, cnt) == 0:
                        res[0] = c
                        res[1] = o
    return best


@njit(cache=True)
def _type_values(rng, cells, ncell, types_ok, rot_n, me, ns, seat_col, bp, view, smode, arrows, res):
    """Greedy's best value with only a Tile 1 and with only a Tile 2 (the bag redraw and the
    opponent's pick weigh them). Leaves types_ok and res to be set by the caller."""
    vals = np.zeros(2)
    for q in range(2):
        types_ok[0] = 1 if q == 0 else 0
        types_ok[1] = 1 if q == 1 else 0
        vals[q] = _greedy(rng, cells, ncell, types_ok, rot_n, me, ns, seat_col, bp, view, smode, arrows, res)
    return vals


@njit(cache=True)
def _apply(c, o, seat, rh, cell_o, placer, vcode, cell_vert, cell_slot, low_tri, contrib, ocol):
    cell_o[c] = o
    placer[c] = seat
    for j in range(6):
        rh[c * 6 + j] = ocol[o, j]
    for k in range(6):
        vcode[cell_vert[c, k]] += (contrib[o, k, low_tri[c, k]] - 1) * POW11[cell_slot[c, k]]


@njit(cache=True)
def _variety_update(
    c, o, rh, mark, vcode, cell_vert, ocol, vtype, line_next, line_side, smode, players, ptsc, spts
):
    """Variety match: a pattern type a colour has made is worth nothing more to the bot."""
    for k in range(6):
        code = vcode[cell_vert[c, k]]
        for col in range(1, 4):
            ty = vtype[code, col]
            if ty > 0:
                ptsc[col, ty] = 0.0
                if players == 3:
                    ptsc[col, RADIAN] = 0.0
                    ptsc[col, SUPER_RADIAN] = 0.0
    for j in range(6):
        col = ocol[o, j]
        if col == 0:
            continue
        ca, la, _ = _run_beyond(rh, mark, line_next, line_side, c * 6 + j, 0)
        cb, lb, _ = _run_beyond(rh, mark, line_next, line_side, c * 6 + j, 1)
        L = 1 + (la if ca == col else 0) + (lb if cb == col else 0)
        if straight_value(L, smode) > 0:
            spts[col] = 0.0


@njit(cache=True)
def _longest_rope(col, rh, rh_tip, nv, simple, lend):
    """Longest chain rope of one colour: rhombi joined acute tip to acute tip, each rhombus used
    once (a trail through the lattice points; simple=1 also visits each point once).
    If lend has nv entries it receives the longest rope starting at each point."""
    nr = rh.shape[0]
    inc = np.full((nv, 3), -1, np.int64)
    deg = np.zeros(nv, np.int64)
    for r in range(nr):
        if rh[r] == col:
            for s in range(2):
                v = rh_tip[r, s]
                inc[v, deg[v]] = r
                deg[v] += 1
    used = np.zeros(nr, np.uint8)
    vis = np.zeros(nv, np.uint8)
    stk_v = np.zeros(nr + 2, np.int64)
    stk_i = np.zeros(nr + 2, np.int64)
    stk_e = np.zeros(nr + 2, np.int64)
    best = 0
    keep = lend.shape[0] == nv
    if keep:
        lend[:] = 0
    for s0 in range(nv):
        if deg[s0] == 0:
            continue
        from_here = 0
        top = 0
        stk_v[0] = s0
        stk_i[0] = 0
        stk_e[0] = -1
        length = 0
        if simple == 1:
            vis[s0] = 1
        while top >= 0:
            v = stk_v[top]
            i = stk_i[top]
            if i < deg[v]:
                stk_i[top] += 1
                e = inc[v, i]
                if used[e]:
                    continue
                w = rh_tip[e, 1] if rh_tip[e, 0] == v else rh_tip[e, 0]
                if simple == 1 and vis[w]:
                    continue
                used[e] = 1
                if simple == 1:
                    vis[w] = 1
                top += 1
                stk_v[top] = w
                stk_i[top] = 0
                stk_e[top] = e
                length += 1
                if length > from_here:
                    from_here = length
            else:
                e = stk_e[top]
                if e >= 0:
                    used[e] = 0
                    length -= 1
                    vis[v] = 0
                top -= 1
        vis[s0] = 0
        if keep:
            lend[s0] = from_here
        if from_here > best:
            best = from_here
    return best


@njit(cache=True)
def score_board(ri, rh, vcode, vslot_cell, vslot_k, line_next, line_side, rh_tip, vtype, pts, out):
    """Exact end-of-game scoring. out[4, 8] per colour: points of radian, super radian, set,
    arrow, straight (column = pattern id - 1; after the Arrow rules and the variety cap),
    rope length, points voided by the Arrow rules, base total (patterns without rope)."""
    nv = vcode.shape[0]
    nr = rh.shape[0]
    players = ri[0]
    smode = ri[7]
    out[:, :] = 0
    # 1. point patterns at lattice points
    maxi = nv * 3 + 1
    it = np.zeros(maxi, np.int64)
    icol = np.zeros(maxi, np.int64)
    irh = np.zeros((maxi, 3), np.int64)
    void = np.zeros(maxi, np.uint8)
    rinst = np.full((nr, 3), -1, np.int64)
    rn = np.zeros(nr, np.int64)
    ni = 0
    for v in range(nv):
        code = vcode[v]
        full = True
        for i in range(3):
            if (code // POW11[i]) % 11 < 2:
                full = False
        if not full:
            continue
        for col in range(1, 4):
            ty = vtype[code, col]
            if ty == 0:
                continue
            if players == 2 and col == 3:
                continue  # yellow is neutral with 2 players
            if players == 3 and ty == SUPER_RADIAN:
                ty = RADIAN
            it[ni] = ty
            icol[ni] = col
            for i in range(3):
                c = vslot_cell[v, i]
                k = vslot_k[v, i]
                r = -1
                if ty == SET:
                    r = c * 6 + k
                elif rh[c * 6 + (k + 5) % 6] == col:
                    r = c * 6 + (k + 5) % 6
                elif rh[c * 6 + (k + 1) % 6] == col:
                    r = c * 6 + (k + 1) % 6
                irh[ni, i] = r
                if r >= 0:
                    rinst[r, rn[r]] = ni
                    rn[r] += 1
            ni += 1
    # 2. straight runs
    run_of = np.full(nr, -1, np.int64)
    run_len = np.zeros(nr, np.int64)
    run_col = np.zeros(nr, np.int64)
    run_void = np.zeros(nr, np.uint8)
    nrun = 0
    for r in range(nr):
        if rh[r] == 0 or run_of[r] >= 0:
            continue
        col = rh[r]
        run_of[r] = nrun
        n = 1
        for side in range(2):
            cur = r
            s = side
            while True:
                nx = line_next[cur, s]
                if nx < 0 or rh[nx] != col or run_of[nx] >= 0:
                    break
                s2 = line_side[cur, s]
                run_of[nx] = nrun
                n += 1
                cur = nx
                s = 1 - s2
        run_len[nrun] = n
        run_col[nrun] = col
        nrun += 1
    # 3. the Arrow rules: an Arrow joined to a Set, or in a chain with a Radian or Straight
    if ri[8] == 1:
        for a in range(ni):
            if it[a] != ARROW:
                continue
            bad = False
            for i in range(3):
                r = irh[a, i]
                if r < 0:
                    continue
                for m in range(rn[r]):
                    x = rinst[r, m]
                    if x != a and it[x] != ARROW:
                        bad = True
                        void[x] = 1
                ru = run_of[r]
                if straight_value(run_len[ru], smode) > 0:
                    bad = True
                    run_void[ru] = 1
            if bad:
                void[a] = 1
    # 4. totals per colour
    for a in range(ni):
        col = icol[a]
        p = pts[it[a]]
        if void[a]:
            out[col, 6] += p
        else:
            out[col, it[a] - 1] += p
    for ru in range(nrun):
        col = run_col[ru]
        if players == 2 and col == 3:
            continue
        p = straight_value(run_len[ru], smode) * pts[STRAIGHT]
        if run_void[ru]:
            out[col, 6] += p
        else:
            out[col, 4] += p
    if ri[11] == 1:  # variety match: each pattern type scores once per player
        for col in range(1, 4):
            for ty in range(1, 6):
                out[col, ty - 1] = min(out[col, ty - 1], pts[ty])
    for col in range(1, 4):
        if players == 2 and col == 3:
            continue
        out[col, 5] = _longest_rope(col, rh, rh_tip, nv, ri[12], np.zeros(0, np.int64))
        if ri[10] == 0:  # with chain rope only the patterns do not count
            out[col, 7] = out[col, 0] + out[col, 1] + out[col, 2] + out[col, 3] + out[col, 4]


@njit(cache=True)
def _play_game(
    seed,
    ri,
    bot_code,
    bot_par,
    neigh,
    cell_vert,
    cell_slot,
    low_tri,
    vslot_cell,
    vslot_k,
    line_next,
    line_side,
    rh_tip,
    rh_obt,
    ocol,
    contrib,
    vtype,
    ntip,
    pot,
    ptsc,
    spts,
    pts,
    rec,
    res,
):
    """Play one game. rec[T, REC_W] receives the moves; res[int64 4 + players*8]:
    winner, end reason, turns, island cell, then per seat the 8 score entries of score_board."""
    rng = new_state(seed)
    n = neigh.shape[0]
    nv = vslot_cell.shape[0]
    players = ri[0]
    rh = np.zeros(n * 6, np.int8)
    mark = np.zeros(n * 6, np.uint8)
    vflag = np.zeros((nv, 4, 2))
    lend = np.zeros((4, nv), np.int64)  # longest rope from each point, per colour (for the bots)
    rope_now = np.zeros(4, np.int64)
    rope_bots = False
    for s in range(players):
        if bot_code[s] == BOT_GREEDY and bot_par[s, 4] != 0.0:
            rope_bots = True
    arrows = 0 if ri[8] == 0 else (2 if ri[9] == 1 else 1)
    cell_o = np.full(n, -1, np.int32)
    placer = np.full(n, -1, np.int32)
    vcode = np.zeros(nv, np.int32)
    island = -1
    if ri[5] == 0:
        island = ri[14]
    elif ri[5] == 1:
        island = below(rng, n)
    if island >= 0:
        cell_o[island] = -2
    for v in range(nv):
        code = 0
        for i in range(3):
            c = vslot_cell[v, i]
            if c >= 0 and c != island:
                code += POW11[i]
        vcode[v] = code
    rem = np.zeros(2, np.int64)
    rem[0] = ri[15]
    rem[1] = ri[16] - (1 if island >= 0 else 0)
    n_tiles = rem[0] + rem[1]
    seat_col = np.zeros(players, np.int64)
    seat_col[0] = ri[13]
    if players >= 2:
        seat_col[1] = 3 - ri[13]
    if players == 3:
        seat_col[2] = 3
    col_seat = np.full(4, -1, np.int64)
    for s in range(players):
        col_seat[seat_col[s]] = s
    ptsc = ptsc.copy()  # the bot's points per colour and pattern (variety: zeroed once made)
    spts = spts.copy()
    cells = np.zeros(n, np.int64)
    choice = np.zeros(2, np.int64)
    types_ok = np.zeros(2, np.uint8)
    # what the greedy bot reads: board state and lookup tables, one argument
    view = (rh, mark, vflag, lend, rope_now, vcode, cell_vert, cell_slot, low_tri, vslot_cell,
            vslot_k, contrib, ocol, vtype, ntip, pot, ptsc, spts, line_next, line_side)
    last_cell = -1
    rot_n = 6 if ri[4] == 1 else 1
    smode = ri[7]
    winner = -2
    end = END_TILES
    t = 0
    while t < n_tiles:
        seat = t % players
        ncell = _legal_cells(t, seat, ri, cell_o, placer, neigh, last_cell, cells)
        if ncell == 0:
            break
        first_draw = -1
        redraw = 0
        picker = -1
        types_ok[0] = 1 if rem[0] > 0 else 0
        types_ok[1] = 1 if rem[1] > 0 else 0
        if ri[2] == TC_BAG:
            tt = 0 if below(rng, rem[0] + rem[1]) < rem[0] else 1
            first_draw = tt
            if ri[3] == 0 and types_ok[0] == 1 and types_ok[1] == 1:
                # the drawn tile may go back once (then the second draw must be used)
                back = False
                if bot_code[seat] == BOT_RANDOM:
                    back = below(rng, 2) == 1
                else:
                    vals = _type_values(rng, cells, ncell, types_ok, rot_n, seat, players, seat_col,
                                        bot_par[seat], view, smode, arrows, choice)
                    expect = (rem[0] * vals[0] + rem[1] * vals[1]) / (rem[0] + rem[1])
                    back = vals[tt] < expect - 1e-9
                if back:
                    redraw = 1
                    tt = 0 if below(rng, rem[0] + rem[1]) < rem[0] else 1
            types_ok[0] = 1 if tt == 0 else 0
            types_ok[1] = 1 if tt == 1 else 0
        elif ri[2] == TC_OPPONENT and types_ok[0] == 1 and types_ok[1] == 1:
            picker = (seat + players - 1) % players
            if bot_code[picker] == BOT_RANDOM:
                tt = below(rng, 2)
            else:
                # the picker hands over the tile type whose best use is worst for the mover
                vals = _type_values(rng, cells, ncell, types_ok, rot_n, seat, players, seat_col,
                                    bot_par[picker], view, smode, arrows, choice)
                tt = 0 if vals[0] < vals[1] else 1
                if vals[0] == vals[1]:
                    tt = below(rng, 2)
            types_ok[0] = 1 if tt == 0 else 0
            types_ok[1] = 1 if tt == 1 else 0
            first_draw = tt
        if bot_code[seat] == BOT_RANDOM:
            c = cells[below(rng, ncell)]
            nt = types_ok[0] + types_ok[1]
            tt = below(rng, nt)
            if types_ok[0] == 0:
                tt = 1
            o = tt * 6 + (below(rng, 6) if rot_n == 6 else 0)
        else:
            _greedy(rng, cells, ncell, types_ok, rot_n, seat, players, seat_col, bot_par[seat], view, smode,
                    arrows, choice)
            c = choice[0]
            o = choice[1]
        _apply(c, o, seat, rh, cell_o, placer, vcode, cell_vert, cell_slot, low_tri, contrib, ocol)
        rem[o // 6] -= 1
        last_cell = c
        if t < rec.shape[0]:
            rec[t, 0] = seat
            rec[t, 1] = c
            rec[t, 2] = o
            rec[t, 3] = first_draw
            rec[t, 4] = redraw
            rec[t, 5] = picker
        t += 1
        if arrows > 0:
            _mark_patterns(
                c,
                o,
                players,
                rh,
                mark,
                vflag,
                vcode,
                cell_vert,
                vslot_cell,
                vslot_k,
                rh_tip,
                rh_obt,
                ocol,
                vtype,
                ptsc,
                spts,
                line_next,
                line_side,
                smode,
            )
        if rope_bots:
            for s in range(players):
                col = seat_col[s]
                rope_now[col] = _longest_rope(col, rh, rh_tip, nv, ri[12], lend[col])
        if ri[11] == 1:
            _variety_update(
                c,
                o,
                rh,
                mark,
                vcode,
                cell_vert,
                ocol,
                vtype,
                line_next,
                line_side,
                smode,
                players,
                ptsc,
                spts,
            )
        if ri[9] == 1:
            # Radian wins at once: the owner of a Radian made by this tile (the mover first)
            for pass_ in range(2):
                for k in range(6):
                    code = vcode[cell_vert[c, k]]
                    for col in range(1, 4):
                        s = col_seat[col]
                        if s < 0 or (pass_ == 0 and s != seat):
                            continue
                        ty = vtype[code, col]
                        if (ty == RADIAN or ty == SUPER_RADIAN) and winner == -2:
                            winner = s
                            end = END_RADIAN
            if winner != -2:
                break
    sc = np.zeros((4, 8), np.int64)
    score_board(ri, rh, vcode, vslot_cell, vslot_k, line_next, line_side, rh_tip, vtype, pts, sc)
    if end == END_RADIAN:
        for col in range(4):
            sc[col, 5] = 0  # the chain rope is counted only when every tile is down
    if winner == -2:
        # most points; tie: most points without the rope; still tied: a draw
        best = -1
        bestb = -1
        for s in range(players):
            col = seat_col[s]
            tot = sc[col, 7] + sc[col, 5]
            if tot > best or (tot == best and sc[col, 7] > bestb):
                best = tot
                bestb = sc[col, 7]
                winner = s
        cnt = 0
        for s in range(players):
            col = seat_col[s]
            if sc[col, 7] + sc[col, 5] == best and sc[col, 7] == bestb:
                cnt += 1
        if cnt > 1:
            winner = -1
    res[0] = winner
    res[1] = end
    res[2] = t
    res[3] = island
    for s in range(players):
        col = seat_col[s]
        for x in range(8):
            res[4 + s * 8 + x] = sc[col, x]


@njit(cache=True)
def play_chunk_kernel(
    run_seed,
    first_game,
    n_games,
    ri,
    bot_code,
    bot_par,
    neigh,
    cell_vert,
    cell_slot,
    low_tri,
    vslot_cell,
    vslot_k,
    line_next,
    line_side,
    rh_tip,
    rh_obt,
    ocol,
    contrib,
    vtype,
    ntip,
    pot,
    ptsc,
    spts,
    pts,
    out,
):
    """out[n_games, 4 + players*8] int64 rows (see _play_game)."""
    rec = np.zeros((0, REC_W), np.int64)
    for g in range(n_games):
        seed = game_seed(run_seed, first_game + g)
        _play_game(
            seed,
            ri,
            bot_code,
            bot_par,
            neigh,
            cell_vert,
            cell_slot,
            low_tri,
            vslot_cell,
            vslot_k,
            line_next,
            line_side,
            rh_tip,
            rh_obt,
            ocol,
            contrib,
            vtype,
            ntip,
            pot,
            ptsc,
            spts,
            pts,
            rec,
            out[g],
        )


@njit(cache=True)
def play_traced_kernel(
    run_seed,
    game_index,
    ri,
    bot_code,
    bot_par,
    neigh,
    cell_vert,
    cell_slot,
    low_tri,
    vslot_cell,
    vslot_k,
    line_next,
    line_side,
    rh_tip,
    rh_obt,
    ocol,
    contrib,
    vtype,
    ntip,
    pot,
    ptsc,
    spts,
    pts,
    rec,
    out,
):
    seed = game_seed(run_seed, game_index)
    _play_game(
        seed,
        ri,
        bot_code,
        bot_par,
        neigh,
        cell_vert,
        cell_slot,
        low_tri,
        vslot_cell,
        vslot_k,
        line_next,
        line_side,
        rh_tip,
        rh_obt,
        ocol,
        contrib,
        vtype,
        ntip,
        pot,
        ptsc,
        spts,
        pts,
        rec,
        out,
    )
