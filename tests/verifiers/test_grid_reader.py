"""The one grid reader every grid family uses: layouts, row labels, look-alikes, size."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.verifiers.constraints import read_grid

DIGITS = "0123456789"
GRID = [["1", "2", "3"], ["3", "1", "2"], ["2", "3", "1"]]


@pytest.mark.parametrize(
    "text",
    [
        "123\n312\n231",
        "1 2 3\n3 1 2\n2 3 1",
        "| 1 | 2 | 3 |\n|---+---+---|\n| 3 | 1 | 2 |\n| 2 | 3 | 1 |",
        "[1, 2, 3]\n[3, 1, 2]\n[2, 3, 1]",
        "Row 1: 123\nRow 2: 312\nRow 3: 231",
        "row 1 - 1 2 3\nrow 2 - 3 1 2\nrow 3 - 2 3 1",
        "R1) 123\nR2) 312\nR3) 231",
        "123312231",
        "１２３\n３１２\n２３１",
        "\u0661\u0662\u0663\n312\n231",  # Arabic-Indic digits are digits
    ],
)
def test_layouts_that_are_read(text: str) -> None:
    assert read_grid(text, 3, 3, DIGITS) == (GRID, "")


@pytest.mark.parametrize(
    "text,reason",
    [
        ("Row 2: 312\nRow 1: 123\nRow 3: 231", "in order"),  # misordered: never read in text order
        ("Row 1: 123\nRow 1: 312\nRow 3: 231", "in order"),
        ("Row 1: 123\n312\nRow 3: 231", "in order"),
        ("Row 0: 123\nRow 1: 312\nRow 2: 231", "in order"),
        ("Row 1: 123\nRow 2: 312\nRow 4: 231", "in order"),
        ("123\n312", "expected 3 rows"),
        ("123\n312\n231\n123", "expected 3 rows"),
        ("123\n31\n231", "row 2 has 2 cells"),
        ("123\n3a2\n231", "not a cell"),
        ("123\n3\u00b9\u00b2\n231", "not a cell"),  # superscripts are not digits
        ("Row 1: 123312231", "expected 3 rows"),
        ("1" * 6000, "longer than"),
        ("-123\n312\n231", "not a cell"),  # a minus sign was dropped before: -123 read as 123
        ("1-2-3\n312\n231", "not a cell"),
    ],
)
def test_layouts_that_are_refused(text: str, reason: str) -> None:
    grid, error = read_grid(text, 3, 3, DIGITS, max_chars=5000)
    assert grid is None and reason in error


def test_cells_that_look_like_separators_are_cells() -> None:
    # bimaru water may be '-', nonogram blanks '.': a row of them is a row, not a rule line
    assert read_grid("#-\n--", 2, 2, "#-")[0] == [["#", "-"], ["-", "-"]]
    assert read_grid("..\n#.", 2, 2, "#.")[0] == [[".", "."], ["#", "."]]


def test_without_an_alphabet_cells_are_tokens() -> None:
    assert read_grid("10 2\n3 -4", 2, 2)[0] == [["10", "2"], ["3", "-4"]]
    assert read_grid("Row 2: 10 2\nRow 1: 3 4", 2, 2)[0] is None


@pytest.mark.parametrize(
    "family,level",
    [
        ("sudoku", 1),
        ("sudoku_jigsaw", 1),
        ("sudoku_killer", 1),
        ("skyscrapers", 1),
        ("binairo", 1),
        ("kakuro", 1),
        ("nonogram", 1),
        ("star_battle", 1),
        ("bimaru", 1),
    ],
)
def test_every_grid_family_honours_row_labels(family: str, level: int) -> None:
    task = palaestra.make_task(family, seed=3, level=level)
    rows = _reference_rows(task)
    labelled = "\n".join(f"Row {i + 1}: {row}" for i, row in enumerate(rows))
    assert palaestra.verify(task, f"<answer>\n{labelled}\n</answer>").correct, family  # kakuro refused these
    swapped = rows[1:2] + rows[:1] + rows[2:]
    if swapped != rows:
        misordered = "\n".join(
            f"Row {label}: {row}"
            for label, row in zip([2, 1, *range(3, len(rows) + 1)], swapped, strict=True)
        )
        verdict = palaestra.verify(task, f"<answer>\n{misordered}\n</answer>")
        assert verdict.status == "unparseable", (family, verdict)  # read in text order before


def _reference_rows(task: palaestra.Task) -> list[str]:
    from palaestra.registry import get

    response = get(task.family).impl.solve_exact(task).response
    text = response.split("<answer>")[1].split("</answer>")[0]
    return [line for line in text.strip().splitlines() if line.strip()]


@given(st.text(alphabet="12 |-\nRr:0a", max_size=200))
@settings(max_examples=300)
def test_never_raises(text: str) -> None:
    grid, error = read_grid(text, 2, 2, "12")
    assert (grid is None) == bool(error)


def test_huge_inputs_are_refused_fast() -> None:
    started = time.process_time()
    for text in ("1\n" * 200_000, "Row 1: " * 50_000, "|" * 400_000):
        assert read_grid(text, 3, 3, DIGITS)[0] is None
    assert time.process_time() - started < 2


@given(
    st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            st.lists(st.lists(st.sampled_from("123456789"), min_size=n, max_size=n), min_size=n, max_size=n),
            st.sampled_from(["", " ", ", ", " | "]),
            st.booleans(),
            st.sampled_from(["", "---", "| - | - |"]),
        )
    )
)
@settings(max_examples=200)
def test_every_rendered_grid_reads_back(case: tuple) -> None:
    grid, separator, labelled, rule = case
    lines = []
    for k, row in enumerate(grid, start=1):
        lines.append((f"Row {k}: " if labelled else "") + separator.join(row))
        if rule and k < len(grid):
            lines.append(rule)
    assert read_grid("\n".join(lines), len(grid), len(grid), DIGITS) == (grid, "")
