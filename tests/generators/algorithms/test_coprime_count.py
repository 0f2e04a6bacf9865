"""coprime_count: inclusion-exclusion re-found by counting gcds over the range (levels 1-6) and
by sympy's totient on whole periods (every level)."""

from __future__ import annotations

from math import gcd

from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import totient

import palaestra

FAMILY = "coprime_count"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_counting_gcds_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    limit, m = task.metadata["limit"], task.metadata["m"]
    # the coprime residues repeat with period m: whole periods by the totient, the rest by gcds
    periods, rest = divmod(limit, m)
    count = (
        periods * int(totient(m)) + sum(gcd(n, m) == 1 for n in range(1, rest + 1)) if rest <= 10**6 else None
    )
    if count is not None:
        assert task.answer == str(count)
    if level <= 6:
        assert task.answer == str(sum(gcd(n, m) == 1 for n in range(1, limit + 1)))
