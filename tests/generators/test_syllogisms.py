"""syllogisms: validity cross-checked with a first-order z3 encoding, countermodels, formats."""

from __future__ import annotations

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "syllogisms"
IMPL = get(FAMILY).impl


def z3_valid(task: Task) -> bool:
    """Validity in first-order logic over an uninterpreted domain (independent of the kinds method)."""
    thing = z3.DeclareSort("Thing")
    preds = [z3.Function(name, thing, z3.BoolSort()) for name in task.metadata["terms"]]
    x = z3.Const("x", thing)

    def formula(statement: list) -> z3.BoolRef:
        form, a, b = statement
        pa, pb = preds[a](x), preds[b](x)
        return {
            "A": z3.ForAll([x], z3.Implies(pa, pb)),
            "E": z3.ForAll([x], z3.Not(z3.And(pa, pb))),
            "I": z3.Exists([x], z3.And(pa, pb)),
            "O": z3.Exists([x], z3.And(pa, z3.Not(pb))),
        }[form]

    solver = z3.Solver()
    solver.set("timeout", 10_000)
    solver.add(*[formula(p) for p in task.metadata["premises"]], z3.Not(formula(task.metadata["conclusion"])))
    result = solver.check()
    assert result != z3.unknown
    return result == z3.unsat


def groups(task: Task, kinds: list[int]) -> str:
    names = task.metadata["terms"]
    return ", ".join("[" + ", ".join(n for i, n in enumerate(names) if k >> i & 1) + "]" for k in kinds)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_validity_matches_z3_and_references_verify(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    assert task.metadata["valid"] == z3_valid(task)
    assert task.metadata["valid"] == (task.answer == "valid")
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutated = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(mutated) >= 3
    for response in mutated:
        assert not verify(task, response).correct, response


def _find(valid: bool) -> Task:
    for seed in range(200):
        task = make_task(FAMILY, seed=seed, level=1)
        if task.metadata["valid"] == valid:
            return task
    raise AssertionError


def test_invalid_answers_any_countermodel_and_formats() -> None:
    task = _find(False)
    reference = task.answer.split(":", 1)[1].strip()
    assert verify(task, f"<answer>invalid: {reference}</answer>").correct
    # padding a countermodel with an individual in no term keeps it a countermodel: a second answer
    assert verify(task, f"<answer>invalid: {reference}, []</answer>").correct
    singular = reference.replace("s,", ",").replace("s]", "]")
    for text in (
        f"Invalid. {reference}",
        f"INVALID — {reference.replace('[', '{').replace(']', '}')}",
        f"invalid; {singular}",
        f"invalid: {reference.replace('[', '(').replace(']', ')').replace(',', ' and')}",
    ):
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert not verify(task, "<answer>valid</answer>").correct
    assert not verify(task, "<answer>invalid</answer>").format_ok
    assert not verify(task, f"<answer>invalid: {reference} because</answer>").format_ok
    assert not verify(task, "<answer>invalid: [gizmos]</answer>").format_ok
    everything = 2 ** len(task.metadata["terms"]) - 1
    assert not verify(task, f"<answer>invalid: {groups(task, [0, everything])}</answer>").correct


def test_valid_answers() -> None:
    task = _find(True)
    for text in ("<answer>valid</answer>", "<answer>Valid.</answer>", "\\boxed{valid}", "Answer: VALID"):
        assert verify(task, text).correct, text
    for text in ("<answer>invalid: []</answer>", "<answer>valid: []</answer>", "<answer>true</answer>"):
        assert not verify(task, text).correct, text


@pytest.mark.parametrize("response", ["", "\x00" * 999, "valid " * 300_000, "ñ" * 4000])
def test_bad_input(response: str) -> None:
    verdict = verify(_find(True), response)
    assert not verdict.correct and not verdict.format_ok and verdict.error is None


def test_calibration_trend_and_balance() -> None:
    effort, weak, labels = {}, {}, []
    for level in (1, 5, 10):
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(60)]
        effort[level] = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        weak[level] = np.mean([verify(t, IMPL.solve_weak(t).response).correct for t in tasks])
        labels += [t.metadata["valid"] for t in tasks]
    assert effort[1] < effort[5] < effort[10]
    assert weak[1] > weak[10]
    assert 0.3 < np.mean(labels) < 0.7


def test_no_duplicates_at_level_three() -> None:
    hashes = {make_task(FAMILY, seed=s, level=3).metadata["canonical_hash"] for s in range(400)}
    assert len(hashes) >= 398
