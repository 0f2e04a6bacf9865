"""Binairo (takuzu): fill an n x n grid with 0s and 1s so that no three equal digits are adjacent
in a row or column, every row and column holds as many 0s as 1s, and no two rows (and no two
columns) are identical.

Generation: a random complete grid (the exact solver with random branching), then givens are
removed in random order while the puzzle stays uniquely solvable by the solver of the level's
``tier``: ``basic`` (textbook pair, sandwich and count rules), ``line`` (every row and column
keeps the set of valid lines its known cells allow: line arc consistency, plus the distinct-line
rule) or ``search`` (the exact solver, counting solutions up to 2). A deduction-only solver that
completes the grid proves uniqueness by itself (every step is forced); the search tier proves it
by counting. Effort = line patterns the exact solver examined (``work``); ``nodes`` = its
branching nodes.

Speed (CPU time of one core; the shared machine's wall clock runs several times slower):
level 1 ~300 tasks/s, level 5 (8x8, line tier) ~85/s, level 8 (12x12) ~11/s, level 10 (14x14,
search tier) ~3.5/s: every removal is a uniqueness proof over up to 518 patterns per line (for
the search tier, a search for a solution with an emptied cell flipped, which fails fast).
(Measured with both cores busy; the solver's shortcut gave 1.1x at level 5, 1.3x at level 8,
the flip check 1.6x at level 10.) Version 2 bounds the searches (``FLIP_WORK``,
``ATTEMPT_WORK``): the slowest of 100 level-10 seeds 0.35 s (version 1: 2 s).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_digit_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

TIERS = ("basic", "line", "search")
MAX_ATTEMPTS = 100
# The bounds on a task's generation time (version 2), in solver work (line patterns examined,
# ~0.2 us each): a flip check that runs past FLIP_WORK keeps its cells given (as a second
# solution would), and one attempt's searches together may spend ATTEMPT_WORK before the grid
# is redrawn. Level 10, seeds 0-99: at most 3.4 million per attempt (version 1: 10.9 million,
# 2 s, from flip checks of up to 1.8 million each).
ATTEMPT_WORK = 6_000_000
FLIP_WORK = 100_000


@dataclass(frozen=True)
class BinairoKnobs(Knobs):
    size: int = knob(6, choices=(4, 6, 8, 10, 12, 14), help="grid size n (even)")
    tier: str = knob(
        "basic", choices=TIERS, help="strongest reasoning the puzzle may need: basic rules, line, search"
    )
    min_givens: int = knob(0, low=0, high=196, help="stop removing givens at this many")
    allow_easy: bool = knob(True, help="accept puzzles the basic rules alone solve (False: reject them)")

    def validate(self) -> None:
        if self.min_givens > self.size * self.size:
            raise ValueError(f"min_givens {self.min_givens} exceeds the {self.size**2} cells")
        if self.tier == "basic" and not self.allow_easy:
            raise ValueError("tier 'basic' puzzles are solvable by the basic rules: allow_easy must be True")


LEVELS = {
    1: BinairoKnobs(size=6, tier="basic", min_givens=16),
    2: BinairoKnobs(size=6, tier="basic"),
    3: BinairoKnobs(size=8, tier="basic", min_givens=26),
    4: BinairoKnobs(size=8, tier="line", min_givens=22),
    5: BinairoKnobs(size=8, tier="line", allow_easy=False),
    6: BinairoKnobs(size=10, tier="line", allow_easy=False),
    7: BinairoKnobs(size=10, tier="search", allow_easy=False),
    8: BinairoKnobs(size=12, tier="line", allow_easy=False),
    9: BinairoKnobs(size=12, tier="search", allow_easy=False),
    10: BinairoKnobs(size=14, tier="search", allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Lines
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def valid_lines(n: int) -> tuple[int, ...]:
    """Every valid line of length n as a bitmask (bit i = 1 at position i): balanced, no triple."""
    full = (1 << n) - 1
    out = []
    for p in range(1 << n):
        if bin(p).count("1") != n // 2:
            continue
        q = full & ~p
        if p & (p >> 1) & (p >> 2) or q & (q >> 1) & (q >> 2):
            continue
        out.append(p)
    return tuple(out)


def line_ok(values: list[int]) -> str:
    """'' if a complete line of 0/1 is valid, else the broken rule."""
    for i in range(len(values) - 2):
        if values[i] == values[i + 1] == values[i + 2]:
            return f"three {values[i]}s in a row at positions {i + 1}-{i + 3}"
    if 2 * sum(values) != len(values):
        return f"{sum(values)} ones and {len(values) - sum(values)} zeros"
    return ""


# --------------------------------------------------------------------------------------------
# Exact solver: line arc consistency + distinct lines + branching
# --------------------------------------------------------------------------------------------


class OverBudget(Exception):
    """A search ran past its work budget (the generator then draws another grid)."""


class _Budget:
    """The solver work one generation attempt may still spend over all its searches."""

    def __init__(self, work: int) -> None:
        self.left = work

    def solve(
        self,
        n: int,
        givens: list[int],
        limit: int = 2,
        rng: np.random.Generator | None = None,
        cap: int = 0,
    ) -> _Solver | None:
        """``solve`` charged to this budget (``OverBudget`` when it runs out); with ``cap``, a
        search that runs past ``cap`` work on its own gives None instead (its cost charged)."""
        capped = 0 < cap < self.left
        try:
            proof = solve(n, givens, limit, rng, budget=cap if capped else self.left)
        except OverBudget as over:
            if not capped:
                self.left = 0
                raise
            self.left -= over.args[0]
            return None
        self.left -= proof.work
        if self.left <= 0:
            raise OverBudget(proof.work)
        return proof


class _Solver:
    """State: known ones/zeros per row and column as bitmasks, candidate patterns per line."""

    def __init__(self, n: int, givens: list[int], budget: int = 0) -> None:
        self.n = n
        self.budget = budget  # work past which the search raises OverBudget (0: none)
        self.nodes = 0
        self.work = 0
        self.count = 0
        self.solutions: list[list[int]] = []
        self.rng: np.random.Generator | None = None
        lines = list(valid_lines(n))
        ones = [0] * (2 * n)  # lines 0..n-1 rows, n..2n-1 columns; bit = position in line
        zeros = [0] * (2 * n)
        for i, v in enumerate(givens):
            if v >= 0:
                r, c = divmod(i, n)
                target = ones if v else zeros
                target[r] |= 1 << c
                target[n + c] |= 1 << r
        self.start = (ones, zeros, [lines] * (2 * n))

    def propagate(
        self,
        ones: list[int],
        zeros: list[int],
        cands: list[list[int]],
        distinct: bool,
        processed: list[tuple[int, int, list[int]] | None] | None = None,
    ) -> bool:
        """Line arc consistency to a fixpoint (and, if ``distinct``, no two equal finished lines).

        ``processed[k]``, if given, is the (ones, zeros, candidate list) line k was left in the
        last time it was processed, on this branch or an ancestor. A line found in exactly that
        state again has nothing left to filter or force, so only the distinct-line rule runs for
        it. The work counter still counts its candidates, so the effort figures in task metadata
        are those of the plain fixpoint."""
        n = self.n
        dirty = set(range(2 * n))
        fixed_done = [False] * (2 * n)
        while dirty:
            k = dirty.pop()
            o, z = ones[k], zeros[k]
            if o & z:
                return False
            new = cands[k]
            self.work += len(new)
            seen = processed[k] if processed is not None else None
            if seen is None or seen[2] is not new or seen[0] != o or seen[1] != z:
                new = [p for p in new if not (p & z) and (p & o) == o]
                if not new:
                    return False
                if len(new) != len(cands[k]):
                    cands[k] = new
                self._force(k, new, ones, zeros, dirty)
                if processed is not None:
                    processed[k] = (ones[k], zeros[k], cands[k])
            if distinct and len(new) == 1 and not fixed_done[k]:
                # a finished line's pattern is barred from every parallel line
                fixed_done[k] = True
                p = new[0]
                lo = 0 if k < n else n
                for j in range(lo, lo + n):
                    if j != k and p in cands[j]:
                        fewer = list(cands[j])  # the candidates are distinct: p occurs once
                        fewer.remove(p)
                        cands[j] = fewer
                        dirty.add(j)
        return True

    def _force(self, k: int, cands: list[int], ones: list[int], zeros: list[int], dirty: set[int]) -> None:
        """Set the cells of line k that all its candidates agree on, and mark the crossing lines."""
        n = self.n
        all_and, all_or = -1, 0
        for p in cands:
            all_and &= p
            all_or |= p
        new_ones = all_and & ~ones[k]
        new_zeros = ((1 << n) - 1) & ~all_or & ~zeros[k]
        if not new_ones and not new_zeros:
            return
        ones[k] |= new_ones
        zeros[k] |= new_zeros
        base = n if k < n else 0
        pos = k if k < n else k - n
        for known, forced in ((ones, new_ones), (zeros, new_zeros)):
            while forced:
                b = forced & -forced
                forced ^= b
                j = base + b.bit_length() - 1
                known[j] |= 1 << pos
                dirty.add(j)

    def solved_grid(self, ones: list[int]) -> list[int]:
        n = self.n
        return [(ones[r] >> c) & 1 for r in range(n) for c in range(n)]

    def search(self, limit: int = 2, rng: np.random.Generator | None = None) -> _Solver:
        self.rng = rng
        ones, zeros, cands = self.start
        self._rec(list(ones), list(zeros), list(cands), [None] * (2 * self.n), limit)
        return self

    def _rec(self, ones, zeros, cands, processed, limit) -> bool:
        self.nodes += 1
        if self.budget and self.work > self.budget:
            raise OverBudget(self.work)
        if not self.propagate(ones, zeros, cands, True, processed):
            return False
        n = self.n
        best, best_len = -1, 1 << 30
        for k in range(2 * n):
            size = len(cands[k])
            if 1 < size < best_len:
                best, best_len = k, size
        if best < 0:
            self.count += 1
            self.solutions.append(self.solved_grid(ones))
            return self.count >= limit
        known = ones[best] | zeros[best]
        free = ((1 << n) - 1) & ~known
        bit = free & -free
        if self.rng is not None:
            positions = [i for i in range(n) if free >> i & 1]
            bit = 1 << positions[int(self.rng.integers(len(positions)))]
        order = [1, 0] if self.rng is None or self.rng.integers(2) else [0, 1]
        for v in order:
            o2, z2 = list(ones), list(zeros)
            if v:
                o2[best] |= bit
            else:
                z2[best] |= bit
            # mirror the new cell onto the crossing line
            pos = best if best < n else best - n
            cross = (n if best < n else 0) + bit.bit_length() - 1
            (o2 if v else z2)[cross] |= 1 << pos
            if self._rec(o2, z2, list(cands), list(processed), limit):
                return True
        return False


def solve(
    n: int, givens: list[int], limit: int = 2, rng: np.random.Generator | None = None, budget: int = 0
) -> _Solver:
    """Count completions of ``givens`` (-1 = empty) up to ``limit``; past ``budget`` work (0:
    none) raise ``OverBudget``."""
    return _Solver(n, givens, budget).search(limit, rng)


def line_solve(n: int, givens: list[int]) -> tuple[list[int] | None, int]:
    """Line arc consistency and distinct lines without branching: (grid or None, work)."""
    s = _Solver(n, givens)
    ones, zeros, cands = (list(x) for x in s.start)
    if not s.propagate(ones, zeros, cands, True):
        return None, s.work
    if all(len(c) == 1 for c in cands):
        return s.solved_grid(ones), s.work
    return None, s.work


def basic_solve(n: int, givens: list[int]) -> tuple[list[int] | None, int]:
    """Textbook rules only: pairs (xx. -> opposite), sandwiches (x.x), full counts. No search."""
    g = list(givens)
    lines = [[r * n + c for c in range(n)] for r in range(n)] + [
        [r * n + c for r in range(n)] for c in range(n)
    ]
    half = n // 2
    steps = 0
    while True:
        steps += 1
        progress = False
        for cells in lines:
            vals = [g[c] for c in cells]
            for i in range(n):
                if vals[i] >= 0:
                    continue
                for a, b in ((i - 2, i - 1), (i + 1, i + 2), (i - 1, i + 1)):
                    if 0 <= a and b < n and vals[a] >= 0 and vals[a] == vals[b]:
                        vals[i] = 1 - vals[a]
                        g[cells[i]] = vals[i]
                        progress = True
                        break
            for v in (0, 1):
                if vals.count(v) == half and -1 in vals:
                    for i in range(n):
                        if vals[i] < 0:
                            vals[i] = 1 - v
                            g[cells[i]] = 1 - v
                    progress = True
            if vals.count(0) > half or vals.count(1) > half:
                return None, steps
        if not progress:
            break
    if -1 in g:
        return None, steps
    return g, steps


def tier_solves(tier: str, n: int, givens: list[int]) -> bool:
    """Whether the tier's solver proves the puzzle has exactly one solution."""
    if tier == "basic":
        grid, _ = basic_solve(n, givens)
        return grid is not None and _grid_valid(n, grid)
    if tier == "line":
        return line_solve(n, givens)[0] is not None
    return solve(n, givens).count == 1


def _grid_valid(n: int, cells: list[int]) -> bool:
    rows = [cells[r * n : (r + 1) * n] for r in range(n)]
    cols = [[cells[r * n + c] for r in range(n)] for c in range(n)]
    return (
        all(not line_ok(x) for x in rows + cols)
        and len({tuple(r) for r in rows}) == n
        and len({tuple(c) for c in cols}) == n
    )


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} binairo (takuzu) puzzle. Fill every empty cell (.) with 0 or 1 so that:
- no three equal digits are next to each other in any row or column;
- every row and every column contains exactly {half} zeros and {half} ones;
- no two rows are identical and no two columns are identical.
Given digits must stay. The puzzle has exactly one solution.

{board}

Give the completed grid inside <answer>...</answer>: {n} lines, one per row, each with the {n} \
digits of that row (spaces between digits are allowed). Format example only (a 4x4 grid, not a \
solution of this puzzle):
<answer>
0110
1001
0101
1010
</answer>"""


def render(n: int, givens: list[int]) -> str:
    return "\n".join(
        " ".join("." if v < 0 else str(v) for v in givens[r * n : (r + 1) * n]) for r in range(n)
    )


def canonical_hash(n: int, givens: list[int]) -> str:
    """Least form under the 8 symmetries of the square and swapping 0 with 1."""
    rows = [givens[r * n : (r + 1) * n] for r in range(n)]
    forms = []
    for _ in range(4):
        rows = [list(col) for col in zip(*rows[::-1], strict=True)]  # quarter turn
        for grid in (rows, [r[::-1] for r in rows]):
            flat = [v for r in grid for v in r]
            forms.append(flat)
            forms.append([v if v < 0 else 1 - v for v in flat])
    return content_hash({"binairo": n, "form": min(forms)})


@family(
    "binairo",
    domain="puzzles",
    knobs=BinairoKnobs,
    levels=LEVELS,
    description="Binairo/takuzu (0/1 grid, 6x6 to 14x14), unique solution proven by a solver.",
    version=2,
    verifier_kind="constraint check",
)
class Binairo(Family):
    def generate(self, knobs: BinairoKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            budget = _Budget(ATTEMPT_WORK)
            try:
                solution = budget.solve(n, [-1] * (n * n), limit=1, rng=rng).solutions[0]
                givens = self._dig(n, list(solution), knobs, rng, budget)
                if not knobs.allow_easy and basic_solve(n, givens)[0] is not None:
                    continue  # degenerate: the textbook rules suffice
                proof = budget.solve(n, givens)
            except OverBudget:
                continue  # a grid whose proofs run long: draw the next one (same seed, same draws)
            if proof.count != 1:  # pragma: no cover - every tier proves uniqueness
                continue
            return self._draft(n, givens, solution, proof)
        raise RuntimeError(f"no binairo puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    @staticmethod
    def _dig(
        n: int, givens: list[int], knobs: BinairoKnobs, rng: np.random.Generator, budget: _Budget
    ) -> list[int]:
        """Remove givens in random order while the tier's solver still proves uniqueness.
        Removals are tried in groups (halved on a refusal): solvability is monotone in givens."""
        order = rng.permutation(n * n).tolist()
        count, size = n * n, max(1, n // 2)
        while order and count > knobs.min_givens:
            size = min(size, count - knobs.min_givens)
            group = order[:size]
            saved = [givens[c] for c in group]
            for c in group:
                givens[c] = -1
            if Binairo._still_unique(knobs.tier, n, givens, group, saved, budget):
                count -= len(group)
                del order[:size]
                continue
            for c, v in zip(group, saved, strict=True):
                givens[c] = v
            if size > 1:
                size //= 2
            else:
                order.pop(0)
        return givens

    @staticmethod
    def _still_unique(
        tier: str, n: int, givens: list[int], group: list[int], values: list[int], budget: _Budget
    ) -> bool:
        """Whether the tier's solver still proves uniqueness with ``group`` emptied. For the search
        tier the puzzle was unique before, so a second solution would differ from ``values`` at
        some emptied cell: it is enough that no solution has one of those cells flipped."""
        if tier != "search":
            return tier_solves(tier, n, givens)
        for c, v in zip(group, values, strict=True):
            givens[c] = 1 - v
            search = budget.solve(n, givens, limit=1, cap=FLIP_WORK)
            givens[c] = -1
            if search is None or search.count:  # a flip that takes too long to rule out stays given
                return False
        return True

    def _draft(self, n: int, givens: list[int], solution: list[int], proof: _Solver) -> TaskDraft:
        line_grid, line_work = line_solve(n, givens)
        basic_grid, basic_steps = basic_solve(n, givens)
        if basic_grid is not None:
            needed = "basic"
        elif line_grid is not None:
            needed = "line"
        else:
            needed = "search"
        return TaskDraft(
            prompt=PROMPT.format(n=n, half=n // 2, board=render(n, givens)),
            answer="\n".join("".join(map(str, solution[r * n : (r + 1) * n])) for r in range(n)),
            metadata={
                "size": n,
                "givens": [givens[r * n : (r + 1) * n] for r in range(n)],
                "num_givens": sum(1 for v in givens if v >= 0),
                "nodes": proof.nodes,
                "work": proof.work,
                "technique": needed,
                "solutions": 1,
                "canonical_hash": canonical_hash(n, givens),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, givens = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, error = read_digit_grid(extraction.text, n)
        if rows is None:
            return Verdict.bad_format(error)
        cells = [v for row in rows for v in row]
        for i, v in enumerate(cells):
            if v not in (0, 1):
                return Verdict.wrong(f"cell r{i // n + 1}c{i % n + 1} holds {v}, not 0 or 1", rows)
            if givens[i] >= 0 and v != givens[i]:
                return Verdict.wrong(f"cell r{i // n + 1}c{i % n + 1} is given as {givens[i]}", rows)
        cols = [[rows[r][c] for r in range(n)] for c in range(n)]
        for kind, lines in (("row", rows), ("column", cols)):
            for i, line in enumerate(lines):
                broken = line_ok(line)
                if broken:
                    return Verdict.wrong(f"{kind} {i + 1}: {broken}", rows)
            for i in range(n):
                for j in range(i):
                    if lines[i] == lines[j]:
                        return Verdict.wrong(f"{kind}s {j + 1} and {i + 1} are identical", rows)
        return Verdict.right(parsed=rows)

    def solve_exact(self, task: Task) -> SolverRun:
        n, givens = _unpack(task)
        s = solve(n, givens, limit=1)
        if not s.solutions:
            return SolverRun(None, float(s.work))
        return SolverRun(f"<answer>\n{_text(s.solutions[0], n)}\n</answer>", float(s.work))

    def solve_weak(self, task: Task) -> SolverRun:
        n, givens = _unpack(task)
        grid, steps = basic_solve(n, givens)
        return SolverRun(None if grid is None else f"<answer>\n{_text(grid, n)}\n</answer>", float(steps))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, _ = _unpack(task)
        rows = [list(r) for r in task.answer.split("\n")]
        out = []
        # one cell flipped: a row and a column lose their balance
        cell = int(rng.integers(n * n))
        flipped = [list(r) for r in rows]
        flipped[cell // n][cell % n] = "1" if flipped[cell // n][cell % n] == "0" else "0"
        out.append(flipped)
        # two unequal neighbours in a row swapped: the row stays balanced, two columns do not
        r = int(rng.integers(n))
        c = next(c for c in range(n - 1) if rows[r][c] != rows[r][c + 1])
        swapped = [list(x) for x in rows]
        swapped[r][c], swapped[r][c + 1] = swapped[r][c + 1], swapped[r][c]
        out.append(swapped)
        # the whole grid complemented: a valid binairo grid, but the givens break
        out.append([["1" if ch == "0" else "0" for ch in x] for x in rows])
        out.append(rows[:-1])  # wrong size
        return ["<answer>\n" + "\n".join("".join(x) for x in g) + "\n</answer>" for g in out]


def _text(cells: list[int], n: int) -> str:
    return "\n".join("".join(map(str, cells[r * n : (r + 1) * n])) for r in range(n))


def _unpack(task: Task) -> tuple[int, list[int]]:
    meta = task.metadata
    return int(meta["size"]), [v for r in meta["givens"] for v in r]
