"""bayes: posteriors recomputed from the prompt's own text by an independent enumeration."""

from __future__ import annotations

import re
import time
from fractions import Fraction
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "bayes"
IMPL = palaestra.get(FAMILY).impl


def read_network(prompt: str) -> tuple[list[str], dict[str, tuple[list[str], dict]], str, dict[str, bool]]:
    """Variables, CPTs ``{name: (parents, {parent values: P(true)})}``, query and evidence, read
    from the prompt text alone."""
    names = re.search(r"true/false variables ([A-Z, ]+)\.", prompt).group(1).split(", ")
    cpts: dict[str, tuple[list[str], dict]] = {}
    for name, p in re.findall(r"^- ([A-Z]) has no parents: P\(\1\) = (\d+/\d+)\.$", prompt, re.M):
        cpts[name] = ([], {(): Fraction(p)})
    for name, parents, entries in re.findall(r"^- ([A-Z]) depends on ([A-Z, ]+): (.*)\.$", prompt, re.M):
        parent_list = parents.split(", ")
        table = {}
        for given_text, p in re.findall(r"P\([A-Z] \| ([^)]*)\) = (\d+/\d+)", entries):
            literals = given_text.split(", ")
            values = tuple(not lit.startswith("not ") for lit in literals)
            assert [lit.removeprefix("not ") for lit in literals] == parent_list
            table[values] = Fraction(p)
        assert len(table) == 2 ** len(parent_list)
        cpts[name] = (parent_list, table)
    assert sorted(cpts) == names
    observed = re.search(r"Observed: (.*)\. What is", prompt).group(1)
    evidence = {n: v == "true" for n, v in re.findall(r"([A-Z]) is (true|false)", observed)}
    query = re.search(r"probability that ([A-Z]) is true given these observations", prompt).group(1)
    return names, cpts, query, evidence


def enumerate_posterior(prompt: str) -> Fraction:
    names, cpts, query, evidence = read_network(prompt)
    numerator = denominator = Fraction(0)
    for values in product((False, True), repeat=len(names)):
        world = dict(zip(names, values, strict=True))
        if any(world[n] != v for n, v in evidence.items()):
            continue
        weight = Fraction(1)
        for name, (parents, table) in cpts.items():
            p = table[tuple(world[q] for q in parents)]
            weight *= p if world[name] else 1 - p
        denominator += weight
        numerator += weight if world[query] else 0
    return numerator / denominator


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_posterior_matches_independent_enumeration(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert Fraction(task.answer) == enumerate_posterior(task.prompt)
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct


def test_evidence_moves_the_query_from_level_three() -> None:
    for seed in range(30):
        task = palaestra.make_task(FAMILY, seed=seed, level=3)
        assert Fraction(task.answer) != Fraction(task.metadata["prior"])


def test_naive_bayes_is_exact_with_one_observation_only() -> None:
    for seed in range(20):
        task = palaestra.make_task(FAMILY, seed=seed, level=2)
        assert palaestra.verify(task, IMPL.solve_weak(task).response).correct
    misses = sum(
        not palaestra.verify(task, IMPL.solve_weak(task).response).correct
        for task in (palaestra.make_task(FAMILY, seed=s, level=9) for s in range(20))
    )
    assert misses >= 18


def test_exact_forms_paid_and_rounding_refused() -> None:
    task = palaestra.make_task(FAMILY, seed=5, level=6)
    value = Fraction(task.answer)
    p, q = value.numerator, value.denominator
    for text in (f"{p}/{q}", f"\\frac{{{p}}}{{{q}}}", f"{2 * p}/{2 * q}", f"P = {p}/{q}"[4:]):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in (f"{float(value):.8f}", f"{q - p}/{q}", f"{p}/{q + 1}", f"{p}/{q}, {p + 1}/{q}", ""):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text


def test_hostile_answers_are_quick_format_errors() -> None:
    task = palaestra.make_task(FAMILY, seed=1, level=5)
    for text in ("1" * 200_000, "1/" * 50_000, "\\frac{1}{" * 4000, "\u0661/\u0662" * 1000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
