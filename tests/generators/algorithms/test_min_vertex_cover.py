"""min_vertex_cover: the optimum re-found by networkx (a maximum clique of the complement, every
level) and by trying every node set (levels 1-4); another minimum cover is paid, a smaller
non-cover and a larger cover refused."""

from __future__ import annotations

from itertools import combinations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "min_vertex_cover"


def graph_of(task: palaestra.Task) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(range(task.metadata["nodes"]))
    graph.add_edges_from(map(tuple, task.metadata["edges"]))
    return graph


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=30, deadline=None)
def test_the_optimum_is_what_networkx_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    graph = graph_of(task)
    clique, _ = nx.max_weight_clique(nx.complement(graph), weight=None)
    assert task.metadata["optimum"] == graph.number_of_nodes() - len(clique)
    other = sorted(set(graph) - set(clique))  # the complement of a maximum independent set
    assert palaestra.verify(task, "<answer>" + ", ".join(map(str, other)) + "</answer>").correct
    if level <= 4:
        n = task.metadata["nodes"]
        smallest = next(
            k
            for k in range(n + 1)
            for s in combinations(range(n), k)
            if all(a in s or b in s for a, b in graph.edges)
        )
        assert smallest == task.metadata["optimum"]
    bigger = sorted(set(other) | {next(iter(clique))})
    assert not palaestra.verify(task, "<answer>" + ", ".join(map(str, bigger)) + "</answer>").correct
