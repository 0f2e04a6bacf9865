"""The shortest_path family: any shortest path counts, nothing else does."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.graphs import shortest_path as sp
from palaestra.generators.graphs.shortest_path import parse_path

SEEDS = st.integers(0, 2**63 - 1)


def _graph(task) -> nx.Graph:
    meta = task.metadata
    graph = nx.DiGraph() if meta["directed"] else nx.Graph()
    graph.add_weighted_edges_from(meta["edges"])
    return graph


@given(seed=SEEDS, level=st.integers(1, 10))
@settings(max_examples=60, deadline=None)
def test_every_shortest_path_is_accepted_and_the_optimum_is_networkx_s(seed: int, level: int) -> None:
    task = palaestra.make_task("shortest_path", seed=seed, level=level)
    meta, graph = task.metadata, _graph(task)
    assert nx.dijkstra_path_length(graph, meta["source"], meta["target"]) == meta["optimal_cost"]
    assert meta["optimal_hops"] >= palaestra.get("shortest_path").levels[level].min_hops
    for k, path in enumerate(nx.all_shortest_paths(graph, meta["source"], meta["target"], weight="weight")):
        assert palaestra.verify(task, f"<answer>{' → '.join(map(str, path))}</answer>").correct
        if k == 5:
            break


@given(seed=SEEDS, level=st.integers(3, 10))
@settings(max_examples=40, deadline=None)
def test_longer_simple_paths_are_rejected(seed: int, level: int) -> None:
    task = palaestra.make_task("shortest_path", seed=seed, level=level)
    meta, graph = task.metadata, _graph(task)
    paths = nx.shortest_simple_paths(graph, meta["source"], meta["target"], weight="weight")
    for _, path in zip(range(20), paths, strict=False):
        cost = nx.path_weight(graph, path, weight="weight")
        verdict = palaestra.verify(task, f"<answer>{' -> '.join(map(str, path))}</answer>")
        assert verdict.correct == (cost == meta["optimal_cost"])


def test_directed_edges_cannot_be_walked_backwards() -> None:
    task = palaestra.make_task("shortest_path", seed=4, level=8)
    meta = task.metadata
    one_way = {(u, v) for u, v, _ in meta["edges"]} - {(v, u) for u, v, _ in meta["edges"]}
    u, v = sorted(one_way)[0]
    verdict = palaestra.verify(task, f"<answer>{meta['source']} -> {v} -> {u} -> {meta['target']}</answer>")
    assert not verdict.correct


def test_answer_formats() -> None:
    assert parse_path("0 -> 4 -> 2", 5) == [0, 4, 2]
    assert parse_path("[0, 4, 2]", 5) == [0, 4, 2]
    assert parse_path("0→4→2", 5) == [0, 4, 2]
    assert parse_path("0 4 2", 5) == [0, 4, 2]
    assert parse_path("0 -> 9", 5) is None
    assert parse_path("0 -> a", 5) is None
    assert parse_path("0", 5) is None


def test_weak_greedy_solver_fails_more_often_at_high_levels() -> None:
    impl = palaestra.get("shortest_path").impl

    def solved(level: int) -> float:
        wins = 0
        for seed in range(40):
            task = palaestra.make_task("shortest_path", seed=seed, level=level)
            run = impl.solve_weak(task)
            wins += run.response is not None and palaestra.verify(task, run.response).correct
        return wins / 40

    assert solved(1) > solved(10)


def _networkx_graph(knobs, rng: np.random.Generator) -> nx.Graph:
    """The generator's graph drawn as it was before it left networkx (the oracle)."""
    graph = nx.DiGraph() if knobs.directed else nx.Graph()
    graph.add_nodes_from(range(knobs.nodes))

    def add(u: int, v: int) -> None:
        graph.add_edge(u, v, weight=int(rng.integers(knobs.weight_low, knobs.weight_high + 1)))

    order = [int(v) for v in rng.permutation(knobs.nodes)]
    for i in range(1, knobs.nodes):
        u, v = order[int(rng.integers(i))], order[i]
        add(u, v)
        if knobs.directed:
            add(v, u)
    for _ in range(int(round(knobs.degree * knobs.nodes / 2))):
        u, v = (int(x) for x in rng.choice(knobs.nodes, size=2, replace=False))
        if not graph.has_edge(u, v):
            add(u, v)
    return graph


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), level=st.integers(1, 10))
def test_own_searches_match_networkx_on_drawn_graphs(seed: int, level: int) -> None:
    # the generator's own graph and searches must answer as the networkx ones they replaced
    knobs = palaestra.get("shortest_path").levels[level]
    graph = sp._random_graph(knobs, np.random.default_rng(seed))
    reference = _networkx_graph(knobs, np.random.default_rng(seed))
    assert graph.edges() == sorted([u, v, d["weight"]] for u, v, d in reference.edges(data=True))
    source = seed % knobs.nodes
    _, paths = nx.single_source_dijkstra(reference, source)
    assert sp.path_hops(graph, source) == {t: len(p) - 1 for t, p in paths.items()}
    for target in range(knobs.nodes):
        shortest = nx.all_shortest_paths(reference, source, target, weight="weight")
        assert sp._count_shortest(graph, source, target) == sum(1 for _ in itertools.islice(shortest, 1000))
