"""Tests of the maze family: optimum and every shortest route cross-checked with networkx."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.puzzles import maze as M
from palaestra.registry import get

IMPL = get("maze").impl
LETTER = {(-1, 0): "U", (1, 0): "D", (0, -1): "L", (0, 1): "R"}


def _graph(lines: list[str]) -> tuple[nx.Graph, tuple[int, int], tuple[int, int]]:
    """The open squares as a networkx grid graph, built from the prompt's text alone."""
    open_squares = {(r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch != "#"}
    graph = nx.Graph()
    graph.add_nodes_from(open_squares)
    for r, c in open_squares:
        for nxt in ((r + 1, c), (r, c + 1)):
            if nxt in open_squares:
                graph.add_edge((r, c), nxt)
    start = next((r, c) for r, c in open_squares if lines[r][c] == "S")
    goal = next((r, c) for r, c in open_squares if lines[r][c] == "E")
    return graph, start, goal


def _moves(path: list[tuple[int, int]]) -> str:
    return "".join(LETTER[(b[0] - a[0], b[1] - a[1])] for a, b in itertools.pairwise(path))


def _maze_lines(prompt: str) -> list[str]:
    return [line for line in prompt.splitlines() if line and set(line) <= set("#.SE")]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**40), level=st.integers(1, 10))
def test_optimum_and_every_shortest_route(seed: int, level: int) -> None:
    task = palaestra.make_task("maze", seed=seed, level=level)
    lines = _maze_lines(task.prompt)
    assert lines == task.metadata["grid"]
    graph, start, goal = _graph(lines)
    assert nx.shortest_path_length(graph, start, goal) == task.metadata["optimal_length"]
    for path in itertools.islice(nx.all_shortest_paths(graph, start, goal), 20):
        assert IMPL.verify(task, f"<answer>{_moves(path)}</answer>").correct


def test_degenerate_mazes_are_rejected_at_high_levels() -> None:
    for seed in range(8):
        task = palaestra.make_task("maze", seed=seed, level=8)
        lines = task.metadata["grid"]
        start, goal = M._find(lines, "S"), M._find(lines, "E")
        for hand in ("left", "right"):
            route = M.wall_follower(lines, start, goal, hand)
            assert route is None or len(route) > task.metadata["optimal_length"]


def test_wall_follower_is_optimal_without_loops() -> None:
    # a loop-free maze has one simple route, so the follower's loop-erased walk is the shortest
    for seed in range(10):
        task = palaestra.make_task("maze", seed=seed, level=2)
        assert IMPL.verify(task, IMPL.solve_weak(task).response).correct


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 4, 8):
        tasks = [palaestra.make_task("maze", seed=s, level=level) for s in range(15)]
        rates.append(sum(IMPL.verify(t, IMPL.solve_weak(t).response or "x").correct for t in tasks))
        efforts.append(np.mean([IMPL.effort(t) for t in tasks]))
    assert rates[0] == 15 and rates[2] == 0 and rates[1] < 15
    assert efforts[0] < efforts[1] < efforts[2]


def test_answer_forms_and_near_misses() -> None:
    task = palaestra.make_task("maze", seed=4, level=5)
    route = task.answer
    for response in (
        f"<answer>{route}</answer>",
        f"<answer>{route.lower()}</answer>",
        f"<answer>{' '.join(route)}</answer>",
        f"<answer>[{', '.join(route)}]</answer>",
        f"The route is long.\n\\boxed{{{route}}}",
        f"Answer: {route}",
    ):
        assert IMPL.verify(task, response).correct, response
    # a legal route two squares longer (a step into a side square and back) is wrong, not bad format
    for i in range(len(route) + 1):
        for back, forth in (("U", "D"), ("D", "U"), ("L", "R"), ("R", "L")):
            longer = route[:i] + back + forth + route[i:]
            verdict = IMPL.verify(task, f"<answer>{longer}</answer>")
            assert not verdict.correct and verdict.format_ok
    for response, format_ok in (
        (f"<answer>{route[:-1]}</answer>", True),
        (f"<answer>{route}X</answer>", False),
        (f"<answer>{route} then stop</answer>", False),
        (f"<answer>{route}</answer>\nAnswer: {route[::-1]}", False),
        ("<answer>" + "UD" * 100_000 + "</answer>", False),
        ("<answer>" + "U" * 4000 + "</answer>", True),
    ):
        verdict = IMPL.verify(task, response)
        assert not verdict.correct and verdict.format_ok == format_ok, (response[:40], verdict)
    mutations = IMPL.mutated_responses(task, np.random.default_rng(0))
    assert len(set(mutations)) >= 3 and not any(IMPL.verify(task, m).correct for m in mutations)


def test_canonical_hash_folds_symmetry_and_swap() -> None:
    task = palaestra.make_task("maze", seed=2, level=4)
    lines = task.metadata["grid"]
    turned = ["".join(col) for col in zip(*lines[::-1], strict=True)]
    swapped = [line.translate(str.maketrans("SE", "ES")) for line in lines]
    mirrored = [line[::-1] for line in lines]
    for form in (turned, swapped, mirrored):
        assert M.canonical_hash(form) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("maze", seed=s, level=3).metadata["canonical_hash"] for s in range(40)}
    assert len(hashes) == 40


def test_spread_and_knobs() -> None:
    task = palaestra.make_task("maze", seed=0, rows=3, cols=7, loops=0.3, min_spread=1.0)
    lines = task.metadata["grid"]
    assert len(lines) == 7 and len(lines[0]) == 15
    graph, start, goal = _graph(lines)
    dist = nx.single_source_shortest_path_length(graph, start)
    rooms = [(2 * r + 1, 2 * c + 1) for r in range(3) for c in range(7)]
    assert dist[goal] == max(dist[room] for room in rooms)
    assert IMPL.verify(task, IMPL.solve_exact(task).response).correct
