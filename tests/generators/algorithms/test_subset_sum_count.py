"""subset_sum_count: the DP count re-counted over every subset (levels 1-4)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "subset_sum_count"


def every_subset(values: list[int], target: int) -> int:
    return sum(
        sum(chosen) == target for size in range(len(values) + 1) for chosen in combinations(values, size)
    )


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_trying_every_subset_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    count = every_subset(meta["values"], meta["target"])
    assert task.answer == str(count % meta["modulus"] if meta["modulus"] else count)
