"""grid_independent_sets: the transfer DP count re-counted by listing every independent set one by
one (a cell-by-cell search that takes a cell only when no taken cell touches it; levels 1-4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "grid_independent_sets"


def every_set(grid: list[str]) -> int:
    cells = [(r, c) for r, row in enumerate(grid) for c, cell in enumerate(row) if cell == "."]
    picked: set[tuple[int, int]] = set()

    def search(i: int) -> int:
        if i == len(cells):
            return 1
        r, c = cells[i]
        total = search(i + 1)  # without this cell
        if not {(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)} & picked:
            picked.add((r, c))
            total += search(i + 1)
            picked.discard((r, c))
        return total

    return search(0)


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_trying_every_set_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    count = every_set(task.metadata["grid"])
    modulus = task.metadata["modulus"]
    assert task.answer == str(count % modulus if modulus else count)
