"""The search's tree (sim/engine/search.py): nodes in preallocated arrays, children found by an
open-addressing hash of (node, move), and the steps every root shares: add a node, find a child,
pick a child by UCT, back a playout's rewards up, start afresh. The helpers called in loops take
the tree's arrays, not the tree: numba counts a reference to every array of a NamedTuple argument
at each call (a Tri-Board search spent half its time so)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.engine.jit import entry, kernel

# nodes that may hold a one-ply look's policy at once (their moves' entries share the hash table),
# and the moves the table makes room for at each look below the root (max_moves is a bound on a
# move's code, not on a position's choices: tri2p's 22,051 against 6-16 legal moves)
LOOK_NODES = 32
LOOK_MOVES = 256


class Tree(NamedTuple):
    move: np.ndarray  # int64[N]: the move leading to the node
    seat: np.ndarray  # int64[N]: the seat that chose it
    parent: np.ndarray  # int64[N]
    child: np.ndarray  # int64[N]: first child, -1 if none
    sibling: np.ndarray  # int64[N]: next sibling, -1 if none
    visits: np.ndarray  # float64[N]
    avail: np.ndarray  # float64[N]: times the node's move was legal when its parent was selected from
    value: np.ndarray  # float64[N, seats]: summed rewards, one per seat
    policy: np.ndarray  # float64[N]: p(move) of the node's move in its parent's look (0: none)
    looked: np.ndarray  # int64[N]: 1 once the node has looked one ply ahead (its moves' p in the hash)
    win: np.ndarray  # int64[N]: a move that wins at once for the node's mover (its look), -1 none
    depth: np.ndarray  # int64[N]: levels below the root
    size: np.ndarray  # int64[1]: nodes in use
    hnode: np.ndarray  # int64[H]: open-addressing table (node, move) -> child; -1 = empty slot
    hmove: np.ndarray  # int64[H]
    hchild: np.ndarray  # int64[H]: -1 for a move the node's look scored but the tree has not expanded
    hpol: np.ndarray  # float64[H]: p(move) of the node's look (0 where it did not look)
    hused: np.ndarray  # int64[1]: slots in use
    hlist: np.ndarray  # int64[H // 2]: the slots in use, in the order they were taken (a new search
    # empties those alone: clearing all H slots cost more than the search itself where H is large)
    legal: np.ndarray  # int64[max_moves]
    untried: np.ndarray  # int64[max_moves]
    kids: np.ndarray  # int64[max_moves]: the child of each legal move at the node being selected from
    reward: np.ndarray  # float64[seats]
    res: np.ndarray  # int64[res_width]
    logn: np.ndarray  # float64[N + 1]: log(i) (0 at 0): UCT's log of a child's availability (< N)
    pbuf: np.ndarray  # float64[max_moves]: a look's p of each legal move (tree.legal's order)
    cand: np.ndarray  # int64[max_moves]: the root's candidate moves (root = "halving", "hybrid")
    csum: np.ndarray  # float64[max_moves]: each candidate's summed reward for the searching seat
    cn: np.ndarray  # float64[max_moves]: each candidate's playouts
    cp: np.ndarray  # float64[max_moves]: each candidate's p in the root's look
    world: np.ndarray  # uint64[1]: the generator of one world, restarted from its seed for every candidate


@entry
def new_tree(tables, nodes, looks=LOOK_NODES):
    """A tree of `nodes` nodes whose hash table holds them and the looks of up to `looks` nodes at
    half load: the root's of up to max_moves entries, each other's of up to LOOK_MOVES (a look
    that would fill the table is not taken: `_node_look`). Sized no larger than that: every probe
    of a table far larger than what it holds misses the cache (tri's 2M slots, where one look at
    the root needs 22,051, cost more than the search's own work; tri2p's search, looking at every
    root candidate's 6-16 replies, played its playouts 10 times slower in 2M slots than in 32K)."""
    s = tables.n_seats
    m = tables.max_moves
    h = 64
    while h < 2 * (nodes + m + min(m, LOOK_MOVES) * (min(nodes, looks) - 1)):
        h *= 2
    return Tree(np.zeros(nodes, np.int64), np.zeros(nodes, np.int64), np.zeros(nodes, np.int64),
                np.zeros(nodes, np.int64), np.zeros(nodes, np.int64), np.zeros(nodes, np.float64),
                np.zeros(nodes, np.float64), np.zeros((nodes, s), np.float64), np.zeros(nodes, np.float64),
                np.zeros(nodes, np.int64), np.full(nodes, -1, np.int64),
                np.zeros(nodes, np.int64), np.zeros(1, np.int64),
                np.full(h, -1, np.int64), np.zeros(h, np.int64), np.zeros(h, np.int64), np.zeros(h, np.float64),
                np.zeros(1, np.int64), np.zeros(h // 2, np.int64),
                np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64),
                np.zeros(s, np.float64), np.zeros(tables.res_width, np.int64),
                np.log(np.maximum(np.arange(nodes + 1), 1).astype(np.float64)),
                np.zeros(m, np.float64),
                np.zeros(m, np.int64), np.zeros(m, np.float64), np.zeros(m, np.float64), np.zeros(m, np.float64),
                np.zeros(1, np.uint64))


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
    tree.policy[i] = 0.0
    tree.looked[i] = 0
    tree.win[i] = -1
    tree.depth[i] = 0
    if parent >= 0:
        tree.depth[i] = tree.depth[parent] + 1
        tree.sibling[i] = tree.child[parent]
        tree.child[parent] = i
        j = _slot(tree.hnode, tree.hmove, parent, move)
        if tree.hnode[j] < 0:
            tree.hnode[j] = parent
            tree.hmove[j] = move
            tree.hpol[j] = 0.0
            _taken(tree.hlist, tree.hused, j)
        tree.hchild[j] = i
        tree.policy[i] = tree.hpol[j]
    return i


@kernel(inline="always")
def _taken(hlist, hused, j):
    """Slot j now holds an entry: counted, and listed for the next search to empty."""
    hlist[hused[0]] = j
    hused[0] += 1


@kernel(inline="always")
def _slot(hnode, hmove, node, move):
    """The hash slot of (node, move): where it is stored, or the empty slot it would go to (the
    table has at least twice as many slots as it may hold entries, so probes stay short). The
    look-ups take the tree's arrays, not the tree: a helper that takes the tree NamedTuple and
    is called in a loop counts a reference to every one of its arrays per call (a Tri-Board
    search spent half its time so)."""
    mask = hnode.shape[0] - 1
    j = (node * 0x9E3779B1 + move * 0x85EBCA77) & mask
    while hnode[j] >= 0 and (hnode[j] != node or hmove[j] != move):
        j = (j + 1) & mask
    return j


@kernel(inline="always")
def _child(hnode, hmove, hchild, node, move):
    """The child of `node` reached by `move`, -1 if not expanded (one hash look-up: a search with
    40 moves at a node used to walk 40 siblings for each of them)."""
    j = _slot(hnode, hmove, node, move)
    return hchild[j] if hnode[j] >= 0 else -1


@kernel(inline="always")
def _uct(kids, k, visits, avail, value, seat, mover, policy, logn, c, bias):
    """The best of the k children in kids (-1: not expanded, skipped) by UCT for `mover` (-1: for
    the seat that chose each), plus the progressive bias prior * p * sqrt(availability) /
    (visits + 1); counts each one's availability. (Arrays, not the tree: see _slot.)"""
    best, best_u = -1, -np.inf
    for i in range(k):
        ch = kids[i]
        if ch < 0:  # not expanded (progressive widening)
            continue
        avail[ch] += 1.0
        n = visits[ch]
        a = avail[ch]
        u = value[ch, mover if mover >= 0 else seat[ch]] / n + c * np.sqrt(logn[int(a)] / n) \
            + bias * policy[ch] * np.sqrt(a) / (n + 1.0)
        if u > best_u:
            best, best_u = ch, u
    return best


@kernel(inline="always")
def _backup(visits, value, parent, reward, node):
    """Add the rewards to node and each node above it (the arrays, not the tree: see _slot)."""
    while node >= 0:
        visits[node] += 1.0
        for i in range(reward.shape[0]):
            value[node, i] += reward[i]
        node = parent[node]


@kernel(inline="always")
def _new_root(tree):
    """Empty the tree (and the hash slots the last search took) and add the root, node 0."""
    tree.size[0] = 0
    for i in range(tree.hused[0]):
        tree.hnode[tree.hlist[i]] = -1
    tree.hused[0] = 0
    _add(tree, np.int64(-1), np.int64(-1), np.int64(-1))
