"""The written-number rule (issue 26): an answer equal in value that leaves arithmetic to do
(``\\sqrt4`` for 2, ``2^{10}`` for 1024, ``5!``, ``\\binom52``, ``\\log_2 8``, ``(\\frac12)^2``) is paid
unless it restates the question or the task asks for a simplified form; one policy, both ways.

Before issue 26 every such answer was refused where the reference is a written number, while a
radical not in simplest form (``\\sqrt{545792/1681}`` for ``\\frac{32\\sqrt{533}}{41}``) was paid
even where the task asked for a simplified radical: the tests marked "before: refused" and
"before: paid" failed on that code.
"""

from __future__ import annotations

import pytest

from palaestra.generators.math._common import tagged
from palaestra.verifiers.math import MathPolicy, make_math_reward, math_equal, verify_math

POLICY = MathPolicy(timeout_s=60)  # labels must not depend on machine load
SIMPLIFIED = MathPolicy(timeout_s=60, simplified=True)

# (reference, answer left to compute, a question it restates, a question it does not restate)
CASES = [
    ("2", r"\sqrt4", r"Compute $\sqrt{4}$.", "What is the side of a square of area 4?"),
    ("1024", "2^{10}", "Compute $2^{10}$.", "How many subsets does a set of 10 elements have?"),
    ("1024", "2**10", r"What is $2^{10}$?", "Compute $2^{100} / 2^{90}$."),
    ("120", "5!", "Evaluate $5!$.", "In how many orders can 5 books stand on a shelf?"),
    ("10", r"\binom52", r"Compute $\dbinom{5}{2}$.", "How many ways are there to choose 2 of 5 people?"),
    ("3", r"\log_2 8", r"Find $\log_{2} 8$.", "For which x is $2^x = 8$?"),
    (
        r"\frac14",
        r"(\frac12)^2",
        r"Evaluate $\left(\frac{1}{2}\right)^2$.",
        "Two fair coins: chance of two heads?",
    ),
    ("7", "3 + 4", "What is $3 + 4$?", "Ann has 3 apples and gets 4 more. How many has she?"),
    (
        r"\frac12",
        r"\sin\frac{\pi}{6}",
        r"Compute $\sin \frac{\pi}{6}$.",
        "A ray at 30 degrees: its height at length 1?",
    ),
]
IDS = [c[1] for c in CASES]


@pytest.mark.parametrize(("gold", "pred", "restating", "other"), CASES, ids=IDS)
def test_arithmetic_left_to_do_is_paid_unless_it_restates_the_question(
    gold: str, pred: str, restating: str, other: str
) -> None:
    # before: refused ("the reference is a number and the answer leaves arithmetic to do")
    assert math_equal(gold, pred, policy=POLICY).correct
    assert math_equal(gold, pred, policy=POLICY, question=other).correct
    verdict = math_equal(gold, pred, policy=POLICY, question=restating)
    assert verdict.status == "wrong" and "restates the question" in verdict.reason, verdict


@pytest.mark.parametrize(("gold", "pred", "restating", "other"), CASES, ids=IDS)
def test_a_simplified_form_asked_refuses_arithmetic_left_to_do(
    gold: str, pred: str, restating: str, other: str
) -> None:
    assert not math_equal(gold, pred, policy=SIMPLIFIED).correct
    assert not math_equal(gold, pred, policy=POLICY, question=other + " Give it in simplest form.").correct
    assert math_equal(gold, gold, policy=SIMPLIFIED).correct


def test_geometry_applies_one_policy_both_ways() -> None:
    """Geometry asks for a simplified radical: \\sqrt{225} for 15 and \\sqrt{545792/1681} for
    \\frac{32\\sqrt{533}}{41} are both refused (before: the first refused, the second paid)."""
    from palaestra.generators.math.geometry import POLICY as GEOMETRY

    for gold, pred in [("15", r"\sqrt{225}"), (r"\frac{32\sqrt{533}}{41}", r"\sqrt{545792/1681}")]:
        verdict = math_equal(gold, pred, policy=GEOMETRY)
        assert verdict.status == "wrong" and "simplified form" in verdict.reason, (pred, verdict)
    for gold, pred in [("15", "15"), (r"\frac{32\sqrt{533}}{41}", r"\frac{32}{41}\sqrt{533}")]:
        assert math_equal(gold, pred, policy=GEOMETRY).correct, pred


def test_geometry_tasks_grade_through_the_rule() -> None:
    import palaestra

    seen = 0
    for seed in range(200):
        task = palaestra.make_task("geometry", level=5, seed=seed)
        if task.answer.startswith(r"\frac") and r"\sqrt" in task.answer:
            assert palaestra.verify(task, tagged(task.answer)).correct
            num, _, rest = task.answer[len(r"\frac{") :].partition("}{")
            # the same value with its fraction unreduced: the value is right, the form is not
            unreduced = rf"\frac{{2 \cdot {num}}}{{2 \cdot {rest}"
            verdict = palaestra.verify(task, tagged(unreduced))
            assert not verdict.correct, (task.answer, unreduced, verdict)
            seen += 1
        if seen >= 3:
            break
    assert seen >= 1


def test_the_question_reaches_the_reward_through_trl_prompts() -> None:
    reward = make_math_reward()
    completions = [tagged("2^{10}")] * 3
    prompts = [
        "Compute $2^{10}$.",
        [{"role": "user", "content": "Compute $2^{10}$."}],
        "Subsets of a 10-set?",
    ]
    assert reward(completions=completions, prompts=prompts, answer=["1024"] * 3) == [0.0, 0.0, 1.0]
    assert verify_math(r"so \boxed{2^{10}}", "1024", question="Compute 2^{10}.").status == "wrong"


def test_restatement_is_a_whole_expression() -> None:
    # 2^{10} is not written in 2^{100}, nor \sqrt4 in \sqrt{45}
    assert math_equal("1024", "2^{10}", policy=POLICY, question=r"Is $2^{100} > 10^{30}$?").correct
    assert math_equal("2", r"\sqrt4", policy=POLICY, question=r"Compute $\sqrt{45}$ roughly.").correct
    # prose around the answer does not hide a restatement; a number in the question is not one
    assert not math_equal(
        "1024", "The answer is $2^{10}$.", policy=POLICY, question="Compute $2^{10}$."
    ).correct
    assert not math_equal("4", "sqrt(16)", policy=POLICY, question="Compute sqrt(16).").correct
    assert math_equal("4", "sqrt(16)", policy=POLICY, question="A square has area 16. Find its side.").correct
    # a written number is never a restatement, even when the question holds it
    assert math_equal("1024", "1024", policy=POLICY, question="Is 1024 = 2^{10}?").correct


@pytest.mark.parametrize(
    "pred",
    [
        r"10^{10^{10}}",
        "1000000!",
        r"\binom{10^{9}}{5 \cdot 10^{8}}",
        r"2^{2^{2^{2^{2^{2}}}}}",
        r"(10^{100})!",
    ],
)
def test_huge_computations_are_refused_by_size(pred: str) -> None:
    # paying arithmetic left to do must not open a door to unbounded work: refused by its size
    # while parsing (the parser's bounds), not by the time limit
    verdict = math_equal("1", pred, policy=POLICY)
    assert verdict.status == "unparseable", verdict
    assert (
        "too large" in verdict.reason
        or "needs integers" in verdict.reason
        or "needs an integer" in verdict.reason
    )


@pytest.mark.parametrize(
    ("gold", "pred"),
    [("x = 1", "|x| = 1"), ("1", r"\sin^2 x + \cos^2 x"), ("x = 2", "2x = 4"), ("2", "2x = 4")],
)
def test_a_relation_or_a_function_of_a_variable_is_never_paid(gold: str, pred: str) -> None:
    assert not math_equal(gold, pred, policy=POLICY).correct
