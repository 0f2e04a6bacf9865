"""Tests of the futoshiki family: solver against brute force and z3, digging, verifier."""

from __future__ import annotations

import itertools
import time

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import futoshiki as F
from palaestra.registry import get

IMPL = get("futoshiki").impl


def _brute_force(
    n: int, givens: list[int], less: list[tuple[int, int]], limit: int = 10**6
) -> list[list[int]]:
    """Every Latin square meeting the givens and inequalities, rows from itertools.permutations
    (an enumeration that shares nothing with the family's solver)."""
    perms = list(itertools.permutations(range(1, n + 1)))
    found: list[list[int]] = []
    # the inequalities to check once row r is placed: those whose lower cell is in row r
    due = [[(a, b) for a, b in less if max(a, b) // n == r] for r in range(n)]

    def rec(rows: list[tuple[int, ...]]) -> None:
        if len(found) >= limit:
            return
        r = len(rows)
        if r == n:
            found.append([v for row in rows for v in row])
            return
        for row in perms:
            if any(givens[r * n + c] and givens[r * n + c] != row[c] for c in range(n)):
                continue
            if any(prev[c] == row[c] for prev in rows for c in range(n)):
                continue
            flat = [v for x in rows for v in x] + list(row)
            if all(flat[a] < flat[b] for a, b in due[r]):
                rec(rows + [row])

    rec([])
    return found


def _z3_count(n: int, givens: list[int], less: list[tuple[int, int]], limit: int = 2) -> int:
    x = [z3.Int(f"x{i}") for i in range(n * n)]
    s = z3.Solver()
    for i, v in enumerate(x):
        s.add(1 <= v, v <= n)
        if givens[i]:
            s.add(v == givens[i])
    for k in range(n):
        s.add(z3.Distinct(x[k * n : (k + 1) * n]))
        s.add(z3.Distinct(x[k::n]))
    for a, b in less:
        s.add(x[a] < x[b])
    found = 0
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v) for v in x]))
    return found


def _task(n: int, givens: list[int], less: list[tuple[int, int]]) -> Task:
    return Task(
        family="futoshiki",
        family_version=IMPL.version,
        difficulty=Difficulty(level=None, knobs=F.FutoshikiKnobs(size=n).to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={
            "size": n,
            "givens": [givens[r * n : (r + 1) * n] for r in range(n)],
            "inequalities": [list(p) for p in less],
        },
    )


def _grid(cells: list[int], n: int) -> str:
    return "\n".join("".join(map(str, cells[r * n : (r + 1) * n])) for r in range(n))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([3, 4]), share=st.floats(0.0, 1.0))
def test_solver_counts_like_brute_force(seed: int, n: int, share: float) -> None:
    # random clues taken from a random Latin square, some dropped, some inequalities reversed
    rng = make_rng("futoshiki-test", seed, 0)
    square = F.random_solution(F.make_geometry(n, None), rng)
    givens = [v if rng.random() < share / 3 else 0 for v in square]
    less = [p for p in F.all_inequalities(square, n) if rng.random() < share]
    if less and rng.random() < 0.3:
        a, b = less[0]
        less[0] = (b, a)
    found = _brute_force(n, givens, less)
    result = F.solve(n, givens, less, limit=1000)
    assert result.count == len(found)
    assert sorted(result.solutions) == sorted(found)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.sampled_from([1, 2, 3, 4]))
def test_generated_puzzles_are_unique_by_brute_force(seed: int, level: int) -> None:
    task = palaestra.make_task("futoshiki", seed=seed, level=level)
    n, givens, less = F._unpack(task)
    found = _brute_force(n, givens, less, limit=2)
    assert len(found) == 1
    assert _grid(found[0], n) == task.answer
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_larger_puzzles_are_unique_by_z3() -> None:
    for level, seed in ((5, 0), (7, 1), (10, 2)):
        task = palaestra.make_task("futoshiki", seed=seed, level=level)
        n, givens, less = F._unpack(task)
        assert _z3_count(n, givens, less) == 1
        assert task.metadata["num_givens"] <= task.knobs["min_givens"] + n * n


def test_digging_leaves_every_inequality_needed() -> None:
    # the dig is greedy to the end: dropping any remaining inequality admits a second solution
    # (unless the bounded check kept it), so the clue set is minimal for the givens shown
    task = palaestra.make_task("futoshiki", seed=4, level=3)
    n, givens, less = F._unpack(task)
    for pair in less:
        fewer = [p for p in less if p != pair]
        assert len(_brute_force(n, givens, fewer, limit=2)) == 2


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 4, 7):
        tasks = [palaestra.make_task("futoshiki", seed=s, level=level) for s in range(6)]
        rates.append(sum(IMPL.solve_weak(t).response is not None for t in tasks))
        efforts.append(sum(IMPL.effort(t) for t in tasks))
    assert rates[0] > rates[1] >= rates[2]
    assert efforts[0] < efforts[1] < efforts[2]


def test_verifier_accepts_every_valid_grid_and_names_the_broken_rule() -> None:
    # a 4x4 puzzle with several solutions: each one (found independently) is paid
    less = [(0, 1), (5, 4)]
    givens = [0] * 16
    task = _task(4, givens, less)
    valid = _brute_force(4, givens, less, limit=5)
    assert len(valid) == 5
    for grid in valid:
        assert IMPL.verify(task, f"<answer>{_grid(grid, 4)}</answer>").correct
    square = [1, 2, 3, 4, 2, 1, 4, 3, 3, 4, 1, 2, 4, 3, 2, 1]  # r2c2 = 1 < r2c1 = 2 holds, r1c1 < r1c2 holds
    assert IMPL.verify(task, f"<answer>{_grid(square, 4)}</answer>").correct
    reversed_row = [2, 1, 4, 3, 1, 2, 3, 4, 3, 4, 1, 2, 4, 3, 2, 1]
    verdict = IMPL.verify(task, f"<answer>{_grid(reversed_row, 4)}</answer>")
    assert not verdict.correct and verdict.format_ok and "r1c1 < r1c2" in verdict.reason
    repeated = [1, 2, 3, 4, 2, 1, 4, 3, 3, 4, 1, 2, 4, 3, 1, 2]
    verdict = IMPL.verify(task, f"<answer>{_grid(repeated, 4)}</answer>")
    assert not verdict.correct and "column 3" in verdict.reason
    given_task = _task(4, [4] + [0] * 15, [])
    verdict = IMPL.verify(given_task, f"<answer>{_grid(square, 4)}</answer>")
    assert not verdict.correct and "given" in verdict.reason


def test_verifier_formats_and_near_misses() -> None:
    task = palaestra.make_task("futoshiki", seed=9, level=4)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {' '.join(r)}" for i, r in enumerate(rows)) + "\n</answer>",
        f"\\boxed{{{''.join(rows)}}}",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 4
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    for bad in ("<answer>" + task.answer.replace("1", "0") + "</answer>", "<answer>12</answer>"):
        assert not IMPL.verify(task, bad).correct


def test_hostile_input_is_rejected_quickly() -> None:
    task = palaestra.make_task("futoshiki", seed=2, level=5)
    for response in ("<answer>" + "1" * 200_000 + "</answer>", "1 " * 100_000, "\n" * 100_000 + "9"):
        started = time.process_time()
        verdict = palaestra.verify(task, response)
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.5


def test_canonical_hash_sees_symmetries() -> None:
    task = palaestra.make_task("futoshiki", seed=3, level=4)
    n, givens, less = F._unpack(task)
    for cell_map in F.square_maps(n):
        moved = [0] * (n * n)
        for cell, v in enumerate(givens):
            moved[cell_map[cell]] = v
        pairs = [(cell_map[a], cell_map[b]) for a, b in less]
        assert F.canonical_hash(n, moved, pairs) == task.metadata["canonical_hash"]
    flipped = [n + 1 - v if v else 0 for v in givens]
    assert F.canonical_hash(n, flipped, [(b, a) for a, b in less]) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("futoshiki", seed=s, level=3).metadata["canonical_hash"] for s in range(30)}
    assert len(hashes) == 30
