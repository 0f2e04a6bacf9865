"""coin_change_min: the DP optimum re-found by searching coin counts in increasing total (levels 1-5)."""

from __future__ import annotations

from itertools import combinations_with_replacement

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "coin_change_min"


def fewest_by_search(coins: list[int], amount: int) -> int:
    for count in range(1, amount + 1):
        if any(sum(chosen) == amount for chosen in combinations_with_replacement(coins, count)):
            return count
    raise AssertionError("no way to make the amount")


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 5))
@settings(max_examples=30, deadline=None)
def test_the_optimum_is_what_searching_coin_multisets_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(fewest_by_search(task.metadata["coins"], task.metadata["amount"]))
