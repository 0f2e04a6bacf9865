"""Strongly connected components: how many a directed graph has.

Efficient algorithm: Tarjan's (iterative), O(n + m). The test compares with networkx on every
level. Levels grow the graph; its density stays near the point where components merge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, edge_lines
from palaestra.registry import family


@dataclass(frozen=True)
class SccCountKnobs(Knobs):
    nodes: int = knob(12, low=3, high=300, help="largest graph (sizes drawn from half of it up)")
    out_degree: float = knob(1.3, low=0.3, high=4.0, help="mean number of edges leaving a node")


K = SccCountKnobs
LEVELS = {
    1: K(nodes=5, out_degree=1.2),
    2: K(nodes=8, out_degree=1.2),
    3: K(nodes=12, out_degree=1.3),
    4: K(nodes=16, out_degree=1.3),
    5: K(nodes=22, out_degree=1.3),
    6: K(nodes=30, out_degree=1.4),
    7: K(nodes=40, out_degree=1.4),
    8: K(nodes=52, out_degree=1.4),
    9: K(nodes=66, out_degree=1.5),
    10: K(nodes=84, out_degree=1.5),
}


def count_components(n: int, edges: list[list[int]]) -> tuple[int, int]:
    """Tarjan's algorithm without recursion; the count and the edges examined."""
    successors: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        successors[a].append(b)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    counter = components = work = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        frames = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while frames:
            v, i = frames[-1]
            if i < len(successors[v]):
                frames[-1] = (v, i + 1)
                w = successors[v][i]
                work += 1
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    frames.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            frames.pop()
            if frames:
                parent = frames[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                components += 1
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    if w == v:
                        break
    return components, work + n


@family(
    "scc_count",
    domain="algorithms",
    knobs=SccCountKnobs,
    levels=LEVELS,
    description="Count the strongly connected components of a directed graph.",
    verifier_kind="exact integer",
)
class SccCount(IntegerFamily):
    what = "the number of strongly connected components"
    example = "4"

    def build(self, knobs: SccCountKnobs, rng: np.random.Generator) -> Instance:
        n = int(rng.integers(max(3, knobs.nodes // 2), knobs.nodes + 1))
        count = round(knobs.out_degree * n)
        edges = sorted({(int(a), int(b)) for a, b in rng.integers(0, n, size=(count, 2)) if a != b})
        edge_list = [list(e) for e in edges]
        components, work = count_components(n, edge_list)
        mutual = sum((b, a) in set(edges) for a, b in edges if a < b)
        question = (
            f"A directed graph has nodes 0 to {n - 1} and these edges (a -> b):\n{edge_lines(edge_list, '->')}\n\n"
            "How many strongly connected components does it have (maximal sets of nodes in which every "
            "node can reach every other; a node on its own counts as one)?"
        )
        return Instance(
            question,
            components,
            work=work,
            data={"nodes": n, "edges": edge_list},
            weak=n - mutual,  # only 2-cycles merge nodes: the weak heuristic
            wrong=[n - mutual, components + 1, components - 1],
        )
