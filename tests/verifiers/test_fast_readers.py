"""Faster readers read exactly as before: ``parse_rational``'s plain-integer path against its
general reading, and ``read_grid``'s character filtering against the per-character loops it
replaced (kept here as the oracle)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.verifiers import constraints
from palaestra.verifiers.numbers import fold_lookalikes, parse_rational

SIGNS = st.sampled_from(["", "+", "-"])


@settings(max_examples=2000, deadline=None)
@given(SIGNS, st.text(alphabet="0123456789", min_size=1, max_size=30))
def test_plain_integers_read_as_the_general_path_reads_them(sign: str, digits: str) -> None:
    text = sign + digits
    # a leading space takes the general path (it strips the space and reads the same text)
    assert parse_rational(text) == parse_rational(" " + text) == Fraction(int(text))


def test_what_is_not_a_plain_integer_still_takes_the_general_path() -> None:
    assert parse_rational("７") == 7  # fullwidth
    assert parse_rational("٧") == 7  # another script's digit
    assert parse_rational("7²") is None
    assert parse_rational("−7") == -7  # U+2212
    assert parse_rational("--7") is None
    assert parse_rational("1" * 401) is None  # over max_chars before any reading


def _old_read_grid(text, rows, cols, cells=None, *, max_chars=constraints.MAX_GRID_CHARS):
    """``read_grid`` as it was before its character filters used ``str.strip``/``translate``."""
    if len(text) > max_chars or rows * cols > constraints.MAX_CELLS:
        return None, f"the answer is longer than {max_chars} characters"
    alphabet = set(cells) if cells is not None else set()
    skippable = set(constraints._GRID_RULE_CHARS) - alphabet
    grid, labels = [], []
    for line in fold_lookalikes(text).strip().splitlines():
        if all(ch in skippable for ch in line):
            continue
        label = constraints._ROW_LABEL.match(line)
        body = line[label.end() :] if label else line
        row, error = _old_grid_row(body, cols, alphabet if cells is not None else None)
        if row is None:
            return None, f"{error} in row {len(grid) + 1}: {line.strip()[:40]!r}"
        grid.append(row)
        labels.append(int(label.group(1)) if label else None)
    if label_error := constraints._check_row_labels(labels):
        return None, label_error
    if len(grid) == 1 and rows > 1 and len(grid[0]) == rows * cols and labels[0] is None:
        grid = [grid[0][r * cols : (r + 1) * cols] for r in range(rows)]
    if len(grid) != rows:
        return None, f"expected {rows} rows, found {len(grid)}"
    for i, row in enumerate(grid):
        if len(row) != cols:
            return None, f"row {i + 1} has {len(row)} cells, expected {cols}"
    return grid, ""


def _old_grid_row(body, cols, alphabet):
    if alphabet:
        separators = set(constraints._GRID_SEPARATORS) - alphabet
        row = [ch for ch in body if ch not in separators]
        bad = next((ch for ch in row if ch not in alphabet), None)
        if bad is not None:
            return None, f"{bad!r} is not a cell of this grid"
    else:
        row = constraints._GRID_TOKENS.findall(body)
        if len(row) == 1 and len(row[0]) == cols:
            row = list(row[0])
    return (row, "") if row else (None, "no cells")


GRID_CHARS = "01.#*|-+ \t,;[]()xX\nRow:2１"
ALPHABETS = [None, "01", ".#", "*.", "12", "0123456789", ".-|", " ."]


@settings(max_examples=3000, deadline=None)
@given(
    st.text(alphabet=GRID_CHARS, max_size=60),
    st.integers(1, 4),
    st.integers(1, 4),
    st.sampled_from(ALPHABETS),
)
def test_read_grid_reads_as_before(text: str, rows: int, cols: int, cells: str | None) -> None:
    assert constraints.read_grid(text, rows, cols, cells) == _old_read_grid(text, rows, cols, cells)
