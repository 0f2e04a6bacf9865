"""KenKen (calcudoku): fill an n x n Latin square (each row and column holds 1..n once) so that
the digits of every cage combine to the cage's target with the cage's operation: ``+`` (sum),
``x`` (product), ``-`` (difference of a two-cell cage), ``/`` (quotient of a two-cell cage,
larger over smaller). A one-cell cage gives its digit. Digits may repeat inside a cage when
they are not in the same row or column.

Generation: a random Latin square; random connected cages grown over it (sizes drawn between
``min_cage`` and ``max_cage``); an operation per cage from the level's set (``-`` and ``/``
only on two-cell cages, ``/`` only where the quotient is whole); targets read off the square.
While the exact solver finds a second solution, a cage where the two differ gets another
operation that the second solution misses, or, where none does, a differing cell is cut out
of its cage as a one-cell cage (the rest of the cage is split into its connected pieces,
whose operations and targets are recomputed); draws needing more than ``max_singles``
one-cell cages are redrawn. The exact solver (``_latin_csp.LatinCSP``: singles in rows and columns and
arc consistency on each cage's table of allowed digit tuples at every node, branching on the
cell with fewest candidates, counting solutions up to 2) proves the solution unique.
Effort = candidates the exact solver eliminated (``work``); ``nodes`` = its search nodes.

The weak solver is textbook reasoning without search or combinations: singles, and a cage
prunes a cell only once it is the cage's last open cell. Levels >= 3 reject puzzles it
solves; the top levels also ask for puzzles the exact solver must branch on (``min_nodes``).

Speed (CPU time of one core, mean over seeds 0-29, ``benchmarks/generation.py``): level 1
~1,900 tasks/s, level 5 ~300/s, level 10 ~5/s. Level 10 (8x8, at most one one-cell cage)
draws about 5 cage layouts per task and runs about 13 exact searches on them (repairs and the
uniqueness proof; measured over 8 seeds): most layouts need more one-cell cages than allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_digit_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from ._latin import (
    grid_mutations,
    grid_symmetries,
    grid_text,
    latin_violation,
    make_geometry,
    neighbours,
    random_solution,
    to_rows,
)
from ._latin_csp import LatinCSP, encode

MAX_ATTEMPTS = 300
NODE_BUDGET = 2000  # a draw whose uniqueness check needs more search nodes is redrawn
CAGE_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
OPERATION_SETS = {"add": "+", "add_mul": "+x", "all": "+-x/"}
Cage = tuple[tuple[int, ...], str, int]  # (cells, operation, target); operation "" = one cell


@dataclass(frozen=True)
class KenKenKnobs(Knobs):
    size: int = knob(4, low=3, high=9, help="grid size n (digits 1..n)")
    # tops tightened in issue 27: on a 9x9 grid, cages of at least 4 cells or a 100-node search
    # floor ran past 30 s; min_cage 3 with min_nodes 10 takes ~12 s
    min_cage: int = knob(1, low=1, high=3, help="smallest cage size drawn")
    max_cage: int = knob(3, low=1, high=6, help="largest cage size drawn")
    operations: str = knob(
        "all", choices=tuple(OPERATION_SETS), help="operations used: add (+), add_mul (+ x), all (+ - x /)"
    )
    max_singles: int = knob(81, low=0, high=81, help="reject puzzles with more one-cell cages than this")
    allow_easy: bool = knob(True, help="accept puzzles that singles and cages' last cells alone solve")
    min_nodes: int = knob(1, low=1, high=10, help="reject puzzles the exact solver decides in fewer nodes")

    def validate(self) -> None:
        if self.min_cage > self.max_cage:
            raise ValueError(f"min_cage {self.min_cage} exceeds max_cage {self.max_cage}")


LEVELS = {
    1: KenKenKnobs(size=3, min_cage=1, max_cage=2, operations="add"),
    2: KenKenKnobs(size=4, min_cage=1, max_cage=2, operations="add_mul"),
    3: KenKenKnobs(size=4, min_cage=2, max_cage=3, allow_easy=False),
    4: KenKenKnobs(size=5, min_cage=2, max_cage=3, max_singles=2, allow_easy=False),
    5: KenKenKnobs(size=5, min_cage=2, max_cage=4, max_singles=1, allow_easy=False),
    6: KenKenKnobs(size=6, min_cage=2, max_cage=3, max_singles=2, allow_easy=False),
    7: KenKenKnobs(size=6, min_cage=2, max_cage=4, max_singles=1, allow_easy=False),
    8: KenKenKnobs(size=7, min_cage=2, max_cage=4, max_singles=2, allow_easy=False),
    9: KenKenKnobs(size=7, min_cage=2, max_cage=4, max_singles=0, allow_easy=False),
    10: KenKenKnobs(size=8, min_cage=2, max_cage=4, max_singles=1, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Cages
# --------------------------------------------------------------------------------------------


def combine(op: str, values: list[int]) -> int | None:
    """The target a cage's digits reach with ``op`` (None: ``/`` that is not whole)."""
    if op in ("", "+"):
        return sum(values)
    if op == "x":
        out = 1
        for v in values:
            out *= v
        return out
    hi, lo = max(values), min(values)
    if op == "-":
        return hi - lo
    return hi // lo if hi % lo == 0 else None


@lru_cache(maxsize=4096)
def cage_tuples(
    n: int, op: str, target: int, clashes: tuple[tuple[int, int], ...], size: int
) -> tuple[int, ...]:
    """Every encoded tuple of digits for a cage of ``size`` cells reaching ``target`` with ``op``,
    where the position pairs in ``clashes`` (same row or column) hold different digits."""
    out = []
    values = [0] * size

    def rec(p: int, acc: int) -> None:
        if op == "+" and acc + (size - p) > target:
            return
        if op == "x" and target % acc:
            return
        if p == size:
            if combine(op, values) == target:
                out.append(encode(values, n))
            return
        for v in range(1, n + 1):
            if any(values[q] == v for q, r in clashes if r == p):
                continue
            values[p] = v
            rec(p + 1, acc + v if op == "+" else acc * v if op == "x" else acc)

    rec(0, 0 if op != "x" else 1)
    return tuple(out)


def clashes_of(cells: tuple[int, ...], n: int) -> tuple[tuple[int, int], ...]:
    """Position pairs (earlier, later) of a cage's cells sharing a row or a column."""
    return tuple(
        (i, j)
        for j in range(len(cells))
        for i in range(j)
        if cells[i] // n == cells[j] // n or cells[i] % n == cells[j] % n
    )


def build(n: int, cages: list[Cage]) -> tuple[LatinCSP, list[int]]:
    """The solver of a puzzle and its givens (the one-cell cages)."""
    givens = [0] * (n * n)
    tables = []
    for cells, op, target in cages:
        if len(cells) == 1:
            givens[cells[0]] = target
        else:
            tables.append((cells, cage_tuples(n, op, target, clashes_of(cells, n), len(cells))))
    return LatinCSP(n, tables), givens


def solve(n: int, cages: list[Cage], limit: int = 2, max_nodes: int = 0):
    csp, givens = build(n, cages)
    return csp.solve(givens, limit, max_nodes=max_nodes)


def random_partition(n: int, lo: int, hi: int, rng: np.random.Generator) -> list[list[int]]:
    """Connected cages of ``lo..hi`` cells grown from random cells (each cage's cells sorted).

    With ``lo >= 2`` a cell left alone joins a neighbouring cage that has room, or takes a
    cell from a neighbouring cage that can spare one (stays connected, keeps ``lo`` cells);
    only a cell that can do neither stays a one-cell cage."""
    near = neighbours(n)
    cage = [-1] * (n * n)
    order = rng.permutation(n * n).tolist()
    sizes = rng.integers(lo, hi + 1, size=n * n).tolist()
    picks = rng.random(size=n * n * hi).tolist()
    groups: list[list[int]] = []
    for start in order:
        if cage[start] >= 0:
            continue
        members = [start]
        cage[start] = len(groups)
        while len(members) < sizes[len(groups)]:
            frontier = sorted({q for c in members for q in near[c] if cage[q] < 0})
            if not frontier:
                break
            q = frontier[int(picks.pop() * len(frontier))]
            cage[q] = len(groups)
            members.append(q)
        groups.append(members)
    if lo >= 2:
        for k, members in enumerate(groups):
            if len(members) == 1:
                _join(k, groups, cage, n, lo, hi)
    return [sorted(g) for g in groups if g]


def _join(k: int, groups: list[list[int]], cage: list[int], n: int, lo: int, hi: int) -> None:
    """Give the lone cell of cage ``k`` company (see :func:`random_partition`)."""
    near = neighbours(n)
    cell = groups[k][0]
    around = sorted({cage[q] for q in near[cell]})
    for j in sorted(around, key=lambda j: (len(groups[j]), j)):
        if len(groups[j]) < hi:
            groups[j].append(cell)
            groups[k] = []
            cage[cell] = j
            return
    for q in near[cell]:
        j = cage[q]
        if len(groups[j]) > lo and len(_pieces([c for c in groups[j] if c != q], n)) == 1:
            groups[j].remove(q)
            groups[k].append(q)
            cage[q] = k
            return


def choose_operation(values: list[int], ops: str, rng: np.random.Generator) -> str:
    """A random operation from ``ops`` that suits the cage (``-`` and ``/`` need two cells)."""
    if len(values) == 1:
        return ""
    usable = [op for op in ops if op in "+x" or (len(values) == 2 and combine(op, values) is not None)]
    return usable[int(rng.integers(len(usable)))]


def make_cages(
    groups: list[list[int]], solution: list[int], ops: str, rng: np.random.Generator
) -> list[Cage]:
    cages = []
    for cells in groups:
        values = [solution[c] for c in cells]
        op = choose_operation(values, ops, rng)
        cages.append((tuple(sorted(cells)), op, combine(op, values)))
    return cages


def _pieces(cells: list[int], n: int) -> list[list[int]]:
    """The connected pieces of a set of cells (orthogonal neighbours)."""
    near, rest, out = neighbours(n), set(cells), []
    while rest:
        start = min(rest)
        piece, stack = [start], [start]
        rest.discard(start)
        while stack:
            for q in near[stack.pop()]:
                if q in rest:
                    rest.discard(q)
                    piece.append(q)
                    stack.append(q)
        out.append(sorted(piece))
    return out


def cut_out(cages: list[Cage], cell: int, solution: list[int], n: int, ops: str, rng) -> list[Cage]:
    """``cell`` becomes a one-cell cage; the rest of its cage splits into connected pieces."""
    out = []
    for cells, op, target in cages:
        if cell not in cells:
            out.append((cells, op, target))
            continue
        rest = [c for c in cells if c != cell]
        out.append(((cell,), "", solution[cell]))
        out.extend(make_cages(_pieces(rest, n), solution, ops, rng))
    return out


def repair(cages: list[Cage], solution: list[int], other: list[int], n: int, ops: str, rng) -> list[Cage]:
    """Break the second solution ``other`` and keep ``solution``: give a cage where they differ
    another operation that ``other`` misses, or else cut a differing cell out as a one-cell cage."""
    diff = [i for i in range(n * n) if other[i] != solution[i]]
    for k in rng.permutation(len(cages)).tolist():
        cells, op, _ = cages[k]
        if len(cells) == 1 or not any(c in cells for c in diff):
            continue
        mine, theirs = [solution[c] for c in cells], [other[c] for c in cells]
        for new_op in rng.permutation(list(ops)).tolist():
            target = combine(new_op, mine)
            if new_op == op or target is None or (new_op in "-/" and len(cells) != 2):
                continue
            if combine(new_op, theirs) != target:
                return cages[:k] + [(cells, new_op, target)] + cages[k + 1 :]
    return cut_out(cages, diff[int(rng.integers(len(diff)))], solution, n, ops, rng)


# --------------------------------------------------------------------------------------------
# Rendering and symmetry
# --------------------------------------------------------------------------------------------


def cage_index(n: int, cages: list[Cage]) -> list[int]:
    index = [0] * (n * n)
    for k, (cells, _, _) in enumerate(cages):
        for c in cells:
            index[c] = k
    return index


def ordered(n: int, cages: list[Cage]) -> list[Cage]:
    """Cages in order of their first cell (reading order), so names run A, B, C... down the grid."""
    return sorted(cages, key=lambda cage: min(cage[0]))


def label(op: str, target: int) -> str:
    return f"{target}{op}" if op else str(target)


def canonical_hash(n: int, cages: list[Cage]) -> str:
    """Least form of (cage map, cage labels) under the 8 symmetries of the square; cages renamed
    in order of first appearance (digits are not relabelled: targets pin them)."""
    index = cage_index(n, cages)
    forms = []
    for perm in grid_symmetries(n, 1, 1):
        names: dict[int, int] = {}
        layout = []
        for i in perm:
            layout.append(names.setdefault(index[i], len(names)))
        labels = [""] * len(names)
        for k, new in names.items():
            labels[new] = label(cages[k][1], cages[k][2])
        forms.append((layout, labels))
    return content_hash({"kenken": n, "form": min(forms)})


PROMPT = """Solve this {n}x{n} KenKen puzzle. Fill every cell with a digit from 1 to {n} so that \
each row and each column contains every digit exactly once. The cells are grouped into cages \
(the cage map gives each cell's cage as a letter). Each cage has a target and an operation: \
`+` the cage's digits add up to the target, `x` they multiply to it, `-` (two cells) the larger \
minus the smaller is the target, `/` (two cells) the larger divided by the smaller is the target; \
a cage with a bare number is one cell holding that digit. A digit may repeat inside a cage if the \
repeats are not in the same row or column. The puzzle has exactly one solution.

Cage map:
{cage_map}

Cages: {labels}

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
    "kenken",
    domain="puzzles",
    knobs=KenKenKnobs,
    levels=LEVELS,
    description="KenKen (Latin square with arithmetic cages, 3x3 to 8x8), unique solution proven by search.",
    verifier_kind="constraint check",
)
class KenKen(Family):
    def generate(self, knobs: KenKenKnobs, rng: np.random.Generator) -> TaskDraft:
        n, ops = knobs.size, OPERATION_SETS[knobs.operations]
        geo = make_geometry(n, None)
        for _ in range(MAX_ATTEMPTS):
            solution = random_solution(geo, rng)
            groups = random_partition(n, knobs.min_cage, knobs.max_cage, rng)
            cages = make_cages(groups, solution, ops, rng)
            result = solve(n, cages, max_nodes=NODE_BUDGET)
            while result.count > 1 and not result.exhausted:
                other = next(s for s in result.solutions if s != solution)
                cages = repair(cages, solution, other, n, ops, rng)
                result = solve(n, cages, max_nodes=NODE_BUDGET)
            singles = sum(1 for cells, _, _ in cages if len(cells) == 1)
            if result.exhausted or result.count != 1 or singles > knobs.max_singles:
                continue
            if len(cages) > len(CAGE_NAMES) or result.nodes < knobs.min_nodes:
                continue
            csp, givens = build(n, cages)
            if not knobs.allow_easy and csp.weak_solve(givens, forward_only=True)[0] is not None:
                continue  # degenerate: no cage arithmetic beyond a cage's last cell
            return self._draft(n, ordered(n, cages), solution, result)
        raise RuntimeError(f"no kenken puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    def _draft(self, n, cages, solution, result) -> TaskDraft:
        index = cage_index(n, cages)
        cage_map = "\n".join(" ".join(CAGE_NAMES[k] for k in index[r * n : (r + 1) * n]) for r in range(n))
        labels = ", ".join(f"{CAGE_NAMES[k]} = {label(op, t)}" for k, (_, op, t) in enumerate(cages))
        return TaskDraft(
            prompt=PROMPT.format(n=n, cage_map=cage_map, labels=labels),
            answer=grid_text(solution, n),
            metadata={
                "size": n,
                "cages": to_rows(index, n),
                "operations": [op for _, op, _ in cages],
                "targets": [t for _, _, t in cages],
                "num_cages": len(cages),
                "num_singles": sum(1 for cells, _, _ in cages if len(cells) == 1),
                "nodes": result.nodes,
                "work": result.work,
                "solutions": 1,
                "canonical_hash": canonical_hash(n, cages),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, cages = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        rows, error = read_digit_grid(extraction.text, n)
        if rows is None:
            return Verdict.bad_format(error)
        if problem := latin_violation(rows):
            return Verdict.wrong(problem, rows)
        cells = [v for row in rows for v in row]
        for k, (members, op, target) in enumerate(cages):
            reached = combine(op, [cells[c] for c in members])
            if reached != target:
                got = "no whole quotient" if reached is None else str(reached)
                return Verdict.wrong(f"cage {CAGE_NAMES[k]} ({label(op, target)}) gives {got}", rows)
        return Verdict.right(parsed=rows)

    def solve_exact(self, task: Task) -> SolverRun:
        """Latin singles + arc consistency on every cage's digit tuples at every node, branching
        on the cell with fewest candidates (effort: candidates eliminated)."""
        n, cages = _unpack(task)
        result = solve(n, cages)
        response = (
            None if result.solution is None else f"<answer>\n{grid_text(result.solution, n)}\n</answer>"
        )
        return SolverRun(response, float(result.work))

    def solve_weak(self, task: Task) -> SolverRun:
        """Singles, and a cage only at its last open cell; no combinations, no search."""
        n, cages = _unpack(task)
        csp, givens = build(n, cages)
        grid, work = csp.weak_solve(givens, forward_only=True)
        return SolverRun(None if grid is None else f"<answer>\n{grid_text(grid, n)}\n</answer>", float(work))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, cages = _unpack(task)
        singles = [0] * (n * n)
        for cells, _, target in cages:
            if len(cells) == 1:
                singles[cells[0]] = target
        out = grid_mutations(task.answer, singles, n, rng)
        # two rows swapped: still a Latin square; wrong, since the solution is unique
        rows = task.answer.split("\n")
        a = int(rng.integers(n))
        b = (a + 1 + int(rng.integers(n - 1))) % n
        rows[a], rows[b] = rows[b], rows[a]
        out.append("<answer>\n" + "\n".join(rows) + "\n</answer>")
        return out


def _unpack(task: Task) -> tuple[int, list[Cage]]:
    meta = task.metadata
    n = int(meta["size"])
    index = [int(k) for row in meta["cages"] for k in row]
    cages = []
    for k, (op, target) in enumerate(zip(meta["operations"], meta["targets"], strict=True)):
        cages.append((tuple(c for c in range(n * n) if index[c] == k), str(op), int(target)))
    return n, cages
