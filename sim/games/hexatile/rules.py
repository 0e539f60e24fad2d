"""HEXATILE's rules as compiled functions on the tables and position of state.py: where a tile may
go, placing it, the bag draw, a Radian's instant win, and the exact end-of-game scoring.
The engine functions in kernel.py are written with these; the bots (bots.py) read them too.

Speed: every function binds the arrays it reads from the tables and position to locals before
its loops. Read as `tb.neigh[c, d]` inside a loop, numba reloads the array from the tuple on
every pass: measured on `legal_cells`, 0.40 us against 0.11 us a call."""

from __future__ import annotations

import numpy as np

from sim.engine.jit import hot, hot_fused, hot_inline, kernel
from sim.engine.rng import below
from sim.games.hexatile.state import (
    ARROW,
    END,
    END_RADIAN,
    LAST,
    N_ST,
    POW11,
    RADIAN,
    SP_ADJ,
    SP_ALL,
    SP_LAST,
    STRAIGHT,
    SUPER_RADIAN,
    TURN,
    WINNER,
    Position,
    RopeWork,
    ScoreWork,
)


@hot_fused
def straight_value(L, mode, n):
    """Straights scored by a run of L rhombi joined tip to tip in one line, n rhombi a Straight
    (the template's `line`, 3 on the card)."""
    if L < n:
        return 0
    if mode == 0:  # thirds: with n = 3 a 4th or 5th adds nothing, 6 makes two
        return L // n
    if mode == 1:  # once: any run of n or more is one Straight
        return 1
    return L - n + 1  # window: every n consecutive rhombi


@kernel
def empty_position(n, vslot_cell, tiles, bot_ptsc, bot_spts, island):
    """The board of n cells with only the island (a cell, or -1) and every tile still to place.
    (The tables' arrays it needs, not the tables: a function that allocates counts references
    to every array it is handed.)"""
    nv = vslot_cell.shape[0]
    cell_o = np.full(n, -1, np.int32)
    if island >= 0:
        cell_o[island] = -2
    vcode = np.zeros(nv, np.int32)
    for v in range(nv):
        code = 0
        for i in range(3):
            c = vslot_cell[v, i]
            if c >= 0 and c != island:
                code += POW11[i]
        vcode[v] = code
    rem = tiles.copy()
    if island >= 0:
        rem[1] -= 1  # the island is a red-backed tile
    st = np.full(N_ST, -1, np.int64)
    st[TURN] = 0
    st[WINNER] = -2
    st[END] = 0
    return Position(np.zeros(n * 6, np.int8), cell_o, np.full(n, -1, np.int32), vcode, rem, st,
                    np.full(n, -1, np.int32), np.zeros(n * 6, np.uint8), np.zeros((nv, 4, 2)), bot_ptsc.copy(), bot_spts.copy())


@hot_inline
def draw_tile(pos, rng):
    """A tile drawn blind from the bag (the tiles not yet placed): its type."""
    return 0 if below(rng, pos.rem[0] + pos.rem[1]) < pos.rem[0] else 1


@hot_fused
def legal_cells(tb, pos, seat, out):
    """Fill out[] with the cells `seat` may use now; return how many (fallback: any empty)."""
    neigh, cell_o, placer = tb.neigh, pos.cell_o, pos.placer
    spacing, free, centre = tb.spacing, tb.free, tb.centre
    n = cell_o.shape[0]
    turn = pos.st[TURN]
    last_cell = pos.st[LAST]
    ns = 0
    for fallback in range(2):
        ns = 0
        for c in range(n):
            if cell_o[c] != -1:
                continue
            if free == 1:
                if turn == 0:
                    if c != centre:
                        continue
                else:
                    touch = False
                    for d in range(6):
                        nb = neigh[c, d]
                        if nb >= 0 and cell_o[nb] >= 0:
                            touch = True
                    if not touch:
                        continue
            if fallback == 0 and turn > 0:
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


@hot_inline
def put(tb, pos, c, o, seat):
    """Lay orientation o on cell c: rhombi, owner and turn, the slot codes of its six corners."""
    rh, vcode, ocol, contrib = pos.rh, pos.vcode, tb.ocol, tb.contrib
    cell_vert, cell_slot, low_tri = tb.cell_vert, tb.cell_slot, tb.low_tri
    pos.cell_o[c] = o
    pos.placer[c] = seat
    pos.placed[c] = pos.st[TURN]
    for j in range(6):
        rh[c * 6 + j] = ocol[o, j]
    for k in range(6):
        vcode[cell_vert[c, k]] += (contrib[o, k, low_tri[c, k]] - 1) * POW11[cell_slot[c, k]]


@hot_inline
def _voided_now(tb, pos, v, col):
    """Whether the Radian of colour col at point v shares a rhombus with an Arrow that voids
    (the bots' marks, kept by bots.mark_patterns under the Arrow rules, hold exactly those)."""
    mark, rh = pos.mark, pos.rh
    for i in range(3):
        c = tb.vslot_cell[v, i]
        k = tb.vslot_k[v, i]
        for dj in range(5, 8):
            r = c * 6 + (k + dj) % 6
            if rh[r] == col and mark[r] & 2:
                return True
    return False


@hot_inline
def radian_winner(tb, pos, c, seat):
    """Radian wins: the owner of a Radian made at a corner of the tile on c, the mover first,
    wins at once (st[WINNER], st[END]); with voided_radian_wins = false not a Radian the Arrow
    rules void as it is made."""
    vcode, cell_vert, col_seat, vtype = pos.vcode, tb.cell_vert, tb.col_seat, tb.vtype
    check_void = tb.arrows > 0 and tb.void_radian_wins == 0
    st = pos.st
    for pass_ in range(2):
        for k in range(6):
            code = vcode[cell_vert[c, k]]
            for col in range(1, 4):
                s = col_seat[col]
                if s < 0 or (pass_ == 0 and s != seat):
                    continue
                ty = vtype[code, col]
                if (ty == RADIAN or ty == SUPER_RADIAN) and st[WINNER] == -2:
                    if check_void and _voided_now(tb, pos, cell_vert[c, k], col):
                        continue
                    st[WINNER] = s
                    st[END] = END_RADIAN


@kernel
def new_rope_work(n, nv):
    """longest_rope's work arrays for a board of n cells and nv lattice points."""
    return RopeWork(np.full((nv, 3), -1, np.int64), np.zeros(nv, np.int64), np.zeros(n * 6, np.uint8),
                    np.zeros(nv, np.uint8), np.zeros(n * 6 + 2, np.int64), np.zeros(n * 6 + 2, np.int64),
                    np.zeros(n * 6 + 2, np.int64))


@hot
def longest_rope(tb, rh, col, lend, wk):
    """Longest chain rope of one colour: rhombi joined acute tip to acute tip, each rhombus used
    once (a trail through the lattice points; rope_path "simple" also visits each point once).
    If lend has a row per lattice point it receives the longest rope starting at each point.
    wk: `new_rope_work`'s arrays."""
    nv = tb.vslot_cell.shape[0]
    simple = tb.simple_rope
    rh_tip = tb.rh_tip
    nr = rh.shape[0]
    inc, deg, used, vis = wk.inc, wk.deg, wk.used, wk.vis
    stk_v, stk_i, stk_e = wk.stk_v, wk.stk_i, wk.stk_e
    deg[:] = 0
    used[:] = 0
    vis[:] = 0
    for r in range(nr):
        if rh[r] == col:
            for s in range(2):
                v = rh_tip[r, s]
                inc[v, deg[v]] = r
                deg[v] += 1
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


# ---- end-of-game scoring ------------------------------------------------------------------------
@kernel
def new_score_work(n, nv):
    """score_board's work arrays for a board of n cells and nv lattice points."""
    maxi = nv * 3 + 1
    nr = n * 6
    return ScoreWork(np.zeros(maxi, np.int64), np.zeros(maxi, np.int64), np.zeros(maxi, np.int64),
                     np.zeros((maxi, 3), np.int64),
                     np.full((nr, 3), -1, np.int64), np.zeros(nr, np.int64), np.full(nr, -1, np.int64),
                     np.zeros(nr, np.int64), np.zeros(nr, np.int64), np.zeros(maxi, np.uint8), np.zeros(nr, np.uint8),
                     np.zeros(0, np.int64), new_rope_work(n, nv))


@hot
def _point_patterns(tb, rh, vcode, placer, placed, wk):
    """Every point pattern on a full point, into wk: its type, colour, the seat that completed
    it (the placer of the point's cell placed last; arrow_voids = "owner" only), per slot the
    rhombus of its colour touching the point (-1: none), and per rhombus the patterns through
    it. Returns how many."""
    owner = tb.arrow_owner
    vtype, vslot_cell, vslot_k = tb.vtype, tb.vslot_cell, tb.vslot_k
    it, icol, iby, irh, rinst, rn = wk.it, wk.icol, wk.iby, wk.irh, wk.rinst, wk.rn
    nv = vcode.shape[0]
    players = tb.n_seats
    rinst[:, :] = -1
    rn[:] = 0
    ni = 0
    for v in range(nv):
        code = vcode[v]
        full = True
        for i in range(3):
            if (code // POW11[i]) % 11 < 2:
                full = False
        if not full:
            continue
        by = -1
        if owner == 1:
            last = -1
            for i in range(3):
                c = vslot_cell[v, i]
                if placed[c] > last:
                    last = placed[c]
                    by = placer[c]
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
            iby[ni] = by
            for i in range(3):
                c = vslot_cell[v, i]
                k = vslot_k[v, i]
                r = -1
                if rh[c * 6 + k] == col:  # an obtuse corner there
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
    return ni


@hot
def _straight_runs(tb, rh, wk):
    """Maximal same-colour lines of rhombi joined tip to tip, into wk: the run of each rhombus,
    the length and colour of each run. Returns how many."""
    line_next, line_side = tb.line_next, tb.line_side
    run_of, run_len, run_col = wk.run_of, wk.run_len, wk.run_col
    nr = rh.shape[0]
    run_of[:] = -1
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
    return nrun


@hot
def _void_arrows(tb, ni, wk):
    """The Arrow rules: an Arrow sharing a rhombus with a Set, a Radian or a scoring Straight
    voids itself and that pattern (wk.void / wk.run_void set to 1); under arrow_voids =
    "owner" only an Arrow completed by its own colour's seat does."""
    it, icol, iby, irh, rinst, rn = wk.it, wk.icol, wk.iby, wk.irh, wk.rinst, wk.rn
    run_of, run_len, void, run_void = wk.run_of, wk.run_len, wk.void, wk.run_void
    smode, line_n, owner, col_seat = tb.smode, tb.line_n, tb.arrow_owner, tb.col_seat
    for a in range(ni):
        if it[a] != ARROW:
            continue
        if owner == 1 and col_seat[icol[a]] != iby[a]:
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
            if straight_value(run_len[ru], smode, line_n) > 0:
                bad = True
                run_void[ru] = 1
        if bad:
            void[a] = 1


@hot
def score_board(tb, rh, vcode, placer, placed, wk, out):
    """Exact end-of-game scoring (wk: `new_score_work`; placer, placed: the Position's). out[4, 8] per
    colour: points of radian, super radian, set, arrow, straight (column = pattern id - 1; after
    the Arrow rules and the variety cap), rope length (0 when chain_rope is off), points voided
    by the Arrow rules, base total (no rope)."""
    players = tb.n_seats
    pts = tb.pts
    smode, line_n = tb.smode, tb.line_n
    it, icol, run_len, run_col, void, run_void = wk.it, wk.icol, wk.run_len, wk.run_col, wk.void, wk.run_void
    out[:, :] = 0
    ni = _point_patterns(tb, rh, vcode, placer, placed, wk)
    nrun = _straight_runs(tb, rh, wk)
    void[:] = 0
    run_void[:] = 0
    if tb.arrows > 0:
        _void_arrows(tb, ni, wk)
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
        p = straight_value(run_len[ru], smode, line_n) * pts[STRAIGHT]
        if run_void[ru]:
            out[col, 6] += p
        else:
            out[col, 4] += p
    if tb.variety == 1:  # variety match: each pattern type scores once per player
        for col in range(1, 4):
            for ty in range(1, 6):
                out[col, ty - 1] = min(out[col, ty - 1], pts[ty])
    for col in range(1, 4):
        if players == 2 and col == 3:
            continue
        if tb.rope_on == 1:
            out[col, 5] = longest_rope(tb, rh, col, wk.no_lend, wk.rope)
        if tb.rope_only == 0:  # with chain rope only the patterns do not count
            out[col, 7] = out[col, 0] + out[col, 1] + out[col, 2] + out[col, 3] + out[col, 4]


@hot
def points_winner(tb, sc):
    """Most points (the seat's bonus included); tie: most points without the rope (bonus
    included); still tied: a draw (-1)."""
    seat_col, bonus = tb.seat_col, tb.bonus
    best = -(1 << 40)
    bestb = -(1 << 40)
    winner = -1
    for s in range(tb.n_seats):
        col = seat_col[s]
        b = sc[col, 7] + bonus[s]
        tot = b + sc[col, 5]
        if tot > best or (tot == best and b > bestb):
            best = tot
            bestb = b
            winner = s
    cnt = 0
    for s in range(tb.n_seats):
        col = seat_col[s]
        b = sc[col, 7] + bonus[s]
        if b + sc[col, 5] == best and b == bestb:
            cnt += 1
    return -1 if cnt > 1 else winner
