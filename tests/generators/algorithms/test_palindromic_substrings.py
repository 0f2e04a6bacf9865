"""palindromic_substrings: Manacher's count re-counted substring by substring (every level)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "palindromic_substrings"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_checking_every_substring_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    s = task.metadata["text"]
    count = sum(s[i:j] == s[i:j][::-1] for i in range(len(s)) for j in range(i + 1, len(s) + 1))
    assert task.answer == str(count)
