"""Tests for the combinatorial_counting family."""

from __future__ import annotations

from itertools import combinations, product
from math import factorial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.functions.combinatorial.numbers import stirling

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "combinatorial_counting"
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


def _independent(kind: str, p: dict) -> int | None:
    """Counts by methods other than the family's (grid DP, Stirling numbers, direct loops)."""
    if kind == "lattice":
        grid = [[0] * (p["b"] + 1) for _ in range(p["a"] + 1)]
        for x in range(p["a"] + 1):
            for y in range(p["b"] + 1):
                if (x, y) == (p.get("p"), p.get("q")):
                    continue
                grid[x][y] = 1 if x == y == 0 else (grid[x - 1][y] if x else 0) + (grid[x][y - 1] if y else 0)
        return grid[p["a"]][p["b"]]
    if kind == "onto":
        return int(stirling(p["n"], p["k"]) * factorial(p["k"])) if p.get("restricted") else p["k"] ** p["n"]
    if kind == "binary":
        strings = ["".join(bits) for bits in product("01", repeat=p["n"])]
        return sum(s.count("1") == p["t"] and not (p.get("restricted") and "11" in s) for s in strings)
    if kind == "committee":
        people = ["m"] * p["men"] + ["w"] * p["women"]
        return sum(
            [people[i] for i in c].count("w") >= p["j"] and not (p["restricted"] and {0, 1} <= set(c))
            for c in combinations(range(len(people)), p["k"])
        )
    return None


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_answers_match_independent_counts(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    expected = _independent(task.metadata["kind"], task.metadata["params"])
    if expected is not None:
        assert int(task.answer) == expected


def test_answer_formats() -> None:
    task = make_task(FAMILY, seed=0, level=5)
    value = int(task.answer)
    for text in (f"{value}", f"{value:,}", f"\\boxed{{{value}}}", f"Answer: {value}", f"{value}.0"):
        assert verify(task, text).correct, text
    for text in (f"{value + 1}", f"{value}.5", "nan", f"{value} or {value + 1}"):
        assert not verify(task, text).correct, text


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(40)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak5, effort5), (weak10, effort10) = rates(1), rates(5), rates(10)
    assert weak1 == 1.0 and weak1 >= weak5 >= weak10 and weak10 == 0.0
    assert effort1 < effort5 < effort10
