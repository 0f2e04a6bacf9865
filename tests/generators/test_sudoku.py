"""Tests of the sudoku family: uniqueness (z3 and brute force), tiers, verifier, formats."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import sudoku as S
from palaestra.generators.puzzles._latin import (
    count_solutions,
    count_solutions_propagating,
    logical_solve,
    sudoku_geometry,
)
from palaestra.generators.shared.grids import read_digit_grid as parse_grid
from palaestra.registry import get

IMPL = get("sudoku").impl
SEEDS = st.integers(min_value=0, max_value=2**32)


def _flat(task: Task) -> list[int]:
    return [v for row in task.metadata["givens"] for v in row]


def _z3_count(puzzle: list[int], n: int, box: tuple[int, int], limit: int = 2) -> int:
    """Independent uniqueness check: z3 over integer cells, blocking each model found."""
    cells = [z3.Int(f"c{i}") for i in range(n * n)]
    solver = z3.Solver()
    solver.add([z3.And(1 <= c, c <= n) for c in cells])
    geo = sudoku_geometry(n, *box)
    for unit in geo.units:
        solver.add(z3.Distinct([cells[i] for i in unit]))
    solver.add([cells[i] == v for i, v in enumerate(puzzle) if v])
    found = 0
    while found < limit and solver.check() == z3.sat:
        model = solver.model()
        found += 1
        solver.add(z3.Or([c != model.eval(c) for c in cells]))
    return found


def _all_4x4_grids() -> list[tuple[int, ...]]:
    geo = sudoku_geometry(4, 2, 2)
    grids = []
    for rows in itertools.product(itertools.permutations(range(1, 5)), repeat=4):
        flat = [v for row in rows for v in row]
        if all(len({flat[c] for c in unit}) == 4 for unit in geo.units):
            grids.append(tuple(flat))
    return grids


def test_4x4_uniqueness_by_brute_force() -> None:
    grids = _all_4x4_grids()
    assert len(grids) == 288  # the known number of 4x4 sudoku grids
    for seed in range(25):
        task = palaestra.make_task("sudoku", seed=seed, level=1)
        puzzle = _flat(task)
        matches = [g for g in grids if all(v == 0 or g[i] == v for i, v in enumerate(puzzle))]
        assert len(matches) == 1
        assert "".join(map(str, matches[0])) == task.answer.replace("\n", "")


@pytest.mark.parametrize("level", [3, 6, 8])
def test_uniqueness_cross_checked_with_z3(level: int) -> None:
    for seed in range(2):
        task = palaestra.make_task("sudoku", seed=seed, level=level)
        n = task.metadata["size"]
        assert _z3_count(_flat(task), n, tuple(task.metadata["box"])) == 1


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, level=st.sampled_from([1, 2, 3, 4, 5]))
def test_generated_puzzles_have_their_tier_and_one_solution(seed: int, level: int) -> None:
    task = palaestra.make_task("sudoku", seed=seed, level=level)
    meta = task.metadata
    n, box = meta["size"], tuple(meta["box"])
    geo = sudoku_geometry(n, *box)
    puzzle = _flat(task)
    tier = meta["tier"]
    assert tier == task.knobs["tier"]
    # the tier is tight: the solver limited to it completes, one tier less gets stuck
    assert logical_solve(geo, puzzle, tier).solved
    assert tier == 1 or not logical_solve(geo, puzzle, tier - 1).solved
    plain, fast = count_solutions(geo, puzzle, 2), count_solutions_propagating(geo, puzzle, 2)
    assert plain.count == fast.count == 1 and plain.solution == fast.solution
    assert plain.nodes == meta["nodes"]
    assert meta["num_givens"] == sum(1 for v in puzzle if v)
    if level > 2:  # not degenerate: naked singles alone do not solve it
        assert not logical_solve(geo, puzzle, 1).solved
    assert IMPL.verify(task, IMPL.solve_exact(task).response).correct


def test_tier_four_needs_search() -> None:
    task = palaestra.make_task("sudoku", seed=3, level=8)
    geo = sudoku_geometry(9, 3, 3)
    assert task.metadata["tier"] == 4
    assert not logical_solve(geo, _flat(task), 3).solved
    assert IMPL.solve_weak(task).response is None


def test_weak_solver_solves_singles_puzzles_only() -> None:
    easy = palaestra.make_task("sudoku", seed=5, level=4)
    run = IMPL.solve_weak(easy)
    assert run.response is not None and IMPL.verify(easy, run.response).correct
    hard = palaestra.make_task("sudoku", seed=5, level=7)
    assert hard.metadata["tier"] == 3 and IMPL.solve_weak(hard).response is None


def test_levels_respect_min_givens_and_min_nodes() -> None:
    task = palaestra.make_task("sudoku", seed=2, level=4)
    assert task.metadata["num_givens"] >= 24
    task = palaestra.make_task("sudoku", seed=2, level=9)
    assert task.metadata["nodes"] >= 500


def test_symmetric_givens() -> None:
    task = palaestra.make_task("sudoku", seed=4, size=9, tier=2, symmetric=True)
    puzzle = _flat(task)
    assert all(bool(puzzle[i]) == bool(puzzle[80 - i]) for i in range(81))


# ------------------------------------------------------------------------------ verifier


@pytest.fixture(scope="module")
def task9() -> Task:
    return palaestra.make_task("sudoku", seed=21, level=5)


def _rows(task: Task) -> list[str]:
    return task.answer.split("\n")


def test_answer_format_variants_accepted(task9: Task) -> None:
    rows = _rows(task9)
    spaced = "\n".join(" ".join(r) for r in rows)
    piped = "\n".join(f"{r[:3]} | {r[3:6]} | {r[6:]}" for r in rows)
    ruled = "\n".join(piped.split("\n")[:3] + ["------+-------+------"] + piped.split("\n")[3:])
    variants = [
        f"<answer>\n{task9.answer}\n</answer>",
        f"<answer>{spaced}</answer>",
        f"Thinking...\n<answer>\n{ruled}\n</answer>",
        f"\\boxed{{{task9.answer}}}",
        f"<answer>{''.join(rows)}</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {', '.join(r)}" for i, r in enumerate(rows)) + "\n</answer>",
        "<answer>\n" + "\n".join(f"[{', '.join(r)}]" for r in rows) + "\n</answer>",
        task9.answer,  # a bare grid
    ]
    for response in variants:
        verdict = IMPL.verify(task9, response)
        assert verdict.correct, (response, verdict)


def test_distinct_wrong_answers_fail(task9: Task) -> None:
    rows = _rows(task9)
    givens = task9.metadata["givens"]
    free = [(r, c) for r in range(9) for c in range(9) if not givens[r][c]]
    r, c = free[0]
    changed = [list(row) for row in rows]
    changed[r][c] = str(int(changed[r][c]) % 9 + 1)
    # a grid that keeps every rule but a given: relabel digits 1 <-> 2 everywhere
    relabelled = [row.translate(str.maketrans("12", "21")) for row in rows]
    wrong = {
        "changed cell": "\n".join("".join(x) for x in changed),
        "relabelled": "\n".join(relabelled),
        "row swapped": "\n".join([rows[1], rows[0]] + rows[2:]),
        "zero": "\n".join(["0" + rows[0][1:]] + rows[1:]),
    }
    for name, grid in wrong.items():
        verdict = IMPL.verify(task9, f"<answer>\n{grid}\n</answer>")
        assert not verdict.correct and verdict.format_ok, (name, verdict)
    for response in IMPL.mutated_responses(task9, make_rng("t", 1, 0)):
        assert not IMPL.verify(task9, response).correct


def test_bad_formats(task9: Task) -> None:
    rows = _rows(task9)
    bad = [
        "<answer>" + "\n".join(rows[:8]) + "</answer>",  # 8 rows
        "<answer>" + "\n".join(r + "1" for r in rows) + "</answer>",  # 10 columns
        "<answer>" + "\n".join(["abcdefghi"] + rows[1:]) + "</answer>",
        "<answer>" + "\n".join([rows[0][:-1] + "."] + rows[1:]) + "</answer>",
        "I think the answer is the grid above.",
        f"<answer>{task9.answer}</answer><answer>{task9.answer[::-1]}</answer>",
    ]
    for response in bad:
        verdict = IMPL.verify(task9, response)
        assert not verdict.correct and not verdict.format_ok, (response, verdict)


def test_verifier_checks_rules_not_string_equality() -> None:
    # a hand-made task with a single given: many grids are valid and all must pass
    givens = [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    task = Task(
        family="sudoku",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=S.SudokuKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="1234\n3412\n2143\n4321",
        metadata={"size": 4, "box": [2, 2], "givens": givens},
    )
    for grid in ("1234\n3412\n2143\n4321", "1243\n3421\n2134\n4312", "1324\n2413\n3142\n4231"):
        assert IMPL.verify(task, f"<answer>{grid}</answer>").correct, grid
    assert not IMPL.verify(task, "<answer>2134\n3421\n1243\n4312</answer>").correct  # breaks the given
    assert not IMPL.verify(task, "<answer>1234\n2143\n3412\n4321</answer>").correct  # box repeats


def test_parse_grid_edge_cases() -> None:
    assert parse_grid("12\n21", 2)[0] == [[1, 2], [2, 1]]
    assert parse_grid("1 2 3 4", 2)[0] == [[1, 2], [3, 4]]
    assert parse_grid("１２\n２１", 2)[0] == [[1, 2], [2, 1]]  # fullwidth forms read as ASCII
    assert parse_grid("١٢\n٢١", 2)[0] == [[1, 2], [2, 1]]  # so do other scripts' digits
    assert parse_grid("¹²\n²¹", 2)[0] is None  # superscripts are not digits
    assert parse_grid("1" * 6000, 2)[0] is None


# ------------------------------------------------------------------------------ knobs, hashing


def test_knob_validation() -> None:
    with pytest.raises(ValueError, match="tier"):
        palaestra.make_task("sudoku", seed=0, size=4, tier=2)
    with pytest.raises(ValueError, match="min_givens"):
        palaestra.make_task("sudoku", seed=0, size=4, min_givens=20)
    with pytest.raises(ValueError):
        palaestra.make_task("sudoku", seed=0, size=5)


def test_canonical_hash_is_invariant() -> None:
    task = palaestra.make_task("sudoku", seed=8, level=3)
    n, (br, bc) = 6, task.metadata["box"]
    puzzle = _flat(task)
    digits = np.random.default_rng(0).permutation(n) + 1
    relabelled = [int(digits[v - 1]) if v else 0 for v in puzzle]
    flipped = [puzzle[(n - 1 - r) * n + c] for r in range(n) for c in range(n)]
    h = task.metadata["canonical_hash"]
    assert S.canonical_hash(relabelled, n, br, bc) == h
    assert S.canonical_hash(flipped, n, br, bc) == h
    other = palaestra.make_task("sudoku", seed=9, level=3)
    assert other.metadata["canonical_hash"] != h


def test_few_duplicates_at_level_3() -> None:
    hashes = [palaestra.make_task("sudoku", seed=s, level=3).metadata["canonical_hash"] for s in range(150)]
    assert len(set(hashes)) >= 148
