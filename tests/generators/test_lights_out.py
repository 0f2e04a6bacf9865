"""Tests of the lights_out family: minimum proven by GF(2), cross-checked by brute force and z3."""

from __future__ import annotations

import numpy as np
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.generators.puzzles.lights_out import press_masks, solve_minimum
from palaestra.registry import get, make_task, verify

FAMILY = get("lights_out").impl


def _state(task) -> int:
    return FAMILY._state(task)


def _brute_minimum(rows: int, cols: int, torus: bool, state: int) -> int:
    """Independent check: try every press subset (small boards only)."""
    masks = press_masks(rows, cols, torus)
    n = len(masks)
    best = None
    for subset in range(1 << n):
        acc = 0
        for j in range(n):
            if subset >> j & 1:
                acc ^= masks[j]
        if acc == state and (best is None or subset.bit_count() < best):
            best = subset.bit_count()
    assert best is not None
    return best


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    rows=st.integers(2, 3),
    cols=st.integers(2, 4),
)
def test_minimum_matches_brute_force(seed, rows, cols):
    task = make_task("lights_out", seed=seed, rows=rows, cols=cols, density=0.4, min_presses=1)
    meta = task.metadata
    assert meta["optimal_length"] == _brute_minimum(rows, cols, False, _state(task))
    assert verify(task, f"<answer>{task.answer}</answer>").correct


def test_minimum_matches_brute_force_on_torus():
    for seed in range(5):
        task = make_task("lights_out", seed=seed, rows=3, cols=4, torus=True, density=0.4, min_presses=1)
        assert task.metadata["optimal_length"] == _brute_minimum(3, 4, True, _state(task))


def test_minimum_cross_checked_with_z3():
    for level in (3, 4):
        task = make_task("lights_out", seed=11, level=level)
        meta = task.metadata
        masks = press_masks(meta["rows"], meta["cols"], meta["torus"])
        n = len(masks)
        x = [z3.Bool(f"x{j}") for j in range(n)]
        state = _state(task)
        solver = z3.Solver()
        for i in range(n):
            covering = [x[j] for j in range(n) if masks[j] >> i & 1]
            parity = covering[0]
            for term in covering[1:]:
                parity = z3.Xor(parity, term)
            solver.add(parity == bool(state >> i & 1))
        optimum = meta["optimal_length"]
        solver.push()
        solver.add(z3.AtMost(*x, optimum - 1))
        assert solver.check() == z3.unsat  # nothing shorter exists
        solver.pop()
        solver.add(z3.AtMost(*x, optimum))
        assert solver.check() == z3.sat


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), level=st.integers(1, 6))
def test_reference_and_exact_solver_verify(seed, level):
    task = make_task("lights_out", seed=seed, level=level)
    assert verify(task, FAMILY.reference_response(task)).correct
    run = FAMILY.solve_exact(task)
    assert run.effort > 0 and verify(task, run.response).correct
    assert task.metadata["optimal_length"] >= task.knobs["min_presses"]


def test_wrong_answers_fail():
    task = make_task("lights_out", seed=3, level=4)
    wrong = FAMILY.mutated_responses(task, np.random.default_rng(0))
    assert len(set(wrong)) >= 3
    for response in wrong:
        verdict = verify(task, response)
        assert not verdict.correct and verdict.error is None, response
    # the reason names the problem
    solution = task.metadata["solution"]
    verdict = verify(task, "<answer>" + ", ".join(f"({r},{c})" for r, c in solution[1:]) + "</answer>")
    assert "still on" in verdict.reason


def test_several_minimum_sets_all_pass():
    # 4x4 boards have a 4-dimensional null space: find one with two different minimum sets
    for seed in range(200):
        task = make_task("lights_out", seed=seed, rows=4, cols=4, density=0.5, min_presses=3)
        masks = press_masks(4, 4, False)
        state, optimum = _state(task), task.metadata["optimal_length"]
        found = []
        for subset in range(1 << 16):
            if subset.bit_count() != optimum:
                continue
            acc = 0
            for j in range(16):
                if subset >> j & 1:
                    acc ^= masks[j]
            if acc == state:
                found.append(subset)
        if len(found) >= 2:
            for subset in found[:2]:
                cells = ", ".join(f"({j // 4 + 1},{j % 4 + 1})" for j in range(16) if subset >> j & 1)
                assert verify(task, f"<answer>{cells}</answer>").correct
            return
    raise AssertionError("no 4x4 board with two minimum press sets found")


def test_answer_format_variants():
    task = make_task("lights_out", seed=5, level=3)
    cells = task.metadata["solution"]
    spaced = " ".join(f"( {r} , {c} )" for r, c in cells)
    for response in (
        f"\\boxed{{{task.answer}}}",
        f"Thinking...\nAnswer: {task.answer}",
        f"<answer>[{task.answer}]</answer>",
        f"<answer>{spaced}</answer>",
        "<answer>" + "; ".join(f"({r},{c})" for r, c in reversed(cells)) + "</answer>",
        "<answer>" + "\n".join(f"({r},{c})" for r, c in cells) + "</answer>",
    ):
        assert verify(task, response).correct, response


def test_bad_formats():
    task = make_task("lights_out", seed=5, level=3)
    for response in (
        "",
        "<answer>(0,1)</answer>",
        "<answer>(1,2) (9,9)</answer>",
        "<answer>1,2</answer>",
        "<answer>(1,2) junk</answer>",
        "<answer>(1,2)</answer><answer>(2,2)</answer>",
    ):
        verdict = verify(task, response)
        assert not verdict.correct and not verdict.format_ok and verdict.error is None, response


def test_weak_solver_and_degenerate_rejection():
    solved = 0
    for seed in range(20):
        task = make_task("lights_out", seed=seed, level=1)
        run = FAMILY.solve_weak(task)
        solved += run.response is not None and verify(task, run.response).correct
        assert task.metadata["lit"] > 0
    assert 0 < solved < 20
    for seed in range(10):
        task = make_task("lights_out", seed=seed, level=6)
        run = FAMILY.solve_weak(task)
        assert run.response is None or not verify(task, run.response).correct


def test_canonical_hash_is_symmetry_invariant():
    task = make_task("lights_out", seed=7, rows=4, cols=5, density=0.4, min_presses=2)
    grid = np.array([[int(ch) for ch in row] for row in task.metadata["board"]])
    from palaestra.generators.puzzles.lights_out import canonical_hash

    def as_int(g):
        return sum(1 << (r * g.shape[1] + c) for r in range(g.shape[0]) for c in range(g.shape[1]) if g[r, c])

    for image in (np.rot90(grid, 2), np.fliplr(grid), np.rot90(grid, 1)):
        h = canonical_hash(image.shape[0], image.shape[1], False, as_int(image))
        assert h == task.metadata["canonical_hash"]
    solution, _, _ = solve_minimum(4, 5, False, _state(task))
    assert solution is not None and len(solution) == task.metadata["optimal_length"]


def test_seeds_differ_and_are_deterministic():
    a, b = make_task("lights_out", seed=1, level=5), make_task("lights_out", seed=2, level=5)
    assert a.metadata["board"] != b.metadata["board"]
    assert make_task("lights_out", seed=1, level=5) == a
