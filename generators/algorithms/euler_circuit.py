"""Euler circuit: a closed walk that uses every edge of a graph exactly once.

Many circuits exist: the verifier checks that the walk is closed, follows edges, and uses each
edge exactly once. Efficient algorithm: Hierholzer's, O(m). The test checks the graph is
Eulerian with networkx and that networkx's own circuit is paid, on every level.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import adjacency, answer_text, edge_lines, read_integers, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class EulerCircuitKnobs(Knobs):
    nodes: int = knob(8, low=3, high=100, help="number of nodes")
    edges: int = knob(14, low=3, high=400, help="target number of edges (a union of cycles)")


K = EulerCircuitKnobs
LEVELS = {
    1: K(nodes=4, edges=5),
    2: K(nodes=6, edges=8),
    3: K(nodes=8, edges=13),
    4: K(nodes=9, edges=16),
    5: K(nodes=11, edges=21),
    6: K(nodes=13, edges=27),
    7: K(nodes=16, edges=34),
    8: K(nodes=20, edges=45),
    9: K(nodes=25, edges=58),
    10: K(nodes=30, edges=75),
}


def draw_eulerian(rng: np.random.Generator, n: int, target: int) -> list[list[int]]:
    """A connected simple graph on all n nodes that is a union of edge-disjoint cycles."""
    while True:
        edges: set[tuple[int, int]] = set()
        for _ in range(200):
            if len(edges) >= target:
                break
            size = int(rng.integers(3, n + 1))
            ring = [int(v) for v in rng.choice(n, size=size, replace=False)]
            cycle = {(min(a, b), max(a, b)) for a, b in zip(ring, ring[1:] + ring[:1], strict=True)}
            if not cycle & edges:
                edges |= cycle
        graph = sorted(list(e) for e in edges)
        seen, stack, neighbours = {0}, [0], adjacency(n, graph)
        while stack:
            for u in neighbours[stack.pop()]:
                if u not in seen:
                    seen.add(u)
                    stack.append(u)
        if len(seen) == n:
            return graph


def hierholzer(n: int, edges: list[list[int]]) -> tuple[list[int], int]:
    """An Euler circuit from node 0 (smallest unused neighbour first); and the edge steps."""
    unused: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for i, (a, b) in enumerate(edges):
        unused[a].append((b, i))
        unused[b].append((a, i))
    for options in unused:
        options.sort(reverse=True)  # pop() gives the smallest neighbour
    done = [False] * len(edges)
    stack, circuit, work = [0], [], 0
    while stack:
        v = stack[-1]
        while unused[v] and done[unused[v][-1][1]]:
            unused[v].pop()
        if unused[v]:
            u, i = unused[v].pop()
            done[i] = True
            stack.append(u)
            work += 1
        else:
            circuit.append(stack.pop())
    return circuit[::-1], work


def greedy_walk(n: int, edges: list[list[int]]) -> list[int]:
    """Walk from 0 to the smallest unused neighbour until stuck (the weak heuristic, no splicing)."""
    left = Counter(tuple(e) for e in edges)
    walk = [0]
    while True:
        v = walk[-1]
        options = sorted(u for u in range(n) if left[(min(u, v), max(u, v))])
        if not options:
            return walk
        left[(min(options[0], v), max(options[0], v))] -= 1
        walk.append(options[0])


PROMPT = """An undirected graph has nodes 0 to {last} and these {count} edges:
{edges}

Every node has even degree and the graph is connected. Give a closed walk that uses every edge \
exactly once (an Euler circuit): a list of nodes, starting and ending at the same node, in which \
consecutive nodes are joined by an edge. Any such circuit is accepted. Answer with the nodes \
separated by "->", for example <answer>{example}</answer>."""


@family(
    "euler_circuit",
    domain="algorithms",
    knobs=EulerCircuitKnobs,
    levels=LEVELS,
    description="An Euler circuit of a connected even graph (any circuit using each edge once is accepted).",
    verifier_kind="constraint check (each edge exactly once, closed walk)",
)
class EulerCircuit(Family):
    def generate(self, knobs: EulerCircuitKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.nodes
        edges = draw_eulerian(rng, n, knobs.edges)
        circuit, work = hierholzer(n, edges)
        prompt = PROMPT.format(
            last=n - 1, count=len(edges), edges=edge_lines(edges), example="0 -> 2 -> 1 -> 0"
        )
        metadata = {"nodes": n, "edges": edges, "work": work, "canonical_hash": content_hash([n, edges])}
        return TaskDraft(prompt, " -> ".join(map(str, circuit)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("circuit",))
        if isinstance(text, Verdict):
            return text
        walk = read_integers(text)
        if walk is None or len(walk) < 2:
            return Verdict.bad_format('answer with node numbers separated by "->"')
        if walk[0] != walk[-1]:
            return Verdict.wrong("the walk does not end where it starts", parsed=walk)
        used = Counter((min(a, b), max(a, b)) for a, b in zip(walk, walk[1:], strict=False))
        edges = Counter(tuple(e) for e in task.metadata["edges"])
        if used != edges:
            extra = sorted((used - edges).keys())[:3]
            missing = sorted((edges - used).keys())[:3]
            return Verdict.wrong(
                f"not each edge once: not edges or repeated {extra}, unused {missing}", parsed=walk
            )
        return Verdict.right(parsed=walk)

    def solve_exact(self, task: Task) -> SolverRun:
        """Hierholzer's algorithm (effort: edge steps)."""
        circuit, work = hierholzer(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(" -> ".join(map(str, circuit))), float(work) + 1)

    def solve_weak(self, task: Task) -> SolverRun:
        """Walks greedily without splicing in the cycles it missed."""
        walk = greedy_walk(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(" -> ".join(map(str, walk))), float(len(walk)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        walk = [int(v) for v in task.answer.split(" -> ")]
        wrong = [
            walk[:-1],  # not closed
            walk[:-2] + walk[-1:],  # an edge skipped
            walk + walk[1:2] + walk[:1],  # an edge used again
            walk[::2] + walk[-1:],  # jumps that are no edges
        ]
        return [tagged(" -> ".join(map(str, w))) for w in wrong if len(w) >= 2 and w != walk]
