"""Reward integrity over the whole registry: no wrong answer paid, no right answer refused.

Every registered family is attacked the moment it registers (see ``attacks.py`` for the attack
classes and ``profiles.py`` for how a family's answers are read). A known, not yet fixed
failure is marked in ``known.py`` as a strict xfail naming its finding (owner and what goes
wrong): the case turns red the moment the fix lands, so the marker is removed with the fix.
"""

from __future__ import annotations

import pytest

import palaestra
from palaestra.core import VERDICT_STATUSES, make_rng
from palaestra.registry import get
from palaestra.verifiers.extract import extract_answer

from . import judges
from .attacks import RIGHT_CLASSES, WRONG_CLASSES
from .cases import outcomes, tasks
from .judges import JUDGES
from .known import MISSING_JUDGES, reason
from .profiles import PROFILES

FAMILIES = palaestra.families()
# hostile input must be decided quickly; CPU time of this process (load disturbs it less than
# wall time), generous against the 1 s target because CI machines are shared
HOSTILE_CPU_BOUND_S = 2.0
HOSTILE_WALL_BOUND_S = 30.0
# megabyte-sized responses and programs run in the sandbox: most of the suite's time
SLOW_CLASSES = ("size", "code_exploit")


def _cases(test: str, classes: tuple[str, ...]) -> list:
    params = []
    for family in FAMILIES:
        for cls in classes:
            why = reason((test, family, cls))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            if cls in SLOW_CLASSES:
                marks.append(pytest.mark.slow)
            params.append(pytest.param(family, cls, id=f"{family}-{cls}", marks=marks))
    return params


def _consistent(outcome) -> list[str]:
    """Status checks that hold for every response: a known status, never a verifier failure."""
    v = outcome.verdict
    problems = []
    if v.status not in VERDICT_STATUSES:
        problems.append(f"unknown status {v.status!r}")
    if v.status in ("timeout", "verifier_error"):
        problems.append(f"the verifier failed ({v.status}: {v.error})")
    if v.status != _expected_status(v):
        problems.append(f"status contradicts the verdict (expected {_expected_status(v)})")
    return [f"{p}: {outcome.describe()}" for p in problems]


def _expected_status(v) -> str:
    if v.correct:
        return "correct"
    if v.error is not None:
        return "timeout" if v.status == "timeout" else "verifier_error"
    return "wrong" if v.format_ok else "unparseable"


@pytest.mark.parametrize("family,cls", _cases("wrong", WRONG_CLASSES))
def test_wrong_answers_are_not_paid(family: str, cls: str) -> None:
    """Responses known to be wrong get reward < 1. An edit that our judge finds valid after all
    (two independent moves of a plan swapped, a dump that reads as one formula) must be paid."""
    problems = []
    for outcome in outcomes(family, cls):
        v = outcome.verdict
        if outcome.attack.must_fail is True and (v.correct or v.reward >= 1.0):
            problems.append(f"PAID: {outcome.describe()}")
        if outcome.attack.must_fail is False and not v.correct:
            problems.append(f"REFUSED (valid by our judge): {outcome.describe()}")
        problems += _consistent(outcome)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:20])


@pytest.mark.parametrize("family,cls", _cases("right", RIGHT_CLASSES))
def test_right_answers_are_paid(family: str, cls: str) -> None:
    problems = []
    for outcome in outcomes(family, cls):
        if outcome.attack.must_fail is False and not (
            outcome.verdict.correct and outcome.verdict.reward == 1.0
        ):
            problems.append(f"REFUSED: {outcome.describe()}")
        problems += _consistent(outcome)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:20])


@pytest.mark.parametrize("family,cls", _cases("format", ("two_answers", "format")))
def test_no_single_final_answer_is_a_format_error(family: str, cls: str) -> None:
    """Two different final answers, or none outside reasoning/comments: status unparseable."""
    problems = [
        f"status {o.verdict.status}, not unparseable: {o.describe()}"
        for o in outcomes(family, cls)
        if o.attack.expect_unparseable and o.verdict.status != "unparseable"
    ]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:20])


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_hostile_input_is_decided_quickly(family: str) -> None:
    slow = [
        f"{o.cpu_s:.2f}s CPU, {o.wall_s:.2f}s wall: {o.describe()}"
        for o in outcomes(family, "size")
        if o.cpu_s > HOSTILE_CPU_BOUND_S or o.wall_s > HOSTILE_WALL_BOUND_S
    ]
    assert not slow, "\n".join(slow)


@pytest.mark.parametrize(
    "family",
    [
        pytest.param(f, marks=pytest.mark.xfail(strict=True, reason=MISSING_JUDGES[f]))
        if f in MISSING_JUDGES
        else f
        for f in FAMILIES
    ],
)
def test_the_suite_attacks_every_family(family: str) -> None:
    """Each family gets near misses the suite can judge, and at least one rewriting."""
    decided = [o for o in outcomes(family, "near_miss") if o.attack.must_fail is True]
    assert decided, f"{family}: no near miss is known to be wrong; add a profile or judge"
    assert outcomes(family, "rewriting"), family


def test_profiles_name_registered_families() -> None:
    assert not set(PROFILES) - set(FAMILIES), "profiles of families that no longer exist"


@pytest.mark.parametrize("family", FAMILIES)
def test_unique_answer_profiles_are_backed_by_the_generator(family: str) -> None:
    """A family read as having one valid answer proves it (solution count 1 where it counts)."""
    from .profiles import profile_for

    if profile_for(family).answers != "unique":
        return
    for task in tasks(family):
        if "solutions" in task.metadata:
            assert task.metadata["solutions"] == 1, f"{family} seed {task.seed}: {task.metadata['solutions']}"


@pytest.mark.parametrize("family", sorted(set(FAMILIES) & set(JUDGES)))
def test_family_mutations_are_wrong_by_our_judges(family: str) -> None:
    """The contract tests trust each family's own wrong answers (``mutated_responses``); our
    independent judge must agree that none of them is a valid answer."""
    valid = []
    for task in tasks(family):
        for response in get(family).impl.mutated_responses(task, make_rng("mutations", 1, task.seed)):
            extraction = extract_answer(response, max_chars=10**6)
            if extraction.ok and extraction.text and judges.is_valid(task, extraction.text) is True:
                valid.append(f"L{task.level} seed {task.seed}: {response[:200]!r}")
    assert not valid, "a 'wrong' answer of the family is valid:\n" + "\n".join(valid)
