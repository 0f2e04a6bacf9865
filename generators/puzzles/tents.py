"""Tents: place tents in a grid with trees so that every tree has its own tent on an orthogonal
neighbour (trees and tents pair up one to one), no two tents touch (not even diagonally), and
each row and column holds the number of tents its clue states.

Generation: tents are dropped on random free cells that touch no tent, each with a tree on a
random free orthogonal neighbour, until the grid holds about ``density * n * n`` trees; the
row and column counts are read off, and the draw is kept only if its tent layout is unique.
Counts are then removed in random order while it stays unique (down to ``min_clues``).
Uniqueness is proven by the exact solver: propagation (a full line blanks its other cells, a
line with exactly as many open cells as missing tents fills them, a tent blanks its eight
neighbours, a tree with one possible neighbour gets its tent there; then two rules the weak
solver lacks: a line's room for tents, since two neighbouring cells never both hold one, and
a bipartite matching check that every tree can still get its own tent and every tent its own
tree), then branching
on a cell next to the tree with fewest options, counting tent layouts up to 2. Effort =
cells the exact solver decided (``work``); ``nodes`` = its search nodes.

The weak solver is the local propagation without the room and matching rules, and no search.
Levels >= 3 reject puzzles it solves.

Speed (CPU time of one core, mean over seeds 0-29, ``benchmarks/generation.py``): level 1
~2,000 tasks/s, level 5 ~450/s, level 10 ~2/s (median 178 ms, mean 442 ms: a heavy tail).
Level 10 (14x14, counts removed down to 12) runs one uniqueness search per removal attempt,
and with few counts left a search branches deeply; draws the weak solver completes are redrawn.
Propagation reads only the lines and trees whose cells changed (the same deductions in the same
order). Version 2 bounds the searches of one draw (``FIRST_PROOF_NODES``, ``DIG_NODES``): in
version 1 one level-10 task in 100 seeds took 6 s.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_binary_grid, settle_count, square_maps
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_ATTEMPTS = 500
MAX_CHARS = 5000
NODE_BUDGET = 5000  # nodes of one removal's uniqueness search (past it the count stays)
# The bounds on a task's generation time (version 2): a draw whose first proof (all counts
# shown) runs past FIRST_PROOF_NODES is redrawn, and the removal searches of one draw share
# DIG_NODES. The final proof repeats the last successful removal's search (at most NODE_BUDGET).
FIRST_PROOF_NODES = 1000
DIG_NODES = 6000
UNKNOWN, EMPTY, TENT = -1, 0, 1


@dataclass(frozen=True)
class TentsKnobs(Knobs):
    size: int = knob(6, low=4, high=14, help="grid size n")
    density: float = knob(0.2, low=0.08, high=0.25, help="trees per cell")
    min_clues: int = knob(28, low=0, high=28, help="stop removing row/column counts at this many")
    allow_easy: bool = knob(True, help="accept puzzles local propagation solves (False: reject them)")


LEVELS = {
    1: TentsKnobs(size=5),
    2: TentsKnobs(size=6),
    3: TentsKnobs(size=6, allow_easy=False),
    4: TentsKnobs(size=7, allow_easy=False),
    5: TentsKnobs(size=8, allow_easy=False),
    6: TentsKnobs(size=8, min_clues=8, allow_easy=False),
    7: TentsKnobs(size=12, allow_easy=False),
    8: TentsKnobs(size=14, allow_easy=False),
    9: TentsKnobs(size=12, min_clues=10, allow_easy=False),
    10: TentsKnobs(size=14, min_clues=12, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def geometry(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """(orthogonal neighbours, all eight neighbours) of every cell."""
    ortho, around = [], []
    for r in range(n):
        for c in range(n):
            ortho.append(
                tuple(
                    (r + dr) * n + c + dc
                    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    if 0 <= r + dr < n and 0 <= c + dc < n
                )
            )
            around.append(
                tuple(
                    (r + dr) * n + c + dc
                    for dr in (-1, 0, 1)
                    for dc in (-1, 0, 1)
                    if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n
                )
            )
    return tuple(ortho), tuple(around)


def counts_of(tents: list[int], n: int) -> tuple[list[int], list[int]]:
    rows = [sum(tents[r * n : (r + 1) * n]) for r in range(n)]
    cols = [sum(tents[c::n]) for c in range(n)]
    return rows, cols


def has_matching(n: int, trees: list[int], tents: list[int]) -> bool:
    """Whether trees and tents pair up one to one along orthogonal neighbours."""
    if len(trees) != len(tents):
        return False
    ortho, _ = geometry(n)
    tent_set = set(tents)
    options = [[c for c in ortho[t] if c in tent_set] for t in trees]
    return _max_matching(options) == len(trees)


def _max_matching(options: list[list[int]]) -> int:
    """Size of a maximum matching of left vertices (with their right-vertex options)."""
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for c in options[i]:
            if c not in seen:
                seen.add(c)
                if c not in owner or augment(owner[c], seen):
                    owner[c] = i
                    return True
        return False

    return sum(1 for i in range(len(options)) if augment(i, set()))


# --------------------------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------------------------


class _Contradiction(Exception):
    pass


class TentsSolver:
    """Counts tent layouts of a puzzle (tree cells, row and column counts; -1 = no count)."""

    def __init__(self, n: int, trees: list[int], rows: list[int], cols: list[int]) -> None:
        self.n = n
        ortho, around = geometry(n)
        self.around = around
        self.trees = sorted(trees)
        tree_set = set(self.trees)
        self.tree_cells = [[c for c in ortho[t] if c not in tree_set] for t in self.trees]
        self.cell_trees: dict[int, list[int]] = {}
        for k, cells in enumerate(self.tree_cells):
            for c in cells:
                self.cell_trees.setdefault(c, []).append(k)
        # (count, every cell of the line in order) for each line with a count
        self.lines = [(count, list(range(r * n, (r + 1) * n))) for r, count in enumerate(rows) if count >= 0]
        self.lines += [(count, list(range(i, n * n, n))) for i, count in enumerate(cols) if count >= 0]
        self.cell_lines: list[list[int]] = [[] for _ in range(n * n)]  # the counted lines of each cell
        for i, (_, cells) in enumerate(self.lines):
            for c in cells:
                self.cell_lines[c].append(i)
        self.nodes = 0
        self.work = 0
        self.solutions: list[list[int]] = []

    def start(self) -> list[int]:
        """Cells next to no tree (and trees) are empty; the rest is open."""
        state = [EMPTY] * (self.n * self.n)
        for c in self.cell_trees:
            state[c] = UNKNOWN
        return state

    # propagation -------------------------------------------------------------------------

    def _set(self, state: list[int], cell: int, value: int, changed: list[int]) -> None:
        if state[cell] == value:
            return
        if state[cell] != UNKNOWN:
            raise _Contradiction
        state[cell] = value
        self.work += 1
        changed.append(cell)
        if value == TENT:
            for q in self.around[cell]:
                if state[q] == TENT:
                    raise _Contradiction
                if state[q] == UNKNOWN:
                    self._set(state, q, EMPTY, changed)

    def propagate(self, state: list[int], *, strong: bool = True, dirty: list[int] | None = None) -> bool:
        """Apply the rules to a fixpoint; False on a contradiction. ``strong`` adds the line
        capacity rule and the matching check (the exact solver's; the weak one has neither).

        Each rule reads only its own line's (or tree's) cells, so a line or tree none of whose
        cells changed since it was last read would change nothing: it is skipped. ``dirty``
        (the cells set since ``state`` was last a fixpoint; None: not known) marks the lines and
        trees worth reading in the first pass. Every rule that could act still acts, in the same
        order as reading everything every pass (the same ``work``, nodes and solutions)."""
        lines, trees = self.lines, self.tree_cells
        changed: list[int] = []  # every cell set in this call, in order
        line_read = [0] * len(lines)  # len(changed) when each line was last read
        tree_read = [0] * len(trees)
        line_touched = [0] * len(lines)  # 1 + the index in changed of each line's last change
        tree_touched = [0] * len(trees)
        noted = 0
        first = dirty is None
        if dirty:
            self._note(dirty, 0, line_touched, tree_touched)  # marks them 1 and more: read first
        try:
            while True:
                start = len(changed)
                for i, (count, cells) in enumerate(lines):
                    if not first and line_touched[i] <= line_read[i]:
                        continue
                    line_read[i] = len(changed)
                    possible, open_cells, all_tents = settle_count(state, cells, count, TENT, UNKNOWN)
                    if not possible:
                        return False
                    if all_tents is not None:
                        for c in open_cells:
                            self._set(state, c, TENT if all_tents else EMPTY, changed)
                    elif open_cells and strong:
                        self._capacity(
                            state, cells, count - sum(1 for c in cells if state[c] == TENT), changed
                        )
                    if len(changed) > noted:
                        noted = self._note(changed, noted, line_touched, tree_touched)
                for k, cells in enumerate(trees):
                    if not first and tree_touched[k] <= tree_read[k]:
                        continue
                    tree_read[k] = len(changed)
                    options = [c for c in cells if state[c] != EMPTY]
                    if not options:
                        return False
                    if len(options) == 1:
                        self._set(state, options[0], TENT, changed)
                        if len(changed) > noted:
                            noted = self._note(changed, noted, line_touched, tree_touched)
                first = False
                if len(changed) == start:
                    break
        except _Contradiction:
            return False
        return not strong or self._matchable(state)

    def _note(self, changed: list[int], noted: int, line_touched: list[int], tree_touched: list[int]) -> int:
        """Mark the lines and trees of the cells set since ``noted`` as changed; the new mark."""
        for j in range(noted, len(changed)):
            cell = changed[j]
            for i in self.cell_lines[cell]:
                line_touched[i] = j + 1
            for k in self.cell_trees.get(cell, ()):
                tree_touched[k] = j + 1
        return len(changed)

    def _capacity(self, state: list[int], cells: list[int], missing: int, changed: list[int]) -> None:
        """Neighbouring open cells of a line cannot both hold tents, so a run of k open cells
        holds at most (k + 1) // 2. Too little room is a contradiction; exactly enough room
        fills every run of odd length at its 1st, 3rd, 5th... cells."""
        runs, run = [], []
        for c in cells:
            if state[c] == UNKNOWN:
                run.append(c)
            elif run:
                runs.append(run)
                run = []
        if run:
            runs.append(run)
        room = sum((len(r) + 1) // 2 for r in runs)
        if room < missing:
            raise _Contradiction
        if room == missing:
            for r in runs:
                if len(r) % 2:
                    for c in r[::2]:
                        self._set(state, c, TENT, changed)

    def _matchable(self, state: list[int]) -> bool:
        """Every tree can still get a tent cell of its own, and every tent a tree of its own."""
        if _max_matching([[c for c in cells if state[c] != EMPTY] for cells in self.tree_cells]) < len(
            self.trees
        ):
            return False
        tents = [c for c in self.cell_trees if state[c] == TENT]
        if len(tents) > len(self.trees):
            return False
        return _max_matching([self.cell_trees[c] for c in tents]) == len(tents)

    # search ------------------------------------------------------------------------------

    def solve(self, limit: int = 2, max_nodes: int = 0) -> TentsSolver:
        self.exhausted = False
        self._rec(self.start(), limit, max_nodes)
        return self

    @property
    def count(self) -> int:
        return len(self.solutions)

    def _rec(self, state: list[int], limit: int, max_nodes: int, dirty: list[int] | None = None) -> bool:
        if max_nodes and self.nodes >= max_nodes:
            self.exhausted = True
            return True
        self.nodes += 1
        if not self.propagate(state, dirty=dirty):
            return False
        best, best_open = -1, 99
        for k, cells in enumerate(self.tree_cells):
            if any(state[c] == TENT for c in cells):
                continue
            open_cells = sum(1 for c in cells if state[c] == UNKNOWN)
            if 0 < open_cells < best_open:
                best, best_open = k, open_cells
        cell = -1
        if best >= 0:
            cell = next(c for c in self.tree_cells[best] if state[c] == UNKNOWN)
        else:
            cell = next((c for c in self.cell_trees if state[c] == UNKNOWN), -1)
        if cell < 0:
            tents = [c for c in range(self.n * self.n) if state[c] == TENT]
            if len(tents) != len(self.trees):
                return False
            self.solutions.append([1 if s == TENT else 0 for s in state])
            return len(self.solutions) >= limit
        for value in (TENT, EMPTY):
            branch, changed = list(state), []
            try:
                self._set(branch, cell, value, changed)  # a tent blanks its neighbours at once
            except _Contradiction:
                continue
            # state was a fixpoint: only the rules over the cells just set can act
            if self._rec(branch, limit, max_nodes, changed):
                return True
        return False

    def weak(self) -> tuple[list[int] | None, int]:
        """Local propagation only (no matching check, no search)."""
        state = self.start()
        if not self.propagate(state, strong=False) or UNKNOWN in state:
            return None, self.work
        tents = [1 if s == TENT else 0 for s in state]
        return tents, self.work


def solve(
    n: int, trees: list[int], rows: list[int], cols: list[int], limit: int = 2, max_nodes: int = 0
) -> TentsSolver:
    return TentsSolver(n, trees, rows, cols).solve(limit, max_nodes)


# --------------------------------------------------------------------------------------------
# Generation helpers
# --------------------------------------------------------------------------------------------


def random_layout(n: int, density: float, rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """(trees, tent grid): tent/tree pairs dropped on random free cells (tents never touch)."""
    ortho, around = geometry(n)
    target = max(1, round(density * n * n))
    kind = [0] * (n * n)  # 0 free, 1 tent, 2 tree
    trees = []
    for cell in rng.permutation(n * n).tolist():
        if len(trees) >= target:
            break
        if kind[cell] or any(kind[q] == 1 for q in around[cell]):
            continue
        spots = [q for q in ortho[cell] if not kind[q]]
        if not spots:
            continue
        tree = spots[int(rng.integers(len(spots)))]
        kind[cell], kind[tree] = 1, 2
        trees.append(tree)
    return sorted(trees), [1 if k == 1 else 0 for k in kind]


def canonical_hash(n: int, trees: list[int], rows: list[int], cols: list[int]) -> str:
    """Least form of (trees, row counts, column counts) under the square's 8 symmetries."""
    forms = []
    for m in square_maps(n):
        grid = [0] * (n * n)
        for t in trees:
            grid[m[t]] = 1
        forms.append(_form(n, grid, m, rows, cols))
    return content_hash({"tents": n, "form": min(forms)})


def _form(n: int, grid: list[int], m: list[int], rows: list[int], cols: list[int]) -> tuple:
    """The image of the counts: the row clue of r follows the cells of row r."""
    new_rows, new_cols = [0] * n, [0] * n
    for r in range(n):
        target = m[r * n]  # cell (r, 0)
        other = m[r * n + n - 1] if n > 1 else target  # cell (r, n-1)
        if target // n == other // n:  # row r maps to a row
            new_rows[target // n] = rows[r]
        else:  # row r maps to a column
            new_cols[target % n] = rows[r]
    for c in range(n):
        target = m[c]  # cell (0, c)
        other = m[(n - 1) * n + c]  # cell (n-1, c)
        if target % n == other % n:  # column c maps to a column
            new_cols[target % n] = cols[c]
        else:
            new_rows[target // n] = cols[c]
    return (grid, new_rows, new_cols)


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this {n}x{n} tents puzzle. The grid shows trees (T); place tents (A) on empty cells \
so that:
- every tree has its own tent on a cell directly above, below, left or right of it, and every \
tent belongs to exactly one such tree (so there are as many tents as trees);
- no two tents touch, not even diagonally;
- each row and each column holds the number of tents given for it ("-" = no count given).
The puzzle has exactly one solution.

{board}

Row counts (top to bottom): {row_text}
Column counts (left to right): {col_text}

Give the completed grid inside <answer>...</answer>: {n} lines, one per row, each with {n} \
characters: T for a tree (as shown), A for a tent, . for an empty cell. Format example only \
(a 4x4 grid, not a solution of this puzzle):
<answer>
A...
T.TA
..A.
.T..
</answer>"""


def board_text(n: int, trees: list[int], tents: list[int] | None = None) -> str:
    tree_set = set(trees)
    return "\n".join(
        "".join(
            "T" if r * n + c in tree_set else "A" if tents and tents[r * n + c] else "." for c in range(n)
        )
        for r in range(n)
    )


def _count_text(counts: list[int]) -> str:
    return " ".join(str(v) if v >= 0 else "-" for v in counts)


@family(
    "tents",
    domain="puzzles",
    knobs=TentsKnobs,
    levels=LEVELS,
    description="Tents and trees (one tent per tree, no touching tents, row/column counts; 5x5 to 14x14), unique solution proven.",
    version=2,
    verifier_kind="constraint check",
)
class Tents(Family):
    def generate(self, knobs: TentsKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            trees, tents = random_layout(n, knobs.density, rng)
            rows, cols = counts_of(tents, n)
            proof = solve(n, trees, rows, cols, max_nodes=FIRST_PROOF_NODES)
            if proof.exhausted or proof.count != 1:
                continue
            rows, cols = self._dig(n, trees, rows, cols, knobs.min_clues, rng)
            proof = solve(n, trees, rows, cols)
            if not knobs.allow_easy and TentsSolver(n, trees, rows, cols).weak()[0] is not None:
                continue  # degenerate: local rules alone place every tent
            return self._draft(n, trees, rows, cols, tents, proof)
        raise RuntimeError(f"no tents puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    @staticmethod
    def _dig(n, trees, rows, cols, min_clues, rng) -> tuple[list[int], list[int]]:
        """Remove counts in random order while the tent layout stays unique. A count whose
        uniqueness search runs past ``NODE_BUDGET`` nodes stays; once the removal searches
        together have spent ``DIG_NODES``, digging stops (the puzzle keeps the counts it has:
        still unique, at least ``min_clues``)."""
        clues = rows + cols
        shown = 2 * n
        left = DIG_NODES
        for k in rng.permutation(2 * n).tolist():
            if shown <= min_clues or left <= 0:
                break
            trial = list(clues)
            trial[k] = -1
            search = solve(n, trees, trial[:n], trial[n:], max_nodes=min(NODE_BUDGET, left))
            left -= search.nodes
            if search.count == 1 and not search.exhausted:
                clues, shown = trial, shown - 1
        return clues[:n], clues[n:]

    def _draft(self, n, trees, rows, cols, tents, proof) -> TaskDraft:
        return TaskDraft(
            prompt=PROMPT.format(
                n=n, board=board_text(n, trees), row_text=_count_text(rows), col_text=_count_text(cols)
            ),
            answer=board_text(n, trees, tents),
            metadata={
                "size": n,
                "trees": trees,
                "rows": rows,
                "cols": cols,
                "num_trees": len(trees),
                "num_clues": sum(1 for v in rows + cols if v >= 0),
                "nodes": proof.nodes,
                "work": proof.work,
                "solutions": 1,
                "canonical_hash": canonical_hash(n, trees, rows, cols),
            },
        )

    def verify(self, task: Task, response: str) -> Verdict:
        n, trees, rows, cols = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        text = extraction.text
        tent_grid, error = read_binary_grid(text, n, n, {"A"}, {".", "T"}, max_chars=MAX_CHARS)
        if tent_grid is None:
            return Verdict.bad_format(error)
        tree_grid, error = read_binary_grid(text, n, n, {"T"}, {".", "A"}, max_chars=MAX_CHARS)
        if tree_grid is None:  # pragma: no cover - same text, same shape
            return Verdict.bad_format(error)
        tents = [v for row in tent_grid for v in row]
        marked = [v for row in tree_grid for v in row]
        tree_set = set(trees)
        for cell in range(n * n):
            if marked[cell] != (cell in tree_set):
                where = f"r{cell // n + 1}c{cell % n + 1}"
                what = "is a tree" if cell in tree_set else "is not a tree"
                return Verdict.wrong(f"cell {where} {what}: write T exactly where the trees are", tent_grid)
        _, around = geometry(n)
        for cell in range(n * n):
            if tents[cell] and any(tents[q] for q in around[cell] if q > cell):
                return Verdict.wrong(
                    f"the tent at r{cell // n + 1}c{cell % n + 1} touches another tent", tent_grid
                )
        got_rows, got_cols = counts_of(tents, n)
        for i in range(n):
            if rows[i] >= 0 and got_rows[i] != rows[i]:
                return Verdict.wrong(f"row {i + 1} has {got_rows[i]} tents, not {rows[i]}", tent_grid)
            if cols[i] >= 0 and got_cols[i] != cols[i]:
                return Verdict.wrong(f"column {i + 1} has {got_cols[i]} tents, not {cols[i]}", tent_grid)
        placed = [c for c in range(n * n) if tents[c]]
        if not has_matching(n, trees, placed):
            return Verdict.wrong(
                f"the {len(placed)} tents cannot be paired one to one with the {len(trees)} trees "
                "along orthogonal neighbours",
                tent_grid,
            )
        return Verdict.right(parsed=tent_grid)

    def solve_exact(self, task: Task) -> SolverRun:
        """Line counts and room, tent neighbourhoods, trees' last options and a matching check at
        every node, then branching (effort: cells decided)."""
        n, trees, rows, cols = _unpack(task)
        search = solve(n, trees, rows, cols)
        if not search.solutions:
            return SolverRun(None, float(search.work))
        return SolverRun(
            f"<answer>\n{board_text(n, trees, search.solutions[0])}\n</answer>", float(search.work)
        )

    def solve_weak(self, task: Task) -> SolverRun:
        """Line counts, tent neighbourhoods and trees' last options; no room or matching rule, no search."""
        n, trees, rows, cols = _unpack(task)
        tents, work = TentsSolver(n, trees, rows, cols).weak()
        return SolverRun(
            None if tents is None else f"<answer>\n{board_text(n, trees, tents)}\n</answer>", float(work)
        )

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, trees, _, _ = _unpack(task)
        ortho, _ = geometry(n)
        cells = list(task.answer.replace("\n", ""))
        tents = [c for c in range(n * n) if cells[c] == "A"]
        empty = [c for c in range(n * n) if cells[c] == "."]
        out = []
        moved = list(cells)  # one tent moved to another empty cell
        a = tents[int(rng.integers(len(tents)))]
        b = empty[int(rng.integers(len(empty)))]
        moved[a], moved[b] = ".", "A"
        out.append(moved)
        dropped = list(cells)  # one tent removed
        dropped[tents[int(rng.integers(len(tents)))]] = "."
        out.append(dropped)
        added = list(cells)  # one tent too many
        added[empty[int(rng.integers(len(empty)))]] = "A"
        out.append(added)
        no_trees = [ch if ch != "T" else "." for ch in cells]  # trees left out
        out.append(no_trees)
        texts = ["\n".join("".join(g[r * n : (r + 1) * n]) for r in range(n)) for g in out]
        return [f"<answer>\n{t}\n</answer>" for t in texts]


def _unpack(task: Task) -> tuple[int, list[int], list[int], list[int]]:
    meta = task.metadata
    return (
        int(meta["size"]),
        [int(t) for t in meta["trees"]],
        [int(v) for v in meta["rows"]],
        [int(v) for v in meta["cols"]],
    )
