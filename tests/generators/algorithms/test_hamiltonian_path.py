"""hamiltonian_path: the reference is a Hamiltonian path by networkx's edges, and a path found by
an independent search over every ordering (levels 1-3) is paid."""

from __future__ import annotations

from itertools import permutations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "hamiltonian_path"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_reference_is_hamiltonian_and_other_paths_are_paid(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    graph = nx.Graph()
    graph.add_nodes_from(range(task.metadata["nodes"]))
    graph.add_edges_from(map(tuple, task.metadata["edges"]))
    path = [int(v) for v in task.answer.split(" -> ")]
    assert sorted(path) == sorted(graph) and nx.is_path(graph, path)
    if level <= 3:
        other = next(p for p in permutations(sorted(graph)) if nx.is_path(graph, list(p)))
        assert palaestra.verify(task, "<answer>" + " -> ".join(map(str, other)) + "</answer>").correct
        broken = next((p for p in permutations(sorted(graph)) if not nx.is_path(graph, list(p))), None)
        if broken is not None:
            assert not palaestra.verify(
                task, "<answer>" + " -> ".join(map(str, broken)) + "</answer>"
            ).correct
