"""Minimum vertex cover: the fewest nodes touching every edge of a graph.

Many covers can be minimum: the verifier checks that the answer covers every edge and has the
proven optimum size. Efficient algorithm: branch and bound (take the highest-degree node, or all
of its neighbours; bound by a greedy matching). The test proves the optimum with networkx's exact
maximum clique of the complement on every level and by trying every node set on the small levels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import (
    answer_text,
    edge_lines,
    random_graph,
    read_integers,
    tagged,
)
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class MinVertexCoverKnobs(Knobs):
    nodes: int = knob(10, low=3, high=60, help="number of nodes")
    degree: float = knob(2.5, low=0.5, high=8.0, help="mean node degree")


K = MinVertexCoverKnobs
LEVELS = {
    1: K(nodes=5, degree=1.8),
    2: K(nodes=6, degree=2.0),
    3: K(nodes=8, degree=2.4),
    4: K(nodes=10, degree=2.6),
    5: K(nodes=13, degree=2.8),
    6: K(nodes=16, degree=3.0),
    7: K(nodes=20, degree=3.0),
    8: K(nodes=24, degree=3.2),
    9: K(nodes=29, degree=3.2),
    10: K(nodes=34, degree=3.4),
}

Graph = dict[int, frozenset[int]]


def _without(graph: Graph, removed: set[int]) -> Graph:
    return {v: frozenset(graph[v] - removed) for v in graph if v not in removed}


def _matching_bound(graph: Graph) -> int:
    """Size of a greedy maximal matching: every cover has at least that many nodes."""
    used: set[int] = set()
    for v in sorted(graph):
        for u in sorted(graph[v]):
            if v not in used and u not in used:
                used |= {u, v}
    return len(used) // 2


def minimum_cover(n: int, edges: list[list[int]]) -> tuple[list[int], int]:
    """A minimum vertex cover (sorted) by branch and bound; and the branches explored."""
    graph: Graph = {v: frozenset() for v in range(n)}
    for a, b in edges:
        graph[a] |= {b}
        graph[b] |= {a}
    best = greedy_cover(n, edges)
    work = 0

    def branch(g: Graph, chosen: list[int]) -> None:
        nonlocal best, work
        work += 1
        g = {v: nb for v, nb in g.items() if nb}  # isolated nodes need no cover
        if not g:
            if len(chosen) < len(best):
                best = sorted(chosen)
            return
        if len(chosen) + _matching_bound(g) >= len(best):
            return
        v = max(g, key=lambda x: (len(g[x]), -x))
        branch(_without(g, {v}), chosen + [v])
        branch(_without(g, set(g[v])), chosen + sorted(g[v]))

    branch(graph, [])
    return best, work


def greedy_cover(n: int, edges: list[list[int]]) -> list[int]:
    """Repeatedly take the node touching the most uncovered edges (the weak heuristic)."""
    left = [tuple(e) for e in edges]
    chosen: list[int] = []
    while left:
        degree = [0] * n
        for a, b in left:
            degree[a] += 1
            degree[b] += 1
        v = max(range(n), key=lambda x: (degree[x], -x))
        chosen.append(v)
        left = [e for e in left if v not in e]
    return sorted(chosen)


PROMPT = """An undirected graph has nodes 0 to {last} and these edges:
{edges}

Choose as few nodes as possible so that every edge has at least one of its two ends chosen (a \
minimum vertex cover). Any cover of that smallest size is accepted. Answer with the chosen nodes \
separated by commas, for example <answer>{example}</answer>."""


@family(
    "min_vertex_cover",
    domain="algorithms",
    knobs=MinVertexCoverKnobs,
    levels=LEVELS,
    description="A minimum vertex cover of a graph (any cover of the proven optimum size is accepted).",
    verifier_kind="constraint check + proven optimum size",
)
class MinVertexCover(Family):
    def generate(self, knobs: MinVertexCoverKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.nodes
        edges = [list(e) for e in random_graph(rng, n, max(2, round(knobs.degree * n / 2)))]
        cover, work = minimum_cover(n, edges)
        prompt = PROMPT.format(last=n - 1, edges=edge_lines(edges), example="0, 2, 5")
        metadata = {
            "nodes": n,
            "edges": edges,
            "optimum": len(cover),
            "work": work,
            "canonical_hash": content_hash([n, edges]),
        }
        return TaskDraft(prompt, ", ".join(map(str, cover)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("cover", "nodes"))
        if isinstance(text, Verdict):
            return text
        nodes = read_integers(text)
        if nodes is None:
            return Verdict.bad_format("answer with node numbers separated by commas")
        if len(set(nodes)) != len(nodes):
            return Verdict.wrong("a node is listed twice", parsed=nodes)
        if any(not 0 <= v < task.metadata["nodes"] for v in nodes):
            return Verdict.wrong("a listed node is not in the graph", parsed=nodes)
        chosen = set(nodes)
        for a, b in task.metadata["edges"]:
            if a not in chosen and b not in chosen:
                return Verdict.wrong(f"edge {a}-{b} is not covered", parsed=nodes)
        if len(nodes) != task.metadata["optimum"]:
            return Verdict.wrong(f"{len(nodes)} nodes; a smaller cover exists", parsed=nodes)
        return Verdict.right(parsed=nodes)

    def solve_exact(self, task: Task) -> SolverRun:
        """Branch and bound (effort: branches explored)."""
        cover, work = minimum_cover(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(", ".join(map(str, cover))), float(work) + len(task.metadata["edges"]))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy highest degree first: a cover, minimum only sometimes."""
        cover = greedy_cover(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(", ".join(map(str, cover))), float(len(cover)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        cover = [int(v) for v in task.answer.split(", ")]
        outside = [v for v in range(task.metadata["nodes"]) if v not in cover]
        wrong = [
            cover[:-1],  # an edge left uncovered (the cover is minimum, so no node is spare)
            sorted(cover + outside[:1]) if outside else cover + cover[:1],  # one node too many
            cover + cover[:1],  # a node twice
        ]
        covers = all(a in outside or b in outside for a, b in task.metadata["edges"])
        if outside and not (covers and len(outside) == len(cover)):
            wrong.append(outside)  # the complement, when it is not another minimum cover
        return [tagged(", ".join(map(str, w))) for w in wrong if w] + [tagged(task.metadata["nodes"])]
