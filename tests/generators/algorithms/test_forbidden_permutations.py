"""forbidden_permutations: the subset DP count re-counted over every permutation (levels 1-6)."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "forbidden_permutations"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
@settings(max_examples=30, deadline=None)
def test_the_count_is_what_trying_every_permutation_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    n = task.metadata["people"]
    refused = {tuple(pair) for pair in task.metadata["refused"]}
    count = sum(
        all((person, seat) not in refused for person, seat in enumerate(perm, start=1))
        for perm in permutations(range(1, n + 1))
    )
    modulus = task.metadata["modulus"]
    assert task.answer == str(count % modulus if modulus else count)
