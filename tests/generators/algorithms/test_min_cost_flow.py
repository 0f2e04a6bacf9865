"""min_cost_flow: successive shortest paths re-found by networkx's network simplex (every level)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "min_cost_flow"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_cost_is_what_networkx_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    n, amount = task.metadata["nodes"], task.metadata["amount"]
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n), demand=0)
    graph.nodes[0]["demand"] = -amount
    graph.nodes[n - 1]["demand"] = amount
    for a, b, capacity, cost in task.metadata["arcs"]:
        graph.add_edge(a, b, capacity=capacity, weight=cost)
    flow = nx.min_cost_flow(graph)
    assert task.answer == str(nx.cost_of_flow(graph, flow))
