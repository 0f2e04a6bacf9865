"""Tests for the long_arithmetic family."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.generators.arithmetic.long_arithmetic import (
    add_effort,
    div_effort,
    mul_effort,
    parse_division,
    sub_effort,
)
from palaestra.registry import get, make_task, verify

FAMILY = "long_arithmetic"
IMPL = get(FAMILY).impl


@pytest.mark.parametrize("level", range(1, 11))
def test_reference_exact_and_mutations(level: int) -> None:
    for seed in range(6):
        task = make_task(FAMILY, seed=seed, level=level)
        assert verify(task, IMPL.reference_response(task)).correct
        assert verify(task, IMPL.solve_exact(task).response).correct
        mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
        assert len(set(mutations)) >= 3
        for response in mutations:
            assert not verify(task, response).correct, response
        assert Task.from_json(task.to_json()) == task
        assert make_task(FAMILY, seed=seed, level=level) == task


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_answer_is_the_true_result(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    op, a, b = task.metadata["operation"], int(task.metadata["a"]), int(task.metadata["b"])
    assert str(a) in task.prompt and str(b) in task.prompt
    if op == "div":
        q, r = divmod(a, b)
        assert task.answer == f"{q} remainder {r}"
        assert verify(task, f"<answer>{q} R {r}</answer>").correct
        assert not verify(task, f"<answer>{q - 1} remainder {r + b}</answer>").correct
    else:
        expected = {"add": a + b, "sub": a - b, "mul": a * b}[op]
        assert int(task.answer) == expected
        assert verify(task, f"\\boxed{{{expected:,}}}").correct
        assert not verify(task, f"<answer>{expected + 1}</answer>").correct


def test_answer_format_variants() -> None:
    task = make_task(FAMILY, seed=1, level=3, operation="add", digits=5)
    value = int(task.answer)
    for text in (f"{value}", f"{value:,}", f"{value}.0", f"Answer: {value}", f"$\\boxed{{{value}}}$"):
        assert verify(task, text).correct, text
    assert not verify(task, f"{value}.5").correct
    assert not verify(task, "nan").correct


def test_division_formats() -> None:
    assert parse_division("1234 remainder 56") == (1234, 56)
    assert parse_division("1,234 R 56") == (1234, 56)
    assert parse_division("quotient = 1234, remainder = 56") == (1234, 56)
    assert parse_division("q = 1234, r = 56") == (1234, 56)
    assert parse_division("1234, 56") == (1234, 56)
    assert parse_division("1234 r56") == (1234, 56)
    assert parse_division("1234 and 56") == (1234, 56)
    assert parse_division("1234") is None
    assert parse_division("1234 56") is None
    assert parse_division("1234 remainder") is None
    assert parse_division("1,234") is None  # a thousands separator, not a pair


def test_effort_counts() -> None:
    assert add_effort(999, 1) == (3 + 3, 3)
    assert add_effort(123, 456) == (3, 0)
    assert sub_effort(1000, 1) == (4 + 3, 3)
    assert mul_effort(12, 3) == 2
    assert div_effort(100, 7) > div_effort(10, 7)


def test_no_degenerate_instances_above_level_two() -> None:
    for seed in range(40):
        task = make_task(FAMILY, seed=seed, level=5)
        op, b = task.metadata["operation"], task.metadata["b"]
        if op in ("mul", "div"):
            assert b.rstrip("0") != "1"
        else:
            assert task.metadata["digit_operations"] > len(task.metadata["a"])  # some carry/borrow


def test_effort_grows_and_weak_solver_falls() -> None:
    def mean_effort(level: int) -> float:
        return float(
            np.mean([IMPL.solve_exact(make_task(FAMILY, seed=s, level=level)).effort for s in range(30)])
        )

    def weak_rate(level: int) -> float:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(30)]
        return float(np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks]))

    assert mean_effort(1) < mean_effort(5) < mean_effort(10)
    assert weak_rate(1) == 1.0 and weak_rate(10) < 0.2
