"""tree_diameter: the two-search diameter re-found from networkx's all-pairs distances (every level)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "tree_diameter"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=30, deadline=None)
def test_the_diameter_is_what_networkx_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    tree = nx.Graph()
    tree.add_weighted_edges_from(map(tuple, task.metadata["edges"]))
    assert nx.is_tree(tree)
    lengths = dict(nx.all_pairs_dijkstra_path_length(tree))
    assert task.answer == str(max(d for row in lengths.values() for d in row.values()))
