"""Conway's Game of Life on a bounded board: the state after k steps, or a predecessor.

The board is ``n x n``; cells outside it are dead and never come alive (so nothing leaves the
board). Two modes:

- ``forward``: the state after ``steps`` generations. The answer is unique (the rules are
  deterministic); the verifier compares the submitted grid cell by cell. Degenerate starts are
  redrawn: a board that dies out, or whose state after ``steps`` generations already occurred
  earlier (it settled or cycled, so fewer steps give the same answer).
- ``predecessor``: a state whose next generation is the given board. The board is made by
  stepping a random state, so a predecessor exists by construction; any predecessor is accepted
  (the verifier steps the submitted state and compares). Redrawn: boards with fewer than ``n``
  live cells (empty and sparse boards are few, so they would repeat), boards that are their own
  predecessor (still lifes), and, with ``reject_easy``, boards the weak local search solves.

Exact solvers: forward, plain simulation (effort = cell updates, ``n^2 k``); predecessor, a
depth-first search over the cells of the predecessor in reading order that checks each target
cell as soon as its 3x3 neighbourhood is assigned, with memoised dead ends per row pair (effort
= cells assigned). Weak solver: forward, one generation and then assume the board is still
(right only for k = 1); predecessor, the board itself, then greedy single-cell flips that
reduce the number of wrong cells.

The predecessor task's answer is the random board it was stepped from (generation does not
search); the search runs only in ``solve_exact``.

Speed (mean CPU time of one core, benchmarks/generation.py): level 1 ~7,300 tasks/s, level 5
~4,500/s, level 10 (9x9 predecessor; the greedy weak search runs on every draw to reject easy
boards) ~130/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_binary_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MODES = ("forward", "predecessor")
ALIVE, DEAD = "#", "."
MAX_ATTEMPTS = 500
GREEDY_FLIPS = 200  # the weak predecessor search gives up after this many flips

Board = tuple[int, ...]  # one int per row, bit j = column j (1 = alive)


@dataclass(frozen=True)
class LifeKnobs(Knobs):
    size: int = knob(6, low=3, high=16, help="board size n (n x n)")
    mode: str = knob(
        "forward", choices=MODES, help="forward: state after k steps; predecessor: a state before"
    )
    steps: int = knob(1, low=1, high=12, help="generations to simulate (forward mode)")
    density: float = knob(0.35, low=0.05, high=0.95, help="share of live cells in the random start")
    reject_easy: bool = knob(False, help="predecessor mode: redraw boards the weak local search solves")

    def validate(self) -> None:
        if self.mode == "predecessor" and self.steps != 1:
            raise ValueError("predecessor mode asks for one step back: steps must be 1")


LEVELS = {
    1: LifeKnobs(size=5, steps=1),
    2: LifeKnobs(size=6, steps=2),
    3: LifeKnobs(size=7, steps=2),
    4: LifeKnobs(size=8, steps=3),
    5: LifeKnobs(size=10, steps=3),
    6: LifeKnobs(size=10, steps=4),
    7: LifeKnobs(size=6, mode="predecessor", reject_easy=True),
    8: LifeKnobs(size=7, mode="predecessor", reject_easy=True),
    9: LifeKnobs(size=8, mode="predecessor", reject_easy=True),
    10: LifeKnobs(size=9, mode="predecessor", reject_easy=True),
}


# --------------------------------------------------------------------------------------------
# The rules on row bitmasks
# --------------------------------------------------------------------------------------------


def step_row(above: int, row: int, below: int, full: int) -> int:
    """The next generation of ``row`` from its neighbours, by bit-sliced counting (B3/S23)."""
    neighbours = (
        (above << 1) & full, above, above >> 1,
        (row << 1) & full, row >> 1,
        (below << 1) & full, below, below >> 1,
    )  # fmt: skip
    ones = twos = fours = 0  # the count in binary; `fours` stays set from 4 on (dies either way)
    for mask in neighbours:
        carry = ones & mask
        ones ^= mask
        carry2 = twos & carry
        twos ^= carry
        fours |= carry2
    three = ones & twos & ~fours
    two = ~ones & twos & ~fours
    return (three | (two & row)) & full


def step(board: Board, n: int) -> Board:
    full = (1 << n) - 1
    padded = (0, *board, 0)
    return tuple(step_row(padded[r], padded[r + 1], padded[r + 2], full) for r in range(n))


def random_board(n: int, density: float, rng: np.random.Generator) -> Board:
    alive = rng.random((n, n)) < density
    return tuple(sum(1 << c for c in range(n) if alive[r, c]) for r in range(n))


@lru_cache(maxsize=1)
def _window_counts() -> tuple[int, ...]:
    return tuple(bin(w).count("1") for w in range(8))


def find_predecessor(target: Board, n: int) -> tuple[Board | None, int]:
    """A board whose next generation is ``target``, by depth-first search cell by cell.

    Cell (r, c) of the target is checked as soon as rows r-1..r+1 are known at columns c-1..c+1,
    i.e. right after cell (r+1, c+1) is assigned. Row pairs (previous, current) from which no
    completion exists are memoised per row. Returns (board or None, cells assigned)."""
    counts = _window_counts()
    rows = [0] * (n + 2)  # rows[0] and rows[n + 1] are the dead border
    dead_ends: list[set[tuple[int, int]]] = [set() for _ in range(n + 2)]
    assigned = 0

    def cell_ok(r: int, c: int) -> bool:
        """Whether target cell (r, c) (0-based) comes out right; rows r-1..r+1 known near c."""
        shift = c - 1
        if shift >= 0:
            a, b, d = rows[r] >> shift & 7, rows[r + 1] >> shift & 7, rows[r + 2] >> shift & 7
        else:
            a, b, d = rows[r] << 1 & 7, rows[r + 1] << 1 & 7, rows[r + 2] << 1 & 7
        total = counts[a] + counts[d] + counts[b & 5]
        alive = b >> 1 & 1
        nxt = 1 if total == 3 or (total == 2 and alive) else 0
        return nxt == (target[r] >> c & 1)

    def fill(r: int, c: int) -> bool:
        """Assign cell (r, c) of the predecessor (board row r = rows[r + 1]), then the rest."""
        nonlocal assigned
        if c == n:
            # row r finished: its upper neighbour row r - 1 is fully checked once the end is
            if r >= 1 and not cell_ok(r - 1, n - 1):
                return False
            key = (rows[r], rows[r + 1])
            if key in dead_ends[r + 1]:
                return False
            if r == n - 1:
                if all(cell_ok(n - 1, j) for j in range(n)):  # the last row, with dead below
                    return True
            elif fill(r + 1, 0):
                return True
            dead_ends[r + 1].add(key)
            return False
        for value in (0, 1):
            assigned += 1
            rows[r + 1] = rows[r + 1] & ~(1 << c) | (value << c)
            if r >= 1 and c >= 1 and not cell_ok(r - 1, c - 1):
                continue
            if fill(r, c + 1):
                return True
        rows[r + 1] &= ~(1 << c)
        return False

    found = fill(0, 0)
    return (tuple(rows[1 : n + 1]) if found else None), assigned


def greedy_predecessor(target: Board, n: int, budget: int = GREEDY_FLIPS) -> Board | None:
    """The weak solver: start from the target itself and flip, one at a time, the cell that most
    lowers the number of wrong cells of the next generation (first such cell on ties)."""
    board = list(target)

    def wrong(b: list[int]) -> int:
        return sum(bin(x ^ t).count("1") for x, t in zip(step(tuple(b), n), target, strict=True))

    errors = wrong(board)
    for _ in range(budget):
        if errors == 0:
            return tuple(board)
        best, best_cell = errors, None
        for r in range(n):
            for c in range(n):
                board[r] ^= 1 << c
                e = wrong(board)
                board[r] ^= 1 << c
                if e < best:
                    best, best_cell = e, (r, c)
        if best_cell is None:
            return None
        board[best_cell[0]] ^= 1 << best_cell[1]
        errors = best
    return tuple(board) if errors == 0 else None


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


def render(board: Board, n: int) -> str:
    return "\n".join("".join(ALIVE if row >> c & 1 else DEAD for c in range(n)) for row in board)


def from_rows(rows: list[list[int]]) -> Board:
    return tuple(sum(v << c for c, v in enumerate(row)) for row in rows)


def canonical_hash(board: Board, n: int, mode: str, steps: int) -> str:
    """Least form of the board under the 8 symmetries of the square (the rules are symmetric)."""
    grid = [[row >> c & 1 for c in range(n)] for row in board]
    forms = []
    for _ in range(4):
        grid = [list(col) for col in zip(*grid[::-1], strict=True)]
        forms.append(grid)
        forms.append([row[::-1] for row in grid])
    return content_hash({"life": mode, "steps": steps, "board": min(forms)})


FORWARD_PROMPT = """Conway's Game of Life on a {n}x{n} board (# = live cell, . = dead cell):

{board}

Rules, applied to every cell at once in each generation: a live cell with 2 or 3 live \
neighbours stays alive, otherwise it dies; a dead cell with exactly 3 live neighbours becomes \
alive. Neighbours are the 8 surrounding cells. The board does not extend: cells outside it are \
dead and never come alive.

What is the board after {steps} generation{s}? Give it inside <answer>...</answer> as {n} lines \
of {n} characters (# live, . dead; 1 and 0 are also read), for example on a 3x3 board (format \
only):
<answer>
.#.
.#.
.#.
</answer>"""

PREDECESSOR_PROMPT = """Conway's Game of Life on a {n}x{n} board (# = live cell, . = dead cell). \
This is the board after one generation:

{board}

Rules, applied to every cell at once: a live cell with 2 or 3 live neighbours stays alive, \
otherwise it dies; a dead cell with exactly 3 live neighbours becomes alive. Neighbours are the \
8 surrounding cells. The board does not extend: cells outside it are dead and never come alive.

Find a {n}x{n} board that turns into the board above after exactly one generation. Such a \
board exists; any one that works is accepted. Give it inside <answer>...</answer> as {n} lines \
of {n} characters (# live, . dead; 1 and 0 are also read), for example on a 3x3 board (format \
only):
<answer>
...
###
...
</answer>"""


@family(
    "game_of_life",
    domain="puzzles",
    knobs=LifeKnobs,
    levels=LEVELS,
    description="Game of Life on a bounded board: the state after k generations, or any predecessor (checked by simulation).",
    verifier_kind="simulation",
)
class GameOfLife(Family):
    def generate(self, knobs: LifeKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            start = random_board(n, knobs.density, rng)
            draft = (self._forward if knobs.mode == "forward" else self._predecessor)(knobs, start)
            if draft is not None:
                return draft
        raise RuntimeError(f"no game of life board matched {knobs} in {MAX_ATTEMPTS} attempts")

    @staticmethod
    def _forward(knobs: LifeKnobs, start: Board) -> TaskDraft | None:
        n = knobs.size
        history = [start]
        for _ in range(knobs.steps):
            history.append(step(history[-1], n))
        final = history[-1]
        if not any(final) or final in history[:-1]:
            return None  # died out, or settled/cycled before the last step
        return TaskDraft(
            prompt=FORWARD_PROMPT.format(
                n=n, board=render(start, n), steps=knobs.steps, s="s" if knobs.steps > 1 else ""
            ),
            answer=render(final, n),
            metadata={
                "size": n,
                "mode": "forward",
                "steps": knobs.steps,
                "board": render(start, n).split("\n"),
                "live_cells": sum(bin(row).count("1") for row in final),
                "canonical_hash": canonical_hash(start, n, "forward", knobs.steps),
            },
        )

    @staticmethod
    def _predecessor(knobs: LifeKnobs, start: Board) -> TaskDraft | None:
        n = knobs.size
        target = step(start, n)
        if sum(bin(row).count("1") for row in target) < n or step(target, n) == target:
            return None  # sparse (few distinct boards: duplicates) or a still life (itself)
        if knobs.reject_easy and greedy_predecessor(target, n) is not None:
            return None
        return TaskDraft(
            prompt=PREDECESSOR_PROMPT.format(n=n, board=render(target, n)),
            answer=render(start, n),  # a predecessor by construction; the search is the solver's
            metadata={
                "size": n,
                "mode": "predecessor",
                "steps": 1,
                "board": render(target, n).split("\n"),
                "canonical_hash": canonical_hash(target, n, "predecessor", 1),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, board = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, error = read_binary_grid(extraction.text, n, n, on="#1", off=".0")
        if rows is None:
            return Verdict.bad_format(error)
        submitted = from_rows(rows)
        if task.metadata["mode"] == "forward":
            expected = board
            for _ in range(int(task.metadata["steps"])):
                expected = step(expected, n)
            return _compare(submitted, expected, n, "the board after the last generation", rows)
        return _compare(step(submitted, n), board, n, "the next generation of your board", rows)

    def solve_exact(self, task: Task) -> SolverRun:
        """Forward: simulation (effort n^2 k); predecessor: depth-first search (effort: cells assigned)."""
        n, board = _unpack(task)
        if task.metadata["mode"] == "forward":
            steps = int(task.metadata["steps"])
            for _ in range(steps):
                board = step(board, n)
            return SolverRun(f"<answer>\n{render(board, n)}\n</answer>", float(n * n * steps))
        found, assigned = find_predecessor(board, n)
        return SolverRun(
            None if found is None else f"<answer>\n{render(found, n)}\n</answer>", float(assigned)
        )

    def solve_weak(self, task: Task) -> SolverRun:
        """Forward: one generation, then assume the board stays still; predecessor: greedy cell flips."""
        n, board = _unpack(task)
        if task.metadata["mode"] == "forward":
            guess: Board | None = step(board, n)
        else:
            guess = greedy_predecessor(board, n)
        return SolverRun(None if guess is None else f"<answer>\n{render(guess, n)}\n</answer>", 1.0)

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, board = _unpack(task)
        answer = [list(line) for line in task.answer.split("\n")]
        out = []
        for _ in range(3):  # one cell flipped (for a predecessor this may still work: filtered)
            flipped = [list(row) for row in answer]
            r, c = int(rng.integers(n)), int(rng.integers(n))
            flipped[r][c] = ALIVE if flipped[r][c] == DEAD else DEAD
            out.append("\n".join("".join(row) for row in flipped))
        out.append(render(board, n))  # the given board unchanged
        out.append(render(step(from_rows([[1 if ch == ALIVE else 0 for ch in row] for row in answer]), n), n))
        out.append("\n".join(task.answer.split("\n")[:-1]))  # a row missing
        responses = [f"<answer>\n{text}\n</answer>" for text in dict.fromkeys(out) if text]
        return [r for r in responses if not self.verify(task, r).correct]


def _compare(got: Board, expected: Board, n: int, what: str, rows: list[list[int]]) -> Verdict:
    for r in range(n):
        diff = got[r] ^ expected[r]
        if diff:
            c = (diff & -diff).bit_length() - 1
            state = "live" if got[r] >> c & 1 else "dead"
            return Verdict.wrong(f"{what} is wrong at row {r + 1}, column {c + 1} ({state})", parsed=rows)
    return Verdict.right(parsed=rows)


_AS_BITS = str.maketrans({ALIVE: "1", DEAD: "0"})


def _unpack(task: Task) -> tuple[int, Board]:
    n = int(task.metadata["size"])
    lines = task.metadata["board"]
    bits = [line[::-1].translate(_AS_BITS) for line in lines]  # cell c is bit c: read backwards
    if all(not b.strip("01") for b in bits):  # ALIVE and DEAD only (as generated): plain binary
        return n, tuple(int(b, 2) if b else 0 for b in bits)
    return n, from_rows([[1 if ch == ALIVE else 0 for ch in line] for line in lines])
