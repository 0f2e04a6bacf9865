"""topological_order: any order respecting every prerequisite counts."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

SEEDS = st.integers(0, 2**63 - 1)


@given(seed=SEEDS, level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_every_networkx_order_is_accepted_and_only_those(seed: int, level: int) -> None:
    task = palaestra.make_task("topological_order", seed=seed, level=level)
    graph = nx.DiGraph(task.metadata["edges"])
    graph.add_nodes_from(task.metadata["names"])
    for k, order in enumerate(nx.all_topological_sorts(graph)):
        assert palaestra.verify(task, f"<answer>{' -> '.join(order)}</answer>").correct
        if k == 5:
            break
    assert palaestra.verify(task, "<answer>" + ", ".join(nx.topological_sort(graph)) + "</answer>").correct
    if level >= 3:
        assert not palaestra.verify(task, f"<answer>{' -> '.join(task.metadata['names'])}</answer>").correct


def test_at_least_two_orders_are_valid_above_level_two() -> None:
    for seed in range(20):
        task = palaestra.make_task("topological_order", seed=seed, level=4)
        graph = nx.DiGraph(task.metadata["edges"])
        graph.add_nodes_from(task.metadata["names"])
        orders = nx.all_topological_sorts(graph)
        next(orders)
        next(orders)  # a second valid order exists


def test_missing_unknown_and_broken_orders() -> None:
    task = palaestra.make_task("topological_order", seed=2, level=5)
    order = task.answer.split(" -> ")
    assert "missing" in palaestra.verify(task, f"<answer>{' -> '.join(order[1:])}</answer>").reason
    assert not palaestra.verify(task, f"<answer>{' -> '.join(order[:-1] + ['bogus'])}</answer>").format_ok
    a, b = task.metadata["edges"][0]
    broken = [b if x == a else a if x == b else x for x in order]
    assert (
        f"{a} must come before {b}"
        == palaestra.verify(task, f"<answer>{' -> '.join(broken)}</answer>").reason
    )
