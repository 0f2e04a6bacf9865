"""mst_weight: Kruskal's total re-found by networkx (every level)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "mst_weight"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_weight_is_what_networkx_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    graph = nx.Graph()
    graph.add_weighted_edges_from(map(tuple, task.metadata["edges"]))
    tree = nx.minimum_spanning_tree(graph, algorithm="prim")
    assert task.answer == str(int(tree.size(weight="weight")))
