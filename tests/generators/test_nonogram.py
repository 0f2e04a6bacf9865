"""Tests of the nonogram family: runs, placements, uniqueness (brute force and z3), verifier."""

from __future__ import annotations

import itertools

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Difficulty, Task, make_rng
from palaestra.generators.puzzles import nonogram as N
from palaestra.registry import get

IMPL = get("nonogram").impl


def _brute_force(w: int, h: int, rows, cols, limit: int = 3) -> list[list[int]]:
    """Every grid whose rows come from itertools.product and whose runs match: independent."""
    row_options = [
        [r for r in itertools.product((0, 1), repeat=w) if N.runs(list(r)) == clue] for clue in rows
    ]
    found = []
    for grid in itertools.product(*row_options):
        if all(N.runs([grid[r][c] for r in range(h)]) == cols[c] for c in range(w)):
            found.append([v for r in grid for v in r])
            if len(found) >= limit:
                break
    return found


def _z3_count(w: int, h: int, rows, cols, limit: int = 2) -> int:
    x = [[z3.Bool(f"x{r}_{c}") for c in range(w)] for r in range(h)]
    s = z3.Solver()

    def line_constraint(cells, clue):
        opts = N.placements(len(cells), tuple(clue))[0]
        return z3.Or(
            [z3.And([cells[i] if m >> i & 1 else z3.Not(cells[i]) for i in range(len(cells))]) for m in opts]
        )

    for r in range(h):
        s.add(line_constraint(x[r], rows[r]))
    for c in range(w):
        s.add(line_constraint([x[r][c] for r in range(h)], cols[c]))
    flat = [v for row in x for v in row]
    found = 0
    while found < limit and s.check() == z3.sat:
        m = s.model()
        found += 1
        s.add(z3.Or([v != m.eval(v, model_completion=True) for v in flat]))
    return found


def test_runs_and_placements() -> None:
    assert N.runs([1, 1, 0, 1, 0, 0, 1]) == [2, 1, 1]
    assert N.runs([0, 0]) == []
    masks, starts = N.placements(5, (2, 1))
    assert sorted(masks) == [0b01011, 0b10011, 0b10110]
    assert len(masks) == 3 and starts[0] == (0, 3)
    for m, st_ in zip(masks, starts, strict=True):
        assert N.runs([(m >> i) & 1 for i in range(5)]) == [2, 1]
        assert st_[1] >= st_[0] + 3
    assert N.placements(4, ()) == ((0,), ((),))


def test_small_uniqueness_by_brute_force() -> None:
    for level in (1, 2):
        for seed in range(4):
            task = palaestra.make_task("nonogram", seed=seed, level=level)
            w, h, rows, cols = N._unpack(task)
            found = _brute_force(w, h, rows, cols)
            assert len(found) == 1
            assert N.picture(found[0], w, h) == task.answer


def test_uniqueness_cross_checked_with_z3() -> None:
    for level, seed in ((4, 0), (7, 1)):
        task = palaestra.make_task("nonogram", seed=seed, level=level)
        w, h, rows, cols = N._unpack(task)
        assert _z3_count(w, h, rows, cols) == 1


def test_solver_counts_ambiguous_clues() -> None:
    # the two diagonals of a 2x2 block share their clues: two solutions
    rows, cols = [[1], [1], []], [[1], [1], []]
    assert N.solve(3, 3, rows, cols).count == 2
    assert len(_brute_force(3, 3, rows, cols)) == 2
    assert N.line_solve(3, 3, rows, cols) is None
    assert N.solve(3, 3, [[3], [0], []], [[1], [1], [1]]).count == 1


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.sampled_from([1, 3, 5, 7]))
def test_generated_puzzles_match_their_tier(seed: int, level: int) -> None:
    task = palaestra.make_task("nonogram", seed=seed, level=level)
    w, h, rows, cols = N._unpack(task)
    solution = [1 if ch == "#" else 0 for ch in task.answer.replace("\n", "")]
    assert N.clues_of(solution, w, h) == (rows, cols)
    assert N.solve(w, h, rows, cols).count == 1
    line = N.line_solve(w, h, rows, cols)
    if task.knobs["tier"] == "line":
        assert line == solution
    else:
        assert line is None and task.metadata["nodes"] > 1
    if not task.knobs["allow_easy"]:
        assert IMPL.solve_weak(task).response is None


def test_weak_solver_is_sound_and_rate_falls() -> None:
    rates = []
    for level in (1, 3, 5):
        tasks = [palaestra.make_task("nonogram", seed=s, level=level) for s in range(20)]
        solved = 0
        for t in tasks:
            run = IMPL.solve_weak(t)
            if run.response is not None:
                assert IMPL.verify(t, run.response).correct
                solved += 1
        rates.append(solved)
    assert rates[0] > rates[1] > rates[2]


def test_verifier_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("nonogram", seed=9, level=3)
    rows = task.answer.split("\n")
    ones = [r.replace("#", "1").replace(".", "0") for r in rows]
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>" + "\n".join(" ".join(r) for r in ones) + "</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {r}" for i, r in enumerate(rows)) + "\n</answer>",
        "<answer>\n" + "\n".join(f"[{', '.join(r)}]" for r in ones) + "\n</answer>",
        f"\\boxed{{{''.join(ones)}}}",
    ):
        assert IMPL.verify(task, response).correct, response
    mutations = IMPL.mutated_responses(task, make_rng("m", 1, 0))
    assert len(set(mutations)) >= 3
    for response in mutations:
        assert not IMPL.verify(task, response).correct
    assert not IMPL.verify(task, "<answer>" + task.answer.replace("#", "?") + "</answer>").format_ok


def test_verifier_checks_clues_not_string_equality() -> None:
    rows, cols = [[1], [1], []], [[1], [1], []]
    task = Task(
        family="nonogram",
        family_version=1,
        difficulty=Difficulty(level=None, knobs=N.NonogramKnobs().to_dict()),
        seed=0,
        prompt="",
        answer="",
        metadata={"width": 3, "height": 3, "rows": rows, "cols": cols},
    )
    for grid in ("#..\n.#.\n...", ".#.\n#..\n..."):
        assert IMPL.verify(task, f"<answer>{grid}</answer>").correct
    verdict = IMPL.verify(task, "<answer>##.\n...\n...</answer>")
    assert not verdict.correct and verdict.format_ok and "clue" in verdict.reason


def test_canonical_hash() -> None:
    task = palaestra.make_task("nonogram", seed=3, level=4)
    w, h, rows, cols = N._unpack(task)
    assert N.canonical_hash(cols, rows) == task.metadata["canonical_hash"]  # transposed
    assert N.canonical_hash([r[::-1] for r in rows], cols[::-1]) == task.metadata["canonical_hash"]
    hashes = {palaestra.make_task("nonogram", seed=s, level=3).metadata["canonical_hash"] for s in range(30)}
    assert len(hashes) == 30


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.sampled_from([6, 8, 10]), density=st.floats(0.3, 0.7))
def test_search_after_line_solve_is_the_fresh_search(seed: int, size: int, density: float) -> None:
    # generation starts the proof from line_solve's fixpoint: nodes, work and solutions must be
    # those of a search from scratch
    rng = make_rng("nonogram-root", seed, 0)
    cells = (rng.random(size * size) < density).astype(int).tolist()
    rows, cols = N.clues_of(cells, size, size)
    fresh = N.solve(size, size, rows, cols, limit=3)
    reused = N._Solver(size, size, rows, cols)
    reused.line_solve()
    reused.search(3, after_line_solve=True)
    assert (reused.nodes, reused.work, reused.solutions) == (fresh.nodes, fresh.work, fresh.solutions)
