"""coprime_count: inclusion-exclusion re-found by a Möbius sum over the divisors of M's radical,
with sympy's factorisation and Möbius function (every level), and by counting gcds over the
whole range (levels 1-6)."""

from __future__ import annotations

from math import gcd, prod

from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import divisors, factorint, mobius

import palaestra

FAMILY = "coprime_count"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_a_mobius_sum_and_counting_gcds_find(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    limit, m = task.metadata["limit"], task.metadata["m"]
    radical = prod(factorint(m))
    assert task.answer == str(sum(int(mobius(d)) * (limit // d) for d in divisors(radical)))
    if level <= 6:
        assert task.answer == str(sum(gcd(n, m) == 1 for n in range(1, limit + 1)))
