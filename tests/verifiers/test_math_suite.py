"""The hand-written equivalence suite (tests/verifiers/math_cases.py), case by case."""

from __future__ import annotations

import collections

import pytest

from palaestra.verifiers.math import MathPolicy, math_equal
from palaestra.verifiers.mathparse import Options, ParseError, read_answer

from .math_cases import CASES

# a generous bound: equivalence labels must not depend on machine load (the default bound
# is tested in test_math_api.py and measured by benchmarks/verifiers.py)
TIMEOUT_S = 60.0
_IDS = [f"{cat}-{i}" for i, (cat, *_rest) in enumerate(CASES)]


def test_suite_covers_enough_categories_both_ways() -> None:
    by_category = collections.defaultdict(set)
    for category, _gold, _pred, equal, _policy in CASES:
        by_category[category].add(equal)
    assert len(CASES) >= 900
    assert len(by_category) >= 50
    # every category but the adversarial ones has equal and non-equal pairs
    one_sided = [
        c for c, labels in by_category.items() if len(labels) < 2 and not c.startswith("adversarial")
    ]
    assert not one_sided
    # the adversarial ones hold only pairs that must never be paid
    assert all(labels == {False} for c, labels in by_category.items() if c.startswith("adversarial"))
    assert sum(1 for c in CASES if c[0].startswith("adversarial")) >= 200


@pytest.mark.parametrize(("category", "gold", "pred", "equal", "policy"), CASES, ids=_IDS)
def test_case(category: str, gold: str, pred: str, equal: bool, policy: dict) -> None:
    verdict = math_equal(gold, pred, policy=MathPolicy(timeout_s=TIMEOUT_S, **policy))
    assert verdict.error is None, verdict
    assert verdict.correct is equal, (category, gold, pred, verdict)
    assert verdict.reward == (1.0 if equal else 0.0)


def _same_form(a: str, b: str) -> bool:
    """Both written numbers (or both not) applying the same kinds of function: answers of one
    type. A reference left unevaluated (``2^{10}``) accepts ``1024``, not the other way round."""
    try:
        fa, fb = read_answer(a, Options(words=True)).form, read_answer(b, Options(words=True)).form
    except ParseError:
        return False
    return fa.literal == fb.literal and fa.functions == fb.functions


def test_equivalence_is_symmetric_on_the_suite() -> None:
    # the label of (gold, pred) holds for (pred, gold) too between answers of the same form
    skipped = {
        "text_answers",
        "units_stripped",
        "relative_tolerance",
        "latex_wrappers",
        "choices",
        "equations",
        "strict_units",  # asymmetric by design: the reference names the unit asked for
    }
    checked = 0
    for category, gold, pred, equal, policy in CASES:
        if category in skipped or category.startswith("adversarial") or not _same_form(gold, pred):
            continue
        verdict = math_equal(pred, gold, policy=MathPolicy(timeout_s=TIMEOUT_S, **policy))
        assert verdict.correct is equal, (category, pred, gold, verdict)
        checked += 1
    assert checked >= 500
