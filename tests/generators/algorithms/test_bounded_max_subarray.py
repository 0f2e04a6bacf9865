"""bounded_max_subarray: the deque optimum re-found over every block (every level)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "bounded_max_subarray"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_optimum_is_what_trying_every_block_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    a, k = task.metadata["values"], task.metadata["window"]
    best = max(sum(a[i:j]) for i in range(len(a)) for j in range(i + 1, min(len(a), i + k) + 1))
    assert task.answer == str(best)
