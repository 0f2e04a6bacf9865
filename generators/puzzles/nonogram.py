"""Nonogram (paint by numbers): shade cells of a grid so that each row and column shows the runs
of shaded cells its clue lists, in order.

Generation: a random grid (each cell shaded with probability ``density``); its clues are read
off. Tier ``line`` keeps the grid only if the line solver completes it: every row and column
keeps the set of placements of its runs that agree with the known cells (line arc consistency),
and every deduction is forced, so a completed grid is the unique solution. Tier ``search``
keeps only grids the line solver cannot finish and that the exact solver (line propagation plus
branching, counting solutions up to 2) proves unique. Effort = line placements the exact solver
examined (``work``); ``nodes`` = its branching nodes.

The weak solver is the textbook "simple boxes / simple spaces" method: each run is confined
between its leftmost and rightmost positions that agree with the known cells; overlaps are
shaded, cells no run can reach are blank. It never branches and gives up when stuck.

Speed (CPU time of one core; the shared machine's wall clock runs several times slower):
level 1 ~2,000 tasks/s, level 5 (10x10) ~350/s, level 8 (15x15) ~160/s, level 9 (15x15, needs
search) ~15/s, level 10 (18x18, needs search) ~1.3/s over 50 seeds: grids that are unique but not line-solvable
are a minority of random grids, and each candidate costs a uniqueness proof by search.
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

TIERS = ("line", "search")
MAX_ATTEMPTS = 3000
MAX_CHARS = 5000


@dataclass(frozen=True)
class NonogramKnobs(Knobs):
    width: int = knob(5, low=3, high=20, help="number of columns")
    height: int = knob(5, low=3, high=20, help="number of rows")
    density: float = knob(
        0.6, low=0.2, high=0.8, help="probability that a cell of the hidden picture is shaded"
    )
    tier: str = knob(
        "line", choices=TIERS, help="line: solvable by line reasoning alone; search: needs branching"
    )
    allow_easy: bool = knob(True, help="accept puzzles the simple boxes/spaces method solves (False: reject)")


LEVELS = {
    1: NonogramKnobs(width=5, height=5, density=0.65),
    2: NonogramKnobs(width=6, height=6, density=0.6),
    3: NonogramKnobs(width=8, height=8, density=0.55),
    4: NonogramKnobs(width=10, height=10, density=0.55),
    5: NonogramKnobs(width=10, height=10, density=0.55, allow_easy=False),
    6: NonogramKnobs(width=12, height=12, density=0.55, allow_easy=False),
    7: NonogramKnobs(width=12, height=12, density=0.5, tier="search", allow_easy=False),
    8: NonogramKnobs(width=15, height=15, density=0.55, allow_easy=False),
    9: NonogramKnobs(width=15, height=15, density=0.5, tier="search", allow_easy=False),
    10: NonogramKnobs(width=18, height=18, density=0.5, tier="search", allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Lines
# --------------------------------------------------------------------------------------------


def runs(values: list[int]) -> list[int]:
    """The lengths of the shaded runs of a line, in order."""
    out, count = [], 0
    for v in values:
        if v:
            count += 1
        elif count:
            out.append(count)
            count = 0
    if count:
        out.append(count)
    return out


@lru_cache(maxsize=20000)
def placements(length: int, clue: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Every placement of the runs as (bitmasks, run starts), bit i = cell i shaded."""
    masks: list[int] = []
    starts: list[tuple[int, ...]] = []

    def rec(j: int, pos: int, mask: int, acc: tuple[int, ...]) -> None:
        if j == len(clue):
            masks.append(mask)
            starts.append(acc)
            return
        rest = sum(clue[j + 1 :]) + len(clue) - j - 1
        b = clue[j]
        for s in range(pos, length - rest - b + 1):
            rec(j + 1, s + b + 1, mask | (((1 << b) - 1) << s), acc + (s,))

    rec(0, 0, 0, ())
    return tuple(masks), tuple(starts)


# --------------------------------------------------------------------------------------------
# Exact solver
# --------------------------------------------------------------------------------------------


class _Solver(LineSolver):
    """The line solver over the run placements of each row's and column's clue."""

    def __init__(self, w: int, h: int, rows: list[list[int]], cols: list[list[int]]) -> None:
        # a written clue of 0 means no runs; the cached placement tuples are shared, not copied
        # (the solver never changes a line's patterns in place, it replaces them)
        super().__init__(
            w,
            h,
            [placements(w, tuple(x for x in c if x))[0] for c in rows]
            + [placements(h, tuple(x for x in c if x))[0] for c in cols],
        )


def solve(w: int, h: int, rows: list[list[int]], cols: list[list[int]], limit: int = 2) -> _Solver:
    return _Solver(w, h, rows, cols).search(limit)


def line_solve(w: int, h: int, rows: list[list[int]], cols: list[list[int]]) -> list[int] | None:
    return _Solver(w, h, rows, cols).line_solve()


# --------------------------------------------------------------------------------------------
# Weak solver: simple boxes and simple spaces
# --------------------------------------------------------------------------------------------


def weak_solve(w: int, h: int, rows: list[list[int]], cols: list[list[int]]) -> tuple[list[int] | None, int]:
    """Confine each run between its extreme positions; shade overlaps, blank unreachable cells."""
    grid = [-1] * (w * h)
    lines = [([r * w + c for c in range(w)], rows[r]) for r in range(h)]
    lines += [([r * w + c for r in range(h)], cols[c]) for c in range(w)]
    steps = 0
    while True:
        steps += 1
        progress = False
        for cells, clue in lines:
            length = len(cells)
            vals = [grid[c] for c in cells]
            o = sum(1 << i for i, v in enumerate(vals) if v == 1)
            z = sum(1 << i for i, v in enumerate(vals) if v == 0)
            masks, starts = placements(length, tuple(clue))
            # the extremes respect known blanks only: shaded cells are not matched to runs
            ok = [s for m, s in zip(masks, starts, strict=True) if not (m & z)]
            if not ok:
                return None, steps
            if bin(o).count("1") == sum(clue):  # every shaded cell found: blank the rest
                for i in range(length):
                    if vals[i] < 0:
                        grid[cells[i]] = vals[i] = 0
                        progress = True
                continue
            reach = [0] * length
            for j, b in enumerate(clue):
                lo = min(s[j] for s in ok)
                hi = max(s[j] for s in ok)
                for i in range(hi, lo + b):  # simple boxes: the run covers these in every position
                    if vals[i] < 0:
                        grid[cells[i]] = vals[i] = 1
                        progress = True
                for i in range(lo, hi + b):
                    reach[i] = 1
            for i in range(length):  # simple spaces: no run can reach
                if not reach[i] and vals[i] < 0:
                    grid[cells[i]] = vals[i] = 0
                    progress = True
        if not progress:
            break
    if -1 in grid:
        return None, steps
    return grid, steps


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this nonogram. The grid has {h} rows and {w} columns. Each clue lists, in order, \
the lengths of the runs of shaded cells in that row (left to right) or column (top to bottom); \
runs are separated by at least one blank cell; a clue of 0 means the line is blank. The puzzle \
has exactly one solution.

Row clues (top to bottom):
{row_text}

Column clues (left to right):
{col_text}

Give the grid inside <answer>...</answer>: {h} lines, one per row, each with {w} characters, \
# for a shaded cell and . for a blank one (1 and 0 are also accepted). Format example only \
(a 3x4 grid, not a solution of this puzzle):
<answer>
##.#
.##.
#...
</answer>"""

_SHADED = set("#1Xx■█")
_BLANK = set(".0-_·□")


def parse_picture(text: str, w: int, h: int) -> tuple[list[list[int]] | None, str]:
    """Read h lines of w cells (#/1/X shaded, ./0/- blank); separators between cells allowed."""
    return read_binary_grid(text, h, w, _SHADED, _BLANK, max_chars=MAX_CHARS)


def picture(cells: list[int], w: int, h: int) -> str:
    return "\n".join("".join("#" if v else "." for v in cells[r * w : (r + 1) * w]) for r in range(h))


def clues_of(cells: list[int], w: int, h: int) -> tuple[list[list[int]], list[list[int]]]:
    rows = [runs(cells[r * w : (r + 1) * w]) for r in range(h)]
    cols = [runs([cells[r * w + c] for r in range(h)]) for c in range(w)]
    return rows, cols


def canonical_hash(rows: list[list[int]], cols: list[list[int]]) -> str:
    """Least form under the symmetries of the rectangle (and transposition when square)."""
    # flipping left-right reverses each row clue and the column order; up-down likewise
    forms = []
    for ud in (False, True):
        for lr in (False, True):
            r = rows[::-1] if ud else rows
            c = cols[::-1] if lr else cols
            r = [x[::-1] for x in r] if lr else [list(x) for x in r]
            c = [x[::-1] for x in c] if ud else [list(x) for x in c]
            forms.append([r, c])
            if len(rows) == len(cols):
                forms.append([c, r])  # transposition swaps the two clue lists
    return content_hash({"nonogram": [len(rows), len(cols)], "form": min(forms)})


def _clue_text(clue: list[int]) -> str:
    return " ".join(map(str, clue)) if clue else "0"


@family(
    "nonogram",
    domain="puzzles",
    knobs=NonogramKnobs,
    levels=LEVELS,
    description="Nonogram (run clues per row and column, 5x5 to 15x15), line-solvable tiers, unique solution proven.",
    verifier_kind="constraint check",
)
class Nonogram(Family):
    def generate(self, knobs: NonogramKnobs, rng: np.random.Generator) -> TaskDraft:
        w, h = knobs.width, knobs.height
        for _ in range(MAX_ATTEMPTS):
            cells = (rng.random(w * h) < knobs.density).astype(int).tolist()
            rows, cols = clues_of(cells, w, h)
            proof = _Solver(w, h, rows, cols)
            line = proof.line_solve()
            if knobs.tier == "line":
                if line is None:
                    continue
            elif line is not None:
                continue  # search tier: line reasoning alone must not finish it
            proof.search(after_line_solve=True)  # the same proof as solve(), from that fixpoint
            if proof.count != 1:
                continue
            weak, _ = weak_solve(w, h, rows, cols)
            if weak is not None and not knobs.allow_easy:
                continue
            return self._draft(w, h, rows, cols, proof.solutions[0], proof, weak is not None)
        raise RuntimeError(f"no nonogram matched {knobs} in {MAX_ATTEMPTS} attempts")

    def _draft(self, w, h, rows, cols, solution, proof, weak_ok) -> TaskDraft:
        prompt = PROMPT.format(
            w=w,
            h=h,
            row_text="\n".join(f"row {i + 1}: {_clue_text(c)}" for i, c in enumerate(rows)),
            col_text="\n".join(f"column {i + 1}: {_clue_text(c)}" for i, c in enumerate(cols)),
        )
        return TaskDraft(
            prompt=prompt,
            answer=picture(solution, w, h),
            metadata={
                "width": w,
                "height": h,
                "rows": rows,
                "cols": cols,
                "nodes": proof.nodes,
                "work": proof.work,
                "technique": "simple" if weak_ok else ("line" if proof.nodes == 1 else "search"),
                "solutions": 1,
                "canonical_hash": canonical_hash(rows, cols),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        w, h, rows, cols = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        grid, error = parse_picture(extraction.text, w, h)
        if grid is None:
            return Verdict.bad_format(error)
        for r in range(h):
            got = runs(grid[r])
            if got != rows[r]:
                return Verdict.wrong(f"row {r + 1} has runs {got or [0]}, clue {rows[r] or [0]}", grid)
        for c in range(w):
            got = runs([grid[r][c] for r in range(h)])
            if got != cols[c]:
                return Verdict.wrong(f"column {c + 1} has runs {got or [0]}, clue {cols[c] or [0]}", grid)
        return Verdict.right(parsed=grid)

    def solve_exact(self, task: Task) -> SolverRun:
        w, h, rows, cols = _unpack(task)
        s = solve(w, h, rows, cols, limit=1)
        if not s.solutions:
            return SolverRun(None, float(s.work))
        return SolverRun(f"<answer>\n{picture(s.solutions[0], w, h)}\n</answer>", float(s.work))

    def solve_weak(self, task: Task) -> SolverRun:
        w, h, rows, cols = _unpack(task)
        grid, steps = weak_solve(w, h, rows, cols)
        return SolverRun(
            None if grid is None else f"<answer>\n{picture(grid, w, h)}\n</answer>", float(steps)
        )

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        w, h, _, _ = _unpack(task)
        rows = [list(r) for r in task.answer.split("\n")]
        out = []
        cell = int(rng.integers(w * h))  # one cell toggled
        toggled = [list(r) for r in rows]
        toggled[cell // w][cell % w] = "." if toggled[cell // w][cell % w] == "#" else "#"
        out.append(toggled)
        # a second, different cell toggled (the solution is unique: any other grid is wrong)
        other = (cell + 1 + int(rng.integers(w * h - 1))) % (w * h)
        toggled2 = [list(r) for r in rows]
        toggled2[other // w][other % w] = "." if toggled2[other // w][other % w] == "#" else "#"
        out.append(toggled2)
        inverted = [["." if ch == "#" else "#" for ch in r] for r in rows]  # negative image
        out.append(inverted)
        out.append(rows[:-1])  # wrong size
        return ["<answer>\n" + "\n".join("".join(r) for r in g) + "\n</answer>" for g in out]


def _unpack(task: Task) -> tuple[int, int, list[list[int]], list[list[int]]]:
    meta = task.metadata
    return (
        int(meta["width"]),
        int(meta["height"]),
        [list(r) for r in meta["rows"]],
        [list(c) for c in meta["cols"]],
    )
