"""weighted_intervals: the DP optimum re-found over every subset of intervals (levels 1-4)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "weighted_intervals"


def every_subset(intervals: list[list[int]]) -> int:
    best = 0
    for size in range(1, len(intervals) + 1):
        for chosen in combinations(intervals, size):
            if all(a[1] <= b[0] or b[1] <= a[0] for a, b in combinations(chosen, 2)):
                best = max(best, sum(t[2] for t in chosen))
    return best


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_the_optimum_is_what_trying_every_subset_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(every_subset(task.metadata["intervals"]))
