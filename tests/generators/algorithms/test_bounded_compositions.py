"""bounded_compositions: the DP count re-counted over every sequence (levels 1-4)."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "bounded_compositions"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_listing_every_sequence_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    ranges = [range(lo, hi + 1) for lo, hi in meta["bounds"]]
    count = sum(sum(seq) == meta["total"] for seq in product(*ranges))
    assert task.answer == str(count % meta["modulus"] if meta["modulus"] else count)
