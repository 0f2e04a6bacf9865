"""hidden_function: interpolation, equivalent forms accepted, wrong functions rejected."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.interactive.hidden_function import interpolate, poly_text, poly_value


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=6))
@settings(max_examples=200)
def test_interpolation_recovers_any_polynomial(coefficients: list[int]) -> None:
    points = [(x, poly_value(coefficients, x)) for x in range(-2, len(coefficients) - 2)]
    recovered = interpolate(points)
    assert recovered == [Fraction(c) for c in coefficients]


def test_equivalent_forms_pass_and_wrong_ones_fail() -> None:
    task = palaestra.make_task("hidden_function", seed=0, level=3, coefficient=9)
    c = task.metadata["coefficients"]
    for response in [
        f"<answer>f(x) = {task.answer}</answer>",
        f"<answer>{c[0]} + {c[1]}*x + {c[2]}*x**2</answer>",
        f"Answer: y = {poly_text(c)}",
    ]:
        assert palaestra.verify(task, response).correct, response
    assert not palaestra.verify(task, f"<answer>{poly_text([c[0] + 1, c[1], c[2]])}</answer>").correct
    assert not palaestra.verify(task, "<answer>import os</answer>").format_ok


def test_boolean_any_formula_with_the_truth_table_counts() -> None:
    task = palaestra.make_task("hidden_function", seed=2, level=9)
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct
    assert palaestra.verify(task, f"<answer>~~({task.answer})</answer>").correct
    impl = palaestra.get("hidden_function").impl
    assert palaestra.verify(task, impl.solve_exact(task).response).correct  # the DNF differs in form
    assert not palaestra.verify(task, f"<answer>~({task.answer})</answer>").correct
    table = task.metadata["table"]
    assert 0 < sum(table) < len(table) and len(table) == 2 ** task.knobs["inputs"]


def test_shown_points_determine_the_polynomial() -> None:
    for seed, level in itertools.product(range(5), (1, 5, 8)):
        task = palaestra.make_task("hidden_function", seed=seed, level=level)
        points = [tuple(p) for p in task.metadata["points"]]
        assert len({x for x, _ in points}) == task.knobs["degree"] + 1
        assert interpolate(points) == [Fraction(c) for c in task.metadata["coefficients"]]
