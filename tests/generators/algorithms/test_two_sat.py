"""two_sat: the reference satisfies every clause, z3's model is paid, and a clause-breaking
assignment is refused (every level)."""

from __future__ import annotations

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "two_sat"


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_z3_models_are_paid_and_the_reference_satisfies_every_clause(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    n, clauses = task.metadata["variables"], task.metadata["clauses"]
    reference = {
        int(part.split("=")[0][1:]): part.split("=")[1] == "true" for part in task.answer.split(", ")
    }
    assert all(any(reference[abs(x)] == (x > 0) for x in clause) for clause in clauses)
    ctx = z3.Context()
    xs = [z3.Bool(f"x{i}", ctx) for i in range(1, n + 1)]
    solver = z3.Solver(ctx=ctx)
    for clause in clauses:
        solver.add(z3.Or(*[xs[abs(x) - 1] if x > 0 else z3.Not(xs[abs(x) - 1]) for x in clause]))
    assert solver.check() == z3.sat
    model = solver.model()
    values = [z3.is_true(model.eval(x, model_completion=True)) for x in xs]
    text = ", ".join(f"x{i + 1}={'true' if v else 'false'}" for i, v in enumerate(values))
    assert palaestra.verify(task, f"<answer>{text}</answer>").correct
    for i in range(n):
        flipped = list(values)
        flipped[i] = not flipped[i]
        if not all(any(flipped[abs(x) - 1] == (x > 0) for x in clause) for clause in clauses):
            bad = ", ".join(f"x{j + 1}={'true' if v else 'false'}" for j, v in enumerate(flipped))
            assert not palaestra.verify(task, f"<answer>{bad}</answer>").correct
            break
