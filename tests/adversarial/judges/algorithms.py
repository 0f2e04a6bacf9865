"""Judges and solvers for the algorithms families that accept any valid structure (networkx,
brute force), written from the task metadata only."""

from __future__ import annotations

import re

import networkx as nx

from palaestra.core import Task

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
