"""tree_dominating_set: the tree DP optimum re-found by trying every node set (levels 1-4), with
networkx's is_dominating_set as the judge; another minimum set is paid, a larger or a
non-dominating set refused."""

from __future__ import annotations

from itertools import combinations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "tree_dominating_set"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_the_optimum_is_what_trying_every_set_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    tree = nx.Graph()
    tree.add_nodes_from(range(task.metadata["nodes"]))
    tree.add_edges_from(map(tuple, task.metadata["edges"]))
    reference = {int(v) for v in task.answer.split(", ")}
    assert nx.is_tree(tree) and nx.is_dominating_set(tree, reference)
    assert task.metadata["optimum"] == len(reference)
    if level <= 4:
        n = tree.number_of_nodes()
        minimum = next(
            list(s)
            for k in range(1, n + 1)
            for s in combinations(range(n), k)
            if nx.is_dominating_set(tree, s)
        )
        assert len(minimum) == len(reference)
        assert palaestra.verify(task, "<answer>" + ", ".join(map(str, minimum)) + "</answer>").correct
    # a dominating set one node too large, and one node short of dominating, are refused
    spare = next(v for v in tree if v not in reference)
    larger = sorted(reference | {spare})
    assert not palaestra.verify(task, "<answer>" + ", ".join(map(str, larger)) + "</answer>").correct
    short = sorted(reference)[:-1]
    assert not nx.is_dominating_set(tree, short)
    assert not palaestra.verify(
        task, "<answer>" + ", ".join(map(str, short or [spare])) + "</answer>"
    ).correct
