"""Tests of the killer sudoku family: cages, uniqueness (z3), verifier."""

from __future__ import annotations

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import sudoku_killer as KS
from palaestra.generators.puzzles._latin import neighbours
from palaestra.registry import get

IMPL = get("sudoku_killer").impl


def _z3_count(task: Task, limit: int = 2) -> int:
    n, cage_of, sums, givens = KS._unpack(task)
    br, bc = task.metadata["box"]
    x = [z3.Int(f"x{i}") for i in range(n * n)]
    s = z3.Solver()
    s.add([z3.And(1 <= v, v <= n) for v in x])
    for r in range(n):
        s.add(z3.Distinct([x[r * n + c] for c in range(n)]))
        s.add(z3.Distinct([x[c * n + r] for c in range(n)]))
    for r0 in range(0, n, br):
        for c0 in range(0, n, bc):
            s.add(z3.Distinct([x[(r0 + r) * n + c0 + c] for r in range(br) for c in range(bc)]))
    for k, total in enumerate(sums):
        cells = [x[i] for i in range(n * n) if cage_of[i] == k]
        s.add(z3.Distinct(cells) if len(cells) > 1 else z3.BoolVal(True))
        s.add(z3.Sum(cells) == total)
    s.add([x[i] == v for i, v in enumerate(givens) if v])
    found = 0
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v) for v in x]))
    return found


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([1, 2, 3, 4, 5, 6]))
def test_cages_are_connected_distinct_and_sums_true(seed: int, level: int) -> None:
    task = palaestra.make_task("sudoku_killer", seed=seed, level=level)
    n, cage_of, sums, givens = KS._unpack(task)
    solution = [int(ch) for ch in task.answer.replace("\n", "")]
    near = neighbours(n)
    for k, total in enumerate(sums):
        cells = [i for i in range(n * n) if cage_of[i] == k]
        assert 1 <= len(cells) <= task.knobs["max_cage"]
        assert sum(solution[i] for i in cells) == total
        assert len({solution[i] for i in cells}) == len(cells)
        seen, stack = {cells[0]}, [cells[0]]
        while stack:
            for q in near[stack.pop()]:
                if cage_of[q] == k and q not in seen:
                    seen.add(q)
                    stack.append(q)
        assert len(seen) == len(cells)
    assert task.metadata["num_givens"] <= task.knobs["max_givens"]
    result = KS.build_solver(n, KS._cages(cage_of, sums)).solve(givens)
    assert result.count == 1 and result.solution == solution
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_uniqueness_cross_checked_with_z3() -> None:
    for level, seed in ((2, 0), (5, 1), (6, 2)):
        task = palaestra.make_task("sudoku_killer", seed=seed, level=level)
        assert _z3_count(task) == 1


def test_verifier_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("sudoku_killer", seed=3, level=4)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        f"\\boxed{{{''.join(rows)}}}",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    verdict = IMPL.verify(task, "<answer>" + task.answer.translate(str.maketrans("12", "21")) + "</answer>")
    assert not verdict.correct and verdict.format_ok


def test_verifier_checks_cages_not_string_equality() -> None:
    # 4x4 with two-cell cages along rows: many grids fit; a valid sudoku breaking a sum fails
    cages = [[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5], [6, 6, 7, 7]]
    grid_a = ["1234", "3412", "2143", "4321"]
    grid_b = ["2143", "4321", "1234", "3412"]  # same pair sums per cage? checked below
    sums = [sum(int(ch) for ch in grid_a[r][c : c + 2]) for r in range(4) for c in (0, 2)]
    task = Task(
        family="sudoku_killer",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=KS.KillerKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={
            "size": 4,
            "box": [2, 2],
            "cages": cages,
            "sums": sums,
            "givens": [[0] * 4 for _ in range(4)],
        },
    )
    assert IMPL.verify(task, "<answer>" + "\n".join(grid_a) + "</answer>").correct
    assert IMPL.verify(
        task, "<answer>" + "\n".join(grid_b) + "</answer>"
    ).correct  # pairs swapped inside cages
    verdict = IMPL.verify(task, "<answer>3412\n1234\n4321\n2143</answer>")
    assert not verdict.correct and "cage" in verdict.reason


def test_knobs_and_hash() -> None:
    import pytest

    with pytest.raises(ValueError, match="max_cage"):
        palaestra.make_task("sudoku_killer", seed=0, size=4, max_cage=5)
    with pytest.raises(ValueError, match="min_cage"):
        palaestra.make_task("sudoku_killer", seed=0, min_cage=3, max_cage=2)
    hashes = {
        palaestra.make_task("sudoku_killer", seed=s, level=3).metadata["canonical_hash"] for s in range(30)
    }
    assert len(hashes) == 30
