"""Killer sudoku: a sudoku whose cells are grouped into cages, each with the sum of its digits and
no digit repeated inside a cage (4x4, 6x6 and 9x9).

Generation: a random complete sudoku; random connected cages grown over it (sizes drawn between
``min_cage`` and ``max_cage``, never repeating a digit of the solution inside a cage); the cage
sums are read off. An exact solver (propagation of singles and cage digit-combinations, then
branching; ``_sums.SumPuzzle``) counts solutions up to 2; while there are two, a cell where they
differ is revealed as a given. Puzzles needing more than ``max_givens`` such cells are redrawn.
Effort = values the exact solver placed (propagated or branched); its search nodes are in the
metadata too.

Draws whose uniqueness check needs more than ``NODE_BUDGET`` search nodes are redrawn, which
keeps 9x9 generation bounded (so the hardest killers, decided only by deep search, are not made).

Speed (CPU time of one core; the shared machine's wall clock runs 3-10x slower under load):
level 1 ~1200 tasks/s, level 5 (6x6, cages of 2-4, no givens) ~110/s, level 10 (9x9, cages of
2-5) ~7/s: larger cages leave many solutions to refute, and draws needing too many revealed
cells are redrawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_digit_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from ._latin import (
    grid_mutations,
    grid_symmetries,
    grid_text,
    neighbours,
    random_solution,
    sudoku_geometry,
    to_rows,
)
from ._sums import SumPuzzle

BOX_SHAPES = {4: (2, 2), 6: (2, 3), 9: (3, 3)}
MAX_ATTEMPTS = 300
NODE_BUDGET = 400  # a draw whose uniqueness check needs more search nodes is redrawn
CAGE_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True)
class KillerKnobs(Knobs):
    size: int = knob(4, choices=(4, 6, 9), help="grid size: 4 (2x2 boxes), 6 (2x3 boxes) or 9 (3x3 boxes)")
    min_cage: int = knob(1, low=1, high=6, help="smallest cage size drawn")
    max_cage: int = knob(3, low=1, high=6, help="largest cage size drawn")
    max_givens: int = knob(
        81, low=0, high=81, help="reject puzzles needing more revealed cells than this to be unique"
    )
    min_nodes: int = knob(
        0, low=0, high=10_000, help="reject puzzles the exact solver decides in fewer nodes"
    )
    allow_easy: bool = knob(
        True, help="accept puzzles solved by one-cell cages, last cells of cages and naked singles alone"
    )

    def validate(self) -> None:
        if self.min_cage > self.max_cage:
            raise ValueError(f"min_cage {self.min_cage} exceeds max_cage {self.max_cage}")
        if self.max_cage > self.size:
            raise ValueError(f"max_cage {self.max_cage} exceeds the size {self.size} (no repeats in a cage)")


LEVELS = {
    1: KillerKnobs(size=4, min_cage=1, max_cage=2),
    2: KillerKnobs(size=4, min_cage=2, max_cage=3),
    3: KillerKnobs(size=6, min_cage=1, max_cage=3, max_givens=2, allow_easy=False),
    4: KillerKnobs(size=6, min_cage=2, max_cage=3, max_givens=1, allow_easy=False),
    5: KillerKnobs(size=6, min_cage=2, max_cage=4, max_givens=0, allow_easy=False),
    6: KillerKnobs(size=9, min_cage=2, max_cage=3, max_givens=3, allow_easy=False),
    7: KillerKnobs(size=9, min_cage=2, max_cage=4, max_givens=4, allow_easy=False),
    8: KillerKnobs(size=9, min_cage=2, max_cage=4, max_givens=1, allow_easy=False),
    9: KillerKnobs(size=9, min_cage=2, max_cage=5, max_givens=4, allow_easy=False),
    10: KillerKnobs(size=9, min_cage=2, max_cage=5, max_givens=2, min_nodes=5, allow_easy=False),
}


def random_cages(solution: list[int], n: int, lo: int, hi: int, rng: np.random.Generator) -> list[int]:
    """Each cell's cage index: connected cages of about ``lo..hi`` cells, no repeated digit."""
    near = neighbours(n)
    cage = [-1] * (n * n)
    order = rng.permutation(n * n).tolist()
    sizes = rng.integers(lo, hi + 1, size=n * n).tolist()
    picks = rng.random(size=n * n * hi).tolist()
    count = 0
    for start in order:
        if cage[start] >= 0:
            continue
        members, digits = [start], {solution[start]}
        cage[start] = count
        while len(members) < sizes[count]:
            frontier = sorted(
                {q for c in members for q in near[c] if cage[q] < 0 and solution[q] not in digits}
            )
            if not frontier:
                break
            q = frontier[int(picks.pop() * len(frontier))]
            cage[q] = count
            members.append(q)
            digits.add(solution[q])
        count += 1
    return cage


def cage_list(cage: list[int], solution: list[int]) -> list[tuple[list[int], int]]:
    groups: dict[int, list[int]] = {}
    for cell, k in enumerate(cage):
        groups.setdefault(k, []).append(cell)
    return [(cells, sum(solution[c] for c in cells)) for _, cells in sorted(groups.items())]


def build_solver(n: int, cages: list[tuple[list[int], int]]) -> SumPuzzle:
    geo = sudoku_geometry(n, *BOX_SHAPES[n])
    return SumPuzzle(n * n, n, [list(u) for u in geo.units], cages)


def canonical_hash(n: int, cage_of: list[int], sums: list[int], givens: list[int]) -> str:
    """Least form of (cage map, cage sums, givens) under the grid symmetries; cages renamed in
    order of first appearance. Digits are not relabelled: sums pin them."""
    forms = []
    for perm in grid_symmetries(n, *BOX_SHAPES[n]):
        names: dict[int, int] = {}
        layout = []
        for i in perm:
            k = cage_of[i]
            names.setdefault(k, len(names))
            layout.append(names[k])
        ordered = [0] * len(names)
        for k, new in names.items():
            ordered[new] = sums[k]
        forms.append((layout, ordered, [givens[i] for i in perm]))
    return content_hash({"killer": n, "form": min(forms)})


PROMPT = """Solve this {n}x{n} killer sudoku. Fill every cell with a digit from 1 to {n} so that each \
row, each column and each of the {n} boxes of {br}x{bc} cells contains every digit exactly once. \
The cells are also grouped into cages (the cage map gives each cell's cage as a letter): the digits \
of a cage add up to the cage's sum, and no digit repeats inside a cage. The puzzle has exactly one \
solution.

Cage map:
{cage_map}

Cage sums: {sums}
{givens}
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
    "sudoku_killer",
    domain="puzzles",
    knobs=KillerKnobs,
    levels=LEVELS,
    description="Killer sudoku (cages with sums, 4x4 to 9x9) with a proven-unique solution.",
    verifier_kind="constraint check",
)
class SudokuKiller(Family):
    def generate(self, knobs: KillerKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        geo = sudoku_geometry(n, *BOX_SHAPES[n])
        for _ in range(MAX_ATTEMPTS):
            solution = random_solution(geo, rng)
            cage_of = random_cages(solution, n, knobs.min_cage, knobs.max_cage, rng)
            cages = cage_list(cage_of, solution)
            if len(cages) > len(CAGE_NAMES):
                continue
            solver = build_solver(n, cages)
            givens = [0] * (n * n)
            result = solver.solve(givens, max_nodes=NODE_BUDGET)
            while (
                result.count > 1 and not result.exhausted and sum(1 for v in givens if v) <= knobs.max_givens
            ):
                other = next(s for s in result.solutions if s != solution)
                diff = [i for i in range(n * n) if other[i] != solution[i]]
                cell = diff[int(rng.integers(len(diff)))]
                givens[cell] = solution[cell]
                result = solver.solve(givens, max_nodes=NODE_BUDGET)
            if result.exhausted or result.count != 1 or sum(1 for v in givens if v) > knobs.max_givens:
                continue
            if result.nodes < knobs.min_nodes:
                continue
            if not knobs.allow_easy and weak_solve(n, cages, givens)[0] is not None:
                continue  # degenerate: no cage arithmetic needed
            return self._draft(n, cage_of, cages, givens, solution, result)
        raise RuntimeError(f"no killer sudoku matched {knobs} in {MAX_ATTEMPTS} attempts")

    def _draft(self, n, cage_of, cages, givens, solution, result) -> TaskDraft:
        cage_map = "\n".join(" ".join(CAGE_NAMES[k] for k in cage_of[r * n : (r + 1) * n]) for r in range(n))
        sums = ", ".join(f"{CAGE_NAMES[k]}={t}" for k, (_, t) in enumerate(cages))
        if any(givens):
            board = "\n".join(
                " ".join(str(v) if v else "." for v in givens[r * n : (r + 1) * n]) for r in range(n)
            )
            given_text = f"\nGiven digits (. = empty):\n{board}\n"
        else:
            given_text = ""
        br, bc = BOX_SHAPES[n]
        return TaskDraft(
            prompt=PROMPT.format(n=n, br=br, bc=bc, cage_map=cage_map, sums=sums, givens=given_text),
            answer=grid_text(solution, n),
            metadata={
                "size": n,
                "box": [br, bc],
                "cages": to_rows(cage_of, n),
                "sums": [t for _, t in cages],
                "givens": to_rows(givens, n),
                "num_givens": sum(1 for v in givens if v),
                "num_cages": len(cages),
                "nodes": result.nodes,
                "assignments": result.assignments,
                "solutions": 1,
                "canonical_hash": canonical_hash(n, cage_of, [t for _, t in cages], givens),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, cage_of, sums, givens = _unpack(task)
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
            if givens[i] and v != givens[i]:
                return Verdict.wrong(f"cell r{i // n + 1}c{i % n + 1} is given as {givens[i]}", rows)
        geo = sudoku_geometry(n, *BOX_SHAPES[n])
        for unit in geo.units:
            if len({cells[c] for c in unit}) != n:
                return Verdict.wrong("a row, column or box repeats a digit", rows)
        for k, total in enumerate(sums):
            members = [cells[i] for i in range(n * n) if cage_of[i] == k]
            if len(set(members)) != len(members):
                return Verdict.wrong(f"cage {CAGE_NAMES[k]} repeats a digit", rows)
            if sum(members) != total:
                return Verdict.wrong(f"cage {CAGE_NAMES[k]} adds up to {sum(members)}, not {total}", rows)
        return Verdict.right(parsed=rows)

    def solve_exact(self, task: Task) -> SolverRun:
        n, cage_of, sums, givens = _unpack(task)
        result = build_solver(n, _cages(cage_of, sums)).solve(givens)
        if result.solution is None:
            return SolverRun(None, float(result.assignments))
        return SolverRun(f"<answer>\n{grid_text(result.solution, n)}\n</answer>", float(result.assignments))

    def solve_weak(self, task: Task) -> SolverRun:
        n, cage_of, sums, givens = _unpack(task)
        grid, steps = weak_solve(n, _cages(cage_of, sums), givens)
        return SolverRun(None if grid is None else f"<answer>\n{grid_text(grid, n)}\n</answer>", float(steps))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, _, _, givens = _unpack(task)
        out = grid_mutations(task.answer, givens, n, rng)
        # digits relabelled 1 <-> 2: every row, column and box rule holds, the cage sums break
        out.append("<answer>\n" + task.answer.translate(str.maketrans("12", "21")) + "\n</answer>")
        return out


def weak_solve(n: int, cages: list[tuple[list[int], int]], givens: list[int]) -> tuple[list[int] | None, int]:
    """No combination reasoning: one-cell cages and a cage's last empty cell, then naked
    singles; ``None`` when stuck."""
    grid = list(givens)
    geo = sudoku_geometry(n, *BOX_SHAPES[n])
    full, steps = (1 << n) - 1, 0
    progress = True
    while progress and not all(grid):
        progress = False
        steps += 1
        for cells, total in cages:
            empty = [c for c in cells if not grid[c]]
            if len(empty) == 1:
                value = total - sum(grid[c] for c in cells if grid[c])
                if not 1 <= value <= n:
                    return None, steps
                grid[empty[0]] = value
                progress = True
        for cell in range(n * n):
            if grid[cell]:
                continue
            used = 0
            for p in geo.peers[cell]:
                if grid[p]:
                    used |= 1 << (grid[p] - 1)
            free = full & ~used
            if free and not free & (free - 1):
                grid[cell] = free.bit_length()
                progress = True
    return (grid if all(grid) else None), steps


def _cages(cage_of: list[int], sums: list[int]) -> list[tuple[list[int], int]]:
    return [([i for i, k in enumerate(cage_of) if k == idx], total) for idx, total in enumerate(sums)]


def _unpack(task: Task) -> tuple[int, list[int], list[int], list[int]]:
    meta = task.metadata
    return (
        int(meta["size"]),
        [k for row in meta["cages"] for k in row],
        list(meta["sums"]),
        [v for row in meta["givens"] for v in row],
    )
