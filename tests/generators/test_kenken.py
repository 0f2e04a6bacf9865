"""Tests of the kenken family: cage tables, solver against brute force and z3, verifier."""

from __future__ import annotations

import itertools
import math
import time

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import kenken as K
from palaestra.registry import get

IMPL = get("kenken").impl


def _holds(op: str, values: list[int], target: int) -> bool:
    """The cage rule, written out independently of the family's ``combine``."""
    if op in ("", "+"):
        return sum(values) == target
    if op == "x":
        return math.prod(values) == target
    a, b = values
    if op == "-":
        return abs(a - b) == target
    return max(a, b) == target * min(a, b)


def _brute_force(n: int, cages, limit: int = 10**6) -> list[list[int]]:
    """Every Latin square meeting the cages: rows from itertools.permutations, each cage
    checked once its last row is placed."""
    perms = list(itertools.permutations(range(1, n + 1)))
    due = [[cage for cage in cages if max(cage[0]) // n == r] for r in range(n)]
    found: list[list[int]] = []

    def rec(flat: list[int]) -> None:
        if len(found) >= limit:
            return
        r = len(flat) // n
        if r == n:
            found.append(list(flat))
            return
        for row in perms:
            if any(flat[k * n + c] == row[c] for k in range(r) for c in range(n)):
                continue
            grid = flat + list(row)
            if all(_holds(op, [grid[c] for c in cells], t) for cells, op, t in due[r]):
                rec(grid)

    rec([])
    return found


def _z3_count(n: int, cages, limit: int = 2) -> int:
    x = [z3.Int(f"x{i}") for i in range(n * n)]
    s = z3.Solver()
    for v in x:
        s.add(1 <= v, v <= n)
    for k in range(n):
        s.add(z3.Distinct(x[k * n : (k + 1) * n]))
        s.add(z3.Distinct(x[k::n]))
    for cells, op, t in cages:
        # each cage as the disjunction of the digit tuples that reach its target (itertools,
        # not the family's tables); plain arithmetic products made z3 take minutes
        allowed = [
            vals
            for vals in itertools.product(range(1, n + 1), repeat=len(cells))
            if _holds(op, list(vals), t)
        ]
        s.add(z3.Or([z3.And([x[c] == v for c, v in zip(cells, vals, strict=True)]) for vals in allowed]))
    found = 0
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v) for v in x]))
    return found


def _grid(cells: list[int], n: int) -> str:
    return "\n".join("".join(map(str, cells[r * n : (r + 1) * n])) for r in range(n))


def _task(n: int, cages) -> Task:
    index = K.cage_index(n, cages)
    return Task(
        family="kenken",
        family_version=IMPL.version,
        difficulty=Difficulty(level=None, knobs=K.KenKenKnobs(size=n).to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={
            "size": n,
            "cages": [index[r * n : (r + 1) * n] for r in range(n)],
            "operations": [op for _, op, _ in cages],
            "targets": [t for _, _, t in cages],
        },
    )


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 6),
    op=st.sampled_from(["+", "x", "-", "/"]),
    shape=st.sampled_from([(0, 1), (0, 7), (0, 1, 2), (0, 1, 7), (0, 1, 7, 8)]),
    target=st.integers(1, 60),
)
def test_cage_tables_match_enumeration(n: int, op: str, shape: tuple[int, ...], target: int) -> None:
    if op in "-/" and len(shape) != 2:
        return
    cells = tuple(r * n + c for r, c in (divmod(i, 7) for i in shape) if r < n and c < n)
    if len(cells) != len(shape):
        return
    expected = set()
    for values in itertools.product(range(1, n + 1), repeat=len(cells)):
        clash = any(
            values[i] == values[j] and (cells[i] // n == cells[j] // n or cells[i] % n == cells[j] % n)
            for i, j in itertools.combinations(range(len(cells)), 2)
        )
        if not clash and _holds(op, list(values), target):
            expected.add(K.encode(values, n))
    got = K.cage_tuples(n, op, target, K.clashes_of(cells, n), len(cells))
    assert sorted(got) == sorted(expected)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([3, 4]), big=st.booleans())
def test_solver_counts_like_brute_force(seed: int, n: int, big: bool) -> None:
    rng = make_rng("kenken-test", seed, 0)
    solution = K.random_solution(K.make_geometry(n, None), rng)
    groups = K.random_partition(n, 2 if big else 1, 4 if big else 2, rng)
    cages = K.make_cages(groups, solution, "+-x/", rng)
    found = _brute_force(n, cages)
    result = K.solve(n, cages, limit=10**6)
    assert result.count == len(found) and solution in found
    assert sorted(result.solutions) == sorted(found)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.sampled_from([1, 2, 3, 4, 5]))
def test_generated_puzzles_are_unique_by_brute_force(seed: int, level: int) -> None:
    task = palaestra.make_task("kenken", seed=seed, level=level)
    n, cages = K._unpack(task)
    found = _brute_force(n, cages, limit=2)
    assert len(found) == 1 and _grid(found[0], n) == task.answer
    knobs = task.knobs
    assert all(len(cells) <= knobs["max_cage"] for cells, _, _ in cages)
    assert task.metadata["num_singles"] <= knobs["max_singles"]
    assert all(op in K.OPERATION_SETS[knobs["operations"]] for _, op, _ in cages if op)
    if not knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_larger_puzzles_are_unique_by_z3() -> None:
    for level, seed in ((7, 0), (9, 1), (10, 2)):
        task = palaestra.make_task("kenken", seed=seed, level=level)
        n, cages = K._unpack(task)
        assert _z3_count(n, cages) == 1


def test_repair_breaks_the_other_solution_and_keeps_ours() -> None:
    rng = make_rng("kenken-repair", 0, 0)
    for _ in range(20):
        solution = K.random_solution(K.make_geometry(4, None), rng)
        cages = K.make_cages(K.random_partition(4, 2, 4, rng), solution, "+-x/", rng)
        result = K.solve(4, cages)
        if result.count < 2:
            continue
        other = next(s for s in result.solutions if s != solution)
        fixed = K.repair(cages, solution, other, 4, "+-x/", rng)
        assert all(_holds(op, [solution[c] for c in cells], t) for cells, op, t in fixed)
        assert not all(_holds(op, [other[c] for c in cells], t) for cells, op, t in fixed)
        assert sorted(c for cells, _, _ in fixed for c in cells) == list(range(16))


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 5, 8):
        tasks = [palaestra.make_task("kenken", seed=s, level=level) for s in range(6)]
        rates.append(sum(IMPL.solve_weak(t).response is not None for t in tasks))
        efforts.append(sum(IMPL.effort(t) for t in tasks))
    assert rates[0] > rates[1] >= rates[2]
    assert efforts[0] < efforts[1] < efforts[2]


def test_verifier_accepts_every_valid_grid_and_names_the_broken_cage() -> None:
    # two cages of a 4x4 grid: many solutions, each found independently is paid
    cages = [(tuple(range(8)), "+", 20), (tuple(range(8, 16)), "+", 20)]
    task = _task(4, cages)
    valid = _brute_force(4, cages, limit=6)
    assert len(valid) == 6
    for grid in valid:
        assert IMPL.verify(task, f"<answer>{_grid(grid, 4)}</answer>").correct
    square = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]
    tight = [((0, 1), "-", 1), ((2, 3), "x", 12)] + [((c,), "", square[c]) for c in range(4, 16)]
    task = _task(4, tight)
    assert IMPL.verify(task, f"<answer>{_grid(square, 4)}</answer>").correct
    verdict = IMPL.verify(task, "<answer>1243\n3412\n2143\n4321</answer>")
    assert not verdict.correct and verdict.format_ok and "column 3" in verdict.reason
    # a Latin square that breaks only the product cage: 2 and 1 in cells 2, 3 multiply to 2
    loose = [((0, 1), "-", 1), ((2, 3), "x", 12)] + [((c,), "", square[c]) for c in range(8, 16)]
    loose += [((4, 5), "+", 3), ((6, 7), "+", 7)]
    task = _task(4, loose)
    verdict = IMPL.verify(task, "<answer>3412\n1234\n2143\n4321</answer>")
    assert not verdict.correct and verdict.format_ok and "cage B (12x) gives 2" in verdict.reason


def test_verifier_formats_and_near_misses() -> None:
    task = palaestra.make_task("kenken", seed=9, level=5)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {' | '.join(r)}" for i, r in enumerate(rows)) + "\n</answer>",
        f"\\boxed{{{''.join(rows)}}}",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 4
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    assert not IMPL.verify(task, "<answer>" + task.answer.replace("1", "6") + "</answer>").correct


def test_hostile_input_is_rejected_quickly() -> None:
    task = palaestra.make_task("kenken", seed=2, level=5)
    for response in ("<answer>" + "1" * 200_000 + "</answer>", "1 " * 100_000, "\n" * 100_000 + "9"):
        started = time.process_time()
        verdict = palaestra.verify(task, response)
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.5


def test_canonical_hash_sees_symmetries() -> None:
    task = palaestra.make_task("kenken", seed=3, level=5)
    n, cages = K._unpack(task)
    for perm in K.grid_symmetries(n, 1, 1):
        where = {old: new for new, old in enumerate(perm)}
        moved = [(tuple(sorted(where[c] for c in cells)), op, t) for cells, op, t in cages]
        assert K.canonical_hash(n, moved) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("kenken", seed=s, level=3).metadata["canonical_hash"] for s in range(40)}
    assert len(hashes) == 40
