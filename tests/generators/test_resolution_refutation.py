"""resolution_refutation: prover output checks; single-step corruptions are named; any proof counts."""

from __future__ import annotations

import itertools
import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.formal.resolution_refutation import check_proof, narrow_refute, refute, render_steps
from palaestra.registry import get, make_task, verify

FAMILY = "resolution_refutation"
IMPL = get(FAMILY).impl


def brute_sat(clauses, n: int) -> bool:
    return any(
        all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses)
        for bits in itertools.product((False, True), repeat=n)
    )


def wrap(lines: list[str]) -> str:
    return "<answer>\n" + "\n".join(lines) + "\n</answer>"


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_every_generated_proof_checks_and_formula_is_unsat(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    assert not brute_sat(meta["clauses"], meta["variables"])
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 8), data=st.data())
def test_random_single_step_corruptions_name_the_step(seed: int, level: int, data) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    lines = task.answer.split("\n")
    m = len(task.metadata["clauses"])
    k = data.draw(st.integers(0, len(lines) - 1))
    head, clause = lines[k].rsplit(": ", 1)
    kind = data.draw(st.sampled_from(["extra literal", "parent", "pivot"]))
    if kind == "extra literal":
        present = {abs(int(x)) for x in re.findall(r"x(\d+)", clause)}
        v = next(v for v in range(1, 30) if v not in present)
        bad = f"{head}: {clause + ' ∨ ' if clause != '⊥' else ''}x{v}"
    elif kind == "parent":
        bad = re.sub(r"resolve (\d+), (\d+)", lambda mt: f"resolve {mt[1]}, {m + k + 1}", lines[k])
    else:
        bad = re.sub(r"on x(\d+)", "on x99", lines[k])
    verdict = verify(task, wrap(lines[:k] + [bad] + lines[k + 1 :]))
    assert not verdict.correct and verdict.reason.startswith(f"step {m + k + 1}:"), verdict.reason


def test_a_different_valid_refutation_also_passes() -> None:
    task = make_task(FAMILY, seed=1, level=6)
    clauses = task.metadata["clauses"]
    steps, _ = refute(clauses, smart=False)  # another variable order, another proof
    other = render_steps(steps, len(clauses))
    assert other != task.answer
    assert verify(task, f"<answer>\n{other}\n</answer>").correct
    assert verify(task, IMPL.reference_response(task)).correct
    # pivot names are optional when only one variable clashes; spacing and spelling vary
    loose = re.sub(r" on x\d+", "", task.answer).replace(" ∨ ", " v ").replace("resolve", "res")
    assert check_proof(clauses, loose).correct or "name the pivot" in check_proof(clauses, loose).reason


def test_wrong_proofs_and_pathological_input() -> None:
    task = make_task(FAMILY, seed=2, level=4)
    m = len(task.metadata["clauses"])
    lines = task.answer.split("\n")
    wrong = [
        wrap(lines[:-1]),  # no empty clause
        wrap([re.sub(r"resolve \d+, \d+", f"resolve 1, {m + 5}", lines[0])] + lines[1:]),  # future line
        wrap([lines[0].replace(f"{m + 1}.", f"{m + 2}.", 1)] + lines[1:]),  # bad numbering
    ]
    for response in wrong:
        assert not verify(task, response).correct
    huge = wrap([f"{m + k}. resolve 1, 2 on x1: x1" for k in range(1, 5000)])
    verdict = verify(task, huge)
    assert not verdict.correct and verdict.error is None
    assert not verify(task, "the empty clause follows").format_ok


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_weak_solver_answers_only_valid_proofs_and_refutes_every_2cnf(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    run = IMPL.solve_weak(task)
    if get(FAMILY).levels[level].clause_width == 2:
        assert run.response is not None  # width-2 resolution is complete for 2-CNF
    if run.response is not None:
        assert verify(task, run.response).correct


def test_weak_solver_misses_a_refutation_that_needs_wide_clauses() -> None:
    # every refutation resolves the two 4-clauses (the only ones with x1) into x2 ∨ x3 ∨ x4 or
    # a 3-literal clause on the way: too wide for the weak solver, easy for the DPLL prover
    clauses = [[1, 2, 3, 4], [-1, 2, 3, 4], [-2, 3, 4], [-3, 4], [-4]]
    steps, _ = refute(clauses)
    assert steps is not None
    assert narrow_refute(clauses)[0] is None


def test_a_long_run_of_spaces_in_a_step_is_refused_in_linear_time() -> None:
    import time

    task = make_task(FAMILY, seed=1, level=2)
    first = IMPL.solve_exact(task).response.split("\n")[1]
    step = first.split(":")[0] + ": x1" + " " * 19_000 + "x"
    started = time.process_time()
    verdict = verify(task, f"<answer>\n{step}\n</answer>")  # 1.2 s before
    assert not verdict.correct and time.process_time() - started < 0.5
