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


def test_every_part_of_the_answer_is_read() -> None:
    assert parse_answer("flow: 17; cut: 0, 2, 3", 10) == (17, {0, 2, 3})
    assert parse_answer("cut: {0, 2}\nMaximum flow = 17.0", 10) == (17, {0, 2})
    for text in (
        "flow: 17; cut: 0, 2, 3; flow: 18",  # a second flow value was ignored before
        "flow: 17; cut: 0, 2, 3; cut: 0",  # a second cut was ignored before
        "flow: 17; cut: 0, 2, 3 junk",
        "I think flow: 17; cut: 0, 2",
        "flow: 17; cut: 0, 2, 2",
        "flow: 17",
    ):
        assert parse_answer(text, 10) is None, text


def test_a_second_flow_value_is_never_paid() -> None:
    task = palaestra.make_task("max_flow", seed=2, level=3)
    flow = task.metadata["max_flow"]
    cut = task.answer.split("cut: ")[1]
    assert palaestra.verify(task, f"<answer>flow: {flow}; cut: {cut}</answer>").correct
    for response in (
        f"flow: {flow}; cut: {cut}; flow: {flow + 5}",
        f"flow: {flow + 5}; flow: {flow}; cut: {cut}",
    ):
        assert palaestra.verify(task, f"<answer>{response}</answer>").status == "unparseable"


def test_a_comma_between_the_flow_and_the_cut_is_read() -> None:
    """``max flow = 7, cut = {0, 1, 2}`` (issue 26): a comma separates the parts where the other
    part's name follows it; a cut's own commas stay inside it, and a second flow is refused."""
    task = palaestra.make_task("max_flow", seed=0, level=3)
    flow = task.metadata["max_flow"]
    cut = task.answer.split("cut:")[1].strip()
    for text in (
        f"max flow = {flow}, cut = {{{cut}}}",
        f"cut: {cut}, flow: {flow}",
        f"flow: {flow}, min cut: {cut}",
    ):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    assert (
        palaestra.verify(task, f"<answer>flow: {flow}, cut: {cut}, flow: {flow + 1}</answer>").status
        == "unparseable"
    )
    assert not palaestra.verify(task, f"<answer>max flow = {flow + 1}, cut = {{{cut}}}</answer>").correct
