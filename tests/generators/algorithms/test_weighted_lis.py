"""weighted_lis: the Fenwick DP optimum re-found over every subsequence (levels 1-4)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "weighted_lis"


def every_subsequence(values: list[int]) -> int:
    best = 0
    for size in range(1, len(values) + 1):
        for chosen in combinations(values, size):
            if all(a < b for a, b in zip(chosen, chosen[1:], strict=False)):
                best = max(best, sum(chosen))
    return best


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_the_optimum_is_what_trying_every_subsequence_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(every_subsequence(task.metadata["values"]))
