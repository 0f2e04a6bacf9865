"""Tests of the kakurasu family: solver against brute force and z3, digging, verifier."""

from __future__ import annotations

import itertools
import time

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import kakurasu as K
from palaestra.registry import get

IMPL = get("kakurasu").impl


def _brute_force(n: int, rows: list[int], cols: list[int], limit: int = 10**6) -> list[list[int]]:
    """Every grid meeting the clues (0 = no clue): rows from itertools.product, columns
    checked at the end (an enumeration sharing nothing with the family's solver)."""
    options = []
    for clue in rows:
        line = [
            r
            for r in itertools.product((0, 1), repeat=n)
            if not clue or sum((i + 1) * v for i, v in enumerate(r)) == clue
        ]
        options.append(line)
    found = []
    for grid in itertools.product(*options):
        if all(not cols[c] or sum((r + 1) * grid[r][c] for r in range(n)) == cols[c] for c in range(n)):
            found.append([v for row in grid for v in row])
            if len(found) >= limit:
                break
    return found


def _z3_count(n: int, rows: list[int], cols: list[int], limit: int = 2) -> int:
    x = [[z3.Bool(f"x{r}_{c}") for c in range(n)] for r in range(n)]
    s = z3.Solver()
    for r in range(n):
        if rows[r]:
            s.add(z3.Sum([z3.If(x[r][c], c + 1, 0) for c in range(n)]) == rows[r])
    for c in range(n):
        if cols[c]:
            s.add(z3.Sum([z3.If(x[r][c], r + 1, 0) for r in range(n)]) == cols[c])
    flat = [v for row in x for v in row]
    found = 0
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v, model_completion=True) for v in flat]))
    return found


def _task(n: int, rows: list[int], cols: list[int]) -> Task:
    return Task(
        family="kakurasu",
        family_version=IMPL.version,
        difficulty=Difficulty(level=None, knobs=K.KakurasuKnobs(size=n).to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"size": n, "rows": rows, "cols": cols},
    )


def test_patterns_are_the_weighted_subsets() -> None:
    for n in (3, 5, 7):
        for clue in range(1, n * (n + 1) // 2 + 1):
            subsets = {
                sum(1 << (w - 1) for w in combo)
                for k in range(n + 1)
                for combo in itertools.combinations(range(1, n + 1), k)
                if sum(combo) == clue
            }
            assert set(K.patterns(n, clue)) == subsets
    assert len(K.patterns(4, 0)) == 16  # no clue: anything goes


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.sampled_from([3, 4]), hide=st.integers(0, 8))
def test_solver_counts_like_brute_force(seed: int, n: int, hide: int) -> None:
    rng = make_rng("kakurasu-test", seed, 0)
    cells = (rng.random(n * n) < 0.5).astype(int).tolist()
    rows, cols = K.clues_of(cells, n)
    clues = rows + cols
    for k in rng.permutation(2 * n)[: min(hide, 2 * n)].tolist():
        clues[k] = 0
    rows, cols = clues[:n], clues[n:]
    found = _brute_force(n, rows, cols)
    result = K.solve(n, rows, cols, limit=10**6)
    assert sorted(result.solutions) == sorted(found)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.sampled_from([1, 2, 3]))
def test_generated_puzzles_are_unique_by_enumeration_or_z3(seed: int, level: int) -> None:
    task = palaestra.make_task("kakurasu", seed=seed, level=level)
    n, rows, cols = K._unpack(task)
    if n <= 4:
        found = _brute_force(n, rows, cols, limit=2)
        assert len(found) == 1 and K.picture(found[0], n) == task.answer
    assert _z3_count(n, rows, cols) == 1
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_dug_puzzles_are_unique_by_z3_and_minimal() -> None:
    for level, seed in ((5, 0), (7, 1), (10, 2)):
        task = palaestra.make_task("kakurasu", seed=seed, level=level)
        n, rows, cols = K._unpack(task)
        assert _z3_count(n, rows, cols) == 1
        if task.knobs["min_clues"] == 0:  # dug to the end: every clue left is needed
            clues = rows + cols
            for k, v in enumerate(clues):
                if v:
                    fewer = clues[:k] + [0] + clues[k + 1 :]
                    assert _z3_count(n, fewer[:n], fewer[n:]) == 2


def test_weak_solver_uses_only_the_bound_rule() -> None:
    # a 1x1 grid with clues 1: its one cell is indispensable, so the rule shades it
    assert K.weak_solve(1, [1], [1])[0] == [1]
    # rows 3 and 3 can each be {3} or {1, 2}: the bound rule alone is stuck, the solver is not
    rows, cols = [3, 3, 0], [3, 3, 3]
    assert K.weak_solve(3, rows, cols)[0] is None
    assert K.solve(3, rows, cols, limit=10).count == len(_brute_force(3, rows, cols))


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 4, 7):
        tasks = [palaestra.make_task("kakurasu", seed=s, level=level) for s in range(6)]
        rates.append(sum(IMPL.solve_weak(t).response is not None for t in tasks))
        efforts.append(sum(IMPL.effort(t) for t in tasks))
    assert rates[0] > rates[1] >= rates[2]
    assert efforts[0] < efforts[1] < efforts[2]


def test_verifier_accepts_every_valid_grid_and_names_the_broken_line() -> None:
    task = _task(3, [3, 0, 0], [1, 0, 2])
    valid = _brute_force(3, [3, 0, 0], [1, 0, 2], limit=50)
    assert len(valid) > 2
    for grid in valid:
        assert IMPL.verify(task, f"<answer>{K.picture(grid, 3)}</answer>").correct
    verdict = IMPL.verify(task, "<answer>\n..#\n...\n...\n</answer>")
    assert not verdict.correct and verdict.format_ok and "column 1" in verdict.reason
    verdict = IMPL.verify(task, "<answer>\n#..\n...\n...\n</answer>")
    assert not verdict.correct and "row 1 adds up to 1, not 3" in verdict.reason


def test_verifier_formats_and_near_misses() -> None:
    task = palaestra.make_task("kakurasu", seed=9, level=4)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>\n" + task.answer.replace("#", "1").replace(".", "0") + "\n</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {r}" for i, r in enumerate(rows)) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 4
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    assert not IMPL.verify(task, "<answer>" + task.answer.replace("#", "2") + "</answer>").format_ok


def test_hostile_input_is_rejected_quickly() -> None:
    task = palaestra.make_task("kakurasu", seed=2, level=5)
    for response in ("<answer>" + "#" * 200_000 + "</answer>", "# " * 100_000, "\n" * 100_000 + "#"):
        started = time.process_time()
        verdict = palaestra.verify(task, response)
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.5


def test_canonical_hash_sees_the_transpose() -> None:
    task = palaestra.make_task("kakurasu", seed=3, level=5)
    n, rows, cols = K._unpack(task)
    assert K.canonical_hash(n, cols, rows) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("kakurasu", seed=s, level=3).metadata["canonical_hash"] for s in range(40)}
    assert len(hashes) == 40
