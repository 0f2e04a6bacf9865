"""Star battle: place stars in an n x n grid divided into n regions so that every row, every
column and every region holds exactly k stars and no two stars touch, not even diagonally.

Generation: a random valid star placement (backtracking row by row); regions grow from the stars
(one star per seed; for k = 2 the 2n seed regions are then merged in pairs by a perfect matching
of the region adjacency graph). While the exact solver finds a second solution, a cell that is a
star there but not in the intended placement moves to a neighbouring region, which breaks the
other solution and keeps the intended one; when the move would split its region, the pieces
without the region's intended stars move along with it (they touch the cell, so every region
stays connected). The exact solver (unit counting propagation plus branching, counting
solutions up to 2) proves uniqueness.
Effort = unit checks the exact solver made (``work``); ``nodes`` = its branching nodes.

The weak solver is the propagation alone (a unit with k stars is closed, a unit with exactly as
many open cells as missing stars is filled, a star blanks its neighbours); it gives up when stuck.

Speed (CPU time of one core; the shared machine's wall clock runs several times slower):
level 1 ~1,000 tasks/s, level 5 (8x8, one star) ~140/s, level 7 (10x10) ~35/s, level 8 (11x11,
one star) ~12/s wall on this machine under load, level 10 (10x10, two stars) ~4.5/s over 40 seeds. Moving split-off pieces along
(instead of giving up on a cell whose move would split its region) made the region repair
succeed about three times as often, which cut the uniqueness proofs per task about fourfold.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_binary_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_ATTEMPTS = 200
MAX_FIXES = 400
MAX_CHARS = 5000
LETTERS = "ABCDEFGHIJKLMNOP"


@dataclass(frozen=True)
class StarBattleKnobs(Knobs):
    size: int = knob(5, low=4, high=11, help="grid size n (n rows, n columns, n regions)")
    stars: int = knob(1, low=1, high=2, help="stars per row, column and region (k)")
    allow_easy: bool = knob(True, help="accept puzzles that propagation alone solves (False: reject them)")

    def validate(self) -> None:
        if self.size < 4 * self.stars:
            raise ValueError(
                f"size {self.size} is too small for {self.stars} stars per line (need >= {4 * self.stars})"
            )


LEVELS = {
    1: StarBattleKnobs(size=5),
    2: StarBattleKnobs(size=6),
    3: StarBattleKnobs(size=7),
    4: StarBattleKnobs(size=8),
    5: StarBattleKnobs(size=8, allow_easy=False),
    6: StarBattleKnobs(size=9, allow_easy=False),
    7: StarBattleKnobs(size=10, allow_easy=False),
    # 11x11 with one star, not 8x8 with two: an 8x8 grid holds so few two-star layouts that one
    # fixed grid was the answer of 0.65 of level-8 tasks (issue 26)
    8: StarBattleKnobs(size=11, allow_easy=False),
    9: StarBattleKnobs(size=9, stars=2, allow_easy=False),
    10: StarBattleKnobs(size=10, stars=2, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------------------------


def neighbours(n: int) -> list[int]:
    """Bitmask of the (up to 8) touching cells of each cell."""
    out = []
    for r in range(n):
        for c in range(n):
            m = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n:
                        m |= 1 << ((r + dr) * n + c + dc)
            out.append(m)
    return out


def units_of(n: int, regions: list[int]) -> list[int]:
    """Rows, columns and regions as cell bitmasks."""
    rows = [sum(1 << (r * n + c) for c in range(n)) for r in range(n)]
    cols = [sum(1 << (r * n + c) for r in range(n)) for c in range(n)]
    regs = [0] * n
    for cell, g in enumerate(regions):
        regs[g] |= 1 << cell
    return rows + cols + regs


# --------------------------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------------------------


class _Solver:
    def __init__(self, n: int, k: int, regions: list[int]) -> None:
        self.n, self.k = n, k
        self.units = units_of(n, regions)
        self.nbr = neighbours(n)
        self.nodes = 0
        self.work = 0
        self.count = 0
        self.solutions: list[int] = []

    def propagate(self, stars: int, avail: int) -> tuple[int, int] | None:
        k, nbr = self.k, self.nbr
        changed = True
        while changed:
            changed = False
            for u in self.units:
                self.work += 1
                s = (stars & u).bit_count()
                open_ = avail & u
                a = open_.bit_count()
                if s > k or s + a < k:
                    return None
                if not a:
                    continue
                if s == k:
                    avail &= ~u
                    changed = True
                elif s + a == k:
                    while open_:
                        bit = open_ & -open_
                        open_ ^= bit
                        if not avail & bit:
                            return None  # a star placed just before touches this cell
                        stars |= bit
                        avail &= ~(bit | nbr[bit.bit_length() - 1])
                    changed = True
        return stars, avail

    def search(self, limit: int = 2) -> _Solver:
        self._rec(0, (1 << (self.n * self.n)) - 1, limit)
        return self

    def _rec(self, stars: int, avail: int, limit: int) -> bool:
        self.nodes += 1
        state = self.propagate(stars, avail)
        if state is None:
            return False
        stars, avail = state
        if not avail:
            self.count += 1
            self.solutions.append(stars)
            return self.count >= limit
        best, best_a = 0, 1 << 30
        for u in self.units:
            a = (avail & u).bit_count()
            if a and a < best_a:
                best, best_a = u, a
        bit = avail & best
        bit &= -bit
        if self._rec(stars | bit, avail & ~(bit | self.nbr[bit.bit_length() - 1]), limit):
            return True
        return self._rec(stars, avail & ~bit, limit)


def solve(n: int, k: int, regions: list[int], limit: int = 2) -> _Solver:
    return _Solver(n, k, regions).search(limit)


def weak_solve(n: int, k: int, regions: list[int]) -> tuple[int | None, int]:
    """Propagation only: (stars bitmask or None, unit checks)."""
    s = _Solver(n, k, regions)
    state = s.propagate(0, (1 << (n * n)) - 1)
    if state is None or state[1]:
        return None, s.work
    return state[0], s.work


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def random_stars(n: int, k: int, rng: np.random.Generator) -> list[int] | None:
    """Star cells of a random valid placement (k per row and column, none touching)."""
    combos: list[tuple[int, ...]] = []

    def gen(start: int, acc: tuple[int, ...]) -> None:
        if len(acc) == k:
            combos.append(acc)
            return
        for c in range(start, n):
            if not acc or c > acc[-1] + 1:
                gen(c + 2, acc + (c,))

    gen(0, ())
    col_count = [0] * n
    rows: list[tuple[int, ...]] = []
    budget = [5000]

    def rec(r: int) -> bool:
        if r == n:
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        prev = set(rows[-1]) if rows else set()
        for i in rng.permutation(len(combos)).tolist():
            combo = combos[i]
            if any(col_count[c] >= k or c in prev or c - 1 in prev or c + 1 in prev for c in combo):
                continue
            for c in combo:
                col_count[c] += 1
            rows.append(combo)
            if rec(r + 1):
                return True
            rows.pop()
            for c in combo:
                col_count[c] -= 1
        return False

    if not rec(0):
        return None
    return [r * n + c for r, combo in enumerate(rows) for c in combo]


def _adjacent(n: int, cell: int) -> list[int]:
    r, c = divmod(cell, n)
    return [
        (r + dr) * n + c + dc
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < n and 0 <= c + dc < n
    ]


def grow_regions(n: int, seeds: list[int], rng: np.random.Generator) -> list[int]:
    """Random flood fill from the seeds: region i starts at seeds[i]."""
    region = [-1] * (n * n)
    frontier = []
    for i, cell in enumerate(seeds):
        region[cell] = i
        frontier.append(cell)
    while frontier:
        cell = frontier[int(rng.integers(len(frontier)))]
        free = [x for x in _adjacent(n, cell) if region[x] < 0]
        if not free:
            frontier.remove(cell)
            continue
        nxt = free[int(rng.integers(len(free)))]
        region[nxt] = region[cell]
        frontier.append(nxt)
    return region


def _components_without(n: int, region: list[int], cell: int) -> list[list[int]]:
    """The connected pieces region[cell] falls into when ``cell`` leaves it."""
    g = region[cell]
    left = {x for x in range(n * n) if region[x] == g and x != cell}
    pieces = []
    while left:
        start = left.pop()
        piece, stack = [start], [start]
        while stack:
            for y in _adjacent(n, stack.pop()):
                if y in left:
                    left.discard(y)
                    piece.append(y)
                    stack.append(y)
        pieces.append(piece)
    return pieces


def _move_cell(n: int, region: list[int], cell: int, star_mask: int, rng: np.random.Generator) -> bool:
    """Give ``cell`` (not an intended star) to a neighbouring region. When that would split its
    region, the pieces holding none of the region's intended stars go along with it (they touch
    ``cell``, so every region stays connected); impossible when the stars end up apart."""
    targets = sorted({region[x] for x in _adjacent(n, cell)} - {region[cell]})
    if not targets:
        return False
    pieces = _components_without(n, region, cell)
    starred = [p for p in pieces if any(star_mask >> x & 1 for x in p)]
    if len(starred) != 1:
        return False  # the region would lose its stars, or its stars would be split
    target = targets[int(rng.integers(len(targets)))]
    for x in [cell] + [x for p in pieces if p is not starred[0] for x in p]:
        region[x] = target
    return True


def make_regions(n: int, k: int, stars: list[int], rng: np.random.Generator) -> list[int] | None:
    order = rng.permutation(len(stars)).tolist()
    region = grow_regions(n, [stars[i] for i in order], rng)
    if k == 1:
        return region
    graph = nx.Graph()
    graph.add_nodes_from(range(len(stars)))
    for cell in range(n * n):
        for other in _adjacent(n, cell):
            a, b = region[cell], region[other]
            if a < b and not graph.has_edge(a, b):
                graph.add_edge(a, b, weight=float(rng.random()))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if len(matching) * 2 != len(stars):
        return None
    label = {}
    for i, (a, b) in enumerate(sorted(tuple(sorted(e)) for e in matching)):
        label[a] = label[b] = i
    return [label[g] for g in region]


def fix_uniqueness(
    n: int, k: int, region: list[int], star_mask: int, rng: np.random.Generator
) -> _Solver | None:
    """Move cells between regions until only the intended placement remains."""
    for _ in range(MAX_FIXES):
        proof = solve(n, k, region)
        if proof.count == 1:
            return proof
        other = next(s for s in proof.solutions if s != star_mask)
        wrong = other & ~star_mask
        cells = [c for c in range(n * n) if wrong >> c & 1]
        if not any(
            _move_cell(n, region, cells[i], star_mask, rng) for i in rng.permutation(len(cells)).tolist()
        ):
            return None
    return None


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} star battle puzzle. The grid is divided into {n} regions, shown by \
letters (cells with the same letter form one region). Place stars so that every row, every \
column and every region contains exactly {k} star{s}, and no two stars touch each other, not \
even diagonally. The puzzle has exactly one solution.

{board}

Give the grid inside <answer>...</answer>: {n} lines, one per row, each with {n} characters, \
* for a star and . for an empty cell. Format example only (a 5x5 grid with one star per row, \
not a solution of this puzzle):
<answer>
.*...
...*.
*....
..*..
....*
</answer>"""

_STAR = set("*1#Xx★S")
_EMPTY = set(".0-_oO")


def parse_stars(text: str, n: int) -> tuple[list[list[int]] | None, str]:
    return read_binary_grid(text, n, n, _STAR, _EMPTY, max_chars=MAX_CHARS)


def board_text(n: int, region: list[int]) -> str:
    return "\n".join(" ".join(LETTERS[g] for g in region[r * n : (r + 1) * n]) for r in range(n))


def stars_text(n: int, mask: int) -> str:
    return "\n".join("".join("*" if mask >> (r * n + c) & 1 else "." for c in range(n)) for r in range(n))


def canonical_hash(n: int, k: int, region: list[int]) -> str:
    """Least first-seen relabelling of the regions under the 8 symmetries of the square."""
    rows = [region[r * n : (r + 1) * n] for r in range(n)]
    forms = []
    for _ in range(4):
        rows = [list(col) for col in zip(*rows[::-1], strict=True)]
        for grid in (rows, [r[::-1] for r in rows]):
            names: dict[int, int] = {}
            forms.append([names.setdefault(v, len(names)) for r in grid for v in r])
    return content_hash({"star_battle": [n, k], "form": min(forms)})


@family(
    "star_battle",
    domain="puzzles",
    knobs=StarBattleKnobs,
    levels=LEVELS,
    description="Star battle (k stars per row, column and region, no touching; 5x5 to 11x11), unique solution proven.",
    verifier_kind="constraint check",
    version=2,  # 2: level 8 is 11x11 with one star (was 8x8 with two)
)
class StarBattle(Family):
    def generate(self, knobs: StarBattleKnobs, rng: np.random.Generator) -> TaskDraft:
        n, k = knobs.size, knobs.stars
        for _ in range(MAX_ATTEMPTS):
            stars = random_stars(n, k, rng)
            if stars is None:
                continue
            region = make_regions(n, k, stars, rng)
            if region is None:
                continue
            star_mask = sum(1 << c for c in stars)
            proof = fix_uniqueness(n, k, region, star_mask, rng)
            if proof is None:
                continue
            weak, _ = weak_solve(n, k, region)
            if weak is not None and not knobs.allow_easy:
                continue
            return TaskDraft(
                prompt=PROMPT.format(n=n, k=k, s="s" if k > 1 else "", board=board_text(n, region)),
                answer=stars_text(n, star_mask),
                metadata={
                    "size": n,
                    "stars": k,
                    "regions": [region[r * n : (r + 1) * n] for r in range(n)],
                    "nodes": proof.nodes,
                    "work": proof.work,
                    "technique": "propagation" if weak is not None else "search",
                    "solutions": 1,
                    "canonical_hash": canonical_hash(n, k, region),
                },
            )
        raise RuntimeError(f"no star battle matched {knobs} in {MAX_ATTEMPTS} attempts")

    def verify(self, task: Task, response: str) -> Verdict:
        n, k, region = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        grid, error = parse_stars(extraction.text, n)
        if grid is None:
            return Verdict.bad_format(error)
        for r in range(n):
            if sum(grid[r]) != k:
                return Verdict.wrong(f"row {r + 1} has {sum(grid[r])} stars, not {k}", grid)
        for c in range(n):
            count = sum(grid[r][c] for r in range(n))
            if count != k:
                return Verdict.wrong(f"column {c + 1} has {count} stars, not {k}", grid)
        for g in range(n):
            count = sum(grid[r][c] for r in range(n) for c in range(n) if region[r * n + c] == g)
            if count != k:
                return Verdict.wrong(f"region {LETTERS[g]} has {count} stars, not {k}", grid)
        for r in range(n):
            for c in range(n - 1):
                if grid[r][c] and grid[r][c + 1]:
                    return Verdict.wrong(f"stars at r{r + 1}c{c + 1} and r{r + 1}c{c + 2} touch", grid)
        for r in range(n - 1):
            for c in range(n):
                for dc in (-1, 0, 1):
                    if grid[r][c] and 0 <= c + dc < n and grid[r + 1][c + dc]:
                        return Verdict.wrong(
                            f"stars at r{r + 1}c{c + 1} and r{r + 2}c{c + dc + 1} touch", grid
                        )
        return Verdict.right(parsed=grid)

    def solve_exact(self, task: Task) -> SolverRun:
        n, k, region = _unpack(task)
        s = solve(n, k, region, limit=1)
        if not s.solutions:
            return SolverRun(None, float(s.work))
        return SolverRun(f"<answer>\n{stars_text(n, s.solutions[0])}\n</answer>", float(s.work))

    def solve_weak(self, task: Task) -> SolverRun:
        n, k, region = _unpack(task)
        mask, work = weak_solve(n, k, region)
        return SolverRun(None if mask is None else f"<answer>\n{stars_text(n, mask)}\n</answer>", float(work))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, _, _ = _unpack(task)
        rows = [list(r) for r in task.answer.split("\n")]
        out = []
        # a star moved one cell sideways: its row count stays, columns (and touching) break
        r = int(rng.integers(n))
        c = rows[r].index("*")
        moved = [list(x) for x in rows]
        moved[r][c] = "."
        moved[r][c + 1 if c + 1 < n else c - 1] = "*"
        out.append(moved)
        removed = [list(x) for x in rows]  # one star missing
        removed[r][c] = "."
        out.append(removed)
        # two rows swapped: row counts stay, regions or touching break (the solution is unique)
        others = [x for x in range(n) if rows[x] != rows[r]]
        a = others[int(rng.integers(len(others)))]
        swapped = [list(x) for x in rows]
        swapped[r], swapped[a] = swapped[a], swapped[r]
        out.append(swapped)
        out.append(rows[:-1])  # wrong size
        return ["<answer>\n" + "\n".join("".join(x) for x in g) + "\n</answer>" for g in out]


def _unpack(task: Task) -> tuple[int, int, list[int]]:
    meta = task.metadata
    return int(meta["size"]), int(meta["stars"]), [g for r in meta["regions"] for g in r]
