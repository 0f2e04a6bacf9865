"""modular_sqrt: Tonelli-Shanks re-found by sympy (every level) and by trying every residue
(levels 1-3)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.ntheory import sqrt_mod

import palaestra

FAMILY = "modular_sqrt"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_root_is_what_sympy_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    a, p = task.metadata["a"], task.metadata["p"]
    assert task.answer == str(min(sqrt_mod(a, p, all_roots=True)))
    if level <= 3:
        assert task.answer == str(next(x for x in range(p) if x * x % p == a))
