"""number_theory: every answer checked against sympy's number theory, read from the prompt."""

from __future__ import annotations

import math
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import divisor_count, isprime, mod_inverse, n_order, totient

import palaestra

FAMILY = "number_theory"
IMPL = palaestra.get(FAMILY).impl


def sympy_answer(task: palaestra.Task) -> int:
    question = task.prompt.split("\n\n")[0]
    numbers = [int(n) for n in re.findall(r"\d+", question)]
    kind = task.metadata["kind"]
    if kind == "gcd":
        return math.gcd(numbers[0], numbers[1])
    if kind == "lcm":
        return math.lcm(numbers[0], numbers[1])
    if kind == "power":
        a, e, m = numbers[:3]
        return pow(a, e, m)
    if kind == "inverse":
        return int(mod_inverse(numbers[0], numbers[1]))
    if kind == "totient":
        return int(totient(numbers[0]))
    if kind == "divisors":
        return int(divisor_count(numbers[0]))
    if kind == "order":
        return int(n_order(numbers[0], numbers[1]))
    if kind == "discrete_log":
        g, h, p = numbers[:3]
        assert isprime(p)
        x = int(task.answer)
        assert pow(g, x, p) == h % p
        assert x < n_order(g, p)  # powers of g repeat with this period: no smaller x
        return x
    raise AssertionError(kind)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_answers_agree_with_sympy(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert int(task.answer) == sympy_answer(task), task.prompt


@pytest.mark.parametrize(
    "kind", ["gcd", "lcm", "power", "inverse", "totient", "divisors", "order", "discrete_log"]
)
def test_every_kind_agrees_with_sympy(kind: str) -> None:
    found = 0
    for seed in range(400):
        task = palaestra.make_task(FAMILY, seed=seed, level=7)
        if task.metadata["kind"] == kind:
            assert int(task.answer) == sympy_answer(task), task.prompt
            found += 1
        if found == 5:
            return
    raise AssertionError(kind)


def test_gcd_questions_have_a_common_factor() -> None:
    for seed in range(100):
        task = palaestra.make_task(FAMILY, seed=seed, level=5)
        if task.metadata["kind"] == "gcd":
            assert int(task.answer) > 1


def test_answer_forms_and_congruent_integers() -> None:
    for seed in range(200):
        task = palaestra.make_task(FAMILY, seed=seed, level=6)
        if task.metadata["kind"] == "power" and int(task.answer) > 999:
            break
    value, m = int(task.answer), task.metadata["params"]["m"]
    for text in (str(value), f"{value:,}", f"{value}.0", f"\\boxed{{{value}}}", f"${value}$"):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in (str(value + m), str(value - m), f"{value}.5", f"{value} mod {m}", f"{value}, {value + 1}"):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text


def test_weak_solver_only_handles_small_numbers() -> None:
    solved_small = sum(
        palaestra.verify(t, IMPL.solve_weak(t).response or "").correct
        for t in (palaestra.make_task(FAMILY, seed=s, level=1) for s in range(40))
    )
    solved_large = sum(
        palaestra.verify(t, IMPL.solve_weak(t).response or "").correct
        for t in (palaestra.make_task(FAMILY, seed=s, level=10) for s in range(40))
    )
    assert solved_small == 40 and solved_large <= 2


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=5)
    for text in ("9" * 5000, "1" + "0" * 100_000, "2^" * 5000 + "2", "１２３４５６７８９" * 1000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
