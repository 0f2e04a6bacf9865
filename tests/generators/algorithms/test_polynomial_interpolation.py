"""polynomial_interpolation: Lagrange modulo p re-found by sympy's interpolation over the
rationals, reduced modulo p (every level), and against the polynomial itself by trying every
polynomial of degree <= 1 on level 1."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational, interpolate, symbols

import palaestra

FAMILY = "polynomial_interpolation"
X = symbols("x")


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_value_is_what_sympy_interpolation_gives(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    p, t = task.metadata["p"], task.metadata["t"]
    points = [(x, y) for x, y in task.metadata["points"]]
    value = Rational(interpolate(points, X).subs(X, t))
    exact = Fraction(int(value.p), int(value.q))
    assert task.answer == str(exact.numerator * pow(exact.denominator, -1, p) % p)
    if level == 1:  # a line through two points mod p: try every (c0, c1)
        (x0, y0), (x1, y1) = points
        lines = [
            (c0, c1)
            for c0 in range(p)
            for c1 in range(p)
            if (c0 + c1 * x0) % p == y0 and (c0 + c1 * x1) % p == y1
        ]
        assert len(lines) == 1 and task.answer == str((lines[0][0] + lines[0][1] * t) % p)
