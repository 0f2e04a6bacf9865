"""matrix_chain: the interval DP optimum re-found over every parenthesisation (levels 1-6)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "matrix_chain"


def every_order(dims: list[int], i: int, j: int) -> list[int]:
    """The cost of every parenthesisation of matrices i..j (no memo: all of them)."""
    if i == j:
        return [0]
    return [
        left + right + dims[i] * dims[k + 1] * dims[j + 1]
        for k in range(i, j)
        for left in every_order(dims, i, k)
        for right in every_order(dims, k + 1, j)
    ]


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
@settings(max_examples=40, deadline=None)
def test_the_optimum_is_what_trying_every_order_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    dims = task.metadata["dims"]
    assert task.answer == str(min(every_order(dims, 0, len(dims) - 2)))
