"""Tests for the chinese_remainder family."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.ntheory.modular import solve_congruence

from palaestra.core import Task
from palaestra.generators.arithmetic.chinese_remainder import parse_congruence, solve_system
from palaestra.registry import get, make_task, verify

FAMILY = "chinese_remainder"
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


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_answer_matches_sympy(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    pairs = list(zip(task.metadata["residues"], task.metadata["moduli"], strict=True))
    expected = solve_congruence(*pairs)
    if expected is None:
        assert task.answer == "no solution"
    else:
        assert int(task.answer) == int(expected[0]) and int(task.metadata["lcm"]) == int(expected[1])


@settings(max_examples=60, deadline=None)
@given(
    residues=st.lists(st.integers(0, 40), min_size=2, max_size=4),
    moduli=st.lists(st.integers(2, 41), min_size=4, max_size=4),
)
def test_solver_matches_brute_force(residues: list[int], moduli: list[int]) -> None:
    moduli = moduli[: len(residues)]
    residues = [a % m for a, m in zip(residues, moduli, strict=True)]
    x, lcm, _ = solve_system(residues, moduli)
    found = [y for y in range(lcm) if all(y % m == a for a, m in zip(residues, moduli, strict=True))]
    assert x == (found[0] if found else None)


def test_no_solution_systems_occur_and_verify() -> None:
    task = next(t for s in range(100) if (t := make_task(FAMILY, seed=s, level=6)).answer == "no solution")
    for text in ("no solution", "No solutions.", "There is no solution", "none"):
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert not verify(task, "<answer>0</answer>").correct


def test_answer_format_variants() -> None:
    task = make_task(FAMILY, seed=3, level=3)
    x, lcm = int(task.answer), int(task.metadata["lcm"])
    for text in (
        f"{x}",
        f"x = {x}",
        f"x ≡ {x} (mod {lcm})",
        f"{x} \\pmod{{{lcm}}}",
        f"{x:,}",
        f"Answer: {x}",
    ):
        assert verify(task, text).correct, text
    assert not verify(task, f"x = {x + lcm}").correct  # a solution, but not the least one
    assert not verify(task, f"{x} (mod {lcm * 2})").correct
    assert not verify(task, "no solution").correct
    assert parse_congruence("23 mod 60") == (23, 60)
    assert parse_congruence("x = twenty") is None


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(30)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak5, effort5), (weak10, effort10) = rates(1), rates(5), rates(10)
    assert weak1 >= weak5 >= weak10 and weak1 == 1.0 and weak10 < 0.5
    assert effort1 < effort5 < effort10


@pytest.mark.parametrize(
    "text,value",
    [
        ("$297$", (297, None)),
        ("297.0", (297, None)),
        ("7,767,531", (7767531, None)),
        ("x = \\boxed{297}", (297, None)),
        ("x \\equiv 297 \\pmod{360}", (297, 360)),
        ("$x ≡ 297 (mod 360)$.", (297, 360)),
    ],
)
def test_numbers_are_read_by_the_shared_reader(text: str, value: tuple) -> None:
    assert parse_congruence(text) == value  # the first three were refused before


@pytest.mark.parametrize("text", ["297 or 298", "297 (mod 360) junk", "297 (mod 360.5)", "mod 5", "x = nan"])
def test_anything_left_unread_is_refused(text: str) -> None:
    assert parse_congruence(text) is None


def test_a_non_integer_is_wrong_not_unparseable() -> None:
    task = make_task(FAMILY, seed=4, level=2)
    if task.answer != "no solution":
        assert verify(task, f"<answer>{task.answer}.5</answer>").status == "wrong"
