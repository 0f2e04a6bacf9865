"""minesweeper: guess-free boards, the exact set of certainly safe cells, set answers."""

from __future__ import annotations

from itertools import combinations

import gymnasium as gym
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.core import Task
from palaestra.generators.interactive.minesweeper import (
    Board,
    certainly_safe,
    single_cell_safe,
    solve_by_logic,
)

Cell = tuple[int, int]


def brute_force_safe(rows: int, cols: int, mines: int, shown: dict[Cell, int]) -> set[Cell]:
    """Every placement of ``mines`` mines on the unopened cells, kept when it matches every
    number: the cells no kept placement mines (written apart from the family's enumeration)."""
    hidden = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in shown]
    may_hold: set[Cell] = set()
    for layout in combinations(hidden, mines):
        placed = set(layout)
        if all(
            sum((r + dr, c + dc) in placed for dr in (-1, 0, 1) for dc in (-1, 0, 1)) == n
            for (r, c), n in shown.items()
        ):
            may_hold |= placed
    return set(hidden) - may_hold


def shown_of(task: Task) -> dict[Cell, int]:
    return {(r, c): n for r, c, n in task.metadata["opened"]}


def safe_of(task: Task) -> list[Cell]:
    return [(r, c) for r, c in task.metadata["safe"]]


def answer(cells: list[Cell], sep: str = ", ") -> str:
    return "<answer>" + sep.join(f"({r}, {c})" for r, c in cells) + "</answer>"


small_boards = st.tuples(st.integers(3, 5), st.integers(4, 5), st.integers(1, 4), st.integers(0, 2**32))


@given(board=small_boards)
@settings(max_examples=40, deadline=None)
def test_the_stored_set_is_every_cell_no_consistent_layout_mines(board: tuple[int, int, int, int]) -> None:
    rows, cols, mines, seed = board
    if mines > rows * cols - 9:
        return
    task = palaestra.make_task("minesweeper", seed=seed, rows=rows, cols=cols, mines=mines)
    expected = brute_force_safe(rows, cols, mines, shown_of(task))
    assert set(safe_of(task)) == expected
    assert expected, "a guess-free board has a safe cell after the first click"
    assert not expected & {(r, c) for r, c in task.metadata["mines"]}


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
@settings(max_examples=15, deadline=None)
def test_positions_come_from_guess_free_play_and_the_weak_rules_find_a_subset(seed: int, level: int) -> None:
    task = palaestra.make_task("minesweeper", seed=seed, level=level)
    k, meta = task.knobs, task.metadata
    mines = {tuple(m) for m in meta["mines"]}
    board = Board(k["rows"], k["cols"], mines)
    first = tuple(meta["first_click"])
    assert first not in mines and not set(board.neighbours(*first)) & mines  # the first click is safe
    board.open(first)
    assert solve_by_logic(board)[0]  # no guess needed anywhere
    shown = shown_of(task)
    assert first in shown and not set(shown) & mines  # a position of the game: no mine opened
    assert all(Board(k["rows"], k["cols"], mines).number(cell) == n for cell, n in shown.items())
    weak = single_cell_safe(k["rows"], k["cols"], shown_of(task))
    assert weak <= set(safe_of(task))


@given(seed=st.integers(0, 2**32), level=st.integers(1, 5), data=st.data())
@settings(max_examples=25, deadline=None)
def test_any_order_and_separator_is_accepted(seed: int, level: int, data: st.DataObject) -> None:
    task = palaestra.make_task("minesweeper", seed=seed, level=level)
    cells = data.draw(st.permutations(safe_of(task)))
    sep = data.draw(st.sampled_from([", ", ",", "; ", " ", "\n", " , "]))
    body = sep.join(f"({r},{c})" if sep == "," else f"( {r} , {c} )" for r, c in cells)
    wrapped = data.draw(st.sampled_from(["{}", "[{}]", "{{{}}}", "$\\{{{}\\}}$", "\\boxed{{{}}}", "{}."]))
    verdict = palaestra.verify(task, f"<answer>{wrapped.format(body)}</answer>")
    assert verdict.correct, (wrapped.format(body), verdict.reason)


@given(seed=st.integers(0, 2**32), level=st.integers(1, 4))
@settings(max_examples=20, deadline=None)
def test_every_near_miss_is_refused(seed: int, level: int) -> None:
    task = palaestra.make_task("minesweeper", seed=seed, level=level)
    k, safe, shown = task.knobs, safe_of(task), shown_of(task)
    for i in range(len(safe)):  # any one safe cell left out
        assert not palaestra.verify(task, answer(safe[:i] + safe[i + 1 :])).correct
    unsure = [
        (r, c)
        for r in range(k["rows"])
        for c in range(k["cols"])
        if (r, c) not in shown and (r, c) not in safe
    ]
    for cell in unsure:  # any cell that can hold a mine added
        verdict = palaestra.verify(task, answer([*safe, cell]))
        assert not verdict.correct and f"{cell} can hold a mine" in verdict.reason
    opened = sorted(shown)[len(shown) // 2]
    verdict = palaestra.verify(task, answer([opened, *safe]))
    assert not verdict.correct and f"{opened} is already open" in verdict.reason
    assert not palaestra.verify(task, answer([*safe, safe[0]])).format_ok  # named twice
    assert not palaestra.verify(task, answer([*safe, (k["rows"], 0)])).format_ok  # off the board


def test_the_mine_count_and_the_subset_rule_decide_cells() -> None:
    # 1x4 strip: (0,0) shows 0 and (0,1) shows 1, so the one mine is (0,2) and (0,3) is safe
    assert certainly_safe(1, 4, 1, {(0, 0): 0, (0, 1): 1})[0] == {(0, 3)}
    # two hidden cells share one mine and nothing tells them apart: neither is certainly safe
    assert certainly_safe(2, 2, 1, {(0, 0): 1, (1, 0): 1})[0] == frozenset()
    # the count: the 1 next to (0,1)/(1,1) takes the only mine, so every far cell is safe
    shown = {(0, 0): 1, (1, 0): 1}
    safe = certainly_safe(2, 5, 1, shown)[0]
    assert safe == {(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)} == brute_force_safe(2, 5, 1, shown)
    assert single_cell_safe(2, 5, shown) == set()  # the single-cell rules alone see none of it
    # with two mines the far cells may hold the second one
    assert certainly_safe(2, 5, 2, shown)[0] == brute_force_safe(2, 5, 2, shown) == frozenset()


def test_reasons_name_the_wrong_cells_but_not_the_missing_ones() -> None:
    task = palaestra.make_task("minesweeper", seed=4, level=4)
    safe = safe_of(task)
    mine = tuple(task.metadata["mines"][0])
    verdict = palaestra.verify(task, answer([*safe[1:], mine]))
    assert f"{mine} can hold a mine" in verdict.reason and "misses 1 certainly safe cell" in verdict.reason
    assert str(safe[0]) not in verdict.reason
    assert palaestra.verify(task, f"Answer: {', '.join(f'({r}, {c})' for r, c in safe)}").correct
    assert not palaestra.verify(task, "<answer>row two</answer>").format_ok
    assert not palaestra.verify(task, "<answer>(1, 2) and (3, 4)</answer>").format_ok


def test_the_prompt_example_is_never_the_answer() -> None:
    for seed in range(40):
        task = palaestra.make_task("minesweeper", seed=seed, rows=3, cols=4, mines=1)
        example = task.prompt.split("for example ")[1].split(". The")[0]
        assert not palaestra.verify(task, example).correct


def test_mirrored_boards_share_a_canonical_hash() -> None:
    from palaestra.generators.interactive.minesweeper import _canonical

    shown = {(0, 0): 0, (0, 1): 1, (1, 0): 1, (1, 1): 2}
    mirrored = {(r, 4 - c): n for (r, c), n in shown.items()}
    turned = {(c, r): n for (r, c), n in mirrored.items()}
    assert _canonical(5, 5, 3, shown) == _canonical(5, 5, 3, mirrored) == _canonical(5, 5, 3, turned)
    assert _canonical(5, 5, 3, shown) != _canonical(5, 5, 4, shown)


def test_the_interactive_game_still_clears_with_the_reference_agent() -> None:
    env = gym.make("palaestra/Minesweeper-v0")
    env.reset(seed=3, options={"level": 5})
    game = env.unwrapped.episode
    for _ in range(500):
        _, reward, terminated, truncated, _ = env.step(game.reference_action())
        if terminated or truncated:
            break
    assert terminated and reward == 1.0
