"""Grid answers of the puzzle families, read by the one shared grid reader.

Every grid family (sudoku and its variants, skyscrapers, binairo, kakuro, nonogram,
star_battle, bimaru) reads its answer with
:func:`palaestra.verifiers.constraints.read_grid`, so they all accept and refuse the same
layouts (separators, rule lines, ``Row k:`` labels that must number the rows in order).
"""

from __future__ import annotations

from collections.abc import Collection

from palaestra.verifiers.constraints import read_grid

MAX_GRID_CHARS = 5000


def read_digit_grid(text: str, n: int) -> tuple[list[list[int]] | None, str]:
    """An ``n x n`` grid of single digits 0-9 (a Latin square, a sudoku)."""
    grid, error = read_grid(text, n, n, "0123456789", max_chars=MAX_GRID_CHARS)
    if grid is None:
        return None, error
    return [[int(ch) for ch in row] for row in grid], ""


def read_binary_grid(
    text: str,
    rows: int,
    cols: int,
    on: Collection[str],
    off: Collection[str],
    *,
    max_chars: int = MAX_GRID_CHARS,
) -> tuple[list[list[int]] | None, str]:
    """Rows of 1 (a character in ``on``) and 0 (in ``off``): shaded/blank, ship/water, star/empty."""
    grid, error = read_grid(text, rows, cols, set(on) | set(off), max_chars=max_chars)
    if grid is None:
        return None, error
    return [[1 if ch in on else 0 for ch in row] for row in grid], ""


def square_maps(n: int) -> list[list[int]]:
    """The 8 symmetries of the ``n x n`` square as cell maps (old cell ``r * n + c`` -> new cell),
    for canonical hashes that count rotated and mirrored copies as duplicates."""
    maps = []
    for transpose in (False, True):
        for flip_r in (False, True):
            for flip_c in (False, True):
                out = []
                for cell in range(n * n):
                    r, c = divmod(cell, n)
                    if transpose:
                        r, c = c, r
                    if flip_r:
                        r = n - 1 - r
                    if flip_c:
                        c = n - 1 - c
                    out.append(r * n + c)
                maps.append(out)
    return maps


def settle_count(
    values: list[int], cells: list[int], count: int, on: int, unknown: int
) -> tuple[bool, list[int], bool | None]:
    """The counting rule of "exactly ``count`` of ``cells`` are ``on``" (a light_up number, a
    tents line): (still possible, the cells not yet decided, whether they must all be on
    (``True``), all be off (``False``) or neither is forced (``None``))."""
    placed = sum(1 for c in cells if values[c] == on)
    open_cells = [c for c in cells if values[c] == unknown]
    if placed > count or placed + len(open_cells) < count:
        return False, open_cells, None
    if open_cells and placed == count:
        return True, open_cells, False
    if open_cells and placed + len(open_cells) == count:
        return True, open_cells, True
    return True, open_cells, None
