"""sequence_induction: the shown prefix determines the continuation within the stated class,
checked with sympy's interpolation and linear algebra and by brute force over small integer
coefficients; the verifier compares the held-out terms exactly and in order."""

from __future__ import annotations

import itertools
import re
import time

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "sequence_induction"
IMPL = palaestra.get(FAMILY).impl


def read(task: palaestra.Task) -> tuple[list[int], int, str]:
    terms = [int(t) for t in re.search(r"^Terms: (.*), \.\.\.$", task.prompt, re.M)[1].split(", ")]
    asked = int(re.search(r"What are the next (\d+) terms", task.prompt)[1])
    return terms, asked, task.prompt.split(". The terms shown")[0]


def polynomial_continuation(terms: list[int], degree: int, asked: int) -> list[int]:
    n = sympy.Symbol("n")
    assert len(terms) >= degree + 2  # d + 1 points fix it, one more confirms the class
    poly = sympy.interpolate(list(zip(range(1, degree + 2), terms, strict=False)), n)
    assert sympy.degree(poly, n) <= degree if poly.free_symbols else True
    assert all(poly.subs(n, i + 1) == t for i, t in enumerate(terms))
    return [int(poly.subs(n, len(terms) + i + 1)) for i in range(asked)]


def recurrence_continuation(terms: list[int], order: int, asked: int) -> list[int]:
    hankel = sympy.Matrix(order, order, lambda i, j: terms[i + order - 1 - j])
    assert hankel.det() != 0  # the coefficients are unique: no other rule of the class fits
    coefficients = hankel.solve(sympy.Matrix(terms[order : 2 * order]))
    assert all(c.is_integer for c in coefficients)
    sequence = list(terms[:order])
    while len(sequence) < len(terms) + asked:
        sequence.append(sum(c * sequence[-j] for j, c in enumerate(coefficients, start=1)))
    assert sequence[: len(terms)] == terms
    return [int(v) for v in sequence[len(terms) :]]


def independent_continuation(task: palaestra.Task) -> list[int]:
    terms, asked, description = read(task)
    if "polynomial in n of degree at most" in description:
        return polynomial_continuation(terms, int(re.search(r"at most (\d)", description)[1]), asked)
    if "arithmetic sequence (each term" in description:
        return polynomial_continuation(terms, 1, asked)
    if "geometric sequence" in description:
        assert terms[0] != 0
        return recurrence_continuation(terms, 1, asked)
    if "fixed integers c1" in description:
        return recurrence_continuation(
            terms, int(re.search(r"from term number (\d+)", description)[1]) - 1, asked
        )
    if "p times the previous term plus q" in description:
        assert terms[1] != terms[0]  # otherwise p would not be determined
        p = sympy.Rational(terms[2] - terms[1], terms[1] - terms[0])
        q = terms[1] - p * terms[0]
        assert all(b == p * a + q for a, b in itertools.pairwise(terms))
        out, last = [], terms[-1]
        for _ in range(asked):
            last = p * last + q
            out.append(int(last))
        return out
    if "odd positions" in description:
        parts = [polynomial_continuation(terms[k::2], 1, asked) for k in (0, 1)]
        positions = range(len(terms), len(terms) + asked)
        counters = [0, 0]
        out = []
        for position in positions:
            side = position % 2
            out.append(parts[side][counters[side]])
            counters[side] += 1
        return out
    raise AssertionError(description)


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_prefix_determines_the_answer(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    expected = independent_continuation(task)
    assert task.answer == ", ".join(map(str, expected)), task.prompt
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct


@pytest.mark.parametrize("order", [2, 3])
def test_recurrences_are_unique_by_brute_force(order: int) -> None:
    """Every integer coefficient vector in [-6, 6]^k that reproduces the prefix gives the answer."""
    checked = 0
    for seed in range(400):
        task = palaestra.make_task(FAMILY, seed=seed, level=10)
        if task.metadata["rule_class"] != f"recurrence{order}":
            continue
        terms, asked, _ = read(task)
        fits = []
        for coefficients in itertools.product(range(-6, 7), repeat=order):
            sequence = list(terms[:order])
            while len(sequence) < len(terms) + asked:
                sequence.append(sum(c * sequence[-j] for j, c in enumerate(coefficients, start=1)))
            if sequence[: len(terms)] == terms:
                fits.append(sequence[len(terms) :])
        assert fits and all(", ".join(map(str, f)) == task.answer for f in fits)
        checked += 1
        if checked == 5:
            return
    raise AssertionError("too few recurrence tasks")


def test_every_class_appears() -> None:
    classes = {palaestra.make_task(FAMILY, seed=s, level=8).metadata["rule_class"] for s in range(200)}
    classes |= {palaestra.make_task(FAMILY, seed=s, level=3).metadata["rule_class"] for s in range(100)}
    assert len(classes) == 9


def test_order_and_count_matter() -> None:
    for seed in range(100):
        task = palaestra.make_task(FAMILY, seed=seed, level=6)
        values = task.answer.split(", ")
        if len(values) >= 3 and len(set(values)) == len(values):
            break
    for text in (
        task.answer,
        " ".join(values),
        f"[{task.answer}]",
        task.answer.replace(", ", ","),
        task.answer + ".",
    ):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in (
        ", ".join(reversed(values)),
        ", ".join(values[:-1]),
        task.answer + ", 1",
        ", ".join(values[1:] + values[:1]),
    ):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text


def test_pattern_guesser_fails_on_rich_classes() -> None:
    for seed in range(30):
        task = palaestra.make_task(FAMILY, seed=seed, level=9)
        assert task.metadata["rule_class"] not in ("arithmetic", "geometric", "quadratic", "affine")
    wrong = sum(
        not palaestra.verify(t, IMPL.solve_weak(t).response).correct
        for t in (palaestra.make_task(FAMILY, seed=s, level=9) for s in range(40))
    )
    assert wrong >= 38


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=5)
    for text in ("1, " * 20_000, "1" * 100_000, ", ".join(["9" * 300] * 40), "[" * 5000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
