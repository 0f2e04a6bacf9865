"""N queens with givens: complete a board on which some queens are already placed.

Place ``n`` queens on an ``n x n`` board, one in every row and every column, no two on a common
diagonal, keeping the queens already given. The givens are a subset of a random solution (a
randomised backtracking search) chosen so that the completion is unique: the queens of the
solution are dropped one by one in random order, each only while an exact search still finds
exactly one completion (so the set is minimal), then ``extra_givens`` of the dropped queens are
put back (easier levels). Uniqueness is proven by that search, which counts completions up to
two: depth-first, always branching on the open row with the fewest free squares, over bitmasks
of the attacked columns and diagonals. The verifier checks the rules and the givens, so the
only accepted board is the unique completion.

Difficulty moves with the board size (6 to 18) and the number of givens (minimal from level 6);
from level 7 on, puzzles that the weak solver completes are redrawn. The weak solver is
propagation alone: a row or a column with a single free square gets its queen, repeatedly; it
gives up when stuck. Exact effort = search nodes until the first completion.

Small boards have few distinct puzzles (the 8x8 board has 12 solutions up to symmetry), so
levels from 3 on start at 12x12, where the duplicate rate stays under 1%.

Speed (mean CPU time of one core, benchmarks/generation.py): level 1 ~2,400 tasks/s, level 5
~760/s, level 10 ~350/s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_binary_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_ATTEMPTS = 200
MAX_CHARS = 5000
QUEEN, EMPTY = "Q", "."
_QUEEN_MARKS = set("Qq1")
_EMPTY_MARKS = set(".0")

Placement = dict[int, int]  # row -> column of its queen


@dataclass(frozen=True)
class QueensKnobs(Knobs):
    size: int = knob(8, low=4, high=24, help="board size n (n queens on n x n)")
    extra_givens: int = knob(
        0, low=0, high=12, help="queens given beyond a minimal set that fixes the solution"
    )
    reject_easy: bool = knob(False, help="redraw puzzles that row/column propagation alone completes")


LEVELS = {
    1: QueensKnobs(size=6, extra_givens=3),
    2: QueensKnobs(size=8, extra_givens=2),
    3: QueensKnobs(size=12, extra_givens=3),
    4: QueensKnobs(size=12, extra_givens=2),
    5: QueensKnobs(size=12, extra_givens=1),
    6: QueensKnobs(size=12),
    7: QueensKnobs(size=13, reject_easy=True),
    8: QueensKnobs(size=14, reject_easy=True),
    9: QueensKnobs(size=16, reject_easy=True),
    10: QueensKnobs(size=18, reject_easy=True),
}


# --------------------------------------------------------------------------------------------
# Search over bitmasks: columns, and diagonals indexed c - r + n - 1 and r + c
# --------------------------------------------------------------------------------------------


@dataclass
class Search:
    """Completions found (up to the limit) and the nodes (queens tried) of the search."""

    solutions: list[tuple[int, ...]]
    nodes: int


def _masks(n: int, placed: Placement) -> tuple[int, int, int] | None:
    cols = up = down = 0
    for r, c in placed.items():
        cols |= 1 << c
        up |= 1 << (c - r + n - 1)
        down |= 1 << (r + c)
    k = len(placed)
    if bin(cols).count("1") != k or bin(up).count("1") != k or bin(down).count("1") != k:
        return None  # two placed queens attack each other
    return cols, up, down


def _free(n: int, row: int, cols: int, up: int, down: int) -> int:
    """Columns of ``row`` that no placed queen attacks."""
    return ((1 << n) - 1) & ~(cols | (up >> (n - 1 - row)) | (down >> row))


def search(n: int, givens: Placement, limit: int = 2) -> Search:
    """Completions of ``givens`` (up to ``limit``), branching on the open row with fewest free squares."""
    masks = _masks(n, givens)
    result = Search([], 0)
    if masks is None:
        return result
    board = [givens.get(r, -1) for r in range(n)]

    def descend(cols: int, up: int, down: int, open_rows: list[int]) -> bool:
        if not open_rows:
            result.solutions.append(tuple(board))
            return len(result.solutions) >= limit
        best, best_free, best_count = -1, 0, n + 1
        for r in open_rows:
            free = _free(n, r, cols, up, down)
            count = bin(free).count("1")
            if count < best_count:
                best, best_free, best_count = r, free, count
                if count == 0:
                    return False
        rest = [r for r in open_rows if r != best]
        while best_free:
            bit = best_free & -best_free
            best_free ^= bit
            result.nodes += 1
            c = bit.bit_length() - 1
            board[best] = c
            if descend(cols | bit, up | 1 << (c - best + n - 1), down | 1 << (best + c), rest):
                return True
        board[best] = -1
        return False

    descend(*masks, [r for r in range(n) if r not in givens])
    return result


def random_solution(n: int, rng: np.random.Generator) -> tuple[int, ...]:
    """A random placement of n queens: backtracking row by row, columns tried in random order."""
    board = [0] * n

    def place(row: int, cols: int, up: int, down: int) -> bool:
        if row == n:
            return True
        free = _free(n, row, cols, up, down)
        options = [c for c in range(n) if free >> c & 1]
        for i in rng.permutation(len(options)).tolist():
            c = options[i]
            board[row] = c
            if place(row + 1, cols | 1 << c, up | 1 << (c - row + n - 1), down | 1 << (row + c)):
                return True
        return False

    place(0, 0, 0, 0)
    return tuple(board)


def propagate(n: int, givens: Placement) -> tuple[Placement | None, int]:
    """The weak solver: a row or a column with one free square gets its queen, until stuck.

    Returns (a full placement or ``None``, queens placed)."""
    placed = dict(givens)
    masks = _masks(n, placed)
    if masks is None:
        return None, 0
    cols, up, down = masks
    added = 0
    progress = True
    while progress and len(placed) < n:
        progress = False
        frees = {r: _free(n, r, cols, up, down) for r in range(n) if r not in placed}
        singles = [(r, free.bit_length() - 1) for r, free in frees.items() if free and free & (free - 1) == 0]
        for c in range(n):
            rows = [r for r, free in frees.items() if free >> c & 1]
            if len(rows) == 1 and not cols >> c & 1:
                singles.append((rows[0], c))
        for r, c in singles[:1]:  # one at a time: the next square depends on this queen
            placed[r] = c
            cols, up, down = cols | 1 << c, up | 1 << (c - r + n - 1), down | 1 << (r + c)
            added += 1
            progress = True
    return (placed if len(placed) == n else None), added


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


def board_text(n: int, placed: Placement) -> str:
    return "\n".join("".join(QUEEN if placed.get(r) == c else EMPTY for c in range(n)) for r in range(n))


def canonical_hash(n: int, givens: Placement) -> str:
    """Least form of the given squares under the 8 symmetries of the board (the rules keep them)."""
    points = list(givens.items())
    forms = []
    for _ in range(4):
        points = [(c, n - 1 - r) for r, c in points]  # quarter turn
        forms.append(sorted(points))
        forms.append(sorted((r, n - 1 - c) for r, c in points))
    return content_hash({"n_queens": n, "givens": min(forms)})


PROMPT = """Place {n} queens on this {n}x{n} board so that every row and every column holds \
exactly one queen and no two queens share a diagonal (queens attack along rows, columns and \
diagonals). {k} queen{s} (Q) {are} already placed and must stay; . is an empty square. The \
completion is unique.

{board}

Give the full board inside <answer>...</answer>: {n} lines of {n} characters, Q for a queen and \
. for an empty square (1 and 0 are also read). Format example only (a 4x4 board, not this \
puzzle):
<answer>
.Q..
...Q
Q...
..Q.
</answer>"""


@family(
    "n_queens",
    domain="puzzles",
    knobs=QueensKnobs,
    levels=LEVELS,
    description="N queens (6x6 to 18x18) with given queens: the unique completion, proven by exhaustive search.",
    verifier_kind="constraint check",
)
class NQueens(Family):
    def generate(self, knobs: QueensKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            solution = random_solution(n, rng)
            givens = minimal_givens(n, solution, rng)
            dropped = [r for r in range(n) if r not in givens]
            for i in rng.permutation(len(dropped))[: knobs.extra_givens].tolist():
                givens[dropped[i]] = solution[dropped[i]]
            givens = dict(sorted(givens.items()))
            if knobs.reject_easy and propagate(n, givens)[0] is not None:
                continue
            return TaskDraft(
                prompt=PROMPT.format(
                    n=n,
                    k=len(givens),
                    s="s" if len(givens) > 1 else "",
                    are="are" if len(givens) > 1 else "is",
                    board=board_text(n, givens),
                ),
                answer=board_text(n, dict(enumerate(solution))),
                metadata={
                    "size": n,
                    "givens": [[r, c] for r, c in givens.items()],
                    "solutions": 1,
                    "canonical_hash": canonical_hash(n, givens),
                },
            )
        raise RuntimeError(f"no n-queens puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    def verify(self, task: Task, response: str) -> Verdict:
        n, givens = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        grid, error = read_binary_grid(extraction.text, n, n, _QUEEN_MARKS, _EMPTY_MARKS, max_chars=MAX_CHARS)
        if grid is None:
            return Verdict.bad_format(error)
        for r, row in enumerate(grid):
            if sum(row) != 1:
                return Verdict.wrong(f"row {r + 1} has {sum(row)} queens, not 1", parsed=grid)
        placed = {r: row.index(1) for r, row in enumerate(grid)}
        for r, c in givens.items():
            if placed[r] != c:
                return Verdict.wrong(f"the given queen at row {r + 1}, column {c + 1} was moved", parsed=grid)
        seen: dict[tuple[str, int], int] = {}
        for r, c in placed.items():
            for line in (("column", c), ("diagonal", c - r), ("anti-diagonal", c + r)):
                if line in seen:
                    return Verdict.wrong(
                        f"the queens in rows {seen[line] + 1} and {r + 1} share a {line[0]}", parsed=grid
                    )
                seen[line] = r
        return Verdict.right(parsed=grid)

    def solve_exact(self, task: Task) -> SolverRun:
        """Depth-first search, fewest-free-squares row first (effort: queens tried)."""
        n, givens = _unpack(task)
        found = search(n, givens, limit=1)
        if not found.solutions:
            return SolverRun(None, float(found.nodes))
        board = dict(enumerate(found.solutions[0]))
        return SolverRun(f"<answer>\n{board_text(n, board)}\n</answer>", float(found.nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        """Propagation only: single free squares of rows and columns, until stuck."""
        n, givens = _unpack(task)
        placed, added = propagate(n, givens)
        return SolverRun(
            None if placed is None else f"<answer>\n{board_text(n, placed)}\n</answer>", float(added)
        )

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, givens = _unpack(task)
        rows = task.answer.split("\n")
        free_rows = [r for r in range(n) if r not in givens]
        a, b = (free_rows[i] for i in rng.permutation(len(free_rows))[:2].tolist())
        swapped = list(rows)  # two non-given rows swapped: rows and columns fine, diagonals not
        swapped[a], swapped[b] = rows[b], rows[a]
        shifted = list(rows)  # one queen moved one square sideways: its column doubles
        col = rows[a].index(QUEEN)
        target = col + 1 if col + 1 < n else col - 1
        shifted[a] = "".join(QUEEN if c == target else EMPTY for c in range(n))
        mirrored = [row[::-1] for row in rows]  # a valid n-queens board that breaks the givens
        out = [swapped, shifted, mirrored, rows[:-1]]
        responses = ["<answer>\n" + "\n".join(board) + "\n</answer>" for board in out]
        return [r for r in dict.fromkeys(responses) if not self.verify(task, r).correct]


def minimal_givens(n: int, solution: tuple[int, ...], rng: np.random.Generator) -> Placement:
    """Drop the solution's queens in random order while the completion stays unique."""
    givens = dict(enumerate(solution))
    for r in rng.permutation(n).tolist():
        trial = {row: col for row, col in givens.items() if row != r}
        if len(search(n, trial, limit=2).solutions) == 1:
            givens = trial
    return givens


def _unpack(task: Task) -> tuple[int, Placement]:
    return int(task.metadata["size"]), {int(r): int(c) for r, c in task.metadata["givens"]}
