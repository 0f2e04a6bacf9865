"""Constraint checkers: verify a submitted structure against the rules, not against one
reference answer, for families where many answers are valid (grids, paths, colourings,
assignments, schedules).

Every checker is a pure function returning a :class:`~palaestra.core.Verdict`: ``right``
when every rule holds, ``wrong`` naming the first broken rule (the reason is written to be
shown to a solver as multi-turn feedback), ``bad_format`` when the submission cannot be read
or has the wrong shape. Sizes are capped so each check is linear in its input. Rule sets
are plain JSON data (they live in ``Task.metadata``), never callables.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from typing import Any

from palaestra.core import Verdict
from palaestra.verifiers.numbers import fold_lookalikes

__all__ = [
    "read_grid",
    "parse_grid",
    "parse_sequence",
    "parse_cells",
    "parse_mapping",
    "check_grid",
    "check_sudoku",
    "check_grid_path",
    "check_graph_path",
    "check_coloring",
    "check_csp",
    "check_schedule",
]

MAX_CELLS = 250_000
MAX_ITEMS = 100_000
Cell = tuple[int, int]


# ------------------------------------------------------------------------------------------
# Reading submissions
# ------------------------------------------------------------------------------------------


_GRID_SEPARATORS = " \t\r\f\v|,;[]()"  # never "-": "-3421" must not read as 3421
_GRID_RULE_CHARS = " \t\r\f\v-+=|_*.:~"
_GRID_TOKENS = re.compile(r"[^\s|,;\[\]()]+")
_ROW_LABEL = re.compile(r"^[ \t]*(?:row[ \t]*|r)([0-9]{1,4})[ \t]*[:.)\-][ \t]*", re.IGNORECASE)
MAX_GRID_CHARS = 16 * MAX_CELLS


def read_grid(
    text: str,
    rows: int,
    cols: int,
    cells: Collection[str] | None = None,
    *,
    max_chars: int = MAX_GRID_CHARS,
) -> tuple[list[list[str]] | None, str]:
    """The one reader of grids written by a model: ``(grid, "")`` or ``(None, reason)``.

    One line per row. With ``cells`` (an alphabet of one-character cells), every character of a
    row other than separators (spaces, ``, ; | [ ] ( )`` unless they are cells) is one cell, and
    all ``rows * cols`` cells on a single line are read too; a minus sign is no separator
    (``-3421`` is refused, not read as 3421). Without it, cells are tokens split by those
    separators, or single characters when a row is written together. Empty lines and rule lines (``---+---``) are skipped unless their characters are
    cells. Optional row labels (``Row 3:``, ``R3)``, ``row 3 -``): when one row has a label,
    every row must, numbered 1, 2, ... in order; a mislabelled, skipped or repeated row is a
    format error, never read in text order. Fullwidth forms read as ASCII (``１`` is ``1``).
    """
    if len(text) > max_chars or rows * cols > MAX_CELLS:
        return None, f"the answer is longer than {max_chars} characters"
    if cells is not None and (plain := _plain_grid(text, rows, cols, cells)) is not None:
        return plain, ""
    alphabet = set(cells) if cells is not None else set()
    skippable = "".join(set(_GRID_RULE_CHARS) - alphabet)
    grid: list[list[str]] = []
    labels: list[int | None] = []
    for line in fold_lookalikes(text).strip().splitlines():
        if not line.strip(skippable):  # every character skippable (an empty or rule line)
            continue
        label = _ROW_LABEL.match(line)
        body = line[label.end() :] if label else line
        row, error = _grid_row(body, cols, alphabet if cells is not None else None)
        if row is None:
            return None, f"{error} in row {len(grid) + 1}: {line.strip()[:40]!r}"
        grid.append(row)
        labels.append(int(label.group(1)) if label else None)
    if label_error := _check_row_labels(labels):
        return None, label_error
    if len(grid) == 1 and rows > 1 and len(grid[0]) == rows * cols and labels[0] is None:
        grid = [grid[0][r * cols : (r + 1) * cols] for r in range(rows)]
    if len(grid) != rows:
        return None, f"expected {rows} rows, found {len(grid)}"
    for i, row in enumerate(grid):
        if len(row) != cols:
            return None, f"row {i + 1} has {len(row)} cells, expected {cols}"
    return grid, ""


def _plain_grid(text: str, rows: int, cols: int, cells: Collection[str]) -> list[list[str]] | None:
    """The grid of the commonest answer, read without the general reader: ASCII, ``rows`` lines
    of ``cols`` cells each and nothing else (no separator, label, rule or blank line); ``None``
    for anything else. :func:`read_grid` reads such a text to the same grid: ASCII has no
    look-alikes to fold, a line of cells is neither skipped nor cut by a separator, and no row
    label can start it while ``r`` is no cell."""
    if not text.isascii() or "r" in cells or "R" in cells:
        return None
    lines = text.strip().splitlines()
    if len(lines) != rows or any(len(line) != cols for line in lines):
        return None
    if not set(cells).issuperset("".join(lines)):
        return None
    return [list(line) for line in lines]


def _grid_row(body: str, cols: int, alphabet: set[str] | None) -> tuple[list[str] | None, str]:
    if alphabet:
        row = list(body.translate(_separators_table(frozenset(alphabet))))
        if not alphabet.issuperset(row):
            bad = next(ch for ch in row if ch not in alphabet)
            return None, f"{bad!r} is not a cell of this grid"
    else:
        row = _GRID_TOKENS.findall(body)
        if len(row) == 1 and len(row[0]) == cols:
            row = list(row[0])
    return (row, "") if row else (None, "no cells")


@functools.lru_cache(maxsize=256)
def _separators_table(alphabet: frozenset[str]) -> dict[int, None]:
    """A ``str.translate`` table deleting the separators that are not cells of ``alphabet``."""
    return dict.fromkeys(map(ord, set(_GRID_SEPARATORS) - alphabet))


def _check_row_labels(labels: list[int | None]) -> str | None:
    if all(label is None for label in labels):
        return None
    for position, label in enumerate(labels, start=1):
        if label != position:
            shown = "no label" if label is None else f"label {label}"
            return f"row labels must number the rows 1, 2, ... in order: row {position} has {shown}"
    return None


def parse_grid(text: str, rows: int, cols: int) -> list[list[str]] | None:
    """:func:`read_grid` without an alphabet, ``None`` when the text is not such a grid."""
    return read_grid(text, rows, cols)[0]


def parse_sequence(text: str) -> list[str] | None:
    """``A -> B -> C``, ``A, B, C`` or ``[A B C]`` as a list of item strings."""
    if len(text) > 16 * MAX_ITEMS:
        return None
    body = text.strip().strip("[]").strip()
    items = [t for t in re.split(r"\s*(?:->|→|,|;|\s)\s*", body) if t]
    return items or None


_CELL = re.compile(r"[(\[]\s*(-?[0-9]{1,9})\s*,\s*(-?[0-9]{1,9})\s*[)\]]")  # bounded: int() never raises


def parse_cells(text: str) -> list[Cell] | None:
    """``(0,0) -> (0,1) -> (1,1)`` (any separators between the pairs) as a list of cells."""
    if len(text) > 16 * MAX_ITEMS:
        return None
    cells = [(int(a), int(b)) for a, b in _CELL.findall(text)]
    leftover = _CELL.sub(" ", text)
    if not cells or re.search(r"[^\s,;\->→\[\]]", leftover):
        return None  # text between the cells other than separators: not a clean path
    return cells


def parse_mapping(text: str) -> dict[str, str] | None:
    """``A=1, B=2`` / ``A: 1; B: 2`` / one pair per line, as a dict of strings (None if unreadable)."""
    if len(text) > 16 * MAX_ITEMS:
        return None
    out: dict[str, str] = {}
    body = text.strip().strip("{}").strip()
    for part in re.split(r"[,;\n]", body):
        if not part.strip():
            continue
        # greedy value, stripped after: a lazy one before "\s*$" backtracked quadratically
        m = re.fullmatch(r"\s*['\"]?([^=:'\"\s]+)['\"]?\s*(?:=|:|->|→)\s*['\"]?([^'\"]*)['\"]?", part)
        if m is None or m.group(1) in out:
            return None
        out[m.group(1)] = m.group(2).strip()
    return out or None


# ------------------------------------------------------------------------------------------
# Grids
# ------------------------------------------------------------------------------------------


def _shape_ok(grid: Any, rows: int, cols: int) -> bool:
    return (
        isinstance(grid, Sequence)
        and len(grid) == rows
        and all(isinstance(r, Sequence) and not isinstance(r, str) and len(r) == cols for r in grid)
    )


def check_grid(
    grid: Sequence[Sequence[Any]],
    *,
    symbols: Iterable[Any],
    givens: Sequence[Sequence[Any]] | None = None,
    blank: Any = None,
    regions: Sequence[Sequence[Cell]] = (),
) -> Verdict:
    """A filled grid: every cell one of ``symbols``, agreeing with the non-``blank`` givens,
    and all-different inside each row, column and extra region (boxes, cages)."""
    allowed = {str(s) for s in symbols}
    rows = len(grid) if isinstance(grid, Sequence) else 0
    cols = len(grid[0]) if rows and isinstance(grid[0], Sequence) else 0
    if rows == 0 or rows * cols > MAX_CELLS or not _shape_ok(grid, rows, cols):
        return Verdict.bad_format("the grid is empty, ragged or too large")
    if givens is not None and not _shape_ok(givens, rows, cols):
        return Verdict.bad_format(f"the grid must be {len(givens)} x {len(givens[0]) if givens else 0}")
    cells = [[str(v) for v in row] for row in grid]
    for r, row in enumerate(cells):
        for c, value in enumerate(row):
            if value not in allowed:
                return Verdict.wrong(
                    f"cell ({r}, {c}) holds {value!r}, not one of the allowed symbols", parsed=cells
                )
            if givens is not None and givens[r][c] != blank and str(givens[r][c]) != value:
                return Verdict.wrong(f"cell ({r}, {c}) must stay {givens[r][c]!r} as given", parsed=cells)
    groups = [("row", r, [(r, c) for c in range(cols)]) for r in range(rows)]
    groups += [("column", c, [(r, c) for r in range(rows)]) for c in range(cols)]
    groups += [("region", k, list(reg)) for k, reg in enumerate(regions)]
    for kind, index, group in groups:
        seen: dict[str, Cell] = {}
        for r, c in group:
            if not (0 <= r < rows and 0 <= c < cols):
                return Verdict.failure(f"region {index} has a cell outside the grid")
            value = cells[r][c]
            if value in seen:
                return Verdict.wrong(
                    f"{kind} {index} repeats {value!r} at {seen[value]} and {(r, c)}", parsed=cells
                )
            seen[value] = (r, c)
    return Verdict.right(parsed=cells, reason="every rule holds")


def check_sudoku(
    grid: Sequence[Sequence[Any]],
    givens: Sequence[Sequence[Any]],
    *,
    box: tuple[int, int] = (3, 3),
    blank: Any = 0,
) -> Verdict:
    """A completed sudoku of side ``box[0] * box[1]`` (symbols 1..n) against its givens."""
    n = box[0] * box[1]
    regions = [
        [(br * box[0] + r, bc * box[1] + c) for r in range(box[0]) for c in range(box[1])]
        for br in range(box[1])
        for bc in range(box[0])
    ]
    if not _shape_ok(grid, n, n):
        return Verdict.bad_format(f"a sudoku answer must be {n} x {n}")
    return check_grid(grid, symbols=range(1, n + 1), givens=givens, blank=blank, regions=regions)


# ------------------------------------------------------------------------------------------
# Paths
# ------------------------------------------------------------------------------------------

_MOVES = {
    4: ((0, 1), (1, 0), (0, -1), (-1, 0)),
    8: tuple((a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b),
}


def check_grid_path(
    path: Sequence[Cell],
    passable: Sequence[Sequence[bool]],
    start: Cell,
    goal: Cell,
    *,
    neighbourhood: int = 4,
    max_length: int | None = None,
    simple: bool = True,
) -> Verdict:
    """A path of cells from ``start`` to ``goal`` through passable cells, each step one move.

    ``max_length`` (number of moves) makes it a shortest-path check when set to the optimum.
    """
    if neighbourhood not in _MOVES:
        return Verdict.failure(f"neighbourhood must be 4 or 8, not {neighbourhood}")
    try:
        cells = [(int(r), int(c)) for r, c in path]
    except (TypeError, ValueError):
        return Verdict.bad_format("a path is a list of (row, column) cells")
    if not cells or len(cells) > MAX_ITEMS:
        return Verdict.bad_format("the path is empty or too long")
    if cells[0] != tuple(start):
        return Verdict.wrong(f"the path must start at {tuple(start)}, not {cells[0]}", parsed=cells)
    if cells[-1] != tuple(goal):
        return Verdict.wrong(f"the path must end at {tuple(goal)}, not {cells[-1]}", parsed=cells)
    rows, cols = len(passable), len(passable[0]) if passable else 0
    steps = set(_MOVES[neighbourhood])
    for i, (r, c) in enumerate(cells):
        if not (0 <= r < rows and 0 <= c < cols):
            return Verdict.wrong(f"step {i} leaves the grid at {(r, c)}", parsed=cells)
        if not passable[r][c]:
            return Verdict.wrong(f"step {i} enters a blocked cell {(r, c)}", parsed=cells)
        if i and (r - cells[i - 1][0], c - cells[i - 1][1]) not in steps:
            return Verdict.wrong(f"step {i} jumps from {cells[i - 1]} to {(r, c)}", parsed=cells)
    if simple and len(set(cells)) != len(cells):
        return Verdict.wrong("the path visits a cell twice", parsed=cells)
    if max_length is not None and len(cells) - 1 > max_length:
        return Verdict.wrong(f"the path takes {len(cells) - 1} moves; {max_length} are enough", parsed=cells)
    return Verdict.right(parsed=cells, reason="a valid path")


def check_graph_path(
    path: Sequence[Hashable],
    edges: Iterable[Sequence[Hashable]],
    *,
    start: Hashable | None = None,
    end: Hashable | None = None,
    directed: bool = False,
    simple: bool = True,
    cycle: bool = False,
    hamiltonian_on: Iterable[Hashable] | None = None,
    max_length: int | None = None,
) -> Verdict:
    """A walk along existing edges; optionally simple, closed (``cycle``), visiting every node
    of ``hamiltonian_on`` exactly once, and no longer than ``max_length`` edges."""
    nodes = [str(n) for n in path]
    if not nodes or len(nodes) > MAX_ITEMS:
        return Verdict.bad_format("the path is empty or too long")
    adjacency: set[tuple[str, str]] = set()
    for edge in edges:
        a, b = str(edge[0]), str(edge[1])
        adjacency.add((a, b))
        if not directed:
            adjacency.add((b, a))
    if start is not None and nodes[0] != str(start):
        return Verdict.wrong(f"the path must start at {start}", parsed=nodes)
    if end is not None and nodes[-1] != str(end):
        return Verdict.wrong(f"the path must end at {end}", parsed=nodes)
    for a, b in zip(nodes, nodes[1:], strict=False):
        if (a, b) not in adjacency:
            return Verdict.wrong(f"there is no edge {a} -> {b}", parsed=nodes)
    body = nodes[:-1] if cycle else nodes
    if cycle and (len(nodes) < 3 or nodes[0] != nodes[-1]):
        return Verdict.wrong("a cycle must return to its first node", parsed=nodes)
    if (simple or hamiltonian_on is not None) and len(set(body)) != len(body):
        return Verdict.wrong("the path repeats a node", parsed=nodes)
    if hamiltonian_on is not None:
        missing = {str(n) for n in hamiltonian_on} - set(body)
        if missing:
            return Verdict.wrong(
                f"the path misses {len(missing)} node(s), e.g. {sorted(missing)[0]}", parsed=nodes
            )
    if max_length is not None and len(nodes) - 1 > max_length:
        return Verdict.wrong(f"the path uses {len(nodes) - 1} edges; {max_length} are enough", parsed=nodes)
    return Verdict.right(parsed=nodes, reason="a valid path")


# ------------------------------------------------------------------------------------------
# Assignments
# ------------------------------------------------------------------------------------------


def check_coloring(
    coloring: Mapping[Hashable, Any],
    edges: Iterable[Sequence[Hashable]],
    *,
    nodes: Iterable[Hashable],
    colors: int,
) -> Verdict:
    """Every node gets one of ``colors`` colours and no edge joins two nodes of one colour."""
    given = {str(k): str(v) for k, v in coloring.items()}
    wanted = {str(n) for n in nodes}
    missing = wanted - set(given)
    if missing:
        return Verdict.bad_format(f"uncoloured node(s): {', '.join(sorted(missing)[:5])}", parsed=given)
    extra = set(given) - wanted
    if extra:
        return Verdict.wrong(f"unknown node(s): {', '.join(sorted(extra)[:5])}", parsed=given)
    used = set(given.values())
    if len(used) > colors:
        return Verdict.wrong(f"{len(used)} colours used; at most {colors} allowed", parsed=given)
    for edge in edges:
        a, b = str(edge[0]), str(edge[1])
        if given[a] == given[b]:
            return Verdict.wrong(f"{a} and {b} are adjacent and both coloured {given[a]}", parsed=given)
    return Verdict.right(parsed=given, reason="a proper colouring")


_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def check_csp(
    assignment: Mapping[str, Any],
    *,
    domains: Mapping[str, Sequence[Any]],
    constraints: Sequence[Mapping[str, Any]],
) -> Verdict:
    """An assignment against a JSON constraint list. Constraint kinds:

    ``{"type": "all_different", "vars": [...]}``;
    ``{"type": "compare", "a": v, "op": "<", "b": w}`` (``b`` may be ``{"value": 3}``);
    ``{"type": "linear", "terms": {v: coeff}, "op": "<=", "rhs": 10}``;
    ``{"type": "allowed", "vars": [v, w], "tuples": [[1, 2], ...]}``.
    """
    values = dict(assignment)
    missing = [v for v in domains if v not in values]
    if missing:
        return Verdict.bad_format(f"unassigned variable(s): {', '.join(missing[:5])}", parsed=values)
    extra = [v for v in values if v not in domains]
    if extra:
        return Verdict.wrong(f"unknown variable(s): {', '.join(map(str, extra[:5]))}", parsed=values)
    for name, value in values.items():
        if value not in domains[name]:
            return Verdict.wrong(f"{name}={value!r} is outside its domain", parsed=values)
    for k, rule in enumerate(constraints):
        broken = _broken(rule, values)
        if broken:
            return Verdict.wrong(f"constraint {k} ({rule.get('type')}) fails: {broken}", parsed=values)
    return Verdict.right(parsed=values, reason="every constraint holds")


def _broken(rule: Mapping[str, Any], values: Mapping[str, Any]) -> str | None:
    kind = rule.get("type")
    if kind == "all_different":
        seen: dict[Any, str] = {}
        for v in rule["vars"]:
            if values[v] in seen:
                return f"{seen[values[v]]} and {v} are both {values[v]!r}"
            seen[values[v]] = v
        return None
    if kind == "compare":
        a = values[rule["a"]]
        b = rule["b"]["value"] if isinstance(rule["b"], Mapping) else values[rule["b"]]
        return None if _COMPARE[rule["op"]](a, b) else f"{rule['a']}={a!r} {rule['op']} {b!r} is false"
    if kind == "linear":
        total = sum(coeff * values[v] for v, coeff in rule["terms"].items())
        return (
            None
            if _COMPARE[rule["op"]](total, rule["rhs"])
            else f"sum is {total}, needs {rule['op']} {rule['rhs']}"
        )
    if kind == "allowed":
        combo = [values[v] for v in rule["vars"]]
        return (
            None if combo in [list(t) for t in rule["tuples"]] else f"{rule['vars']} = {combo} is not allowed"
        )
    raise ValueError(f"unknown constraint type {kind!r}")


# ------------------------------------------------------------------------------------------
# Schedules
# ------------------------------------------------------------------------------------------


def check_schedule(
    starts: Mapping[str, Any],
    *,
    durations: Mapping[str, int],
    resources: Mapping[str, str] | None = None,
    precedences: Iterable[Sequence[str]] = (),
    release: Mapping[str, int] | None = None,
    deadline: Mapping[str, int] | int | None = None,
    makespan: int | None = None,
) -> Verdict:
    """Integer start times: jobs on one resource never overlap, ``(a, b)`` precedences mean
    a ends before b starts, release times and deadlines hold, and the last job ends by
    ``makespan`` (set it to the optimum to demand an optimal schedule)."""
    try:
        start = {str(j): int(t) for j, t in starts.items()}
    except (TypeError, ValueError):
        return Verdict.bad_format("start times must be integers")
    missing = [j for j in durations if j not in start]
    if missing:
        return Verdict.bad_format(f"unscheduled job(s): {', '.join(missing[:5])}", parsed=start)
    extra = [j for j in start if j not in durations]
    if extra:
        return Verdict.wrong(f"unknown job(s): {', '.join(extra[:5])}", parsed=start)
    end = {j: start[j] + durations[j] for j in durations}
    for j in durations:
        if start[j] < (release or {}).get(j, 0):
            return Verdict.wrong(f"{j} starts at {start[j]} before its release time", parsed=start)
        limit = deadline if isinstance(deadline, int) else (deadline or {}).get(j)
        if limit is not None and end[j] > limit:
            return Verdict.wrong(f"{j} ends at {end[j]}, after its deadline {limit}", parsed=start)
    for a, b in precedences:
        if end[a] > start[b]:
            return Verdict.wrong(f"{b} starts at {start[b]} before {a} ends at {end[a]}", parsed=start)
    if resources:
        by_resource: dict[str, list[str]] = {}
        for j, r in resources.items():
            by_resource.setdefault(r, []).append(j)
        for r, jobs in by_resource.items():
            ordered = sorted(jobs, key=lambda j: (start[j], end[j]))
            for a, b in zip(ordered, ordered[1:], strict=False):
                if end[a] > start[b] and durations[a] > 0 and durations[b] > 0:
                    return Verdict.wrong(f"{a} and {b} overlap on {r}", parsed=start)
    if makespan is not None and max(end.values(), default=0) > makespan:
        return Verdict.wrong(
            f"the schedule ends at {max(end.values())}; {makespan} is achievable", parsed=start
        )
    return Verdict.right(parsed=start, reason="a feasible schedule")
