"""Minimum spanning tree: the total weight of a lightest spanning tree of a weighted graph.

Efficient algorithm: Kruskal's with a union-find, O(m log m). The test compares with networkx on
every level. Levels grow the graph, its density and the weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, edge_lines, random_connected_graph
from palaestra.registry import family


@dataclass(frozen=True)
class MstWeightKnobs(Knobs):
    nodes: int = knob(8, low=3, high=200, help="number of nodes")
    extra_edges: float = knob(1.0, low=0.0, high=5.0, help="edges beyond a tree, per node")
    max_weight: int = knob(20, low=2, high=10**4, help="weights are drawn from 1..max_weight")


K = MstWeightKnobs
LEVELS = {
    1: K(nodes=4, extra_edges=0.5, max_weight=9),
    2: K(nodes=5, extra_edges=0.8, max_weight=12),
    3: K(nodes=7, extra_edges=1.0, max_weight=20),
    4: K(nodes=9, extra_edges=1.2, max_weight=30),
    5: K(nodes=12, extra_edges=1.4, max_weight=50),
    6: K(nodes=16, extra_edges=1.6, max_weight=80),
    7: K(nodes=21, extra_edges=1.8, max_weight=100),
    8: K(nodes=28, extra_edges=2.0, max_weight=150),
    9: K(nodes=36, extra_edges=2.2, max_weight=200),
    10: K(nodes=46, extra_edges=2.5, max_weight=300),
}


def kruskal(n: int, edges: list[list[int]]) -> tuple[int, int]:
    """Weight of a minimum spanning tree; and the union-find steps."""
    parent = list(range(n))
    work = 0

    def root(v: int) -> int:
        nonlocal work
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v, work = parent[v], work + 1
        return v

    total = 0
    for a, b, w in sorted(edges, key=lambda e: (e[2], e[0], e[1])):
        ra, rb = root(a), root(b)
        work += 1
        if ra != rb:
            parent[ra] = rb
            total += w
    return total, work


@family(
    "mst_weight",
    domain="algorithms",
    knobs=MstWeightKnobs,
    levels=LEVELS,
    description="The total weight of a minimum spanning tree of a weighted graph.",
    verifier_kind="exact integer (the optimum)",
)
class MstWeight(IntegerFamily):
    what = "the total weight"

    def build(self, knobs: MstWeightKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.nodes
        pairs = random_connected_graph(rng, n, n - 1 + round(knobs.extra_edges * n))
        edges = [[a, b, int(rng.integers(1, knobs.max_weight + 1))] for a, b in pairs]
        best, work = kruskal(n, edges)
        lightest = sum(sorted(e[2] for e in edges)[: n - 1])  # cycles ignored: the weak heuristic
        question = (
            f"An undirected weighted graph has nodes 0 to {n - 1} and these edges:\n{edge_lines(edges)}\n\n"
            "What is the total weight of a minimum spanning tree?"
        )
        return Instance(
            question,
            best,
            work=work,
            data={"nodes": n, "edges": edges},
            weak=lightest,
            wrong=[lightest, best + 1, sum(e[2] for e in edges)],
        )
