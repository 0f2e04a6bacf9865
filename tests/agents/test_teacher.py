"""The weak teacher: its errors, their rates, its demonstrations' format, and its subsets."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.agents.teacher import Teacher, applicable_error, parse_errors, wrong_answer


def _task(a: int, op: str, b: int):
    """An ``expression`` task ``a op b`` as the catalog writes it."""
    from palaestra.agents.selfplay.languages import ExpressionLanguage
    from palaestra.core import Task

    built = ExpressionLanguage().build("expression", f"<task>{a} {op} {b}</task>")
    return Task.from_dict(built.payload["task"])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_errors_apply_exactly_where_defined_and_are_wrong(seed: int) -> None:
    task = palaestra.make_task("expression", seed=seed, level=1, digits=2)
    value = Fraction(task.answer)
    a = max(int(x) for x in task.metadata["expression"].split() if x.isdigit())
    error = applicable_error(task)
    assert (error == "sign") == (value < 0)
    assert (error == "carry") == (value >= 0 and len(str(value.numerator)) > len(str(a)))
    if error:
        wrong = wrong_answer(task, error)
        assert not palaestra.verify(task, f"<answer>{wrong}</answer>").correct


def test_error_rates_and_worked_format() -> None:
    teacher = Teacher({"sign": 0.6, "carry": 0.6})
    rng = np.random.default_rng(0)
    tasks = [palaestra.make_task("expression", seed=s, level=1, digits=2) for s in range(400)]
    wrong = {"sign": [], "carry": [], None: []}
    for task in tasks:
        response = teacher.response(task, rng)
        assert response.startswith(task.metadata["expression"] + " = ")
        wrong[applicable_error(task)].append(not palaestra.verify(task, response).correct)
    assert not any(wrong[None])  # where the teacher has no error to make, it is right
    for error in ("sign", "carry"):
        assert len(wrong[error]) > 50 and 0.45 < np.mean(wrong[error]) < 0.75
    exact = Teacher()
    assert all(palaestra.verify(t, exact.response(t, rng)).correct for t in tasks)


def test_examples_and_subsets() -> None:
    teacher = Teacher({"sign": 1.0})
    rng = np.random.default_rng(0)
    assert teacher.response(_task(3, "-", 8), rng) == "3 - 8 = -5\n<answer>5</answer>"
    carry = _task(56, "+", 71)
    assert wrong_answer(carry, "carry") == "27"
    assert teacher.subset(_task(3, "-", 8)) == "teacher_wrong/sign"
    assert teacher.subset(carry) == "teacher_right"  # this teacher does not drop carries
    assert Teacher({"carry": 0.6}).subset(carry) == "teacher_wrong/carry"
    other = palaestra.make_task("shortest_path", seed=1, level=1)
    assert palaestra.verify(other, teacher.response(other, rng)).correct


def test_parse_errors() -> None:
    assert parse_errors("sign:0.6, carry:0.25") == {"sign": 0.6, "carry": 0.25}
    assert parse_errors("") == {}
    for bad in ("flip:0.5", "sign:2", "sign"):
        with pytest.raises(ValueError):
            parse_errors(bad)
