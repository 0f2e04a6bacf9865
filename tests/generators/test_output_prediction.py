"""output_prediction: the printed value, compared by value through our literal parser."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.code.literals import LiteralError, parse_literal, same_value, to_json

SEEDS = st.integers(0, 2**63 - 1)


@given(seed=SEEDS, level=st.integers(1, 10))
@settings(max_examples=25, deadline=None)
def test_answer_matches_cpython_printing_the_program(seed: int, level: int) -> None:
    # independent check: CPython runs the prompt's program (our own code) and prints it
    task = palaestra.make_task("output_prediction", seed=seed, level=level)
    program = task.prompt.split("```python\n")[1].split("```")[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(program, "<test>", "exec"), {})  # noqa: S102 - our generated program
    printed = out.getvalue().strip()
    assert printed == task.answer
    assert parse_literal(printed) == ast.literal_eval(printed)
    assert palaestra.verify(task, f"The program prints:\n<answer>{printed}</answer>").correct


def test_format_variants_accepted_and_wrong_values_rejected() -> None:
    task = next(
        t
        for s in range(200)
        if isinstance(
            ast.literal_eval((t := palaestra.make_task("output_prediction", seed=s, level=5)).answer), tuple
        )
    )
    value = ast.literal_eval(task.answer)
    spaced = "( " + " , ".join(repr(v) for v in value) + " , )"
    compact = task.answer.replace(" ", "")
    for ok in (
        f"<answer>{compact}</answer>",
        f"<answer>{spaced}</answer>",
        f"Output: {task.answer}",
        f"\\boxed{{{task.answer}}}",
        f"<answer>`{task.answer}`</answer>",
    ):
        assert palaestra.verify(task, ok).correct, ok
    wrong = [
        repr(list(value)),
        repr(value[:-1]),
        repr((value[0] + 1 if isinstance(value[0], int) else 0,) + value[1:]),
        repr(value + (0,)),
        repr(str(value)),
    ]
    for bad in wrong:
        verdict = palaestra.verify(task, f"<answer>{bad}</answer>")
        assert not verdict.correct and verdict.format_ok, bad


def test_expressions_are_not_evaluated() -> None:
    task = palaestra.make_task("output_prediction", seed=0, level=1, statements=1)
    for text in ("1 + 1", "__import__('os').getpid()", "f(3)", "0x10", "inf", "1_000", "1.2.3"):
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and not verdict.format_ok, text


def _printing(value: object):
    """A task whose program printed ``value`` (the verifier reads only the stored output)."""
    base = palaestra.make_task("output_prediction", seed=0, level=1)
    return dataclasses.replace(
        base, answer=repr(value), metadata={**base.metadata, "output": to_json(value)}, id=""
    )


@pytest.mark.parametrize(
    ("printed", "answer"),
    [
        (1, "True"),
        (0, "False"),
        (True, "1"),
        (1, "1.0"),
        (1, "'1'"),
        ([1, 0], "[True, False]"),
        ((3, [1]), "(3, [True])"),
        ({1: 1}, "{True: 1}"),
        ({1: 1}, "{1: True}"),
        ({1: (2,)}, "{1: [2]}"),
        ([2], "(2,)"),
        (None, "0"),
    ],
)
def test_values_are_compared_with_their_types(printed: object, answer: str) -> None:
    task = _printing(printed)
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct
    verdict = palaestra.verify(task, f"<answer>{answer}</answer>")
    assert verdict.status == "wrong", (printed, answer, verdict)


def test_same_value_keeps_types_apart() -> None:
    assert same_value({1: [2, (3, None)], "a": -1.5}, {"a": -1.5, 1: [2, (3, None)]})
    for a, b in ((True, 1), (1.0, 1), ([1], (1,)), ({1: 2}, {True: 2}), ({(1, 2): 0}, {(1, True): 0})):
        assert not same_value(a, b) and not same_value(b, a)


def test_literal_parser_rejects_non_literals() -> None:
    for text in ("[1, 2", "{[1]: 2}", "'abc", "1 2", "x", "((((" * 30):
        try:
            parse_literal(text)
        except LiteralError:
            continue
        raise AssertionError(text)
    assert parse_literal("{1: (2,), 'a': [None, True]}") == {1: (2,), "a": [None, True]}
    for text in ("2.5", "-1e3", ".5", "1.", "+ 7", "-0", "[1.0, -2.25e-2]"):
        assert same_value(parse_literal(text, floats=True), ast.literal_eval(text)), text
    for text in ("2.5", "1e3", "[1, 2.0]"):  # floats only when asked
        with pytest.raises(LiteralError):
            parse_literal(text)


def test_levels_get_harder() -> None:
    impl = palaestra.registry.get("output_prediction").impl
    weak, steps = [], []
    for level in (1, 5, 10):
        tasks = [palaestra.make_task("output_prediction", seed=s, level=level) for s in range(30)]
        answers = [(t, impl.solve_weak(t).response) for t in tasks]
        weak.append(sum(r is not None and palaestra.verify(t, r).correct for t, r in answers))
        steps.append(sum(t.metadata["steps"] for t in tasks))
    assert weak[0] > weak[1] > weak[2] and steps[0] < steps[1] < steps[2]
