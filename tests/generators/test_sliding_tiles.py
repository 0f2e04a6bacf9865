"""Tests of the sliding_tiles family: IDA* optimum cross-checked by plain BFS, replay verifier."""

from __future__ import annotations

from collections import deque

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.puzzles.sliding_tiles import (
    _slide,
    apply_moves,
    canonical_hash,
    geometry,
    heuristic,
)
from palaestra.registry import get, make_task, verify

FAMILY = get("sliding_tiles").impl


def _start(task):
    return FAMILY._start(task)


def _bfs_distance(start, geo) -> int:
    """Independent optimum: breadth-first search over board states."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if s == geo.goal:
            return seen[s]
        blank = s.index(0)
        for p in geo.neighbours[blank]:
            nxt = _slide(s, blank, p)
            if nxt not in seen:
                seen[nxt] = seen[s] + 1
                queue.append(nxt)
    raise AssertionError("unsolvable board")


def _all_optimal(start, geo, length: int, limit: int = 10) -> list[list[int]]:
    """Enumerate up to ``limit`` optimal solutions (depth-first, Manhattan-pruned)."""
    out: list[list[int]] = []

    def dfs(s, path):
        if len(out) >= limit:
            return
        if s == geo.goal:
            out.append(path[:])
            return
        if len(path) + heuristic(s, geo) > length:
            return
        blank = s.index(0)
        for p in geo.neighbours[blank]:
            path.append(s[p])
            dfs(_slide(s, blank, p), path)
            path.pop()

    dfs(start, [])
    return out


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    shape=st.sampled_from([(2, 3), (2, 4), (3, 3), (3, 2)]),
    top=st.integers(3, 12),
)
def test_optimum_matches_bfs(seed, shape, top):
    rows, cols = shape
    task = make_task("sliding_tiles", seed=seed, rows=rows, cols=cols, min_length=1, max_length=top)
    start, geo = _start(task)
    assert task.metadata["optimal_length"] == _bfs_distance(start, geo)
    assert verify(task, FAMILY.reference_response(task)).correct


def test_heuristic_is_admissible_on_random_walks():
    geo = geometry(3, 3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        state = FAMILY._scramble(geo, rng, int(rng.integers(5, 25)))
        assert heuristic(state, geo) <= _bfs_distance(state, geo)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**9), level=st.integers(1, 6))
def test_reference_and_exact_solver(seed, level):
    task = make_task("sliding_tiles", seed=seed, level=level)
    meta = task.metadata
    assert task.knobs["min_length"] <= meta["optimal_length"] <= task.knobs["max_length"]
    run = FAMILY.solve_exact(task)
    assert verify(task, run.response).correct
    assert verify(task, FAMILY.reference_response(task)).correct


def test_several_optimal_solutions_pass():
    checked = 0
    for seed in range(20):
        task = make_task("sliding_tiles", seed=seed, level=2)
        start, geo = _start(task)
        solutions = _all_optimal(start, geo, task.metadata["optimal_length"])
        if len(solutions) >= 2:
            for solution in solutions[:3]:
                assert verify(task, "<answer>" + " ".join(map(str, solution)) + "</answer>").correct
            checked += 1
    assert checked >= 2


def test_wrong_answers_fail_with_reasons():
    task = make_task("sliding_tiles", seed=9, level=3)
    solution = task.metadata["solution"]
    wrong = FAMILY.mutated_responses(task, np.random.default_rng(0))
    assert len(set(wrong)) >= 3
    for response in wrong:
        verdict = verify(task, response)
        assert not verdict.correct and verdict.error is None
    longer = verify(task, "<answer>" + " ".join(map(str, solution + [solution[-1]] * 2)) + "</answer>")
    assert "optimum" in longer.reason
    assert "not next to the blank" in verify(task, "<answer>99</answer>").reason
    assert "goal" in verify(task, "<answer>" + " ".join(map(str, solution[:-1])) + "</answer>").reason


def test_format_variants():
    task = make_task("sliding_tiles", seed=2, level=2)
    solution = task.metadata["solution"]
    for response in (
        f"\\boxed{{{task.answer}}}",
        f"Reasoning...\nAnswer: {task.answer}",
        "<answer>" + ", ".join(map(str, solution)) + "</answer>",
        "<answer>[" + ", ".join(map(str, solution)) + "]</answer>",
        "<answer>\n" + "\n".join(map(str, solution)) + "\n</answer>",
    ):
        assert verify(task, response).correct, response
    for response in ("<answer>up left</answer>", "<answer>1-2</answer>", "no answer here"):
        verdict = verify(task, response)
        assert not verdict.correct and not verdict.format_ok


def test_replay_and_hash():
    geo = geometry(3, 3)
    state, reason = apply_moves(geo.goal, geo, [6, 5])
    assert state == (1, 2, 3, 4, 0, 5, 7, 8, 6) and not reason
    assert apply_moves(geo.goal, geo, [1])[0] is None
    # the transposed board (tiles renamed) is the same puzzle
    start = (1, 2, 3, 4, 0, 5, 7, 8, 6)
    rename = {0: 0, 1: 1, 2: 4, 3: 7, 4: 2, 5: 5, 6: 8, 7: 3, 8: 6}
    transposed = tuple(rename[start[c * 3 + r]] for r in range(3) for c in range(3))
    assert canonical_hash(start, 3, 3) == canonical_hash(transposed, 3, 3)
    assert _bfs_distance(transposed, geo) == _bfs_distance(start, geo)


def test_weak_solver_falls_off():
    easy = [make_task("sliding_tiles", seed=s, level=1) for s in range(8)]
    hard = [make_task("sliding_tiles", seed=s, level=6) for s in range(8)]

    def rate(tasks):
        runs = [FAMILY.solve_weak(t) for t in tasks]
        return sum(
            r.response is not None and verify(t, r.response).correct for t, r in zip(tasks, runs, strict=True)
        )

    assert rate(easy) > rate(hard)
