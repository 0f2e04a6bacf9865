"""scc_count: Tarjan's count re-found by networkx (every level)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "scc_count"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_networkx_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(task.metadata["nodes"]))
    graph.add_edges_from(map(tuple, task.metadata["edges"]))
    assert task.answer == str(nx.number_strongly_connected_components(graph))
