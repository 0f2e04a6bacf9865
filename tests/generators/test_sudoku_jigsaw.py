"""Tests of the jigsaw sudoku family: regions, uniqueness (z3), tiers, verifier."""

from __future__ import annotations

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import sudoku_jigsaw as J
from palaestra.generators.puzzles._latin import (
    count_solutions,
    count_solutions_propagating,
    logical_solve,
    make_geometry,
    neighbours,
    random_regions,
    regions_from_labels,
)
from palaestra.registry import get

IMPL = get("sudoku_jigsaw").impl


def _flat(rows: list[list[int]]) -> list[int]:
    return [v for row in rows for v in row]


def _geo(task: Task):
    n = task.metadata["size"]
    return make_geometry(n, regions_from_labels(_flat(task.metadata["regions"]), n))


def _z3_count(task: Task, limit: int = 2) -> int:
    n = task.metadata["size"]
    cells = [z3.Int(f"c{i}") for i in range(n * n)]
    solver = z3.Solver()
    solver.add([z3.And(1 <= c, c <= n) for c in cells])
    # units written independently of the solver module: rows, columns, region labels
    label = _flat(task.metadata["regions"])
    units = [[r * n + c for c in range(n)] for r in range(n)] + [
        [r * n + c for r in range(n)] for c in range(n)
    ]
    units += [[i for i in range(n * n) if label[i] == k] for k in range(n)]
    for unit in units:
        solver.add(z3.Distinct([cells[i] for i in unit]))
    solver.add([cells[i] == v for i, v in enumerate(_flat(task.metadata["givens"])) if v])
    found = 0
    while found < limit and solver.check() == z3.sat:
        model = solver.model()
        found += 1
        solver.add(z3.Or([c != model.eval(c) for c in cells]))
    return found


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(5, 9))
def test_random_regions_are_connected_partitions(seed: int, n: int) -> None:
    label = random_regions(n, make_rng("t", 1, seed))
    near = neighbours(n)
    for k in range(n):
        cells = [c for c in range(n * n) if label[c] == k]
        assert len(cells) == n
        seen, stack = {cells[0]}, [cells[0]]
        while stack:
            for q in near[stack.pop()]:
                if label[q] == k and q not in seen:
                    seen.add(q)
                    stack.append(q)
        assert len(seen) == n


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([1, 2, 3, 4, 5]))
def test_generated_puzzles_have_their_tier_and_one_solution(seed: int, level: int) -> None:
    task = palaestra.make_task("sudoku_jigsaw", seed=seed, level=level)
    geo, puzzle, tier = _geo(task), _flat(task.metadata["givens"]), task.metadata["tier"]
    assert tier == task.knobs["tier"]
    assert logical_solve(geo, puzzle, tier).solved
    assert tier == 1 or not logical_solve(geo, puzzle, tier - 1).solved
    plain, fast = count_solutions(geo, puzzle, 2), count_solutions_propagating(geo, puzzle, 2)
    assert plain.count == fast.count == 1 and plain.solution == fast.solution
    assert J._layout_ok(_flat(task.metadata["regions"]), task.metadata["size"])
    if level > 2:
        assert not logical_solve(geo, puzzle, 1).solved


def test_uniqueness_cross_checked_with_z3() -> None:
    for level, seed in ((3, 0), (7, 1), (9, 2)):
        task = palaestra.make_task("sudoku_jigsaw", seed=seed, level=level)
        assert _z3_count(task) == 1


def test_tier_four_defeats_weak_solver() -> None:
    task = palaestra.make_task("sudoku_jigsaw", seed=1, size=7, tier=4)
    assert not logical_solve(_geo(task), _flat(task.metadata["givens"]), 3).solved
    assert IMPL.solve_weak(task).response is None
    easy = palaestra.make_task("sudoku_jigsaw", seed=1, level=2)
    assert IMPL.verify(easy, IMPL.solve_weak(easy).response).correct


def test_weak_solver_misses_hidden_singles_in_regions() -> None:
    # level 5 puzzles need hidden singles; the weak solver looks for them in rows and columns
    # only, so it is never stronger than singles and fails where a region's hidden single is needed
    solved = 0
    for seed in range(6):
        task = palaestra.make_task("sudoku_jigsaw", seed=seed, level=5)
        geo, puzzle = _geo(task), _flat(task.metadata["givens"])
        assert logical_solve(geo, puzzle, 2).solved
        grid, _ = J.weak_solve(geo, puzzle)
        if grid is not None:
            assert grid == [int(ch) for ch in task.answer.replace("\n", "")]
            solved += 1
    assert solved < 6


def test_verifier_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("sudoku_jigsaw", seed=4, level=5)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>" + "\n".join(" | ".join(r) for r in rows) + "</answer>",
        f"\\boxed{{{''.join(rows)}}}",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    for response in ("<answer>" + "\n".join(rows[:-1]) + "</answer>", "<answer>no idea</answer>"):
        verdict = IMPL.verify(task, response)
        assert not verdict.correct and not verdict.format_ok


def test_verifier_checks_regions_not_string_equality() -> None:
    # 5x5 with one given: several grids are valid and each must pass; a Latin square that
    # breaks a region must fail
    regions = [[0, 0, 0, 1, 1], [0, 0, 1, 1, 1], [2, 2, 2, 3, 3], [2, 2, 4, 3, 3], [4, 4, 4, 4, 3]]
    task = Task(
        family="sudoku_jigsaw",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=J.JigsawKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": 5, "regions": regions, "givens": [[0] * 5 for _ in range(5)]},
    )
    geo = make_geometry(5, regions_from_labels(_flat(regions), 5))
    solutions = []
    result = count_solutions(geo, [0] * 25, limit=3)
    assert result.count >= 1
    # enumerate two different solutions by fixing the first cell differently
    for v in range(1, 6):
        res = count_solutions(geo, [v] + [0] * 24, limit=1)
        if res.solution:
            solutions.append(res.solution)
    assert len(solutions) >= 2
    for sol in solutions[:2]:
        grid = "\n".join("".join(map(str, sol[r * 5 : r * 5 + 5])) for r in range(5))
        assert IMPL.verify(task, f"<answer>{grid}</answer>").correct
    cyclic = "\n".join("".join(str((r + c) % 5 + 1) for c in range(5)) for r in range(5))
    verdict = IMPL.verify(task, f"<answer>{cyclic}</answer>")
    assert not verdict.correct and "region" in verdict.reason


def test_canonical_hash_invariant_under_symmetry_and_relabelling() -> None:
    task = palaestra.make_task("sudoku_jigsaw", seed=6, level=3)
    n = task.metadata["size"]
    puzzle, label = _flat(task.metadata["givens"]), _flat(task.metadata["regions"])
    rot = [c * n + (n - 1 - r) for r in range(n) for c in range(n)]  # a quarter turn
    turned_p = [puzzle[i] for i in rot]
    turned_l = [(label[i] + 2) % n for i in rot]
    relabelled = [(v % n) + 1 if v else 0 for v in turned_p]
    assert J.canonical_hash(relabelled, turned_l, n) == task.metadata["canonical_hash"]
    hashes = {
        palaestra.make_task("sudoku_jigsaw", seed=s, level=3).metadata["canonical_hash"] for s in range(40)
    }
    assert len(hashes) == 40
