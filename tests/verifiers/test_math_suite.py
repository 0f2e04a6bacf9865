"""The hand-written equivalence suite (tests/verifiers/math_cases.py), case by case."""

from __future__ import annotations

import collections

import pytest

from palaestra.verifiers.math import MathPolicy, math_equal

from .math_cases import CASES

# a generous bound: equivalence labels must not depend on machine load (the default bound
# is tested in test_math_api.py and measured by benchmarks/verifiers.py)
TIMEOUT_S = 60.0
_IDS = [f"{cat}-{i}" for i, (cat, *_rest) in enumerate(CASES)]


def test_suite_covers_enough_categories_both_ways() -> None:
    by_category = collections.defaultdict(set)
    for category, _gold, _pred, equal, _policy in CASES:
        by_category[category].add(equal)
    assert len(CASES) >= 350
    assert len(by_category) >= 30
    # every category but the adversarial one has equal and non-equal pairs
    one_sided = [c for c, labels in by_category.items() if len(labels) < 2 and c != "adversarial"]
    assert not one_sided


@pytest.mark.parametrize(("category", "gold", "pred", "equal", "policy"), CASES, ids=_IDS)
def test_case(category: str, gold: str, pred: str, equal: bool, policy: dict) -> None:
    verdict = math_equal(gold, pred, policy=MathPolicy(timeout_s=TIMEOUT_S, **policy))
    assert verdict.error is None, verdict
    assert verdict.correct is equal, (category, gold, pred, verdict)
    assert verdict.reward == (1.0 if equal else 0.0)


def test_equivalence_is_symmetric_on_the_suite() -> None:
    # the label of (gold, pred) holds for (pred, gold) too wherever both parse as math
    skipped = {"adversarial", "text_answers", "units_default_policy", "units_stripped", "relative_tolerance",
               "latex_wrappers", "choices", "equations"}
    for category, gold, pred, equal, policy in CASES:
        if category in skipped:
            continue
        verdict = math_equal(pred, gold, policy=MathPolicy(timeout_s=TIMEOUT_S, **policy))
        assert verdict.correct is equal, (category, pred, gold, verdict)
