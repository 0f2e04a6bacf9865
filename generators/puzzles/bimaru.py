"""Bimaru (battleship solitaire): hide a given fleet of straight ships in a grid so that every
row and column holds the stated number of ship cells, ships never touch (not even diagonally),
and the revealed cells (ship or water) agree.

Generation: a random fleet placement; while the exact solver finds a second solution, a cell
where the two differ is revealed; then reveals are removed in random order while the solution
stays unique (down to ``min_reveals``). The exact solver places ships longest first (equal ships
in increasing placement order, so each grid is counted once), pruning on row/column counts
(never above the count, never unable to reach it with the cells still usable: free cells in a
row and a column both short of their count) and revealed cells, and counts solutions up to 2:
the uniqueness proof. Effort = search nodes. One attempt's proofs together may spend
``ATTEMPT_NODES`` nodes; past that the fleet is redrawn (the bound on generation time).

The weak solver is cell propagation only (a full row or column is water, a row needing all its
open cells is ship, ship cells blank their diagonal neighbours); it gives up when stuck.

Speed (CPU time of one core; the shared machine's wall clock runs several times slower):
level 10 (10x10, ten ships) ~23 tasks/s, the slowest of 100 level-10 seeds 0.17 s (version 1,
without the usable-cell pruning: ~3/s, slowest 1.8 s); every reveal added or removed costs a
uniqueness proof by search. (8x8 has no level: its search effort barely differs from 7x7's, so
the levels go from 7x7 straight to 9x9 with many reveals.)

Version history: 2 prunes on usable cells and bounds an attempt's search nodes (the same
solutions are found in the same order, so only the ``nodes`` figure changes, and a fleet whose
proofs would run past the bound is redrawn).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_binary_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_ATTEMPTS = 100
# Search nodes one attempt may spend on all its uniqueness proofs before the fleet is redrawn:
# the bound on a task's generation time. The heaviest of 100 level-10 seeds spent ~27,000.
ATTEMPT_NODES = 40_000
MAX_CHARS = 5000
FLEETS = {
    6: (3, 2, 2, 1, 1, 1),
    7: (3, 2, 2, 1, 1, 1),
    8: (4, 3, 2, 2, 1, 1, 1),
    9: (4, 3, 3, 2, 2, 1, 1, 1),
    10: (4, 3, 3, 2, 2, 2, 1, 1, 1, 1),
}


@dataclass(frozen=True)
class BimaruKnobs(Knobs):
    size: int = knob(6, choices=(6, 7, 8, 9, 10), help="grid size n (the fleet grows with it)")
    min_reveals: int = knob(0, low=0, high=100, help="stop removing revealed cells at this many")
    allow_easy: bool = knob(True, help="accept puzzles the weak propagation solves (False: reject them)")


LEVELS = {
    1: BimaruKnobs(size=6, min_reveals=8),
    2: BimaruKnobs(size=6, min_reveals=4),
    3: BimaruKnobs(size=6),
    4: BimaruKnobs(size=7, min_reveals=3),
    5: BimaruKnobs(size=7),
    6: BimaruKnobs(size=9, min_reveals=10, allow_easy=False),
    7: BimaruKnobs(size=9, min_reveals=6, allow_easy=False),
    8: BimaruKnobs(size=9, min_reveals=3, allow_easy=False),
    9: BimaruKnobs(size=9, allow_easy=False),
    10: BimaruKnobs(size=10, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def line_masks(n: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    rows = tuple(sum(1 << (r * n + c) for c in range(n)) for r in range(n))
    cols = tuple(sum(1 << (r * n + c) for r in range(n)) for c in range(n))
    return rows, cols


@lru_cache(maxsize=64)
def ship_placements(n: int, length: int) -> tuple[tuple[int, int], ...]:
    """(cells mask, halo mask: the cells and all their neighbours) of every placement."""
    out = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0)) if length > 1 else ((0, 1),):
                cells = [(r + dr * i, c + dc * i) for i in range(length)]
                if not all(rr < n and cc < n for rr, cc in cells):
                    continue
                mask = sum(1 << (rr * n + cc) for rr, cc in cells)
                halo = 0
                for rr, cc in cells:
                    for a in (-1, 0, 1):
                        for b in (-1, 0, 1):
                            if 0 <= rr + a < n and 0 <= cc + b < n:
                                halo |= 1 << ((rr + a) * n + cc + b)
                out.append((mask, halo))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Exact solver
# --------------------------------------------------------------------------------------------


class OverBudget(Exception):
    """A search ran past its node budget (the generator then draws another fleet)."""


class _Solver:
    def __init__(
        self,
        n: int,
        fleet: tuple[int, ...],
        rows: list[int],
        cols: list[int],
        ship: int,
        water: int,
        budget: int = 0,
    ):
        self.n, self.fleet = n, tuple(sorted(fleet, reverse=True))
        self.rows, self.cols = rows, cols
        self.ship, self.water = ship, water
        self.row_masks, self.col_masks = line_masks(n)
        self.lines = list(zip(self.row_masks, rows, strict=True)) + list(
            zip(self.col_masks, cols, strict=True)
        )
        self.row_lines = self.lines[:n]
        self.col_lines = self.lines[n:]
        self.options = {length: self._placements(length) for length in set(self.fleet)}
        self.budget = budget
        self.nodes = 0
        self.count = 0
        self.solutions: list[int] = []

    def _placements(self, length: int) -> list[tuple[int, int, list[tuple[int, int]]]]:
        """(cells, rim: the halo without the cells, lines the halo crosses) of each placement
        that can ever be feasible: off the water, not over any line's count, and not blocking a
        revealed ship cell. Only the crossed lines can turn infeasible when a ship is placed (a
        line's count only rises and its open cells only shrink along a branch, so the other
        lines keep the parent's feasibility); checking those few instead of all 2n lines, and
        dropping the placements that always fail, visits exactly the same nodes, faster."""
        out = []
        for mask, halo in ship_placements(self.n, length):
            rim = halo & ~mask
            if mask & self.water or rim & self.ship:
                continue
            if any((mask & line).bit_count() > need for line, need in self.lines):
                continue
            out.append((mask, rim, [(line, need) for line, need in self.lines if line & halo]))
        return out

    def _feasible(self, occ: int, blocked: int) -> bool:
        """Every line: placed <= count <= placed + open cells; revealed ships still reachable."""
        free = ~(occ | blocked | self.water)
        for mask, need in self.lines:
            placed = (occ & mask).bit_count()
            if placed > need or placed + (free & mask).bit_count() < need:
                return False
        return not self.ship & ~occ & ~free

    def search(self, limit: int = 2) -> _Solver:
        if self._feasible(0, 0):
            self._rec(0, 0, 0, -1, limit)
        else:  # every branch would fail its first check: one node, no solution
            self.nodes = 1
        return self

    def _usable(self, occ: int, blocked: int) -> int | None:
        """The cells a ship still to be placed may cover (free, in a row and a column still short
        of their count), or None when some line or revealed ship cell can no longer be served
        by them. Every cell of a remaining ship lies in such a row and column, so this prunes
        exactly the branches with no solution below them (the solutions and their order stay
        those of the plain search; only the node count falls)."""
        free = ~(occ | blocked | self.water)
        rows_open = cols_open = 0
        for mask, need in self.row_lines:
            if (occ & mask).bit_count() < need:
                rows_open |= mask
        for mask, need in self.col_lines:
            if (occ & mask).bit_count() < need:
                cols_open |= mask
        usable = free & rows_open & cols_open
        for mask, need in self.lines:
            if (occ & mask).bit_count() + (usable & mask).bit_count() < need:
                return None
        return None if self.ship & ~occ & ~usable else usable

    def _rec(self, k: int, occ: int, blocked: int, last: int, limit: int) -> bool:
        self.nodes += 1
        if self.budget and self.nodes > self.budget:
            raise OverBudget(self.nodes)
        if k == len(self.fleet):
            if all((occ & m).bit_count() == need for m, need in self.lines) and not self.ship & ~occ:
                self.count += 1
                self.solutions.append(occ)
                return self.count >= limit
            return False
        usable = self._usable(occ, blocked)
        if usable is None:
            return False
        length = self.fleet[k]
        same = k > 0 and self.fleet[k - 1] == length
        opts = self.options[length]
        taken = occ | blocked | ~usable
        for i in range(last + 1 if same else 0, len(opts)):
            mask, rim, lines = opts[i]
            if mask & taken:
                continue
            new_occ = occ | mask
            new_blocked = blocked | rim
            free = ~(new_occ | new_blocked | self.water)
            for line, need in lines:  # the lines this placement changes (see _placements)
                placed = (new_occ & line).bit_count()
                if placed > need or placed + (free & line).bit_count() < need:
                    break
            else:
                if self._rec(k + 1, new_occ, new_blocked, i, limit):
                    return True
        return False


class _Budget:
    """The search nodes one generation attempt may still spend over all its proofs."""

    def __init__(self, nodes: int) -> None:
        self.left = nodes

    def solve(self, n, fleet, rows, cols, ship, water, limit: int = 2) -> _Solver:
        try:
            proof = solve(n, fleet, rows, cols, ship, water, limit, budget=self.left)
        except OverBudget:
            self.left = 0
            raise
        self.left -= proof.nodes
        if self.left <= 0:
            raise OverBudget(proof.nodes)
        return proof


def solve(n, fleet, rows, cols, ship, water, limit: int = 2, budget: int = 0) -> _Solver:
    """Search up to ``limit`` solutions; past ``budget`` nodes (0: none) raise ``OverBudget``."""
    return _Solver(n, tuple(fleet), rows, cols, ship, water, budget).search(limit)


def weak_solve(
    n: int, fleet, rows: list[int], cols: list[int], ship: int, water: int
) -> tuple[int | None, int]:
    """Cell propagation only; (ship mask or None, rounds)."""
    row_masks, col_masks = line_masks(n)
    full = (1 << (n * n)) - 1
    lines = list(zip(row_masks, rows, strict=True)) + list(zip(col_masks, cols, strict=True))
    diag = []
    for cell in range(n * n):
        r, c = divmod(cell, n)
        diag.append(
            sum(
                1 << ((r + a) * n + c + b)
                for a in (-1, 1)
                for b in (-1, 1)
                if 0 <= r + a < n and 0 <= c + b < n
            )
        )
    rounds = 0
    while True:
        rounds += 1
        before = (ship, water)
        for mask, need in lines:
            s = (ship & mask).bit_count()
            open_ = mask & ~ship & ~water
            if s == need:
                water |= open_
            elif s + open_.bit_count() == need:
                ship |= open_
        m = ship
        while m:
            bit = m & -m
            m ^= bit
            water |= diag[bit.bit_length() - 1]
        if ship & water:
            return None, rounds
        if (ship, water) == before:
            break
    if (ship | water) != full:
        return None, rounds
    if sorted(ships_of(n, ship) or [-1]) != sorted(fleet):
        return None, rounds
    return ship, rounds


def ships_of(n: int, ship: int) -> list[int] | None:
    """Lengths of the ships of a grid, or None if a group is not a straight line."""
    seen = 0
    out = []
    for cell in range(n * n):
        if not ship >> cell & 1 or seen >> cell & 1:
            continue
        group, stack = [], [cell]
        seen |= 1 << cell
        while stack:
            x = stack.pop()
            group.append(x)
            r, c = divmod(x, n)
            for a, b in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + a, c + b
                y = rr * n + cc
                if 0 <= rr < n and 0 <= cc < n and ship >> y & 1 and not seen >> y & 1:
                    seen |= 1 << y
                    stack.append(y)
        rs = {x // n for x in group}
        cs = {x % n for x in group}
        if len(rs) > 1 and len(cs) > 1:
            return None
        out.append(len(group))
    return out


def random_fleet(n: int, fleet: tuple[int, ...], rng: np.random.Generator) -> int | None:
    occ, blocked = 0, 0
    for length in sorted(fleet, reverse=True):
        opts = [(m, h) for m, h in ship_placements(n, length) if not m & (occ | blocked)]
        if not opts:
            return None
        m, h = opts[int(rng.integers(len(opts)))]
        occ |= m
        blocked |= h
    return occ


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} bimaru (battleship solitaire) puzzle. Hide this fleet in the grid: \
{fleet_text}. Ships are straight (horizontal or vertical) lines of cells; no two ships touch, \
not even diagonally. The number to the right of each row and below each column says how many \
ship cells it contains. Revealed cells are shown: # is a ship cell, ~ is water, . is unknown. \
The puzzle has exactly one solution.

{board}

Give the grid inside <answer>...</answer>: {n} lines, one per row, each with {n} characters, \
# for a ship cell and ~ for water (. or 0 for water and 1 for ship are also accepted). Format \
example only (a 4x4 grid, not a solution of this puzzle):
<answer>
##~#
~~~~
#~~~
~~##
</answer>"""

_SHIP = set("#1XxS■")
_WATER = set("~.0-_wW")


def parse_ships(text: str, n: int) -> tuple[list[list[int]] | None, str]:
    return read_binary_grid(text, n, n, _SHIP, _WATER, max_chars=MAX_CHARS)


def grid_text(n: int, ship: int) -> str:
    return "\n".join("".join("#" if ship >> (r * n + c) & 1 else "~" for c in range(n)) for r in range(n))


def board_text(n: int, rows, cols, ship: int, water: int) -> str:
    lines = []
    for r in range(n):
        cells = []
        for c in range(n):
            bit = 1 << (r * n + c)
            cells.append("#" if ship & bit else "~" if water & bit else ".")
        lines.append(" ".join(cells) + f" | {rows[r]}")
    lines.append(" ".join("-" for _ in range(n)))
    lines.append(" ".join(str(v) for v in cols))
    return "\n".join(lines)


def fleet_text(fleet) -> str:
    counts: dict[int, int] = {}
    for length in fleet:
        counts[length] = counts.get(length, 0) + 1
    return ", ".join(
        f"{k} ship{'s' if k > 1 else ''} of length {length}"
        for length, k in sorted(counts.items(), reverse=True)
    )


def canonical_hash(n: int, rows, cols, ship: int, water: int) -> str:
    cells = [2 if ship >> i & 1 else 1 if water >> i & 1 else 0 for i in range(n * n)]
    # the counts move with the grid under the 8 symmetries of the square
    out = []
    base_r, base_c = list(rows), list(cols)
    for t in range(8):
        rr, cc = base_r, base_c
        g = [cells[r * n : (r + 1) * n] for r in range(n)]
        if t & 4:
            g = [list(col) for col in zip(*g, strict=True)]
            rr, cc = cc, rr
        if t & 1:
            g = g[::-1]
            rr = rr[::-1]
        if t & 2:
            g = [r[::-1] for r in g]
            cc = cc[::-1]
        out.append([list(rr), list(cc), g])
    return content_hash({"bimaru": n, "form": min(out)})


@family(
    "bimaru",
    domain="puzzles",
    knobs=BimaruKnobs,
    levels=LEVELS,
    description="Bimaru/battleship solitaire (fleet, row and column counts, revealed cells; 6x6 to 10x10), unique solution proven.",
    version=2,
    verifier_kind="constraint check",
)
class Bimaru(Family):
    def generate(self, knobs: BimaruKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(MAX_ATTEMPTS):
            try:
                draft = self._attempt(knobs, rng, _Budget(ATTEMPT_NODES))
            except OverBudget:
                continue  # a fleet whose proofs run long: draw the next one (same seed, same draws)
            if draft is not None:
                return draft
        raise RuntimeError(f"no bimaru puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    def _attempt(self, knobs: BimaruKnobs, rng: np.random.Generator, budget: _Budget) -> TaskDraft | None:
        """One random fleet made into a unique puzzle, or None (rejected)."""
        n = knobs.size
        fleet = FLEETS[n]
        rmask, cmask = line_masks(n)
        occ = random_fleet(n, fleet, rng)
        if occ is None:
            return None
        rows = [(occ & m).bit_count() for m in rmask]
        cols = [(occ & m).bit_count() for m in cmask]
        ship, water = 0, 0
        proof = budget.solve(n, fleet, rows, cols, ship, water)
        while proof.count > 1:  # reveal a cell where another solution differs
            other = next(s for s in proof.solutions if s != occ)
            diff = (other ^ occ) & ~(ship | water)
            cells = [i for i in range(n * n) if diff >> i & 1]
            cell = cells[int(rng.integers(len(cells)))]
            if occ >> cell & 1:
                ship |= 1 << cell
            else:
                water |= 1 << cell
            proof = budget.solve(n, fleet, rows, cols, ship, water)
        ship, water = self._dig(n, fleet, rows, cols, ship, water, knobs.min_reveals, occ, rng, budget)
        proof = budget.solve(n, fleet, rows, cols, ship, water)
        if proof.count != 1:  # pragma: no cover - digging keeps uniqueness
            return None
        weak, _ = weak_solve(n, fleet, rows, cols, ship, water)
        if weak is not None and not knobs.allow_easy:
            return None
        return TaskDraft(
            prompt=PROMPT.format(
                n=n, fleet_text=fleet_text(fleet), board=board_text(n, rows, cols, ship, water)
            ),
            answer=grid_text(n, occ),
            metadata={
                "size": n,
                "fleet": list(fleet),
                "rows": rows,
                "cols": cols,
                "revealed": _revealed(n, ship, water),
                "num_reveals": (ship | water).bit_count(),
                "nodes": proof.nodes,
                "technique": "propagation" if weak is not None else "search",
                "solutions": 1,
                "canonical_hash": canonical_hash(n, rows, cols, ship, water),
            },
        )

    @staticmethod
    def _dig(n, fleet, rows, cols, ship, water, min_reveals, occ, rng, budget: _Budget):
        """Drop reveals in random order while the solution stays unique.

        The puzzle is unique before each drop, so any second solution after it must differ from
        ``occ`` at the dropped cell: dropping is safe exactly when no solution has that cell
        flipped, a far more constrained search than counting solutions up to two."""
        cells = [i for i in range(n * n) if (ship | water) >> i & 1]
        for i in rng.permutation(len(cells)).tolist():
            if (ship | water).bit_count() <= min_reveals:
                break
            bit = 1 << cells[i]
            s2, w2 = ship & ~bit, water & ~bit
            flipped_ship, flipped_water = (s2, w2 | bit) if occ & bit else (s2 | bit, w2)
            if not budget.solve(n, fleet, rows, cols, flipped_ship, flipped_water, limit=1).count:
                ship, water = s2, w2
        # top up to min_reveals with random true cells (easier levels show more)
        hidden = [i for i in range(n * n) if not (ship | water) >> i & 1]
        for i in rng.permutation(len(hidden)).tolist():
            if (ship | water).bit_count() >= min_reveals:
                break
            bit = 1 << hidden[i]
            if occ & bit:
                ship |= bit
            else:
                water |= bit
        return ship, water

    def verify(self, task: Task, response: str) -> Verdict:
        n, fleet, rows, cols, ship, water = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        grid, error = parse_ships(extraction.text, n)
        if grid is None:
            return Verdict.bad_format(error)
        occ = sum(1 << (r * n + c) for r in range(n) for c in range(n) if grid[r][c])
        rmask, cmask = line_masks(n)
        for r in range(n):
            got = (occ & rmask[r]).bit_count()
            if got != rows[r]:
                return Verdict.wrong(f"row {r + 1} has {got} ship cells, not {rows[r]}", grid)
        for c in range(n):
            got = (occ & cmask[c]).bit_count()
            if got != cols[c]:
                return Verdict.wrong(f"column {c + 1} has {got} ship cells, not {cols[c]}", grid)
        if ship & ~occ or water & occ:
            return Verdict.wrong("a revealed cell is contradicted", grid)
        for r in range(n - 1):
            for c in range(n):
                for dc in (-1, 1):
                    if grid[r][c] and 0 <= c + dc < n and grid[r + 1][c + dc]:
                        return Verdict.wrong(f"ships touch diagonally at r{r + 1}c{c + 1}", grid)
        found = ships_of(n, occ)
        if found is None:
            return Verdict.wrong("a ship is not a straight line", grid)
        if sorted(found) != sorted(fleet):
            return Verdict.wrong(f"the ships have lengths {sorted(found, reverse=True)}, not the fleet", grid)
        return Verdict.right(parsed=grid)

    def solve_exact(self, task: Task) -> SolverRun:
        n, fleet, rows, cols, ship, water = _unpack(task)
        s = solve(n, fleet, rows, cols, ship, water, limit=1)
        if not s.solutions:
            return SolverRun(None, float(s.nodes))
        return SolverRun(f"<answer>\n{grid_text(n, s.solutions[0])}\n</answer>", float(s.nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        n, fleet, rows, cols, ship, water = _unpack(task)
        occ, rounds = weak_solve(n, fleet, rows, cols, ship, water)
        return SolverRun(None if occ is None else f"<answer>\n{grid_text(n, occ)}\n</answer>", float(rounds))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n = int(task.metadata["size"])
        rows = [list(r) for r in task.answer.split("\n")]
        out = []
        cell = int(rng.integers(n * n))  # one cell toggled
        toggled = [list(r) for r in rows]
        toggled[cell // n][cell % n] = "~" if toggled[cell // n][cell % n] == "#" else "#"
        out.append(toggled)
        out.append([["~" if ch == "#" else "#" for ch in r] for r in rows])  # negative
        # a second, different cell toggled (the solution is unique: any other grid is wrong)
        other = (cell + 1 + int(rng.integers(n * n - 1))) % (n * n)
        toggled2 = [list(r) for r in rows]
        toggled2[other // n][other % n] = "~" if toggled2[other // n][other % n] == "#" else "#"
        out.append(toggled2)
        out.append(rows[:-1])  # wrong size
        return ["<answer>\n" + "\n".join("".join(r) for r in g) + "\n</answer>" for g in out]


def _revealed(n: int, ship: int, water: int) -> str:
    return "\n".join(
        "".join(
            "#" if ship >> (r * n + c) & 1 else "~" if water >> (r * n + c) & 1 else "." for c in range(n)
        )
        for r in range(n)
    )


def _unpack(task: Task):
    meta = task.metadata
    n = int(meta["size"])
    ship = water = 0
    for r, line in enumerate(str(meta["revealed"]).split("\n")):
        for c, ch in enumerate(line):
            if ch == "#":
                ship |= 1 << (r * n + c)
            elif ch == "~":
                water |= 1 << (r * n + c)
    return n, tuple(meta["fleet"]), list(meta["rows"]), list(meta["cols"]), ship, water
