"""two_constraint_knapsack: the 2-D DP optimum re-found over every subset (levels 1-6)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "two_constraint_knapsack"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
@settings(max_examples=30, deadline=None)
def test_the_optimum_is_what_trying_every_subset_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    items, wcap, vcap = task.metadata["items"], task.metadata["weight_cap"], task.metadata["volume_cap"]
    best = max(
        sum(t[2] for t in chosen)
        for size in range(len(items) + 1)
        for chosen in combinations(items, size)
        if sum(t[0] for t in chosen) <= wcap and sum(t[1] for t in chosen) <= vcap
    )
    assert task.answer == str(best)
