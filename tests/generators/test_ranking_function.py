"""ranking_function: z3-checked ranking functions; several valid ones pass, wrong ones fail."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.formal.ranking_function import check_ranking, planted_ranking
from palaestra.registry import get, make_task, verify

FAMILY = "ranking_function"
IMPL = get(FAMILY).impl


def ans(text: str) -> str:
    return f"<answer>{text}</answer>"


def simulate_terminates(meta, start: list[int], limit: int = 10_000) -> int:
    """Iterations until the guard fails (independent of z3)."""
    v = list(start)
    for steps in range(limit):
        if not all(
            sum(c * x for c, x in zip(g, v, strict=True)) < b
            for g, b in zip(meta["guards"], meta["bounds"], strict=True)
        ):
            return steps
        v = [x + d for x, d in zip(v, meta["deltas"], strict=True)]
    raise AssertionError("did not terminate")


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_reference_exact_mutations_and_simulation(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    for response in IMPL.mutated_responses(task, np.random.default_rng(seed)):
        assert not verify(task, response).correct, response
    rng = np.random.default_rng(seed)
    for _ in range(5):  # the loop really terminates, within the planted bound
        start = [int(x) for x in rng.integers(-30, 30, meta["variables"])]
        g, b = meta["guards"][meta["planted"]], meta["bounds"][meta["planted"]]
        slack = b - sum(c * x for c, x in zip(g, start, strict=True))
        assert simulate_terminates(meta, start) <= max(0, slack)


def test_distinct_valid_ranking_functions_pass() -> None:
    task = make_task(FAMILY, seed=4, level=5)
    ref = planted_ranking(task.metadata)
    for text in (ref, f"2 * ({ref})", f"({ref}) + 5", f"3 * ({ref}) + 1"):
        assert verify(task, ans(text)).correct, text


def test_wrong_answers_and_parser_safety() -> None:
    task = make_task(FAMILY, seed=4, level=5)
    ref = planted_ranking(task.metadata)
    for text, why in ((f"-({ref})", "bounded"), (f"({ref}) - 500", "bounded"), ("7", "decreasing")):
        verdict = verify(task, ans(text))
        assert verdict.format_ok and not verdict.correct and why in verdict.reason, (text, verdict)
    for text in ("v1 < 3", "__import__('os')", "w9 + 1", "1 +", "9" * 40, "(" * 4000 + "v1" + ")" * 4000):
        verdict = verify(task, ans(text))
        assert not verdict.format_ok and verdict.error is None, text


def test_pathological_nonlinear_submission_is_bounded() -> None:
    task = make_task(FAMILY, seed=1, level=10)
    hard = "v1 * v1 * v2 * v3 * v4 - v5 * v5 * v5 * v6 + v2 * v2 * v2 * v2 * v6"
    verdict, _ = check_ranking(dict(task.metadata), hard, timeout_ms=1)
    assert not verdict.correct
    assert verdict.error is not None or verdict.format_ok


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_weak_solver_is_right_exactly_when_the_planted_conjunct_comes_first(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    run = IMPL.solve_weak(task)
    assert verify(task, run.response).correct == (task.metadata["planted"] == 0)
