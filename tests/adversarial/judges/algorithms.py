"""Judges and solvers for the algorithms families that accept any valid structure (networkx,
brute force), written from the task metadata only."""

from __future__ import annotations

import re

import networkx as nx

from palaestra.core import Task

from ._readers import read_assignment
from ._registry import judge, others


def _pairs(text: str, sep: str) -> list[tuple[int, int]]:
    """``a<sep>b`` items separated by commas; ValueError on anything else."""
    out = []
    for part in re.split(r"\s*,\s*", text.strip()):
        match = re.fullmatch(rf"\s*(\d+)\s*{sep}\s*(\d+)\s*", part)
        if match is None:
            raise ValueError(part)
        out.append((int(match[1]), int(match[2])))
    return out


def _bipartite(task: Task) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(range(task.metadata["workers"] + task.metadata["jobs"]))
    graph.add_edges_from(map(tuple, task.metadata["edges"]))
    return graph


@judge("bipartite_matching")
def _bipartite_matching(task: Task, text: str) -> bool:
    graph = _bipartite(task)
    pairs = _pairs(text, "-")
    if not all(graph.has_edge(a, b) for a, b in pairs) or not nx.is_matching(graph, set(pairs)):
        return False
    workers = range(task.metadata["workers"])
    best = nx.bipartite.hopcroft_karp_matching(graph, top_nodes=list(workers))
    return len(pairs) == len(best) // 2


@others("bipartite_matching")
def _other_matchings(task: Task) -> list[str]:
    graph = _bipartite(task)
    best = nx.bipartite.hopcroft_karp_matching(graph, top_nodes=list(range(task.metadata["workers"])))
    pairs = sorted((w, j) for w, j in best.items() if w < task.metadata["workers"])
    return [", ".join(f"{w}-{j}" for w, j in pairs)]


def _two_graphs(task: Task) -> tuple[nx.Graph, nx.Graph]:
    g, h = nx.Graph(), nx.Graph()
    g.add_nodes_from(range(task.metadata["nodes"]))
    h.add_nodes_from(range(task.metadata["nodes"]))
    g.add_edges_from(map(tuple, task.metadata["g_edges"]))
    h.add_edges_from(map(tuple, task.metadata["h_edges"]))
    return g, h


@judge("graph_isomorphism")
def _graph_isomorphism(task: Task, text: str) -> bool:
    g, h = _two_graphs(task)
    pairs = _pairs(text, "->")
    mapping = dict(pairs)
    if len(mapping) != len(pairs) or set(mapping) != set(g) or set(mapping.values()) != set(h):
        return False
    return nx.utils.graphs_equal(nx.relabel_nodes(g, mapping), h)


@others("graph_isomorphism")
def _other_isomorphisms(task: Task) -> list[str]:
    g, h = _two_graphs(task)
    found = []
    for mapping in nx.isomorphism.GraphMatcher(g, h).isomorphisms_iter():
        found.append(", ".join(f"{a}->{mapping[a]}" for a in sorted(mapping)))
        if len(found) == 3:
            break
    return found


def _graph(task: Task) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(range(task.metadata["nodes"]))
    graph.add_edges_from(tuple(e[:2]) for e in task.metadata["edges"])
    return graph


def _numbers(text: str, sep: str) -> list[int]:
    parts = [p.strip() for p in re.split(sep, text.strip())]
    if not all(re.fullmatch(r"\d+", p) for p in parts):
        raise ValueError(text)
    return [int(p) for p in parts]


@judge("min_vertex_cover")
def _min_vertex_cover(task: Task, text: str) -> bool:
    graph = _graph(task)
    nodes = _numbers(text, r"\s*,\s*")
    if len(set(nodes)) != len(nodes) or not set(nodes) <= set(graph):
        return False
    if not all(a in nodes or b in nodes for a, b in graph.edges):
        return False
    clique, _ = nx.max_weight_clique(nx.complement(graph), weight=None)
    return len(nodes) == graph.number_of_nodes() - len(clique)


@others("min_vertex_cover")
def _other_covers(task: Task) -> list[str]:
    graph = _graph(task)
    clique, _ = nx.max_weight_clique(nx.complement(graph), weight=None)
    return [", ".join(map(str, sorted(set(graph) - set(clique))))]


@judge("euler_circuit")
def _euler_circuit(task: Task, text: str) -> bool:
    walk = _numbers(text, r"\s*->\s*")
    steps = sorted(tuple(sorted(p)) for p in zip(walk, walk[1:], strict=False))
    return walk[0] == walk[-1] and steps == sorted(tuple(e) for e in task.metadata["edges"])


@others("euler_circuit")
def _other_circuits(task: Task) -> list[str]:
    graph = _graph(task)
    found = []
    for start in sorted(graph)[:3]:
        walk = [start] + [v for _, v in nx.eulerian_circuit(graph, source=start)]
        found.append(" -> ".join(map(str, walk)))
    return found


@judge("two_sat")
def _two_sat(task: Task, text: str) -> bool:
    n = task.metadata["variables"]
    values = read_assignment(text, [f"x{i}" for i in range(1, n + 1)])
    return all(any(values[f"x{abs(x)}"] == (x > 0) for x in clause) for clause in task.metadata["clauses"])


@others("two_sat")
def _other_models(task: Task) -> list[str]:
    """Models by brute force over small formulas (z3-free: plain enumeration)."""
    n, clauses = task.metadata["variables"], task.metadata["clauses"]
    if n > 12:
        return []
    found = []
    for bits in range(1 << n):
        values = [bool(bits >> i & 1) for i in range(n)]
        if all(any(values[abs(x) - 1] == (x > 0) for x in c) for c in clauses):
            found.append(", ".join(f"x{i + 1}={'true' if v else 'false'}" for i, v in enumerate(values)))
            if len(found) == 3:
                break
    return found


@judge("hamiltonian_path")
def _hamiltonian_path(task: Task, text: str) -> bool:
    graph = _graph(task)
    path = _numbers(text, r"\s*->\s*")
    return sorted(path) == sorted(graph) and nx.is_path(graph, path)


@others("hamiltonian_path")
def _other_paths(task: Task) -> list[str]:
    """The reference walked backwards is another Hamiltonian path."""
    return [" -> ".join(reversed([p.strip() for p in task.answer.split("->")]))]


def _tree_domination_number(task: Task) -> int:
    """Leaves-up greedy (optimal on trees): an undominated node makes its parent chosen."""
    tree = _graph(task)
    order = list(nx.bfs_tree(tree, 0))
    parent = {v: p for p, v in nx.bfs_edges(tree, 0)}
    chosen: set[int] = set()
    dominated: set[int] = set()
    for v in reversed(order):
        if v not in dominated:
            pick = parent.get(v, v)
            chosen.add(pick)
            dominated |= {pick, *tree[pick]}
    return len(chosen)


@judge("tree_dominating_set")
def _tree_dominating_set(task: Task, text: str) -> bool:
    tree = _graph(task)
    nodes = _numbers(text, r"\s*,\s*")
    if len(set(nodes)) != len(nodes) or not set(nodes) <= set(tree):
        return False
    return nx.is_dominating_set(tree, set(nodes)) and len(nodes) == _tree_domination_number(task)
