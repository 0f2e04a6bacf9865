"""Tests for the combinatorial_counting family."""

from __future__ import annotations

from itertools import combinations, permutations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.registry import get, make_task, verify

FAMILY = "combinatorial_counting"
IMPL = get(FAMILY).impl


@pytest.mark.parametrize("level", range(1, 11))
def test_reference_exact_and_mutations(level: int) -> None:
    for seed in range(8):
        task = make_task(FAMILY, seed=seed, level=level)
        assert verify(task, IMPL.reference_response(task)).correct
        assert verify(task, IMPL.solve_exact(task).response).correct
        mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
        assert len(set(mutations)) >= 3
        for response in mutations:
            assert not verify(task, response).correct, response
        assert Task.from_json(task.to_json()) == task
        assert make_task(FAMILY, seed=seed, level=level) == task


def _independent(kind: str, p: dict) -> int | None:
    """Brute-force counts written independently of the family's code."""
    if kind == "lattice":
        blocked = {tuple(x) for x in p["blocked"]}

        def paths(x: int, y: int) -> int:
            if (x, y) in blocked or x > p["a"] or y > p["b"]:
                return 0
            return 1 if (x, y) == (p["a"], p["b"]) else paths(x + 1, y) + paths(x, y + 1)

        return paths(0, 0)
    if kind == "binary":
        strings = ["".join(bits) for bits in product("01", repeat=p["n"])]
        return sum(
            s.count("1") == p["t"]
            and not (p["no_adjacent"] and "11" in s)
            and all(s[z - 1] == "0" for z in p["zeros"])
            and all(s[o - 1] == "1" for o in p["ones"])
            for s in strings
        )
    if kind == "committee":
        # named people listed first: the feuding pair, the inseparable pair, the must-serve member
        genders = {"men": "mm", "women": "ww", "mixed": "mw", "": ""}
        named = genders[p["conflict"]] + genders[p["together"]] + p["must"][:1]
        people = list(named)
        for gender, total in (("m", p["men"]), ("w", p["women"])):
            people += [gender] * (total - named.count(gender))
        feud = {0, 1} if p["conflict"] else set()
        start = 2 if p["conflict"] else 0
        pair = {start, start + 1} if p["together"] else set()
        member = len(named) - 1 if p["must"] else None
        total = 0
        for c in combinations(range(len(people)), p["k"]):
            women = [people[i] for i in c].count("w")
            total += (
                p["j"] <= women <= p["max_women"]
                and p["k"] - women >= p["min_men"]
                and not (feud and feud <= set(c))
                and len(pair & set(c)) in (0, len(pair))
                and not (member is not None and member not in c)
            )
        return total
    if kind == "boxes" and (p["n"] + 1) ** p["k"] <= 30_000:
        return sum(
            sum(f) == p["n"] and all(m <= x <= c for x, m, c in zip(f, p["mins"], p["caps"], strict=True))
            for f in product(range(p["n"] + 1), repeat=p["k"])
        )
    if kind == "seating":
        banned = {tuple(x) for x in p["forbidden"]}
        return sum(
            all((i + 1, s) not in banned for i, s in enumerate(perm))
            for perm in permutations(range(1, p["n"] + 1))
        )
    return None


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_answers_match_independent_counts(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    expected = _independent(task.metadata["kind"], task.metadata["params"])
    if expected is not None:
        assert int(task.answer) == expected


def test_duplicates_are_rare_from_level_three() -> None:
    for level in (3, 5):
        hashes = [make_task(FAMILY, seed=s, level=level).metadata["canonical_hash"] for s in range(300)]
        assert len(set(hashes)) >= 297, level


def test_answer_formats() -> None:
    task = make_task(FAMILY, seed=0, level=5)
    value = int(task.answer)
    for text in (f"{value}", f"{value:,}", f"\\boxed{{{value}}}", f"Answer: {value}", f"{value}.0"):
        assert verify(task, text).correct, text
    for text in (f"{value + 1}", f"{value}.5", "nan", f"{value} or {value + 1}"):
        assert not verify(task, text).correct, text


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(30)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak5, effort5), (weak10, effort10) = rates(1), rates(5), rates(10)
    assert weak1 >= weak5 >= weak10 and weak1 - weak10 >= 0.3
    assert effort1 < effort5 < effort10
