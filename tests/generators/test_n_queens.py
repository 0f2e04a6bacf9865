"""Tests of n_queens: uniqueness and minimality cross-checked with z3, the search against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.puzzles import n_queens as Q
from palaestra.registry import get

IMPL = get("n_queens").impl


def _prompt_givens(prompt: str, n: int) -> dict[int, int]:
    """The given queens read from the prompt's board alone (n lines of n Q/. characters)."""
    lines = [line for line in prompt.splitlines() if len(line) == n and set(line) <= {"Q", "."}]
    assert len(lines) >= n
    board = lines[:n]
    return {r: line.index("Q") for r, line in enumerate(board) if "Q" in line}


def _z3_solutions(n: int, givens: dict[int, int], limit: int = 2) -> list[tuple[int, ...]]:
    """Up to ``limit`` completions found by z3 (one column variable per row)."""
    cols = [z3.Int(f"c{r}") for r in range(n)]
    solver = z3.Solver()
    solver.add([z3.And(c >= 0, c < n) for c in cols])
    solver.add(z3.Distinct(cols))
    solver.add(z3.Distinct([c + r for r, c in enumerate(cols)]))
    solver.add(z3.Distinct([c - r for r, c in enumerate(cols)]))
    solver.add([cols[r] == c for r, c in givens.items()])
    found = []
    while len(found) < limit and solver.check() == z3.sat:
        model = solver.model()
        found.append(tuple(model[c].as_long() for c in cols))
        solver.add(z3.Or([c != v for c, v in zip(cols, found[-1], strict=True)]))
    return found


def _text(solution: tuple[int, ...]) -> str:
    n = len(solution)
    return "\n".join("".join("Q" if solution[r] == c else "." for c in range(n)) for r in range(n))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**40), level=st.integers(1, 10))
def test_unique_completion_against_z3(seed: int, level: int) -> None:
    task = palaestra.make_task("n_queens", seed=seed, level=level)
    n = task.metadata["size"]
    givens = _prompt_givens(task.prompt, n)
    assert givens == {r: c for r, c in task.metadata["givens"]}
    solutions = _z3_solutions(n, givens)
    assert len(solutions) == 1
    assert _text(solutions[0]) == task.answer
    assert IMPL.verify(task, f"<answer>\n{_text(solutions[0])}\n</answer>").correct
    if not task.knobs["extra_givens"]:  # a minimal set: every given is needed
        for r in givens:
            fewer = {row: col for row, col in givens.items() if row != r}
            assert len(_z3_solutions(n, fewer)) == 2
    if task.knobs["reject_easy"]:
        assert IMPL.solve_weak(task).response is None


@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_search_counts_every_placement(n: int) -> None:
    brute = {
        perm
        for perm in itertools.permutations(range(n))
        if len({c + r for r, c in enumerate(perm)}) == n and len({c - r for r, c in enumerate(perm)}) == n
    }
    assert len(brute) == {5: 10, 6: 4, 7: 40, 8: 92}[n]
    assert set(Q.search(n, {}, limit=1000).solutions) == brute
    given_first = {0: 1}
    assert set(Q.search(n, given_first, limit=1000).solutions) == {p for p in brute if p[0] == 1}
    assert Q.search(n, {0: 0, 1: 1}, limit=10).solutions == []  # attacking givens


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 4, 7, 10):
        tasks = [palaestra.make_task("n_queens", seed=s, level=level) for s in range(12)]
        rates.append(sum(IMPL.verify(t, IMPL.solve_weak(t).response or "x").correct for t in tasks))
        efforts.append(np.mean([IMPL.effort(t) for t in tasks]))
    assert rates[0] == 12 and rates[2] == rates[3] == 0 and rates[1] < 12
    assert efforts == sorted(efforts) and efforts[0] < efforts[-1]


def test_answer_forms_and_near_misses() -> None:
    task = palaestra.make_task("n_queens", seed=2, level=5)
    n = task.metadata["size"]
    lines = task.answer.split("\n")
    givens = {r: c for r, c in task.metadata["givens"]}
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>\n" + "\n".join(line.replace("Q", "1").replace(".", "0") for line in lines) + "\n</answer>",
        "<answer>\n" + "\n".join(" ".join(line) for line in lines) + "\n</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {line}" for i, line in enumerate(lines)) + "\n</answer>",
        f"Reasoning first.\n\n<answer>\n\n{task.answer}\n\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    free = next(r for r in range(n) if r not in givens)
    col = lines[free].index("Q")
    moved = list(lines)
    moved[free] = "".join("Q" if c == (col + 1) % n else "." for c in range(n))
    given_row = next(iter(givens))
    valid_elsewhere = [line[::-1] for line in lines]  # a valid placement without the givens
    assert _z3_solutions(n, {}, limit=1)  # (the mirror of a placement is a placement)
    for response, format_ok in (
        ("<answer>\n" + "\n".join(moved) + "\n</answer>", True),
        ("<answer>\n" + "\n".join(valid_elsewhere) + "\n</answer>", True),
        (
            "<answer>\n" + "\n".join(lines[:given_row] + ["." * n] + lines[given_row + 1 :]) + "\n</answer>",
            True,
        ),
        ("<answer>\n" + "\n".join(lines[:-1]) + "\n</answer>", False),
        ("<answer>\n" + "\n".join(line.replace(".", "x") for line in lines) + "\n</answer>", False),
        (f"<answer>\n{task.answer}\n</answer>\nAnswer: {lines[0]}", False),
        ("<answer>" + "Q" * 100_000 + "</answer>", False),
    ):
        verdict = IMPL.verify(task, response)
        assert not verdict.correct and verdict.format_ok == format_ok, (response[:80], verdict)
    mutations = IMPL.mutated_responses(task, np.random.default_rng(0))
    assert len(set(mutations)) >= 3 and not any(IMPL.verify(task, m).correct for m in mutations)


def test_canonical_hash_folds_symmetries() -> None:
    task = palaestra.make_task("n_queens", seed=4, level=6)
    n = task.metadata["size"]
    givens = {r: c for r, c in task.metadata["givens"]}
    turned = {c: n - 1 - r for r, c in givens.items()}
    mirrored = {r: n - 1 - c for r, c in givens.items()}
    transposed = {c: r for r, c in givens.items()}
    for form in (turned, mirrored, transposed):
        assert Q.canonical_hash(n, form) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("n_queens", seed=s, level=6).metadata["canonical_hash"] for s in range(40)}
    assert len(hashes) == 40
