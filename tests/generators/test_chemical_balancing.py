"""Tests for the chemical_balancing family."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Difficulty, Task
from palaestra.generators.arithmetic.chemical_balancing import composition_matrix, parse_formula
from palaestra.registry import get, make_task, verify

FAMILY = "chemical_balancing"
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


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 8))
def test_unique_balance_cross_checked_with_sympy(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    reactants, products = task.metadata["reactants"], task.metadata["products"]
    _, matrix = composition_matrix(reactants + products)
    space = sympy.Matrix(matrix).nullspace()
    assert len(space) == 1  # balanced up to scale in exactly one way
    vector = space[0] / sympy.gcd(list(space[0]))
    vector = vector * sympy.lcm([x.q for x in vector])
    signs = [1] * len(reactants) + [-1] * len(products)
    coefficients = [abs(int(x)) for x in vector]
    assert all(int(x) * s * int(vector[0]) > 0 for x, s in zip(vector, signs, strict=True))
    assert coefficients == task.metadata["coefficients"]


def test_formatting_variants() -> None:
    task = Task(
        family=FAMILY,
        family_version=get(FAMILY).version,
        difficulty=Difficulty(level=None, knobs={}),
        seed=0,
        prompt="Fe + O2 -> FeO",
        answer="2 Fe + O2 -> 2 FeO",
        metadata={"reactants": ["Fe", "O2"], "products": ["FeO"], "coefficients": [2, 1, 2]},
    )
    for text in (
        "2 Fe + O2 -> 2 FeO",
        "2Fe + 1O2 → 2FeO",
        "O2 + 2 Fe = 2 FeO",
        "2 Fe(s) + O2(g) ⟶ 2 FeO(s)",
        "2, 1, 2",
        "2 1 2",
        "$2\\,Fe + O_2 \\rightarrow 2\\,FeO$".replace("\\,", " ").replace("O_2", "O2"),
    ):
        assert verify(task, f"<answer>{text}</answer>").correct, text
    for text in (
        "4 Fe + 2 O2 -> 4 FeO",
        "2 FeO -> 2 Fe + O2",
        "2 Fe + O2 -> 2 FeO + O2",
        "2 Fe + O -> 2 FeO",
    ):
        assert not verify(task, f"<answer>{text}</answer>").correct, text
    assert not verify(task, "<answer>2, 1</answer>").correct
    assert not verify(task, "<answer>balanced!</answer>").format_ok


def test_formula_parser() -> None:
    assert parse_formula("Al2(SO4)3") == Counter({"Al": 2, "S": 3, "O": 12})
    assert parse_formula("H₂O") == Counter({"H": 2, "O": 1})
    for bad in ("Xy2", "(OH", "OH)", "2H2O", "", "H2O+"):
        assert parse_formula(bad) is None, bad


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(10)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak7, effort7) = rates(1), rates(7)
    assert weak1 > weak7 and effort1 < effort7
