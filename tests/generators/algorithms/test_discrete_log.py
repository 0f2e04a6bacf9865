"""discrete_log: baby-step giant-step re-found by sympy (every level) and by trying every
exponent (levels 1-4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.ntheory import discrete_log, n_order

import palaestra

FAMILY = "discrete_log"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_exponent_is_what_sympy_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    g, h, p = task.metadata["g"], task.metadata["h"], task.metadata["p"]
    smallest = discrete_log(p, h, g) % n_order(g, p)  # every solution is congruent mod the order
    assert task.answer == str(smallest)
    if level <= 4:
        assert smallest == next(x for x in range(p) if pow(g, x, p) == h)
