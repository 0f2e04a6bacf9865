"""crossword_fill: the grid and bank in the prompt have exactly one fill (counted here by an
independent search that reads the prompt text and the shipped word list directly)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.words import wordlist as _wordlist
from palaestra.generators.words.crossword_fill import check_fill

DATA = Path(_wordlist.__file__).resolve().parent / "data"


@functools.cache
def _common() -> frozenset[str]:
    return frozenset(w.upper() for w in (DATA / "common.txt").read_text().split())


def _read_prompt(prompt: str) -> tuple[list[str], list[str]]:
    """The grid (rows of '#'/'.') and the bank, read from the prompt text."""
    grid = [line.replace(" ", "") for line in prompt.splitlines() if re.fullmatch(r"[.#]( [.#])+", line)]
    bank = [w for line in re.findall(r"^\d+ letters: (.*)$", prompt, re.M) for w in line.split(", ")]
    return grid, bank


def _runs(grid: list[str]) -> list[list[tuple[int, int]]]:
    """Every maximal run of 3+ white cells, across then down."""
    n = len(grid)
    lines = [[(r, c) for c in range(n)] for r in range(n)] + [[(r, c) for r in range(n)] for c in range(n)]
    runs = []
    for line in lines:
        run: list[tuple[int, int]] = []
        for cell in [*line, None]:
            if cell is not None and grid[cell[0]][cell[1]] == ".":
                run.append(cell)
                continue
            if len(run) >= 3:
                runs.append(run)
            run = []
    return runs


def _all_fills(grid: list[str], bank: list[str]) -> list[list[str]]:
    """Every fill, by plain depth-first search over the runs in order (no limit)."""
    runs = _runs(grid)
    # Order the runs so that each one after the first crosses an earlier one (prunes early).
    ordered = [runs.pop(0)]
    while runs:
        seen = {cell for run in ordered for cell in run}
        nxt = next((run for run in runs if seen & set(run)), runs[0])
        runs.remove(nxt)
        ordered.append(nxt)
    runs = ordered
    fills: list[list[str]] = []

    def place(i: int, letters: dict[tuple[int, int], str], used: list[str]) -> None:
        if i == len(runs):
            fills.append(
                ["".join(letters.get((r, c), "#") for c in range(len(grid))) for r in range(len(grid))]
            )
            return
        for word in bank:
            if len(word) != len(runs[i]) or word in used:
                continue
            if any(letters.get(cell, ch) != ch for cell, ch in zip(runs[i], word, strict=True)):
                continue
            new = dict(letters)
            new.update(zip(runs[i], word, strict=True))
            place(i + 1, new, [*used, word])

    place(0, {}, [])
    return fills


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=25, deadline=None)
def test_the_prompt_has_exactly_one_fill_of_common_words(seed: int, level: int) -> None:
    task = palaestra.make_task("crossword_fill", seed=seed, level=level)
    grid, bank = _read_prompt(task.prompt)
    n = task.knobs["size"]
    assert len(grid) == n and all(len(row) == n for row in grid)
    assert sum(row.count("#") for row in grid) == task.knobs["blacks"]
    assert len(bank) == len(set(bank)) and set(bank) <= _common()
    fills = _all_fills(grid, bank)
    assert fills == [task.answer.split("\n")]
    runs = _runs(grid)
    assert len(bank) == len(runs) + task.knobs["distractors"]
    covered = {cell for run in runs for cell in run}
    assert covered == {(r, c) for r in range(n) for c in range(n) if grid[r][c] == "."}
    assert palaestra.verify(task, f"<answer>{task.answer}</answer>").correct


def test_answer_forms_are_read() -> None:
    task = palaestra.make_task("crossword_fill", seed=11, level=5)
    rows = task.answer.split("\n")
    forms = [
        "\n".join(rows).lower(),
        "\n".join(" ".join(row) for row in rows),
        "\n".join(f"Row {i}: {row}" for i, row in enumerate(rows, 1)),
        "".join(rows),
    ]
    for form in forms:
        assert palaestra.verify(task, f"<answer>\n{form}\n</answer>").correct, form


def test_near_misses_are_refused() -> None:
    task = palaestra.make_task("crossword_fill", seed=5, level=6)
    rows = [list(row) for row in task.answer.split("\n")]
    r, c = next((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "#")
    wrong_letter = [row.copy() for row in rows]
    wrong_letter[r][c] = "Q" if rows[r][c] != "Q" else "Z"
    black_filled = [row.copy() for row in rows]
    br, bc = next((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#")
    black_filled[br][bc] = "A"
    for grid, why in ((wrong_letter, "not in the word bank"), (black_filled, "black square")):
        verdict = palaestra.verify(task, "<answer>\n" + "\n".join("".join(g) for g in grid) + "\n</answer>")
        assert not verdict.correct and verdict.format_ok and why in verdict.reason
    short = "\n".join("".join(row) for row in rows[:-1])
    assert not palaestra.verify(task, f"<answer>{short}</answer>").format_ok
    assert not palaestra.verify(task, f"<answer>{task.answer}!</answer>").format_ok


def test_constraint_check_accepts_every_valid_fill_and_refuses_reuse() -> None:
    # 3x3 open grid: rows and columns are all words; the transpose of a fill is another fill.
    pattern = ["...", "...", "..."]
    fill = ["BAT", "ARE", "TEN"]  # a word square: rows == columns, so each word would be used twice
    assert "used twice" in check_fill(pattern, ["ARE", "BAT", "TEN"], [list(r) for r in fill])
    fill = ["CAT", "ARE", "BET"]  # columns: CAB, ARE (twice), TEE
    assert check_fill(pattern, ["ARE", "BET", "CAB", "CAT", "TEE"], [list(r) for r in fill])
    fill = ["ACT", "GOO", "END"]
    bank = ["ACT", "AGE", "CON", "END", "GOO", "TOD"]
    transposed = [list(col) for col in zip(*fill, strict=True)]
    assert check_fill(pattern, bank, [list(r) for r in fill]) == ""
    assert check_fill(pattern, bank, transposed) == ""
    assert "not in the word bank" in check_fill(pattern, bank[1:], [list(r) for r in fill])
