"""A tolerant reader for answers that are grids of two kinds of cell (shaded/blank, ship/water).

Used by nonogram, star_battle and bimaru: one line per row, optional separators between cells
(spaces, pipes, commas, brackets) and optional ``Row 3:`` prefixes; a single line of
``width * height`` cells is also accepted.
"""

from __future__ import annotations

import re

_SPACES = re.compile(r"[\s|,;\[\]]+")
_PREFIX = re.compile(r"^\s*(?:row\s*\d+\s*[:.)-]|r\d+\s*[:.)-])\s*", re.IGNORECASE)


def parse_binary_grid(
    text: str, width: int, height: int, on: set[str], off: set[str], max_chars: int
) -> tuple[list[list[int]] | None, str]:
    """Rows of 1 (a character in ``on``) and 0 (in ``off``), or ``None`` and the reason."""
    if len(text) > max_chars:
        return None, f"the answer is longer than {max_chars} characters"
    rows = []
    for line in text.strip().splitlines():
        body = _SPACES.sub("", _PREFIX.sub("", line))
        if not body:
            continue
        row = []
        for ch in body:
            if ch in on:
                row.append(1)
            elif ch in off:
                row.append(0)
            else:
                return None, f"could not read a row of cells from {line.strip()[:40]!r}"
        rows.append(row)
    if len(rows) == 1 and len(rows[0]) == width * height:
        rows = [rows[0][r * width : (r + 1) * width] for r in range(height)]
    if len(rows) != height:
        return None, f"expected {height} rows, found {len(rows)}"
    for i, row in enumerate(rows):
        if len(row) != width:
            return None, f"row {i + 1} has {len(row)} cells, expected {width}"
    return rows, ""
