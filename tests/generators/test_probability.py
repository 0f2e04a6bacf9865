"""probability: every answer recomputed by enumerating the sample space outcome by outcome."""

from __future__ import annotations

import time
from fractions import Fraction
from itertools import combinations, permutations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "probability"
IMPL = palaestra.get(FAMILY).impl
MAX_OUTCOMES = 40_000  # larger sample spaces are left to the cases that fit


def in_count(params: dict, value: int) -> bool:
    relation, j = params["relation"], params["j"]
    if relation == "between":
        return j <= value <= params["top"]
    return {"exactly": value == j, "at least": value >= j, "at most": value <= j}[relation]


def dice_event(params: dict, values: tuple[int, ...]) -> bool:
    event = params["event"]
    if event == "sum":
        total, target = sum(values), params["target"]
        if params["relation"] == "between":
            return target <= total <= params["top"]
        return {"exactly": total == target, "at least": total >= target, "at most": total <= target}[
            params["relation"]
        ]
    if event == "greater":
        return values[0] > values[1]
    if event == "equal":
        return len(set(values)) == 1
    if event == "even_product":
        return any(v % 2 == 0 for v in values)
    if event == "max":
        extreme = max(values) if params["largest"] else min(values)
        return {
            "exactly": extreme == params["k"],
            "at least": extreme >= params["k"],
            "at most": extreme <= params["k"],
        }[params["relation"]]
    if event == "threshold":
        hits = sum((v >= params["v"]) if params["upward"] else (v <= params["v"]) for v in values)
        return in_count(params, hits)
    raise AssertionError(event)


def uniform(outcomes: list, event) -> Fraction:
    return Fraction(sum(1 for o in outcomes if event(o)), len(outcomes))


def enumerate_answer(task: palaestra.Task) -> Fraction | None:
    """The probability by listing every outcome, or None when the sample space is too large."""
    kind, p = task.metadata["kind"], task.metadata["params"]
    if task.metadata["outcomes"] > MAX_OUTCOMES:
        return None
    if kind == "standard_dice":
        return uniform(list(product(*[range(1, m + 1) for m in p["sides"]])), lambda v: dice_event(p, v))
    if kind == "custom_dice":
        return uniform(list(product(*p["faces"])), lambda v: dice_event(p, v))
    if kind == "conditional_dice":
        given_outcomes = [v for v in product(*p["faces"]) if p["given_face"] in v]
        return uniform(given_outcomes, lambda v: dice_event(p, v))
    if kind == "coins":
        biases = [Fraction(b) for b in p["biases"]]
        total = Fraction(0)
        for tosses in product((0, 1), repeat=len(biases)):
            weight = Fraction(1)
            for toss, bias in zip(tosses, biases, strict=True):
                weight *= bias if toss else 1 - bias
            heads = sum(tosses)
            event = {
                "count": lambda h: in_count(p, h),
                "more_heads": lambda h: 2 * h > len(biases),
                "even": lambda h: h % 2 == 0,
            }[p["event"]]
            total += weight if event(heads) else 0
        return total
    if kind == "urn":
        balls = [colour for colour, count in enumerate(p["counts"]) for _ in range(count)]
        draws = list(product(balls, repeat=p["k"])) if p["replacement"] else list(permutations(balls, p["k"]))

        def event(draw: tuple[int, ...]) -> bool:
            if p["event"] == "ordered":
                return draw[0] == p["first"] and draw[1] == p["second"]
            if p["event"] == "count":
                return in_count(p, draw.count(p["colour"]))
            if p["event"] == "same":
                return len(set(draw)) == 1
            return len(set(draw)) == len(p["counts"])

        return uniform(draws, event)
    if kind == "two_urns":
        a = [c for c, n in enumerate(p["first"]) for _ in range(n)]
        b = [c for c, n in enumerate(p["second"]) for _ in range(n)]
        outcomes = [(moved, pick) for moved in permutations(a, p["moved"]) for pick in b + list(moved)]
        return uniform(outcomes, lambda o: o[1] == p["colour"])
    if kind == "cards":
        if p["k"] > 3:
            return None
        deck = [(suit, rank) for suit in range(4) for rank in range(13)]

        def hand_ok(hand: tuple) -> bool:
            suits = sum(card[0] == p["suit"] for card in hand)
            ranks = sum(card[1] == p["rank"] for card in hand)
            suit_ok = in_count({"relation": p["suit_relation"], "j": p["j"]}, suits)
            return suit_ok and in_count({"relation": p["rank_relation"], "j": p["m"]}, ranks)

        return uniform(list(combinations(deck, p["k"])), hand_ok)
    raise AssertionError(kind)


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_answers_match_enumeration(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    expected = enumerate_answer(task)
    if expected is not None:
        assert Fraction(task.answer) == expected, task.prompt
    assert 0 < Fraction(task.answer) < 1


@pytest.mark.parametrize(
    "kind", ["standard_dice", "urn", "coins", "custom_dice", "cards", "two_urns", "conditional_dice"]
)
def test_every_kind_is_checked_by_enumeration(kind: str) -> None:
    checked = 0
    for seed in range(400):
        task = palaestra.make_task(FAMILY, seed=seed, level=7 if kind != "cards" else 4)
        if task.metadata["kind"] == kind:
            expected = enumerate_answer(task)
            if expected is not None:
                assert Fraction(task.answer) == expected, task.prompt
                checked += 1
        if checked == 5:
            break
    assert checked == 5, kind


def test_every_exact_notation_is_paid_and_rounding_is_not() -> None:
    for seed in range(50):
        task = palaestra.make_task(FAMILY, seed=seed, level=6)
        value = Fraction(task.answer)
        if 10**12 % value.denominator:  # no exact decimal of 6 digits
            break
    p, q = value.numerator, value.denominator
    for text in (
        f"{p}/{q}",
        f"\\frac{{{p}}}{{{q}}}",
        f"{3 * p}/{3 * q}",
        f"$\\dfrac{{{p}}}{{{q}}}$",
        f"\\boxed{{{p}/{q}}}",
    ):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in (f"{float(value):.6f}", f"{p + 1}/{q}", f"{q}/{p}", f"{p}/{q} or {p + 1}/{q}", "nan", "1/0"):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text


def test_decimals_are_paid_when_exact() -> None:
    for seed in range(200):
        task = palaestra.make_task(FAMILY, seed=seed, level=3)
        value = Fraction(task.answer)
        if 10**6 % value.denominator == 0:
            decimal = f"{value.numerator * (10**6 // value.denominator) / 10**6:.6f}"
            assert Fraction(decimal) == value
            assert palaestra.verify(task, f"<answer>{decimal}</answer>").correct
            return
    raise AssertionError("no task with a terminating decimal answer")


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=5)
    for text in ("9" * 100_000, "1/" * 10_000, "\\frac{" * 5000, "1e400", "0x1p-3"):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05


def test_weak_shortcut_is_wrong_on_large_experiments() -> None:
    wrong = 0
    for seed in range(60):
        task = palaestra.make_task(FAMILY, seed=seed, level=9)
        response = IMPL.solve_weak(task).response
        wrong += response is None or not palaestra.verify(task, response).correct
    assert wrong >= 40
