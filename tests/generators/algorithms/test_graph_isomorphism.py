"""graph_isomorphism: the reference mapping checked edge by edge, and networkx's VF2 mapping
(usually a different one) paid too (every level)."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "graph_isomorphism"


def graphs(task: palaestra.Task) -> tuple[nx.Graph, nx.Graph]:
    n = task.metadata["nodes"]
    g, h = nx.Graph(), nx.Graph()
    g.add_nodes_from(range(n))
    h.add_nodes_from(range(n))
    g.add_edges_from(map(tuple, task.metadata["g_edges"]))
    h.add_edges_from(map(tuple, task.metadata["h_edges"]))
    return g, h


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_reference_and_networkx_mappings_are_isomorphisms(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    g, h = graphs(task)
    reference = {int(a): int(b) for a, b in (p.split("->") for p in task.answer.split(", "))}
    assert nx.is_isomorphic(nx.relabel_nodes(g, reference), h) and nx.utils.graphs_equal(
        nx.relabel_nodes(g, reference), h
    )
    vf2 = next(nx.isomorphism.GraphMatcher(g, h).isomorphisms_iter())
    text = ", ".join(f"{a}->{vf2[a]}" for a in sorted(vf2))
    assert palaestra.verify(task, f"<answer>{text}</answer>").correct
    # a non-isomorphism: two images swapped so that an edge is lost
    for a in range(task.metadata["nodes"]):
        for b in range(a + 1, task.metadata["nodes"]):
            swapped = dict(vf2)
            swapped[a], swapped[b] = swapped[b], swapped[a]
            if not nx.utils.graphs_equal(nx.relabel_nodes(g, swapped), h):
                bad = ", ".join(f"{x}->{swapped[x]}" for x in sorted(swapped))
                assert not palaestra.verify(task, f"<answer>{bad}</answer>").correct
                return
