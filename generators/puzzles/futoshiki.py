"""Futoshiki: fill an n x n Latin square (each row and column holds 1..n once) so that every
inequality sign between two neighbouring cells holds; some cells are given.

Generation: a random Latin square; every inequality between neighbours, ``min_givens`` random
givens, and a given wherever two solutions still differ, until the solution is unique. Then
inequalities are removed in random order while the solution stays unique: the puzzle was
unique before a removal, so a second solution must break the removed inequality, and one
search with it reversed (which propagation usually refutes at once) decides each removal.
The final puzzle is proven unique by the exact solver (``_latin_csp.LatinCSP``: naked/hidden singles and inequality arc consistency at every
node, branching on the cell with fewest candidates, counting solutions up to 2).
Effort = candidates the exact solver eliminated (``work``); ``nodes`` = its search nodes.

The weak solver is the exact solver's propagation without search (singles and inequality
chains); levels >= 3 reject puzzles it solves, so they need at least one guess. Generation
checks each removal with a search bounded at ``DIG_NODE_BUDGET`` nodes (an inequality whose
check runs longer stays), which keeps the heavy tail of 8x8 digging in check.

Speed (CPU time of one core, mean over seeds 0-29, ``benchmarks/generation.py``): level 1 ~600
tasks/s, level 5 ~70/s, level 10 ~5/s. The top levels are slow because digging an 8x8 board
runs one bounded search per inequality (112 of them), each proving that removal keeps the
solution unique.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_digit_grid, square_maps
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from ._latin import grid_mutations, grid_text, latin_violation, make_geometry, random_solution, to_rows
from ._latin_csp import LatinCSP

MAX_ATTEMPTS = 200
DIG_NODE_BUDGET = 150  # a removal whose check needs more search nodes is not made


@dataclass(frozen=True)
class FutoshikiKnobs(Knobs):
    size: int = knob(4, low=4, high=9, help="grid size n (values 1..n)")
    min_givens: int = knob(0, low=0, high=81, help="random givens shown besides those needed for uniqueness")
    allow_easy: bool = knob(True, help="accept puzzles that propagation alone solves (no search)")
    min_nodes: int = knob(
        1, low=1, high=1000, help="reject puzzles the exact solver decides in fewer search nodes"
    )


LEVELS = {
    1: FutoshikiKnobs(size=4, min_givens=6),
    2: FutoshikiKnobs(size=4, min_givens=3),
    3: FutoshikiKnobs(size=5, min_givens=4, allow_easy=False),
    4: FutoshikiKnobs(size=5, allow_easy=False),
    5: FutoshikiKnobs(size=6, min_givens=4, allow_easy=False),
    6: FutoshikiKnobs(size=6, allow_easy=False),
    7: FutoshikiKnobs(size=7, min_givens=4, allow_easy=False),
    8: FutoshikiKnobs(size=7, allow_easy=False),
    9: FutoshikiKnobs(size=8, min_givens=8, allow_easy=False),
    10: FutoshikiKnobs(size=8, min_givens=5, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Clues and the solver
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def neighbour_pairs(n: int) -> tuple[tuple[int, int], ...]:
    """Every pair of orthogonally neighbouring cells (left/upper cell first)."""
    pairs = []
    for r in range(n):
        for c in range(n):
            if c + 1 < n:
                pairs.append((r * n + c, r * n + c + 1))
            if r + 1 < n:
                pairs.append((r * n + c, (r + 1) * n + c))
    return tuple(pairs)


def all_inequalities(solution: list[int], n: int) -> list[tuple[int, int]]:
    """Every inequality between neighbours, as (smaller cell, larger cell)."""
    return [(a, b) if solution[a] < solution[b] else (b, a) for a, b in neighbour_pairs(n)]


def build(n: int, inequalities: list[tuple[int, int]]) -> LatinCSP:
    return LatinCSP(n, less=inequalities)


def solve(n: int, givens: list[int], inequalities: list[tuple[int, int]], limit: int = 2):
    return build(n, inequalities).solve(givens, limit)


def start_puzzle(
    n: int, solution: list[int], min_givens: int, rng: np.random.Generator
) -> tuple[list[int], list[tuple[int, int]]]:
    """Every inequality and ``min_givens`` random givens, plus a given wherever two solutions
    still differ, until the solution is unique."""
    inequalities = all_inequalities(solution, n)
    givens = [0] * (n * n)
    for cell in rng.permutation(n * n)[:min_givens].tolist():
        givens[cell] = solution[cell]
    search = solve(n, givens, inequalities)
    while search.count > 1:
        other = next(s for s in search.solutions if s != solution)
        diff = [i for i in range(n * n) if other[i] != solution[i]]
        cell = diff[int(rng.integers(len(diff)))]
        givens[cell] = solution[cell]
        search = solve(n, givens, inequalities)
    return givens, inequalities


def dig(
    n: int, givens: list[int], inequalities: list[tuple[int, int]], rng: np.random.Generator
) -> list[tuple[int, int]]:
    """Remove inequalities in random order while the solution stays unique (it is unique before).

    The puzzle was unique before a removal, so a second solution must break the removed
    inequality: one search with it reversed decides the removal. A search that runs past
    ``DIG_NODE_BUDGET`` nodes keeps the inequality (keeping a clue never costs uniqueness). (Testing groups of removals
    at once saves nothing, since a group still needs one such search per inequality.)"""
    kept = list(inequalities)
    for i in rng.permutation(len(inequalities)).tolist():
        a, b = inequalities[i]
        trial = [pair for pair in kept if pair != (a, b)]
        search = build(n, trial + [(b, a)]).solve(givens, 1, max_nodes=DIG_NODE_BUDGET)
        if search.count == 0 and not search.exhausted:
            kept = trial
    return kept


# --------------------------------------------------------------------------------------------
# Rendering and symmetry
# --------------------------------------------------------------------------------------------


def render(n: int, givens: list[int], inequalities: list[tuple[int, int]]) -> str:
    """Cells as digits or dots; ``<``/``>`` between row neighbours, ``^``/``v`` between column
    neighbours (``^``: the upper cell is smaller, ``v``: the upper cell is larger)."""
    less = set(inequalities)
    lines = []
    for r in range(n):
        row = ""
        for c in range(n):
            cell = r * n + c
            row += str(givens[cell]) if givens[cell] else "."
            if c + 1 < n:
                row += " < " if (cell, cell + 1) in less else " > " if (cell + 1, cell) in less else "   "
        lines.append(row)
        if r + 1 < n:
            signs = []
            for c in range(n):
                cell = r * n + c
                below = cell + n
                signs.append("^" if (cell, below) in less else "v" if (below, cell) in less else " ")
            lines.append("   ".join(signs).rstrip())
    return "\n".join(lines)


def _name(cell: int, n: int) -> str:
    return f"r{cell // n + 1}c{cell % n + 1}"


def canonical_hash(n: int, givens: list[int], inequalities: list[tuple[int, int]]) -> str:
    """Least form under the 8 symmetries of the square and the value flip v -> n + 1 - v
    (which reverses every inequality)."""
    forms = []
    for m in square_maps(n):
        for flip in (False, True):
            g = [0] * (n * n)
            for cell, v in enumerate(givens):
                g[m[cell]] = n + 1 - v if flip and v else v
            ineq = sorted((m[b], m[a]) if flip else (m[a], m[b]) for a, b in inequalities)
            forms.append((g, ineq))
    return content_hash({"futoshiki": n, "form": min(forms)})


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} futoshiki puzzle. Fill every cell with a digit from 1 to {n} so that \
each row and each column contains every digit exactly once, and every inequality sign holds. \
In the board, a dot is an empty cell and a digit is given; `<` and `>` compare the two cells beside \
them in a row; between two rows, `^` under a cell means that cell is smaller than the cell below it, \
and `v` means it is larger. The puzzle has exactly one solution.

{board}

The same inequalities as a list (rNcM = row N, column M):
{listing}

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
    "futoshiki",
    domain="puzzles",
    knobs=FutoshikiKnobs,
    levels=LEVELS,
    description="Futoshiki (Latin square with inequality signs, 4x4 to 9x9), unique solution proven by search.",
    verifier_kind="constraint check",
)
class Futoshiki(Family):
    def generate(self, knobs: FutoshikiKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        geo = make_geometry(n, None)
        for _ in range(MAX_ATTEMPTS):
            solution = random_solution(geo, rng)
            givens, inequalities = start_puzzle(n, solution, knobs.min_givens, rng)
            inequalities = dig(n, givens, inequalities, rng)
            proof = solve(n, givens, inequalities)
            if proof.count != 1:  # pragma: no cover - digging keeps uniqueness
                continue
            if proof.nodes < knobs.min_nodes:
                continue
            if not knobs.allow_easy and build(n, inequalities).weak_solve(givens)[0] is not None:
                continue  # degenerate: no reasoning beyond singles
            return self._draft(n, givens, inequalities, solution, proof)
        raise RuntimeError(f"no futoshiki puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    def _draft(self, n, givens, inequalities, solution, proof) -> TaskDraft:
        inequalities = sorted(inequalities)
        listing = ", ".join(f"{_name(a, n)} < {_name(b, n)}" for a, b in inequalities) or "(none)"
        return TaskDraft(
            prompt=PROMPT.format(n=n, board=render(n, givens, inequalities), listing=listing),
            answer=grid_text(solution, n),
            metadata={
                "size": n,
                "givens": to_rows(givens, n),
                "inequalities": [[a, b] for a, b in inequalities],
                "num_givens": sum(1 for v in givens if v),
                "num_inequalities": len(inequalities),
                "nodes": proof.nodes,
                "work": proof.work,
                "solutions": 1,
                "canonical_hash": canonical_hash(n, givens, inequalities),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, givens, inequalities = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, error = read_digit_grid(extraction.text, n)
        if rows is None:
            return Verdict.bad_format(error)
        if problem := latin_violation(rows, givens):
            return Verdict.wrong(problem, rows)
        cells = [v for row in rows for v in row]
        for a, b in inequalities:
            if not cells[a] < cells[b]:
                return Verdict.wrong(
                    f"{_name(a, n)} < {_name(b, n)} is broken ({cells[a]} and {cells[b]})", rows
                )
        return Verdict.right(parsed=rows)

    def solve_exact(self, task: Task) -> SolverRun:
        """Latin singles + inequality arc consistency at every node, branching on the cell with
        fewest candidates (effort: candidates eliminated)."""
        n, givens, inequalities = _unpack(task)
        result = solve(n, givens, inequalities)
        if result.solution is None:
            return SolverRun(None, float(result.work))
        return SolverRun(f"<answer>\n{grid_text(result.solution, n)}\n</answer>", float(result.work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Singles and inequality arc consistency (chains of inequalities), no search."""
        n, givens, inequalities = _unpack(task)
        grid, work = build(n, inequalities).weak_solve(givens)
        return SolverRun(None if grid is None else f"<answer>\n{grid_text(grid, n)}\n</answer>", float(work))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, givens, inequalities = _unpack(task)
        out = grid_mutations(task.answer, givens, n, rng)
        if inequalities:
            # every digit v -> n + 1 - v: still a Latin square, every inequality reversed
            flipped = "".join(str(n + 1 - int(ch)) if ch.isdigit() else ch for ch in task.answer)
            out.append(f"<answer>\n{flipped}\n</answer>")
        return out


def _unpack(task: Task) -> tuple[int, list[int], list[tuple[int, int]]]:
    meta = task.metadata
    return (
        int(meta["size"]),
        [v for row in meta["givens"] for v in row],
        [(int(a), int(b)) for a, b in meta["inequalities"]],
    )
