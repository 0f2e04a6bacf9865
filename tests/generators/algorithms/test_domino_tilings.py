"""domino_tilings: the profile DP count re-counted by recursive tiling search (levels 1-4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "domino_tilings"


def tile(board: list[str]) -> int:
    height, width = len(board), len(board[0])
    covered = [[cell == "#" for cell in row] for row in board]

    def search() -> int:
        for r in range(height):
            for c in range(width):
                if not covered[r][c]:
                    total = 0
                    for dr, dc in ((0, 1), (1, 0)):
                        rr, cc = r + dr, c + dc
                        if rr < height and cc < width and not covered[rr][cc]:
                            covered[r][c] = covered[rr][cc] = True
                            total += search()
                            covered[r][c] = covered[rr][cc] = False
                    return total
        return 1

    return search()


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_tiling_by_search_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    count = tile(task.metadata["board"])
    modulus = task.metadata["modulus"]
    assert task.answer == str(count % modulus if modulus else count)
