"""bipartite_matching: the optimum size re-found by networkx (every level) and by trying every
edge subset (levels 1-3); maximum matchings other than the reference are paid, smaller or
invalid ones refused."""

from __future__ import annotations

from itertools import combinations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "bipartite_matching"


def networkx_matching(task: palaestra.Task) -> dict[int, int]:
    graph = nx.Graph()
    workers = range(task.metadata["workers"])
    graph.add_nodes_from(workers)
    graph.add_edges_from(map(tuple, task.metadata["edges"]))
    return nx.bipartite.hopcroft_karp_matching(graph, top_nodes=[w for w in workers if w in graph])


def brute_optimum(edges: list[list[int]]) -> int:
    for size in range(len(edges), 0, -1):
        for chosen in combinations(edges, size):
            ends = [v for e in chosen for v in e]
            if len(set(ends)) == len(ends):
                return size
    return 0


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_optimum_is_what_networkx_finds_and_any_maximum_matching_is_paid(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    matching = networkx_matching(task)
    pairs = sorted((w, j) for w, j in matching.items() if w < task.metadata["workers"])
    assert task.metadata["optimum"] == len(pairs)
    if level <= 3:
        assert brute_optimum(task.metadata["edges"]) == len(pairs)
    text = ", ".join(f"({j}, {w})" for w, j in reversed(pairs))  # networkx's own, written otherwise
    assert palaestra.verify(task, f"<answer>{text}</answer>").correct
    smaller = ", ".join(f"{w}-{j}" for w, j in pairs[:-1])
    assert not palaestra.verify(task, f"<answer>{smaller}</answer>").correct
