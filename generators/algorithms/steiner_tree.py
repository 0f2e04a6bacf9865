"""Steiner tree: the lightest tree in a weighted graph that connects a set of terminal nodes.

Efficient algorithm: Dreyfus-Wagner, a DP over terminal subsets, O(3^k n + 2^k n^2) after
all-pairs shortest paths. The test tries every set of extra nodes (minimum spanning tree of the
terminals plus that set, by networkx) on the small levels. Levels grow the graph and terminals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, edge_lines, random_connected_graph
from palaestra.registry import family

INFINITY = float("inf")


@dataclass(frozen=True)
class SteinerTreeKnobs(Knobs):
    nodes: int = knob(10, low=3, high=60, help="number of nodes")
    terminals: int = knob(4, low=2, high=8, help="number of terminals to connect")
    extra_edges: float = knob(1.0, low=0.0, high=4.0, help="edges beyond a tree, per node")


K = SteinerTreeKnobs
LEVELS = {
    1: K(nodes=5, terminals=3, extra_edges=0.6),
    2: K(nodes=6, terminals=3, extra_edges=0.8),
    3: K(nodes=8, terminals=3, extra_edges=1.0),
    4: K(nodes=10, terminals=4, extra_edges=1.0),
    5: K(nodes=12, terminals=4, extra_edges=1.2),
    6: K(nodes=14, terminals=5, extra_edges=1.2),
    7: K(nodes=16, terminals=5, extra_edges=1.4),
    8: K(nodes=18, terminals=5, extra_edges=1.4),
    9: K(nodes=20, terminals=6, extra_edges=1.5),
    10: K(nodes=22, terminals=6, extra_edges=1.5),
}


def all_pairs(n: int, edges: list[list[int]]) -> list[list[float]]:
    dist = [[0.0 if i == j else INFINITY for j in range(n)] for i in range(n)]
    for a, b, w in edges:
        dist[a][b] = dist[b][a] = min(dist[a][b], w)
    for k in range(n):
        row_k = dist[k]
        for i in range(n):
            dik = dist[i][k]
            if dik == INFINITY:
                continue
            row_i = dist[i]
            for j in range(n):
                if dik + row_k[j] < row_i[j]:
                    row_i[j] = dik + row_k[j]
    return dist


def dreyfus_wagner(n: int, edges: list[list[int]], terminals: list[int]) -> tuple[int, int]:
    """Weight of a minimum Steiner tree; and the DP steps."""
    dist = all_pairs(n, edges)
    k = len(terminals)
    best = [[INFINITY] * n for _ in range(1 << k)]
    for i, t in enumerate(terminals):
        best[1 << i] = list(dist[t])
    work = n**3
    for mask in range(1, 1 << k):
        if mask & (mask - 1) == 0:
            continue
        row = best[mask]
        low = mask & -mask
        sub = (mask - 1) & mask
        while sub:
            if sub & low:  # each split once
                a, b = best[sub], best[mask ^ sub]
                for v in range(n):
                    if a[v] + b[v] < row[v]:
                        row[v] = a[v] + b[v]
                work += n
            sub = (sub - 1) & mask
        for v in range(n):  # attach the tree at the best node u, reached from v by a path
            row[v] = min(row[u] + dist[u][v] for u in range(n))
        work += n * n
    return int(best[(1 << k) - 1][terminals[0]]), work


def terminal_mst(dist: list[list[float]], terminals: list[int]) -> int:
    """Minimum spanning tree over the terminals' shortest-path distances (the 2-approximation)."""
    inside, total = {terminals[0]}, 0.0
    while len(inside) < len(terminals):
        w, t = min((dist[a][b], b) for a in inside for b in terminals if b not in inside)
        inside.add(t)
        total += w
    return int(total)


@family(
    "steiner_tree",
    domain="algorithms",
    knobs=SteinerTreeKnobs,
    levels=LEVELS,
    description="The weight of a minimum Steiner tree connecting terminal nodes of a weighted graph.",
    verifier_kind="exact integer (the optimum)",
)
class SteinerTree(IntegerFamily):
    what = "the smallest total weight"

    def build(self, knobs: SteinerTreeKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.nodes
        pairs = random_connected_graph(rng, n, n - 1 + round(knobs.extra_edges * n))
        edges = [[a, b, int(rng.integers(1, 21))] for a, b in pairs]
        terminals = sorted(int(v) for v in rng.choice(n, size=min(knobs.terminals, n), replace=False))
        best, work = dreyfus_wagner(n, edges, terminals)
        approx = terminal_mst(all_pairs(n, edges), terminals)
        question = (
            f"An undirected weighted graph has nodes 0 to {n - 1} and these edges:\n{edge_lines(edges)}\n\n"
            f"Choose edges that connect all of the nodes {', '.join(map(str, terminals))} to each other "
            "(other nodes may be used too), with the smallest total weight. What is that smallest total weight?"
        )
        return Instance(
            question,
            best,
            work=work,
            data={"nodes": n, "edges": edges, "terminals": terminals},
            weak=approx,
            wrong=[approx, best + 1, best - 1],
        )
