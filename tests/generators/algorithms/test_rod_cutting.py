"""rod_cutting: the DP optimum re-found over every way to cut the rod (levels 1-5)."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "rod_cutting"


def every_cut(prices: list[int]) -> int:
    n = len(prices)
    best = 0
    for cuts in product((False, True), repeat=n - 1):  # a cut after each unit or not
        pieces, run = [], 1
        for cut in cuts:
            if cut:
                pieces.append(run)
                run = 1
            else:
                run += 1
        pieces.append(run)
        best = max(best, sum(prices[p - 1] for p in pieces))
    return best


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 5))
@settings(max_examples=40, deadline=None)
def test_the_optimum_is_what_trying_every_cut_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(every_cut(task.metadata["prices"]))
