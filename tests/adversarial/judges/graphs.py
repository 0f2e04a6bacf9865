"""Judges and solvers for the graph families (networkx and our own searches)."""

from __future__ import annotations

import itertools
import re

import networkx as nx

from palaestra.core import Task

from ._readers import read_arrow_path
from ._registry import judge, others


def _weighted_graph(task: Task) -> nx.Graph:
    meta = task.metadata
    graph = nx.DiGraph() if meta["directed"] else nx.Graph()
    graph.add_nodes_from(range(meta["nodes"]))
    for u, v, w in meta["edges"]:
        if not graph.has_edge(u, v) or graph[u][v]["weight"] > w:
            graph.add_edge(u, v, weight=w)
    return graph


@judge("shortest_path")
def _shortest_path(task: Task, text: str) -> bool:
    meta = task.metadata
    path = [int(t) for t in read_arrow_path(text)]
    graph = _weighted_graph(task)
    if path[0] != meta["source"] or path[-1] != meta["target"]:
        return False
    if any(not graph.has_edge(u, v) for u, v in itertools.pairwise(path)):
        return False
    cost = sum(graph[u][v]["weight"] for u, v in itertools.pairwise(path))
    return cost == nx.shortest_path_length(graph, meta["source"], meta["target"], weight="weight")


@others("shortest_path")
def _other_paths(task: Task) -> list[str]:
    meta = task.metadata
    paths = nx.all_shortest_paths(_weighted_graph(task), meta["source"], meta["target"], weight="weight")
    return [" -> ".join(map(str, p)) for p in itertools.islice(paths, 4)]


def _colouring(text: str) -> dict[int, int]:
    out: dict[int, int] = {}
    for part in re.split(r"\s*,\s*", text.strip()):
        node, colour = re.fullmatch(r"\s*(\d+)\s*:\s*(\d+)\s*", part).groups()
        if int(node) in out:
            # the documented form gives each node once (the family refuses a repeat)
            raise ValueError(f"node {node} given twice")
        out[int(node)] = int(colour)
    return out


@judge("graph_coloring")
def _graph_coloring(task: Task, text: str) -> bool:
    meta = task.metadata
    colours = _colouring(text)
    if set(colours) != set(range(meta["nodes"])):
        return False
    if any(not 1 <= c <= meta["colours"] for c in colours.values()):
        return False
    return all(colours[u] != colours[v] for u, v in meta["edges"])


@others("graph_coloring")
def _other_colourings(task: Task) -> list[str]:
    """Our own backtracking colourer, in two node orders."""
    meta = task.metadata
    neighbours: dict[int, set[int]] = {n: set() for n in range(meta["nodes"])}
    for u, v in meta["edges"]:
        neighbours[u].add(v)
        neighbours[v].add(u)

    def colour(order: list[int], palette: list[int]) -> dict[int, int] | None:
        assigned: dict[int, int] = {}
        budget = [20_000]  # backtracking steps; a harder graph simply yields no other answer

        def place(i: int) -> bool:
            if i == len(order):
                return True
            budget[0] -= 1
            if budget[0] < 0:
                return False
            node = order[i]
            for c in palette:
                if all(assigned.get(m) != c for m in neighbours[node]):
                    assigned[node] = c
                    if place(i + 1):
                        return True
                    del assigned[node]
            return False

        return assigned if place(0) else None

    palette = list(range(1, meta["colours"] + 1))
    out = []
    for order, colours in ((list(range(meta["nodes"])), palette[::-1]), (sorted(neighbours)[::-1], palette)):
        found = colour(order, colours)
        if found is not None:
            out.append(", ".join(f"{n}:{found[n]}" for n in sorted(found)))
    return out


@judge("topological_order")
def _topological_order(task: Task, text: str) -> bool:
    meta = task.metadata
    order = read_arrow_path(text)
    if sorted(order) != sorted(meta["names"]) or len(set(order)) != len(order):
        return False
    position = {name: i for i, name in enumerate(order)}
    return all(position[a] < position[b] for a, b in meta["edges"])


@others("topological_order")
def _other_orders(task: Task) -> list[str]:
    graph = nx.DiGraph()
    graph.add_nodes_from(task.metadata["names"])
    graph.add_edges_from(task.metadata["edges"])
    orders = [
        nx.lexicographical_topological_sort(graph),
        nx.lexicographical_topological_sort(graph, key=_neg),
    ]
    return [" -> ".join(o) for o in orders]


def _neg(name: str) -> list[int]:
    return [-ord(ch) for ch in name]


def _flow_graph(task: Task) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(task.metadata["nodes"]))
    for u, v, cap in task.metadata["edges"]:
        previous = graph[u][v]["capacity"] if graph.has_edge(u, v) else 0
        graph.add_edge(u, v, capacity=previous + cap)
    return graph


def _cut_capacity(graph: nx.DiGraph, side: set[int]) -> int:
    return sum(d["capacity"] for u, v, d in graph.edges(data=True) if u in side and v not in side)


@judge("max_flow")
def _max_flow(task: Task, text: str) -> bool:
    fields: dict[str, str] = {}
    for part in re.split(r"\s*;\s*", text.strip()):
        key, value = re.fullmatch(r"(flow|cut)\s*:\s*(.+)", part).groups()
        if key in fields:
            return False  # the documented form has each field once (the family refuses a repeat)
        fields[key] = value
    if set(fields) != {"flow", "cut"} or not re.fullmatch(r"-?\d+", fields["flow"]):
        return False
    flow = int(fields["flow"])
    cut = [int(t) for t in re.split(r"\s*,\s*", fields["cut"])]
    side = set(cut)
    graph, sink = _flow_graph(task), task.metadata["sink"]
    if len(side) != len(cut) or 0 not in side or sink in side or not side <= set(graph.nodes):
        return False
    value = nx.maximum_flow_value(graph, 0, sink)
    return flow == value and _cut_capacity(graph, side) == value


@others("max_flow")
def _other_cuts(task: Task) -> list[str]:
    """The smallest and the largest minimum cut (source side), from the residual graph."""
    graph, sink = _flow_graph(task), task.metadata["sink"]
    value, _ = nx.minimum_cut(graph, 0, sink)
    residual = nx.algorithms.flow.edmonds_karp(graph, 0, sink)
    live = nx.DiGraph((u, v) for u, v, d in residual.edges(data=True) if d["capacity"] - d["flow"] > 0)
    live.add_nodes_from(graph.nodes)
    smallest = nx.descendants(live, 0) | {0}
    largest = set(graph.nodes) - (nx.ancestors(live, sink) | {sink})
    return [f"flow: {value}; cut: {', '.join(map(str, sorted(s)))}" for s in (smallest, largest)]
