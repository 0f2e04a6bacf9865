"""unsat_core: any MUS counts, cross-checked against a brute-force truth-table enumeration."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.formal import unsat_core
from palaestra.registry import get, make_task, verify

FAMILY = "unsat_core"
IMPL = get(FAMILY).impl


def brute_sat(clauses: list[list[int]], n: int) -> bool:
    for bits in itertools.product((False, True), repeat=n):
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses):
            return True
    return False


def brute_is_mus(clauses: list[list[int]], n: int, chosen: list[int]) -> bool:
    picked = [clauses[k] for k in chosen]
    if brute_sat(picked, n):
        return False
    return all(brute_sat(picked[:i] + picked[i + 1 :], n) for i in range(len(picked)))


def all_muses(clauses: list[list[int]], n: int, limit: int) -> list[list[int]]:
    found: list[list[int]] = []
    for size in range(1, len(clauses) + 1):
        for combo in itertools.combinations(range(len(clauses)), size):
            if brute_is_mus(clauses, n, list(combo)):
                found.append(list(combo))
                if len(found) >= limit:
                    return found
    return found


def fmt(indices: list[int]) -> str:
    return "<answer>" + ", ".join(str(k + 1) for k in indices) + "</answer>"


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 6))
def test_reference_is_a_mus_by_brute_force_and_mutations_fail(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    mus = [int(t) - 1 for t in task.answer.split(", ")]
    assert brute_is_mus(meta["clauses"], meta["variables"], mus)
    assert not brute_sat(meta["clauses"], meta["variables"]) and len(mus) < len(meta["clauses"])
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response


def test_verifier_agrees_with_brute_force_on_every_small_subset() -> None:
    task = make_task(FAMILY, seed=4, level=1)
    meta = task.metadata
    m = len(meta["clauses"])
    for size in range(1, m + 1):
        for combo in itertools.combinations(range(m), size):
            expected = brute_is_mus(meta["clauses"], meta["variables"], list(combo))
            assert verify(task, fmt(list(combo))).correct == expected, combo


def test_two_distinct_cores_both_pass() -> None:
    for seed in range(40):
        task = make_task(FAMILY, seed=seed, level=3)
        muses = all_muses(task.metadata["clauses"], task.metadata["variables"], 2)
        if len(muses) == 2:
            break
    assert len(muses) == 2 and muses[0] != muses[1]
    for mus in muses:
        assert verify(task, fmt(mus)).correct
        # order and spelling do not matter
        assert verify(
            task, "<answer>{" + ", ".join(f"C{k + 1}" for k in reversed(mus)) + "}</answer>"
        ).correct


def test_wrong_answers_name_the_reason() -> None:
    task = make_task(FAMILY, seed=8, level=5)
    mus = [int(t) - 1 for t in task.answer.split(", ")]
    m = len(task.metadata["clauses"])
    extra = next(k for k in range(m) if k not in mus)
    cases = {
        fmt(list(range(m))): "not minimal",
        fmt(mus[1:]): "satisfiable",
        fmt(sorted([*mus, extra])): "not minimal",
    }
    for response, reason in cases.items():
        verdict = verify(task, response)
        assert verdict.format_ok and not verdict.correct and reason in verdict.reason
    for bad in (
        "<answer>0, 1</answer>",
        f"<answer>{m + 1}</answer>",
        "<answer>1, 1, 2</answer>",
        "<answer>x</answer>",
    ):
        assert not verify(task, bad).format_ok


def test_pathological_submissions_are_bounded(monkeypatch) -> None:
    task = make_task(FAMILY, seed=1, level=10)
    m = len(task.metadata["clauses"])
    huge = "<answer>" + ", ".join(str(k) for k in range(1, 200_000)) + "</answer>"
    assert not verify(task, huge).format_ok
    assert not verify(task, "<answer>" + "9" * 50_000 + "</answer>").format_ok
    # a solver that gives up is an error verdict, never a silent score (z3 decides beyond
    # TRUTH_TABLE_MAX_VARIABLES variables; the truth table never gives up)
    monkeypatch.setattr(unsat_core, "TRUTH_TABLE_MAX_VARIABLES", 0)
    monkeypatch.setattr(unsat_core.CoreChecker, "status", lambda self, chosen: "unknown")
    verdict = verify(task, fmt(list(range(m))))
    assert verdict.error is not None and not verdict.correct


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 6))
def test_weak_solver_answers_an_unsat_core_that_may_not_be_minimal(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    core, _ = unsat_core.weak_mus(meta["clauses"])
    assert not brute_sat([meta["clauses"][k] for k in core], meta["variables"])
    run = IMPL.solve_weak(task)
    assert verify(task, run.response).correct == brute_is_mus(meta["clauses"], meta["variables"], core)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 6),
    data=st.data(),
)
def test_truth_table_check_gives_the_z3_checks_verdicts(n: int, data) -> None:
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from((v, -v)))
    clauses = data.draw(st.lists(st.lists(literal, min_size=1, max_size=3), min_size=1, max_size=12))
    clauses.append([n])  # every variable index up to n occurs
    chosen = data.draw(st.lists(st.integers(0, len(clauses) - 1), min_size=1, unique=True))
    by_table = unsat_core.check_mus_by_truth_table(clauses, chosen, n)
    checker = unsat_core.CoreChecker(clauses)  # the z3 path, in a fresh context
    if checker.status(chosen) == "sat":
        expected = "the chosen clauses are satisfiable together"
    else:
        redundant = [k for k in chosen if checker.status([c for c in chosen if c != k]) == "unsat"]
        expected = (
            f"not minimal: still unsatisfiable without clause {redundant[0] + 1}" if redundant else "correct"
        )
    assert by_table.reason == expected
    assert by_table.correct == brute_is_mus(clauses, n, chosen)
