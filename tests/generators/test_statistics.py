"""statistics: every answer checked against Python's statistics module on the data read back
from the prompt text."""

from __future__ import annotations

import re
import statistics as pystats
import time
from collections import Counter
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "statistics"
IMPL = palaestra.get(FAMILY).impl


def data_from_prompt(prompt: str) -> list[Fraction]:
    if prompt.startswith("A frequency table"):
        rows = re.findall(r"^\| (-?[\d.]+) \| (\d+) \|$", prompt, re.M)
        return [Fraction(v) for v, c in rows for _ in range(int(c))]
    listed = re.match(r"Data \((\d+) values\): (.*)", prompt)
    values = [Fraction(v) for v in listed[2].split(", ")]
    assert len(values) == int(listed[1])
    return values


def reference(task: palaestra.Task) -> Fraction:
    data = data_from_prompt(task.prompt)
    name = task.metadata["statistic"]
    if name in ("mean", "table_mean"):
        return pystats.mean(data)
    if name == "median":
        return Fraction(pystats.median(data))
    if name == "range":
        return max(data) - min(data)
    if name == "mode":
        (top, count), *rest = Counter(data).most_common()
        assert not rest or rest[0][1] < count, "the mode must be unique"
        return pystats.mode(data)
    if name == "population_variance":
        return pystats.pvariance(data)
    return pystats.variance(data)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_answers_agree_with_the_statistics_module(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert Fraction(task.answer) == reference(task), task.prompt


def test_every_statistic_appears_and_agrees() -> None:
    seen = set()
    for seed in range(150):
        task = palaestra.make_task(FAMILY, seed=seed, level=8)
        assert Fraction(task.answer) == reference(task)
        seen.add(task.metadata["statistic"])
    assert len(seen) == 7


def test_population_and_sample_variance_differ_and_are_told_apart() -> None:
    for seed in range(200):
        task = palaestra.make_task(FAMILY, seed=seed, level=7)
        if task.metadata["statistic"] == "sample_variance":
            break
    data = data_from_prompt(task.prompt)
    assert palaestra.verify(task, f"<answer>{pystats.variance(data)}</answer>").correct
    assert not palaestra.verify(task, f"<answer>{pystats.pvariance(data)}</answer>").correct
    assert "n - 1" in task.prompt


def test_exact_forms_paid_rounding_refused() -> None:
    for seed in range(100):
        task = palaestra.make_task(FAMILY, seed=seed, level=5)
        value = Fraction(task.answer)
        if value.denominator in (3, 7, 9, 11, 13) and value > 1:
            break
    p, q = value.numerator, value.denominator
    whole, rest = divmod(p, q)
    for text in (f"{p}/{q}", f"\\frac{{{p}}}{{{q}}}", f"{whole} {rest}/{q}", f"{2 * p}/{2 * q}"):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in (f"{float(value):.4f}", f"{float(value):.10f}", f"{p}/{q + 1}", f"{p + 1}/{q}"):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text


def test_weak_shortcuts_hold_only_on_sorted_lists() -> None:
    for seed in range(20):
        task = palaestra.make_task(FAMILY, seed=seed, level=1)
        assert palaestra.verify(task, IMPL.solve_weak(task).response).correct
    wrong = sum(
        not palaestra.verify(t, IMPL.solve_weak(t).response).correct
        for t in (palaestra.make_task(FAMILY, seed=s, level=10) for s in range(60))
    )
    assert wrong >= 45


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=5)
    for text in ("5" * 100_000, "-" * 5000 + "5", ".5" * 4000, "5/5/5/5" * 500):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
