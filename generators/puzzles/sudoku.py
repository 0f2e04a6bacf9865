"""Classic sudoku (4x4, 6x6, 9x9) with proven-unique solutions, graded by technique tier.

A random complete grid is drawn, then cells are removed in random order; a removal is kept only
while the puzzle stays inside the target tier:

* tiers 1-3: the logical solver limited to that tier still completes the puzzle (its
  deductions are sound, so completion proves the solution unique);
* tier 4: the exact bitmask solver still finds exactly one solution (it counts up to 2).

The finished puzzle's tier is the hardest technique the simplest-first logical solver needs
(1 naked singles, 2 hidden singles, 3 locked candidates and naked/hidden pairs, 4 none suffices:
search is needed); a draw whose tier misses the target is discarded. Difficulty therefore comes
from the techniques and the exact solver's search nodes, not from the hole count.

4x4 puzzles are always solvable by naked singles and 6x6 ones almost never need more than hidden
singles, so ``validate`` allows tier 1 for 4x4, tiers 1-2 for 6x6 and tiers 1-4 for 9x9.

Speed (CPU time of one core; the shared machine's wall clock runs 3-10x slower under load):
level 1 ~1400 tasks/s, level 5 (9x9 tier 2, >= 28 givens) ~170/s, level 10 ~6/s. Tier 4 (levels
8-10) inherently costs more: only about one random minimal puzzle in four needs search, every
removal while digging it costs a uniqueness proof by search, and levels 9-10 also reject puzzles
below a node count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_digit_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from ._latin import (
    Geometry,
    count_solutions,
    dig,
    grid_symmetries,
    grid_text,
    logical_solve,
    puzzle_tier,
    random_solution,
    relabel_first_seen,
    sudoku_geometry,
    to_rows,
)

BOX_SHAPES = {4: (2, 2), 6: (2, 3), 9: (3, 3)}
MAX_TIER_FOR_SIZE = {4: 1, 6: 2, 9: 4}
TIER_NAMES = {
    1: "naked singles",
    2: "hidden singles",
    3: "locked candidates and naked/hidden pairs",
    4: "search (no tier-3 technique suffices)",
}
MAX_ATTEMPTS = 400


@dataclass(frozen=True)
class SudokuKnobs(Knobs):
    size: int = knob(4, choices=(4, 6, 9), help="grid size: 4 (2x2 boxes), 6 (2x3 boxes) or 9 (3x3 boxes)")
    tier: int = knob(
        1,
        low=1,
        high=4,
        help="technique tier the puzzle needs: 1 naked singles, 2 hidden singles, "
        "3 locked candidates/pairs, 4 search",
    )
    min_givens: int = knob(
        0, low=0, high=81, help="stop removing cells at this many givens (0: dig to a minimal puzzle)"
    )
    min_nodes: int = knob(
        0, low=0, high=100_000, help="reject puzzles whose exact solver needs fewer search nodes"
    )
    symmetric: bool = knob(False, help="givens symmetric under a half turn (cells removed in pairs)")

    def validate(self) -> None:
        if self.tier > MAX_TIER_FOR_SIZE[self.size]:
            raise ValueError(
                f"size {self.size} supports tiers up to {MAX_TIER_FOR_SIZE[self.size]}, got tier {self.tier}"
            )
        if self.min_givens > self.size * self.size:
            raise ValueError(f"min_givens {self.min_givens} exceeds the {self.size * self.size} cells")


LEVELS = {
    1: SudokuKnobs(size=4, tier=1, min_givens=6),
    2: SudokuKnobs(size=6, tier=1),
    3: SudokuKnobs(size=6, tier=2),
    4: SudokuKnobs(size=9, tier=2, min_givens=32),
    5: SudokuKnobs(size=9, tier=2, min_givens=28),
    6: SudokuKnobs(size=9, tier=2),
    7: SudokuKnobs(size=9, tier=3),
    8: SudokuKnobs(size=9, tier=4),
    9: SudokuKnobs(size=9, tier=4, min_nodes=500),
    10: SudokuKnobs(size=9, tier=4, min_nodes=1000),
}


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def _diagonal_seed(n: int, box_rows: int, box_cols: int, rng: np.random.Generator) -> list[int]:
    """For 9x9: random digits in the three diagonal boxes (they share no row or column; any
    such start completes), which the random fill then completes in fewer nodes."""
    grid = [0] * (n * n)
    if box_rows != 3 or box_cols != 3:
        return grid  # smaller grids fill fast anyway (and a 4x4 diagonal may not complete)
    for i in range(3):
        digits = (rng.permutation(n) + 1).tolist()
        for k, (r, c) in enumerate((r, c) for r in range(box_rows) for c in range(box_cols)):
            grid[(i * box_rows + r) * n + i * box_cols + c] = digits[k]
    return grid


def canonical_hash(puzzle: list[int], n: int, box_rows: int, box_cols: int) -> str:
    """Hash of the least form of the givens under grid symmetries and digit relabelling."""
    best = min(
        relabel_first_seen([puzzle[i] for i in perm]) for perm in grid_symmetries(n, box_rows, box_cols)
    )
    return content_hash({"sudoku": n, "box": [box_rows, box_cols], "givens": list(best)})


# --------------------------------------------------------------------------------------------
# Prompt and answers
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} sudoku. Fill every empty cell (shown as .) with a digit from 1 to {n} \
so that each row, each column and each of the {n} boxes of {br}x{bc} cells (outlined below) \
contains every digit from 1 to {n} exactly once. The puzzle has exactly one solution.

{board}

Give the completed grid inside <answer>...</answer>: {n} lines, one per row, each with the {n} \
digits of that row (spaces or | between digits are allowed). Format example only (a 4x4 grid, \
not the solution):
<answer>
{example}
</answer>"""

_FORMAT_EXAMPLES = ("1234\n3412\n2143\n4321", "2143\n4321\n1234\n3412")


def render_board(puzzle: list[int], n: int, box_rows: int, box_cols: int) -> str:
    """The grid with | between boxes and a ---+--- rule between bands of boxes."""
    rule = "-+-".join("-" * (2 * box_cols - 1) for _ in range(n // box_cols))
    lines = []
    for r in range(n):
        if r and r % box_rows == 0:
            lines.append(rule)
        row = puzzle[r * n : (r + 1) * n]
        chunks = [
            " ".join(str(v) if v else "." for v in row[b : b + box_cols]) for b in range(0, n, box_cols)
        ]
        lines.append(" | ".join(chunks))
    return "\n".join(lines)


@family(
    "sudoku",
    domain="puzzles",
    knobs=SudokuKnobs,
    levels=LEVELS,
    description="Classic sudoku (4x4, 6x6, 9x9) with a proven-unique solution, graded by technique tier.",
    verifier_kind="constraint check",
)
class Sudoku(Family):
    def generate(self, knobs: SudokuKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        box_rows, box_cols = BOX_SHAPES[n]
        geo = sudoku_geometry(n, box_rows, box_cols)
        for _ in range(MAX_ATTEMPTS):
            solution = random_solution(geo, rng, _diagonal_seed(n, box_rows, box_cols, rng))
            puzzle = dig(
                geo, solution, rng, tier=knobs.tier, min_givens=knobs.min_givens, symmetric=knobs.symmetric
            )
            tier, steps = puzzle_tier(geo, puzzle)
            if tier != knobs.tier:
                continue
            proof = count_solutions(geo, puzzle, 2)
            if proof.count != 1:  # unreachable for sound logic; kept as the uniqueness proof
                continue
            if proof.nodes < knobs.min_nodes:
                continue
            return self._draft(puzzle, solution, n, box_rows, box_cols, tier, steps, proof.nodes)
        raise RuntimeError(f"no sudoku matched {knobs} in {MAX_ATTEMPTS} attempts")

    def _draft(
        self, puzzle: list[int], solution: list[int], n: int, box_rows: int, box_cols: int, *hardness: int
    ) -> TaskDraft:
        tier, steps, nodes = hardness
        example = next(e for e in _FORMAT_EXAMPLES if e != grid_text(solution, n))
        prompt = PROMPT.format(
            n=n, br=box_rows, bc=box_cols, board=render_board(puzzle, n, box_rows, box_cols), example=example
        )
        return TaskDraft(
            prompt=prompt,
            answer=grid_text(solution, n),
            metadata={
                "size": n,
                "box": [box_rows, box_cols],
                "givens": to_rows(puzzle, n),
                "num_givens": sum(1 for v in puzzle if v),
                "tier": tier,
                "technique": TIER_NAMES[tier],
                "logical_steps": steps,
                "nodes": nodes,
                "solutions": 1,
                "canonical_hash": canonical_hash(puzzle, n, box_rows, box_cols),
            },
        )

    # ---------------------------------------------------------------- verification

    def verify(self, task: Task, response: str) -> Verdict:
        meta = task.metadata
        n = int(meta["size"])
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, error = read_digit_grid(extraction.text, n)
        if rows is None:
            return Verdict.bad_format(error)
        cells = [v for row in rows for v in row]
        for i, v in enumerate(cells):
            if not 1 <= v <= n:
                return Verdict.wrong(f"cell r{i // n + 1}c{i % n + 1} holds {v}, not a digit 1..{n}", rows)
        givens = [v for row in meta["givens"] for v in row]
        for i, (v, g) in enumerate(zip(cells, givens, strict=True)):
            if g and v != g:
                return Verdict.wrong(f"cell r{i // n + 1}c{i % n + 1} is given as {g}, answer has {v}", rows)
        geo = sudoku_geometry(n, *meta["box"])
        for index, unit in enumerate(geo.units):
            if len({cells[c] for c in unit}) != n:
                return Verdict.wrong(f"{_unit_name(index, n)} repeats a digit", rows)
        return Verdict.right(parsed=rows)

    # ---------------------------------------------------------------- solvers

    def solve_exact(self, task: Task) -> SolverRun:
        n, geo, puzzle = _task_geometry(task)
        result = count_solutions(geo, puzzle, 2)
        if result.solution is None:
            return SolverRun(response=None, effort=float(result.nodes))
        return SolverRun(
            response=f"<answer>\n{grid_text(result.solution, n)}\n</answer>", effort=float(result.nodes)
        )

    def solve_weak(self, task: Task) -> SolverRun:
        # singles only (naked and hidden): gives up when no single is left
        n, geo, puzzle = _task_geometry(task)
        result = logical_solve(geo, puzzle, 2)
        response = f"<answer>\n{grid_text(result.grid, n)}\n</answer>" if result.solved else None
        return SolverRun(response=response, effort=float(result.steps))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n = int(task.metadata["size"])
        solution = [int(ch) for ch in task.answer.replace("\n", "")]
        givens = [v for row in task.metadata["givens"] for v in row]
        free = [i for i, g in enumerate(givens) if not g]
        given = [i for i, g in enumerate(givens) if g]
        out = []
        # one free cell changed to another digit
        cell = free[int(rng.integers(len(free)))]
        changed = list(solution)
        changed[cell] = changed[cell] % n + 1
        out.append(changed)
        # two cells of one row swapped (free cells where possible: the rules break, givens hold)
        row = int(rng.integers(n))
        pair = [i for i in range(row * n, row * n + n) if not givens[i]][:2]
        if len(pair) < 2:
            pair = [row * n, row * n + 1]
        swapped = list(solution)
        swapped[pair[0]], swapped[pair[1]] = swapped[pair[1]], swapped[pair[0]]
        out.append(swapped)
        # a given altered
        cell = given[int(rng.integers(len(given)))]
        altered = list(solution)
        altered[cell] = altered[cell] % n + 1
        out.append(altered)
        responses = [f"<answer>\n{grid_text(g, n)}\n</answer>" for g in out]
        # wrong size: the last row dropped, and an extra row
        rows = task.answer.split("\n")
        responses.append("<answer>\n" + "\n".join(rows[:-1]) + "\n</answer>")
        responses.append("<answer>\n" + "\n".join(rows + [rows[0]]) + "\n</answer>")
        return responses


def _task_geometry(task: Task) -> tuple[int, Geometry, list[int]]:
    n = int(task.metadata["size"])
    geo = sudoku_geometry(n, *task.metadata["box"])
    return n, geo, [v for row in task.metadata["givens"] for v in row]


def _unit_name(index: int, n: int) -> str:
    if index < n:
        return f"row {index + 1}"
    if index < 2 * n:
        return f"column {index - n + 1}"
    return f"box {index - 2 * n + 1}"
