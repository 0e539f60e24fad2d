"""The side trie and the one-search scorer of every frontier cell, against from-scratch
computation: the trie's readings against the plain-Python side evaluator, the shared search
against the DFS finder run cell by cell."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.games.hexatrex.finder import find_cfg, find_compiled
from sim.games.hexatrex.join import (
    _bound,
    _replay,
    _score_group,
    join_compiled,
    score_cells_compiled,
    search_cells,
)
from sim.games.hexatrex.position import has_binop, side_values
from sim.games.hexatrex.tiles import SYMBOL_TEXT
from sim.games.hexatrex.trie import (
    C_LBIN,
    C_LCOUNT,
    C_LSTART,
    C_RBIN,
    C_RCOUNT,
    C_RSTART,
    C_VKIDS,
    DEAD,
    TRIE_CAP,
    TRIE_POOL,
    new_trie,
    trie_side,
)
from tests.test_hexatrex_finder import RULESETS, random_cluster, rules

TRIE_RULES = [dict(max_equation_tiles=7), dict(max_equation_tiles=8, bracketing="any"),
              dict(max_equation_tiles=7, leading_zero=True, negative_zero=True),
              dict(max_equation_tiles=6, six_as_nine=False, plus_as_times=False),
              dict(max_equation_tiles=7, no_fractions="result"),
              dict(max_equation_tiles=7, no_fractions="result", bracketing="any")]
TRIES = {}


def _values(trie, row, start, count):
    return trie[1][trie[0][row, start]: trie[0][row, start] + trie[0][row, count]].tolist()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(TRIE_RULES))),
       st.lists(st.sampled_from(range(14)), min_size=1, max_size=6))
def test_trie_readings_match_the_plain_evaluator(which, symbols):
    """Each string's right reading (as written) and left reading (reversed) hold exactly the
    values of the plain-Python evaluator that the other side can reach, in the order the
    compiled evaluator gives them; DEAD only when no reading is a side or can become one."""
    rl = rules(**TRIE_RULES[which])
    ms = rl["max_equation_tiles"] - 2
    symbols = symbols[:ms]
    if which not in TRIES:  # one trie per rule set, shared by all examples: it is a cache
        TRIES[which] = new_trie(ms, TRIE_CAP, TRIE_POOL)
    trie = TRIES[which]
    cfg = find_cfg(rl)
    text = [SYMBOL_TEXT[s] for s in symbols]
    lim = 10 ** (ms + 1 - len(symbols))
    right = {v for v in side_values(text, rl) if abs(v) < lim}
    left = {v for v in side_values(text[::-1], rl) if abs(v) < lim}
    row = trie_side(trie, symbols, cfg)
    if row == DEAD:
        assert not right and not left
        return
    got_r = _values(trie, row, C_RSTART, C_RCOUNT)
    got_l = _values(trie, row, C_LSTART, C_LCOUNT)
    assert len(got_r) == len(set(got_r)) and set(got_r) == right, (text, "right")
    assert len(got_l) == len(set(got_l)) and set(got_l) == left, (text, "left")
    if right:
        assert bool(trie[0][row, C_RBIN]) == has_binop(text)
    if left:
        assert bool(trie[0][row, C_LBIN]) == has_binop(text[::-1])


def test_dead_strings_have_no_side_in_any_extension():
    """A DEAD child is never followed: no string that starts with it reads as a side either
    way (checked on every extension of up to two symbols of the dead strings of length 2)."""
    rl = rules(max_equation_tiles=6)
    cfg = find_cfg(rl)
    trie = new_trie(4, TRIE_CAP, TRIE_POOL)
    dead = [[a, b] for a in range(14) for b in range(14) if trie_side(trie, [a, b], cfg) == DEAD]
    assert dead, "no dead strings of length 2: the check proves nothing"
    for d in dead:
        for ext in [[]] + [[x] for x in range(14)] + [[x, y] for x in range(14) for y in range(14)]:
            text = [SYMBOL_TEXT[s] for s in d + ext]
            assert not side_values(text, rl) and not side_values(text[::-1], rl), text


@pytest.mark.parametrize("which", range(len(TRIE_RULES)))
def test_the_mask_of_children_with_values_matches_the_children(which):
    """Each row's C_VKIDS bit for symbol s is set exactly when its child by s is a row with a
    value in either reading (the search keeps or drops a leaf walk by that bit alone), over a
    trie filled with every string of up to 3 symbols and random longer ones."""
    rl = rules(**TRIE_RULES[which])
    cfg = find_cfg(rl)
    ms = rl["max_equation_tiles"] - 2
    trie = new_trie(ms, TRIE_CAP, TRIE_POOL)
    rng = random.Random(which)
    strings = [[a, b, c][:n] for a in range(14) for b in range(14) for c in range(14)
               for n in (1, 2, 3)]
    strings += [[rng.randrange(14) for _ in range(ms)] for _ in range(3000)]
    for text in strings:
        trie_side(trie, text[:ms], cfg)
    rows = trie[0]
    n_rows = int(trie[2][0])
    with_values = 0
    for r in range(n_rows):
        for sym in range(14):
            c = int(rows[r, sym])
            has = c >= 0 and rows[c, C_RCOUNT] + rows[c, C_LCOUNT] > 0
            assert bool((int(rows[r, C_VKIDS]) >> sym) & 1) == has, (r, sym)
            with_values += has
    assert with_values > 100, "too few children with values: the check proves little"


def _finder_scores(pos, tile, rl):
    out = {}
    for cell in sorted(pos.legal_cells()):
        trial = pos.copy()
        trial.place(cell, tile)
        found = find_compiled(trial, cell, rl)
        out[cell] = (len(found), sum(len(k) for k in found))
    return out


@pytest.mark.parametrize("kw", RULESETS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_one_search_scores_every_cell_like_the_finder(kw):
    """The greedy bot's one search over all frontier cells gives, cell by cell, the equations
    and score of the DFS finder run on that cell alone; a small trie shared by all the
    clusters is emptied and refilled on the way and must change nothing."""
    rl = rules(**kw)
    rng = random.Random(zlib.crc32(repr(sorted(kw.items())).encode()) + 1)
    ms = rl["max_equation_tiles"] - 2
    small = new_trie(ms, 300, 4000)
    scored = 0
    answered = 0
    for _ in range(12):
        pos, _ = random_cluster(rng, rng.randint(6, 13))
        tile = rng.choice("0123456789+-x/")
        want = _finder_scores(pos, tile, rl)
        assert score_cells_compiled(pos, tile, rl) == want, (pos.tiles, tile)
        got = score_cells_compiled(pos, tile, rl, small)
        assert got is None or got == want, (pos.tiles, tile)
        answered += got is not None
        scored += sum(s > 0 for _, s in want.values())
    assert scored >= 10, f"only {scored} scoring cells: the test proves little"
    assert small[2][3] > 0 and answered > 0, "the small trie was never emptied, or always full"


def test_one_search_on_an_empty_table_and_short_reach():
    """Only the "=": every neighbour scores nothing. 2 + 4 = . with a 6: the empty cell right
    of "=" scores 5 (the card's example), as does every other neighbour of "=" (6 = 4 + 2 read
    round the corner); with a 3-symbol reach nothing scores."""
    from sim.games.hexatrex.position import Position

    pos = Position()
    assert score_cells_compiled(pos, "5", rules()) == {c: (0, 0) for c in pos.legal_cells()}
    pos = Position.from_text("2 + 4 = .")
    got = score_cells_compiled(pos, "6", rules())
    assert got == _finder_scores(pos, "6", rules())
    assert got[(1, 0)] == (1, 5)
    short = score_cells_compiled(pos, "6", rules(max_equation_tiles=3))
    assert set(short.values()) == {(0, 0)}


def _rows(board, scratch, a, b):
    """The side walks group[a:b] of the last search, as comparable tuples (cells as coords)."""
    cells, meta, masks, pool, group = scratch[0], scratch[1], scratch[2], scratch[3], scratch[6]
    out = []
    for i in group[a:b].tolist():
        k = int(meta[i, 0])
        out.append(([board.coord(int(c)) for c in cells[i, :k]], int(meta[i, 2]), int(meta[i, 5]),
                    pool[meta[i, 3]: meta[i, 3] + meta[i, 4]].tolist(),
                    pool[meta[i, 6]: meta[i, 6] + meta[i, 7]].tolist(), masks[i].tolist()))
    return out


def _random_tables(kw, salt, n):
    """n random compact tables and a tile in hand, seeded by the rule set and salt."""
    rng = random.Random(zlib.crc32(repr(sorted(kw.items())).encode()) + salt)
    for _ in range(n):
        pos, _ = random_cluster(rng, rng.randint(6, 13))
        yield pos, rng.choice("0123456789+-x/")


def _search_every_cell(pos, tile, rl):
    """The table's side walks stored, then one unpruned search with `tile` on every legal cell
    (sorted): (board, arrays, cells, per-cell equations and scores); the walks stay in
    scratch, grouped by cell."""
    m = rl["max_equation_tiles"]
    board, t, n = _replay(pos, pos.order, rl, m)
    assert n >= 0
    cells = sorted(pos.legal_cells())
    assert search_cells(board, t, tile, cells, len(pos.order)) >= 0
    return board, t, cells, t["scratch"][9]


@pytest.mark.parametrize("kw", RULESETS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_the_placed_cell_reuses_its_walks_from_the_turns_search(kw):
    """The kernel scores the greedy bot's chosen cell by joining again that cell's walks from
    the turn's shared search (`_score_group`), not by a second search: for every legal cell,
    those walks are the very rows, in the same order, that the one-cell search of the placed
    tile lists (`_score_join`), and the join gives the equations (with the same recorded walks)
    of `join_compiled` and the tile sets of the DFS finder."""
    rl = rules(**kw)
    m = rl["max_equation_tiles"]
    compared = 0
    for pos, tile in _random_tables(kw, 2, 16):
        board, t, cells, per = _search_every_cell(pos, tile, rl)
        for s, cell in enumerate(cells):
            ne, sc, a, b = _score_group(s, t["jw"], np.int64(board.center), t["order"], np.int64(m), t["cfg"],
                                        t["found"])
            got = {frozenset(board.coord(int(c)) for c in t["walks"][e, : t["wlen"][e]]):
                   [board.coord(int(c)) for c in t["walks"][e, : t["wlen"][e]]] for e in range(ne)}
            rows = _rows(board, t["scratch"], a, b)
            trial = pos.copy()
            trial.place(cell, tile)
            board1, t1, n1 = _replay(trial, trial.order, rl, m, last=cell)
            assert _rows(board1, t1["scratch"], 0, t1["n_new"]) == rows, (pos.tiles, tile, cell)
            assert got == join_compiled(trial, cell, rl), (pos.tiles, tile, cell)
            assert set(got) == set(find_compiled(trial, cell, rl))
            assert (ne, sc) == (len(got), sum(len(k) for k in got)) == (per[0, s], per[1, s])
            compared += sc > 0
    assert compared >= 10, f"only {compared} scoring cells: the test proves little"


@pytest.mark.parametrize("kw", RULESETS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_the_bound_never_undercuts_a_score_and_pruning_keeps_the_choice(kw):
    """`_bound` is at least the exact score of every cell; the greedy bot's pruned scoring
    gives the exact score of every cell that could reach the best score of the cells before
    it (in the order the bot reads them) and -1 only for cells whose exact score is below that
    best, so the bot's choice and its random tie-breaks are those of the exact scores."""
    rl = rules(**kw)
    m = rl["max_equation_tiles"]
    pruned = 0
    for pos, tile in _random_tables(kw, 3, 10):
        exact = score_cells_compiled(pos, tile, rl)
        board, t, cells, _ = _search_every_cell(pos, tile, rl)
        start = t["scratch"][7]
        for s, cell in enumerate(cells):
            u = _bound(t["scratch"][6], 0 if s == 0 else start[s - 1], start[s], t["scratch"],
                       t["store"], np.int64(m), np.int64(1 << 40))
            assert u >= exact[cell][1], (pos.tiles, tile, cell)
        got = score_cells_compiled(pos, tile, rl, prune=True)
        best = 0
        for cell in cells:
            if got[cell] == (-1, -1):
                assert exact[cell][1] < best, (pos.tiles, tile, cell)
                pruned += 1
            else:
                assert got[cell] == exact[cell], (pos.tiles, tile, cell)
                best = max(best, exact[cell][1])
    assert pruned >= 5, f"only {pruned} cells pruned: the test proves little"


def test_reach_masks_match_a_plain_recount():
    """`_reach`, the table the search steps by: for every table tile and legal cell, the
    distance to a legal cell over table tiles and the direction masks (table tiles, legal
    cells, and cells within r steps of a legal cell) recounted in plain Python from the
    position; BACK and LOW_BIT agree with the board's neighbour order."""
    from sim.games.hexatrex.join import BACK, FAR, LOW_BIT, R_DIST, R_NEAR, R_SPECIAL, R_TABLE
    from sim.games.hexatrex.tiles import NEIGHBOURS, hex_distance

    rl = rules(max_equation_tiles=7)
    ms = rl["max_equation_tiles"] - 2
    checked = 0
    for pos, tile in _random_tables({"reach": 1}, 4, 8):
        board, t, cells, _ = _search_every_cell(pos, tile, rl)
        for d in range(6):
            assert board.nb_off[BACK[d]] == -board.nb_off[d]
        assert all(LOW_BIT[m] == min(d for d in range(6) if m >> d & 1) for m in range(1, 64))
        legal = set(cells)
        table = {c for c in pos.tiles if pos.tiles[c] != "="}
        dist = {c: 0 for c in legal if hex_distance(c, (0, 0)) <= ms}
        frontier = list(dist)
        while frontier:  # breadth first over table tiles, out to ms - 1 steps
            nxt = []
            for c in frontier:
                for dq, dr in NEIGHBOURS:
                    x = (c[0] + dq, c[1] + dr)
                    if x in table and x not in dist and dist[c] + 1 < ms:
                        dist[x] = dist[c] + 1
                        nxt.append(x)
            frontier = nxt
        for c in sorted(table | legal):
            row = t["reach"][board.index(*c)]
            want_t = want_s = 0
            near = [0] * (ms - 1)
            for d, (dq, dr) in enumerate(NEIGHBOURS):
                x = (c[0] + dq, c[1] + dr)
                assert board.index(*x) == board.index(*c) + board.nb_off[d]
                if x in legal:
                    want_s |= 1 << d
                elif x in table:
                    want_t |= 1 << d
                for r in range(ms - 1):
                    if x in legal or (x in table and dist.get(x, FAR) <= r):
                        near[r] |= 1 << d
            if c in table:
                assert row[R_DIST] == dist.get(c, FAR), c
            assert (row[R_TABLE], row[R_SPECIAL]) == (want_t, want_s), c
            assert row[R_NEAR: R_NEAR + ms - 1].tolist() == near, c
            checked += 1
    assert checked > 100
