"""Kakuro: fill the white cells with digits 1-9 so that every run (a maximal horizontal or
vertical line of white cells) adds up to its clue and repeats no digit.

Generation: a random block pattern (white cells kept only where both their across and down runs
have at least 2 cells, the white cells connected); a random digit fill that repeats no digit in
a run; the run sums are read off. An exact solver (``_sums.SumPuzzle``: propagation of singles
and run digit-combinations, then branching) counts solutions up to 2; while there are two, the
fill is redrawn a few times and then a cell where the solutions differ is revealed as a given
(up to ``max_givens``). Random fills are rarely pinned down by their sums alone (a 9x9 grid
typically needs 10-15 revealed cells), so the given digits are part of this family's design and
``max_givens`` is a difficulty knob. Draws whose check needs more than ``NODE_BUDGET`` nodes are
redrawn.
Effort = values the exact solver placed (propagated or branched); ``nodes`` are in the metadata.

Speed (CPU time of one core; the shared machine's wall clock runs 3-10x slower under load):
level 1 ~550 tasks/s, level 5 (6x6) ~90/s, level 10 (9x9) ~5/s: each revealed cell costs a
fresh uniqueness proof by search (10-15 of them on 9x9).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import MAX_GRID_CHARS
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.constraints import read_grid
from palaestra.verifiers.extract import extract_answer

from ._sums import SumPuzzle, combos

MAX_ATTEMPTS = 400
NODE_BUDGET = 300
REFILLS = 1
BLACK_MARKS = set("#*xX")


@dataclass(frozen=True)
class KakuroKnobs(Knobs):
    rows: int = knob(4, low=3, high=10, help="rows of the playing grid")
    cols: int = knob(4, low=3, high=10, help="columns of the playing grid")
    density: float = knob(0.2, low=0.0, high=0.5, help="probability that a cell starts as a block")
    max_givens: int = knob(4, low=0, high=40, help="most cells revealed to make the solution unique")
    min_nodes: int = knob(0, low=0, high=1000, help="reject puzzles the exact solver decides in fewer nodes")
    allow_easy: bool = knob(True, help="accept puzzles that unique run combinations and singles alone solve")


LEVELS = {
    1: KakuroKnobs(rows=3, cols=3, density=0.0, max_givens=4),
    2: KakuroKnobs(rows=4, cols=4, density=0.15, max_givens=5),
    3: KakuroKnobs(rows=5, cols=5, density=0.2, max_givens=8, allow_easy=False),
    4: KakuroKnobs(rows=5, cols=5, density=0.2, max_givens=6, allow_easy=False),
    5: KakuroKnobs(rows=6, cols=6, density=0.3, max_givens=8, allow_easy=False),
    6: KakuroKnobs(rows=6, cols=6, density=0.25, max_givens=8, allow_easy=False),
    7: KakuroKnobs(rows=7, cols=7, density=0.3, max_givens=12, allow_easy=False),
    8: KakuroKnobs(rows=8, cols=8, density=0.3, max_givens=14, allow_easy=False),
    9: KakuroKnobs(rows=9, cols=9, density=0.3, max_givens=18, allow_easy=False),
    10: KakuroKnobs(rows=9, cols=9, density=0.25, max_givens=18, min_nodes=2, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Pattern and runs
# --------------------------------------------------------------------------------------------


def runs_of(white: list[list[bool]]) -> list[tuple[str, int, int, list[tuple[int, int]]]]:
    """(direction, row, col of first cell, cells) for every maximal run of white cells."""
    h, w = len(white), len(white[0])
    runs = []
    for r in range(h):
        c = 0
        while c < w:
            if white[r][c]:
                start = c
                while c < w and white[r][c]:
                    c += 1
                runs.append(("across", r, start, [(r, k) for k in range(start, c)]))
            c += 1
    for c in range(w):
        r = 0
        while r < h:
            if white[r][c]:
                start = r
                while r < h and white[r][c]:
                    r += 1
                runs.append(("down", start, c, [(k, c) for k in range(start, r)]))
            r += 1
    return runs


def random_pattern(h: int, w: int, density: float, rng: np.random.Generator) -> list[list[bool]] | None:
    """White cells whose runs all have 2..9 cells, which form one connected area and leave no
    row or column all blocks; None when the draw fails that."""
    white = (rng.random((h, w)) >= density).tolist()
    changed = True
    while changed:
        changed = False
        for _, _, _, cells in runs_of(white):
            if len(cells) == 1:
                r, c = cells[0]
                white[r][c] = False
                changed = True
            elif len(cells) > 9:
                r, c = cells[len(cells) // 2]
                white[r][c] = False
                changed = True
    cells = [(r, c) for r in range(h) for c in range(w) if white[r][c]]
    if len(cells) < max(4, (h * w) // 2):
        return None
    if not all(any(row) for row in white) or not all(any(row[c] for row in white) for c in range(w)):
        return None  # an all-block row or column would only pad the grid
    seen, stack = {cells[0]}, [cells[0]]
    while stack:
        r, c = stack.pop()
        for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= q[0] < h and 0 <= q[1] < w and white[q[0]][q[1]] and q not in seen:
                seen.add(q)
                stack.append(q)
    return white if len(seen) == len(cells) else None


class Board:
    """White cells numbered row-major, runs as index lists, and the solver over them."""

    def __init__(self, white: list[list[bool]]) -> None:
        self.white = white
        self.h, self.w = len(white), len(white[0])
        self.cells = [(r, c) for r in range(self.h) for c in range(self.w) if white[r][c]]
        self.index = {rc: i for i, rc in enumerate(self.cells)}
        self.runs = runs_of(white)
        self.run_cells = [[self.index[rc] for rc in cells] for _, _, _, cells in self.runs]

    def solver(self, sums: list[int] | None) -> SumPuzzle:
        cages = [] if sums is None else list(zip(self.run_cells, sums, strict=True))
        units = self.run_cells if sums is None else []
        return SumPuzzle(len(self.cells), 9, units, cages)


def weak_solve(board: Board, sums: list[int], givens: list[int]) -> tuple[list[int] | None, int]:
    """Each cell starts with the digits its two runs' combinations allow (computed once), then
    naked singles only; ``None`` when stuck."""
    table = combos(9)
    cand = [(1 << (v - 1)) if v else 511 for v in givens]
    run_of: list[list[int]] = [[] for _ in board.cells]
    for k, cells in enumerate(board.run_cells):
        allowed = 0
        for combo in table.get((len(cells), sums[k]), ()):
            allowed |= combo
        for c in cells:
            cand[c] &= allowed
            run_of[c].append(k)
    steps, progress = 0, True
    done = [False] * len(cand)
    while progress:
        progress = False
        steps += 1
        for c, m in enumerate(cand):
            if not m:
                return None, steps
            if not done[c] and not m & (m - 1):
                done[c] = True
                progress = True
                for k in run_of[c]:
                    for p in board.run_cells[k]:
                        if p != c:
                            cand[p] &= ~m
    if all(m and not m & (m - 1) for m in cand):
        return [m.bit_length() for m in cand], steps
    return None, steps


# --------------------------------------------------------------------------------------------
# Prompt and parsing
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this kakuro. The grid has {h} rows and {w} columns; # is a block, . is a white \
cell{given_note}. Fill every white cell with a digit from 1 to 9 so that each run (a maximal \
horizontal or vertical line of white cells) adds up to its clue and contains no repeated digit. \
The puzzle has exactly one solution.

{board}

Across runs (row r, columns a-b: sum):
{across}
Down runs (column c, rows a-b: sum):
{down}

Give the completed grid inside <answer>...</answer>: {h} lines, one per row, with # for each block \
and a digit for each white cell (spaces between cells are allowed). Format example only (a 3x4 \
grid, not a solution of this puzzle):
<answer>
#12#
3456
#78#
</answer>"""


def parse_board(text: str, h: int, w: int) -> tuple[list[list[str]] | None, str]:
    """Rows of cells, each a digit or a block mark (# * x X), by the shared grid reader."""
    return read_grid(text, h, w, set("0123456789") | BLACK_MARKS, max_chars=MAX_GRID_CHARS)


def canonical_hash(board: Board, sums: list[int], givens: dict[tuple[int, int], int]) -> str:
    """Least form under the 8 symmetries of the rectangle (a transpose swaps across and down):
    the runs as (cells, sum) and the givens, sorted."""
    h, w = board.h, board.w
    maps = [
        lambda r, c: (r, c),
        lambda r, c: (h - 1 - r, c),
        lambda r, c: (r, w - 1 - c),
        lambda r, c: (h - 1 - r, w - 1 - c),
        lambda r, c: (c, r),
        lambda r, c: (w - 1 - c, r),
        lambda r, c: (c, h - 1 - r),
        lambda r, c: (w - 1 - c, h - 1 - r),
    ]
    forms = []
    for k, f in enumerate(maps):
        dims = [w, h] if k >= 4 else [h, w]
        runs = sorted(
            [sorted(list(f(r, c)) for r, c in cells), total]
            for (_, _, _, cells), total in zip(board.runs, sums, strict=True)
        )
        gv = sorted([list(f(r, c)), v] for (r, c), v in givens.items())
        forms.append([dims, runs, gv])
    return content_hash({"kakuro": min(forms)})


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------


@family(
    "kakuro",
    domain="puzzles",
    knobs=KakuroKnobs,
    levels=LEVELS,
    description="Kakuro (cross sums, up to 10x10) with a proven-unique solution.",
    verifier_kind="constraint check",
)
class Kakuro(Family):
    def generate(self, knobs: KakuroKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(MAX_ATTEMPTS):
            white = random_pattern(knobs.rows, knobs.cols, knobs.density, rng)
            if white is None:
                continue
            board = Board(white)
            drafted = self._try_board(board, knobs, rng)
            if drafted is not None:
                return drafted
        raise RuntimeError(f"no kakuro matched {knobs} in {MAX_ATTEMPTS} attempts")

    def _try_board(self, board: Board, knobs: KakuroKnobs, rng: np.random.Generator) -> TaskDraft | None:
        m = len(board.cells)
        filler = board.solver(None)
        for refill in range(REFILLS + 1):
            order = rng.permuted(np.tile(np.arange(1, 10), (m, 1)), axis=1).tolist()
            fill = filler.solve([0] * m, 1, order=order, max_nodes=NODE_BUDGET)
            if fill.solution is None:
                return None
            solution = fill.solution
            sums = [sum(solution[i] for i in cells) for cells in board.run_cells]
            solver = board.solver(sums)
            givens = [0] * m
            result = solver.solve(givens, max_nodes=NODE_BUDGET)
            last = refill == REFILLS
            while (
                result.count > 1
                and not result.exhausted
                and last
                and sum(map(bool, givens)) < knobs.max_givens
            ):
                other = next(s for s in result.solutions if s != solution)
                diff = [i for i in range(m) if other[i] != solution[i]]
                cell = diff[int(rng.integers(len(diff)))]
                givens[cell] = solution[cell]
                result = solver.solve(givens, max_nodes=NODE_BUDGET)
            if result.exhausted or result.count != 1 or result.nodes < knobs.min_nodes:
                continue
            if not knobs.allow_easy and weak_solve(board, sums, givens)[0] is not None:
                continue
            return self._draft(board, sums, givens, solution, result)
        return None

    def _draft(self, board: Board, sums, givens, solution, result) -> TaskDraft:
        h, w = board.h, board.w
        given_at = {board.cells[i]: v for i, v in enumerate(givens) if v}
        lines = []
        for r in range(h):
            row = []
            for c in range(w):
                if not board.white[r][c]:
                    row.append("#")
                else:
                    row.append(str(given_at.get((r, c), ".")))
            lines.append(" ".join(row))
        across, down = [], []
        for (direction, r, c, cells), total in zip(board.runs, sums, strict=True):
            if direction == "across":
                across.append(f"row {r + 1}, columns {c + 1}-{cells[-1][1] + 1}: {total}")
            else:
                down.append(f"column {c + 1}, rows {r + 1}-{cells[-1][0] + 1}: {total}")
        answer_rows = []
        value_at = {board.cells[i]: v for i, v in enumerate(solution)}
        for r in range(h):
            answer_rows.append("".join(str(value_at[(r, c)]) if board.white[r][c] else "#" for c in range(w)))
        prompt = PROMPT.format(
            h=h,
            w=w,
            given_note=", a digit is a given white cell" if given_at else "",
            board="\n".join(lines),
            across="\n".join(across),
            down="\n".join(down),
        )
        return TaskDraft(
            prompt=prompt,
            answer="\n".join(answer_rows),
            metadata={
                "rows": h,
                "cols": w,
                "white": [[1 if x else 0 for x in row] for row in board.white],
                "runs": [
                    {"direction": d, "row": r, "col": c, "length": len(cells), "sum": t}
                    for (d, r, c, cells), t in zip(board.runs, sums, strict=True)
                ],
                "givens": [[r, c, v] for (r, c), v in sorted(given_at.items())],
                "num_white": len(board.cells),
                "num_givens": len(given_at),
                "nodes": result.nodes,
                "assignments": result.assignments,
                "solutions": 1,
                "canonical_hash": canonical_hash(board, sums, given_at),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        meta = task.metadata
        h, w = int(meta["rows"]), int(meta["cols"])
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, error = parse_board(extraction.text, h, w)
        if rows is None:
            return Verdict.bad_format(error)
        white = meta["white"]
        for r in range(h):
            for c in range(w):
                ch = rows[r][c]
                if white[r][c] and not ch.isdigit():
                    return Verdict.wrong(f"white cell r{r + 1}c{c + 1} has no digit", rows)
                if not white[r][c] and ch.isdigit():
                    return Verdict.wrong(f"r{r + 1}c{c + 1} is a block but holds a digit", rows)
                if white[r][c] and ch == "0":
                    return Verdict.wrong(f"cell r{r + 1}c{c + 1} holds 0, not a digit 1..9", rows)
        for r, c, v in meta["givens"]:
            if rows[r][c] != str(v):
                return Verdict.wrong(f"cell r{r + 1}c{c + 1} is given as {v}", rows)
        for run in meta["runs"]:
            r, c, n = run["row"], run["col"], run["length"]
            cells = (
                [(r, c + k) for k in range(n)]
                if run["direction"] == "across"
                else [(r + k, c) for k in range(n)]
            )
            digits = [int(rows[a][b]) for a, b in cells]
            where = f"{run['direction']} run at r{r + 1}c{c + 1}"
            if len(set(digits)) != n:
                return Verdict.wrong(f"the {where} repeats a digit", rows)
            if sum(digits) != run["sum"]:
                return Verdict.wrong(f"the {where} adds up to {sum(digits)}, not {run['sum']}", rows)
        return Verdict.right(parsed=["".join(row) for row in rows])

    def solve_exact(self, task: Task) -> SolverRun:
        board, sums, givens = _unpack(task)
        result = board.solver(sums).solve(givens)
        if result.solution is None:
            return SolverRun(None, float(result.assignments))
        return SolverRun(f"<answer>\n{_render(board, result.solution)}\n</answer>", float(result.assignments))

    def solve_weak(self, task: Task) -> SolverRun:
        board, sums, givens = _unpack(task)
        grid, steps = weak_solve(board, sums, givens)
        return SolverRun(
            None if grid is None else f"<answer>\n{_render(board, grid)}\n</answer>", float(steps)
        )

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        rows = [list(r) for r in task.answer.split("\n")]
        spots = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch.isdigit()]
        out = []
        r, c = spots[int(rng.integers(len(spots)))]
        changed = [list(x) for x in rows]
        changed[r][c] = str(int(changed[r][c]) % 9 + 1)
        out.append(changed)
        # two digits of an across run swapped with a neighbour's: find a run pair that differs
        swapped = [list(x) for x in rows]
        for r2, c2 in spots:
            if c2 + 1 < len(rows[r2]) and rows[r2][c2 + 1].isdigit() and rows[r2][c2] != rows[r2][c2 + 1]:
                swapped[r2][c2], swapped[r2][c2 + 1] = swapped[r2][c2 + 1], swapped[r2][c2]
                break
        out.append(swapped)
        blocked = [list(x) for x in rows]
        blocked[r][c] = "#"
        out.append(blocked)
        texts = ["\n".join("".join(x) for x in g) for g in out]
        texts.append("\n".join("".join(x) for x in rows[:-1]))
        return [f"<answer>\n{t}\n</answer>" for t in texts]


def _unpack(task: Task) -> tuple[Board, list[int], list[int]]:
    meta = task.metadata
    board = Board([[bool(x) for x in row] for row in meta["white"]])
    sums = [run["sum"] for run in meta["runs"]]
    givens = [0] * len(board.cells)
    for r, c, v in meta["givens"]:
        givens[board.index[(r, c)]] = v
    return board, sums, givens


def _render(board: Board, values: list[int]) -> str:
    at = {board.cells[i]: v for i, v in enumerate(values)}
    return "\n".join(
        "".join(str(at[(r, c)]) if board.white[r][c] else "#" for c in range(board.w)) for r in range(board.h)
    )
