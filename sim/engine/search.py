"""Information-set Monte Carlo tree search, written once over the engine interface.

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012, "Information Set Monte Carlo Tree
Search"): the tree holds the searching seat's information set; every iteration

1. copies the real position (into the one position of the move where the game copies in place,
   `copy_into`) and redraws what the seat cannot see (`sample_hidden`), so the search plans over
   many consistent worlds and never reads the opponent's hand or the bag's order;
2. selects by UCT among the children whose moves are legal in this world, counting each such
   child's availability (the subset-armed bandit of the paper: a child is scored against the
   number of times it could have been chosen, not its parent's visits), plus a progressive bias
   (Chaslot et al. 2008; PUCT's shape) towards the moves a one-ply look favours:
   `prior * p(move) * sqrt(availability) / (visits + 1)`, where p is a softmax over every legal
   move of the game's `evaluate` for the mover after the move (temperature `policy_temp`, by
   default `eval_scale`), computed once per node within `prior_depth` levels of the root, in the
   world of the iteration that first selects from it (after the redraw);
3. expands one untried legal move: the one of highest p where the node has looked, otherwise one
   drawn uniformly; a move that wins at once (`win_check`) is taken wherever a node has looked
   (the root always looks when win_check is on, and plays such a move without searching);
4. rolls out by the game's own random bot (the policy its random-vs-random games play; uniform
   over `legal_moves` for a game without one) or its greedy bot, to the end or `rollout_depth`
   decisions, where the game's own evaluation scores the position;
5. backs up one value per seat. Two seats: zero-sum, a cut-off scores seat i
   `logistic((evaluate(i) - evaluate(other)) / (2 eval_scale))` and the other 1 minus that, so the
   opponent's nodes minimise the searching seat's value. Three or more (`backup`): max-n, each
   seat's own `logistic(evaluate(i) / eval_scale)`, or paranoid, every other seat 1 minus the
   searching seat's reward (its evaluation against the others' mean, as for two seats), or
   best-reply search (`brs`, `_brs_step`): paranoid rewards, and the other seats' turns between
   two of the searching seat's are one node whose children are every opponent's moves, the
   others playing greedy's move. A finished rollout asks the game only for its `winner`.

The root can instead halve its moves on shared sampled worlds (`root = "halving"`,
`_halving_move`), with a tree below each move (`root = "hybrid"`); `widening` limits a looking
node's children to what its visits allow.

With `sees = "all"` the search redraws only what nobody has seen yet (`sample_hidden` with seat
-1: the order of bags and draw piles), so it plans with every hand in view: the `oracle` bot, a
ceiling of skill that cheats, never a seat whose verdict counts.

Chance (bag draws, dice, card draws) happens inside `apply` from the game's generator, so every
iteration samples it afresh: children are keyed by move only (open loop). The budget is counted
in iterations, never in time, so a game stays a pure function of its seed.

The tree lives in preallocated arrays (`Tree`, sim/engine/tree.py), children found by a hash of
(node, move); one node per iteration.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

# the generic rule functions as globals, not module attributes: numba types a global once per
# compilation, while an attribute read in a loop is typed afresh, and once another game has
# registered its overloads in this process the two readings no longer unify
from sim.engine.interface import (
    BOT_UNIFORM,
    apply,
    bot_move,
    copy_into,
    copy_position,
    evaluate,
    has_rollout,
    legal_moves,
    run_rollout,
    sample_hidden,
    to_move,
    uniform_move,
    winner,
)
from sim.engine.jit import entry, kernel
from sim.engine.rng import below, next_u64

# the tree (sim/engine/tree.py); Tree, new_tree and LOOK_MOVES are re-exported as the search's
from sim.engine.tree import LOOK_MOVES as LOOK_MOVES
from sim.engine.tree import LOOK_NODES, _add, _backup, _child, _new_root, _slot, _taken, _uct
from sim.engine.tree import Tree as Tree
from sim.engine.tree import new_tree as new_tree
from sim.games.base import Bot, Param, oracle_of

BOT_MCTS = -2
# the bot's parameter row (engine.bot_arrays writes it): the declared parameters, then the
# random bot's code and where its parameters start, then the greedy bot's code and its default
# parameters, then the random bot's default parameters (from the index at P_RAND_PAR)
P_ITER, P_C, P_ROLLOUT, P_DEPTH, P_SCALE, P_PRIOR, P_PRIOR_DEPTH, P_ROOT, P_TEMP, P_GREEDY, P_WIN, \
    P_BACKUP, P_SEES, P_WIDEN, P_TREE_AFTER, P_RAND_CODE, P_RAND_PAR, P_ROLL_CODE, P_ROLL_PAR = range(19)
# the `rollout` choices: the game's random bot, its greedy bot
ROLLOUT_RANDOM, ROLLOUT_GREEDY = 0, 1
ROOT_UCT, ROOT_HALVING, ROOT_HYBRID = 0, 1, 2
# the slots of the drivers' search argument (`kit`)
KIT_TREE, KIT_UCT, KIT_HALVING, KIT_HYBRID, KIT_BRS, KIT_JUDGES = range(6)
BACKUP_MAXN, BACKUP_PARANOID, BACKUP_BRS = 0, 1, 2
SEES_OWN, SEES_ALL = 0, 1
@entry
def tree_nodes(bot_code, bot_par):
    """Nodes the largest search of these seats needs (one per iteration, plus the root)."""
    n = 1
    for s in range(bot_code.shape[0]):
        if bot_code[s] == BOT_MCTS:
            n = max(n, int(bot_par[s, P_ITER]) + 1)
    return n


@entry
def tree_looks(bot_code, bot_par):
    """Nodes that may look one ply ahead at once in these seats' searches: the root alone where
    `prior_depth` <= 1 (its look for a win, or its policy), else LOOK_NODES."""
    n = 1
    for s in range(bot_code.shape[0]):
        if bot_code[s] == BOT_MCTS and bot_par[s, P_PRIOR_DEPTH] > 1:
            n = LOOK_NODES
    return n


@kernel(inline="always")
def _hidden_seat(seat, par):
    """The seat whose view sample_hidden redraws: the searching seat, or -1 (what nobody has seen
    yet) for a search that sees every hand (`sees = "all"`)."""
    return seat if par[P_SEES] == SEES_OWN else -1


@kernel(inline="always")
def _world_copy(tables, pos, root, used):
    """The position an iteration plays in: pos itself, a fresh copy of root, while unused; then
    root copied into it in place where the game can (`copy_into`), else another copy_position
    (the game's copies in the order they were always made: one per iteration)."""
    if used and not copy_into(tables, pos, root):
        return copy_position(tables, root)
    return pos


@kernel(inline="always")
def _look(tables, tree, pos, mover, k, par, scratch, rng):
    """The one-ply look at pos for `mover` over the k moves in tree.legal: each played on a copy
    and scored by the game's evaluation for the mover; tree.pbuf[:k] gets their softmax
    (temperature `policy_temp`, or `eval_scale` where that is 0), mixed with greedy's move at pos
    by `policy_greedy` (p = (1 - w) softmax + w on greedy's move; greedy is asked only where
    w > 0, and no move is played where w = 1 and `win_check` is off). Returns a move that wins
    at once (the game ends with the mover the winner), -1 if none."""
    temp = par[P_TEMP] if par[P_TEMP] > 0.0 else par[P_SCALE]
    w = par[P_GREEDY]
    win = -1
    top = 0.0
    if w >= 1.0 and par[P_WIN] == 0:  # p is greedy's move alone and no win is asked for: no look
        for i in range(k):
            tree.pbuf[i] = 0.0
        k_look = 0
    else:
        k_look = k
        top = -np.inf
    if k_look > 0:
        look = copy_position(tables, pos)
        for i in range(k_look):
            if i > 0:
                look = _world_copy(tables, look, pos, True)
            apply(tables, look, tree.legal[i], rng)
            if win < 0 and to_move(tables, look) < 0 and winner(tables, look, tree.res) == mover:
                win = tree.legal[i]
            e = evaluate(tables, look, mover)
            tree.pbuf[i] = e
            top = max(top, e)
    tot = 0.0
    for i in range(k):
        tree.pbuf[i] = np.exp((tree.pbuf[i] - top) / temp)
        tot += tree.pbuf[i]
    g = -1
    if w > 0.0:
        g = bot_move(tables, pos, mover, int(par[P_ROLL_CODE]), par[P_ROLL_PAR:], scratch, rng)
    for i in range(k):
        tree.pbuf[i] = (1.0 - w) * tree.pbuf[i] / tot + (w if tree.legal[i] == g else 0.0)
    return win


@kernel(inline="always")
def _node_look(tables, tree, node, pos, mover, k, par, scratch, rng):
    """Look one ply ahead at `node` once (nodes within `prior_depth` levels, and the root where
    `win_check` is on, while the hash table has room): a winning move goes to tree.win and, at a
    node within `prior_depth` (looked = 1; the root's look for a win alone: 2), each legal move's
    p to its hash entry (and to its child, if expanded)."""
    if tree.looked[node] != 0:
        return
    if not (tree.depth[node] < par[P_PRIOR_DEPTH] or node == 0 and par[P_WIN] > 0):
        return
    if 2 * (tree.hused[0] + k + 1) > tree.hnode.shape[0]:
        return
    tree.win[node] = _look(tables, tree, pos, mover, k, par, scratch, rng)
    if tree.depth[node] >= par[P_PRIOR_DEPTH]:  # the root's look for a win alone: no policy
        tree.looked[node] = 2
        return
    tree.looked[node] = 1
    hnode, hmove = tree.hnode, tree.hmove
    for i in range(k):
        m = tree.legal[i]
        j = _slot(hnode, hmove, node, m)
        if tree.hnode[j] < 0:
            tree.hnode[j] = node
            tree.hmove[j] = m
            tree.hchild[j] = -1
            _taken(tree.hlist, tree.hused, j)
        tree.hpol[j] = tree.pbuf[i]
        if tree.hchild[j] >= 0:
            tree.policy[tree.hchild[j]] = tree.pbuf[i]


@kernel(inline="always")
def _select(tables, tree, node, pos, par, scratch, rng):
    """One step down: a move that wins at once where the node knows one (`win_check`), expanded
    if untried; else expand an untried legal move if there is one (returns (child, True)): the
    one of highest p where the node has looked, else one drawn uniformly, unless the node has
    looked and has as many children as `widening` allows its visits; else the best expanded legal
    child by UCT plus the progressive bias prior * p * sqrt(availability) / (visits + 1)
    (child, False). Availability is counted for every expanded legal child."""
    mover = to_move(tables, pos)
    k = legal_moves(tables, pos, tree.legal)
    if k == 0:
        return -1, True
    if tree.looked[node] == 0:  # (tested here: a call that hands on the tree costs, see tree._slot)
        _node_look(tables, tree, node, pos, mover, k, par, scratch, rng)
    w = tree.win[node] if par[P_WIN] > 0 else -1
    c = par[P_C]
    bias = par[P_PRIOR]
    n_untried = 0
    wi = -1
    hnode, hmove, hchild = tree.hnode, tree.hmove, tree.hchild
    for i in range(k):
        ch = _child(hnode, hmove, hchild, node, tree.legal[i])
        tree.kids[i] = ch
        if tree.legal[i] == w:
            wi = i
        if ch < 0:
            tree.untried[n_untried] = tree.legal[i]
            n_untried += 1
    if wi >= 0:  # the win, whatever the statistics say
        ch = tree.kids[wi]
        if ch < 0:
            return _add(tree, np.int64(node), np.int64(w), np.int64(mover)), True
        tree.avail[ch] += 1.0
        return ch, False
    widen = par[P_WIDEN]
    if n_untried > 0 and widen > 0.0 and tree.looked[node] == 1 and n_untried < k \
            and k - n_untried >= 1.0 + widen * np.sqrt(tree.visits[node]):
        n_untried = 0  # progressive widening: enough children for the node's visits
    if n_untried > 0:
        if tree.looked[node] == 1:
            m, best_p = tree.untried[0], -1.0
            for i in range(n_untried):
                p = tree.hpol[_slot(hnode, hmove, node, tree.untried[i])]
                if p > best_p:
                    m, best_p = tree.untried[i], p
        else:
            m = tree.untried[below(rng, n_untried)]
        return _add(tree, np.int64(node), np.int64(m), np.int64(mover)), True  # typed: one compile of _add
    return _uct(tree.kids, k, tree.visits, tree.avail, tree.value, tree.seat, mover, tree.policy, tree.logn, c,
                bias), False


@kernel(inline="always")
def _brs_step(tables, tree, node, pos, seat, par, scratch, rng):
    """Best-reply search (BRS+: Esser, Gras, Winands, Schadd and Lanctot 2013) for the other seats'
    turns from pos up to the searching seat's next turn: one node, whose children are every
    (opponent, move) of the round, the opponents before that one playing greedy's move and those
    after it too; chosen by UCT (an untried one drawn uniformly first), and the round is played
    on pos. Greedy's moves take a generator of their own (tree.world, seeded from rng), and the
    draws of the listing pass are replayed from the same state, so the opponents' moves before
    the chosen one leave pos as they left the listing. Returns (child, expanded)."""
    m_max = tables.max_moves
    n_seats = tables.n_seats
    gcode = int(par[P_ROLL_CODE])
    gpar = par[P_ROLL_PAR:]
    tree.world[0] = next_u64(rng)
    s1 = rng[0]
    look = copy_position(tables, pos)
    n, r = 0, 0
    while r < n_seats:
        mover = to_move(tables, look)
        if mover < 0 or mover == seat:
            break
        k = legal_moves(tables, look, tree.untried)
        if n + k > m_max:
            break
        for i in range(k):
            tree.legal[n + i] = r * m_max + tree.untried[i]
        n += k
        tree.cand[n_seats + r] = mover
        g = bot_move(tables, look, mover, gcode, gpar, scratch, tree.world)
        tree.cand[r] = g
        apply(tables, look, g, rng)
        r += 1
    rng[0] = s1
    if n == 0:
        return -1, True
    hnode, hmove, hchild = tree.hnode, tree.hmove, tree.hchild
    n_untried = 0
    for i in range(n):
        ch = _child(hnode, hmove, hchild, node, tree.legal[i])
        tree.kids[i] = ch
        if ch < 0:
            tree.untried[n_untried] = tree.legal[i]
            n_untried += 1
    expanded = n_untried > 0
    if expanded:
        e = tree.untried[below(rng, n_untried)]
        ch = _add(tree, np.int64(node), np.int64(e), np.int64(tree.cand[n_seats + e // m_max]))
    else:
        ch = _uct(tree.kids, n, tree.visits, tree.avail, tree.value, tree.seat, -1, tree.policy, tree.logn,
                  par[P_C], 0.0)
        e = tree.move[ch]
    chosen = e // m_max
    for q in range(chosen):
        apply(tables, pos, tree.cand[q], rng)
    apply(tables, pos, e % m_max, rng)
    while True:
        mover = to_move(tables, pos)
        if mover < 0 or mover == seat:
            break
        apply(tables, pos, bot_move(tables, pos, mover, gcode, gpar, scratch, tree.world), rng)
    return ch, expanded


@kernel(inline="always")
def _score(tables, pos, finished, scale, seat, paranoid, res, reward):
    """The reward of every seat, into `reward` (`res`: the winner's work row; the tree's two
    arrays, not the tree: an inlined helper binds its arguments anew, which counts a reference to
    every array in them at every iteration). Two seats, or `paranoid`: the searching seat's reward r (1 / 0
    for a win / loss, 1 / seats for a draw; at a cut-off the logistic of its evaluation less the
    others' mean, over 2 eval_scale) and 1 - r for every other seat. Otherwise (max-n): 1 / 0
    for a win / loss, shared equally on a draw; a logistic of each seat's own evaluation over
    eval_scale at a cut-off."""
    s = tables.n_seats
    if s == 2 or paranoid:
        if finished:
            w = winner(tables, pos, res)
            r = (1.0 if w == seat else 0.0) if w >= 0 else 1.0 / s
        else:
            others = 0.0
            for i in range(s):
                if i != seat:
                    others += evaluate(tables, pos, i)
            d = evaluate(tables, pos, seat) - others / (s - 1)
            r = 1.0 / (1.0 + np.exp(-d / (2.0 * scale)))
        for i in range(s):
            reward[i] = r if i == seat else 1.0 - r
    elif finished:
        w = winner(tables, pos, res)
        for i in range(s):
            reward[i] = (1.0 if i == w else 0.0) if w >= 0 else 1.0 / s
    else:
        for i in range(s):
            reward[i] = 1.0 / (1.0 + np.exp(-evaluate(tables, pos, i) / scale))


@kernel(inline="always")
def _rollout(tables, pos, par, scratch, buf, rng):
    """Play on from pos by the rollout bot (`rollout`: the game's random or greedy bot, with its
    default parameters; the engine's uniform_move for a game without a random bot, which lists
    moves into `buf`, the tree's untried row); returns True when the game ended (else the depth
    or the cap stopped it)."""
    depth = int(par[P_DEPTH])
    cap = tables.turn_cap if tables.turn_cap > 0 else 1 << 30
    if depth > 0:
        cap = min(cap, depth)
    if par[P_ROLLOUT] == ROLLOUT_GREEDY:
        code = int(par[P_ROLL_CODE])
        bpar = par[P_ROLL_PAR:]
    else:
        code = int(par[P_RAND_CODE])
        bpar = par[int(par[P_RAND_PAR]):]
    if code != BOT_UNIFORM and has_rollout(tables):
        return run_rollout(tables, pos, code, bpar, scratch, rng, cap)  # the game's loop (interface)
    d = 0  # interface.step_rollout, written out with the uniform bot (see has_rollout)
    while True:
        mover = to_move(tables, pos)
        if mover < 0:
            return True
        if d >= cap:
            return False
        if code == BOT_UNIFORM:
            m = uniform_move(tables, pos, rng, buf)
        else:
            m = bot_move(tables, pos, mover, code, bpar, scratch, rng)
        apply(tables, pos, m, rng)
        d += 1


@kernel(inline="always")
def _descend(tables, tree, node, expanded, pos, seat, par, scratch, brs, rng):
    """Down the tree from `node` (its position is pos), applying each step's move to pos, until a
    node is expanded, the game ends or the tree is full; the other seats' rounds as one best-reply
    step where `backup` is brs (three or more seats; compiled only where `brs` is not None, see
    `kit`). Returns the last node."""
    while not expanded and node >= 0 and tree.size[0] < tree.move.shape[0] and to_move(tables, pos) >= 0:
        if brs is not None:
            if par[P_BACKUP] == BACKUP_BRS and tables.n_seats > 2 and to_move(tables, pos) != seat:
                nxt, expanded = _brs_step(tables, tree, node, pos, seat, par, scratch, rng)  # one node
                if nxt < 0:
                    break
                node = nxt
                continue
        nxt, expanded = _select(tables, tree, node, pos, par, scratch, rng)
        if nxt < 0:  # a game that lists no move for a seat to move: nothing to search
            break
        node = nxt
        apply(tables, pos, tree.move[node], rng)
    return node


# An entry, not a kernel, although only the drivers call it: numba compiles a rule function's
# body (the game's apply, bot_move, legal_moves, result, ...) once per set of its callers' compile
# flags, and the drivers are entries. As a kernel, every rule function the search calls compiled
# a second time (HEXATILE's `warm`: apply, bot_move, legal_moves, result, evaluate, to_move).
@entry
def _search(tables, root, seat, par, scratch, tree, brs, rng):
    """`par[P_ITER]` iterations from the real position `root` (never changed) for `seat`; stops
    after the first where the root's look found a move that wins at once (`win_check`). `brs`:
    see `kit`."""
    scale = par[P_SCALE]
    paranoid = par[P_BACKUP] != BACKUP_MAXN
    hseat = _hidden_seat(seat, par)
    _new_root(tree)
    pos = copy_position(tables, root)
    untried, res, reward = tree.untried, tree.res, tree.reward  # read once (see _score)
    for it in range(int(par[P_ITER])):
        pos = _world_copy(tables, pos, root, it > 0)
        sample_hidden(tables, pos, hseat, rng)
        node = _descend(tables, tree, 0, False, pos, seat, par, scratch, brs, rng)
        finished = _rollout(tables, pos, par, scratch, untried, rng)
        _score(tables, pos, finished, scale, seat, paranoid, res, reward)
        _backup(tree.visits, tree.value, tree.parent, reward, node)
        if par[P_WIN] > 0 and tree.win[0] >= 0:
            return


@kernel(inline="always")
def _biased_mean(csum, cn, cp, i, bias):
    """A root candidate's mean reward plus its progressive bias, prior * p / (playouts + 1)."""
    return csum[i] / cn[i] + bias * cp[i] / (cn[i] + 1.0)


@kernel(inline="always")
def _keep_best(tree, n, keep, bias):
    """Order the first n candidates by biased mean (a stable selection sort: equal means keep
    their order, the higher p first) so that the best `keep` lead. (The arrays are read once:
    see tree._slot.)"""
    cand, csum, cn, cp = tree.cand, tree.csum, tree.cn, tree.cp
    for a in range(keep):
        best, best_v = a, _biased_mean(csum, cn, cp, a, bias)
        for b in range(a + 1, n):
            v = _biased_mean(csum, cn, cp, b, bias)
            if v > best_v:
                best, best_v = b, v
        if best != a:
            cand[a], cand[best] = cand[best], cand[a]
            csum[a], csum[best] = csum[best], csum[a]
            cn[a], cn[best] = cn[best], cn[a]
            cp[a], cp[best] = cp[best], cp[a]


# an entry for the reason _search is
@entry
def _halving_move(tables, root, seat, par, scratch, tree, hybrid, brs, rng):
    """The root as sequential halving over every legal move (Karnin, Koren and Somekh 2013;
    Cazenave's SHOT 2014) with common random numbers: each round draws fresh worlds, and every
    surviving move is played in each of them from the same seed (the same redraw of what the seat
    cannot see, the same dice and draws as far as the moves leave the generator in step), so two
    moves are compared on the same luck rather than on independent samples; after a round the
    better half by mean reward for `seat` survives. The budget, `par[P_ITER]` playouts, is split
    evenly between the ceil(log2 k) rounds. Where `prior_depth` >= 1 or `win_check` is on, the
    root first looks one ply ahead in a redrawn world (never the real one): a move that wins at
    once is played (`win_check`), the candidates are ordered by their p (the higher first wins a
    tie of means) and each gets the bias prior * p / (playouts + 1).

    With root = "hybrid" (H-MCTS: Pepels, Cazenave, Winands and Lanctot 2014) a playout goes on from the
    candidate down a UCT tree of its own (`_select`, as in `_search`; one node expanded per
    playout while the tree has room), so the replies are searched rather than left to the
    rollout bot, and the trees of the surviving candidates keep growing over the rounds. That
    descent compiles only where `hybrid` is not None, best-reply steps in it where `brs` is not
    None (`kit`)."""
    k = legal_moves(tables, root, tree.legal)
    if k <= 1:
        return tree.legal[0] if k == 1 else -1
    hseat = _hidden_seat(seat, par)
    below = par[P_ROOT] == ROOT_HYBRID
    if hybrid is not None:
        if below:
            _new_root(tree)
    pos = copy_position(tables, root)
    sample_hidden(tables, pos, hseat, rng)
    untried, res, reward = tree.untried, tree.res, tree.reward  # read once (see _score)
    for i in range(k):
        tree.cand[i] = tree.legal[i]
        tree.cp[i] = 0.0
    if par[P_PRIOR_DEPTH] >= 1 or par[P_WIN] > 0:
        win = _look(tables, tree, pos, seat, k, par, scratch, rng)
        if win >= 0 and par[P_WIN] > 0:
            return win
        if par[P_PRIOR_DEPTH] >= 1:
            for i in range(k):
                tree.cp[i] = tree.pbuf[i]
            for a in range(k):  # the higher p first (stable)
                best = a
                for b in range(a + 1, k):
                    if tree.cp[b] > tree.cp[best]:
                        best = b
                if best != a:
                    m, p = tree.cand[best], tree.cp[best]
                    for b in range(best, a, -1):
                        tree.cand[b], tree.cp[b] = tree.cand[b - 1], tree.cp[b - 1]
                    tree.cand[a], tree.cp[a] = m, p
    n = k
    tree.csum[:n] = 0.0
    tree.cn[:n] = 0.0
    rounds = 0
    while (1 << rounds) < n:
        rounds += 1
    per_round = int(par[P_ITER]) // rounds
    scale, bias = par[P_SCALE], par[P_PRIOR]
    paranoid = par[P_BACKUP] != BACKUP_MAXN
    used = True
    while n > 1:
        worlds = max(1, per_round // n)
        for _ in range(worlds):
            seed = next_u64(rng)
            for i in range(n):
                tree.world[0] = seed
                pos = _world_copy(tables, pos, root, used)
                sample_hidden(tables, pos, hseat, tree.world)
                apply(tables, pos, tree.cand[i], tree.world)
                node = -1
                if hybrid is not None:
                    if below and tree.cn[i] >= par[P_TREE_AFTER]:  # down its tree by UCT (one node expanded)
                        node = _child(tree.hnode, tree.hmove, tree.hchild, 0, tree.cand[i])
                        expanded = node < 0
                        if node < 0 and tree.size[0] < tree.move.shape[0]:
                            node = _add(tree, np.int64(0), np.int64(tree.cand[i]), np.int64(seat))
                        node = _descend(tables, tree, node, expanded, pos, seat, par, scratch, brs, tree.world)
                finished = _rollout(tables, pos, par, scratch, untried, tree.world)
                _score(tables, pos, finished, scale, seat, paranoid, res, reward)
                _backup(tree.visits, tree.value, tree.parent, reward, node)
                tree.csum[i] += reward[seat]
                tree.cn[i] += 1.0
        keep = (n + 1) // 2
        _keep_best(tree, n, keep, bias)
        n = keep
    return tree.cand[0]


@kernel(inline="always")
def mcts_move(tables, root, seat, par, scratch, kit, rng):
    """The move of `seat` at the real position `root` (never changed) by the search bot of
    parameter row `par`; `kit` is the drivers' search argument (`kit`)."""
    return _mcts_move(tables, root, seat, par, scratch, kit[KIT_TREE], kit[KIT_UCT], kit[KIT_HALVING],
                      kit[KIT_HYBRID], kit[KIT_BRS], rng)


# an entry for the reason _search is, and so that its parts compile only where `kit` asks for them
@entry
def _mcts_move(tables, root, seat, par, scratch, tree, uct, halving, hybrid, brs, rng):
    """The move after `par[P_ITER]` iterations: a move that wins at once where the root's look
    found one (`win_check`), else the most visited child among the moves legal at the root;
    among equally visited ones (a budget below the number of moves visits most of them once),
    the one of higher p in the root's look, then the one with the better mean reward for `seat`.
    A root the kit leaves out (None) answers -1, which the drivers refuse."""
    if par[P_ROOT] != ROOT_UCT:
        if halving is None:
            return -1
        return _halving_move(tables, root, seat, par, scratch, tree, hybrid, brs, rng)
    if uct is None:
        return -1
    _search(tables, root, seat, par, scratch, tree, brs, rng)
    if par[P_WIN] > 0 and tree.win[0] >= 0:
        return tree.win[0]
    k = legal_moves(tables, root, tree.legal)
    best, best_n, best_p, best_v = -1, -1.0, -1.0, -np.inf
    for i in range(k):
        m = tree.legal[i]
        ch = _child(tree.hnode, tree.hmove, tree.hchild, 0, m)
        n = tree.visits[ch] if ch >= 0 else 0.0
        v = tree.value[ch, seat] / n if n > 0 else -np.inf
        p = tree.policy[ch] if ch >= 0 else 0.0
        # equal visits: the higher p, then the better mean reward
        if n > best_n or n == best_n and (p > best_p or p == best_p and v > best_v):
            best, best_n, best_p, best_v = m, n, p, v
    return best


@kernel(inline="always")
def mcts_prefers(tables, root, seat, other, par, scratch, kit, rng):
    """Whether `seat`, searching from `root` as it would for a move, expects `other` to do
    better than itself (the mean rewards of the two seats at the root): the search bot's own
    judgement of a position, as the pie rule asks for (`kit`: the drivers' search argument)."""
    return _prefers(tables, root, seat, other, par, scratch, kit[KIT_TREE], kit[KIT_JUDGES], kit[KIT_BRS], rng)


@entry
def _prefers(tables, root, seat, other, par, scratch, tree, judges, brs, rng):
    if judges is None:  # no search seat answers the pie rule (`kit`): never asked
        return False
    _search(tables, root, seat, par, scratch, tree, brs, rng)
    return tree.value[0, other] > tree.value[0, seat]


def kit(tree, bot_code=(), bot_par=None, n_seats: int = 2, judges: bool = False) -> tuple:
    """The search argument of the drivers: (tree, uct, halving, hybrid, brs, judges), each part
    of the search None where no seat of the line-up needs it, else 1. numba prunes a branch that
    a None argument cannot take before it types the function, so a line-up compiles only the
    parts it plays: `uct` the tree search at the root (root = "uct"), `halving` the halving root
    (root = "halving" or "hybrid"), `hybrid` the tree below the halving root's moves, `brs`
    best-reply steps (backup = "brs" with three or more seats), `judges` the search's answer to
    the pie rule (`judges`: a search seat is asked it; a tree search whatever its root). Four
    flags' first search run from an empty numba cache compiles about 40% less than with every
    part. Without `bot_code`: every part (a search called on its own)."""
    codes = np.asarray(bot_code)
    if codes.size == 0:
        return (tree, 1, 1, 1, 1, 1)
    rows = np.asarray(bot_par)[codes == BOT_MCTS]
    if rows.shape[0] == 0:  # the search family forced on a line-up without a search seat
        return (tree, None, None, None, None, None)
    roots, backups = set(rows[:, P_ROOT].astype(int).tolist()), set(rows[:, P_BACKUP].astype(int).tolist())
    return (tree, _part(ROOT_UCT in roots), _part(bool(roots - {ROOT_UCT})), _part(ROOT_HYBRID in roots),
            _part(BACKUP_BRS in backups and n_seats > 2), _part(judges))


def _part(needed: bool) -> int | None:
    """A part of the kit: 1 where a seat plays it, else None (numba prunes it)."""
    return 1 if needed else None


@dataclass(frozen=True)
class SearchBot(Bot):
    """A bot the engine plays itself (`code` < 0); `rollout_bot` is the game's greedy bot,
    `random_bot` its random bot (None: the engine's uniform bot)."""

    rollout_bot: Bot | None = None
    random_bot: Bot | None = None

    def _with_defaults(self, defaults: dict) -> SearchBot:
        import dataclasses

        unknown = set(defaults) - {p.name for p in self.params}
        if unknown:
            raise TypeError(f"mcts_bot: unknown parameters {sorted(unknown)}")
        params = tuple(dataclasses.replace(p, default=defaults.get(p.name, p.default)) for p in self.params)
        return dataclasses.replace(self, params=params)

    def par_row(self, params: dict) -> list[float]:
        """The declared parameters, then the random bot's code and the index of its parameters,
        the greedy bot's code and default parameters, the random bot's default parameters (the
        P_* layout above)."""
        row = [float(params[p.name]) if p.kind != "str" else float(p.choices.index(params[p.name]))
               for p in self.params]
        greedy = self.rollout_bot
        greedy_par = [float(p.default) for p in greedy.params] if greedy is not None else []
        rand = self.random_bot
        rand_par = [float(p.default) for p in rand.params] if rand is not None else []
        return [*row, float(rand.code if rand is not None else BOT_UNIFORM), float(P_ROLL_PAR + len(greedy_par)),
                float(greedy.code if greedy is not None else 0), *greedy_par, *rand_par]


def mcts_bot(greedy: Bot | None, iterations: int = 200, random: Bot | None = None, **defaults) -> SearchBot:
    """The search bot for a game whose greedy bot is `greedy` (the greedy rollouts) and whose random
    bot is `random` (the random rollouts: the policy of the game's random-vs-random games; None, or a
    bot of code BOT_UNIFORM, plays the engine's uniform_move); the one-ply look of the prior and
    the cut-off score use the game's `evaluate`. `defaults` sets a game's own defaults of the other
    parameters (e.g. rollout="greedy")."""
    rollouts = ("random", "greedy") if greedy is not None else ("random",)
    if random is not None and random.code == BOT_UNIFORM:
        random = None
    bot = SearchBot(
        "mcts", BOT_MCTS,
        "Information-set Monte Carlo tree search over the engine functions: per iteration it redraws "
        "what its seat cannot see, selects by UCT, expands one move, rolls out and backs up one value "
        "per seat (zero-sum between two seats). Plays a move that wins at once, else the most visited "
        "move. With root=halving the root instead plays every move in the same sampled worlds and "
        "keeps the better half each round (no tree).",
        (Param("iterations", "int", iterations, "Search iterations per decision (the budget; never time).",
               low=1, high=1_000_000),
         Param("c", "float", 0.7, "UCT exploration constant (rewards lie in [0, 1]).", low=0.0, high=10.0),
         Param("rollout", "str", "random", "Rollout policy: the game's random bot (the one its random "
               "games play), or its greedy bot.", choices=rollouts),
         Param("rollout_depth", "int", 0, "Decisions per rollout before the game's evaluation scores the "
               "position; 0 = play to the end.", low=0, high=100_000),
         Param("eval_scale", "float", 1.0, "Evaluation units per logistic unit at a rollout cut-off (two "
               "seats: of the difference of the two evaluations, halved).", low=1e-9, high=1e9),
         Param("prior", "float", 0.0, "Weight of the progressive bias towards the moves the one-ply look "
               "favours: prior * p(move) * sqrt(availability) / (visits + 1) added to a child's UCT value "
               "(reward units; 0 = none).", low=0.0, high=100.0),
         Param("prior_depth", "int", 0, "Tree levels, from the root, whose nodes look one ply ahead: p = "
               "a softmax over every legal move of the evaluation for the mover after it, in the "
               "iteration's redrawn world; moves expand in order of p, the bias weighs p, and the root "
               "breaks ties of visits by p; 0 = never look.", low=0, high=1_000_000),
         Param("root", "str", "uct", "How the root chooses: 'uct', the tree search above; 'halving', "
               "sequential halving over the root's moves, every move played in the same sampled worlds "
               "(iterations = playouts; no tree below the root); 'hybrid', halving at the root with the "
               "tree search below each move, grown across the rounds.", choices=("uct", "halving", "hybrid")),
         Param("policy_temp", "float", 0.0, "Temperature of the look's softmax, in evaluation units; 0 = "
               "eval_scale.", low=0.0, high=1e9),
         Param("policy_greedy", "float", 0.0, "Share of p the look gives greedy's move (asked in the same "
               "redrawn world): p = (1 - share) softmax + share on greedy's move; 0 = the softmax alone.",
               low=0.0, high=1.0),
         Param("win_check", "int", 1, "1: the root looks for a move that wins at once and plays it "
               "without searching, and every looking node takes its win; 0: off.", low=0, high=1),
         Param("backup", "str", "maxn", "Three or more seats: 'maxn', every seat maximises its own "
               "reward; 'paranoid', every other seat gets 1 minus the searching seat's reward; 'brs', "
               "paranoid rewards and best-reply search in the tree: the other seats' turns between two "
               "of the searching seat's are one node whose children are each opponent's moves, the "
               "others playing greedy's move (two seats are always zero-sum).",
               choices=("maxn", "paranoid", "brs")),
         Param("sees", "str", "own", "'own': redraws everything its seat cannot see; 'all': redraws "
               "only what nobody has seen (draw orders), so it plans with every hand in view: "
               "cheating, for the oracle.", choices=("own", "all")),
         Param("widening", "float", 0.0, "Progressive widening at the nodes that look: such a node "
               "expands a new move (in order of p) only while it has fewer than 1 + widening * "
               "sqrt(visits) children, and otherwise selects among those by UCT; 0 = off (every legal "
               "move is tried once before any is tried again).", low=0.0, high=1000.0),
         Param("tree_after", "int", 0, "root=hybrid: a candidate's playouts go down its tree once it has "
               "had this many (before that, straight to the rollout).", low=0, high=1_000_000)),
        rollout_bot=greedy, random_bot=random)._with_defaults(defaults)
    return dataclasses.replace(bot, doc=f"{bot.doc} {prior_doc({p.name: p.default for p in bot.params})}")


def oracle_bot(mcts: SearchBot) -> SearchBot:
    """The game's search bot, with its defaults, seeing every hand (`sees = "all"`): the ceiling of
    skill a game's ladder shows apart (sim/stats/skill.py CEILING_BOTS), never a seat whose verdict counts."""
    return oracle_of(mcts, "the search bot with every hand in view (sees = all; only the order of bags "
                           "and draw piles is redrawn)")


def prior_doc(params: dict) -> str:
    """What the one-ply prior does under these search parameters (`hexsim rules`: the defaults)."""
    depth, prior = params["prior_depth"], params["prior"]
    temp = params.get("policy_temp", 0.0) or params["eval_scale"]
    if depth == 0:
        return ("By default no node looks ahead (prior_depth = 0): prior_depth = k makes the nodes of "
                "the first k levels score every move by a one-ply look (p, a softmax of the evaluation "
                "after it) and expand them in order of p; prior > 0 adds the bias "
                "prior * p * sqrt(availability) / (visits + 1).")
    share = params.get("policy_greedy", 0.0)
    if share >= 1.0:
        p_words = "p is 1 on greedy's move (policy_greedy = 1)"
    elif share > 0.0:
        p_words = (f"p is a softmax of the evaluation after each move (temperature {temp:g}) with "
                   f"{share:g} of it on greedy's move")
    else:
        p_words = f"p is a softmax of the evaluation after each move (temperature {temp:g})"
    widening = params.get("widening", 0.0)
    widen = (f", a node expanding a new move only while it has fewer than 1 + {widening:g} * sqrt(visits) "
             "children" if widening > 0 else "")
    if params["root"] == "halving":
        return (f"By default the halving root looks one ply ahead (prior_depth = {depth}) in a redrawn "
                f"world: p is a softmax of the evaluation after each move (temperature {temp:g}), each "
                f"move's mean gets prior * p / (playouts + 1), prior = {prior:g}, and the higher p wins "
                f"ties of means.")
    if params["root"] == "hybrid":
        below = (f"the nodes of the first {depth} levels look one ply ahead" if depth > 1
                 else "the root looks one ply ahead")
        return (f"By default the hybrid root halves its moves on shared sampled worlds, with a tree below "
                f"each move once it has had {params.get('tree_after', 0)} playouts, and {below} "
                f"(prior_depth = {depth}): {p_words}; each root move's mean gets prior * p / "
                f"(playouts + 1), prior = {prior:g}, and below the root moves expand in order of p{widen}.")
    where = "the root looks" if depth == 1 else f"the nodes of the first {depth} levels look"
    bias = (f"with a bias of prior * p * sqrt(availability) / (visits + 1), prior = {prior:g}" if prior > 0
            else "with no bias (prior = 0)")
    return (f"By default {where} one ply ahead (prior_depth = {depth}): {p_words}; moves expand in "
            f"order of p{widen}, the higher p wins ties of visits, {bias}.")
