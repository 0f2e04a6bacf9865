"""Tests for the cryptarithm family."""

from __future__ import annotations

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.generators.arithmetic.cryptarithm import canonical_form, parse_mapping, solve
from palaestra.registry import get, make_task, verify

FAMILY = "cryptarithm"
IMPL = get(FAMILY).impl


@pytest.mark.parametrize("level", range(1, 11))
def test_reference_exact_and_mutations(level: int) -> None:
    for seed in range(3):
        task = make_task(FAMILY, seed=seed, level=level)
        assert verify(task, IMPL.reference_response(task)).correct
        assert verify(task, IMPL.solve_exact(task).response).correct
        mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
        assert len(set(mutations)) >= 3
        for response in mutations:
            assert not verify(task, response).correct, response
        assert Task.from_json(task.to_json()) == task
        assert make_task(FAMILY, seed=seed, level=level) == task


def _z3_count(addends: list[str], result: str, limit: int = 2) -> int:
    """Independent count with z3: 8-bit digits and an explicit carry per column."""
    letters = sorted(set("".join([*addends, result])))
    var = {ch: z3.BitVec(ch, 8) for ch in letters}
    solver = z3.SolverFor("QF_BV")
    solver.add(z3.Distinct(*var.values()))
    solver.add(*[z3.ULE(v, 9) for v in var.values()])
    solver.add(*[var[w[0]] != 0 for w in [*addends, result] if len(w) > 1])
    width = len(result)
    carries = (
        [z3.BitVecVal(0, 8)] + [z3.BitVec(f"carry{c}", 8) for c in range(1, width)] + [z3.BitVecVal(0, 8)]
    )
    solver.add(*[z3.ULT(c, len(addends)) for c in carries[1:-1]])
    for c in range(width):
        column = [var[w[-1 - c]] for w in addends if c < len(w)]
        solver.add(z3.Sum([*column, carries[c]]) == var[result[-1 - c]] + 10 * carries[c + 1])
    count = 0
    while count < limit and solver.check() == z3.sat:
        model = solver.model()
        count += 1
        solver.add(z3.Or([v != model[v] for v in var.values()]))
    return count


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(1, 10))
def test_uniqueness_cross_checked_with_z3(seed: int, level: int) -> None:
    task = make_task(FAMILY, seed=seed, level=level)
    assert _z3_count(task.metadata["addends"], task.metadata["result"]) == 1


def test_solver_counts_several_solutions() -> None:
    assert solve(["SEND", "MORE"], "MONEY").count == 1
    assert solve(["AB", "CD"], "EF").count == 2  # capped at the limit
    assert solve(["A", "A"], "B", limit=100).count == _z3_count(["A", "A"], "B", limit=100) == 4
    assert solve(["AB", "AB"], "ABC").count == 0


def test_answer_format_variants() -> None:
    task = make_task(FAMILY, seed=4, level=2)
    mapping = parse_mapping(task.answer)
    assert isinstance(mapping, dict)
    items = sorted(mapping.items(), reverse=True)
    for text in (
        ", ".join(f"{k} = {v}" for k, v in items),
        "; ".join(f"{k.lower()}: {v}" for k, v in items),
        " ".join(f"{k}→{v}" for k, v in items),
        "\n".join(f"{k}={v}" for k, v in items),
    ):
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert not verify(task, "<answer>SEND + MORE</answer>").format_ok
    assert not verify(task, f"<answer>{task.answer}, Q=1 and the sum is 7</answer>").correct
    first = items[0][0]
    assert not verify(task, f"<answer>{task.answer}, {first}={(mapping[first] + 1) % 10}</answer>").correct


def test_canonical_form_ignores_relabelling_and_order() -> None:
    assert canonical_form(["SEND", "MORE"], "MONEY") == canonical_form(["ABCD", "EFGB"], "EFCBH")
    assert canonical_form(["AB", "CD"], "EF") == canonical_form(["CD", "AB"], "EF")


def test_duplicates_are_rare_at_level_three() -> None:
    hashes = [make_task(FAMILY, seed=s, level=3).metadata["canonical_hash"] for s in range(150)]
    assert len(set(hashes)) >= 149


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(8)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak8, effort8) = rates(1), rates(8)
    assert weak1 > weak8 and effort1 < effort8


def test_a_huge_number_for_a_letter_is_refused_not_a_crash() -> None:
    task = make_task(FAMILY, seed=1, level=3)
    verdict = verify(task, "<answer>A = " + "9" * 5000 + "</answer>")  # int() raised before
    assert verdict.status == "unparseable" and verdict.error is None


def _plain_solve(addends: list[str], result: str, limit: int = 2) -> tuple[int, int, dict[str, int] | None]:
    """The solver as first written (letters in a dict): the oracle for the faster one's search
    order, node count and first solution (they are stored in tasks)."""
    width = len(result)
    if any(len(w) > width for w in addends):
        return 0, 0, None
    columns = [[w[-1 - c] for w in addends if c < len(w)] for c in range(width)]
    leading = {w[0] for w in [*addends, result] if len(w) > 1}
    assign: dict[str, int] = {}
    used = [False] * 10
    state = {"count": 0, "nodes": 0, "first": None}

    def column(c: int, carry: int) -> None:
        if state["count"] >= limit:
            return
        if c == width:
            if carry == 0:
                state["count"] += 1
                if state["first"] is None:
                    state["first"] = dict(assign)
            return
        fill(c, carry, [ch for ch in dict.fromkeys(columns[c]) if ch not in assign], 0)

    def fill(c: int, carry: int, free: list[str], k: int) -> None:
        if k < len(free):
            letter = free[k]
            for digit in range(1 if letter in leading else 0, 10):
                if not used[digit]:
                    state["nodes"] += 1
                    assign[letter], used[digit] = digit, True
                    fill(c, carry, free, k + 1)
                    del assign[letter]
                    used[digit] = False
            return
        total = carry + sum(assign[ch] for ch in columns[c])
        digit, letter = total % 10, result[-1 - c]
        if letter in assign:
            if assign[letter] == digit:
                column(c + 1, total // 10)
        elif not used[digit] and not (digit == 0 and letter in leading):
            state["nodes"] += 1
            assign[letter], used[digit] = digit, True
            column(c + 1, total // 10)
            del assign[letter]
            used[digit] = False

    column(0, 0)
    return state["count"], state["nodes"], state["first"]


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(st.text("ABCDEF", min_size=1, max_size=3), min_size=2, max_size=3),
    result=st.text("ABCDEFG", min_size=1, max_size=4),
    limit=st.integers(1, 3),
)
def test_solver_searches_exactly_as_the_plain_one(words: list[str], result: str, limit: int) -> None:
    fast = solve(words, result, limit)
    count, nodes, first = _plain_solve(words, result, limit)
    assert (fast.count, fast.nodes) == (count, nodes)
    assert fast.first == first and list(fast.first or {}) == list(first or {})  # same order too
