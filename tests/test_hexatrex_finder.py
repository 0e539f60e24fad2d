"""The equation finder against an independent brute force, plus the rule text's cases.

The brute force below shares no code with the game: it lists every walk of the cluster in
plain Python (no pruning but the walk rules), and evaluates each reading with its own small
parser and `fractions.Fraction`.
"""

from __future__ import annotations

import itertools
import random
import zlib
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.games.hexatrex import GAME
from sim.games.hexatrex.finder import find_compiled, side_values_compiled
from sim.games.hexatrex.join import join_compiled
from sim.games.hexatrex.position import Position, reading
from sim.games.hexatrex.tiles import hex_distance

NB = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def rules(**kw):
    return GAME.resolve_rules(kw, "test")


# ---- independent brute force ------------------------------------------------------------------
def _number_ok(text, rl):
    return rl["leading_zero"] or len(text) == 1 or text[0] != "0"


def _parse(tokens, rl):
    """Tokens of one side -> (factors, ops) or None. '-' is a sign at the start or after an
    operator and must be followed by a digit."""
    factors, ops, i = [], [], 0
    expect_number = True
    while i < len(tokens):
        t = tokens[i]
        if expect_number:
            neg = t == "-"
            if neg:
                i += 1
            j = i
            while j < len(tokens) and tokens[j].isdigit():
                j += 1
            if j == i:
                return None
            text = "".join(tokens[i:j])
            if not _number_ok(text, rl):
                return None
            if neg and int(text) == 0 and not rl["negative_zero"]:
                return None
            factors.append(-int(text) if neg else int(text))
            i = j
            expect_number = False
        else:
            if t not in "+-x/":
                return None
            ops.append(t)
            i += 1
            expect_number = True
    if expect_number:
        return None
    return factors, ops


def _combine(a, op, b, steps=True):
    """a op b in Fractions; None for a division by zero and, with `steps` (no_fractions
    "every_step"), for a quotient that is not whole."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "x":
        return a * b
    if b == 0:
        return None
    q = Fraction(a) / Fraction(b)
    return q if q.denominator == 1 or not steps else None


def _value_precedence(factors, ops, steps=True):
    # first every x and /, left to right, then + and -
    vals, pend = [Fraction(factors[0])], []
    for op, f in zip(ops, factors[1:], strict=True):
        if op in "x/":
            v = _combine(vals[-1], op, Fraction(f), steps)
            if v is None:
                return set()
            vals[-1] = v
        else:
            pend.append(op)
            vals.append(Fraction(f))
    total = vals[0]
    for op, v in zip(pend, vals[1:], strict=True):
        total = _combine(total, op, v, steps)
    return {total}


def _value_any(factors, ops, steps=True):
    if len(factors) == 1:
        return {Fraction(factors[0])}
    out = set()
    for k in range(len(ops)):
        for a in _value_any(factors[: k + 1], ops[:k], steps):
            for b in _value_any(factors[k + 1:], ops[k + 1:], steps):
                v = _combine(a, ops[k], b, steps)
                if v is not None:
                    out.add(v)
    return out


def _side(tokens, rl):
    """The side's whole values (an equation's sides must each be a whole number under either
    no_fractions reading; 1 / 2 = 2 / 4 is no equation)."""
    p = _parse(tokens, rl)
    if p is None:
        return set()
    steps = rl["no_fractions"] == "every_step"
    vals = (_value_any if rl["bracketing"] == "any" else _value_precedence)(*p, steps)
    return {v for v in vals if v.denominator == 1}


def brute_equations(pos: Position, placed, rl):
    tiles = pos.tiles
    m = rl["max_equation_tiles"]
    found = set()

    def readings(syms):
        choices = []
        for s in syms:
            if s == "6" and rl["six_as_nine"]:
                choices.append(("6", "9"))
            elif s == "+" and rl["plus_as_times"]:
                choices.append(("+", "x"))
            else:
                choices.append((s,))
        return itertools.product(*choices)

    def check(walk):
        syms = [tiles[c] for c in walk]
        if syms.count("=") != 1 or placed not in walk:
            return
        if rl["tile_repeat"] == "never" and len(set(walk)) != len(walk):
            return
        i = syms.index("=")
        for r in readings(syms):
            left, right = list(r[:i]), list(r[i + 1:])
            pl, pr = _parse(left, rl), _parse(right, rl)
            if pl is None or pr is None:
                return
            if rl["require_operator"] and not (pl[1] or pr[1]):
                return
            if _side(left, rl) & _side(right, rl):
                found.add(frozenset(walk))
                return

    def extend(walk):
        if len(walk) >= 3:
            check(walk)
        if len(walk) == m:
            return
        last = walk[-1]
        for dq, dr in NB:
            n = (last[0] + dq, last[1] + dr)
            if n in tiles and (len(walk) < 2 or walk[-2] != n):
                extend(walk + [n])

    for c in tiles:
        extend([c])
    return found


# ---- random small clusters --------------------------------------------------------------------
BAG = list("0112223344566789" + "++--x/" * 2)
# more divisions, so fractions in between are common (the no_fractions rule sets)
BAG_DIV = list("0112223344566789" + "++--x/" * 2 + "//xx")


def random_cluster(rng: random.Random, n: int, bag=BAG) -> tuple[Position, tuple[int, int]]:
    """A compact cluster (cells within 2 of "=" first, so equations are common) and a random
    tile of it taken as the one just placed."""
    pos = Position()
    for _ in range(n):
        legal = sorted(pos.legal_cells())
        near = [c for c in legal if hex_distance(c, (0, 0)) <= 2]
        pos.place(rng.choice(near or legal), rng.choice(bag))
    return pos, rng.choice(pos.order[1:])


RULESETS = [
    dict(max_equation_tiles=6),
    dict(max_equation_tiles=6, bracketing="any"),
    dict(max_equation_tiles=6, tile_repeat="never"),
    dict(max_equation_tiles=6, leading_zero=True, require_operator=False),
    dict(max_equation_tiles=6, negative_zero=True),
    dict(max_equation_tiles=5, six_as_nine=False, plus_as_times=False),
    dict(max_equation_tiles=7),
    dict(max_equation_tiles=6, no_fractions="result"),
    dict(max_equation_tiles=6, no_fractions="result", bracketing="any"),
]


@pytest.mark.parametrize("kw", RULESETS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_finder_matches_brute_force(kw):
    rl = rules(**kw)
    rng = random.Random(zlib.crc32(repr(sorted(kw.items())).encode()))
    n_eq = 0
    m = rl["max_equation_tiles"]
    trial = 0
    while n_eq < 20 and trial < 150:  # keep drawing clusters until enough equations compared
        trial += 1
        bag = BAG_DIV if "no_fractions" in kw else BAG
        pos, placed = random_cluster(rng, rng.randint(10, 15 if m <= 6 else 13), bag)
        want = brute_equations(pos, placed, rl)
        got = find_compiled(pos, placed, rl)
        api = pos.equations(placed, rl)
        assert set(got) == want, (trial, pos.tiles, placed)
        assert set(api) == want, (trial, pos.tiles, placed)
        for walk in got.values():  # the recorded walk is itself a valid equation
            assert reading([pos.tiles[c] for c in walk], rl) is not None
        n_eq += len(want)
    assert n_eq >= 20, f"only {n_eq} equations in the random clusters: the test proves little"


def _rotate(cell):
    q, r = cell
    return (-r, q + r)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.integers(4, 10))
def test_rotating_the_table_changes_nothing(seed, n):
    """The finder only sees adjacency: a table turned by 60 degrees scores the same, tile set by
    tile set, and reading every tile set's recorded walk backwards never breaks validity of its
    tile set (an equation's mirror a = b <-> b = a is the same tile set)."""
    rl = rules(max_equation_tiles=6)
    pos, placed = random_cluster(random.Random(seed), n)
    turned = Position()
    turned.tiles = {_rotate(c): s for c, s in pos.tiles.items()}
    turned.order = [_rotate(c) for c in pos.order]
    got = find_compiled(pos, placed, rl)
    got_t = find_compiled(turned, _rotate(placed), rl)
    assert {frozenset(_rotate(c) for c in k) for k in got} == set(got_t)


# ---- the rule text's cases --------------------------------------------------------------------
def score(text, placed, **kw):
    pos = Position.from_text(text)
    rl = rules(**kw)
    got = find_compiled(pos, placed, rl)
    assert set(got) == set(pos.equations(placed, rl)) == brute_equations(pos, placed, rl)
    assert set(got) == set(join_compiled(pos, placed, rl))
    return len(got), sum(len(k) for k in got)


def test_two_plus_four_is_six_scores_five():
    """2 + 4 = 6 (the card's example): 5 tiles, 5 points; 6 = 4 + 2 is the same tile set.

        2 + 4 = 6
    """
    assert score("2 + 4 = 6", (1, 0)) == (1, 5)


def test_five_times_five_is_twenty_five_but_not_backwards():
    """5 x 5 = 2 5 is valid (6 points); read backwards 5 2 = 5 x 5 is not.

        5 x 5 = 2 5
    """
    assert score("5 x 5 = 2 5", (2, 0)) == (1, 6)
    rl = rules()
    assert reading(list("5x5=25"), rl) == "5 x 5 = 2 5"
    assert reading(list("52=5x5"), rl) is None
    assert side_values_compiled(list("5x5"), rl) == {25}
    assert side_values_compiled(list("52"), rl) == {52}


def test_six_reads_nine():
    """3 x 3 = 6 holds only when the 6 reads 9.

        3 x 3 = 6
    """
    assert score("3 x 3 = 6", (1, 0)) == (1, 5)
    assert score("3 x 3 = 6", (1, 0), six_as_nine=False) == (0, 0)
    assert side_values_compiled(list("66"), rules()) == {66, 69, 96, 99}


def test_plus_reads_times():
    """2 + 3 = 6 holds only when the + reads x.

        2 + 3 = 6
    """
    assert score("2 + 3 = 6", (1, 0)) == (1, 5)
    assert score("2 + 3 = 6", (1, 0), plus_as_times=False) == (0, 0)
    assert side_values_compiled(list("2+3+1"), rules()) == {6, 7, 5}


def test_negative_sign():
    """- 2 + 5 = 3: the first "-" is a negative sign (6 tiles, 6 points).

        - 2 + 5 = 3
    """
    assert score("- 2 + 5 = 3", (1, 0)) == (1, 6)
    assert side_values_compiled(list("8x-2"), rules()) == {-16}


def test_inexact_division_rejected():
    """7 / 2 = 3 is a fraction: no points. 8 / 2 = 4 is exact.

        7 / 2 = 3        8 / 2 = 4
    """
    assert score("7 / 2 = 3", (1, 0)) == (0, 0)
    assert score("8 / 2 = 4", (1, 0)) == (1, 5)
    # no fraction even in the middle: 3 / 2 x 4 is rejected though it would end at 6
    assert side_values_compiled(list("3/2x4"), rules()) == set()


def test_fractions_in_between_under_no_fractions_result():
    """no_fractions = "result": only the numbers written and each side's value must be whole.

        3 / 2 x 4 = 6
    is rejected by default (3 / 2 is a fraction on the way) and scores 7 under "result";
    7 / 2 = 3 stays a fraction either way, and 2 / 3 = 4 / 6 is no equation (its sides are
    fractions, though equal ones; read backwards 6 / 4 = 3 / 2 neither).
    """
    assert score("3 / 2 x 4 = 6", (1, 0)) == (0, 0)
    assert score("3 / 2 x 4 = 6", (1, 0), no_fractions="result") == (1, 7)
    assert score("7 / 2 = 3", (1, 0), no_fractions="result") == (0, 0)
    assert score("2 / 3 = 4 / 6", (1, 0), no_fractions="result") == (0, 0)
    assert score("2 / 3 = 4 / 6", (1, 0), no_fractions="result", bracketing="any") == (0, 0)
    frac = rules(no_fractions="result")
    worked = {"3/2x4": {6}, "1/2+1/2": {1}, "8/3-2/3": {2}, "1/3/3x9": {1}, "3/2": set(),
              "2/4x6": {3}, "1/0x0": set(), "5-1/2": set()}
    for side, want in worked.items():
        assert side_values_compiled(list(side), frac) == want, side
        assert side_values_compiled(list(side), rules()) == set(), side  # each has a fraction
    # with brackets anywhere: (8 / 3 - 2 / 3) or 8 / (3 - 2) / 3 ... every bracketing, exactly
    anyb = rules(no_fractions="result", bracketing="any")
    assert side_values_compiled(list("8/3-2/3"), anyb) == {2, 24}
    assert side_values_compiled(list("8/3-2/3"), rules(bracketing="any")) == set()
    assert side_values_compiled(list("1/3/3x9"), rules(bracketing="any")) == {9}


def test_repeat_at_distance_two_rejected():
    """1 + 1 = 2 would have to read the single 1 at positions 1 and 3.

        + 1 = 2
    """
    assert score("+ 1 = 2", (1, 0)) == (0, 0)


def test_repeat_at_distance_three_allowed():
    """2 x 1 2 = 2 4 reads the left 2 twice (positions 1 and 4): A B C A round a triangle.

          . 1
         x 2 = 2 4
    A = the 2 left of "=", B = x, C = 1.
    """
    text = """
      . 1
       x 2 = 2 4
    """
    pos = Position.from_text(text)
    assert pos.tiles[(-1, 0)] == "2" and pos.tiles[(-2, 0)] == "x" and pos.tiles[(-1, -1)] == "1"
    want = frozenset({(-1, 0), (-2, 0), (-1, -1), (0, 0), (1, 0), (2, 0)})
    n, pts = score(text, (2, 0))
    got = find_compiled(pos, (2, 0), rules())
    assert want in got and len(want) == 6
    assert want not in find_compiled(pos, (2, 0), rules(tile_repeat="never"))


def test_any_brackets():
    """2 x 3 + 1 = 8 needs brackets: 2 x (3 + 1).

        2 x 3 + 1 = 8
    """
    assert score("2 x 3 + 1 = 8", (1, 0)) == (0, 0)
    assert score("2 x 3 + 1 = 8", (1, 0), bracketing="any") == (1, 7)


def test_require_operator_and_leading_zero():
    """5 = 5 (two 5 tiles) needs require_operator false; 0 5 = 5 needs leading_zero.

        5 = 5          0 5 = 5
    """
    assert score("5 = 5", (1, 0)) == (0, 0)
    assert score("5 = 5", (1, 0), require_operator=False) == (1, 3)
    assert score("0 5 = 5", (1, 0), require_operator=False) == (1, 3)  # only "5 = 5"
    assert score("0 5 = 5", (1, 0), require_operator=False, leading_zero=True) == (2, 7)


def test_equations_on_one_tile_set_count_once_and_length_cap():
    """1 + 2 = 3 and 2 + 1 = 3, 3 = 1 + 2 ... on the same four tiles count once; a 7-symbol
    equation is not seen with max_equation_tiles 5.

        1 + 2 = 3
    """
    assert score("1 + 2 = 3", (1, 0)) == (1, 5)
    assert score("2 x 3 + 1 = 7", (1, 0)) == (1, 7)
    assert score("2 x 3 + 1 = 7", (1, 0), max_equation_tiles=5) == (0, 0)


def test_negative_zero():
    """- 0 + 2 = 2: "-0" is no negative number by default; 0 + 2 = 2 on five of the tiles is.

        - 0 + 2 = 2
    """
    assert score("- 0 + 2 = 2", (1, 0)) == (1, 5)
    assert score("- 0 + 2 = 2", (1, 0), negative_zero=True) == (2, 11)
