"""grid_independent_sets: the transfer DP count re-counted over every set of open cells (levels 1-3)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "grid_independent_sets"


def every_set(grid: list[str]) -> int:
    cells = [(r, c) for r, row in enumerate(grid) for c, cell in enumerate(row) if cell == "."]
    count = 0
    for size in range(len(cells) + 1):
        for chosen in combinations(cells, size):
            picked = set(chosen)
            count += not any((r + 1, c) in picked or (r, c + 1) in picked for r, c in picked)
    return count


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 3))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_trying_every_set_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    count = every_set(task.metadata["grid"])
    modulus = task.metadata["modulus"]
    assert task.answer == str(count % modulus if modulus else count)
