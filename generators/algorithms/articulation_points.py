"""Articulation points: the nodes whose removal disconnects a connected graph.

The answer is one set (listed in any order). Efficient algorithm: Tarjan's low-link depth-first
search, O(n + m). The test compares with networkx on every level. Levels grow the graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import (
    adjacency,
    answer_text,
    edge_lines,
    random_connected_graph,
    read_integers,
    tagged,
)
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class ArticulationPointsKnobs(Knobs):
    nodes: int = knob(10, low=4, high=300, help="number of nodes")
    extra_edges: float = knob(0.3, low=0.0, high=3.0, help="edges beyond a spanning tree, per node")


K = ArticulationPointsKnobs
LEVELS = {
    1: K(nodes=5, extra_edges=0.2),
    2: K(nodes=7, extra_edges=0.3),
    3: K(nodes=9, extra_edges=0.35),
    4: K(nodes=12, extra_edges=0.4),
    5: K(nodes=16, extra_edges=0.45),
    6: K(nodes=21, extra_edges=0.5),
    7: K(nodes=27, extra_edges=0.5),
    8: K(nodes=35, extra_edges=0.55),
    9: K(nodes=45, extra_edges=0.55),
    10: K(nodes=58, extra_edges=0.6),
}


def cut_vertices(n: int, edges: list[list[int]]) -> tuple[list[int], int]:
    """Articulation points by low-link DFS (iterative); and the edges examined."""
    neighbours = adjacency(n, edges)
    depth, low = [-1] * n, [0] * n
    cut: set[int] = set()
    work = 0
    depth[0] = 0
    root_children = 0
    stack = [(0, -1, 0)]
    while stack:
        v, parent, i = stack[-1]
        if i < len(neighbours[v]):
            stack[-1] = (v, parent, i + 1)
            u = neighbours[v][i]
            work += 1
            if depth[u] < 0:
                depth[u] = low[u] = depth[v] + 1
                stack.append((u, v, 0))
                root_children += v == 0
            elif u != parent:
                low[v] = min(low[v], depth[u])
            continue
        stack.pop()
        if parent >= 0:
            low[parent] = min(low[parent], low[v])
            if parent != 0 and low[v] >= depth[parent]:
                cut.add(parent)
    if root_children > 1:
        cut.add(0)
    return sorted(cut), work


def leaf_neighbours(n: int, edges: list[list[int]]) -> list[int]:
    """Nodes next to a node of degree 1 (the weak heuristic: blind to bridges between cycles)."""
    neighbours = adjacency(n, edges)
    return sorted(
        {
            neighbours[v][0]
            for v in range(n)
            if len(neighbours[v]) == 1 and len(neighbours[neighbours[v][0]]) > 1
        }
    )


PROMPT = """A connected undirected graph has nodes 0 to {last} and these edges:
{edges}

Which nodes are articulation points (removing the node and its edges leaves the other nodes \
disconnected)? Answer with all of them separated by commas, in any order, for example \
<answer>{example}</answer>."""


@family(
    "articulation_points",
    domain="algorithms",
    knobs=ArticulationPointsKnobs,
    levels=LEVELS,
    description="List the articulation points (cut vertices) of a connected graph.",
    verifier_kind="exact set",
)
class ArticulationPoints(Family):
    def generate(self, knobs: ArticulationPointsKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.nodes
        while True:
            edges = [list(e) for e in random_connected_graph(rng, n, n - 1 + round(knobs.extra_edges * n))]
            cut, work = cut_vertices(n, edges)
            if len(cut) >= 1:
                break
        prompt = PROMPT.format(last=n - 1, edges=edge_lines(edges), example="3, 7")
        metadata = {"nodes": n, "edges": edges, "work": work, "canonical_hash": content_hash([n, edges])}
        return TaskDraft(prompt, ", ".join(map(str, cut)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("nodes", "articulation points"))
        if isinstance(text, Verdict):
            return text
        if "->" in text:
            return Verdict.bad_format("answer with node numbers separated by commas")
        nodes = read_integers(text)
        if nodes is None:
            return Verdict.bad_format("answer with node numbers separated by commas")
        if len(set(nodes)) != len(nodes):
            return Verdict.wrong("a node is listed twice", parsed=nodes)
        expected = {int(v) for v in task.answer.split(", ")}
        if set(nodes) != expected:
            return Verdict.wrong(
                f"missing {sorted(expected - set(nodes))}, not cut vertices {sorted(set(nodes) - expected)}",
                parsed=nodes,
            )
        return Verdict.right(parsed=nodes)

    def solve_exact(self, task: Task) -> SolverRun:
        """Low-link depth-first search (effort: edges examined)."""
        cut, work = cut_vertices(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(", ".join(map(str, cut))), float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Only the nodes next to a leaf."""
        guess = leaf_neighbours(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(", ".join(map(str, guess)) or "none"), float(len(task.metadata["edges"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        cut = [int(v) for v in task.answer.split(", ")]
        outside = [v for v in range(task.metadata["nodes"]) if v not in cut]
        wrong = [cut[:-1], cut + outside[:1], cut + cut[:1], outside[:2]]
        return [tagged(", ".join(map(str, w))) for w in wrong if w] + ["<answer>none</answer>"]
