"""articulation_points: the low-link answer re-found by networkx (every level) and by removing
each node in turn (levels 1-5)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "articulation_points"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_cut_vertices_are_what_networkx_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    graph = nx.Graph()
    graph.add_nodes_from(range(task.metadata["nodes"]))
    graph.add_edges_from(map(tuple, task.metadata["edges"]))
    expected = sorted(nx.articulation_points(graph))
    assert task.answer == ", ".join(map(str, expected))
    if level <= 5:
        by_removal = [v for v in graph if not nx.is_connected(graph.subgraph(set(graph) - {v}))]
        assert by_removal == expected
    assert palaestra.verify(task, "<answer>" + ", ".join(map(str, reversed(expected))) + "</answer>").correct
    wrong = expected[:-1] or [v for v in graph if v not in expected][:1]
    assert not palaestra.verify(task, "<answer>" + ", ".join(map(str, wrong)) + "</answer>").correct
