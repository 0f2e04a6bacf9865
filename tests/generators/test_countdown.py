"""Tests for the countdown family."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.generators.arithmetic.countdown import ExpressionError, RuleError, evaluate
from palaestra.registry import get, make_task, verify

FAMILY = "countdown"
IMPL = get(FAMILY).impl


@pytest.mark.parametrize("level", range(1, 11))
def test_reference_exact_and_mutations(level: int) -> None:
    for seed in range(3):
        task = make_task(FAMILY, seed=seed, level=level)
        assert verify(task, IMPL.reference_response(task)).correct
        assert verify(task, IMPL.solve_exact(task).response).correct
        mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
        assert len(set(mutations)) >= 3
        for response in mutations:
            assert not verify(task, response).correct, response
        assert Task.from_json(task.to_json()) == task
        assert make_task(FAMILY, seed=seed, level=level) == task


def _all_values(numbers: list[int]) -> set[int]:
    """Independent brute force: recursively combine any two remaining values (the classic solver)."""
    seen: set[int] = set()

    def walk(items: tuple[int, ...]) -> None:
        seen.update(items)
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                a, b = max(items[i], items[j]), min(items[i], items[j])
                rest = items[:i] + items[i + 1 : j] + items[j + 1 :]
                results = {a + b, a * b} | ({a - b} if a > b else set()) | ({a // b} if a % b == 0 else set())
                for value in results:
                    walk(tuple(sorted((*rest, value))))

    walk(tuple(numbers))
    return seen


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 5))
def test_best_distance_matches_brute_force(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    numbers, target = task.metadata["numbers"], task.metadata["target"]
    if len(numbers) > 5:
        return
    values = _all_values(numbers)
    assert min(abs(v - target) for v in values) == task.metadata["distance"]
    assert task.metadata["reachable"] == (target in values)


def test_unreachable_targets_accept_any_closest_value() -> None:
    task = next(
        t
        for s in range(200)
        if not (t := make_task(FAMILY, seed=s, level=4, unreachable_share=1.0)).metadata["reachable"]
    )
    assert task.metadata["distance"] > 0
    assert verify(task, IMPL.reference_response(task)).correct
    value, _ = evaluate(task.answer)
    assert verify(task, f"Answer: {task.answer} = {value}").correct
    assert not verify(task, f"<answer>{task.answer} = {value + 1}</answer>").correct


def test_several_valid_expressions_pass() -> None:
    task = make_task(FAMILY, seed=0, level=1)  # numbers 8, 6, 1 -> target 56
    assert task.metadata["numbers"] == [8, 6, 1] and task.metadata["target"] == 56
    for text in ("8 * (6 + 1)", "(1 + 6) × 8", "(6+1)*8 = 56", "\\boxed{8*(1+6)}", "8 x (6 + 1)"):
        assert verify(task, text).correct, text
    assert not verify(task, "8 * 7").correct  # 7 is not given
    assert not verify(task, "8 * (6 + 1) + 1 - 1").correct  # 1 used twice
    assert not verify(task, "8 * 6 + 8").correct  # 8 used twice
    assert not verify(task, "(8 * 6) + 1").correct  # 49 is not the best value


def test_rules_and_format() -> None:
    assert evaluate("(25 - 3) * 4 + 7") == (95, [25, 3, 4, 7])
    assert evaluate("10 / 5 * 3") == (6, [10, 5, 3])
    with pytest.raises(RuleError):
        evaluate("3 - 5 + 10")  # a negative intermediate
    with pytest.raises(RuleError):
        evaluate("(7 / 2) * 2")  # a fractional intermediate
    with pytest.raises(RuleError):
        evaluate("5 - 5")
    for bad in ("", "3 +", "(3 + 4", "3 ** 4", "-3 + 5", "__import__('os')", "3 4"):
        with pytest.raises(ExpressionError):
            evaluate(bad)
    task = make_task(FAMILY, seed=0, level=1)
    assert not verify(task, "<answer>3 +</answer>").format_ok
    assert not verify(task, "<answer>" + "(" * 300 + "8" + ")" * 300 + "</answer>").correct


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(12)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak8, effort8) = rates(1), rates(8)
    assert weak1 > weak8 and effort1 < effort8


def test_a_huge_claimed_value_is_refused_not_a_crash() -> None:
    task = make_task(FAMILY, seed=1, level=3)
    verdict = verify(task, "<answer>1 + 1 = " + "9" * 5000 + "</answer>")  # int() raised before
    assert verdict.status == "unparseable" and verdict.error is None
