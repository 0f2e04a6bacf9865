"""inversion_count: merge-sort counting re-counted pair by pair (every level)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "inversion_count"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=60, deadline=None)
def test_the_count_is_the_number_of_pairs_out_of_order(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    a = task.metadata["values"]
    pairs = sum(a[i] > a[j] for i in range(len(a)) for j in range(i + 1, len(a)))
    assert task.answer == str(pairs)
