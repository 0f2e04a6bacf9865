"""Lights Out with a proven minimum number of presses.

Pressing a cell toggles it and its orthogonal neighbours (wrapping around on a torus board). The
start pattern comes from pressing a random set of cells, so it is always solvable. The minimum is
proven by linear algebra over GF(2): Gaussian elimination gives one solution ``x0`` and a basis of
the null space of the press matrix, and every solution is ``x0`` plus a null-space combination, so
enumerating the ``2^nullity`` combinations finds the true minimum weight. Presses commute and a
double press cancels, so any set of that size that clears the board is a minimum answer; the
verifier simulates the submitted presses in order and accepts any such set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.search import extract_plan_text, grade_length, tokenize
from palaestra.registry import Family, SolverRun, TaskDraft, family

MAX_NULLITY = 16  # beyond this the 2^k enumeration is too slow to be a generator's proof


@dataclass(frozen=True)
class LightsOutKnobs(Knobs):
    rows: int = knob(3, low=2, high=10, help="board rows")
    cols: int = knob(3, low=2, high=10, help="board columns")
    density: float = knob(0.3, low=0.05, high=0.95, help="chance that each cell is pressed to scramble")
    torus: bool = knob(False, help="neighbours wrap around the board edges")
    min_presses: int = knob(2, low=1, high=100, help="reject boards whose minimum is below this")

    def validate(self) -> None:
        if self.torus and min(self.rows, self.cols) < 3:
            raise ValueError("a torus board needs at least 3 rows and 3 columns")
        if self.min_presses > self.rows * self.cols // 2 + 1:
            raise ValueError(
                f"min_presses={self.min_presses} is too large for a {self.rows}x{self.cols} board"
            )


LEVELS = {
    1: LightsOutKnobs(rows=3, cols=3, density=0.25, min_presses=2),
    2: LightsOutKnobs(rows=3, cols=4, density=0.3, min_presses=3),
    3: LightsOutKnobs(rows=4, cols=6, density=0.4, min_presses=4),
    4: LightsOutKnobs(rows=5, cols=5, density=0.45, min_presses=5),
    5: LightsOutKnobs(rows=5, cols=6, density=0.4, min_presses=6),
    6: LightsOutKnobs(rows=6, cols=6, density=0.45, min_presses=8),
    7: LightsOutKnobs(rows=6, cols=7, density=0.45, min_presses=9),
    8: LightsOutKnobs(rows=7, cols=7, density=0.5, min_presses=11),
    9: LightsOutKnobs(rows=8, cols=8, density=0.5, min_presses=14),
    10: LightsOutKnobs(rows=8, cols=9, density=0.5, min_presses=28),
}


# --------------------------------------------------------------------------------------------
# The board as bitmasks: cell (r, c) is bit r * cols + c
# --------------------------------------------------------------------------------------------


def press_masks(rows: int, cols: int, torus: bool) -> list[int]:
    """The toggle mask of pressing each cell."""
    masks = []
    for r in range(rows):
        for c in range(cols):
            mask = 1 << (r * cols + c)
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                rr, cc = r + dr, c + dc
                if torus:
                    rr, cc = rr % rows, cc % cols
                elif not (0 <= rr < rows and 0 <= cc < cols):
                    continue
                mask |= 1 << (rr * cols + cc)
            masks.append(mask)
    return masks


def solve_minimum(rows: int, cols: int, torus: bool, state: int) -> tuple[list[int] | None, int, int]:
    """A minimum press set (cell indices) clearing ``state``, the nullity, and the effort spent.

    Returns ``(None, nullity, effort)`` if the pattern is unsolvable or the nullity is too large.
    Effort counts row operations of the elimination plus enumerated null-space combinations.
    """
    n = rows * cols
    masks = press_masks(rows, cols, torus)
    # equation for cell i: XOR over presses j whose mask covers i equals bit i of the state
    equations = []
    for i in range(n):
        row = 0
        for j in range(n):
            if masks[j] >> i & 1:
                row |= 1 << j
        equations.append(row | ((state >> i & 1) << n))
    effort = 0
    pivots: list[int] = []
    rank = 0
    for col in range(n):
        pivot = next((k for k in range(rank, n) if equations[k] >> col & 1), None)
        if pivot is None:
            continue
        equations[rank], equations[pivot] = equations[pivot], equations[rank]
        for k in range(n):
            if k != rank and equations[k] >> col & 1:
                equations[k] ^= equations[rank]
                effort += 1
        pivots.append(col)
        rank += 1
    if any(equations[k] >> n & 1 for k in range(rank, n)):
        return None, n - rank, effort
    free = [col for col in range(n) if col not in set(pivots)]
    if len(free) > MAX_NULLITY:
        return None, len(free), effort
    x0 = 0
    for k, col in enumerate(pivots):
        if equations[k] >> n & 1:
            x0 |= 1 << col
    basis = []
    for f in free:
        vec = 1 << f
        for k, col in enumerate(pivots):
            if equations[k] >> f & 1:
                vec |= 1 << col
        basis.append(vec)
    best, current = x0, x0
    # Gray-code walk: each step flips one basis vector, so all 2^k solutions cost 2^k XORs
    for step in range(1, 1 << len(basis)):
        current ^= basis[(step & -step).bit_length() - 1]
        effort += 1
        if current.bit_count() < best.bit_count():
            best = current
    effort += 1
    return [j for j in range(n) if best >> j & 1], len(free), effort


def grid_rows(rows: int, cols: int, state: int) -> list[str]:
    return ["".join("1" if state >> (r * cols + c) & 1 else "0" for c in range(cols)) for r in range(rows)]


def canonical_hash(rows: int, cols: int, torus: bool, state: int) -> str:
    """Hash of the board up to rotation/reflection (and translation on a torus)."""
    grid = np.array([[int(ch) for ch in line] for line in grid_rows(rows, cols, state)], dtype=np.int8)
    images = []
    shifts = [(dr, dc) for dr in range(rows) for dc in range(cols)] if torus else [(0, 0)]
    for dr, dc in shifts:
        base = np.roll(grid, (dr, dc), axis=(0, 1))
        for k in range(4):
            for flip in (False, True):
                img = np.rot90(base, k)
                img = np.fliplr(img) if flip else img
                images.append(f"{img.shape[0]}x{img.shape[1]}:" + "".join(map(str, img.flatten().tolist())))
    return content_hash({"torus": torus, "board": min(images)})


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Lights Out. The board has {rows} rows and {cols} columns; 1 is a light that is on, 0 is off:

{board}

Pressing a cell toggles that cell and its orthogonal neighbours (up, down, left, right){edge}. \
Turn every light off using the minimum possible number of presses.

Rows are numbered 1 to {rows} from top to bottom and columns 1 to {cols} from left to right. \
Give the cells to press as (row,col) pairs; the order does not matter, and any set of presses \
of the minimum size that turns all lights off is accepted. Format example (not the solution): \
<answer>(1,2), (3,1)</answer>"""

_TOKEN = re.compile(r"\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)")


def _parse(text: str, rows: int, cols: int) -> tuple[list[list[int]] | None, str | None]:
    matches = tokenize(text, _TOKEN)
    if not matches:
        return None, f"could not read {text[:60]!r} as (row,col) presses"
    presses = []
    for m in matches:
        r, c = int(m[1]), int(m[2])
        if not (1 <= r <= rows and 1 <= c <= cols):
            return None, f"cell ({r},{c}) is outside the {rows}x{cols} board"
        presses.append([r, c])
    return presses, None


def _format(presses: list[list[int]]) -> str:
    return ", ".join(f"({r},{c})" for r, c in presses)


@family(
    "lights_out",
    domain="puzzles",
    knobs=LightsOutKnobs,
    levels=LEVELS,
    description="Lights Out: turn all lights off with the proven minimum number of presses (GF(2)).",
    verifier_kind="simulation + proven optimum",
)
class LightsOut(Family):
    def generate(self, knobs: LightsOutKnobs, rng: np.random.Generator) -> TaskDraft:
        rows, cols, n = knobs.rows, knobs.cols, knobs.rows * knobs.cols
        masks = press_masks(rows, cols, knobs.torus)
        for _ in range(10_000):
            pressed = rng.random(n) < knobs.density
            state = 0
            for j in np.flatnonzero(pressed).tolist():
                state ^= masks[j]
            if state == 0:
                continue
            solution, nullity, effort = solve_minimum(rows, cols, knobs.torus, state)
            if solution is None or len(solution) < knobs.min_presses:
                continue
            presses = [[j // cols + 1, j % cols + 1] for j in solution]
            board = grid_rows(rows, cols, state)
            return TaskDraft(
                prompt=PROMPT.format(
                    rows=rows,
                    cols=cols,
                    board="\n".join(board),
                    edge=", wrapping around the edges (the board is a torus)" if knobs.torus else "",
                ),
                answer=_format(presses),
                metadata={
                    "rows": rows,
                    "cols": cols,
                    "torus": knobs.torus,
                    "board": board,
                    "optimal_length": len(solution),
                    "solution": presses,
                    "nullity": nullity,
                    "search_nodes": effort,
                    "lit": state.bit_count(),
                    "canonical_hash": canonical_hash(rows, cols, knobs.torus, state),
                },
            )
        raise RuntimeError(f"could not draw a Lights Out board for {knobs}")

    @staticmethod
    def _state(task: Task) -> int:
        cols = task.metadata["cols"]
        state = 0
        for r, line in enumerate(task.metadata["board"]):
            for c, ch in enumerate(line):
                if ch == "1":
                    state |= 1 << (r * cols + c)
        return state

    def verify(self, task: Task, response: str) -> Verdict:
        meta = task.metadata
        text, error = extract_plan_text(response)
        if text is None:
            return Verdict.bad_format(error or "no answer")
        presses, error = _parse(text, meta["rows"], meta["cols"])
        if presses is None:
            return Verdict.bad_format(error or "unreadable")
        masks = press_masks(meta["rows"], meta["cols"], meta["torus"])
        state = self._state(task)
        for r, c in presses:
            state ^= masks[(r - 1) * meta["cols"] + (c - 1)]
        if state:
            return Verdict.wrong(
                f"{state.bit_count()} light(s) are still on after the presses", parsed=presses
            )
        return grade_length(len(presses), meta["optimal_length"], presses, unit="presses")

    def solve_exact(self, task: Task) -> SolverRun:
        meta = task.metadata
        solution, _, effort = solve_minimum(meta["rows"], meta["cols"], meta["torus"], self._state(task))
        if solution is None:
            return SolverRun(response=None, effort=float(effort))
        presses = [[j // meta["cols"] + 1, j % meta["cols"] + 1] for j in solution]
        return SolverRun(response=f"<answer>{_format(presses)}</answer>", effort=float(effort))

    def solve_weak(self, task: Task) -> SolverRun:
        # hill climbing: press the cell that switches off the most lights, until nothing helps
        meta = task.metadata
        masks = press_masks(meta["rows"], meta["cols"], meta["torus"])
        state, pressed, steps = self._state(task), 0, 0
        while state and steps < len(masks):
            gains = [state.bit_count() - (state ^ m).bit_count() for m in masks]
            best = int(np.argmax(gains))
            steps += 1
            if gains[best] <= 0:
                break
            state ^= masks[best]
            pressed ^= 1 << best
        if state:
            return SolverRun(response=None, effort=float(steps))
        presses = [
            [j // meta["cols"] + 1, j % meta["cols"] + 1] for j in range(len(masks)) if pressed >> j & 1
        ]
        return SolverRun(response=f"<answer>{_format(presses)}</answer>", effort=float(steps))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        meta = task.metadata
        solution = [list(p) for p in meta["solution"]]
        rows, cols = meta["rows"], meta["cols"]
        out = [f"<answer>{_format(solution[:-1])}</answer>"] if len(solution) > 1 else []
        # one press moved to a neighbouring cell leaves lights on
        r, c = solution[0]
        moved = [[r % rows + 1, c]] + solution[1:]
        out.append(f"<answer>{_format(moved)}</answer>")
        # a correct set plus a cancelling double press is legal but not minimal
        out.append(f"<answer>{_format(solution + [[1, 1], [1, 1]])}</answer>")
        # an extra press breaks the goal
        extra = [
            [rr, cc] for rr in range(1, rows + 1) for cc in range(1, cols + 1) if [rr, cc] not in solution
        ]
        if extra:
            out.append(f"<answer>{_format(solution + [extra[0]])}</answer>")
        out.append("<answer>none</answer>")
        return out
