"""hoare_triple: the wp is checked by z3 equivalence; equivalent forms pass, wrong ones fail."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.formal.hoare_triple import check_equivalent, wp
from palaestra.registry import get, make_task, verify

FAMILY = "hoare_triple"
IMPL = get(FAMILY).impl


def ans(text: str) -> str:
    return f"<answer>{text}</answer>"


def run(program, state: dict[str, int]) -> dict[str, int]:
    """An interpreter independent of the wp calculus (expressions are 'a + k * b + c' / 'a - b + c')."""

    def value(expr: str, s: dict[str, int]) -> int:
        tokens = expr.split()
        total, sign = 0, 1
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok in "+-":
                sign = 1 if tok == "+" else -1
            elif i + 2 < len(tokens) and tokens[i + 1] == "*":
                total += sign * int(tok) * s[tokens[i + 2]]
                i += 2
            else:
                total += sign * (s[tok] if tok in s else int(tok))
            i += 1
        return total

    s = dict(state)
    for stmt in program:
        if stmt[0] == "if":
            left, right = stmt[1].split(" < ")
            target = stmt[2] if value(left, s) < value(right, s) else stmt[3]
            s[target[1]] = value(target[2], s)
        else:
            s[stmt[1]] = value(stmt[2], s)
    return s


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_reference_exact_mutations(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response


def test_wp_agrees_with_running_the_program() -> None:
    """wp(S, Q) holds in a state exactly when running S from it ends in Q (checked pointwise by z3)."""
    for seed in range(3):
        task = make_task(FAMILY, seed=seed, level=6)
        meta = task.metadata
        a_b, c = meta["post"].split(" > ")
        a, b = a_b.split(" + ")
        for x, y, z in itertools.product((-7, 0, 5), repeat=3):
            end = run(meta["program"], {"x": x, "y": y, "z": z})
            expected = end[a] + end[b] > int(c)
            point = f"x == {x} && y == {y} && z == {z}"
            # wp ∧ point is equivalent to point exactly when wp holds at the point
            holds = check_equivalent(f"({wp(meta['program'], meta['post'])}) && {point}", point)[0].correct
            assert holds == expected


def test_equivalent_forms_pass_and_wrong_ones_fail() -> None:
    task = make_task(FAMILY, seed=2, level=4)
    ref = task.answer
    for text in (ref, f"!(!({ref}))", f"({ref}) || false", f"true => ({ref})"):
        assert verify(task, ans(text)).correct, text
    for text, why in (
        (f"({ref}) && x > 1000", "too strong"),
        (f"({ref}) || x > 1000", "too weak"),
        ("false", "too strong"),
    ):
        verdict = verify(task, ans(text))
        assert verdict.format_ok and not verdict.correct and why in verdict.reason, (text, verdict)


def test_pathological_submissions_are_bounded() -> None:
    task = make_task(FAMILY, seed=1, level=10)
    for text in ("x > 0 && " * 3000 + "true", "__import__('os')", "w > 1"):
        verdict = verify(task, ans(text))
        assert not verdict.correct and not verdict.format_ok and verdict.error is None
    hard = "x * x * x + y * y * y == z * z * z && x * y * z != 0 || " + task.answer
    verdict, _ = check_equivalent(task.answer, hard, timeout_ms=1)
    assert not verdict.correct
    assert verdict.error is not None or verdict.format_ok


def test_a_long_equivalent_rewriting_of_a_level_10_precondition_is_accepted() -> None:
    import re

    task = make_task(FAMILY, seed=0, level=10)
    reference = IMPL.solve_exact(task).response.split("<answer>")[1].split("</answer>")[0]
    rewritten = re.sub(r"\b(\d+)\b", r"(\1 + 0)", reference)  # 618 tokens: refused at the old cap of 600
    assert verify(task, f"<answer>{rewritten}</answer>").correct
