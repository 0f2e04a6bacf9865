"""Graph isomorphism: map the nodes of one graph onto another so that edges go to edges.

The second graph is a relabelled copy of the first, so a mapping exists; any mapping that
preserves every edge is accepted, and the verifier checks exactly that. Efficient algorithm:
backtracking over degree-compatible candidates that keeps adjacency with every mapped node.
The test checks the reference with networkx's VF2 on every level. Levels grow the graphs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import GenerationError, Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.algorithms.shared import (
    adjacency,
    answer_text,
    edge_lines,
    random_graph,
    read_pairs,
    tagged,
)
from palaestra.registry import Family, SolverRun, TaskDraft, family


@dataclass(frozen=True)
class GraphIsomorphismKnobs(Knobs):
    nodes: int = knob(7, low=3, high=60, help="number of nodes of each graph")
    density: float = knob(0.4, low=0.1, high=0.9, help="share of node pairs joined by an edge")


K = GraphIsomorphismKnobs
LEVELS = {
    1: K(nodes=4, density=0.5),
    2: K(nodes=5, density=0.5),
    3: K(nodes=6, density=0.45),
    4: K(nodes=7, density=0.45),
    5: K(nodes=8, density=0.4),
    6: K(nodes=10, density=0.4),
    7: K(nodes=12, density=0.35),
    8: K(nodes=14, density=0.35),
    9: K(nodes=17, density=0.3),
    10: K(nodes=20, density=0.3),
}


# nodes the reference search may try: the levels need a few thousand at most; dense graphs of 60
# nodes could run for minutes (0.9 timed out at 120 s) and are refused instead
SEARCH_BUDGET = 2_000_000


class SearchBudgetExceeded(Exception):
    """The backtracking search tried more than its budget of nodes."""


def find_isomorphism(
    n: int, g_edges: list[list[int]], h_edges: list[list[int]], budget: int | None = None
) -> tuple[list[int] | None, int]:
    """A mapping g-node -> h-node preserving adjacency (backtracking); and the nodes tried.
    Raises :class:`SearchBudgetExceeded` past ``budget`` nodes tried."""
    g_adj, h_adj = [set(a) for a in adjacency(n, g_edges)], [set(a) for a in adjacency(n, h_edges)]
    order = sorted(range(n), key=lambda v: (-len(g_adj[v]), v))
    mapping: dict[int, int] = {}
    used: set[int] = set()
    work = 0

    def extend(i: int) -> bool:
        nonlocal work
        if i == n:
            return True
        v = order[i]
        for image in range(n):
            work += 1
            if budget is not None and work > budget:
                raise SearchBudgetExceeded
            if image in used or len(h_adj[image]) != len(g_adj[v]):
                continue
            if all((mapping[u] in h_adj[image]) == (u in g_adj[v]) for u in mapping):
                mapping[v] = image
                used.add(image)
                if extend(i + 1):
                    return True
                del mapping[v]
                used.discard(image)
        return False

    found = extend(0)
    return ([mapping[v] for v in range(n)] if found else None), work


def degree_guess(n: int, g_edges: list[list[int]], h_edges: list[list[int]]) -> list[int]:
    """Match nodes by sorted degree, ties by number (the weak heuristic)."""
    g_deg, h_deg = adjacency(n, g_edges), adjacency(n, h_edges)
    g_order = sorted(range(n), key=lambda v: (len(g_deg[v]), v))
    h_order = sorted(range(n), key=lambda v: (len(h_deg[v]), v))
    mapping = [0] * n
    for a, b in zip(g_order, h_order, strict=True):
        mapping[a] = b
    return mapping


def show(mapping: list[int]) -> str:
    return ", ".join(f"{v}->{image}" for v, image in enumerate(mapping))


PROMPT = """Graph G has nodes 0 to {last} and these edges:
{g_edges}

Graph H has nodes 0 to {last} and these edges:
{h_edges}

G and H are isomorphic. Give a mapping of G's nodes onto H's nodes (each H node used once) under \
which two G nodes are joined by an edge exactly when their images in H are. Any such mapping is \
accepted. Answer with "g->h" for every node g of G, for example <answer>{example}</answer>."""


@family(
    "graph_isomorphism",
    domain="algorithms",
    knobs=GraphIsomorphismKnobs,
    levels=LEVELS,
    description="Find an isomorphism between two graphs (any edge-preserving bijection is accepted).",
    verifier_kind="constraint check (edge-preserving bijection)",
)
class GraphIsomorphism(Family):
    def generate(self, knobs: GraphIsomorphismKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.nodes
        while True:
            g_edges = [list(e) for e in random_graph(rng, n, round(knobs.density * n * (n - 1) / 2))]
            relabel = [int(v) for v in rng.permutation(n)]
            h_edges = sorted(sorted([relabel[a], relabel[b]]) for a, b in g_edges)
            if degree_guess(n, g_edges, h_edges) != list(range(n)) or n <= 3:
                break  # the identity guess must not already work
        try:
            mapping, work = find_isomorphism(n, g_edges, h_edges, budget=SEARCH_BUDGET)
        except SearchBudgetExceeded:
            raise GenerationError(
                f"graph_isomorphism: the reference search ran past its budget on {n} nodes at density "
                f"{knobs.density}: lower 'nodes' or 'density'"
            ) from None
        assert mapping is not None  # H is a relabelled G
        prompt = PROMPT.format(
            last=n - 1,
            g_edges=edge_lines(g_edges),
            h_edges=edge_lines(h_edges),
            example=", ".join(f"{v}->{(v + 1) % n}" for v in range(min(n, 3))) + ", ...",
        )
        metadata = {
            "nodes": n,
            "g_edges": g_edges,
            "h_edges": h_edges,
            "work": work,
            "canonical_hash": content_hash([n, g_edges, h_edges]),
        }
        return TaskDraft(prompt, show(mapping), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        text = answer_text(response, labels=("mapping",))
        if isinstance(text, Verdict):
            return text
        pairs = read_pairs(text)
        if pairs is None:
            return Verdict.bad_format('answer with "g->h" pairs such as 0->2, 1->0')
        n = task.metadata["nodes"]
        mapping = dict(pairs)
        if len(mapping) != len(pairs):
            return Verdict.wrong("a node of G is mapped twice", parsed=pairs)
        if set(mapping) != set(range(n)) or sorted(mapping.values()) != list(range(n)):
            return Verdict.wrong(f"not a one-to-one mapping of the nodes 0 to {n - 1}", parsed=pairs)
        h_edges = {tuple(e) for e in task.metadata["h_edges"]}
        for a, b in task.metadata["g_edges"]:
            x, y = sorted((mapping[a], mapping[b]))
            if (x, y) not in h_edges:
                return Verdict.wrong(f"edge {a}-{b} of G goes to {x}-{y}, not an edge of H", parsed=pairs)
        return Verdict.right(parsed=pairs)  # as many edges on both sides: edges onto edges is a bijection

    def solve_exact(self, task: Task) -> SolverRun:
        """Backtracking over degree-compatible candidates (effort: candidates tried)."""
        meta = task.metadata
        mapping, work = find_isomorphism(meta["nodes"], meta["g_edges"], meta["h_edges"])
        return SolverRun(None if mapping is None else tagged(show(mapping)), float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Nodes matched by sorted degree: right only when degrees tell the nodes apart."""
        meta = task.metadata
        return SolverRun(
            tagged(show(degree_guess(meta["nodes"], meta["g_edges"], meta["h_edges"]))), float(meta["nodes"])
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        mapping = [int(p.split("->")[1]) for p in task.answer.split(", ")]
        n = len(mapping)
        wrong = [list(range(n)), mapping[1:] + mapping[:1], [mapping[0]] * n]
        # swap two images with different degrees: always breaks an edge
        degrees = adjacency(n, task.metadata["h_edges"])
        a, b = next(
            (
                (a, b)
                for a in range(n)
                for b in range(a + 1, n)
                if len(degrees[mapping[a]]) != len(degrees[mapping[b]])
            ),
            (0, 1),
        )
        swapped = list(mapping)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        wrong.append(swapped)
        h_edges = {tuple(e) for e in task.metadata["h_edges"]}

        def preserves(m: list[int]) -> bool:
            return len(set(m)) == n and all(
                tuple(sorted((m[a], m[b]))) in h_edges for a, b in task.metadata["g_edges"]
            )

        return [tagged(show(m)) for m in wrong if not preserves(m)] + [tagged(show(mapping[:-1]))]
