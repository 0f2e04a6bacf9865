"""ordering_deduction: uniqueness by brute force over permutations and z3, formats, solvers."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "ordering_deduction"
IMPL = get(FAMILY).impl


def true_of(clue: list, pos: tuple[int, ...], n: int) -> bool:
    """Clue semantics written again, independently of the generator's."""
    kind, a = clue[0], pos[clue[1]]
    if kind == "at":
        return a == clue[2]
    if kind == "not_at":
        return a != clue[2]
    if kind == "end":
        return a in (0, n - 1)
    if kind == "middle":
        return 0 < a < n - 1
    b = pos[clue[2]]
    return {
        "left": a < b,
        "next": b - a == 1,
        "adjacent": abs(a - b) == 1,
        "apart": abs(a - b) > 1,
        "gap": abs(a - b) == (clue[3] if kind == "gap" else -1),
        "same": a == b,
        "diff": a != b,
    }[kind]


def brute_force(task: Task) -> list[tuple[int, ...]]:
    n = len(task.metadata["names"])
    return [
        pos
        for pos in itertools.permutations(range(n))
        if all(true_of(c, pos, n) for c in task.metadata["clues"])
    ]


def z3_clue(c: list, p: list, n: int) -> z3.BoolRef:
    kind, a = c[0], p[c[1]]
    if kind == "at":
        return a == c[2]
    if kind == "not_at":
        return a != c[2]
    if kind == "end":
        return z3.Or(a == 0, a == n - 1)
    if kind == "middle":
        return z3.And(a > 0, a < n - 1)
    b = p[c[2]]
    if kind == "left":
        return a < b
    if kind == "next":
        return b == a + 1
    if kind == "adjacent":
        return z3.Or(b == a + 1, a == b + 1)
    if kind == "apart":
        return z3.And(b != a + 1, a != b + 1)
    assert kind == "gap"
    return z3.Or(b - a == c[3], a - b == c[3])


def z3_count(task: Task) -> int:
    n = len(task.metadata["names"])
    p = [z3.Int(f"p{i}") for i in range(n)]
    s = z3.Solver()
    s.add(z3.Distinct(p), *[z3.And(0 <= x, x < n) for x in p])
    s.add(*[z3_clue(c, p, n) for c in task.metadata["clues"]])
    count = 0
    while count < 2 and s.check() == z3.sat:
        m = s.model()
        count += 1
        s.add(z3.Or([x != m.eval(x) for x in p]))
    return count


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 6))
def test_unique_by_brute_force(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    solutions = brute_force(task)
    assert solutions == [tuple(task.metadata["solution"])]
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutated = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(mutated) >= 3
    for response in mutated:
        assert not verify(task, response).correct, response


@pytest.mark.parametrize("seed", [0, 1])
def test_unique_by_z3_at_high_levels(seed: int) -> None:
    task = make_task(FAMILY, seed=seed, level=10)
    assert z3_count(task) == 1
    assert verify(task, IMPL.solve_exact(task).response).correct


def test_answer_formats_and_wrong_answers() -> None:
    task = make_task(FAMILY, seed=7, level=4)
    order = task.answer.split(", ")
    variants = [
        ", ".join(order),
        " < ".join(order),
        "\n".join(f"{i}. {name}" for i, name in enumerate(order, 1)),
        " then ".join(name.upper() for name in order),
        "-".join(order),
    ]
    for text in variants:
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert verify(task, "Answer: " + ", ".join(order)).correct
    swapped = [order[1], order[0], *order[2:]]
    verdict = verify(task, f"<answer>{', '.join(swapped)}</answer>")
    assert verdict.format_ok and not verdict.correct
    for text in (
        ", ".join(order[:-1]),
        ", ".join(order + order[:1]),
        ", ".join(order) + ", Zed",
        "\n".join(f"{i + 1}. {name}" for i, name in enumerate(order, 1)),
        ", ".join(order).replace(",", " is not", 1),
    ):
        verdict = verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and not verdict.format_ok, text


def _hostile(order: list[str]) -> list[str]:
    return [
        "9" * 5000,  # int() raises beyond 4,300 digits
        "1. " + order[0] + " " + "9" * 5000,
        ", ".join(order) + " ²",
        " > ".join(order),  # ">" would reverse the meaning: refused, not skipped
        ", ".join(order).replace(", ", ", ¬", 1),
        ", ".join(order).replace(", ", " ≠ ", 1),
        "\n".join(f"{name} {i}." for i, name in enumerate(order, 1)),  # numbers after the names
    ]


def test_hostile_and_unclear_answers_are_format_errors() -> None:
    # issue 16: a 5,000-digit number raised ValueError inside verify; signs were skipped
    task = make_task(FAMILY, seed=7, level=4)
    for text in _hostile(task.answer.split(", ")):
        verdict = verify(task, f"<answer>{text}</answer>")
        assert verdict.error is None and not verdict.format_ok, (text[:40], verdict)


@pytest.mark.parametrize("response", ["", "\x00" * 500, "Alice, " * 200_000, "ß" * 5000])
def test_bad_input(response: str) -> None:
    verdict = verify(make_task(FAMILY, seed=1, level=3), response)
    assert not verdict.correct and not verdict.format_ok and verdict.error is None


def test_calibration_trend() -> None:
    effort, weak = {}, {}
    for level in (1, 5, 10):
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(25)]
        effort[level] = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        weak[level] = np.mean([verify(t, IMPL.solve_weak(t).response).correct for t in tasks])
    assert effort[1] < effort[5] < effort[10]
    assert weak[1] > weak[10]


def test_knobs() -> None:
    task = make_task(FAMILY, seed=2, people=6, clue_kinds="left,gap", minimal=True)
    assert {c[0] for c in task.metadata["clues"]} <= {"left", "gap"}
    assert len(brute_force(task)) == 1
    with pytest.raises(ValueError):
        make_task(FAMILY, seed=1, clue_kinds="left,sideways")
