"""euler_circuit: the graph is Eulerian by networkx, and networkx's own circuit is paid while a
walk that uses an edge twice is not (every level)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "euler_circuit"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_networkx_circuits_are_paid(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    graph = nx.Graph()
    graph.add_edges_from(map(tuple, task.metadata["edges"]))
    assert nx.is_eulerian(graph) and graph.number_of_nodes() == task.metadata["nodes"]
    start = int(task.metadata["edges"][-1][1])
    walk = [start] + [v for _, v in nx.eulerian_circuit(graph, source=start)]
    assert palaestra.verify(task, "<answer>" + " -> ".join(map(str, walk)) + "</answer>").correct
    reference = [int(v) for v in task.answer.split(" -> ")]
    assert reference[0] == reference[-1] and len(reference) == graph.number_of_edges() + 1
    assert all(graph.has_edge(a, b) for a, b in zip(reference, reference[1:], strict=False))
    twice = walk + walk[1:2] + walk[:1]
    assert not palaestra.verify(task, "<answer>" + " -> ".join(map(str, twice)) + "</answer>").correct
