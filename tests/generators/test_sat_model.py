"""sat_model: any model counts (checked against z3), answer formats, solvers, calibration."""

from __future__ import annotations

import json

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "sat_model"
IMPL = get(FAMILY).impl


def z3_models(task: Task, limit: int) -> list[list[bool]]:
    n = task.metadata["variables"]
    xs = [z3.Bool(f"x{i}") for i in range(1, n + 1)]
    solver = z3.Solver()
    for clause in task.metadata["clauses"]:
        solver.add(z3.Or([xs[abs(lit) - 1] if lit > 0 else z3.Not(xs[abs(lit) - 1]) for lit in clause]))
    models = []
    while len(models) < limit and solver.check() == z3.sat:
        m = solver.model()
        values = [z3.is_true(m.eval(x, model_completion=True)) for x in xs]
        models.append(values)
        solver.add(z3.Or([x != v for x, v in zip(xs, values, strict=True)]))
    return models


def as_text(values: list[bool]) -> str:
    return ", ".join(f"x{i}={'true' if v else 'false'}" for i, v in enumerate(values, start=1))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_every_z3_model_is_accepted_and_reference_verifies(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    models = z3_models(task, 3)
    assert models, "the formula must be satisfiable"
    for values in models:
        assert verify(task, f"<answer>{as_text(values)}</answer>").correct
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    for response in IMPL.mutated_responses(task, np.random.default_rng(seed)):
        assert not verify(task, response).correct, response


def test_two_distinct_models_both_pass() -> None:
    task = make_task(FAMILY, seed=2, level=4)
    models = z3_models(task, 2)
    assert len(models) == 2 and models[0] != models[1]
    assert all(verify(task, f"<answer>{as_text(m)}</answer>").correct for m in models)


def test_answer_formats() -> None:
    task = make_task(FAMILY, seed=4, level=3)
    values = z3_models(task, 1)[0]
    n = len(values)
    variants = [
        as_text(values),
        "; ".join(f"X{i}: {'T' if v else 'F'}" for i, v in enumerate(values, start=1)),
        " ".join(f"x{i}={int(v)}" for i, v in enumerate(values, start=1)),
        json.dumps({f"x{i}": v for i, v in enumerate(values, start=1)}),
        ", ".join(("" if v else "¬") + f"x{i}" for i, v in enumerate(values, start=1)),
        " ".join(("" if v else "~") + f"x{i}" for i, v in enumerate(values, start=1)),
        " ".join(str(i if v else -i) for i, v in enumerate(values, start=1)) + " 0",
        "\n".join(f"x{i} is {'true' if v else 'false'}" for i, v in reversed(list(enumerate(values, 1)))),
    ]
    for text in variants:
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert n == task.metadata["variables"]


def test_wrong_and_malformed_answers() -> None:
    task = make_task(FAMILY, seed=4, level=3)
    values = z3_models(task, 1)[0]
    clause = task.metadata["clauses"][0]
    broken = list(values)
    for lit in clause:
        broken[abs(lit) - 1] = lit < 0
    verdict = verify(task, f"<answer>{as_text(broken)}</answer>")
    assert verdict.format_ok and not verdict.correct
    malformed = [
        as_text(values[:-1]),  # a variable missing
        as_text(values) + ", x1=" + ("false" if values[0] else "true"),  # conflicting
        as_text(values) + ", x99=true",  # unknown variable
        as_text(values).replace("x1=", "x1=maybe ", 1),  # not a truth value
        "-" + as_text(values),  # negated and given a value
        "satisfiable",
    ]
    for text in malformed:
        verdict = verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and not verdict.format_ok, (text, verdict)


@pytest.mark.parametrize(
    "text", ["9" * 5000, "1 -2 " + "9" * 5000 + " 0", "1 -2 ² 0", "x1=true, x" + "9" * 5000]
)
def test_hostile_numbers_are_format_errors(text: str) -> None:
    # issue 16: DIMACS literals of 4,300+ digits (and "²", a digit int() refuses) raised ValueError
    verdict = verify(make_task(FAMILY, seed=1, level=4), f"<answer>{text}</answer>")
    assert verdict.error is None and not verdict.format_ok, verdict


@pytest.mark.parametrize("response", ["", "\x00" * 1000, "x1 " * 300_000, "ü" * 5000])
def test_bad_input(response: str) -> None:
    verdict = verify(make_task(FAMILY, seed=1, level=2), response)
    assert not verdict.correct and not verdict.format_ok and verdict.error is None


def test_calibration_trend() -> None:
    effort, weak = {}, {}
    for level in (1, 5, 10):
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(30)]
        effort[level] = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        weak[level] = np.mean([verify(t, IMPL.solve_weak(t).response).correct for t in tasks])
    assert effort[1] < effort[5] < effort[10]
    assert weak[1] > weak[10]


def test_knobs_and_trivial_rejection() -> None:
    task = make_task(FAMILY, seed=9, variables=10, clause_width=4, ratio=5.0, reject_trivial=True)
    clauses = task.metadata["clauses"]
    assert len(clauses) == 50 and all(len(c) == 4 and len({abs(x) for x in c}) == 4 for c in clauses)
    assert len({tuple(c) for c in clauses}) == 50
    for value in (True, False):
        assert verify(task, f"<answer>{as_text([value] * 10)}</answer>").format_ok
        assert not verify(task, f"<answer>{as_text([value] * 10)}</answer>").correct
    with pytest.raises(ValueError):
        make_task(FAMILY, seed=1, variables=3, clause_width=4)
