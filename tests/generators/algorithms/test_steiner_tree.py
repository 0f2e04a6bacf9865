"""steiner_tree: the Dreyfus-Wagner optimum re-found by trying every set of extra nodes and
taking networkx's minimum spanning tree of the terminals plus that set (levels 1-6)."""

from __future__ import annotations

from itertools import combinations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "steiner_tree"


def every_node_set(task: palaestra.Task) -> int:
    graph = nx.Graph()
    for a, b, w in task.metadata["edges"]:
        graph.add_edge(a, b, weight=w)
    terminals = task.metadata["terminals"]
    others = [v for v in graph if v not in terminals]
    best = None
    for size in range(len(others) + 1):
        for extra in combinations(others, size):
            sub = graph.subgraph([*terminals, *extra])
            if nx.is_connected(sub):
                weight = nx.minimum_spanning_tree(sub).size(weight="weight")
                best = weight if best is None else min(best, weight)
    return int(best)


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
@settings(max_examples=30, deadline=None)
def test_the_optimum_is_what_trying_every_node_set_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert task.answer == str(every_node_set(task))
