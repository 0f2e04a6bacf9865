"""loop_invariant: z3-checked invariants; several valid ones pass, wrong ones fail, parser is safe."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.formal.loop_invariant import ParseError, check_invariant, parse_invariant
from palaestra.registry import get, make_task, verify

FAMILY = "loop_invariant"
IMPL = get(FAMILY).impl


def ans(text: str) -> str:
    return f"<answer>{text}</answer>"


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_reference_exact_and_mutations(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response


def test_distinct_valid_invariants_pass() -> None:
    task = make_task(FAMILY, seed=0, level=2)
    meta = task.metadata
    c, a = meta["init"][0], meta["steps"][0]
    valid = [
        task.answer,
        f"x <= n and y1 == {c} + {a} * x",  # no lower bound needed
        f"(x <= n) ∧ ({a} * x - y1 == {-c}) ∧ x >= 0",
        f"(x > n => false) && y1 - {a} * x == {c}",
    ]
    for text in valid:
        assert verify(task, ans(text)).correct, text


def test_wrong_invariants_name_the_failing_condition() -> None:
    task = make_task(FAMILY, seed=0, level=2)
    meta = task.metadata
    c, a = meta["init"][0], meta["steps"][0]
    cases = {
        f"x <= n && y1 == {c + 1} + {a} * x": "initiation",
        f"x <= n && y1 == {c} + {a} * x && x <= 3": "consecution",
        f"y1 == {c} + {a} * x": "sufficiency",
        "true": "sufficiency",
    }
    for text, condition in cases.items():
        verdict = verify(task, ans(text))
        assert verdict.format_ok and not verdict.correct and verdict.reason.startswith(condition), (
            text,
            verdict,
        )


def test_parser_rejects_anything_outside_the_language() -> None:
    import z3

    env = {"x": z3.Int("x"), "n": z3.Int("n")}
    for text in (
        "__import__('os').system('true')",
        "x <= n; import os",
        "z <= n",
        "x <= " + "9" * 30,
        "(" * 5000 + "x <= n" + ")" * 5000,
        "x <=",
        "",
    ):
        try:
            parse_invariant(text, env)
        except ParseError:
            continue
        raise AssertionError(f"accepted {text!r}")
    assert z3.is_bool(parse_invariant("0 <= x <= n", env))


def test_pathological_submissions_are_bounded() -> None:
    task = make_task(FAMILY, seed=3, level=10)
    for text in ("x <= n &&" * 2000 + " true", "(" * 3000 + "x <= n" + ")" * 3000):
        verdict = verify(task, ans(text))
        assert not verdict.correct and verdict.error is None
    # a nonlinear invariant under a 1 ms budget: an error verdict or a definite answer, never a hang
    hard = "x * x * x * y1 * y1 == n * n * n * y1 + 7 * x * y1 * n || x <= n && y1 * y1 * x == x * y1 * y1"
    verdict, _ = check_invariant(dict(task.metadata), hard, timeout_ms=1)
    assert verdict.error is not None or verdict.format_ok
