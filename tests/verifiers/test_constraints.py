"""Constraint checkers: valid structures pass, each single broken rule is named."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.verifiers.constraints import (
    check_coloring,
    check_csp,
    check_graph_path,
    check_grid,
    check_grid_path,
    check_schedule,
    check_sudoku,
    parse_cells,
    parse_grid,
    parse_mapping,
    parse_sequence,
)

SOLVED = [
    [5, 3, 4, 6, 7, 8, 9, 1, 2],
    [6, 7, 2, 1, 9, 5, 3, 4, 8],
    [1, 9, 8, 3, 4, 2, 5, 6, 7],
    [8, 5, 9, 7, 6, 1, 4, 2, 3],
    [4, 2, 6, 8, 5, 3, 7, 9, 1],
    [7, 1, 3, 9, 2, 4, 8, 5, 6],
    [9, 6, 1, 5, 3, 7, 2, 8, 4],
    [2, 8, 7, 4, 1, 9, 6, 3, 5],
    [3, 4, 5, 2, 8, 6, 1, 7, 9],
]


def _givens(rng: random.Random, holes: int) -> list[list[int]]:
    givens = [row[:] for row in SOLVED]
    for k in rng.sample(range(81), holes):
        givens[k // 9][k % 9] = 0
    return givens


def test_sudoku_solution_passes() -> None:
    rng = random.Random(1)
    assert check_sudoku(SOLVED, _givens(rng, 50)).correct


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 80), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_sudoku_any_changed_cell_fails(cell: int, shift: int, seed: int) -> None:
    rng = random.Random(seed)
    grid = [row[:] for row in SOLVED]
    r, c = divmod(cell, 9)
    grid[r][c] = (grid[r][c] - 1 + shift) % 9 + 1
    verdict = check_sudoku(grid, _givens(rng, 50))
    assert not verdict.correct and verdict.format_ok


def test_sudoku_givens_must_be_kept() -> None:
    givens = [[0] * 9 for _ in range(9)]
    givens[0][0] = 9  # a valid solution that disagrees with a given
    verdict = check_sudoku(SOLVED, givens)
    assert not verdict.correct and "given" in verdict.reason


def test_sudoku_shape_and_symbols() -> None:
    assert not check_sudoku(SOLVED[:8], SOLVED).format_ok
    bad = [row[:] for row in SOLVED]
    bad[4][4] = 10
    assert not check_sudoku(bad, [[0] * 9 for _ in range(9)]).correct


def test_small_sudoku_boxes() -> None:
    grid = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    assert check_sudoku(grid, [[0] * 4 for _ in range(4)], box=(2, 2)).correct
    latin_not_sudoku = [[1, 2, 3, 4], [2, 3, 4, 1], [3, 4, 1, 2], [4, 1, 2, 3]]
    assert check_grid(latin_not_sudoku, symbols=range(1, 5)).correct
    assert not check_sudoku(latin_not_sudoku, [[0] * 4 for _ in range(4)], box=(2, 2)).correct


MAZE = [
    [True, True, True, False],
    [False, False, True, False],
    [True, True, True, True],
]


def test_grid_paths() -> None:
    good = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 3)]
    assert check_grid_path(good, MAZE, (0, 0), (2, 3)).correct
    assert check_grid_path(good, MAZE, (0, 0), (2, 3), max_length=5).correct
    assert not check_grid_path(good, MAZE, (0, 0), (2, 3), max_length=4).correct
    assert "blocked" in check_grid_path([(0, 0), (1, 0)], MAZE, (0, 0), (1, 0)).reason
    assert "jumps" in check_grid_path([(0, 0), (0, 2)], MAZE, (0, 0), (0, 2)).reason
    assert "leaves" in check_grid_path([(0, 0), (-1, 0), (0, 0)], MAZE, (0, 0), (0, 0), simple=False).reason
    assert not check_grid_path([(0, 0), (0, 1), (0, 0), (0, 1)], MAZE, (0, 0), (0, 1)).correct
    assert not check_grid_path(good[1:], MAZE, (0, 0), (2, 3)).correct
    assert check_grid_path(
        [(0, 0), (0, 1), (1, 2)], [[True] * 3] * 2, (0, 0), (1, 2), neighbourhood=8
    ).correct
    assert not check_grid_path([(0, 0), (0, 1), (1, 2)], [[True] * 3] * 2, (0, 0), (1, 2)).correct
    assert not check_grid_path("nonsense", MAZE, (0, 0), (2, 3)).format_ok


def test_graph_paths_and_cycles() -> None:
    edges = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("a", "c")]
    assert check_graph_path(["a", "b", "c"], edges, start="a", end="c").correct
    assert not check_graph_path(["a", "b", "d"], edges).correct
    assert not check_graph_path(["b", "a"], edges, directed=True).correct
    assert check_graph_path(["a", "b", "c", "d", "a"], edges, cycle=True, hamiltonian_on="abcd").correct
    assert not check_graph_path(["a", "b", "c", "a"], edges, cycle=True, hamiltonian_on="abcd").correct
    assert not check_graph_path(["a", "c", "a", "b"], edges).correct  # repeats a node
    assert not check_graph_path(["a", "b", "c", "d"], edges, max_length=2).correct


def test_coloring() -> None:
    edges = [(1, 2), (2, 3), (3, 1), (3, 4)]
    assert check_coloring({1: "r", 2: "g", 3: "b", 4: "r"}, edges, nodes=[1, 2, 3, 4], colors=3).correct
    assert not check_coloring({1: "r", 2: "g", 3: "r", 4: "g"}, edges, nodes=[1, 2, 3, 4], colors=3).correct
    assert not check_coloring({1: "r", 2: "g", 3: "b", 4: "y"}, edges, nodes=[1, 2, 3, 4], colors=3).correct
    assert not check_coloring({1: "r", 2: "g"}, edges, nodes=[1, 2, 3, 4], colors=3).format_ok


def test_csp() -> None:
    domains = {"x": [1, 2, 3], "y": [1, 2, 3], "z": [1, 2, 3]}
    rules = [
        {"type": "all_different", "vars": ["x", "y", "z"]},
        {"type": "compare", "a": "x", "op": "<", "b": "y"},
        {"type": "linear", "terms": {"x": 1, "z": 2}, "op": "<=", "rhs": 7},
        {"type": "allowed", "vars": ["x", "z"], "tuples": [[1, 3], [2, 1]]},
    ]
    assert check_csp({"x": 1, "y": 2, "z": 3}, domains=domains, constraints=rules).correct
    assert not check_csp({"x": 2, "y": 1, "z": 3}, domains=domains, constraints=rules).correct
    assert not check_csp({"x": 1, "y": 1, "z": 3}, domains=domains, constraints=rules).correct
    assert not check_csp({"x": 1, "y": 2, "z": 4}, domains=domains, constraints=rules).correct
    assert not check_csp({"x": 1, "y": 2}, domains=domains, constraints=rules).format_ok
    with pytest.raises(ValueError):
        check_csp({"x": 1, "y": 2, "z": 3}, domains=domains, constraints=[{"type": "magic"}])


def test_schedule() -> None:
    durations = {"a": 3, "b": 2, "c": 4}
    kw = {"durations": durations, "resources": {"a": "m1", "b": "m1", "c": "m2"}, "precedences": [("a", "c")]}
    assert check_schedule({"a": 0, "b": 3, "c": 3}, **kw).correct
    assert "overlap" in check_schedule({"a": 0, "b": 2, "c": 3}, **kw).reason
    assert "before" in check_schedule({"a": 0, "b": 3, "c": 2}, **kw).reason
    assert not check_schedule({"a": 0, "b": 3, "c": 3}, **kw, makespan=6).correct
    assert check_schedule({"a": 0, "b": 3, "c": 3}, **kw, makespan=7).correct
    assert not check_schedule({"a": 0, "b": 3, "c": 3}, **kw, deadline={"b": 4}).correct
    assert not check_schedule({"a": 0, "b": 3, "c": 3}, **kw, release={"a": 1}).correct
    assert not check_schedule({"a": 0, "b": 3}, **kw).format_ok
    assert not check_schedule({"a": "soon", "b": 3, "c": 3}, **kw).format_ok


def test_parsers() -> None:
    assert parse_grid("1 2 3\n3 1 2\n2 3 1", 3, 3) == [["1", "2", "3"], ["3", "1", "2"], ["2", "3", "1"]]
    assert parse_grid("123\n312\n231", 3, 3) == [["1", "2", "3"], ["3", "1", "2"], ["2", "3", "1"]]
    assert parse_grid("| 1 | 2 |\n|---+---|\n| 2 | 1 |", 2, 2) == [["1", "2"], ["2", "1"]]
    assert parse_grid("1 2\n2", 2, 2) is None
    assert parse_cells("(0, 0) -> (0, 1) -> (1, 1)") == [(0, 0), (0, 1), (1, 1)]
    assert parse_cells("(0,0) and then I go to (0,1)") is None
    assert parse_sequence("A -> B -> C") == ["A", "B", "C"]
    assert parse_mapping("x = 1, y: 2") == {"x": "1", "y": "2"}
    assert parse_mapping("x = 1, x = 2") is None
