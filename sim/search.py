"""Information-set Monte Carlo tree search, written once over the engine interface.

Single-observer ISMCTS (Cowling, Powley and Whitehouse 2012, "Information Set Monte Carlo Tree
Search"): the tree holds the searching seat's information set; every iteration

1. copies the real position (into the one position of the move where the game copies in place,
   `copy_into`) and redraws what the seat cannot see (`sample_hidden`), so the search plans over
   many consistent worlds and never reads the opponent's hand or the bag's order;
2. selects by UCT among the children whose moves are legal in this world, counting each such
   child's availability (the subset-armed bandit of the paper: a child is scored against the
   number of times it could have been chosen, not its parent's visits), plus a progressive bias
   (Chaslot et al. 2008) towards the game's greedy move at that node: `prior / (visits + 1)`;
3. expands one untried legal move: the greedy move first where the node knows it (nodes within
   `prior_depth` levels of the root ask the game's greedy bot once, in the world of the iteration
   that first expands them), otherwise one drawn uniformly;
4. rolls out by the game's own random bot (the policy its random-vs-random games play; uniform
   over `legal_moves` for a game without one) or its greedy bot, to the end or `rollout_depth`
   decisions, where the game's own evaluation scores the position (a logistic of
   `evaluate / eval_scale`);
5. backs up one value per seat (max-n: each seat's node statistics hold that seat's reward; a
   finished rollout asks the game only for its `winner`), so three- and four-player games search
   without pretending to be two-player zero-sum.

Chance (bag draws, dice, card draws) happens inside `apply` from the game's generator, so every
iteration samples it afresh: children are keyed by move only (open loop). The budget is counted
in iterations, never in time, so a game stays a pure function of its seed.

The tree lives in preallocated arrays (`Tree`), children as linked lists; one node per iteration.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from sim.games.base import Bot, Param

# the generic rule functions as globals, not module attributes: numba types a global once per
# compilation, while an attribute read in a loop is typed afresh, and once another game has
# registered its overloads in this process the two readings no longer unify
from sim.interface import (
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
from sim.jit import entry, kernel
from sim.rng import below, next_u64

BOT_MCTS = -2
# the bot's parameter row (engine.bot_arrays writes it): the declared parameters, then the
# random bot's code and where its parameters start, then the greedy bot's code and its default
# parameters, then the random bot's default parameters (from the index at P_RAND_PAR)
P_ITER, P_C, P_ROLLOUT, P_DEPTH, P_SCALE, P_PRIOR, P_PRIOR_DEPTH, P_ROOT, P_RAND_CODE, P_RAND_PAR, \
    P_ROLL_CODE, P_ROLL_PAR = range(12)
# the `rollout` choices: the game's random bot, its greedy bot
ROLLOUT_RANDOM, ROLLOUT_GREEDY = 0, 1
ROOT_UCT, ROOT_HALVING = 0, 1


class Tree(NamedTuple):
    move: np.ndarray  # int64[N]: the move leading to the node
    seat: np.ndarray  # int64[N]: the seat that chose it
    parent: np.ndarray  # int64[N]
    child: np.ndarray  # int64[N]: first child, -1 if none
    sibling: np.ndarray  # int64[N]: next sibling, -1 if none
    visits: np.ndarray  # float64[N]
    avail: np.ndarray  # float64[N]: times the node's move was legal when its parent was selected from
    value: np.ndarray  # float64[N, seats]: summed rewards, one per seat
    prior: np.ndarray  # int64[N]: the greedy move at the node, -1 unknown (not asked yet / too deep)
    depth: np.ndarray  # int64[N]: levels below the root
    size: np.ndarray  # int64[1]: nodes in use
    hnode: np.ndarray  # int64[H]: open-addressing table (node, move) -> child; -1 = empty slot
    hmove: np.ndarray  # int64[H]
    hchild: np.ndarray  # int64[H]
    legal: np.ndarray  # int64[max_moves]
    untried: np.ndarray  # int64[max_moves]
    kids: np.ndarray  # int64[max_moves]: the child of each legal move at the node being selected from
    reward: np.ndarray  # float64[seats]
    res: np.ndarray  # int64[res_width]
    logn: np.ndarray  # float64[N + 1]: log(i) (0 at 0): UCT's log of a child's availability (< N)
    cand: np.ndarray  # int64[max_moves]: the root's candidate moves (root = "halving")
    csum: np.ndarray  # float64[max_moves]: each candidate's summed reward for the searching seat
    cn: np.ndarray  # float64[max_moves]: each candidate's playouts
    world: np.ndarray  # uint64[1]: the generator of one world, restarted from its seed for every candidate


@entry
def new_tree(tables, nodes):
    s = tables.n_seats
    h = 64
    while h < 2 * nodes:
        h *= 2
    return Tree(np.zeros(nodes, np.int64), np.zeros(nodes, np.int64), np.zeros(nodes, np.int64),
                np.zeros(nodes, np.int64), np.zeros(nodes, np.int64), np.zeros(nodes, np.float64),
                np.zeros(nodes, np.float64), np.zeros((nodes, s), np.float64), np.full(nodes, -1, np.int64),
                np.zeros(nodes, np.int64), np.zeros(1, np.int64),
                np.full(h, -1, np.int64), np.zeros(h, np.int64), np.zeros(h, np.int64),
                np.zeros(tables.max_moves, np.int64), np.zeros(tables.max_moves, np.int64),
                np.zeros(tables.max_moves, np.int64),
                np.zeros(s, np.float64), np.zeros(tables.res_width, np.int64),
                np.log(np.maximum(np.arange(nodes + 1), 1).astype(np.float64)),
                np.zeros(tables.max_moves, np.int64), np.zeros(tables.max_moves, np.float64),
                np.zeros(tables.max_moves, np.float64), np.zeros(1, np.uint64))


@entry
def tree_nodes(bot_code, bot_par):
    """Nodes the largest search of these seats needs (one per iteration, plus the root)."""
    n = 1
    for s in range(bot_code.shape[0]):
        if bot_code[s] == BOT_MCTS:
            n = max(n, int(bot_par[s, P_ITER]) + 1)
    return n


@kernel
def _add(tree, parent, move, seat):
    i = tree.size[0]
    tree.size[0] = i + 1
    tree.move[i] = move
    tree.seat[i] = seat
    tree.parent[i] = parent
    tree.child[i] = -1
    tree.sibling[i] = -1
    tree.visits[i] = 0.0
    tree.avail[i] = 0.0
    tree.value[i, :] = 0.0
    tree.prior[i] = -1
    tree.depth[i] = 0
    if parent >= 0:
        tree.depth[i] = tree.depth[parent] + 1
        tree.sibling[i] = tree.child[parent]
        tree.child[parent] = i
        j = _slot(tree, parent, move)
        tree.hnode[j] = parent
        tree.hmove[j] = move
        tree.hchild[j] = i
    return i


@kernel(inline="always")
def _slot(tree, node, move):
    """The hash slot of (node, move): where it is stored, or the empty slot it would go to (the
    table has at least twice as many slots as the tree has nodes, so probes stay short)."""
    mask = tree.hnode.shape[0] - 1
    j = (node * 0x9E3779B1 + move * 0x85EBCA77) & mask
    while tree.hnode[j] >= 0 and (tree.hnode[j] != node or tree.hmove[j] != move):
        j = (j + 1) & mask
    return j


@kernel(inline="always")
def _child(tree, node, move):
    """The child of `node` reached by `move`, -1 if not expanded (one hash look-up: a search with
    40 moves at a node used to walk 40 siblings for each of them)."""
    j = _slot(tree, node, move)
    return tree.hchild[j] if tree.hnode[j] >= 0 else -1


# inline="always" on the steps of a search: fewer compile passes (see sim/engine.py, `choose`)
@kernel(inline="always")
def _world_copy(tables, pos, root, used):
    """The position an iteration plays in: pos itself, a fresh copy of root, while unused; then
    root copied into it in place where the game can (`copy_into`), else another copy_position
    (the game's copies in the order they were always made: one per iteration)."""
    if used and not copy_into(tables, pos, root):
        return copy_position(tables, root)
    return pos


@kernel(inline="always")
def _prior(tables, tree, node, pos, mover, par, scratch, rng):
    """The greedy move at `node` (-1 if it is deeper than `prior_depth` or greedy gave none): asked
    once, in the world of the first iteration that selects from the node, then kept."""
    if tree.prior[node] == -1 and tree.depth[node] < par[P_PRIOR_DEPTH]:
        g = bot_move(tables, pos, mover, int(par[P_ROLL_CODE]), par[P_ROLL_PAR:], scratch, rng)
        tree.prior[node] = g if g >= 0 else -2
    return tree.prior[node]


@kernel(inline="always")
def _select(tables, tree, node, pos, par, scratch, rng):
    """One step down: expand an untried legal move if there is one (returns (child, True)): the
    node's greedy move if it is untried, else one drawn uniformly; else the best legal child by
    UCT plus the progressive bias towards the greedy move (child, False). Availability is counted
    for every legal child."""
    mover = to_move(tables, pos)
    k = legal_moves(tables, pos, tree.legal)
    if k == 0:
        return -1, True
    g = _prior(tables, tree, node, pos, mover, par, scratch, rng)
    c = par[P_C]
    bias = par[P_PRIOR]
    n_untried = 0
    g_untried = False
    best, best_u = -1, -np.inf
    for i in range(k):
        ch = _child(tree, node, tree.legal[i])
        tree.kids[i] = ch
        if ch < 0:
            tree.untried[n_untried] = tree.legal[i]
            n_untried += 1
            g_untried = g_untried or tree.legal[i] == g
    if n_untried > 0:
        m = g if g_untried else tree.untried[below(rng, n_untried)]
        return _add(tree, np.int64(node), np.int64(m), np.int64(mover)), True  # typed: one compile of _add
    for i in range(k):
        ch = tree.kids[i]
        tree.avail[ch] += 1.0
        n = tree.visits[ch]
        u = tree.value[ch, mover] / n + c * np.sqrt(tree.logn[int(tree.avail[ch])] / n)
        if tree.move[ch] == g:
            u += bias / (n + 1.0)
        if u > best_u:
            best, best_u = ch, u
    return best, False


@kernel(inline="always")
def _score(tables, tree, pos, finished, scale):
    """The reward of every seat: 1 / 0 for a win / loss, shared equally on a draw; a logistic of
    the game's evaluation where the rollout stopped early."""
    s = tables.n_seats
    if finished:
        w = winner(tables, pos, tree.res)
        for i in range(s):
            tree.reward[i] = (1.0 if i == w else 0.0) if w >= 0 else 1.0 / s
    else:
        for i in range(s):
            tree.reward[i] = 1.0 / (1.0 + np.exp(-evaluate(tables, pos, i) / scale))


@kernel(inline="always")
def _rollout(tables, pos, par, scratch, tree, rng):
    """Play on from pos by the rollout bot (`rollout`: the game's random or greedy bot, with its
    default parameters; the engine's uniform_move for a game without a random bot); returns True
    when the game ended (else the depth or the cap stopped it)."""
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
            m = uniform_move(tables, pos, rng, tree.untried)
        else:
            m = bot_move(tables, pos, mover, code, bpar, scratch, rng)
        apply(tables, pos, m, rng)
        d += 1


# An entry, not a kernel, although only the drivers call it: numba compiles a rule function's
# body (the game's apply, bot_move, legal_moves, result, ...) once per set of its callers' compile
# flags, and the drivers are entries. As a kernel, every rule function the search calls compiled
# a second time (HEXATILE's `warm`: apply, bot_move, legal_moves, result, evaluate, to_move).
@entry
def _search(tables, root, seat, par, scratch, tree, rng):
    """`par[P_ITER]` iterations from the real position `root` (never changed) for `seat`."""
    scale = par[P_SCALE]
    tree.size[0] = 0
    tree.hnode[:] = -1
    _add(tree, np.int64(-1), np.int64(-1), np.int64(-1))
    pos = copy_position(tables, root)
    for it in range(int(par[P_ITER])):
        pos = _world_copy(tables, pos, root, it > 0)
        sample_hidden(tables, pos, seat, rng)
        node = 0
        expanded = False
        while not expanded and to_move(tables, pos) >= 0:
            nxt, expanded = _select(tables, tree, node, pos, par, scratch, rng)
            if nxt < 0:  # a game that lists no move for a seat to move: nothing to search
                break
            node = nxt
            apply(tables, pos, tree.move[node], rng)
        finished = _rollout(tables, pos, par, scratch, tree, rng)
        _score(tables, tree, pos, finished, scale)
        while node >= 0:
            tree.visits[node] += 1.0
            for i in range(tables.n_seats):
                tree.value[node, i] += tree.reward[i]
            node = tree.parent[node]


@kernel(inline="always")
def _biased_mean(tree, i, g, bias):
    """A root candidate's mean reward, plus the progressive bias when it is greedy's move."""
    v = tree.csum[i] / tree.cn[i]
    return v + bias / (tree.cn[i] + 1.0) if tree.cand[i] == g else v


@kernel(inline="always")
def _keep_best(tree, n, keep, g, bias):
    """Order the first n candidates by biased mean (a stable selection sort: equal means keep
    their order, greedy's move first) so that the best `keep` lead."""
    for a in range(keep):
        best, best_v = a, _biased_mean(tree, a, g, bias)
        for b in range(a + 1, n):
            v = _biased_mean(tree, b, g, bias)
            if v > best_v:
                best, best_v = b, v
        if best != a:
            tree.cand[a], tree.cand[best] = tree.cand[best], tree.cand[a]
            tree.csum[a], tree.csum[best] = tree.csum[best], tree.csum[a]
            tree.cn[a], tree.cn[best] = tree.cn[best], tree.cn[a]


# an entry for the reason _search is
@entry
def _halving_move(tables, root, seat, par, scratch, tree, rng):
    """The root as sequential halving over every legal move (Karnin, Koren and Somekh 2013;
    Cazenave's SHOT 2014) with common random numbers: each round draws fresh worlds, and every
    surviving move is played in each of them from the same seed (the same redraw of what the seat
    cannot see, the same dice and draws as far as the moves leave the generator in step), so two
    moves are compared on the same luck rather than on independent samples; after a round the
    better half by mean reward for `seat` survives. The budget, `par[P_ITER]` playouts, is split
    evenly between the ceil(log2 k) rounds. Greedy's move (asked where `prior_depth` >= 1) gets
    the tree's progressive bias `prior / (playouts + 1)` and wins ties."""
    k = legal_moves(tables, root, tree.legal)
    if k <= 1:
        return tree.legal[0] if k == 1 else -1
    g = -1
    if par[P_PRIOR_DEPTH] >= 1:
        g = bot_move(tables, root, seat, int(par[P_ROLL_CODE]), par[P_ROLL_PAR:], scratch, rng)
    n = 0
    if g >= 0:  # greedy's move first: the stable sort keeps it ahead of equal means
        tree.cand[0] = g
        n = 1
    for i in range(k):
        if tree.legal[i] != g:
            tree.cand[n] = tree.legal[i]
            n += 1
    tree.csum[:n] = 0.0
    tree.cn[:n] = 0.0
    rounds = 0
    while (1 << rounds) < n:
        rounds += 1
    per_round = int(par[P_ITER]) // rounds
    scale, bias = par[P_SCALE], par[P_PRIOR]
    pos = copy_position(tables, root)
    used = False
    while n > 1:
        worlds = max(1, per_round // n)
        for _ in range(worlds):
            seed = next_u64(rng)
            for i in range(n):
                tree.world[0] = seed
                pos = _world_copy(tables, pos, root, used)
                used = True
                sample_hidden(tables, pos, seat, tree.world)
                apply(tables, pos, tree.cand[i], tree.world)
                finished = _rollout(tables, pos, par, scratch, tree, tree.world)
                _score(tables, tree, pos, finished, scale)
                tree.csum[i] += tree.reward[seat]
                tree.cn[i] += 1.0
        keep = (n + 1) // 2
        _keep_best(tree, n, keep, g, bias)
        n = keep
    return tree.cand[0]


@kernel(inline="always")
def mcts_move(tables, root, seat, par, scratch, tree, rng):
    """The move of `seat` at the real position `root` after `par[P_ITER]` iterations (root is
    never changed). The most visited child among the moves legal at the root; among equally
    visited ones (a budget below the number of moves visits most of them once), greedy's move
    where the root asked greedy (`prior_depth` >= 1) and it is one of them, else the one with the
    best mean reward for `seat`."""
    if par[P_ROOT] == ROOT_HALVING:
        return _halving_move(tables, root, seat, par, scratch, tree, rng)
    _search(tables, root, seat, par, scratch, tree, rng)
    k = legal_moves(tables, root, tree.legal)
    g = tree.prior[0]
    best, best_n, best_g, best_v = -1, -1.0, False, -np.inf
    for i in range(k):
        m = tree.legal[i]
        ch = _child(tree, 0, m)
        n = tree.visits[ch] if ch >= 0 else 0.0
        v = tree.value[ch, seat] / n if n > 0 else -np.inf
        is_g = m == g
        # equal visits: greedy's move, then the better mean reward
        if n > best_n or n == best_n and (is_g and not best_g or is_g == best_g and v > best_v):
            best, best_n, best_g, best_v = m, n, is_g, v
    return best


@kernel(inline="always")
def mcts_prefers(tables, root, seat, other, par, scratch, tree, rng):
    """Whether `seat`, searching from `root` as it would for a move, expects `other` to do
    better than itself (the mean rewards of the two seats at the root): the search bot's own
    judgement of a position, as the pie rule asks for."""
    _search(tables, root, seat, par, scratch, tree, rng)
    return tree.value[0, other] > tree.value[0, seat]


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
    """The search bot for a game whose greedy bot is `greedy` (rollouts, cut-off evaluation and the
    tree's prior) and whose random bot is `random` (the random rollouts: the policy of the game's
    random-vs-random games; None, or a bot of code BOT_UNIFORM, plays the engine's uniform_move);
    `defaults` sets a game's own defaults of the other parameters (e.g. rollout="greedy")."""
    rollouts = ("random", "greedy") if greedy is not None else ("random",)
    prior_high = 1_000_000 if greedy is not None else 0  # no greedy bot: no prior to ask
    if random is not None and random.code == BOT_UNIFORM:
        random = None
    bot = SearchBot(
        "mcts", BOT_MCTS,
        "Information-set Monte Carlo tree search over the engine functions: per iteration it redraws "
        "what its seat cannot see, selects by UCT, expands one move, rolls out and backs up one value "
        "per seat. Plays the most visited move. With root=halving the root instead plays every move in "
        "the same sampled worlds and keeps the better half each round (no tree).",
        (Param("iterations", "int", iterations, "Search iterations per decision (the budget; never time).",
               low=1, high=1_000_000),
         Param("c", "float", 0.7, "UCT exploration constant (rewards lie in [0, 1]).", low=0.0, high=10.0),
         Param("rollout", "str", "random", "Rollout policy: the game's random bot (the one its random "
               "games play), or its greedy bot.", choices=rollouts),
         Param("rollout_depth", "int", 0, "Decisions per rollout before the game's evaluation scores the "
               "position; 0 = play to the end.", low=0, high=100_000),
         Param("eval_scale", "float", 1.0, "Evaluation units per logistic unit at a rollout cut-off.",
               low=1e-9, high=1e9),
         Param("prior", "float", 0.0, "Progressive bias towards greedy's move at a node that knows it: "
               "prior / (visits + 1) added to its UCT value (reward units; 0 = none).", low=0.0, high=100.0),
         Param("prior_depth", "int", 0, "Tree levels, from the root, whose nodes ask greedy for their "
               "move (expanded first, biased by prior, and the root's pick among equally visited "
               "moves); 0 = never ask.", low=0, high=prior_high),
         Param("root", "str", "uct", "How the root chooses: 'uct', the tree search above; 'halving', "
               "sequential halving over the root's moves, every move played in the same sampled worlds "
               "(iterations = playouts; no tree below the root).", choices=("uct", "halving"))),
        rollout_bot=greedy, random_bot=random)._with_defaults(defaults)
    if greedy is None:
        return bot
    return dataclasses.replace(bot, doc=f"{bot.doc} {prior_doc({p.name: p.default for p in bot.params})}")


def prior_doc(params: dict) -> str:
    """What the greedy prior does under these search parameters (`hexsim rules`: the defaults)."""
    depth, prior = params["prior_depth"], params["prior"]
    if depth == 0:
        return ("By default greedy is never asked (prior_depth = 0, prior = 0): prior_depth = k makes "
                "the nodes of the first k levels expand greedy's move first and play it among equally "
                "visited moves, prior > 0 adds a bias towards greedy's move (prior / (visits + 1)).")
    if params["root"] == "halving":
        return (f"By default the halving root asks greedy for its move (prior_depth = {depth}): greedy's "
                f"move gets prior / (playouts + 1) added to its mean (a bias towards greedy's move), "
                f"prior = {prior:g}, and wins ties of means.")
    where = "the root asks" if depth == 1 else f"the nodes of the first {depth} levels ask"
    bias = (f"with a bias towards greedy's move of prior / (visits + 1), prior = {prior:g}" if prior > 0
            else "with no bias towards greedy's move (prior = 0)")
    return (f"By default {where} greedy for its move (prior_depth = {depth}): expanded first, "
            f"played among equally visited moves, {bias}.")
