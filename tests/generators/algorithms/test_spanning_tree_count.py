"""spanning_tree_count: Kirchhoff's count re-found by sympy's exact determinant over the integers
(every level) and by trying every edge set with networkx's connectivity test (levels 1-3).
(networkx's own floating-point count needs scipy, which the test environment does not install.)"""

from __future__ import annotations

from itertools import combinations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import ZZ
from sympy.polys.matrices import DomainMatrix

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


def sympy_count(n: int, edges: list[list[int]]) -> int:
    """The matrix-tree theorem with sympy's exact integer determinant."""
    lap = [[0] * n for _ in range(n)]
    for a, b in edges:
        lap[a][a] += 1
        lap[b][b] += 1
        lap[a][b] -= 1
        lap[b][a] -= 1
    reduced = [[ZZ(x) for x in row[: n - 1]] for row in lap[: n - 1]]
    return int(DomainMatrix(reduced, (n - 1, n - 1), ZZ).det())


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_sympy_and_networkx_find(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    n, edges, modulus = task.metadata["nodes"], task.metadata["edges"], task.metadata["modulus"]
    count = sympy_count(n, edges)
    assert task.answer == str(count % modulus if modulus else count)
    if level <= 3:
        assert every_edge_set(n, edges) == count
