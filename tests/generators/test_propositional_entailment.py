"""propositional_entailment: labels checked by brute force and z3, countermodels, formats."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "propositional_entailment"
IMPL = get(FAMILY).impl


def holds(f: list, row: tuple[bool, ...]) -> bool:
    """Independent evaluator for the brute-force check."""
    op, args = f[0], f[1:]
    if op == "var":
        return row[args[0]]
    if op == "not":
        return not holds(args[0], row)
    if op == "and":
        return all(holds(g, row) for g in args[0])
    if op == "or":
        return any(holds(g, row) for g in args[0])
    a, b = holds(args[0], row), holds(args[1], row)
    return {"implies": (not a) or b, "iff": a == b, "xor": a != b}[op]


def countermodels(task: Task) -> list[tuple[bool, ...]]:
    n = len(task.metadata["variables"])
    return [
        row
        for row in itertools.product((True, False), repeat=n)
        if all(holds(p, row) for p in task.metadata["premises"])
        and not holds(task.metadata["conclusion"], row)
    ]


def z3_entailed(task: Task) -> bool:
    xs = [z3.Bool(name) for name in task.metadata["variables"]]

    def conv(f: list) -> z3.BoolRef:
        op = f[0]
        if op == "var":
            return xs[f[1]]
        if op == "not":
            return z3.Not(conv(f[1]))
        if op in ("and", "or"):
            return (z3.And if op == "and" else z3.Or)([conv(g) for g in f[1]])
        a, b = conv(f[1]), conv(f[2])
        return {"implies": z3.Implies(a, b), "iff": a == b, "xor": z3.Xor(a, b)}[op]

    solver = z3.Solver()
    solver.add(*[conv(p) for p in task.metadata["premises"]], z3.Not(conv(task.metadata["conclusion"])))
    return solver.check() == z3.unsat


def model_text(task: Task, row: tuple[bool, ...]) -> str:
    return ", ".join(
        f"{x}={'true' if v else 'false'}" for x, v in zip(task.metadata["variables"], row, strict=True)
    )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_label_matches_brute_force_and_z3(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    counters = countermodels(task)
    assert task.metadata["entailed"] == (not counters) == z3_entailed(task)
    assert verify(task, IMPL.reference_response(task)).correct
    assert verify(task, IMPL.solve_exact(task).response).correct
    for row in counters[:4]:  # every countermodel is accepted
        assert verify(task, f"<answer>no: {model_text(task, row)}</answer>").correct
    for response in IMPL.mutated_responses(task, np.random.default_rng(seed)):
        assert not verify(task, response).correct, response
    assert len(IMPL.mutated_responses(task, np.random.default_rng(seed))) >= 3


def _find(entailed: bool, level: int = 4) -> Task:
    for seed in range(100):
        task = make_task(FAMILY, seed=seed, level=level)
        if task.metadata["entailed"] == entailed and (entailed or len(countermodels(task)) >= 2):
            return task
    raise AssertionError("no such task")


def truth_table_certificate(task: Task) -> str:
    """A case per assignment with a true reason, built with the independent evaluator."""
    lines = []
    for row in itertools.product((True, False), repeat=len(task.metadata["variables"])):
        false = [k for k, p in enumerate(task.metadata["premises"], 1) if not holds(p, row)]
        reason = f"premise {false[-1]} is false" if false else "the conclusion is true"
        lines.append(f"case {model_text(task, row)}: {reason}")
    return "yes\n" + "\n".join(lines)


def random_case_split(task: Task, draw: st.DrawFn) -> list[tuple[dict[int, bool], str]]:
    """A random valid case split: split on random variables until a random true reason exists."""
    n = len(task.metadata["variables"])
    cases: list[tuple[dict[int, bool], str]] = []

    def reasons(fixed: dict[int, bool]) -> list[str]:
        rows = [
            r for r in itertools.product((True, False), repeat=n) if all(r[i] == v for i, v in fixed.items())
        ]
        out = [
            f"premise {k} is false"
            for k, p in enumerate(task.metadata["premises"], 1)
            if not any(holds(p, r) for r in rows)
        ]
        return out + (
            ["the conclusion is true"] if all(holds(task.metadata["conclusion"], r) for r in rows) else []
        )

    def split(fixed: dict[int, bool]) -> None:
        good = reasons(fixed)
        free = [i for i in range(n) if i not in fixed]
        if good and (not free or draw(st.booleans())):
            cases.append((fixed, draw(st.sampled_from(good))))
            return
        var = draw(st.sampled_from(free))
        for value in (True, False):
            split({**fixed, var: value})

    split({})
    return cases


def render_cases(task: Task, cases: list[tuple[dict[int, bool], str]]) -> str:
    names = task.metadata["variables"]
    return "yes\n" + "\n".join(
        "case "
        + ", ".join(f"{names[i]}={'true' if v else 'false'}" for i, v in sorted(f.items()))
        + f": {why}"
        for f, why in cases
    )


@settings(max_examples=30, deadline=None)
@given(data=st.data(), seed=st.integers(0, 10_000), level=st.integers(1, 8))
def test_any_valid_case_split_passes_and_a_broken_one_fails(
    data: st.DataObject, seed: int, level: int
) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    if not task.metadata["entailed"]:
        verdict = verify(task, f"<answer>{truth_table_certificate(task)}</answer>")
        assert verdict.format_ok and not verdict.correct  # no case split proves a non-entailment
        return
    cases = random_case_split(task, data.draw)
    assert verify(task, f"<answer>{render_cases(task, cases)}</answer>").correct
    k = data.draw(st.integers(0, len(cases) - 1))
    fixed, why = cases[k]
    dropped = cases[:k] + cases[k + 1 :]
    var = data.draw(st.sampled_from(sorted(fixed)))
    flipped = cases[:k] + [({**fixed, var: not fixed[var]}, why)] + cases[k + 1 :]
    for broken in (dropped, flipped):  # an assignment is left uncovered
        verdict = verify(task, f"<answer>{render_cases(task, broken)}</answer>")
        assert verdict.format_ok and not verdict.correct
    n = len(task.metadata["premises"])
    wrong = [f"premise {i} is false" for i in range(1, n + 1)] + ["the conclusion is true"]
    other = data.draw(st.sampled_from(wrong))
    lied = cases[:k] + [(fixed, other)] + cases[k + 1 :]
    truly = verify(task, f"<answer>{render_cases(task, lied)}</answer>").correct
    names = task.metadata["variables"]
    rows = [
        r
        for r in itertools.product((True, False), repeat=len(names))
        if all(r[i] == v for i, v in fixed.items())
    ]
    holds_everywhere = (
        all(holds(task.metadata["conclusion"], r) for r in rows)
        if other.startswith("the")
        else not any(holds(task.metadata["premises"][int(other.split()[1]) - 1], r) for r in rows)
    )
    assert truly == holds_everywhere


def test_yes_formats_and_wrong_answers() -> None:
    task = _find(True)
    certificate = IMPL.reference_response(task).removeprefix("<answer>").removesuffix("</answer>")
    body = certificate.split("\n", 1)[1]
    for text in (
        f"<answer>{certificate}</answer>",
        f"<answer>Yes.\n{body}</answer>",
        f"<answer>YES: {body}</answer>",
        f"<answer>yes\n{body.replace('case ', '- Case ')}</answer>",
        f"<answer>yes\n{body.replace('=true', ': T').replace('=false', ': F')}</answer>",
        f"<answer>{truth_table_certificate(task)}</answer>",
        f"<answer>{truth_table_certificate(task)}\n{body}</answer>",  # overlapping cases are fine
        f"Reasoning...\n\\boxed{{{certificate}}}",
    ):
        assert verify(task, text).correct, text
    # a bare verdict is not enough any more: the constant "yes" scored 50% (issue 16)
    for text in ("<answer>yes</answer>", "<answer>Yes.</answer>", "\\boxed{YES}", "Answer: yes", "yes"):
        verdict = verify(task, text)
        assert not verdict.correct and not verdict.format_ok, text
    assert verify(task, "<answer>no</answer>").format_ok is False
    row = (True,) * len(task.metadata["variables"])
    verdict = verify(task, f"<answer>no: {model_text(task, row)}</answer>")
    assert verdict.format_ok and not verdict.correct
    for text in (
        "<answer>maybe</answer>",
        "<answer>yesno</answer>",
        f"<answer>yes\n{body.replace('is false', 'is true', 1)}</answer>",
        f"<answer>yes\n{body.replace('premise 1', 'premise 9')}</answer>",
        f"<answer>yes\n{body}\ncase: the conclusion is true</answer>",
        f"<answer>yes\n{body.replace(':', ' ¬', 1)}</answer>",
        "<answer>yes\n" + "case p=true: premise 1 is false\n" * 600 + "</answer>",
    ):
        verdict = verify(task, text)
        assert not verdict.correct and verdict.error is None, text


def test_no_formats_two_countermodels_and_wrong_answers() -> None:
    task = _find(False)
    names = task.metadata["variables"]
    first, second = countermodels(task)[:2]
    assert verify(task, f"<answer>no: {model_text(task, first)}</answer>").correct
    assert verify(task, f"<answer>no: {model_text(task, second)}</answer>").correct
    variants = [
        "No. " + "; ".join(f"{x}: {'T' if v else 'F'}" for x, v in zip(names, first, strict=True)),
        "no — " + " ".join(f"{x}={int(v)}" for x, v in zip(names, first, strict=True)),
        "NO, " + ", ".join(("" if v else "¬") + x for x, v in zip(names, first, strict=True)),
    ]
    for text in variants:
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert not verify(task, "<answer>yes</answer>").correct
    assert not verify(task, f"<answer>{truth_table_certificate(task)}</answer>").correct
    assert not verify(task, "<answer>no</answer>").format_ok
    assert not verify(task, f"<answer>no: {model_text(task, first[:-1] + (True,))[:-1]}</answer>").correct
    missing = ", ".join(
        f"{x}={'true' if v else 'false'}" for x, v in list(zip(names, first, strict=True))[:-1]
    )
    assert not verify(task, f"<answer>no: {missing}</answer>").format_ok
    others = [
        row for row in itertools.product((True, False), repeat=len(names)) if row not in countermodels(task)
    ]
    verdict = verify(task, f"<answer>no: {model_text(task, others[0])}</answer>")
    assert verdict.format_ok and not verdict.correct


@pytest.mark.parametrize("response", ["", "\x00\x01" * 300, "no " * 400_000, "ÿ" * 3000])
def test_bad_input(response: str) -> None:
    verdict = verify(_find(False, 2), response)
    assert not verdict.correct and not verdict.format_ok and verdict.error is None


def test_calibration_trend_and_balance() -> None:
    effort, weak, labels = {}, {}, []
    for level in (1, 5, 10):
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(40)]
        effort[level] = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        weak[level] = np.mean([verify(t, IMPL.solve_weak(t).response).correct for t in tasks])
        labels += [t.metadata["entailed"] for t in tasks]
    assert effort[1] < effort[5] < effort[10]
    assert weak[1] > weak[10]
    assert 0.25 < np.mean(labels) < 0.75


def test_strict_levels_reject_shallow_instances() -> None:
    for seed in range(30):
        task = make_task(FAMILY, seed=seed, level=6)
        counters = countermodels(task)
        n = len(task.metadata["variables"])
        assert (True,) * n not in counters and (False,) * n not in counters
        if task.metadata["entailed"]:
            for p in task.metadata["premises"]:  # no single premise suffices
                rows = itertools.product((True, False), repeat=n)
                assert any(holds(p, r) and not holds(task.metadata["conclusion"], r) for r in rows)
