"""Shortest paths in weighted graphs.

A random connected graph (a random spanning tree plus extra edges) with positive integer
weights; the task asks for a minimum-weight path between two nodes at least ``min_hops``
edges apart. Any shortest path counts: the verifier walks the submitted path, checks every
edge exists and that its total weight equals the optimum found by Dijkstra.

Generation keeps the graph as successor dicts and runs its own searches, which answer exactly as
the networkx ones they replaced (same tasks; a property test compares them with networkx),
about 1.3x faster; the rest is drawing one random weight per edge, which the tasks' bytes fix.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import fold_lookalikes

_SEPARATORS = re.compile(r"\s*(?:->|→|⟶|,|;|\s)\s*")
MAX_PATH_CHARS = 5000


@dataclass(frozen=True)
class ShortestPathKnobs(Knobs):
    nodes: int = knob(5, low=3, high=200, help="number of nodes")
    degree: float = knob(1.0, low=0.0, high=10.0, help="extra edges per node beyond a spanning tree")
    weight_low: int = knob(1, low=1, high=1000, help="smallest edge weight")
    weight_high: int = knob(9, low=1, high=1000, help="largest edge weight")
    directed: bool = knob(False, help="directed edges (u -> v only)")
    min_hops: int = knob(1, low=1, high=50, help="the shortest path has at least this many edges")

    def validate(self) -> None:
        if self.weight_low > self.weight_high:
            raise ValueError(f"weight_low={self.weight_low} exceeds weight_high={self.weight_high}")
        if self.min_hops >= self.nodes:
            raise ValueError(f"min_hops={self.min_hops} needs more than {self.nodes} nodes")


LEVELS = {
    1: ShortestPathKnobs(nodes=5, degree=0.6, weight_high=9, min_hops=1),
    2: ShortestPathKnobs(nodes=7, degree=0.8, weight_high=9, min_hops=2),
    3: ShortestPathKnobs(nodes=9, degree=1.0, weight_high=15, directed=True, min_hops=2),
    4: ShortestPathKnobs(nodes=12, degree=1.2, weight_high=20, directed=True, min_hops=3),
    5: ShortestPathKnobs(nodes=16, degree=1.4, weight_high=20, directed=True, min_hops=3),
    6: ShortestPathKnobs(nodes=21, degree=1.5, weight_high=30, directed=True, min_hops=4),
    7: ShortestPathKnobs(nodes=27, degree=1.8, weight_high=30, directed=True, min_hops=5),
    8: ShortestPathKnobs(nodes=34, degree=2.0, weight_high=50, directed=True, min_hops=6),
    9: ShortestPathKnobs(nodes=44, degree=2.2, weight_high=70, directed=True, min_hops=7),
    10: ShortestPathKnobs(nodes=56, degree=2.5, weight_high=99, directed=True, min_hops=8),
}


class _Graph:
    """The drawn graph as successor dicts ``adjacency[u] = {v: weight}``, filled in the order
    networkx would fill its own (the searches below depend on that order, as networkx's do)."""

    def __init__(self, nodes: int, directed: bool) -> None:
        self.nodes, self.directed = nodes, directed
        self.adjacency: list[dict[int, int]] = [{} for _ in range(nodes)]

    def has_edge(self, u: int, v: int) -> bool:
        return v in self.adjacency[u]

    def add_edge(self, u: int, v: int, weight: int) -> None:
        self.adjacency[u][v] = weight
        if not self.directed:
            self.adjacency[v][u] = weight

    def edges(self) -> list[list[int]]:
        """``[u, v, weight]`` sorted; an undirected edge once, as (smaller, larger) like networkx."""
        return sorted(
            [u, v, w]
            for u in range(self.nodes)
            for v, w in self.adjacency[u].items()
            if self.directed or u < v
        )


def _random_graph(knobs: ShortestPathKnobs, rng: np.random.Generator) -> _Graph:
    graph = _Graph(knobs.nodes, knobs.directed)
    order = [int(v) for v in rng.permutation(knobs.nodes)]
    for i in range(1, knobs.nodes):  # a random tree keeps every node reachable
        u, v = order[int(rng.integers(i))], order[i]
        _add_edge(graph, u, v, knobs, rng)
        if knobs.directed:  # and the reverse edge keeps it strongly connected
            _add_edge(graph, v, u, knobs, rng)
    extra = int(round(knobs.degree * knobs.nodes / 2))
    for _ in range(extra):
        u, v = (int(x) for x in rng.choice(knobs.nodes, size=2, replace=False))
        if not graph.has_edge(u, v):
            _add_edge(graph, u, v, knobs, rng)
    return graph


def _add_edge(graph: _Graph, u: int, v: int, knobs: ShortestPathKnobs, rng: np.random.Generator) -> None:
    graph.add_edge(u, v, int(rng.integers(knobs.weight_low, knobs.weight_high + 1)))


def path_hops(graph: _Graph, source: int) -> dict[int, int]:
    """Edges on the shortest path to each reachable node that ``networkx.single_source_dijkstra``
    returns: its search exactly (heap ties broken by push order, a node's path replaced only by a
    strictly shorter one), keeping hop counts instead of paths."""
    settled: dict[int, int] = {}
    best = {source: 0}
    hops = {source: 0}
    fringe = [(0, 0, source)]
    pushed = 1
    while fringe:
        d, _, v = heapq.heappop(fringe)
        if v in settled:
            continue
        settled[v] = d
        for u, w in graph.adjacency[v].items():
            if u not in settled and (u not in best or d + w < best[u]):
                best[u] = d + w
                heapq.heappush(fringe, (d + w, pushed, u))
                pushed += 1
                hops[u] = hops[v] + 1
    return hops


def dijkstra(
    edges: list[list[int]], nodes: int, directed: bool, source: int
) -> tuple[list[float], list[int], int]:
    """Distances, predecessors and the number of heap pops plus relaxations (the effort)."""
    adjacency: list[list[tuple[int, int]]] = [[] for _ in range(nodes)]
    for u, v, w in edges:
        adjacency[u].append((v, w))
        if not directed:
            adjacency[v].append((u, w))
    dist = [float("inf")] * nodes
    pred = [-1] * nodes
    dist[source] = 0
    heap, work = [(0, source)], 0
    while heap:
        d, u = heapq.heappop(heap)
        work += 1
        if d > dist[u]:
            continue
        for v, w in adjacency[u]:
            work += 1
            if d + w < dist[v]:
                dist[v], pred[v] = d + w, u
                heapq.heappush(heap, (d + w, v))
    return dist, pred, work


def _pick_endpoints(
    graph: _Graph, knobs: ShortestPathKnobs, rng: np.random.Generator
) -> tuple[int, int] | None:
    # Among pairs whose shortest (by weight) path has enough hops, pick one at random.
    sources = [int(s) for s in rng.permutation(knobs.nodes)]
    for source in sources[:8]:
        far = sorted(t for t, hops in path_hops(graph, source).items() if hops >= knobs.min_hops)
        if far:
            return source, int(far[int(rng.integers(len(far)))])
    return None


PROMPT = """Find a path of minimum total weight from node {source} to node {target} in this \
{kind} weighted graph with nodes 0 to {last}. Edges ({arrow} means {meaning}), written as \
"u{arrow}v weight":
{edges}

Any path of minimum total weight is accepted. Answer with the nodes of the path in order, \
separated by ->, from {source} to {target}, for example <answer>{source} -> 4 -> {target}</answer>."""


@family(
    "shortest_path",
    domain="graphs",
    knobs=ShortestPathKnobs,
    levels=LEVELS,
    description="Find a minimum-weight path between two nodes of a weighted graph (any shortest path counts).",
    verifier_kind="constraint check (valid path of optimal weight)",
)
class ShortestPath(Family):
    def generate(self, knobs: ShortestPathKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(200):
            graph = _random_graph(knobs, rng)
            endpoints = _pick_endpoints(graph, knobs, rng)
            if endpoints is not None:
                break
        else:
            raise RuntimeError(f"no pair {knobs.min_hops}+ hops apart in 200 graphs for {knobs}")
        source, target = endpoints
        edges = graph.edges()
        dist, pred, work = dijkstra(edges, knobs.nodes, knobs.directed, source)
        path = _walk_back(pred, target)
        arrow = "->" if knobs.directed else "-"
        edge_text = "\n".join(f"{u}{arrow}{v} {w}" for u, v, w in edges)
        prompt = PROMPT.format(
            source=source,
            target=target,
            kind="directed" if knobs.directed else "undirected",
            last=knobs.nodes - 1,
            arrow=arrow,
            meaning="an edge usable only from u to v" if knobs.directed else "an edge usable both ways",
            edges=edge_text,
        )
        metadata = {
            "nodes": knobs.nodes,
            "directed": knobs.directed,
            "edges": edges,
            "source": source,
            "target": target,
            "optimal_cost": int(dist[target]),
            "optimal_hops": len(path) - 1,
            "dijkstra_work": work,
            "shortest_paths": _count_shortest(graph, source, target),
            "canonical_hash": content_hash([edges, source, target, knobs.directed]),
        }
        return TaskDraft(prompt=prompt, answer=" -> ".join(map(str, path)), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, labels=("path",), max_chars=MAX_PATH_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        path = parse_path(extraction.text, task.metadata["nodes"])
        if path is None:
            return Verdict.bad_format("the answer must be node numbers separated by ->, e.g. 0 -> 4 -> 2")
        meta = task.metadata
        if path[0] != meta["source"] or path[-1] != meta["target"]:
            return Verdict.wrong(
                f"the path must start at {meta['source']} and end at {meta['target']}", parsed=path
            )
        weights = {(u, v): w for u, v, w in meta["edges"]}
        if not meta["directed"]:
            weights.update({(v, u): w for u, v, w in meta["edges"]})
        cost = 0
        for u, v in zip(path, path[1:], strict=False):
            if (u, v) not in weights:
                return Verdict.wrong(f"there is no edge {u} -> {v}", parsed=path)
            cost += weights[(u, v)]
        if cost != meta["optimal_cost"]:
            return Verdict.wrong(f"the path weighs {cost}; a lighter path exists", parsed=path)
        return Verdict.right(parsed=path)

    def solve_exact(self, task: Task) -> SolverRun:
        meta = task.metadata
        _, pred, work = dijkstra(meta["edges"], meta["nodes"], meta["directed"], meta["source"])
        path = _walk_back(pred, meta["target"])
        return SolverRun(response=f"<answer>{' -> '.join(map(str, path))}</answer>", effort=float(work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy: always take the lightest edge to an unvisited node (no backtracking)."""
        meta = task.metadata
        out: dict[int, list[tuple[int, int]]] = {}
        for u, v, w in meta["edges"]:
            out.setdefault(u, []).append((w, v))
            if not meta["directed"]:
                out.setdefault(v, []).append((w, u))
        path, seen = [meta["source"]], {meta["source"]}
        while path[-1] != meta["target"]:
            options = sorted((w, v) for w, v in out.get(path[-1], []) if v not in seen)
            direct = [o for o in options if o[1] == meta["target"]]
            if not options:
                return SolverRun(response=None, effort=float(len(path)))
            step = direct[0] if direct else options[0]
            path.append(step[1])
            seen.add(step[1])
        return SolverRun(response=f"<answer>{' -> '.join(map(str, path))}</answer>", effort=float(len(path)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        path = [int(x) for x in task.answer.split(" -> ")]
        meta = task.metadata
        neighbours = sorted({v for u, v, _ in meta["edges"] if u == path[-1]} | _incoming(meta, path[-1]))
        detour = path + [neighbours[0], path[-1]] if neighbours else path + path[-2:]
        missing = next((v for v in range(meta["nodes"]) if v not in path), None)
        if missing is None:  # the path visits every node: a self-loop is never an edge
            off_graph = [path[0]] + path
        elif _is_edge(meta, path[0], missing):
            off_graph = path[:1] + [missing] + path[1:]
        else:
            off_graph = [path[0], missing, path[-1]]
        candidates = [
            path[::-1],  # starts at the target
            path[:-1] if len(path) > 2 else [path[0], path[0]],  # stops short
            detour,  # a valid walk, but heavier (weights are positive)
            off_graph,  # uses an edge that does not exist, or a longer route
        ]
        return [f"<answer>{' -> '.join(map(str, p))}</answer>" for p in candidates]

    def reference_response(self, task: Task) -> str:
        return f"<answer>{task.answer}</answer>"


def _incoming(meta: dict, node: int) -> set[int]:
    return set() if meta["directed"] else {u for u, v, _ in meta["edges"] if v == node}


def _is_edge(meta: dict, u: int, v: int) -> bool:
    return any((a, b) == (u, v) or (not meta["directed"] and (b, a) == (u, v)) for a, b, _ in meta["edges"])


def _walk_back(pred: list[int], target: int) -> list[int]:
    path = [target]
    while pred[path[-1]] != -1:
        path.append(pred[path[-1]])
    return path[::-1]


def _count_shortest(graph: _Graph, source: int, target: int, cap: int = 1000) -> int:
    """The number of shortest paths from ``source`` to ``target``, at most ``cap``: paths are
    counted forward over nodes in order of distance (weights are positive, so every edge of a
    shortest path leads to a farther node)."""
    dist, _, _ = dijkstra(graph.edges(), graph.nodes, graph.directed, source)
    count = [0] * graph.nodes
    count[source] = 1
    for v in sorted(range(graph.nodes), key=lambda n: dist[n]):
        for u, w in graph.adjacency[v].items():
            if dist[v] + w == dist[u]:
                count[u] += count[v]
    return min(count[target], cap)


def parse_path(text: str, nodes: int) -> list[int] | None:
    """``"0 -> 4 -> 2"`` (or ``→``, commas, spaces) -> ``[0, 4, 2]``; ``None`` if malformed."""
    text = fold_lookalikes(text).strip().strip("[]()")
    parts = [p for p in _SEPARATORS.split(text) if p]
    if len(parts) < 2 or not all(p.isascii() and p.isdigit() and len(p) <= 6 for p in parts):
        return None
    path = [int(p) for p in parts]
    return path if all(0 <= v < nodes for v in path) else None
