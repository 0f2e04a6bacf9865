"""Hamiltonian path: a path that visits every node of a graph exactly once.

Graphs hold a hidden Hamiltonian path plus random extra edges, so one exists; any Hamiltonian
path is accepted and the verifier checks that the answer visits every node once along edges.
Efficient algorithm: depth-first backtracking that tries the neighbour with the fewest onward
options first (Warnsdorff's rule) and prunes when an unvisited node is cut off. The test checks
the reference with networkx and pays a path found by an independent search over every ordering
on levels 1-3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import adjacency, answer_text, edge_lines, read_integers, tagged
from palaestra.registry import Family, SolverRun, TaskDraft, family

SEARCH_BUDGET = 200_000  # nodes expanded before the search gives up (never reached on these sizes)


@dataclass(frozen=True)
class HamiltonianPathKnobs(Knobs):
    nodes: int = knob(8, low=3, high=60, help="number of nodes")
    extra_edges: float = knob(0.6, low=0.0, high=4.0, help="edges beyond the hidden path, per node")


K = HamiltonianPathKnobs
LEVELS = {
    1: K(nodes=4, extra_edges=0.5),
    2: K(nodes=6, extra_edges=0.6),
    3: K(nodes=8, extra_edges=0.8),
    4: K(nodes=10, extra_edges=0.9),
    5: K(nodes=12, extra_edges=1.0),
    6: K(nodes=15, extra_edges=1.0),
    7: K(nodes=18, extra_edges=1.1),
    8: K(nodes=21, extra_edges=1.1),
    9: K(nodes=24, extra_edges=1.2),
    10: K(nodes=28, extra_edges=1.2),
}


def find_path(n: int, edges: list[list[int]]) -> tuple[list[int] | None, int]:
    """A Hamiltonian path by backtracking with Warnsdorff ordering; and the nodes expanded."""
    neighbours = [set(a) for a in adjacency(n, edges)]
    work = 0

    def extend(path: list[int], visited: set[int]) -> list[int] | None:
        nonlocal work
        work += 1
        if len(path) == n:
            return path
        if work > SEARCH_BUDGET:
            return None
        last = path[-1]
        options = sorted(neighbours[last] - visited, key=lambda u: (len(neighbours[u] - visited), u))
        for u in options:
            visited.add(u)
            path.append(u)
            # an unvisited node with no unvisited neighbour left can only be the path's end
            stranded = [w for w in neighbours[u] - visited if not neighbours[w] - visited - {u}]
            if len(stranded) <= 1:
                found = extend(path, visited)
                if found:
                    return found
            path.pop()
            visited.discard(u)
        return None

    starts = sorted(range(n), key=lambda v: (len(neighbours[v]), v))
    for start in starts:
        found = extend([start], {start})
        if found:
            return list(found), work
    return None, work


def greedy_walk(n: int, edges: list[list[int]]) -> list[int]:
    """From the lowest-degree node, always to the smallest unvisited neighbour, never backing up
    (the weak heuristic)."""
    neighbours = [set(a) for a in adjacency(n, edges)]
    path = [min(range(n), key=lambda v: (len(neighbours[v]), v))]
    visited = set(path)
    while True:
        options = sorted(neighbours[path[-1]] - visited)
        if not options:
            return path
        path.append(options[0])
        visited.add(options[0])


PROMPT = """An undirected graph has nodes 0 to {last} and these edges:
{edges}

Give a path that visits every node exactly once, moving only along edges (a Hamiltonian path; it \
may start and end anywhere). Any such path is accepted. Answer with the nodes in order separated \
by "->", for example <answer>{example}</answer>."""


@family(
    "hamiltonian_path",
    domain="algorithms",
    knobs=HamiltonianPathKnobs,
    levels=LEVELS,
    description="A Hamiltonian path of a graph (any path visiting every node once is accepted).",
    verifier_kind="constraint check (every node once, along edges)",
)
class HamiltonianPath(Family):
    def generate(self, knobs: HamiltonianPathKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.nodes
        hidden = [int(v) for v in rng.permutation(n)]
        edges = {(min(a, b), max(a, b)) for a, b in zip(hidden, hidden[1:], strict=False)}
        target = min(n * (n - 1) // 2, len(edges) + round(knobs.extra_edges * n))
        while len(edges) < target:
            a, b = (int(v) for v in rng.integers(0, n, size=2))
            if a != b:
                edges.add((min(a, b), max(a, b)))
        edge_list = sorted(list(e) for e in edges)
        path, work = find_path(n, edge_list)
        if path is None:  # the search budget ran out: the hidden path is still a valid answer
            path = hidden
        prompt = PROMPT.format(last=n - 1, edges=edge_lines(edge_list), example="2 -> 0 -> 1")
        metadata = {
            "nodes": n,
            "edges": edge_list,
            "work": work,
            "canonical_hash": content_hash([n, edge_list]),
        }
        return TaskDraft(prompt, " -> ".join(map(str, path)), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("path",))
        if isinstance(text, Verdict):
            return text
        path = read_integers(text)
        if path is None:
            return Verdict.bad_format('answer with node numbers separated by "->"')
        n = task.metadata["nodes"]
        if sorted(path) != list(range(n)):
            return Verdict.wrong(
                f"the path must visit each of the nodes 0 to {n - 1} exactly once", parsed=path
            )
        edges = {tuple(e) for e in task.metadata["edges"]}
        for a, b in zip(path, path[1:], strict=False):
            if (min(a, b), max(a, b)) not in edges:
                return Verdict.wrong(f"{a} and {b} are not joined by an edge", parsed=path)
        return Verdict.right(parsed=path)

    def solve_exact(self, task: Task) -> SolverRun:
        """Backtracking with Warnsdorff ordering (effort: nodes expanded)."""
        path, work = find_path(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(
            None if path is None else tagged(" -> ".join(map(str, path))),
            float(work) + len(task.metadata["edges"]),
        )

    def solve_weak(self, task: Task) -> SolverRun:
        """A greedy walk without backtracking: often stuck before the last node."""
        walk = greedy_walk(task.metadata["nodes"], task.metadata["edges"])
        return SolverRun(tagged(" -> ".join(map(str, walk))), float(len(walk)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        path = [int(v) for v in task.answer.split(" -> ")]
        edges = {tuple(e) for e in task.metadata["edges"]}
        wrong = [path[:-1], path + path[:1], sorted(path)]
        swapped = path[1:2] + path[:1] + path[2:]
        wrong.append(swapped)

        def valid(p: list[int]) -> bool:
            return sorted(p) == sorted(path) and all(
                (min(a, b), max(a, b)) in edges for a, b in zip(p, p[1:], strict=False)
            )

        return [tagged(" -> ".join(map(str, p))) for p in wrong if not valid(p)] + ["<answer>0</answer>"]
