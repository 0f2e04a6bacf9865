"""josephus: the recurrence re-found by acting out the circle (levels 1-5)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "josephus"


def act_out(n: int, k: int) -> int:
    circle, position = list(range(1, n + 1)), 0
    while len(circle) > 1:
        position = (position + k - 1) % len(circle)
        circle.pop(position)
    return circle[0]


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 5))
@settings(max_examples=40, deadline=None)
def test_the_survivor_is_who_acting_out_the_circle_leaves(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(act_out(task.metadata["people"], task.metadata["step"]))
