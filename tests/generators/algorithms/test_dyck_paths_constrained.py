"""dyck_paths_constrained: the DP count re-counted over every up/down sequence (levels 1-3)."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "dyck_paths_constrained"


def every_sequence(pairs: int, ceiling: int, forbidden: set[tuple[int, int]]) -> int:
    count = 0
    for steps in product((1, -1), repeat=2 * pairs):
        height, ok = 0, True
        for x, step in enumerate(steps, start=1):
            height += step
            if not 0 <= height <= ceiling or (x, height) in forbidden:
                ok = False
                break
        count += ok and height == 0
    return count


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 3))
@settings(max_examples=30, deadline=None)
def test_the_count_is_what_trying_every_sequence_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    count = every_sequence(meta["pairs"], meta["ceiling"], {tuple(p) for p in meta["forbidden"]})
    assert task.answer == str(count % meta["modulus"] if meta["modulus"] else count)
