"""The shared planning searches (generators/puzzles/_search.py) against networkx."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.shared.search import bfs, bfs_distance


@settings(max_examples=200, deadline=None)
@given(
    nodes=st.integers(1, 30),
    edges=st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), min_size=10, max_size=120),
    start=st.integers(0, 29),
    goal=st.integers(0, 29),
    bound=st.integers(0, 12),
)
def test_bfs_distance_is_the_shortest_path_length(nodes, edges, start, goal, bound) -> None:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(nodes))
    graph.add_edges_from((a % nodes, b % nodes) for a, b in edges)
    start, goal = start % nodes, goal % nodes

    def forward(state: int) -> list[tuple[int, int]]:
        return [(nxt, nxt) for nxt in sorted(graph.successors(state))]

    def backward(state: int) -> list[tuple[int, int]]:
        return [(prev, prev) for prev in sorted(graph.predecessors(state))]

    expected = nx.shortest_path_length(graph, start, goal) if nx.has_path(graph, start, goal) else None
    assert bfs_distance(start, goal, forward, backward) == expected
    within_bound = expected if expected is not None and expected <= bound else None
    assert bfs_distance(start, goal, forward, backward, max_distance=bound) == within_bound
    plan = bfs(start, lambda s: s == goal, forward).plan
    assert (None if plan is None else len(plan)) == expected


def test_bfs_distance_when_the_searches_meet_on_the_goal_side() -> None:
    # the start fans out to 6 states, so the goal side grows next and makes the meeting
    edges = [(0, k) for k in range(1, 7)] + [(6, 7), (7, 8), (8, 9)]
    graph = nx.DiGraph(edges)

    def forward(state: int) -> list[tuple[int, int]]:
        return [(nxt, nxt) for nxt in sorted(graph.successors(state))]

    def backward(state: int) -> list[tuple[int, int]]:
        return [(prev, prev) for prev in sorted(graph.predecessors(state))]

    assert bfs_distance(0, 9, forward, backward) == 4
    assert bfs_distance(9, 0, backward, forward) == 4
    assert bfs_distance(1, 9, forward, backward) is None
    assert bfs_distance(0, 9, forward, backward, max_distance=4) == 4
    assert bfs_distance(0, 9, forward, backward, max_distance=3) is None
