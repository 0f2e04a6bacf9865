"""Tests for the linear_diophantine family."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.solvers.diophantine.diophantine import diop_linear

from palaestra.core import Task
from palaestra.generators.arithmetic.linear_diophantine import (
    parse_general,
    parse_linear,
    parse_pair,
    solve_equation,
)
from palaestra.registry import get, make_task, verify

FAMILY = "linear_diophantine"
IMPL = get(FAMILY).impl
X, Y = sympy.symbols("x y", integer=True)


@pytest.mark.parametrize("level", range(1, 11))
def test_reference_exact_and_mutations(level: int) -> None:
    for seed in range(8):
        task = make_task(FAMILY, seed=seed, level=level)
        assert verify(task, IMPL.reference_response(task)).correct
        assert verify(task, IMPL.solve_exact(task).response).correct
        mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
        assert len(set(mutations)) >= 3
        for response in mutations:
            assert not verify(task, response).correct, response
        assert Task.from_json(task.to_json()) == task
        assert make_task(FAMILY, seed=seed, level=level) == task


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_answers_against_independent_checks(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    a, b, c, mode = (task.metadata[k] for k in ("a", "b", "c", "mode"))
    solvable = c % math.gcd(a, b) == 0
    if mode != "positive":
        assert (task.answer != "no solution") == solvable
    elif solvable:
        # independent: walk the solution line x = x0 + k*b/g from sympy's particular solution
        t = sympy.symbols("t", integer=True)
        x_t, _ = diop_linear(a * X + b * Y - c, param=t)
        x_start, period = int(x_t.subs({s: 0 for s in x_t.free_symbols})), abs(b // math.gcd(a, b))
        x_min = (x_start - 1) % period + 1
        y_min = (c - a * x_min) // b
        expected = f"x = {x_min}, y = {y_min}" if y_min > 0 else "no solution"
        assert task.answer == expected
        if abs(b) < 2000:  # brute force too where it is cheap
            found = [u for u in range(1, abs(b) + 1) if (c - a * u) % b == 0 and (c - a * u) // b > 0]
            assert (found[0] if found else None) == (x_min if y_min > 0 else None)


def test_many_particular_solutions_pass() -> None:
    task = make_task(FAMILY, seed=1, level=1)  # 5x + 8y = 86
    assert (task.metadata["a"], task.metadata["b"], task.metadata["c"]) == (5, 8, 86)
    for text in ("x = 6, y = 7.", "(14, 2)", "x=-2, y=12", "x = 22 and y = -3"):
        assert verify(task, f"<answer>{text}</answer>").correct, text
    for text in ("x = 7, y = 6", "(6, 8)", "no solution", "x = 6"):
        assert not verify(task, f"<answer>{text}</answer>").correct, text


def test_general_solution_forms() -> None:
    task = make_task(FAMILY, seed=1, level=3)  # 50x + 79y = 8996
    assert task.metadata["mode"] == "general"
    numbers, _ = solve_equation(50, 79, 8996, "general")
    assert numbers is not None
    x0, y0 = numbers["x0"], numbers["y0"]
    x1, y1 = x0 + 79 * 3400, y0 - 50 * 3400  # another particular solution
    for text in (
        f"x = {x0} + 79t, y = {y0} - 50t",
        f"x = {x1} - 79k, y = {y1} + 50k, where k is an integer",
        f"y = -50n + {y1}; x = 79n - {-x1} for all integers n",
    ):
        assert verify(task, f"<answer>{text}</answer>").correct, text
    for text in (
        f"x = {x0} + 158t, y = {y0} - 100t",  # misses every other solution
        f"x = {x0} + 79t, y = {y0} + 50t",
        f"x = {x0} + 79t, y = {y0} - 50s",
        f"x = {x0}, y = {y0}",
    ):
        assert not verify(task, f"<answer>{text}</answer>").correct, text


def test_linear_parser() -> None:
    assert parse_linear("3 + 5t") == (3, 5, "t")
    assert parse_linear("-7k - 2") == (-2, -7, "k")
    assert parse_linear("t") == (0, 1, "t")
    assert parse_linear("4 * n + 1") == (1, 4, "n")
    assert parse_linear("3 + + 5t") is None
    assert parse_linear("3t^2") is None
    assert parse_linear("5ab") is None
    assert isinstance(parse_general("x = 3"), str)


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(40)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak5, effort5), (weak10, effort10) = rates(1), rates(5), rates(10)
    assert weak1 >= weak5 >= weak10 and weak10 < 0.2
    assert effort1 < effort5 < effort10


@pytest.mark.parametrize(
    "text",
    [
        "x = 3 + 5t, y = -2 - 7t, where t is an integer",
        "x = 3 + 5t and y = -2 - 7t for all integers t.",
        "x = 3+5t; y = -2-7t, t ∈ ℤ",
        "$x = 3 + 5t, \\; y = -2 - 7t$",
        "y = -2 - 7t, x = 3 + 5t",
    ],
)
def test_general_answers_with_a_note_on_the_parameter(text: str) -> None:
    assert parse_general(text) == (3, 5, -2, -7)


@pytest.mark.parametrize(
    "text",
    [
        "x = 3 + 5t, y = -2 - 7t, x = 100",  # the last x silently won before
        "x = 100, x = 3 + 5t, y = -2 - 7t",
        "junk x = 3 + 5t, y = -2 - 7t",
        "x = 3 + 5t, y = -2 - 7t where t is anything",
        "x = 3 + 5t, y = -2 - 7t where k is an integer",
        "x = 3 + 5x, y = -2 - 7x",
    ],
)
def test_general_answers_must_be_read_whole(text: str) -> None:
    assert isinstance(parse_general(text), str)


@pytest.mark.parametrize("level", [1, 4, 5, 7, 10])
def test_labelled_values_in_either_order_are_the_same_answer(level: int) -> None:
    """Red-team finding 21: 'y = -9, x = 9' was refused for one solution but paid in general mode."""
    for seed in range(5):
        task = make_task("linear_diophantine", seed=seed, level=level)
        pair = parse_pair(task.answer)
        if pair is None:
            continue  # the general solution or no solution: read by another parser
        x, y = pair
        assert verify(task, f"<answer>y = {y}, x = {x}</answer>").correct
        if x != y:
            assert not verify(task, f"<answer>y = {x}, x = {y}</answer>").correct


def test_where_t_is_any_integer_is_a_note_about_the_parameter() -> None:
    import palaestra

    task = palaestra.make_task("linear_diophantine", seed=0, level=3)
    for note in ("where t is any integer", "where t is an integer", "for any integer t"):
        assert palaestra.verify(task, f"<answer>{task.answer}, {note}</answer>").correct, note
    assert not palaestra.verify(task, f"<answer>{task.answer}, where t is any real</answer>").correct
