"""graph_coloring: any proper colouring counts; k is the chromatic number from level 3 on."""

from __future__ import annotations

import itertools

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.graphs.graph_coloring import dsatur, parse_colouring

SEEDS = st.integers(0, 2**63 - 1)


def _fmt(colouring: list[int]) -> str:
    return "<answer>" + ", ".join(f"{v}:{c}" for v, c in enumerate(colouring)) + "</answer>"


@given(seed=SEEDS, level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_relabelled_and_networkx_colourings_are_accepted(seed: int, level: int) -> None:
    task = palaestra.make_task("graph_coloring", seed=seed, level=level)
    k = task.metadata["colours"]
    reference = [int(p.split(":")[1]) for p in task.answer.split(", ")]
    permuted = [(c % k) + 1 for c in reference]  # rotate the colour names: still proper
    assert palaestra.verify(task, _fmt(permuted)).correct
    assert palaestra.verify(task, "<answer>" + " ".join(map(str, reference)) + "</answer>").correct
    graph = nx.Graph(task.metadata["edges"])
    graph.add_nodes_from(range(task.metadata["nodes"]))
    greedy = nx.greedy_color(graph, strategy="DSATUR")
    if max(greedy.values()) < k:
        assert palaestra.verify(task, _fmt([greedy[v] + 1 for v in range(task.metadata["nodes"])])).correct


@given(seed=SEEDS, level=st.integers(3, 5))
@settings(max_examples=15, deadline=None)
def test_fewer_colours_are_impossible_by_brute_force(seed: int, level: int) -> None:
    task = palaestra.make_task("graph_coloring", seed=seed, level=level)
    nodes, edges, k = task.metadata["nodes"], task.metadata["edges"], task.metadata["colours"]
    for colouring in itertools.product(range(k - 1), repeat=nodes):
        assert any(colouring[u] == colouring[v] for u, v in edges)


def test_wrong_colourings_fail() -> None:
    task = palaestra.make_task("graph_coloring", seed=1, level=6)
    u, v = task.metadata["edges"][0]
    reference = [int(p.split(":")[1]) for p in task.answer.split(", ")]
    clash = reference.copy()
    clash[v] = clash[u]
    assert "share an edge" in palaestra.verify(task, _fmt(clash)).reason
    assert not palaestra.verify(task, _fmt([0] * len(reference))).correct
    assert not palaestra.verify(task, "<answer>0:1, 0:2</answer>").format_ok


def test_dsatur_agrees_with_brute_force_on_small_graphs() -> None:
    edges = [[0, 1], [1, 2], [2, 0], [2, 3]]
    assert dsatur(4, edges, 2)[0] is None and dsatur(4, edges, 3)[0] is not None
    assert parse_colouring("0:1, 1:2, 2:3, 3:1", 4) == [1, 2, 3, 1]
    assert parse_colouring("1 2", 3) is None


def test_every_part_of_the_colouring_is_read() -> None:
    assert parse_colouring('{"0": 1, "1": 2, "2": 1}', 3) == [1, 2, 1]
    assert parse_colouring("0 -> 1\n1 -> 2\n2 -> 1", 3) == [1, 2, 1]
    for text in (
        "0:1, 1:2, 2:1 junk",
        "0:1, 1:2, 2:1, 0:2",
        "0:1, 1:2, 2:" + "9" * 5000,
        "colours 0:1, 1:2, 2:1",
    ):
        assert parse_colouring(text, 3) is None, text[:40]
