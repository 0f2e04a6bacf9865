"""Tests for the linear_algebra family."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.generators.arithmetic.linear_algebra import parse_matrix
from palaestra.registry import get, make_task, verify

FAMILY = "linear_algebra"
IMPL = get(FAMILY).impl


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


def _sympy_rational(text: str) -> sympy.Rational:
    value = Fraction(text)
    return sympy.Rational(value.numerator, value.denominator)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_answers_match_sympy(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    matrix = sympy.Matrix(task.metadata["matrix"])
    op = task.metadata["operation"]
    if op == "determinant":
        assert _sympy_rational(task.answer) == matrix.det()
    elif op == "rank":
        assert int(task.answer) == matrix.rank()
    elif op == "inverse":
        given_matrix = parse_matrix(task.answer)
        assert given_matrix is not None
        ours = sympy.Matrix(
            [[sympy.Rational(x.numerator, x.denominator) for x in row] for row in given_matrix]
        )
        assert ours == matrix.inv()
    else:
        # sympy's own basis must pass our verifier, and ours must span sympy's space
        basis = matrix.nullspace()
        text = "[" + ", ".join("[" + ", ".join(str(x) for x in v) + "]" for v in basis) + "]"
        assert verify(task, f"<answer>{text}</answer>").correct
        vectors = parse_matrix(task.answer)
        assert vectors is not None and len(vectors) == len(basis)
        stacked = sympy.Matrix(
            [list(v) for v in basis]
            + [[sympy.Rational(x.numerator, x.denominator) for x in v] for v in vectors]
        )
        assert stacked.rank() == len(basis)


def test_nullspace_accepts_any_basis() -> None:
    task = next(
        t
        for s in range(200)
        if (t := make_task(FAMILY, seed=s, level=7)).metadata["operation"] == "nullspace"
        and 4 - t.metadata["rank"] >= 2
    )
    vectors = parse_matrix(task.answer)
    assert vectors is not None
    a, b = vectors[0], vectors[1]
    mixed = [
        [x + y for x, y in zip(a, b, strict=True)],
        [x - 2 * y for x, y in zip(a, b, strict=True)],
        *vectors[2:],
    ]
    halves = [[x / 2 for x in v] for v in vectors]
    for other in (mixed, halves, list(reversed(vectors))):
        text = "[" + ", ".join("[" + ", ".join(str(x) for x in v) + "]" for v in other) + "]"
        assert verify(task, f"<answer>{text}</answer>").correct, text
    dependent = [a, [2 * x for x in a], *vectors[2:]]
    text = "[" + ", ".join("[" + ", ".join(str(x) for x in v) + "]" for v in dependent) + "]"
    assert not verify(task, f"<answer>{text}</answer>").correct


def test_matrix_formats() -> None:
    expected = [[Fraction(1), Fraction(-1, 2)], [Fraction(0), Fraction(3)]]
    for text in (
        "[[1, -1/2], [0, 3]]",
        "[[1,-0.5],[0,3]]",
        "[1 -1/2; 0 3]",
        "\\begin{pmatrix} 1 & -\\frac{1}{2} \\\\ 0 & 3 \\end{pmatrix}",
        "\\begin{bmatrix}1&-1/2\\\\0&3\\end{bmatrix}",
        "((1, -1/2), (0, 3))",
    ):
        assert parse_matrix(text) == expected, text
    for bad in ("[[1, 2], [3]]", "[[1, x], [0, 3]]", "[[1, 2]] + [[3, 4]]", "__import__('os')"):
        assert parse_matrix(bad) is None, bad


def test_determinant_and_rank_formats() -> None:
    task = make_task(FAMILY, seed=0, level=1)
    value = task.answer
    for text in (value, f"\\boxed{{{value}}}", f"Answer: {value}", f"{value}.0"):
        assert verify(task, text).correct, text
    assert not verify(task, f"{int(value) + 1}").correct
    assert not verify(task, "det = nan").correct


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(30)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak5, effort5), (weak10, effort10) = rates(1), rates(5), rates(10)
    assert weak1 >= weak5 >= weak10 and weak1 == 1.0 and weak10 < 0.2
    assert effort1 < effort5 < effort10
