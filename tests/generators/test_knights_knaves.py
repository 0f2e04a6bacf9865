"""knights_knaves: uniqueness by brute force, verifier formats, solvers and calibration."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "knights_knaves"
IMPL = get(FAMILY).impl


def holds(f: list, values: tuple[bool, ...]) -> bool:
    """An evaluator written independently of the generator's (for the brute-force check)."""
    op = f[0]
    if op == "var":
        return values[f[1]]
    if op == "not":
        return not holds(f[1], values)
    if op == "and":
        return all(holds(g, values) for g in f[1])
    if op == "or":
        return any(holds(g, values) for g in f[1])
    if op == "iff":
        return holds(f[1], values) is holds(f[2], values)
    if op == "exactly":
        return [holds(g, values) for g in f[2]].count(True) == f[1]
    raise AssertionError(f"unexpected connective {op}")


def brute_force(task: Task) -> list[tuple[bool, ...]]:
    statements = task.metadata["statements"]
    return [
        values
        for values in itertools.product((True, False), repeat=len(statements))
        if all(values[i] is holds(s, values) for i, s in enumerate(statements))
    ]


def roles(task: Task) -> dict[str, str]:
    return dict(zip(task.metadata["names"], task.metadata["solution"], strict=True))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_unique_by_brute_force_and_reference_verifies(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    solutions = brute_force(task)
    assert len(solutions) == 1
    assert ["knight" if v else "knave" for v in solutions[0]] == task.metadata["solution"]
    assert task.answer == roles(task)
    assert verify(task, IMPL.reference_response(task)).correct
    exact = IMPL.solve_exact(task)
    assert verify(task, exact.response).correct
    assert exact.effort == task.metadata["search_nodes"]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_mutations_are_wrong(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    mutated = IMPL.mutated_responses(task, np.random.default_rng(seed))
    assert len(set(mutated)) >= 3
    for response in mutated:
        assert not verify(task, response).correct, response


def _sample() -> Task:
    return make_task(FAMILY, seed=11, level=4)


def test_accepted_answer_formats() -> None:
    task = _sample()
    expected = roles(task)
    knights = [n for n, r in expected.items() if r == "knight"]
    knaves = [n for n, r in expected.items() if r == "knave"]
    assert knights and knaves
    variants = [
        ", ".join(f"{n} is a {r}" for n, r in expected.items()),
        "; ".join(f"{n}: {r}" for n, r in expected.items()),
        json.dumps(expected),
        json.dumps(list(expected.items())),
        "\n".join(f"- {n} - {r.upper()}" for n, r in reversed(expected.items())),
        f"{' and '.join(knights)} {'are knights' if len(knights) > 1 else 'is a knight'}, "
        f"{' and '.join(knaves)} {'are knaves' if len(knaves) > 1 else 'is a knave'}.",
        ", ".join(f"{n.lower()} is a {r}" for n, r in expected.items()),
    ]
    for text in variants:
        for wrapped in (f"<answer>{text}</answer>", f"Reasoning done.\n\\boxed{{{text}}}", text):
            verdict = verify(task, wrapped)
            assert verdict.correct, (wrapped, verdict.reason)
    answer_line = "Let me think.\nAnswer: " + "; ".join(f"{n}: {r}" for n, r in expected.items())
    assert verify(task, answer_line).correct


def test_wrong_and_unclear_answers() -> None:
    task = _sample()
    expected = roles(task)
    names = list(expected)
    flip = {"knight": "knave", "knave": "knight"}
    full = ", ".join(f"{n} is a {r}" for n, r in expected.items())
    wrong_one = ", ".join(f"{n} is a {flip[r] if n == names[0] else r}" for n, r in expected.items())
    verdict = verify(task, f"<answer>{wrong_one}</answer>")
    assert verdict.format_ok and not verdict.correct
    unclear = [
        ", ".join(f"{n} is a {r}" for n, r in list(expected.items())[:-1]),  # someone missing
        f"{full}, {names[0]} is a {flip[expected[names[0]]]}",  # conflicting claim
        f"{full}, {names[0]} is a {expected[names[0]]}",  # named twice
        full.replace(" is a ", " is not a ", 1),  # negation is not silently dropped
        f"{full}, Zed is a knight",  # a stranger
        json.dumps({**expected, names[0]: "liar"}),
        "knight: " + ", ".join(names),
        f"{full}, {names[0]}",
    ]
    for text in unclear:
        verdict = verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and not verdict.format_ok, (text, verdict)


@pytest.mark.parametrize("sign", ["¬", "!", "~", "-", "≠ ", "≠", "/", "?", "not ", "non-", "isn't "])
def test_negation_signs_are_refused_never_dropped(sign: str) -> None:
    # issue 16: "Grace: ¬knight" was read as "Grace: knight" (the sign was skipped)
    task = _sample()
    flip = {"knight": "knave", "knave": "knight"}
    negated = ", ".join(f"{n}: {sign}{flip[r]}" for n, r in roles(task).items())
    verdict = verify(task, f"<answer>{negated}</answer>")
    assert not verdict.correct and not verdict.format_ok, (sign, verdict)
    one = ", ".join(f"{n}: {sign if i == 0 else ''}{r}" for i, (n, r) in enumerate(roles(task).items()))
    assert not verify(task, f"<answer>{one}</answer>").format_ok, sign


def test_enumerated_lines_count_up() -> None:
    task = _sample()
    lines = [f"{n}: {r}" for n, r in roles(task).items()]
    assert verify(
        task, "<answer>" + "\n".join(f"{i}. {x}" for i, x in enumerate(lines, 1)) + "</answer>"
    ).correct
    shuffled = "\n".join(f"{i}. {x}" for i, x in enumerate(lines, 2))
    assert not verify(task, f"<answer>{shuffled}</answer>").format_ok
    assert not verify(task, "<answer>" + ", ".join(lines) + " " + "9" * 5000 + "</answer>").format_ok


@pytest.mark.parametrize("response", ["", " ", "\x00\xff" * 500, "é" * 10_000, "Alice " * 200_000])
def test_bad_input_is_a_format_error(response: str) -> None:
    verdict = verify(_sample(), response)
    assert not verdict.correct and not verdict.format_ok and verdict.error is None


def test_determinism_and_json_round_trip() -> None:
    a = make_task(FAMILY, seed=5, level=7)
    b = make_task(FAMILY, seed=5, level=7)
    assert a == b and a.id == b.id
    assert Task.from_json(a.to_json()) == a
    assert make_task(FAMILY, seed=6, level=7).id != a.id


def test_effort_grows_and_weak_solver_falls_with_level() -> None:
    effort, weak = {}, {}
    for level in (1, 5, 10):
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(40)]
        effort[level] = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        weak[level] = np.mean([verify(t, IMPL.solve_weak(t).response).correct for t in tasks])
    assert effort[1] < effort[5] < effort[10]
    assert weak[1] > weak[10]


def test_knobs_shape_the_statements() -> None:
    task = make_task(FAMILY, seed=3, people=6, depth=2, connectives="and", self_reference=False)
    assert len(task.metadata["names"]) == 6
    assert "I am" not in task.prompt
    ops = {op for s in task.metadata["statements"] for op in _ops(s)}
    assert ops <= {"and", "not", "var"}  # "not" only on literals: "X is a knave"
    assert len(brute_force(task)) == 1
    with pytest.raises(ValueError):
        make_task(FAMILY, seed=1, connectives="and,xor")


def _ops(f: list) -> list[str]:
    if f[0] == "var":
        return ["var"]
    children = (
        [f[1]] if f[0] == "not" else f[2] if f[0] == "exactly" else f[1] if f[0] in ("and", "or") else f[1:]
    )
    return [f[0]] + [op for g in children for op in _ops(g)]


def test_no_two_level_five_tasks_repeat() -> None:
    hashes = {make_task(FAMILY, seed=s, level=5).metadata["canonical_hash"] for s in range(150)}
    assert len(hashes) == 150
