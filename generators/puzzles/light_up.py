"""Light Up (Akari): place light bulbs in the white cells of a grid with black walls so that every
white cell is lit (a bulb lights its own cell and every cell in a straight line from it, up,
down, left and right, until a wall), no bulb lights another bulb, and every numbered wall has
exactly that many bulbs on its orthogonal neighbours.

Generation: random walls (each cell a wall with probability ``walls``); bulbs are placed one at
a time on random unlit cells until every cell is lit; every wall is numbered with its count of
neighbouring bulbs. While the exact solver finds a second layout, a cell holding one of its
bulbs (and none of ours) becomes a wall, cells it leaves unlit get bulbs, and the walls are
numbered again; draws still ambiguous after ``MAX_REPAIRS`` such changes are redrawn. Numbers are then
removed in random order while it stays unique (down to ``min_numbers``; a removal is decided
by searching for a layout that gives the wall any other count). Uniqueness is proven
by the exact solver: propagation (a bulb darkens the rest of its row and column runs for other
bulbs; a number with all its bulbs blocks its other neighbours, one with exactly enough open
neighbours fills them; an unlit cell that only one open cell can still light gets a bulb
there), then branching on a cell that can light the unlit cell with fewest such options (dark first),
counting bulb layouts up to 2. Effort = cells the exact solver decided (``work``); ``nodes``
= its search nodes.

The weak solver is the same propagation without search. Levels >= 3 reject puzzles it solves.

Speed (CPU time of one core, mean over seeds 0-29, ``benchmarks/generation.py``): level 1
~1,400 tasks/s, level 5 ~160/s, level 10 ~22/s. Level 10 (12x12) digs every wall number, each
removal decided by up to four bounded searches, and redraws boards propagation alone solves.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import settle_count, square_maps
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.constraints import read_grid
from palaestra.verifiers.extract import extract_answer

MAX_ATTEMPTS = 1000
MAX_CHARS = 5000
NODE_BUDGET = 5000
MAX_REPAIRS = 12
WHITE, WALL = -1, 5  # board codes: -1 white, 0..4 numbered wall, 5 wall without a number
UNKNOWN, DARK, BULB = -1, 0, 1
WALL_CHARS = "#01234"


@dataclass(frozen=True)
class LightUpKnobs(Knobs):
    size: int = knob(6, low=4, high=14, help="grid size n")
    walls: float = knob(0.2, low=0.05, high=0.4, help="share of cells that are walls")
    min_numbers: int = knob(196, low=0, high=196, help="stop removing wall numbers at this many")
    allow_easy: bool = knob(True, help="accept puzzles propagation alone solves (False: reject them)")


LEVELS = {
    1: LightUpKnobs(size=5),
    2: LightUpKnobs(size=6),
    3: LightUpKnobs(size=6, min_numbers=0),
    4: LightUpKnobs(size=7, allow_easy=False),
    5: LightUpKnobs(size=7, min_numbers=0, allow_easy=False),
    6: LightUpKnobs(size=8, min_numbers=0, allow_easy=False),
    7: LightUpKnobs(size=9, min_numbers=0, allow_easy=False),
    8: LightUpKnobs(size=10, min_numbers=0, allow_easy=False),
    9: LightUpKnobs(size=10, walls=0.15, min_numbers=0, allow_easy=False),
    10: LightUpKnobs(size=12, walls=0.15, min_numbers=0, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def orthogonal(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(
            (r + dr) * n + c + dc
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < n and 0 <= c + dc < n
        )
        for r in range(n)
        for c in range(n)
    )


def runs(n: int, board: list[int]) -> tuple[list[list[int]], list[tuple[int, int]]]:
    """The maximal horizontal and vertical runs of white cells, and each cell's two run indices."""
    out: list[list[int]] = []
    where = [(-1, -1)] * (n * n)
    for horizontal in (True, False):
        for i in range(n):
            run: list[int] = []
            for j in range(n + 1):
                cell = (i * n + j if horizontal else j * n + i) if j < n else -1
                if cell >= 0 and board[cell] == WHITE:
                    run.append(cell)
                elif run:
                    for c in run:
                        h, v = where[c]
                        where[c] = (len(out), v) if horizontal else (h, len(out))
                    out.append(run)
                    run = []
    return out, where


# --------------------------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------------------------


class _Contradiction(Exception):
    pass


class LightUpSolver:
    """Counts the bulb layouts of a board (codes: -1 white, 0..4 numbered wall, 5 plain wall).

    A search state is three lists: each cell's value (unknown, dark, bulb), whether each run of
    white cells holds a bulb, and how many open cells each run still has; a cell is lit when
    one of its two runs holds a bulb, and the open cells that can light it are those of its
    two runs (counted in O(1), listed only when one or two are left)."""

    def __init__(self, n: int, board: list[int]) -> None:
        self.n, self.board = n, board
        self.runs, self.where = runs(n, board)
        self.whites = [c for c in range(n * n) if board[c] == WHITE]
        # the cells that light each white cell (its two runs, itself included)
        self.seen_by = {
            c: sorted(set(self.runs[self.where[c][0]]) | set(self.runs[self.where[c][1]]))
            for c in self.whites
        }
        self.seen_set = {c: frozenset(cells) for c, cells in self.seen_by.items()}
        near = orthogonal(n)
        self.numbers = [
            (board[c], [q for q in near[c] if board[q] == WHITE]) for c in range(n * n) if 0 <= board[c] <= 4
        ]
        self.nodes = 0
        self.work = 0
        self.exhausted = False
        self.solutions: list[list[int]] = []

    @property
    def count(self) -> int:
        return len(self.solutions)

    def start(self) -> tuple[list[int], list[bool], list[int]]:
        return [UNKNOWN] * (self.n * self.n), [False] * len(self.runs), [len(r) for r in self.runs]

    def _set(self, state, cell: int, value: int, changed: list[int]) -> None:
        cells, run_lit, run_open = state
        if cells[cell] == value:
            return
        if cells[cell] != UNKNOWN:
            raise _Contradiction
        cells[cell] = value
        h, v = self.where[cell]
        run_open[h] -= 1
        run_open[v] -= 1
        self.work += 1
        changed.append(cell)
        if value == BULB:
            run_lit[h] = run_lit[v] = True
            for q in self.seen_by[cell]:
                if q != cell:
                    if cells[q] == BULB:
                        raise _Contradiction
                    if cells[q] == UNKNOWN:
                        self._set(state, q, DARK, changed)

    def _open_sources(self, state, cell: int) -> list[int]:
        cells = state[0]
        return [q for q in self.seen_by[cell] if cells[q] == UNKNOWN]

    def propagate(self, state, *, strong: bool = True) -> bool:
        """Apply the rules to a fixpoint; False on a contradiction. ``strong`` adds the pair
        rule (the exact solver's): when only cells a and b can still light some cell, a bulb
        that would see both a and b would leave it dark, so no such bulb."""
        cells, run_lit, run_open = state
        where = self.where
        try:
            while True:
                changed: list[int] = []
                for k, near in self.numbers:
                    possible, open_cells, all_bulbs = settle_count(cells, near, k, BULB, UNKNOWN)
                    if not possible:
                        return False
                    if all_bulbs is not None:
                        for c in open_cells:
                            self._set(state, c, BULB if all_bulbs else DARK, changed)
                for cell in self.whites:
                    h, v = where[cell]
                    if run_lit[h] or run_lit[v]:
                        continue
                    count = run_open[h] + run_open[v] - (cells[cell] == UNKNOWN)
                    if count == 0:
                        return False
                    if count == 1:
                        self._set(state, self._open_sources(state, cell)[0], BULB, changed)
                    elif strong and count == 2:
                        a, b = self._open_sources(state, cell)
                        for x in self.seen_set[a] & self.seen_set[b]:
                            if x != a and x != b and cells[x] == UNKNOWN:
                                self._set(state, x, DARK, changed)
                if not changed:
                    return True
        except _Contradiction:
            return False

    def solve(self, limit: int = 2, max_nodes: int = 0) -> LightUpSolver:
        self._rec(self.start(), limit, max_nodes)
        return self

    def _rec(self, state, limit: int, max_nodes: int) -> bool:
        if max_nodes and self.nodes >= max_nodes:
            self.exhausted = True
            return True
        self.nodes += 1
        if not self.propagate(state):
            return False
        cells, run_lit, run_open = state
        best, best_count = -1, 1 << 30
        for cell in self.whites:  # the unlit cell with fewest cells left to light it
            h, v = self.where[cell]
            if not (run_lit[h] or run_lit[v]):
                count = run_open[h] + run_open[v] - (cells[cell] == UNKNOWN)
                if count < best_count:
                    best, best_count = cell, count
        if best >= 0:
            cell = self._open_sources(state, best)[0]
        else:
            cell = next((c for c in self.whites if cells[c] == UNKNOWN), -1)
        if cell < 0:
            self.solutions.append([1 if v == BULB else 0 for v in cells])
            return len(self.solutions) >= limit
        for value in (DARK, BULB):  # dark first: measured 15x fewer nodes than bulb first
            branch = (list(cells), list(run_lit), list(run_open))
            self.work += 1
            try:
                self._set(branch, cell, value, [])
            except _Contradiction:
                continue
            if self._rec(branch, limit, max_nodes):
                return True
        return False

    def weak(self) -> tuple[list[int] | None, int]:
        """Propagation only, no search."""
        state = self.start()
        if not self.propagate(state, strong=False) or UNKNOWN in (state[0][c] for c in self.whites):
            return None, self.work
        return [1 if v == BULB else 0 for v in state[0]], self.work


def solve(n: int, board: list[int], limit: int = 2, max_nodes: int = 0) -> LightUpSolver:
    return LightUpSolver(n, board).solve(limit, max_nodes)


def check(n: int, board: list[int], bulbs: list[int]) -> str:
    """'' when the bulbs solve the board, else the first broken rule."""
    layout, where = runs(n, board)
    for cell in range(n * n):
        if bulbs[cell] and board[cell] != WHITE:
            return f"r{cell // n + 1}c{cell % n + 1} is a wall, not a place for a bulb"
    for run in layout:
        lit = [c for c in run if bulbs[c]]
        if len(lit) > 1:
            a, b = lit[0], lit[1]
            return f"the bulbs at r{a // n + 1}c{a % n + 1} and r{b // n + 1}c{b % n + 1} light each other"
    for cell in range(n * n):
        if board[cell] == WHITE and not any(bulbs[q] for k in where[cell] for q in layout[k]):
            return f"r{cell // n + 1}c{cell % n + 1} is not lit"
    near = orthogonal(n)
    for cell in range(n * n):
        if 0 <= board[cell] <= 4:
            got = sum(bulbs[q] for q in near[cell])
            if got != board[cell]:
                return f"the wall {board[cell]} at r{cell // n + 1}c{cell % n + 1} has {got} bulbs beside it"
    return ""


# --------------------------------------------------------------------------------------------
# Generation helpers
# --------------------------------------------------------------------------------------------


def random_board(n: int, walls: float, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """(board with every wall numbered, bulbs): random walls, bulbs on random unlit cells."""
    board = [WALL if u < walls else WHITE for u in rng.random(n * n).tolist()]
    return light(n, board, [0] * (n * n), rng)


def light(
    n: int, board: list[int], bulbs: list[int], rng: np.random.Generator
) -> tuple[list[int], list[int]]:
    """Add bulbs on random unlit cells until every white cell is lit, then number every wall."""
    layout, where = runs(n, board)
    bulbs = list(bulbs)
    lit = [False] * (n * n)
    for cell in range(n * n):
        if bulbs[cell]:
            for k in where[cell]:
                for q in layout[k]:
                    lit[q] = True
    for cell in rng.permutation(n * n).tolist():
        if board[cell] == WHITE and not lit[cell]:
            bulbs[cell] = 1
            for k in where[cell]:
                for q in layout[k]:
                    lit[q] = True
    near = orthogonal(n)
    board = [
        code if code == WHITE else sum(bulbs[q] for q in near[code_cell])
        for code_cell, code in enumerate(board)
    ]
    return board, bulbs


def repair(n: int, board: list[int], bulbs: list[int], other: list[int], rng) -> tuple[list[int], list[int]]:
    """Break the second layout ``other``: a cell holding one of its bulbs (dark in ours) becomes a
    wall; cells it left unlit get new bulbs, and every wall is numbered again."""
    spots = [c for c in range(n * n) if other[c] and not bulbs[c]]
    cell = spots[int(rng.integers(len(spots)))]
    board = list(board)
    board[cell] = WALL
    return light(n, board, bulbs, rng)


def canonical_hash(n: int, board: list[int]) -> str:
    forms = []
    for m in square_maps(n):
        image = [0] * (n * n)
        for cell, code in enumerate(board):
            image[m[cell]] = code
        forms.append(image)
    return content_hash({"light_up": n, "form": min(forms)})


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} Light Up (Akari) puzzle. The grid has white cells (.) and black walls \
(# or a digit). Place light bulbs in white cells so that:
- every white cell is lit: a bulb lights its own cell and every cell in a straight line up, \
down, left and right of it, until a wall or the edge;
- no bulb is lit by another bulb (two bulbs never see each other along a row or column);
- a wall with a digit has exactly that many bulbs on the cells directly above, below, left and \
right of it (walls without a digit allow any number).
The puzzle has exactly one solution.

{board}

Give the completed grid inside <answer>...</answer>: {n} lines, one per row, each with {n} \
characters: L for a bulb, . for a white cell without a bulb, and the walls as shown (# or the \
digit). Format example only (a 4x4 grid, not a solution of this puzzle):
<answer>
L.#.
.1L.
#.#L
L...
</answer>"""


def board_text(n: int, board: list[int], bulbs: list[int] | None = None) -> str:
    def char(cell: int) -> str:
        code = board[cell]
        if code == WHITE:
            return "L" if bulbs and bulbs[cell] else "."
        return "#" if code == WALL else str(code)

    return "\n".join("".join(char(r * n + c) for c in range(n)) for r in range(n))


@family(
    "light_up",
    domain="puzzles",
    knobs=LightUpKnobs,
    levels=LEVELS,
    description="Light Up / Akari (bulbs lighting every white cell, numbered walls; 5x5 to 12x12), unique solution proven.",
    verifier_kind="constraint check",
)
class LightUp(Family):
    def generate(self, knobs: LightUpKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            board, bulbs = random_board(n, knobs.walls, rng)
            proof = solve(n, board, max_nodes=NODE_BUDGET)
            for _ in range(MAX_REPAIRS):
                if proof.count < 2 or proof.exhausted:
                    break
                other = next(s for s in proof.solutions if s != bulbs)
                board, bulbs = repair(n, board, bulbs, other, rng)
                proof = solve(n, board, max_nodes=NODE_BUDGET)
            if proof.exhausted or proof.count != 1:
                continue
            board = self._dig(n, board, knobs.min_numbers, rng)
            proof = solve(n, board)
            if not knobs.allow_easy and LightUpSolver(n, board).weak()[0] is not None:
                continue  # degenerate: propagation alone places every bulb
            return self._draft(n, board, bulbs, proof)
        raise RuntimeError(f"no light up puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    @staticmethod
    def _dig(n: int, board: list[int], min_numbers: int, rng) -> list[int]:
        """Remove wall numbers in random order while the bulb layout stays unique.

        The layout was unique before a removal, so a second one must give that wall another
        count: one search per other count (each with that number written instead, which
        propagation usually refutes at once) decides the removal. A search that runs past
        ``NODE_BUDGET`` nodes keeps the number."""
        near = orthogonal(n)
        numbered = [c for c in range(n * n) if 0 <= board[c] <= 4]
        shown = len(numbered)
        for k in rng.permutation(len(numbered)).tolist():
            if shown <= min_numbers:
                break
            wall = numbered[k]
            trial = list(board)
            trial[wall] = WALL
            room = sum(1 for q in near[wall] if board[q] == WHITE)
            for count in range(room + 1):
                if count == board[wall]:
                    continue
                probe = list(trial)
                probe[wall] = count
                search = solve(n, probe, limit=1, max_nodes=NODE_BUDGET)
                if search.count or search.exhausted:
                    break
            else:
                board, shown = trial, shown - 1
        return board

    def _draft(self, n, board, bulbs, proof) -> TaskDraft:
        return TaskDraft(
            prompt=PROMPT.format(n=n, board=board_text(n, board)),
            answer=board_text(n, board, bulbs),
            metadata={
                "size": n,
                "board": [board[r * n : (r + 1) * n] for r in range(n)],
                "num_walls": sum(1 for v in board if v != WHITE),
                "num_numbers": sum(1 for v in board if 0 <= v <= 4),
                "nodes": proof.nodes,
                "work": proof.work,
                "solutions": 1,
                "canonical_hash": canonical_hash(n, board),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, board = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        cells, error = read_grid(extraction.text, n, n, set(".L" + WALL_CHARS), max_chars=MAX_CHARS)
        if cells is None:
            return Verdict.bad_format(error)
        bulb_grid = [[int(ch == "L") for ch in row] for row in cells]
        given = board_text(n, board).splitlines()
        for cell in range(n * n):
            r, c = divmod(cell, n)
            if board[cell] != WHITE and cells[r][c] != given[r][c]:  # a wall and its number, as shown
                return Verdict.wrong(
                    f"r{r + 1}c{c + 1} is {given[r][c]!r}: copy the walls as shown", bulb_grid
                )
            if board[cell] == WHITE and cells[r][c] not in ".L":
                return Verdict.wrong(f"r{r + 1}c{c + 1} is a white cell: copy the walls as shown", bulb_grid)
        problem = check(n, board, [v for row in bulb_grid for v in row])
        return Verdict.wrong(problem, bulb_grid) if problem else Verdict.right(parsed=bulb_grid)

    def solve_exact(self, task: Task) -> SolverRun:
        """Bulb, number and last-light propagation at every node, then branching (effort:
        cells decided)."""
        n, board = _unpack(task)
        search = solve(n, board)
        if not search.solutions:
            return SolverRun(None, float(search.work))
        return SolverRun(
            f"<answer>\n{board_text(n, board, search.solutions[0])}\n</answer>", float(search.work)
        )

    def solve_weak(self, task: Task) -> SolverRun:
        """The same propagation without search."""
        n, board = _unpack(task)
        bulbs, work = LightUpSolver(n, board).weak()
        return SolverRun(
            None if bulbs is None else f"<answer>\n{board_text(n, board, bulbs)}\n</answer>", float(work)
        )

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, board = _unpack(task)
        cells = list(task.answer.replace("\n", ""))
        bulbs = [c for c in range(n * n) if cells[c] == "L"]
        dark = [c for c in range(n * n) if cells[c] == "."]
        out = []
        dropped = list(cells)
        dropped[bulbs[int(rng.integers(len(bulbs)))]] = "."
        out.append(dropped)
        if dark:
            added = list(cells)
            added[dark[int(rng.integers(len(dark)))]] = "L"
            out.append(added)
            moved = list(dropped)
            moved[dark[int(rng.integers(len(dark)))]] = "L"
            out.append(moved)
        out.append(["." if ch == "L" else ch for ch in cells])  # no bulbs at all
        out.append(["L" if ch == "." else ch for ch in cells])  # a bulb everywhere
        texts = {"\n".join("".join(g[r * n : (r + 1) * n]) for r in range(n)) for g in out}
        texts.discard(task.answer)
        return [f"<answer>\n{t}\n</answer>" for t in sorted(texts)]


def _unpack(task: Task) -> tuple[int, list[int]]:
    meta = task.metadata
    return int(meta["size"]), [int(v) for row in meta["board"] for v in row]
