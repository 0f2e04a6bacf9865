"""bezout_coefficient: the extended-Euclid x re-found from sympy's gcdex (every level) and by
trying every x (levels 1-4)."""

from __future__ import annotations

from math import gcd

from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import gcdex

import palaestra

FAMILY = "bezout_coefficient"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_x_is_what_sympy_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    a, b = task.metadata["a"], task.metadata["b"]
    s, _, g = gcdex(a, b)
    period = b // int(g)
    assert task.answer == str(int(s) % period)
    if level <= 4:
        g = gcd(a, b)
        assert task.answer == str(next(x for x in range(period) if (g - a * x) % b == 0))
