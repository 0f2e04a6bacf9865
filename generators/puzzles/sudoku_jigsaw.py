"""Jigsaw sudoku: irregular connected regions instead of boxes, 5x5 to 9x9, proven unique.

The region layout is random: starting from the rows, boundary cells are traded between
neighbouring regions while every region stays connected (and a layout keeping any region equal
to a row or column is redrawn). A random solution is filled by the exact solver, then cells are
removed as for the classic sudoku: tiers 1-3 keep a removal only while the logical solver
limited to the tier completes the puzzle (proving uniqueness); tier 4 keeps it while the exact
solver finds exactly one solution. The tier is the hardest technique the simplest-first logical
solver needs (1 naked singles, 2 hidden singles, 3 locked candidates across region/line
intersections and naked/hidden pairs, 4 search); locked candidates matter more here than in the
classic game because regions meet lines in ragged ways.

The weak solver places naked singles anywhere but looks for hidden singles in rows and columns
only, never in the irregular regions (where a hasty reader misses them); it gives up when stuck.
So it solves every tier-1 puzzle and a falling share of tier-2 ones (fewer givens, larger grids).

Speed (CPU time of one core; the shared machine's wall clock runs 3-10x slower under load):
level 1 ~230 tasks/s, level 5 (7x7 tier 2) ~85/s, level 10 (8x8 tier 4) ~7/s: every removal
while digging a tier-4 puzzle costs a uniqueness proof by search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_digit_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from ._latin import (
    BIT_VALUE,
    Geometry,
    SearchResult,
    count_solutions_propagating,
    dig,
    grid_mutations,
    grid_symmetries,
    grid_text,
    make_geometry,
    puzzle_tier,
    random_regions,
    random_solution,
    regions_from_labels,
    relabel_first_seen,
    to_rows,
)

REGION_LETTERS = "ABCDEFGHI"
MAX_ATTEMPTS = 300
TIER_NAMES = {
    1: "naked singles",
    2: "hidden singles",
    3: "locked candidates and naked/hidden pairs",
    4: "search (no tier-3 technique suffices)",
}


@dataclass(frozen=True)
class JigsawKnobs(Knobs):
    size: int = knob(5, low=5, high=9, help="grid size n (n regions of n cells, digits 1..n)")
    tier: int = knob(
        1,
        low=1,
        high=4,
        help="technique tier the puzzle needs: 1 naked singles, 2 hidden singles, "
        "3 locked candidates/pairs, 4 search",
    )
    min_givens: int = knob(
        0, low=0, high=81, help="stop removing cells at this many givens (0: dig to a minimal puzzle)"
    )
    min_nodes: int = knob(
        0, low=0, high=10_000, help="reject puzzles whose propagating exact solver needs fewer search nodes"
    )

    def validate(self) -> None:
        if self.min_givens > self.size * self.size:
            raise ValueError(f"min_givens {self.min_givens} exceeds the {self.size * self.size} cells")
        if self.size < 7 and self.tier > 2:
            raise ValueError(
                f"size {self.size} supports tiers up to 2 (larger tiers are too rare), got {self.tier}"
            )


LEVELS = {
    1: JigsawKnobs(size=5, tier=1, min_givens=9),
    2: JigsawKnobs(size=6, tier=1),
    3: JigsawKnobs(size=7, tier=2, min_givens=18),
    4: JigsawKnobs(size=7, tier=2, min_givens=14),
    5: JigsawKnobs(size=7, tier=2),
    6: JigsawKnobs(size=8, tier=2),
    7: JigsawKnobs(size=7, tier=3),
    8: JigsawKnobs(size=9, tier=3),
    9: JigsawKnobs(size=8, tier=4, min_nodes=20),
    10: JigsawKnobs(size=8, tier=4, min_nodes=40),
}


def _layout_ok(label: list[int], n: int) -> bool:
    """Reject layouts where a region is still a whole row or column (no jigsaw there)."""
    for k in range(n):
        cells = [c for c in range(n * n) if label[c] == k]
        if len({c // n for c in cells}) == 1 or len({c % n for c in cells}) == 1:
            return False
    return True


def canonical_hash(puzzle: list[int], label: list[int], n: int) -> str:
    """Hash of the least (regions, givens) form under the 8 grid symmetries and relabelling."""
    forms = []
    for perm in grid_symmetries(n, 1, 1):
        regions = relabel_first_seen([label[i] + 1 for i in perm])
        forms.append((regions, relabel_first_seen([puzzle[i] for i in perm])))
    regions, givens = min(forms)
    return content_hash({"jigsaw": n, "regions": list(regions), "givens": list(givens)})


PROMPT = """Solve this {n}x{n} jigsaw sudoku. Fill every empty cell (shown as .) with a digit from \
1 to {n} so that each row, each column and each of the {n} irregular regions contains every digit \
from 1 to {n} exactly once. The region map gives each cell's region as a letter. The puzzle has \
exactly one solution.

Givens:
{board}

Regions:
{regions}

Give the completed grid inside <answer>...</answer>: {n} lines, one per row, each with the {n} \
digits of that row (spaces between digits are allowed). Format example only (a 4x4 grid, not a \
solution of this puzzle):
<answer>
1234
3412
2143
4321
</answer>"""


@family(
    "sudoku_jigsaw",
    domain="puzzles",
    knobs=JigsawKnobs,
    levels=LEVELS,
    description="Jigsaw sudoku (irregular regions, 5x5 to 9x9) with a proven-unique solution, graded by tier.",
    verifier_kind="constraint check",
)
class SudokuJigsaw(Family):
    def generate(self, knobs: JigsawKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            label = random_regions(n, rng)
            if not _layout_ok(label, n):
                continue
            geo = make_geometry(n, regions_from_labels(label, n))
            try:
                solution = random_solution(geo, rng, propagate=True, tries=2)
            except (ValueError, RuntimeError):
                continue  # this layout has no solution (or the fill ran out of budget)
            puzzle = dig(geo, solution, rng, tier=knobs.tier, min_givens=knobs.min_givens)
            tier, steps = puzzle_tier(geo, puzzle)
            if tier != knobs.tier:
                continue
            proof = count_solutions_propagating(geo, puzzle, 2)
            if proof.count != 1 or proof.nodes < knobs.min_nodes:
                continue
            return self._draft(puzzle, solution, label, n, tier, steps, proof)
        raise RuntimeError(f"no jigsaw sudoku matched {knobs} in {MAX_ATTEMPTS} attempts")

    def _draft(
        self,
        puzzle: list[int],
        solution: list[int],
        label: list[int],
        n: int,
        tier: int,
        steps: int,
        proof: SearchResult,
    ) -> TaskDraft:
        board = "\n".join(
            " ".join(str(v) if v else "." for v in puzzle[r * n : (r + 1) * n]) for r in range(n)
        )
        regions = "\n".join(" ".join(REGION_LETTERS[k] for k in label[r * n : (r + 1) * n]) for r in range(n))
        return TaskDraft(
            prompt=PROMPT.format(n=n, board=board, regions=regions),
            answer=grid_text(solution, n),
            metadata={
                "size": n,
                "regions": to_rows(label, n),
                "givens": to_rows(puzzle, n),
                "num_givens": sum(1 for v in puzzle if v),
                "tier": tier,
                "technique": TIER_NAMES[tier],
                "logical_steps": steps,
                "nodes": proof.nodes,
                "assignments": proof.assignments,
                "solutions": 1,
                "canonical_hash": canonical_hash(puzzle, label, n),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, geo, givens = _task_geometry(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, error = read_digit_grid(extraction.text, n)
        if rows is None:
            return Verdict.bad_format(error)
        cells = [v for row in rows for v in row]
        for i, v in enumerate(cells):
            if not 1 <= v <= n:
                return Verdict.wrong(f"cell r{i // n + 1}c{i % n + 1} holds {v}, not a digit 1..{n}", rows)
        for i, (v, g) in enumerate(zip(cells, givens, strict=True)):
            if g and v != g:
                return Verdict.wrong(f"cell r{i // n + 1}c{i % n + 1} is given as {g}, answer has {v}", rows)
        for index, unit in enumerate(geo.units):
            if len({cells[c] for c in unit}) != n:
                kind = ("row", "column", "region")[min(index // n, 2)]
                name = REGION_LETTERS[index - 2 * n] if index >= 2 * n else str(index % n + 1)
                return Verdict.wrong(f"{kind} {name} repeats a digit", rows)
        return Verdict.right(parsed=rows)

    def solve_exact(self, task: Task) -> SolverRun:
        n, geo, puzzle = _task_geometry(task)
        # propagation (naked and hidden singles) + branching; effort = values placed in all
        result = count_solutions_propagating(geo, puzzle, 2)
        if result.solution is None:
            return SolverRun(response=None, effort=float(result.assignments))
        return SolverRun(f"<answer>\n{grid_text(result.solution, n)}\n</answer>", float(result.assignments))

    def solve_weak(self, task: Task) -> SolverRun:
        """Naked singles everywhere, hidden singles in rows and columns only (never scans the
        irregular regions for them); gives up when stuck."""
        n, geo, puzzle = _task_geometry(task)
        grid, steps = weak_solve(geo, puzzle)
        response = None if grid is None else f"<answer>\n{grid_text(grid, n)}\n</answer>"
        return SolverRun(response=response, effort=float(steps))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, _, givens = _task_geometry(task)
        return grid_mutations(task.answer, givens, n, rng)


def weak_solve(geo: Geometry, puzzle: list[int]) -> tuple[list[int] | None, int]:
    """The weak heuristic: naked singles, and hidden singles looked for in rows and columns only
    (a region's hidden single is what a hasty reader of a ragged region map misses). Returns the
    grid (``None`` when stuck) and the number of placements."""
    n = geo.n
    lines = geo.units[: 2 * n]
    cells = list(puzzle)
    cand = [0] * (n * n)
    for cell in range(n * n):
        if not cells[cell]:
            taken = 0
            for p in geo.peers[cell]:
                if cells[p]:
                    taken |= 1 << (cells[p] - 1)
            cand[cell] = geo.full & ~taken

    def place(cell: int, bit: int) -> None:
        cells[cell] = BIT_VALUE[bit]
        cand[cell] = 0
        for p in geo.peers[cell]:
            cand[p] &= ~bit

    steps = 0
    while not all(cells):
        naked = next(
            (c for c in range(n * n) if not cells[c] and cand[c] and not cand[c] & (cand[c] - 1)), None
        )
        if naked is not None:
            place(naked, cand[naked])
            steps += 1
            continue
        hidden = next(((c, bit) for line in lines for c, bit in _line_hidden_singles(line, cand)), None)
        if hidden is None:
            return None, steps
        place(*hidden)
        steps += 1
    return cells, steps


def _line_hidden_singles(line: tuple[int, ...], cand: list[int]) -> list[tuple[int, int]]:
    """(cell, digit bit) for every digit that fits only one cell of ``line``."""
    once = twice = 0
    for c in line:
        twice |= once & cand[c]
        once |= cand[c]
    hidden = once & ~twice
    return [(c, cand[c] & hidden) for c in line if cand[c] & hidden]


def _task_geometry(task: Task) -> tuple[int, Geometry, list[int]]:
    n = int(task.metadata["size"])
    label = [k for row in task.metadata["regions"] for k in row]
    geo = make_geometry(n, regions_from_labels(label, n))
    return n, geo, [v for row in task.metadata["givens"] for v in row]
