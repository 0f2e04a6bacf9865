"""Tests of game_of_life: rules against a numpy simulation, predecessors against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.puzzles import game_of_life as G
from palaestra.registry import get

IMPL = get("game_of_life").impl


def _np_step(grid: np.ndarray) -> np.ndarray:
    """One generation with numpy: neighbour counts from a zero-padded array (dead border)."""
    padded = np.pad(grid, 1)
    n, m = grid.shape
    counts = sum(
        padded[1 + dr : 1 + dr + n, 1 + dc : 1 + dc + m]
        for dr in (-1, 0, 1)
        for dc in (-1, 0, 1)
        if (dr, dc) != (0, 0)
    )
    return ((counts == 3) | ((counts == 2) & (grid == 1))).astype(int)


def _grid(lines: list[str]) -> np.ndarray:
    return np.array([[1 if ch == "#" else 0 for ch in line] for line in lines])


def _text(grid: np.ndarray) -> str:
    return "\n".join("".join("#" if v else "." for v in row) for row in grid)


def _prompt_board(prompt: str, n: int) -> list[str]:
    return [line for line in prompt.splitlines() if len(line) == n and set(line) <= {"#", "."}][:n]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**40), level=st.integers(1, 10))
def test_tasks_against_numpy(seed: int, level: int) -> None:
    task = palaestra.make_task("game_of_life", seed=seed, level=level)
    n = task.metadata["size"]
    board = _grid(_prompt_board(task.prompt, n))
    answer = _grid(task.answer.split("\n"))
    if task.metadata["mode"] == "forward":
        history = [board]
        for _ in range(task.metadata["steps"]):
            history.append(_np_step(history[-1]))
        assert np.array_equal(history[-1], answer)
        assert history[-1].any() and not any(np.array_equal(history[-1], h) for h in history[:-1])
        if task.metadata["steps"] > 1:
            assert not IMPL.verify(task, IMPL.solve_weak(task).response).correct
    else:
        assert np.array_equal(_np_step(answer), board)
        assert board.sum() >= n and not np.array_equal(_np_step(board), board)
        assert IMPL.solve_weak(task).response is None  # reject_easy at these levels
    assert IMPL.verify(task, f"<answer>{_text(answer)}</answer>").correct


@pytest.fixture(scope="module")
def successors_4x4() -> dict[tuple[int, ...], list[np.ndarray]]:
    """Every 4x4 board's next generation, by brute force over all 65,536 boards."""
    out: dict[tuple[int, ...], list[np.ndarray]] = {}
    for bits in itertools.product((0, 1), repeat=16):
        grid = np.array(bits).reshape(4, 4)
        out.setdefault(tuple(_np_step(grid).ravel()), []).append(grid)
    return out


def test_predecessor_search_is_complete(successors_4x4) -> None:
    rng = np.random.default_rng(7)
    reachable = set(successors_4x4)
    gardens = 0
    for _ in range(400):
        target = rng.integers(0, 2, (4, 4))
        board = G.from_rows(target.tolist())
        found, _ = G.find_predecessor(board, 4)
        assert (found is not None) == (tuple(target.ravel()) in reachable)
        gardens += found is None
        if found is not None:
            assert G.step(found, 4) == board
    assert gardens > 0  # the test met boards without a predecessor (gardens of Eden)


def test_every_predecessor_is_accepted(successors_4x4) -> None:
    for seed in range(6):
        task = palaestra.make_task("game_of_life", seed=seed, size=4, mode="predecessor")
        target = tuple(_grid(task.metadata["board"]).ravel())
        predecessors = successors_4x4[target]
        assert len(predecessors) >= 1
        for grid in predecessors[:30]:
            assert IMPL.verify(task, f"<answer>\n{_text(grid)}\n</answer>").correct
        # a board that is no predecessor is refused
        others = [g for key, gs in successors_4x4.items() if key != target for g in gs[:1]][:20]
        for grid in others:
            verdict = IMPL.verify(task, f"<answer>\n{_text(grid)}\n</answer>")
            assert not verdict.correct and verdict.format_ok


def test_weak_rate_falls_and_effort_rises() -> None:
    rates, efforts = [], []
    for level in (1, 5, 7, 10):
        tasks = [palaestra.make_task("game_of_life", seed=s, level=level) for s in range(8)]
        rates.append(sum(IMPL.verify(t, IMPL.solve_weak(t).response or "x").correct for t in tasks))
        efforts.append(np.mean([IMPL.effort(t) for t in tasks]))
    assert rates == [8, 0, 0, 0]
    assert efforts == sorted(efforts) and efforts[0] < efforts[-1]


def test_answer_forms_and_near_misses() -> None:
    task = palaestra.make_task("game_of_life", seed=3, level=4)
    lines = task.answer.split("\n")
    digits = [line.replace("#", "1").replace(".", "0") for line in lines]
    for response in (
        f"<answer>\n{task.answer}\n</answer>",
        "<answer>\n" + "\n".join(digits) + "\n</answer>",
        "<answer>\n" + "\n".join(" ".join(line) for line in lines) + "\n</answer>",
        "<answer>\n" + "\n".join(f"Row {i + 1}: {line}" for i, line in enumerate(lines)) + "\n</answer>",
    ):
        assert IMPL.verify(task, response).correct, response
    flipped = [list(line) for line in lines]
    flipped[2][3] = "#" if flipped[2][3] == "." else "."
    for response, format_ok in (
        ("<answer>\n" + "\n".join("".join(r) for r in flipped) + "\n</answer>", True),
        ("<answer>\n" + "\n".join(lines[:-1]) + "\n</answer>", False),
        ("<answer>\n" + "\n".join(line.replace(".", "o") for line in lines) + "\n</answer>", False),
        (
            "<answer>\n" + "\n".join(f"Row {i + 2}: {line}" for i, line in enumerate(lines)) + "\n</answer>",
            False,
        ),
        (f"<answer>\n{task.answer}\n</answer>\nAnswer: {lines[0]}", False),
    ):
        verdict = IMPL.verify(task, response)
        assert not verdict.correct and verdict.format_ok == format_ok, (response, verdict)
    mutations = IMPL.mutated_responses(task, np.random.default_rng(1))
    assert len(set(mutations)) >= 3 and not any(IMPL.verify(task, m).correct for m in mutations)


def test_canonical_hash_folds_symmetries() -> None:
    task = palaestra.make_task("game_of_life", seed=5, level=5)
    n = task.metadata["size"]
    grid = _grid(task.metadata["board"])
    for form in (np.rot90(grid), np.fliplr(grid), grid.T):
        board = G.from_rows(form.tolist())
        assert (
            G.canonical_hash(board, n, "forward", task.metadata["steps"]) == task.metadata["canonical_hash"]
        )
    assert G.canonical_hash(G.from_rows(grid.tolist()), n, "forward", 1) != task.metadata["canonical_hash"]
    with pytest.raises(ValueError, match="steps"):
        palaestra.make_task("game_of_life", seed=0, mode="predecessor", steps=2)
