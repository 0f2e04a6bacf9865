"""minesweeper: guess-free boards, provably safe cells, the z3 safety proof."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.interactive.minesweeper import Board, provably_safe, solve_by_logic


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 6))
@settings(max_examples=15, deadline=None)
def test_boards_clear_by_logic_and_every_rule_safe_cell_is_accepted(seed: int, level: int) -> None:
    task = palaestra.make_task("minesweeper", seed=seed, level=level)
    k, meta = task.knobs, task.metadata
    mines = {tuple(m) for m in meta["mines"]}
    board = Board(k["rows"], k["cols"], mines)
    first = tuple(meta["first_click"])
    assert first not in mines and not set(board.neighbours(*first)) & mines  # the first click is safe
    board.open(first)
    assert solve_by_logic(board)[0]  # no guess needed anywhere
    for r, c in meta["rule_safe"][:3]:
        assert (r, c) not in mines
        assert palaestra.verify(task, f"<answer>({r}, {c})</answer>").correct


def test_a_safe_but_unprovable_cell_is_rejected() -> None:
    # two hidden cells share one mine and nothing tells them apart: either may hide it
    opened = [[0, 0, 1]]  # a 1x3 strip: (0,0) shows 1; (0,1) and (0,2) hidden; one mine in all
    assert provably_safe(1, 3, 1, opened, (0, 1)) is False
    assert provably_safe(1, 3, 1, [[0, 0, 0], [0, 1, 1]], (0, 2)) is False  # (0,2) is the mine
    assert provably_safe(2, 2, 1, [[0, 0, 1], [1, 0, 1], [1, 1, 1]], (0, 1)) is False
    assert provably_safe(1, 4, 1, [[0, 0, 0], [0, 1, 1]], (0, 3)) is True  # the mine must be (0, 2)


def test_formats_and_wrong_cells() -> None:
    task = palaestra.make_task("minesweeper", seed=4, level=4)
    r, c = task.metadata["rule_safe"][0]
    assert palaestra.verify(task, f"Answer: {r}, {c}").correct
    mine = task.metadata["mines"][0]
    assert "could hide a mine" in palaestra.verify(task, f"<answer>({mine[0]}, {mine[1]})</answer>").reason
    assert not palaestra.verify(task, "<answer>row two</answer>").format_ok
