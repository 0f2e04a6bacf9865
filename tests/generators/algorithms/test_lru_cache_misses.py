"""lru_cache_misses: the ordered-dict simulation re-found with a list kept in recency order (every level)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "lru_cache_misses"


def replay(requests: list[int], capacity: int) -> int:
    recency: list[int] = []  # most recent last
    misses = 0
    for page in requests:
        if page in recency:
            recency.remove(page)
        else:
            misses += 1
            if len(recency) == capacity:
                recency.pop(0)
        recency.append(page)
    return misses


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_misses_are_what_a_recency_list_gives(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(replay(task.metadata["requests"], task.metadata["capacity"]))
