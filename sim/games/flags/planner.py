"""Four flags' `planner` bot: a search over whole turns, not single decisions.

A Four flags turn is many small decisions (each card, each reinforcement unit, each step's pair
and count), and greedy's evaluation scores half-finished turns, so a search over single
decisions plays greedy's move almost always. The planner searches over plans instead: the
decisions from now to the next chance event, which is the die roll (cards and reinforcements:
the turn's first planning point) or the end of the turn (the move steps, planned once the die
is known: the second).

At a planning point it
1. makes `plans` candidate plans (by default playouts / 8: `budget`), each played out in a world redrawn for its seat (the other
   hand and the deck order by `sample_hidden`'s rule, never read): greedy with its default
   weights (the first candidate), greedy with its three weights each multiplied by
   exp(spread * u), u uniform in [-1, 1], and, for every other candidate, such a greedy whose
   card choices and move steps are, with probability `explore` each, a uniformly drawn legal
   one (the steps' unit counts and the reinforcements stay greedy's); duplicates are dropped;
2. scores the candidates by sequential halving with common random numbers: `playouts`
   playouts split evenly between the ceil(log2 n) rounds, each round's worlds drawn afresh and
   every surviving plan played in each of them from the same generator state (the same redraw,
   the same dice and draws as far as the plans leave the generator in step); a playout plays
   the plan, then greedy (default weights) for both seats until `horizon` more turns have
   ended (by default 4 at 64 playouts, 2 more per doubling of the budget), and scores the
   position by greedy's evaluation (`evaluate`) through a logistic with `eval_scale` points
   per unit (a won game 1, a lost one 0, a draw 0.5); the better half by
   mean survives each round, greedy's plan first among equals;
3. plays the chosen plan's decisions one by one, caching it in its scratch: each decision
   checks a key of what the seat sees (phase, counters, board, own hand) against the one the
   plan was made for, replans where it differs, and plays greedy's move if the plan's next
   decision is not legal (it always is: a plan depends only on what the seat sees).

With `sees = "all"` (the `oracle`) the worlds keep the other hand as it is and redraw only the
deck's order, what nobody has seen: the ceiling of skill, never a seat whose verdict counts.

The bot reads its own hand, the board and the public counters; the generator of every world and
candidate is drawn from the game's generator (one draw per planning point), so a game is a
function of its seed, and two positions that look the same to the seat give the same decision.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.engine.jit import hot, hot_inline, kernel
from sim.engine.rng import below, mix64, next_u64, uniform
from sim.games.flags import bots as B
from sim.games.flags import kernel as K

BOT_PLANNER = 2
MAX_PLANS = 64
# the bot's parameter row (game.py's PLANNER declares them in this order)
P_PLAYOUTS, P_PLANS, P_HORIZON, P_SCALE, P_SPREAD, P_EXPLORE, P_SEES = range(7)
SEES_OWN, SEES_ALL = 0, 1  # the `sees` choices
# PlanScratch.sv fields: the plan being played, its next decision, whether one is cached, the
# seat whose view the worlds are redrawn for (-1: what nobody has seen, for the oracle)
S_PLAN, S_CUR, S_VALID, S_VIEW, S_N = range(5)


class PlanScratch(NamedTuple):
    """The planner's arrays: views of one int64 buffer (`Scratch.p`, laid out by `_parts`)."""

    gen: K.Position  # the world a candidate plan is made in
    world: K.Position  # the world a playout plays in
    moves: np.ndarray  # int64[MAX_PLANS, L]: each candidate's decisions
    keys: np.ndarray  # uint64[MAX_PLANS, L]: what the seat saw before each of them
    plen: np.ndarray  # int64[MAX_PLANS]: decisions per candidate
    cand: np.ndarray  # int64[MAX_PLANS]: the surviving candidates, best first after a round
    csum: np.ndarray  # float64[MAX_PLANS]: each candidate's summed reward
    cn: np.ndarray  # float64[MAX_PLANS]: each candidate's playouts
    wpar: np.ndarray  # float64[3]: the weights a candidate is made with
    dpar: np.ndarray  # float64[3]: greedy's default weights
    buf: np.ndarray  # int64[max_moves]: a legal move list
    pool: np.ndarray  # int64[n_cards]: the redraw's unseen cards
    unseen: np.ndarray  # int64[n_cards]
    rngs: np.ndarray  # uint64[3]: the generators of a candidate's world, a playout's, the planner's
    sv: np.ndarray  # int64[S_N]


class Scratch(NamedTuple):
    """What `new_scratch` gives the engine: greedy's scratch (all that greedy's functions take)
    and the planner's arrays as one int64 buffer. The engine hands the scratch on at every
    decision, every array of it as several machine words: with the planner's 30 arrays as arrays
    of their own greedy played 16% fewer games/s; as one buffer, greedy's games/s stay."""

    g: B.Scratch
    p: np.ndarray


class Work(NamedTuple):
    """Greedy's scratch and the planner's arrays (views of Scratch.p), inside the planner."""

    g: B.Scratch
    p: PlanScratch


@hot_inline
def _width(t):
    """The hand rows of the planner's positions: as wide as the largest hand."""
    return max(t.hand_a, t.hand_b) + t.second_extra


@hot_inline
def _pos_size(t):
    return 4 * t.n_hex + 2 * _width(t) + 3 * t.n_cards + (2 * t.n_cards + 7) // 8 + K.N_ST


@hot
def plan_length(t):
    """The most decisions between two planning points: every card of a turn with all its units,
    then two per step and a stop."""
    cards = max(max(t.cards_a, t.cards_b), t.first_turn_cards)
    top = 0
    for c in range(t.card_val.shape[0]):
        top = max(top, t.card_val[c])
    return cards * (top + 1) + 2 * t.die_sides + 2


@hot_inline
def _size(t):
    return S_N + 2 * _pos_size(t) + 2 * MAX_PLANS * plan_length(t) + 4 * MAX_PLANS + 6 + t.max_moves \
        + 2 * t.n_cards + 3


@hot_inline
def _pos_at(t, b, o):
    """A position on b[o:o + _pos_size(t)] (no action log)."""
    nh, nc, w = t.n_hex, t.n_cards, _width(t)
    owner = b[o:o + nh]
    units = b[o + nh:o + 2 * nh]
    o += 2 * nh
    hands = b[o:o + 2 * w].reshape((2, w))
    o += 2 * w
    cards = b[o:o + 3 * nc].reshape((3, nc))
    o += 3 * nc
    kn = (2 * nc + 7) // 8
    known = b[o:o + kn].view(np.int8)[:2 * nc].reshape((2, nc))
    o += kn
    reinf = b[o:o + 2 * nh].reshape((2, nh))
    o += 2 * nh
    st = b[o:o + K.N_ST]
    return K.Position(owner, units, hands, cards, known, reinf, st, b[0:0].reshape((0, K.REC_COLS)))


@hot_inline
def _parts(t, b):
    """The planner's arrays on its buffer (views; greedy's default weights written in)."""
    ps = _pos_size(t)
    n = plan_length(t)
    sv = b[0:S_N]
    o = S_N
    gen = _pos_at(t, b, o)
    world = _pos_at(t, b, o + ps)
    o += 2 * ps
    moves = b[o:o + MAX_PLANS * n].reshape((MAX_PLANS, n))
    o += MAX_PLANS * n
    keys = b[o:o + MAX_PLANS * n].view(np.uint64).reshape((MAX_PLANS, n))
    o += MAX_PLANS * n
    plen = b[o:o + MAX_PLANS]
    cand = b[o + MAX_PLANS:o + 2 * MAX_PLANS]
    csum = b[o + 2 * MAX_PLANS:o + 3 * MAX_PLANS].view(np.float64)
    cn = b[o + 3 * MAX_PLANS:o + 4 * MAX_PLANS].view(np.float64)
    o += 4 * MAX_PLANS
    wpar = b[o:o + 3].view(np.float64)
    dpar = b[o + 3:o + 6].view(np.float64)
    o += 6
    for i in range(3):
        dpar[i] = B.GREEDY_DEFAULTS[i]
    mv = b[o:o + t.max_moves]
    o += t.max_moves
    pool = b[o:o + t.n_cards]
    unseen = b[o + t.n_cards:o + 2 * t.n_cards]
    o += 2 * t.n_cards
    rngs = b[o:o + 3].view(np.uint64)
    return PlanScratch(gen, world, moves, keys, plen, cand, csum, cn, wpar, dpar, mv, pool, unseen, rngs, sv)


@kernel
def new_scratch(t):
    return Scratch(B.new_scratch(t), np.zeros(_size(t), np.int64))


@hot_inline
def bot_move(t, pos, seat, code, par, x, rng):
    """The engine's bot_move: greedy, on greedy's part of the scratch."""
    return B.bot_move(t, pos, seat, code, par, x.g, rng)


# ---- positions in place (the planner allocates nothing) -------------------------------------
@hot
def _load(dst, src):
    """dst := src (dst's hand rows may be wider: the rest is -1; the action log is not copied)."""
    for h in range(src.owner.shape[0]):
        dst.owner[h] = src.owner[h]
        dst.units[h] = src.units[h]
        dst.reinf[0, h] = src.reinf[0, h]
        dst.reinf[1, h] = src.reinf[1, h]
    w = src.hands.shape[1]
    for s in range(2):
        for j in range(dst.hands.shape[1]):
            dst.hands[s, j] = src.hands[s, j] if j < w else -1
    for r in range(3):
        for c in range(src.cards.shape[1]):
            dst.cards[r, c] = src.cards[r, c]
    for s in range(2):
        for c in range(src.known.shape[1]):
            dst.known[s, c] = src.known[s, c]
    for i in range(src.st.shape[0]):
        dst.st[i] = src.st[i]
    dst.st[K.LOG_N] = 0


@hot
def _redraw(t, pos, seat, rng, pool, unseen):
    """kernel.sample_hidden on the scratch's arrays: the other hand's cards the seat does not
    know and the draw pile's order redrawn from those cards, taken in card order (a set the
    seat can work out), so nothing hidden reaches the planner; seat -1: the draw pile's order
    alone (what nobody has seen: the oracle)."""
    other = 1 - seat
    nc = t.n_cards
    for c in range(nc):
        unseen[c] = 0
    nh = pos.st[K.HAND_N + other] if seat >= 0 else 0
    deck = pos.cards[K.DECK]
    for i in range(nh):
        if pos.known[seat, pos.hands[other, i]] == 0:
            unseen[pos.hands[other, i]] = 1
    for j in range(pos.st[K.DECK_N]):
        unseen[deck[j]] = 1
    n = 0
    for c in range(nc):
        if unseen[c] == 1:
            pool[n] = c
            n += 1
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    k = 0
    for i in range(nh):
        if pos.known[seat, pos.hands[other, i]] == 0:
            pos.hands[other, i] = pool[k]
            k += 1
    for j in range(pos.st[K.DECK_N]):
        deck[j] = pool[k]
        k += 1


@hot
def _key(pos, seat, view):
    """A hash of what `seat` sees that a plan's decision depends on: counters, board, own hand
    (and the other hand where the worlds are redrawn for nobody, view -1: the oracle's)."""
    st = pos.st
    z = np.uint64(0x243F6A8885A308D3)
    for i in (K.PHASE, K.SEAT, K.TURNS, K.DECISIONS, K.CARDS_LEFT, K.REINF_LEFT, K.STEPS_LEFT, K.PEND,
              K.OVER):
        z = mix64(z ^ np.uint64(st[i] + 7))
    for h in range(pos.owner.shape[0]):
        z = mix64(z ^ np.uint64((pos.owner[h] + 2) * 4096 + pos.units[h]))
    for i in range(st[K.HAND_N + seat]):
        z = mix64(z ^ np.uint64(pos.hands[seat, i] + 1000))
    if view < 0:
        for i in range(st[K.HAND_N + 1 - seat]):
            z = mix64(z ^ np.uint64(pos.hands[1 - seat, i] + 5000))
    return z


@hot_inline
def _boundary(pos, seat, turns0, cardphase0):
    """Has the plan reached the next chance event: the roll (from a card phase) or the turn's end?"""
    st = pos.st
    if st[K.OVER] == 1 or st[K.TURNS] != turns0 or st[K.SEAT] != seat:
        return True
    return cardphase0 and (st[K.PHASE] == K.STEP or st[K.PHASE] == K.COUNT)


@hot
def _make(t, pos, seat, i, explore, x, rng):
    """Candidate i from the real position pos, in a world redrawn for the seat with generator
    rng, by greedy with the weights in wpar (explore: the chance that a card or a step is drawn
    uniformly instead); returns its length."""
    p = x.p
    g = p.gen
    _load(g, pos)
    _redraw(t, g, p.sv[S_VIEW], rng, p.pool, p.unseen)
    turns0 = g.st[K.TURNS]
    card0 = g.st[K.PHASE] == K.CARD or g.st[K.PHASE] == K.REINF
    n = 0
    while not _boundary(g, seat, turns0, card0) and n < p.moves.shape[1]:
        ph = g.st[K.PHASE]
        m = -1
        if explore > 0.0 and (ph == K.CARD or ph == K.STEP) and uniform(rng) < explore:
            k = K.legal_moves(t, g, p.buf)
            m = p.buf[below(rng, k)]
        else:
            m = B.bot_move(t, g, seat, B.BOT_GREEDY, p.wpar, x.g, rng)
        p.keys[i, n] = _key(g, seat, p.sv[S_VIEW])
        p.moves[i, n] = m
        n += 1
        K.apply(t, g, m, rng)
    return n


@hot
def _score(t, pos, seat, x, scale):
    """The seat's reward: 1 / 0 for a won / lost game, 0.5 for a draw, else the logistic of
    greedy's evaluation (evaluate's difference of the two seats' scores)."""
    st = pos.st
    if st[K.OVER] == 1:
        w = st[K.WINNER]
        return 0.5 if w < 0 else (1.0 if w == seat else 0.0)
    d = (B.position_value(t, x.g, seat, pos.owner, pos.units, x.p.dpar)
         - B.position_value(t, x.g, 1 - seat, pos.owner, pos.units, x.p.dpar))
    return 1.0 / (1.0 + np.exp(-d / scale))


@hot
def _playout(t, pos, seat, i, horizon, scale, x, rng):
    """Plan i in a world redrawn from the real position, then greedy for both seats until
    `horizon` turns after this one have ended; the seat's reward."""
    p = x.p
    w = p.world
    _load(w, pos)
    _redraw(t, w, p.sv[S_VIEW], rng, p.pool, p.unseen)
    stop = pos.st[K.TURNS] + 1 + horizon
    for j in range(p.plen[i]):
        if w.st[K.OVER] == 1:
            break
        K.apply(t, w, p.moves[i, j], rng)
    while w.st[K.OVER] == 0 and w.st[K.TURNS] < stop:
        m = B.bot_move(t, w, w.st[K.SEAT], B.BOT_GREEDY, p.dpar, x.g, rng)
        K.apply(t, w, m, rng)
    return _score(t, w, seat, x, scale)


@hot
def budget(playouts, plans, horizon):
    """(candidates, horizon) for a planning point: `plans` and `horizon` as given, or by the
    budget where they are 0 and -1: playouts / 8 candidates (at least 2, at most MAX_PLANS), a
    horizon of 4 turns at 64 playouts and 2 more for each doubling (at least 2). More playouts
    per candidate over the same horizon only sharpen the same noisy estimate; the budget pays
    when it also buys candidates and depth (4x: 32 plans, 8 turns)."""
    n = int(plans)
    if n <= 0:
        n = max(2, int(playouts) // 8)
    n = min(max(n, 1), MAX_PLANS)
    h = int(horizon)
    if h < 0:
        h = max(2, int(np.floor(4.0 + 2.0 * np.log2(playouts / 64.0) + 0.5)))
    return n, h


@hot
def _same(p, i, j):
    if p.plen[i] != p.plen[j]:
        return False
    for k in range(p.plen[i]):
        if p.moves[i, k] != p.moves[j, k]:
            return False
    return True


@hot
def _plan(t, pos, seat, par, x, rng):
    """Make the candidates, choose one by sequential halving; returns its index."""
    p = x.p
    r = p.rngs
    r[2] = next_u64(rng)  # the planner's own generator: one draw of the game's per planning point
    want, horizon = budget(par[P_PLAYOUTS], par[P_PLANS], par[P_HORIZON])
    spread, explore = par[P_SPREAD], par[P_EXPLORE]
    n = 0
    for a in range(2 * want):  # duplicates are dropped: a few more tries
        if n == want:
            break
        r[0] = next_u64(r[2:])
        for j in range(3):
            p.wpar[j] = p.dpar[j] if a == 0 else p.dpar[j] * np.exp(spread * (2.0 * uniform(r[2:]) - 1.0))
        e = explore if a > 0 and a % 2 == 0 else 0.0
        p.plen[n] = _make(t, pos, seat, n, e, x, r[0:1])
        dup = False
        for j in range(n):
            if _same(p, j, n):
                dup = True
                break
        if not dup:
            n += 1
    if n == 1:
        return 0
    for i in range(n):
        p.cand[i] = i
        p.csum[i] = 0.0
        p.cn[i] = 0.0
    rounds = 0
    while (1 << rounds) < n:
        rounds += 1
    per_round = int(par[P_PLAYOUTS]) // rounds
    scale = par[P_SCALE]
    while n > 1:
        worlds = max(1, per_round // n)
        for _ in range(worlds):
            seed = next_u64(r[2:])
            for j in range(n):
                r[1] = seed
                p.csum[j] += _playout(t, pos, seat, p.cand[j], horizon, scale, x, r[1:2])
                p.cn[j] += 1.0
        keep = (n + 1) // 2
        for a in range(keep):  # stable selection: equal means keep their order (greedy's first)
            best, best_v = a, p.csum[a] / p.cn[a]
            for b in range(a + 1, n):
                v = p.csum[b] / p.cn[b]
                if v > best_v:
                    best, best_v = b, v
            if best != a:
                p.csum[a], p.csum[best] = p.csum[best], p.csum[a]
                p.cn[a], p.cn[best] = p.cn[best], p.cn[a]
                p.cand[a], p.cand[best] = p.cand[best], p.cand[a]
        n = keep
    return p.cand[0]


@hot
def costly_move(t, pos, seat, code, par, x, rng):
    """The planner's decision (the engine's costly bot: compiled only for a line-up that seats
    it): the cached plan's next decision where the seat sees what the plan was made for, else a
    new plan's first; greedy's move if that is not legal."""
    x = Work(x.g, _parts(t, x.p))
    p = x.p
    sv = p.sv
    sv[S_VIEW] = seat if par[P_SEES] == SEES_OWN else -1
    key = _key(pos, seat, sv[S_VIEW])
    i, c = sv[S_PLAN], sv[S_CUR]
    if not (sv[S_VALID] == 1 and c < p.plen[i] and p.keys[i, c] == key):
        i = _plan(t, pos, seat, par, x, rng)
        c = 0
        sv[S_PLAN] = i
        sv[S_VALID] = 1
    m = p.moves[i, c]
    sv[S_CUR] = c + 1
    k = K.legal_moves(t, pos, p.buf)
    for j in range(k):
        if p.buf[j] == m:
            return m
    sv[S_VALID] = 0
    return B.bot_move(t, pos, seat, B.BOT_GREEDY, p.dpar, x.g, rng)
