"""stack_sort_pass: the stack simulation re-derived from the recursive definition
S(L n R) = S(L) S(R) n, with n the largest entry (every level)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "stack_sort_pass"


def recursive_sort(values: list[int]) -> list[int]:
    if not values:
        return []
    i = values.index(max(values))
    return recursive_sort(values[:i]) + recursive_sort(values[i + 1 :]) + [values[i]]


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_output_is_what_the_recursive_definition_gives(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    out = task.metadata["values"]
    for _ in range(task.metadata["passes"]):
        out = recursive_sort(out)
    assert task.answer == " ".join(map(str, out))
    assert palaestra.verify(task, "<answer>" + ", ".join(map(str, out)) + "</answer>").correct
