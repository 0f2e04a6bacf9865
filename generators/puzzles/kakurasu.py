"""Kakurasu: shade cells of an n x n grid so that, in every row, the column numbers (1..n, left
to right) of the shaded cells add up to the row's clue, and in every column the row numbers
(1..n, top to bottom) of its shaded cells add up to the column's clue.

Generation: a random grid (each cell shaded with probability one half); its 2n clues are read
off, and the draw is kept only if its solution is unique. Clues are then removed in random
order while the solution stays unique (down to ``min_clues``; an unclued line allows any
pattern). Uniqueness is proven by the exact solver (``_lines.LineSolver``): every row and
column keeps the subsets of positions whose weights add up to its clue and agree with the
known cells (line arc consistency); the search branches on a cell of the line with fewest
subsets left and counts solutions up to 2. Effort = subsets the exact solver examined (``work``); ``nodes`` = its
search nodes.

The weak solver is the textbook bound rule, line by line, without search: with R still to
reach in a line, a cell weighing more than R is blank, and a cell without which the open cells
cannot reach R is shaded. Levels >= 3 reject puzzles it solves.

Speed (CPU time of one core, mean over seeds 0-29, ``benchmarks/generation.py``): level 1
~4,700 tasks/s, level 5 ~470/s, level 10 ~11/s. Level 10 (9x9, clues removed down to 15) runs
one uniqueness search per removal attempt, and with few clues each search examines tens of
thousands of subsets (mean exact effort 55,600 at level 10).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_binary_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from ._lines import LineSolver

MAX_ATTEMPTS = 2000
MAX_CHARS = 5000
_SHADED = set("#1Xx■█")
_BLANK = set(".0-_·□")


@dataclass(frozen=True)
class KakurasuKnobs(Knobs):
    size: int = knob(4, low=3, high=10, help="grid size n (weights 1..n)")
    min_clues: int = knob(
        20, low=0, high=20, help="stop removing row/column clues at this many (2n or more: keep all)"
    )
    allow_easy: bool = knob(True, help="accept puzzles the line-by-line bound rule solves (False: reject)")


LEVELS = {
    1: KakurasuKnobs(size=4),
    2: KakurasuKnobs(size=5),
    3: KakurasuKnobs(size=6, allow_easy=False),
    4: KakurasuKnobs(size=7, allow_easy=False),
    5: KakurasuKnobs(size=6, min_clues=0, allow_easy=False),
    6: KakurasuKnobs(size=8, allow_easy=False),
    7: KakurasuKnobs(size=7, min_clues=0, allow_easy=False),
    8: KakurasuKnobs(size=9, allow_easy=False),
    9: KakurasuKnobs(size=8, min_clues=0, allow_easy=False),
    10: KakurasuKnobs(size=9, min_clues=15, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Clues and the solvers
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def patterns(n: int, clue: int) -> tuple[int, ...]:
    """The subsets of positions 0..n-1 (bitmasks) whose weights (position + 1) add up to
    ``clue``; a clue of 0 means "no clue" and allows every subset (generation never makes an
    empty line, whose true sum would be 0)."""
    if clue == 0:
        return tuple(range(1 << n))
    return tuple(m for m in range(1 << n) if sum(i + 1 for i in range(n) if m >> i & 1) == clue)


def clues_of(cells: list[int], n: int) -> tuple[list[int], list[int]]:
    """The row sums (column numbers of shaded cells) and column sums (row numbers)."""
    rows = [sum(c + 1 for c in range(n) if cells[r * n + c]) for r in range(n)]
    cols = [sum(r + 1 for r in range(n) if cells[r * n + c]) for c in range(n)]
    return rows, cols


def solver(n: int, rows: list[int], cols: list[int]) -> LineSolver:
    # the cached pattern tuples are shared, not copied: the solver replaces a line's patterns
    return LineSolver(n, n, [patterns(n, s) for s in rows] + [patterns(n, s) for s in cols])


def solve(n: int, rows: list[int], cols: list[int], limit: int = 2) -> LineSolver:
    return solver(n, rows, cols).search(limit)


def weak_solve(n: int, rows: list[int], cols: list[int]) -> tuple[list[int] | None, int]:
    """The bound rule line by line (see the module docstring); ``None`` when stuck."""
    grid = [-1] * (n * n)
    lines = [([r * n + c for c in range(n)], rows[r]) for r in range(n) if rows[r]]
    lines += [([r * n + c for r in range(n)], cols[c]) for c in range(n) if cols[c]]
    steps = 0
    progress = True
    while progress:
        progress = False
        steps += 1
        for cells, clue in lines:
            left = clue - sum(i + 1 for i, c in enumerate(cells) if grid[c] == 1)
            open_weights = [(i + 1, c) for i, c in enumerate(cells) if grid[c] < 0]
            room = sum(w for w, _ in open_weights)
            if left < 0 or left > room:
                return None, steps
            for w, c in open_weights:
                if w > left:
                    grid[c] = 0
                    progress = True
                elif room - w < left:
                    grid[c] = 1
                    progress = True
                    left -= w
                    room -= w
    if -1 in grid:
        return None, steps
    return grid, steps


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} kakurasu puzzle. Shade some cells of the grid. Columns are numbered \
1 to {n} from left to right and rows 1 to {n} from top to bottom. The clue of a row is the sum \
of the column numbers of its shaded cells; the clue of a column is the sum of the row numbers of \
its shaded cells. A line marked "-" has no clue (any shading is allowed there). The puzzle has \
exactly one solution.

Row clues (top to bottom): {row_text}
Column clues (left to right): {col_text}

Give the grid inside <answer>...</answer>: {n} lines, one per row, each with {n} characters, \
# for a shaded cell and . for an unshaded one (1 and 0 are also accepted). Format example only \
(a 3x3 grid, not a solution of this puzzle):
<answer>
#.#
.#.
##.
</answer>"""


def canonical_hash(n: int, rows: list[int], cols: list[int]) -> str:
    """Weights run left to right and top to bottom, so the only symmetry is the transpose."""
    return content_hash({"kakurasu": n, "form": min((rows, cols), (cols, rows))})


def _clue_text(clues: list[int]) -> str:
    return " ".join(str(v) if v else "-" for v in clues)


def picture(cells: list[int], n: int) -> str:
    return "\n".join("".join("#" if cells[r * n + c] else "." for c in range(n)) for r in range(n))


@family(
    "kakurasu",
    domain="puzzles",
    knobs=KakurasuKnobs,
    levels=LEVELS,
    description="Kakurasu (weighted row/column sums of shaded cells, 4x4 to 10x10), unique solution proven.",
    verifier_kind="constraint check",
)
class Kakurasu(Family):
    def generate(self, knobs: KakurasuKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            cells = (rng.random(n * n) < 0.5).astype(int).tolist()
            rows, cols = clues_of(cells, n)
            if 0 in rows or 0 in cols:
                continue  # an empty line would need a clue of 0, which reads as "no clue"
            proof = solve(n, rows, cols)
            if proof.count != 1:
                continue
            rows, cols = self._dig(n, rows, cols, knobs.min_clues, rng)
            proof = solve(n, rows, cols)
            if not knobs.allow_easy and weak_solve(n, rows, cols)[0] is not None:
                continue  # degenerate: the bound rule alone solves it
            return self._draft(n, rows, cols, cells, proof)
        raise RuntimeError(f"no kakurasu puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    @staticmethod
    def _dig(n: int, rows: list[int], cols: list[int], min_clues: int, rng) -> tuple[list[int], list[int]]:
        """Remove clues in random order while the solution stays unique."""
        clues = rows + cols
        shown = 2 * n
        for k in rng.permutation(2 * n).tolist():
            if shown <= min_clues:
                break
            trial = list(clues)
            trial[k] = 0
            if solve(n, trial[:n], trial[n:]).count == 1:
                clues, shown = trial, shown - 1
        return clues[:n], clues[n:]

    def _draft(self, n, rows, cols, cells, proof) -> TaskDraft:
        return TaskDraft(
            prompt=PROMPT.format(n=n, row_text=_clue_text(rows), col_text=_clue_text(cols)),
            answer=picture(cells, n),
            metadata={
                "size": n,
                "rows": rows,
                "cols": cols,
                "num_clues": sum(1 for v in rows + cols if v),
                "nodes": proof.nodes,
                "work": proof.work,
                "solutions": 1,
                "canonical_hash": canonical_hash(n, rows, cols),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, rows, cols = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        grid, error = read_binary_grid(extraction.text, n, n, _SHADED, _BLANK, max_chars=MAX_CHARS)
        if grid is None:
            return Verdict.bad_format(error)
        cells = [v for row in grid for v in row]
        got_rows, got_cols = clues_of(cells, n)
        for r in range(n):
            if rows[r] and got_rows[r] != rows[r]:
                return Verdict.wrong(f"row {r + 1} adds up to {got_rows[r]}, not {rows[r]}", grid)
        for c in range(n):
            if cols[c] and got_cols[c] != cols[c]:
                return Verdict.wrong(f"column {c + 1} adds up to {got_cols[c]}, not {cols[c]}", grid)
        return Verdict.right(parsed=grid)

    def solve_exact(self, task: Task) -> SolverRun:
        """Line arc consistency over each line's weighted subsets, then branching (effort:
        subsets examined)."""
        n, rows, cols = _unpack(task)
        search = solve(n, rows, cols)
        if not search.solutions:
            return SolverRun(None, float(search.work))
        return SolverRun(f"<answer>\n{picture(search.solutions[0], n)}\n</answer>", float(search.work))

    def solve_weak(self, task: Task) -> SolverRun:
        """The bound rule line by line (too heavy: blank; indispensable: shaded); no search."""
        n, rows, cols = _unpack(task)
        grid, steps = weak_solve(n, rows, cols)
        return SolverRun(None if grid is None else f"<answer>\n{picture(grid, n)}\n</answer>", float(steps))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n = int(task.metadata["size"])
        cells = [1 if ch == "#" else 0 for ch in task.answer.replace("\n", "")]
        out = []
        for cell in rng.permutation(n * n)[:2].tolist():  # one cell flipped (twice, elsewhere)
            flipped = list(cells)
            flipped[cell] ^= 1
            out.append(picture(flipped, n))
        out.append(picture([1 - v for v in cells], n))  # the negative
        shifted = cells[n:] + cells[:n]  # rows moved up by one
        if shifted != cells:
            out.append(picture(shifted, n))
        return [f"<answer>\n{g}\n</answer>" for g in out]


def _unpack(task: Task) -> tuple[int, list[int], list[int]]:
    meta = task.metadata
    return int(meta["size"]), [int(v) for v in meta["rows"]], [int(v) for v in meta["cols"]]
