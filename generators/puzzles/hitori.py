"""Hitori: shade cells of a grid of digits so that no digit repeats in a row or column among the
unshaded cells, shaded cells never touch orthogonally, the unshaded cells stay orthogonally
connected, and every shaded cell repeats a digit left unshaded in its row or column (shade only
what must go: without this rule an extra shaded cell could often be added, so no puzzle would
have one answer).

Generation: a random Latin square (``_latin.random_solution``); cells are shaded in random order
while no two touch and the unshaded cells stay connected, until ``shaded`` of the grid is shaded;
each shaded cell then takes the digit of a random unshaded cell of its row or column. The
unshaded cells keep the Latin square's digits, so the intended shading satisfies every rule.
Uniqueness is proven by the exact solver, which counts shadings up to 2 (draws with a second
shading are redrawn): propagation (a shaded cell's neighbours stay unshaded; an unshaded cell
shades the cells of its row and column with its digit; a cell whose digit is not repeated in its
row or column, or whose repeats are all shaded, stays unshaded; a shaded cell with one repeat
left open keeps that repeat unshaded; a cell whose shading would cut the unshaded cells apart,
found as an articulation point of the not-shaded cells, stays unshaded), then branching on an
open cell (shaded first). Effort = cells the exact solver decided (``work``); ``nodes`` = its
search nodes.

The weak solver is the local propagation (no connectivity reasoning, no search). Levels grow the
grid (6x6 to 9x9), from level 2 on reject puzzles the weak solver finishes, and at levels 4, 6,
8-10 also require the uniqueness proof to search (``min_nodes``: 2 = at least one branching, 4
at level 10), so "how much propagation suffices" moves with the level.

Speed (``benchmarks/generation.py``, mean wall time per task, measured on the shared 2-core
machine under load ~9): level 1 ~520 tasks/s, level 5 ~170/s, level 10 ~4/s. Level 10 is
under 50/s because it keeps only 9x9 puzzles whose uniqueness proof needs at least 4 search
nodes: about one unique draw in fifteen, and each draw costs a Latin square fill and a
counted-to-2 proof.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import MAX_GRID_CHARS, square_maps
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.constraints import read_grid
from palaestra.verifiers.extract import extract_answer

from ._latin import make_geometry, random_solution, relabel_first_seen

MAX_ATTEMPTS = 2000
NODE_BUDGET = 4000
UNKNOWN, WHITE, BLACK = -1, 0, 1
SHADE, CLEAR = "#", "."


@dataclass(frozen=True)
class HitoriKnobs(Knobs):
    size: int = knob(6, low=4, high=9, help="grid size n")
    shaded: float = knob(0.33, low=0.1, high=0.4, help="share of cells shaded in the answer")
    allow_easy: bool = knob(True, help="accept puzzles local propagation alone solves (False: reject them)")
    min_nodes: int = knob(
        1, low=1, high=50, help="least search nodes the uniqueness proof must take (1: any)"
    )


LEVELS = {
    1: HitoriKnobs(size=6),
    2: HitoriKnobs(size=6, allow_easy=False),
    3: HitoriKnobs(size=7, allow_easy=False),
    4: HitoriKnobs(size=7, allow_easy=False, min_nodes=2),
    5: HitoriKnobs(size=8, allow_easy=False),
    6: HitoriKnobs(size=8, allow_easy=False, min_nodes=2),
    7: HitoriKnobs(size=9, allow_easy=False),
    8: HitoriKnobs(size=9, allow_easy=False, min_nodes=2),
    9: HitoriKnobs(size=9, shaded=0.36, allow_easy=False, min_nodes=2),
    10: HitoriKnobs(size=9, allow_easy=False, min_nodes=4),
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


def repeats(n: int, digits: list[int]) -> list[tuple[int, ...]]:
    """For each cell, the other cells of its row and column holding its digit."""
    return [
        tuple(
            q
            for q in range(n * n)
            if q != cell and digits[q] == digits[cell] and (q // n == cell // n or q % n == cell % n)
        )
        for cell in range(n * n)
    ]


def connected(n: int, white: list[bool]) -> bool:
    """Whether the unshaded cells form one orthogonally connected group (True when there are none).

    A flood fill over a bitmask of the grid (bit r * n + c): each round adds the orthogonal
    neighbours of the cells reached so far (a shift by one column is kept off the column it
    would wrap onto), until nothing new is reached."""
    mask = 0
    for cell, w in enumerate(white):
        if w:
            mask |= 1 << cell
    if not mask:
        return True
    not_first, not_last = _column_masks(n)
    seen = mask & -mask
    while True:
        grown = (seen | (seen << 1) & not_first | (seen >> 1) & not_last | seen << n | seen >> n) & mask
        if grown == seen:
            return seen == mask
        seen = grown


@lru_cache(maxsize=32)
def _column_masks(n: int) -> tuple[int, int]:
    """Bitmasks of the cells outside the first column and outside the last column."""
    first = sum(1 << (r * n) for r in range(n))
    full = (1 << (n * n)) - 1
    return full & ~first, full & ~(first << (n - 1))


def check(n: int, digits: list[int], shaded: list[int]) -> str:
    """'' when the shading solves the puzzle, else the first broken rule."""
    near = orthogonal(n)
    for cell in range(n * n):
        r, c = divmod(cell, n)
        if shaded[cell]:
            for q in near[cell]:
                if shaded[q]:
                    return f"the shaded cells r{r + 1}c{c + 1} and r{q // n + 1}c{q % n + 1} touch"
    for cell in range(n * n):
        r, c = divmod(cell, n)
        for q in range(cell + 1, n * n):
            same_line = q // n == r or q % n == c
            if same_line and not shaded[cell] and not shaded[q] and digits[q] == digits[cell]:
                return f"{digits[cell]} is left unshaded twice, at r{r + 1}c{c + 1} and r{q // n + 1}c{q % n + 1}"
    if not connected(n, [not s for s in shaded]):
        return "the unshaded cells are not all connected"
    for cell in range(n * n):
        r, c = divmod(cell, n)
        if shaded[cell] and not any(
            not shaded[q] and digits[q] == digits[cell] and (q // n == r or q % n == c) for q in range(n * n)
        ):
            return f"r{r + 1}c{c + 1} is shaded but its {digits[cell]} is not left unshaded elsewhere in its row or column"
    return ""


# --------------------------------------------------------------------------------------------
# Solver
# --------------------------------------------------------------------------------------------


class _Contradiction(Exception):
    pass


class HitoriSolver:
    """Counts the shadings of a digit grid. A search state is one list of cell values
    (unknown, white = unshaded, black = shaded)."""

    def __init__(self, n: int, digits: list[int]) -> None:
        self.n, self.digits = n, digits
        self.near = orthogonal(n)
        self.same = repeats(n, digits)
        self.nodes = 0
        self.work = 0
        self.exhausted = False
        self.solutions: list[list[int]] = []

    @property
    def count(self) -> int:
        return len(self.solutions)

    def _set(self, cells: list[int], cell: int, value: int, queue: list[int]) -> None:
        if cells[cell] == value:
            return
        if cells[cell] != UNKNOWN:
            raise _Contradiction
        cells[cell] = value
        self.work += 1
        queue.append(cell)

    def _local(self, cells: list[int], queue: list[int]) -> None:
        """The rules that look at a cell's neighbours and repeats, to a fixpoint."""
        same, near = self.same, self.near
        while queue:
            cell = queue.pop()
            touched = [cell, *near[cell], *same[cell]]
            if cells[cell] == BLACK:
                for q in near[cell]:
                    self._set(cells, q, WHITE, queue)
            else:
                for q in same[cell]:
                    self._set(cells, q, BLACK, queue)
            for x in touched:  # the shade-only-repeats rule, around what changed
                for y in (x, *same[x]):
                    if cells[y] == WHITE:
                        continue
                    open_repeats = [q for q in same[y] if cells[q] != BLACK]
                    if not open_repeats:
                        self._set(cells, y, WHITE, queue)
                    elif cells[y] == BLACK and len(open_repeats) == 1:
                        self._set(cells, open_repeats[0], WHITE, queue)

    def _start(self) -> list[int]:
        cells = [UNKNOWN] * (self.n * self.n)
        queue: list[int] = []
        n = self.n
        for cell in range(n * n):
            if not self.same[cell]:
                self._set(cells, cell, WHITE, queue)
        for cell in range(n * n):
            for q in self.same[cell]:
                if q - cell in (1, n) and (q - cell == n or q // n == cell // n):
                    # a touching pair: one of the two stays unshaded, so the line's other copies go
                    line = [
                        x
                        for x in self.same[cell]
                        if x != q and (x // n == cell // n) == (q // n == cell // n)
                    ]
                    for x in line:
                        self._set(cells, x, BLACK, queue)
                elif q - cell in (2, 2 * n) and (q - cell == 2 * n or q // n == cell // n):
                    # a sandwich: shading the middle would leave both copies unshaded
                    self._set(cells, (cell + q) // 2, WHITE, queue)
        self._local(cells, queue)
        return cells

    def _cut_cells(self, cells: list[int]) -> list[int] | None:
        """Open cells whose shading would cut unshaded cells apart (articulation points of the
        not-shaded cells with unshaded cells on both sides); None when the unshaded cells are
        already apart."""
        near = self.near
        root = next((c for c in range(len(cells)) if cells[c] == WHITE), -1)
        if root < 0:
            return []
        order = {root: 0}
        low = {root: 0}
        whites_below = {root: 1}
        parent = {root: -1}
        stack = [(root, iter(near[root]))]
        cuts: list[int] = []
        while stack:
            v, children = stack[-1]
            advanced = False
            for u in children:
                if cells[u] == BLACK:
                    continue
                if u not in order:
                    order[u] = low[u] = len(order)
                    whites_below[u] = int(cells[u] == WHITE)
                    parent[u] = v
                    stack.append((u, iter(near[u])))
                    advanced = True
                    break
                if u != parent[v]:
                    low[v] = min(low[v], order[u])
            if advanced:
                continue
            stack.pop()
            p = parent[v]
            if p >= 0:
                low[p] = min(low[p], low[v])
                whites_below[p] += whites_below[v]
                if low[v] >= order[p] and whites_below[v] and cells[p] == UNKNOWN:
                    cuts.append(p)  # p separates v's subtree (with unshaded cells) from the root
        total = sum(1 for v in cells if v == WHITE)
        if whites_below[root] < total:
            return None
        return cuts

    def propagate(self, cells: list[int], queue: list[int], *, strong: bool = True) -> bool:
        """Apply the rules from the cells in ``queue`` (just decided) to a fixpoint; False on a
        contradiction. ``strong`` adds the connectivity rule."""
        try:
            self._local(cells, queue)
            while strong:
                cuts = self._cut_cells(cells)
                if cuts is None:
                    return False
                if not cuts:
                    return True
                for cell in cuts:
                    self._set(cells, cell, WHITE, queue)
                self._local(cells, queue)
            return True
        except _Contradiction:
            return False

    def solve(self, limit: int = 2, max_nodes: int = 0) -> HitoriSolver:
        try:
            cells = self._start()
        except _Contradiction:
            return self
        self._rec(cells, [], limit, max_nodes)
        return self

    def _rec(self, cells: list[int], queue: list[int], limit: int, max_nodes: int) -> bool:
        if max_nodes and self.nodes >= max_nodes:
            self.exhausted = True
            return True
        self.nodes += 1
        if not self.propagate(cells, queue):
            return False
        cell = next((c for c in range(len(cells)) if cells[c] == UNKNOWN), -1)
        if cell < 0:
            shading = [1 if v == BLACK else 0 for v in cells]
            if not check(self.n, self.digits, shading):  # the rules, checked once more in full
                self.solutions.append(shading)
            return len(self.solutions) >= limit
        for value in (BLACK, WHITE):
            branch = list(cells)
            self._set(branch, cell, value, [])
            if self._rec(branch, [cell], limit, max_nodes):
                return True
        return False

    def weak(self) -> tuple[list[int] | None, int]:
        """Local propagation only: no connectivity reasoning, no search."""
        try:
            cells = self._start()
        except _Contradiction:
            return None, self.work
        if not self.propagate(cells, [], strong=False) or UNKNOWN in cells:
            return None, self.work
        return [1 if v == BLACK else 0 for v in cells], self.work


def solve(n: int, digits: list[int], limit: int = 2, max_nodes: int = 0) -> HitoriSolver:
    return HitoriSolver(n, digits).solve(limit, max_nodes)


# --------------------------------------------------------------------------------------------
# Generation helpers
# --------------------------------------------------------------------------------------------


def random_shading(n: int, share: float, rng: np.random.Generator) -> list[int]:
    """Cells shaded in random order while none touch and the rest stays connected."""
    near = orthogonal(n)
    shaded = [0] * (n * n)
    target = round(share * n * n)
    count = 0
    for cell in rng.permutation(n * n).tolist():
        if count >= target:
            break
        if any(shaded[q] for q in near[cell]):
            continue
        shaded[cell] = 1
        if connected(n, [not s for s in shaded]):
            count += 1
        else:
            shaded[cell] = 0
    return shaded


def random_puzzle(n: int, share: float, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """(digits, shading): a Latin square whose shaded cells copy a digit left unshaded in their
    row or column."""
    latin = random_solution(make_geometry(n, None), rng)
    shading = random_shading(n, share, rng)
    digits = list(latin)
    for cell in range(n * n):
        if shading[cell]:
            r, c = divmod(cell, n)
            sources = [q for q in range(n * n) if not shading[q] and (q // n == r or q % n == c)]
            digits[cell] = latin[sources[int(rng.integers(len(sources)))]]
    return digits, shading


def canonical_hash(n: int, digits: list[int]) -> str:
    """The same under the 8 symmetries of the square and any renaming of the digits."""
    forms = []
    for m in square_maps(n):
        image = [0] * (n * n)
        for cell, v in enumerate(digits):
            image[m[cell]] = v
        forms.append(relabel_first_seen(image))
    return content_hash({"hitori": n, "form": list(min(forms))})


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} Hitori puzzle. Shade some cells so that:
- no digit appears twice in a row or in a column among the unshaded cells;
- shaded cells never touch each other on a side (touching at a corner is fine);
- the unshaded cells form one group, connected through their sides;
- only repeats are shaded: every shaded cell's digit also appears in an unshaded cell of the \
same row or column.
The puzzle has exactly one solution.

{grid}

Give the shading inside <answer>...</answer>: {n} lines, one per row, each with {n} \
characters: # for a shaded cell and . for an unshaded one (you may write an unshaded cell's \
digit instead of .). Format example only (a 4x4 grid, not a solution of this puzzle):
<answer>
#...
..#.
.#..
...#
</answer>"""


def digits_text(n: int, digits: list[int]) -> str:
    return "\n".join("".join(str(v) for v in digits[r * n : (r + 1) * n]) for r in range(n))


def shading_text(n: int, shading: list[int]) -> str:
    return "\n".join("".join(SHADE if v else CLEAR for v in shading[r * n : (r + 1) * n]) for r in range(n))


@family(
    "hitori",
    domain="puzzles",
    knobs=HitoriKnobs,
    levels=LEVELS,
    description="Hitori (shade repeated digits: no touching shades, unshaded cells connected; 4x4 to 9x9), unique shading proven.",
    verifier_kind="constraint check",
)
class Hitori(Family):
    def generate(self, knobs: HitoriKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            digits, shading = random_puzzle(n, knobs.shaded, rng)
            proof = solve(n, digits, max_nodes=NODE_BUDGET)
            if proof.exhausted or proof.count != 1 or proof.nodes < knobs.min_nodes:
                continue
            if not knobs.allow_easy and HitoriSolver(n, digits).weak()[0] is not None:
                continue  # degenerate: local propagation alone shades it
            return TaskDraft(
                prompt=PROMPT.format(n=n, grid=digits_text(n, digits)),
                answer=shading_text(n, proof.solutions[0]),
                metadata={
                    "size": n,
                    "digits": [digits[r * n : (r + 1) * n] for r in range(n)],
                    "num_shaded": sum(proof.solutions[0]),
                    "nodes": proof.nodes,
                    "work": proof.work,
                    "solutions": 1,
                    "canonical_hash": canonical_hash(n, digits),
                },
            )
        raise RuntimeError(f"no hitori puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    def verify(self, task: Task, response: str) -> Verdict:
        n, digits = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        grid, error = read_grid(extraction.text, n, n, SHADE + CLEAR + "0123456789", max_chars=MAX_GRID_CHARS)
        if grid is None:
            return Verdict.bad_format(error)
        cells = [ch for row in grid for ch in row]
        shading = [1 if ch == SHADE else 0 for ch in cells]
        parsed = [shading[r * n : (r + 1) * n] for r in range(n)]
        for cell, ch in enumerate(cells):
            if ch.isdigit() and int(ch) != digits[cell]:
                r, c = divmod(cell, n)
                return Verdict.wrong(f"r{r + 1}c{c + 1} holds {digits[cell]}, not {ch}", parsed)
        problem = check(n, digits, shading)
        return Verdict.wrong(problem, parsed) if problem else Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        """Local and connectivity propagation at every node, then branching (effort: cells decided)."""
        n, digits = _unpack(task)
        search = solve(n, digits)
        if not search.solutions:
            return SolverRun(None, float(search.work))
        return SolverRun(f"<answer>\n{shading_text(n, search.solutions[0])}\n</answer>", float(search.work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Local propagation only (no connectivity reasoning, no search)."""
        n, digits = _unpack(task)
        shading, work = HitoriSolver(n, digits).weak()
        return SolverRun(
            None if shading is None else f"<answer>\n{shading_text(n, shading)}\n</answer>", float(work)
        )

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, _ = _unpack(task)
        cells = list(task.answer.replace("\n", ""))
        shaded = [c for c in range(n * n) if cells[c] == SHADE]
        clear = [c for c in range(n * n) if cells[c] == CLEAR]
        out = []
        dropped = list(cells)
        dropped[shaded[int(rng.integers(len(shaded)))]] = CLEAR
        out.append(dropped)
        added = list(cells)
        added[clear[int(rng.integers(len(clear)))]] = SHADE
        out.append(added)
        moved = list(dropped)
        moved[clear[int(rng.integers(len(clear)))]] = SHADE
        out.append(moved)
        out.append([CLEAR] * (n * n))  # nothing shaded
        out.append([SHADE if (c // n + c % n) % 2 else CLEAR for c in range(n * n)])  # a checkerboard
        texts = {"\n".join("".join(g[r * n : (r + 1) * n]) for r in range(n)) for g in out}
        texts.discard(task.answer)
        return [f"<answer>\n{t}\n</answer>" for t in sorted(texts)]


def _unpack(task: Task) -> tuple[int, list[int]]:
    meta = task.metadata
    return int(meta["size"]), [int(v) for row in meta["digits"] for v in row]
