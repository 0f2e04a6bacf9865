"""max_flow: value plus a minimum-cut certificate; any minimum cut counts."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.graphs.max_flow import cut_capacity, parse_answer

SEEDS = st.integers(0, 2**63 - 1)


def _graph(task) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(task.metadata["nodes"]))
    graph.add_weighted_edges_from(task.metadata["edges"], weight="capacity")
    return graph


@given(seed=SEEDS, level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_optimum_matches_networkx_and_its_cut_is_accepted(seed: int, level: int) -> None:
    task = palaestra.make_task("max_flow", seed=seed, level=level)
    graph, sink = _graph(task), task.metadata["sink"]
    value, (side, _) = nx.minimum_cut(graph, 0, sink)
    assert value == task.metadata["max_flow"] == nx.maximum_flow_value(graph, 0, sink)
    answer = f"<answer>flow: {value}; cut: {', '.join(map(str, sorted(side)))}</answer>"
    assert palaestra.verify(task, answer).correct  # networkx's cut may differ from ours: both count


@given(seed=SEEDS, level=st.integers(3, 10))
@settings(max_examples=30, deadline=None)
def test_non_minimum_cuts_and_trivial_cuts_fail(seed: int, level: int) -> None:
    task = palaestra.make_task("max_flow", seed=seed, level=level)
    meta = task.metadata
    source_only = {0}
    capacity = cut_capacity(meta["edges"], source_only)
    assert capacity > meta["max_flow"]  # degenerate networks (trivial minimum cut) were rejected
    assert not palaestra.verify(task, f"<answer>flow: {capacity}; cut: 0</answer>").correct


def test_answer_parsing() -> None:
    assert parse_answer("flow: 17; cut: 0, 2, 3", 5) == (17, {0, 2, 3})
    assert parse_answer("Maximum flow = 4\ncut: {0, 1}", 5) == (4, {0, 1})
    assert parse_answer("flow: 17", 5) is None
    assert parse_answer("flow: 17; cut: 0, 9", 5) is None
    assert parse_answer("flow: 17; cut: 0, 0", 5) is None
