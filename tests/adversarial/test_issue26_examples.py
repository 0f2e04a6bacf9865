"""Every example issue 26 lists, in one place, against the shipped code: each wrongly paid
answer is refused and each wrongly refused answer is paid. The classes themselves are tested
where they are fixed (tests/verifiers, tests/generators, and per family in test_reward_integrity);
this file keeps the issue's own examples from coming back."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

import pytest

import palaestra
from palaestra.core import Task
from palaestra.generators.math.word_problems import POLICY as WORD_PROBLEMS
from palaestra.verifiers.math import MathPolicy, math_equal, math_reward, verify_math

POLICY = MathPolicy(timeout_s=60)  # labels must not depend on machine load


def _task(family: str, accept: Callable[[Task], bool], level: int = 3, tries: int = 400) -> Task:
    for seed in range(tries):
        task = palaestra.make_task(family, level=level, seed=seed)
        if accept(task):
            return task
    raise AssertionError(f"no {family} task of the kind wanted in {tries} seeds")


def _plain(answer: object) -> tuple[str, str]:
    """A reference as plain text and its unit: '\\frac{233}{84}\\,\\text{h}' -> ('233/84', 'h')."""
    text, unit = str(answer), ""
    m = re.search(r"\\,\\text\{([^}]*)\}(.*)$", text)
    if m:
        unit, text = m.group(1) + m.group(2), text[: m.start()]
    m = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", text)
    return (f"{m.group(1)}{m.group(2)}/{m.group(3)}" if m else text), unit


def _paid(task: Task, response: str) -> bool:
    return palaestra.verify(task, response).correct


# --- wrong answers the issue found paid ------------------------------------------------------


@pytest.mark.parametrize("family", ["bayes", "probability", "statistics", "table_qa", "word_problems"])
def test_a_number_is_not_read_across_a_line_break(family: str) -> None:
    task = _task(family, lambda t: "/" in _plain(t.answer)[0])
    num, den = map(int, _plain(task.answer)[0].split("/"))
    assert not _paid(task, f"<answer>0\n{num}/{den}</answer>")
    whole, rest = divmod(num, den)
    assert not _paid(task, f"<answer>{whole}\n{rest}/{den}</answer>")


def test_word_problems_refuses_units_and_signs_the_question_does_not_ask_for() -> None:
    task = _task("word_problems", lambda t: _plain(t.answer)[1] == "km" and "/" not in _plain(t.answer)[0], 5)
    value = _plain(task.answer)[0]
    for pred in [f"{value} %", f"{Fraction(value) * 100} %", f"{value} rad", f"{value} deg", f"{value} °"]:
        assert not _paid(task, f"<answer>{pred}</answer>"), pred
    for unit in ["kg", "h", "km"]:  # where a unitless percentage is asked
        assert not math_equal(r"12.5\%", f"12.5 {unit}", policy=WORD_PROBLEMS).correct, unit


def test_answers_differing_in_case_or_leading_zeros_are_two_answers() -> None:
    task = _task("string_ops", lambda t: t.answer.lower() != t.answer.upper())
    assert not _paid(task, f"<answer>{task.answer.upper()}</answer> <answer>{task.answer}</answer>")
    task = _task("circuit_logic", lambda t: t.answer.startswith("0"), level=1)
    assert not _paid(task, f"<answer>{task.answer}</answer> <answer>0{task.answer}</answer>")


def test_circuit_logic_reads_the_shared_extraction() -> None:
    task = _task("circuit_logic", lambda t: len(t.answer) >= 2)
    wrong = "".join("1" if c == "0" else "0" for c in task.answer)
    for response in [
        f"<answer>{wrong}</answer><answer>{task.answer}</answer>",
        f"\\boxed{{{wrong}}} <answer>{task.answer}</answer>",
        f"Answer: {wrong}\n<answer>{task.answer}</answer>",
        f"<answer>{wrong}</answer>" + f"<answer>{task.answer}</answer>" * 60,
    ]:
        assert not _paid(task, response), response[:80]


def test_blank_answers_and_improper_mixed_numbers() -> None:
    for gold, pred in [
        ("", ""),
        (r"\text{ }", ""),
        ("{}", "{}"),
        (".", "."),
        ("12", "11 6/6"),
        ("7/2", "2 3/2"),
    ]:
        assert not math_equal(gold, pred, policy=POLICY).correct, (gold, pred)
    with pytest.raises(ValueError, match="not a single math value"):
        math_reward(completions=[r"\boxed{\text{ }}"], answer=[""])


# --- right answers the issue found refused ----------------------------------------------------

RIGHT_PAIRS = [
    (r"10,\!000", "10000"), ("10000", r"10,\!000"), ("10000", r"10\,000"), ("10000", "10{,}000"),
    ("10000", "10\u2009000"), ("AB=4,CD=5", "4, 5"), ("|AB|=1", "1"), ("p=5,q=2;p=7,q=2", "(5,2),(7,2)"),
    ("0<f(x)<1", "(0,1)"), ("1:2", "2:4"), ("3:4", r"\frac34"), ("x = 1, y = 2", "1, 2"),
    (r"\frac{\sqrt3}{3}", r"\frac{\sqrt3}{3} \approx 0.577"), ("11", r"x \approx 11"), ("5", "5 widgets"),
    ("2", r"\sqrt4"), ("1024", "2^{10}"), ("120", "5!"), ("10", r"\binom52"), ("3", r"\log_2 8"),
    (r"\frac14", r"(\frac12)^2"),
]  # fmt: skip


@pytest.mark.parametrize(("gold", "pred"), RIGHT_PAIRS)
def test_right_math_answers_are_paid(gold: str, pred: str) -> None:
    assert math_equal(gold, pred, policy=POLICY).correct


def test_several_boxes_are_one_list_or_set_answer() -> None:
    assert verify_math(r"x is \boxed{2} or \boxed{3}", "2, 3", policy=POLICY).correct
    assert verify_math(r"\boxed{3}, \boxed{2}", r"\{2, 3\}", policy=POLICY).correct


def test_formats_whose_meaning_is_clear() -> None:
    task = _task(
        "word_problems", lambda t: "/" in _plain(t.answer)[0] and Fraction(_plain(t.answer)[0]) > 1, 6
    )
    value = Fraction(_plain(task.answer)[0])
    whole, rest = divmod(value.numerator, value.denominator)
    assert _paid(task, f"<answer>{whole} {rest}/{value.denominator}</answer>")
    task = _task("max_flow", lambda t: True)
    flow, cut = (part.split(":")[1].strip() for part in task.answer.split(";"))
    assert _paid(task, f"<answer>max flow = {flow}, cut = {{{cut}}}</answer>")
    task = _task("sql_synthesis", lambda t: True)
    assert _paid(task, f"\\boxed{{{task.answer}}}")
    task = _task("zebra", lambda t: True)
    lines = [line.replace(":", " -").replace(", ", " / ", 1) for line in task.answer.splitlines()]
    assert _paid(task, "<answer>\n" + "\n".join(lines) + "\n</answer>")
    task = _task("linear_diophantine", lambda t: "t" in t.answer)
    assert _paid(task, f"<answer>{task.answer}, where t is any integer</answer>")


def test_a_one_line_reference_in_a_box_is_paid() -> None:
    """The README promises \\boxed{} for every family whose answer fits on one line."""
    checked, refused = [], []
    for family in palaestra.families():
        task = palaestra.make_task(family, level=1, seed=0)
        ref = task.answer
        if (
            not isinstance(ref, str)
            or "\n" in ref
            or not ref.strip()
            or not _paid(task, f"<answer>{ref}</answer>")
        ):
            continue  # a grid, a list of lines or a structured answer: no one-line promise
        checked.append(family)
        if not _paid(task, f"The answer is \\boxed{{{ref}}}"):
            refused.append(family)
    assert len(checked) >= 60 and not refused, (len(checked), refused)
