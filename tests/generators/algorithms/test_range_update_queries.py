"""range_update_queries: the Fenwick answers re-found by replaying the operations on a list (every level)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "range_update_queries"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_sums_are_what_replaying_on_a_list_gives(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    array = list(task.metadata["values"])
    reports = []
    for op in task.metadata["operations"]:
        if op[0] == 1:
            for i in range(op[1] - 1, op[2]):
                array[i] += op[3]
        else:
            reports.append(sum(array[op[1] - 1 : op[2]]))
    assert task.answer == ", ".join(map(str, reports))
    assert palaestra.verify(task, "<answer>" + " ".join(map(str, reports)) + "</answer>").correct
