"""Skyscrapers: fill an n x n Latin square of building heights so that the clues around the edge
count the buildings visible from that side (a taller building hides every shorter one behind it).

Generation: a random Latin square; all 4n visibility clues are computed; if they leave several
solutions, a cell where two solutions differ is revealed as a given until one solution is left.
Clues are then removed in random order while the solution stays unique (down to ``min_clues``).
Uniqueness is proven by an exact solver: every row and column keeps the set of permutations its
clues allow (numpy bit-encoded, filtered against the cell candidates: line arc consistency), and
the search branches on the cell with fewest candidates, counting solutions up to 2. Effort = permutations the solver examined (``work``; ``nodes``
counts its propagations, often 1: the line reasoning alone usually decides the grid).

Speed (CPU time of one core; the shared machine's wall clock runs 3-10x slower under load):
level 1 ~560 tasks/s, level 5 (5x5, minimal clues) ~70/s, level 10 (7x7) ~13/s: every clue
removal costs a uniqueness proof (group testing halves their number) over lines of up to 5,040
permutations, and random 7x7 squares usually need a few revealed cells even with all 28 clues
(hence ``max_givens`` > 0 there).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_digit_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from ._latin import BIT_VALUE, Geometry, grid_text, latin_violation, make_geometry, random_solution, to_rows

SIDES = ("top", "bottom", "left", "right")
MAX_ATTEMPTS = 200


@dataclass(frozen=True)
class SkyscrapersKnobs(Knobs):
    size: int = knob(4, low=4, high=7, help="grid size n (heights 1..n)")
    min_clues: int = knob(
        0,
        low=0,
        high=28,
        help="stop removing edge clues at this many (0: remove while the answer stays unique)",
    )
    max_givens: int = knob(
        49, low=0, high=49, help="reject puzzles that need more revealed cells than this to be unique"
    )
    allow_easy: bool = knob(
        True, help="accept puzzles that the edge rules and singles alone solve (rejected at levels >= 3)"
    )

    def validate(self) -> None:
        if self.min_clues > 4 * self.size:
            raise ValueError(f"min_clues {self.min_clues} exceeds the {4 * self.size} edge clues")


LEVELS = {
    1: SkyscrapersKnobs(size=4, min_clues=16),
    2: SkyscrapersKnobs(size=4, min_clues=10),
    3: SkyscrapersKnobs(size=5, min_clues=16, allow_easy=False),
    4: SkyscrapersKnobs(size=5, min_clues=13, allow_easy=False),
    5: SkyscrapersKnobs(size=5, allow_easy=False),
    6: SkyscrapersKnobs(size=6, min_clues=18, allow_easy=False),
    7: SkyscrapersKnobs(size=6, max_givens=2, allow_easy=False),
    8: SkyscrapersKnobs(size=6, max_givens=0, allow_easy=False),
    9: SkyscrapersKnobs(size=7, min_clues=20, max_givens=8, allow_easy=False),
    10: SkyscrapersKnobs(size=7, max_givens=6, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Lines and clues
# --------------------------------------------------------------------------------------------


def visible(heights: list[int] | tuple[int, ...]) -> int:
    """How many buildings are seen looking along ``heights`` from its start."""
    count, tallest = 0, 0
    for h in heights:
        if h > tallest:
            count, tallest = count + 1, h
    return count


@lru_cache(maxsize=8)
def line_cells(n: int) -> dict[tuple[str, int], list[int]]:
    """The cells seen from each clue position, nearest first (cached; callers must not mutate)."""
    lines = {}
    for i in range(n):
        lines[("top", i)] = [r * n + i for r in range(n)]
        lines[("bottom", i)] = [r * n + i for r in reversed(range(n))]
        lines[("left", i)] = [i * n + c for c in range(n)]
        lines[("right", i)] = [i * n + c for c in reversed(range(n))]
    return lines


def all_clues(solution: list[int], n: int) -> dict[str, list[int]]:
    lines = line_cells(n)
    return {side: [visible([solution[c] for c in lines[(side, i)]]) for i in range(n)] for side in SIDES}


@lru_cache(maxsize=8)
def _perm_table(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All permutations of 1..n bit-encoded (position p, value v -> bit p*n + v-1), with the
    visibility from the front and from the back (a pure function of n, so caching is safe)."""
    perms = list(permutations(range(1, n + 1)))
    codes = np.array(
        [sum(1 << (p * n + v - 1) for p, v in enumerate(perm)) for perm in perms], dtype=np.uint64
    )
    front = np.array([visible(perm) for perm in perms], dtype=np.int8)
    back = np.array([visible(perm[::-1]) for perm in perms], dtype=np.int8)
    return codes, front, back


# --------------------------------------------------------------------------------------------
# Exact solver
# --------------------------------------------------------------------------------------------


class _Search:
    """Count solutions up to a limit; line arc consistency + Latin eliminations + branching."""

    def __init__(self, n: int, clues: dict[str, list[int]], givens: list[int]) -> None:
        self.n, self.full = n, (1 << n) - 1
        self.geo = latin_geometry(n)
        codes, front, back = _perm_table(n)
        lines = line_cells(n)
        self.lines: list[tuple[list[int], np.ndarray]] = []
        # one entry per row and column, oriented from its start (top or left); its clues
        # filter the permutations, an unclued line keeps all n! (the Latin rule, as a line)
        for start, end in (("top", "bottom"), ("left", "right")):
            for i in range(n):
                a, b = clues[start][i], clues[end][i]
                keep = np.ones(len(codes), dtype=bool)
                if a:
                    keep &= front == a
                if b:
                    keep &= back == b
                self.lines.append((lines[(start, i)], codes[keep]))
        self.givens = givens
        self.nodes = 0
        self.work = 0  # permutations examined: the solver's effort
        self.count = 0
        self.solutions: list[list[int]] = []

    @property
    def solution(self) -> list[int] | None:
        return self.solutions[0] if self.solutions else None

    def run(self, limit: int = 2) -> _Search:
        cand = [(1 << (v - 1)) if v else self.full for v in self.givens]
        self._rec(cand, [arr for _, arr in self.lines], limit)
        return self

    def _propagate(self, cand: list[int], arrays: list[np.ndarray]) -> bool:
        n, full, peers = self.n, self.full, self.geo.peers
        mask_all = (1 << (n * n)) - 1
        seen_allowed = [-1] * len(self.lines)  # skip a line whose cells have not changed
        queue = [cell for cell in range(n * n) if not cand[cell] & (cand[cell] - 1)]
        while True:
            # Latin: a decided cell removes its value from its row and column
            while queue:
                cell = queue.pop()
                m = cand[cell]
                if not m:
                    return False
                for p in peers[cell]:
                    if cand[p] & m:
                        rest = cand[p] & ~m
                        cand[p] = rest
                        if not rest & (rest - 1):
                            queue.append(p)
            # clued lines: keep the permutations the cell candidates allow, then project back
            for k, (cells, _) in enumerate(self.lines):
                allowed = 0
                for pos, cell in enumerate(cells):
                    allowed |= cand[cell] << (pos * n)
                if allowed == seen_allowed[k]:
                    continue
                arr = arrays[k]
                self.work += len(arr)
                arr = arr[(arr & np.uint64(~allowed & mask_all)) == 0]
                if not len(arr):
                    return False
                arrays[k] = arr
                union = int(np.bitwise_or.reduce(arr))
                seen_allowed[k] = union
                for pos, cell in enumerate(cells):
                    m = (union >> (pos * n)) & full
                    if m != cand[cell]:
                        cand[cell] = m
                        if not m & (m - 1):
                            queue.append(cell)
            if not queue:
                return all(cand)

    def _rec(self, cand: list[int], arrays: list[np.ndarray], limit: int) -> bool:
        self.nodes += 1
        if not self._propagate(cand, arrays):
            return False
        best, best_count = -1, 99
        for cell, m in enumerate(cand):
            if m & (m - 1):
                pc = bin(m).count("1")
                if pc < best_count:
                    best, best_count = cell, pc
        if best < 0:
            self.count += 1
            self.solutions.append([BIT_VALUE[m] for m in cand])
            return self.count >= limit
        mask = cand[best]
        while mask:
            bit = mask & -mask
            mask ^= bit
            branch = list(cand)
            branch[best] = bit
            if self._rec(branch, list(arrays), limit):
                return True
        return False


@lru_cache(maxsize=8)
def latin_geometry(n: int) -> Geometry:
    """Rows and columns only (cached: a pure function of n)."""
    return make_geometry(n, None)


def solve(n: int, clues: dict[str, list[int]], givens: list[int], limit: int = 2) -> _Search:
    return _Search(n, clues, givens).run(limit)


# --------------------------------------------------------------------------------------------
# Weak solver: textbook edge rules and singles, no search
# --------------------------------------------------------------------------------------------


def weak_solve(n: int, clues: dict[str, list[int]], givens: list[int]) -> tuple[list[int] | None, int]:
    """Edge rules (a clue c forbids heights above n - c + 1 + d at distance d; clue n fixes the
    line) then naked and hidden singles; ``None`` when stuck."""
    full = (1 << n) - 1
    cand = [(1 << (v - 1)) if v else full for v in givens]
    lines = line_cells(n)
    for side in SIDES:
        for i, c in enumerate(clues[side]):
            if not c:
                continue
            for d, cell in enumerate(lines[(side, i)]):
                cap = n if c == 1 and d == 0 else n - c + 1 + d
                if c == 1 and d == 0:
                    cand[cell] &= 1 << (n - 1)
                else:
                    cand[cell] &= (1 << min(cap, n)) - 1
                if c == n:
                    cand[cell] &= 1 << d
    geo = latin_geometry(n)
    steps = 0
    while True:
        progress = False
        for cell in range(n * n):
            m = cand[cell]
            if not m:
                return None, steps
            if not m & (m - 1):
                for p in geo.peers[cell]:
                    if cand[p] & m:
                        cand[p] &= ~m
                        progress = True
        for unit in geo.units:
            for v in range(n):
                bit = 1 << v
                spots = [c for c in unit if cand[c] & bit]
                if len(spots) == 1 and cand[spots[0]] != bit:
                    cand[spots[0]] = bit
                    progress = True
        steps += 1
        if not progress:
            break
    if all(m and not m & (m - 1) for m in cand):
        return [BIT_VALUE[m] for m in cand], steps
    return None, steps


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} skyscrapers puzzle. Each cell holds a building of height 1 to {n}; \
every row and every column contains each height exactly once. A number outside the grid says how \
many buildings are visible from that side, looking along its row or column (a building hides every \
shorter building behind it). A dot outside the grid means no clue; a dot inside is an empty cell, \
a digit inside is a given height. The puzzle has exactly one solution.

{board}

The same clues as lists (. = no clue):
top (left to right): {top}
bottom (left to right): {bottom}
left (top to bottom): {left}
right (top to bottom): {right}

Give the completed grid inside <answer>...</answer>: {n} lines, one per row, each with the {n} \
heights of that row (spaces between digits are allowed). Format example only (a 4x4 grid, not a \
solution of this puzzle):
<answer>
1234
3412
2143
4321
</answer>"""


def _fmt(values: list[int]) -> str:
    return " ".join(str(v) if v else "." for v in values)


def render_board(n: int, clues: dict[str, list[int]], givens: list[int]) -> str:
    lines = ["    " + _fmt(clues["top"])]
    for r in range(n):
        row = _fmt(givens[r * n : (r + 1) * n])
        left = str(clues["left"][r]) if clues["left"][r] else "."
        right = str(clues["right"][r]) if clues["right"][r] else "."
        lines.append(f"{left} | {row} | {right}")
    lines.append("    " + _fmt(clues["bottom"]))
    return "\n".join(lines)


def canonical_hash(n: int, clues: dict[str, list[int]], givens: list[int]) -> str:
    """Least form under the 8 symmetries of the square (clues move with the grid)."""
    forms = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                forms.append(_transform(n, clues, givens, transpose, flip_rows, flip_cols))
    return content_hash({"skyscrapers": n, "form": min(forms)})


def _transform(n, clues, givens, transpose, flip_rows, flip_cols):
    c = {k: list(v) for k, v in clues.items()}
    g = to_rows(givens, n)
    if transpose:
        g = [list(col) for col in zip(*g, strict=True)]
        c = {"top": c["left"], "bottom": c["right"], "left": c["top"], "right": c["bottom"]}
    if flip_rows:
        g = g[::-1]
        c = {"top": c["bottom"], "bottom": c["top"], "left": c["left"][::-1], "right": c["right"][::-1]}
    if flip_cols:
        g = [row[::-1] for row in g]
        c = {"top": c["top"][::-1], "bottom": c["bottom"][::-1], "left": c["right"], "right": c["left"]}
    return [c[s] for s in SIDES], g


@family(
    "skyscrapers",
    domain="puzzles",
    knobs=SkyscrapersKnobs,
    levels=LEVELS,
    description="Skyscrapers (Latin square with visibility clues, 4x4 to 7x7), unique solution proven by search.",
    verifier_kind="constraint check",
)
class Skyscrapers(Family):
    def generate(self, knobs: SkyscrapersKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        geo = latin_geometry(n)
        for _ in range(MAX_ATTEMPTS):
            solution = random_solution(geo, rng)
            clues = all_clues(solution, n)
            givens = [0] * (n * n)
            search = solve(n, clues, givens)
            while search.count > 1:  # reveal a cell where two solutions differ
                other = next(s for s in search.solutions if s != solution)
                diff = [i for i in range(n * n) if other[i] != solution[i]]
                cell = diff[int(rng.integers(len(diff)))]
                givens[cell] = solution[cell]
                search = solve(n, clues, givens)
            if sum(1 for v in givens if v) > knobs.max_givens:
                continue
            clues = self._dig_clues(n, clues, givens, knobs.min_clues, rng)
            proof = solve(n, clues, givens)
            if proof.count != 1:  # pragma: no cover - digging keeps uniqueness
                continue
            weak, _ = weak_solve(n, clues, givens)
            if weak is not None and not knobs.allow_easy:
                continue  # degenerate: edge rules and singles suffice
            return self._draft(n, clues, givens, solution, proof)
        raise RuntimeError(f"no skyscrapers puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    @staticmethod
    def _dig_clues(n, clues, givens, min_clues, rng) -> dict[str, list[int]]:
        """Remove clues in random order while the answer stays unique. Uniqueness is monotone
        in the clue set, so a group of removals is tried at once and halved on a refusal."""
        clues = {k: list(v) for k, v in clues.items()}
        spots = [(SIDES[k // n], k % n) for k in rng.permutation(4 * n).tolist()]
        count, size = 4 * n, max(1, n // 2)
        while spots and count > min_clues:
            size = min(size, count - min_clues)
            group = spots[:size]
            saved = [clues[side][i] for side, i in group]
            for side, i in group:
                clues[side][i] = 0
            if solve(n, clues, givens).count == 1:
                count -= len(group)
                del spots[:size]
                continue
            for (side, i), v in zip(group, saved, strict=True):
                clues[side][i] = v
            if size > 1:
                size //= 2
            else:
                spots.pop(0)
        return clues

    def _draft(self, n, clues, givens, solution, proof) -> TaskDraft:
        prompt = PROMPT.format(
            n=n,
            board=render_board(n, clues, givens),
            **{side: _fmt(clues[side]) for side in SIDES},
        )
        return TaskDraft(
            prompt=prompt,
            answer=grid_text(solution, n),
            metadata={
                "size": n,
                "clues": clues,
                "givens": to_rows(givens, n),
                "num_clues": sum(1 for side in SIDES for v in clues[side] if v),
                "num_givens": sum(1 for v in givens if v),
                "nodes": proof.nodes,
                "work": proof.work,
                "solutions": 1,
                "canonical_hash": canonical_hash(n, clues, givens),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, clues, givens = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, error = read_digit_grid(extraction.text, n)
        if rows is None:
            return Verdict.bad_format(error)
        if problem := latin_violation(rows, givens, "height"):
            return Verdict.wrong(problem, rows)
        cells = [v for row in rows for v in row]
        lines = line_cells(n)
        for side in SIDES:
            for i, clue in enumerate(clues[side]):
                seen = visible([cells[c] for c in lines[(side, i)]])
                if clue and seen != clue:
                    return Verdict.wrong(
                        f"{side} clue {i + 1} is {clue} but {seen} buildings are visible", rows
                    )
        return Verdict.right(parsed=rows)

    def solve_exact(self, task: Task) -> SolverRun:
        n, clues, givens = _unpack(task)
        search = solve(n, clues, givens)
        if search.solution is None:
            return SolverRun(None, float(search.work))
        return SolverRun(f"<answer>\n{grid_text(search.solution, n)}\n</answer>", float(search.work))

    def solve_weak(self, task: Task) -> SolverRun:
        n, clues, givens = _unpack(task)
        grid, steps = weak_solve(n, clues, givens)
        return SolverRun(None if grid is None else f"<answer>\n{grid_text(grid, n)}\n</answer>", float(steps))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, _, givens = _unpack(task)
        rows = task.answer.split("\n")
        out = []
        # two whole columns swapped: still a Latin square, but the clues (and givens) break
        grid = [list(r) for r in rows]
        a, b = 0, 1 + int(rng.integers(n - 1))
        out.append("\n".join("".join(r[:a] + [r[b]] + r[a + 1 : b] + [r[a]] + r[b + 1 :]) for r in grid))
        # one cell changed
        cell = int(rng.integers(n * n))
        changed = [list(r) for r in rows]
        changed[cell // n][cell % n] = str(int(changed[cell // n][cell % n]) % n + 1)
        out.append("\n".join("".join(r) for r in changed))
        # two cells of a row swapped
        row = int(rng.integers(n))
        swapped = list(rows)
        swapped[row] = rows[row][1] + rows[row][0] + rows[row][2:]
        out.append("\n".join(swapped))
        out.append("\n".join(rows[:-1]))  # wrong size
        return [f"<answer>\n{g}\n</answer>" for g in out]


def _unpack(task: Task) -> tuple[int, dict[str, list[int]], list[int]]:
    meta = task.metadata
    return (
        int(meta["size"]),
        {k: list(v) for k, v in meta["clues"].items()},
        [v for r in meta["givens"] for v in r],
    )
