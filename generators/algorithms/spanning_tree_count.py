"""Spanning trees: how many spanning trees a graph has, modulo a prime (Kirchhoff's theorem).

Efficient algorithm: the determinant of a reduced Laplacian by fraction-free (Bareiss)
elimination, O(n^3). The test compares with networkx on every level and counts the spanning
edge sets one by one on the small levels. Levels grow the graph and the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import (
    WEAK_BUDGET,
    Instance,
    IntegerFamily,
    edge_lines,
    modulus_clause,
    random_connected_graph,
    reduce,
)
from palaestra.registry import family


@dataclass(frozen=True)
class SpanningTreeCountKnobs(Knobs):
    nodes: int = knob(7, low=3, high=80, help="number of nodes")
    extra_edges: float = knob(0.8, low=0.0, high=5.0, help="edges beyond a tree, per node")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = SpanningTreeCountKnobs
LEVELS = {
    1: K(nodes=4, extra_edges=0.5, modulus=0),
    2: K(nodes=5, extra_edges=0.6, modulus=0),
    3: K(nodes=7, extra_edges=0.8, modulus=0),
    4: K(nodes=9, extra_edges=1.0, modulus=10007),
    5: K(nodes=12, extra_edges=1.2, modulus=100003),
    6: K(nodes=15, extra_edges=1.4, modulus=1000003),
    7: K(nodes=19, extra_edges=1.6, modulus=998244353),
    8: K(nodes=24, extra_edges=1.8, modulus=998244353),
    9: K(nodes=29, extra_edges=2.0, modulus=1000000007),
    10: K(nodes=35, extra_edges=2.2, modulus=1000000007),
}


def count_spanning_trees(n: int, edges: list[list[int]]) -> tuple[int, int]:
    """Kirchhoff: the determinant of the Laplacian without its last row and column (Bareiss)."""
    lap = [[0] * n for _ in range(n)]
    for a, b in edges:
        lap[a][a] += 1
        lap[b][b] += 1
        lap[a][b] -= 1
        lap[b][a] -= 1
    m = [row[: n - 1] for row in lap[: n - 1]]
    size, previous, sign, work = n - 1, 1, 1, 0
    for k in range(size):
        pivot = next((r for r in range(k, size) if m[r][k]), None)
        if pivot is None:
            return 0, work
        if pivot != k:
            m[k], m[pivot], sign = m[pivot], m[k], -sign
        for i in range(k + 1, size):
            for j in range(k + 1, size):
                m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) // previous  # exact division
                work += 1
        previous = m[k][k]
    return sign * m[size - 1][size - 1] if size else 1, work


@family(
    "spanning_tree_count",
    domain="algorithms",
    knobs=SpanningTreeCountKnobs,
    levels=LEVELS,
    description="Count the spanning trees of a graph (Kirchhoff's theorem), modulo a prime.",
    verifier_kind="exact integer",
)
class SpanningTreeCount(IntegerFamily):
    what = "the count"

    def build(self, knobs: SpanningTreeCountKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.nodes
        while True:
            edges = [list(e) for e in random_connected_graph(rng, n, n + round(knobs.extra_edges * n))]
            exact, work = count_spanning_trees(n, edges)
            if exact > 2:
                break
        question = (
            f"An undirected graph has nodes 0 to {n - 1} and these edges:\n{edge_lines(edges)}\n\n"
            f"How many spanning trees does it have (sets of {n - 1} edges that connect every node)? "
            f"{modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        return Instance(
            question,
            answer,
            work=work + len(edges),
            data={"nodes": n, "edges": edges, "modulus": knobs.modulus},
            weak=answer if exact <= WEAK_BUDGET else None,  # lists the trees by hand
            wrong=[reduce(exact - 1, knobs.modulus), reduce(exact + n, knobs.modulus)],
        )
