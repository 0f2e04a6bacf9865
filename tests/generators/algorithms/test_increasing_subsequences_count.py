"""increasing_subsequences_count: the Fenwick count re-counted over every subsequence (levels 1-4)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "increasing_subsequences_count"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_trying_every_subsequence_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    values = task.metadata["values"]
    count = sum(
        all(a < b for a, b in zip(chosen, chosen[1:], strict=False))
        for size in range(1, len(values) + 1)
        for chosen in combinations(values, size)
    )
    modulus = task.metadata["modulus"]
    assert task.answer == str(count % modulus if modulus else count)
