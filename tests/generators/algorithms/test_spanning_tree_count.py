"""spanning_tree_count: Kirchhoff's count re-found by networkx on every level and by trying
every edge set on levels 1-3."""

from __future__ import annotations

from itertools import combinations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "spanning_tree_count"


def every_edge_set(n: int, edges: list[list[int]]) -> int:
    count = 0
    for chosen in combinations(edges, n - 1):
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from(map(tuple, chosen))
        count += nx.is_connected(graph)
    return count


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_networkx_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    graph = nx.Graph()
    graph.add_edges_from(map(tuple, task.metadata["edges"]))
    count = round(nx.number_of_spanning_trees(graph))
    if level <= 3:
        assert count == every_edge_set(task.metadata["nodes"], task.metadata["edges"])
    modulus = task.metadata["modulus"]
    if level <= 6:  # float rounding of networkx's determinant is exact below ~1e12
        assert task.answer == str(count % modulus if modulus else count)
