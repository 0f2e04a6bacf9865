"""job_deadlines: the greedy optimum re-found over every subset of jobs (levels 1-5); a subset
is feasible when, sorted by deadline, the i-th job's deadline is at least i."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "job_deadlines"


def every_subset(jobs: list[list[int]]) -> int:
    best = 0
    for size in range(1, len(jobs) + 1):
        for chosen in combinations(jobs, size):
            if all(d >= i for i, (d, _) in enumerate(sorted(chosen), start=1)):
                best = max(best, sum(p for _, p in chosen))
    return best


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 5))
@settings(max_examples=30, deadline=None)
def test_the_optimum_is_what_trying_every_subset_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(every_subset(task.metadata["jobs"]))
