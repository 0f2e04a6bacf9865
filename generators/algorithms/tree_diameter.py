"""Tree diameter: the heaviest path between two nodes of an edge-weighted tree.

Efficient algorithm: two farthest-node searches, O(n). The test compares with networkx's
all-pairs shortest paths on every level. Levels grow the tree and its weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, edge_lines, random_tree
from palaestra.registry import family


@dataclass(frozen=True)
class TreeDiameterKnobs(Knobs):
    nodes: int = knob(12, low=3, high=500, help="number of nodes")
    max_weight: int = knob(20, low=1, high=10**4, help="weights are drawn from 1..max_weight")


K = TreeDiameterKnobs
LEVELS = {
    1: K(nodes=4, max_weight=9),
    2: K(nodes=6, max_weight=12),
    3: K(nodes=9, max_weight=20),
    4: K(nodes=13, max_weight=30),
    5: K(nodes=18, max_weight=50),
    6: K(nodes=25, max_weight=80),
    7: K(nodes=34, max_weight=100),
    8: K(nodes=46, max_weight=150),
    9: K(nodes=62, max_weight=200),
    10: K(nodes=84, max_weight=300),
}


def farthest(n: int, edges: list[list[int]], start: int) -> tuple[int, int]:
    """The farthest node from ``start`` and its distance."""
    neighbours: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for a, b, w in edges:
        neighbours[a].append((b, w))
        neighbours[b].append((a, w))
    dist = {start: 0}
    stack = [start]
    while stack:
        v = stack.pop()
        for u, w in neighbours[v]:
            if u not in dist:
                dist[u] = dist[v] + w
                stack.append(u)
    node = max(dist, key=lambda v: (dist[v], -v))
    return node, dist[node]


@family(
    "tree_diameter",
    domain="algorithms",
    knobs=TreeDiameterKnobs,
    levels=LEVELS,
    description="The diameter (heaviest path) of an edge-weighted tree.",
    verifier_kind="exact integer (the optimum)",
)
class TreeDiameter(IntegerFamily):
    what = "the diameter"

    def build(self, knobs: TreeDiameterKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.nodes
        edges = [[a, b, int(rng.integers(1, knobs.max_weight + 1))] for a, b in random_tree(rng, n)]
        end, _ = farthest(n, edges, 0)
        _, diameter = farthest(n, edges, end)
        from_zero = farthest(n, edges, 0)[1]  # one search only: the weak heuristic
        question = (
            f"A tree has nodes 0 to {n - 1} and these weighted edges:\n{edge_lines(edges)}\n\n"
            "The length of a path is the sum of its edge weights. What is the largest length of a path "
            "between two nodes of the tree?"
        )
        return Instance(
            question,
            diameter,
            work=2 * n,
            data={"nodes": n, "edges": edges},
            weak=from_zero,
            wrong=[from_zero, diameter - 1, sum(e[2] for e in edges)],
        )
