"""lcs_length: the DP length re-found by trying every subsequence of the shorter string (levels 1-3)."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "lcs_length"


def is_subsequence(small: tuple[str, ...], text: str) -> bool:
    letters = iter(text)
    return all(c in letters for c in small)


def every_subsequence(a: str, b: str) -> int:
    short, long = sorted((a, b), key=len)
    for size in range(len(short), -1, -1):
        if any(is_subsequence(chosen, long) for chosen in combinations(short, size)):
            return size
    return 0


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 3))
@settings(max_examples=40, deadline=None)
def test_the_length_is_what_trying_every_subsequence_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(every_subsequence(task.metadata["a"], task.metadata["b"]))
