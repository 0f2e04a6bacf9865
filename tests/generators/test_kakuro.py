"""Tests of the kakuro family: patterns, uniqueness (z3), verifier and answer formats."""

from __future__ import annotations

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import kakuro as KK
from palaestra.registry import get

IMPL = get("kakuro").impl


def _run_cells(run: dict) -> list[tuple[int, int]]:
    r, c, n = run["row"], run["col"], run["length"]
    return [(r, c + k) for k in range(n)] if run["direction"] == "across" else [(r + k, c) for k in range(n)]


def _z3_count(task: Task, limit: int = 2) -> int:
    meta = task.metadata
    white = meta["white"]
    x = {(r, c): z3.Int(f"x{r}_{c}") for r, row in enumerate(white) for c, w in enumerate(row) if w}
    s = z3.Solver()
    s.add([z3.And(1 <= v, v <= 9) for v in x.values()])
    for run in meta["runs"]:
        cells = [x[rc] for rc in _run_cells(run)]
        s.add(z3.Distinct(cells))
        s.add(z3.Sum(cells) == run["sum"])
    s.add([x[(r, c)] == v for r, c, v in meta["givens"]])
    found = 0
    while found < limit and s.check() == z3.sat:
        model = s.model()
        found += 1
        s.add(z3.Or([v != model.eval(v) for v in x.values()]))
    return found


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([1, 2, 3, 4, 5]))
def test_runs_and_solution_are_consistent(seed: int, level: int) -> None:
    task = palaestra.make_task("kakuro", seed=seed, level=level)
    meta = task.metadata
    rows = task.answer.split("\n")
    for run in meta["runs"]:
        cells = _run_cells(run)
        assert 2 <= len(cells) <= 9
        digits = [int(rows[r][c]) for r, c in cells]
        assert len(set(digits)) == len(digits) and sum(digits) == run["sum"]
    # every white cell lies in exactly one across and one down run
    for r, row in enumerate(meta["white"]):
        for c, w in enumerate(row):
            owners = [run["direction"] for run in meta["runs"] if (r, c) in _run_cells(run)]
            assert sorted(owners) == (["across", "down"] if w else [])
    assert meta["num_givens"] <= task.knobs["max_givens"]
    board, sums, givens = KK._unpack(task)
    assert board.solver(sums).solve(givens).count == 1
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_uniqueness_cross_checked_with_z3() -> None:
    for level, seed in ((2, 0), (4, 1), (6, 2)):
        task = palaestra.make_task("kakuro", seed=seed, level=level)
        assert _z3_count(task) == 1


def test_verifier_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("kakuro", seed=5, level=3)
    rows = task.answer.split("\n")
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in rows) + "</answer>",
        "<answer>" + "\n".join(" ".join(r).replace("#", "*") for r in rows) + "</answer>",
        f"\\boxed{{{''.join(rows)}}}",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    for bad in ("<answer>" + "\n".join(rows[:-1]) + "</answer>", "<answer>the grid</answer>"):
        verdict = IMPL.verify(task, bad)
        assert not verdict.correct and not verdict.format_ok


def test_verifier_checks_sums_not_string_equality() -> None:
    # a 2x2 all-white grid, sums 3 and 7 across, 5 and 5 down: both 12/43 and 21/34 are valid
    white = [[1, 1], [1, 1]]
    runs = [
        {"direction": "across", "row": 0, "col": 0, "length": 2, "sum": 3},
        {"direction": "across", "row": 1, "col": 0, "length": 2, "sum": 7},
        {"direction": "down", "row": 0, "col": 0, "length": 2, "sum": 5},
        {"direction": "down", "row": 0, "col": 1, "length": 2, "sum": 5},
    ]
    task = Task(
        family="kakuro",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=KK.KakuroKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"rows": 2, "cols": 2, "white": white, "runs": runs, "givens": []},
    )
    assert IMPL.verify(task, "<answer>12\n43</answer>").correct
    assert IMPL.verify(task, "<answer>21\n34</answer>").correct
    verdict = IMPL.verify(task, "<answer>12\n34</answer>")
    assert not verdict.correct and "adds up" in verdict.reason
    assert not IMPL.verify(task, "<answer>1#\n43</answer>").correct


def test_hash_distinguishes_and_is_symmetric() -> None:
    hashes = {palaestra.make_task("kakuro", seed=s, level=3).metadata["canonical_hash"] for s in range(25)}
    assert len(hashes) == 25
    task = palaestra.make_task("kakuro", seed=2, level=3)
    board, sums, givens = KK._unpack(task)
    mirrored_white = [row[::-1] for row in board.white]
    mirrored = KK.Board(mirrored_white)
    w = board.w
    at = {board.cells[i]: v for i, v in enumerate(givens) if v}
    # mirror sums: map each run of the mirrored board back to the original run with the same cells
    original = {tuple(sorted(cells)): t for (_, _, _, cells), t in zip(board.runs, sums, strict=True)}
    msums = [original[tuple(sorted((r, w - 1 - c) for r, c in cells))] for _, _, _, cells in mirrored.runs]
    mgivens = {(r, w - 1 - c): v for (r, c), v in at.items()}
    assert KK.canonical_hash(mirrored, msums, mgivens) == task.metadata["canonical_hash"]
