"""polynomial_remainder: long division modulo p re-found by sympy's Poly.rem over GF(p) (every level)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import GF, Poly, symbols

import palaestra

FAMILY = "polynomial_remainder"
X = symbols("x")


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_remainder_is_what_sympy_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    p, a, b = task.metadata["p"], task.metadata["a"], task.metadata["b"]
    rem = Poly(a, X, domain=GF(p)).rem(Poly(b, X, domain=GF(p)))
    coefficients = [int(c) % p for c in rem.all_coeffs()]  # GF(p) prints symmetric residues
    padded = [0] * (len(b) - 1 - len(coefficients)) + coefficients
    if rem.is_zero:
        padded = [0] * (len(b) - 1)
    assert task.answer == ", ".join(map(str, padded))
