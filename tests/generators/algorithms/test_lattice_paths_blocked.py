"""lattice_paths_blocked: the DP count re-counted by walking every path (levels 1-4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "lattice_paths_blocked"


def walk_every_path(grid: list[str]) -> int:
    rows, cols = len(grid), len(grid[0])

    def walk(r: int, c: int) -> int:
        if r >= rows or c >= cols or grid[r][c] == "#":
            return 0
        if (r, c) == (rows - 1, cols - 1):
            return 1
        return walk(r + 1, c) + walk(r, c + 1)

    return walk(0, 0)


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=60, deadline=None)
def test_the_count_is_what_walking_every_path_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    count = walk_every_path(task.metadata["grid"])
    modulus = task.metadata["modulus"]
    assert task.answer == str(count % modulus if modulus else count)
    assert palaestra.verify(task, f"\\boxed{{{task.answer}}}").correct
    assert not palaestra.verify(task, f"<answer>{int(task.answer) + 1}</answer>").correct
