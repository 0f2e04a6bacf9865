"""distinct_subsequences: the DP count re-counted as a set of every subsequence (levels 1-4)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "distinct_subsequences"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_the_count_is_the_size_of_the_set_of_subsequences(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    text = task.metadata["text"]
    found = {"".join(c) for size in range(1, len(text) + 1) for c in combinations(text, size)}
    modulus = task.metadata["modulus"]
    assert task.answer == str(len(found) % modulus if modulus else len(found))
