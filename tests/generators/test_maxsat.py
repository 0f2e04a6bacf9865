"""maxsat: the z3 optimum matches brute force; every optimal assignment passes, worse ones fail."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.formal.maxsat import score
from palaestra.registry import get, make_task, verify

FAMILY = "maxsat"
IMPL = get(FAMILY).impl


def fmt(values: tuple[bool, ...] | list[bool]) -> str:
    return (
        "<answer>"
        + ", ".join(f"x{i}={'true' if v else 'false'}" for i, v in enumerate(values, 1))
        + "</answer>"
    )


def brute(meta) -> tuple[int, list[tuple[bool, ...]]]:
    best, arg = -1, []
    for bits in itertools.product((False, True), repeat=meta["variables"]):
        broken, weight = score(meta, bits)
        if broken:
            continue
        if weight > best:
            best, arg = weight, [bits]
        elif weight == best:
            arg.append(bits)
    return best, arg


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 7))
def test_optimum_matches_brute_force_and_verifier_agrees(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    best, optimal = brute(meta)
    assert best == meta["optimum"] < meta["total_weight"]
    for values in optimal[:3]:
        assert verify(task, fmt(values)).correct
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not verify(task, response).correct, response


def test_every_assignment_judged_as_brute_force_says() -> None:
    task = make_task(FAMILY, seed=3, level=3)
    meta = task.metadata
    for bits in itertools.product((False, True), repeat=meta["variables"]):
        broken, weight = score(meta, bits)
        assert verify(task, fmt(bits)).correct == (broken == 0 and weight == meta["optimum"])


def test_two_distinct_optima_pass_and_wrong_answers_fail() -> None:
    for seed in range(60):
        task = make_task(FAMILY, seed=seed, level=4)
        best, optimal = brute(task.metadata)
        if len(optimal) >= 2:
            break
    assert len(optimal) >= 2
    assert verify(task, fmt(optimal[0])).correct and verify(task, fmt(optimal[1])).correct
    meta = task.metadata
    worse = [
        bits
        for bits in itertools.product((False, True), repeat=meta["variables"])
        if score(meta, bits)[0] == 0 and score(meta, bits)[1] < best
    ]
    breaking = [
        bits for bits in itertools.product((False, True), repeat=meta["variables"]) if score(meta, bits)[0]
    ]
    for bits in worse[:3]:
        verdict = verify(task, fmt(bits))
        assert not verdict.correct and "below the optimum" in verdict.reason
    for bits in breaking[:2]:
        verdict = verify(task, fmt(bits))
        assert not verdict.correct and "hard clause" in verdict.reason
    assert len(worse[:3]) + len(breaking[:2]) >= 3


def test_formats_and_pathological_input() -> None:
    task = make_task(FAMILY, seed=5, level=5)
    values = [part.endswith("true") for part in task.answer.split(", ")]
    n = len(values)
    variants = [
        " ".join(str(i if v else -i) for i, v in enumerate(values, 1)) + " 0",
        ", ".join(("" if v else "¬") + f"x{i}" for i, v in enumerate(values, 1)),
        "; ".join(f"x{i}: {'T' if v else 'F'}" for i, v in enumerate(values, 1)),
    ]
    for text in variants:
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert not verify(task, "<answer>" + ", ".join(f"x{i}=true" for i in range(1, n)) + "</answer>").format_ok
    huge = "<answer>" + "x1=true, " * 200_000 + "</answer>"
    verdict = verify(task, huge)
    assert not verdict.correct and not verdict.format_ok and verdict.error is None
