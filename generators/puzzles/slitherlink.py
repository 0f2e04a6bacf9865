"""Slitherlink: draw one closed loop along the grid lines so that every clue counts its sides.

An ``n x n`` grid of cells, some holding a clue 0-3; the loop runs along cell sides, never
crosses or touches itself, and a clue is the number of its cell's four sides the loop uses. The
answer is given as the cells inside the loop (a loop on a grid is the boundary of the region it
encloses, and the outside touches the border), so the verifier rebuilds the loop from that
region and checks that it is one simple loop and that every clue holds.

Generation: a random region grown cell by cell (each added cell keeps the region connected and
the outside connected to the border, and never makes two cells touch only at a corner), whose
boundary is the loop; each cell shows its clue with probability ``shown``. Then, while an exact
search finds a second loop, the clue of a random cell where the two loops differ is shown too
(that kills the other loop and keeps the intended one). Uniqueness is proven by that search:
depth-first over the edges with propagation (clue counts, vertex degree 0 or 2, no closed
sub-loop while other loop edges exist), counting loops up to two. (Dropping clues one by one to
a minimal set needs a search per cell: five times slower, too slow for this machine's budget.)

Difficulty moves with the grid size (4 to 6) and the share of clues shown (``reject_easy``, off
at every level, redraws puzzles that propagation alone solves: from level 7 on none is). Weak solver: the propagation alone (gives up when stuck).
Exact effort: search nodes of the uniqueness proof (the search looks for a second loop).

Speed (mean CPU time of one core, benchmarks/generation.py): level 1 ~1,370 tasks/s, level 5
~100/s, level 10 ~31/s (6x6 with a quarter of the clues: a few exact searches per task, some of
them long; the median is ~70/s).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.grids import read_binary_grid
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

MAX_ATTEMPTS = 200
MAX_CHARS = 5000
INSIDE, OUTSIDE = "#", "."
_INSIDE_MARKS = set("#1Xx")
_OUTSIDE_MARKS = set(".0")
UNKNOWN = -1


@dataclass(frozen=True)
class SlitherlinkKnobs(Knobs):
    size: int = knob(5, low=3, high=10, help="grid size n (n x n cells)")
    fill: float = knob(0.5, low=0.2, high=0.8, help="share of the cells inside the loop")
    shown: float = knob(
        0.5, low=0.05, high=1.0, help="chance that a cell shows its clue before the uniqueness repair"
    )
    reject_easy: bool = knob(False, help="redraw puzzles that propagation alone solves")


LEVELS = {
    1: SlitherlinkKnobs(size=4, shown=0.8),
    2: SlitherlinkKnobs(size=4, shown=0.6),
    3: SlitherlinkKnobs(size=5, shown=0.5),
    4: SlitherlinkKnobs(size=5, shown=0.4),
    5: SlitherlinkKnobs(size=5, shown=0.3),
    6: SlitherlinkKnobs(size=6, shown=0.45),
    7: SlitherlinkKnobs(size=6, shown=0.4),
    8: SlitherlinkKnobs(size=6, shown=0.35),
    9: SlitherlinkKnobs(size=6, shown=0.3),
    10: SlitherlinkKnobs(size=6, shown=0.25),
}


# --------------------------------------------------------------------------------------------
# The edge graph: horizontal edges (r, c) for r <= n, c < n, then vertical edges (r, c) for r < n, c <= n
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    n: int
    cell_edges: tuple[tuple[int, int, int, int], ...]  # top, bottom, left, right of cell r * n + c
    vertex_edges: tuple[tuple[int, ...], ...]  # the 2-4 edges at vertex r * (n + 1) + c
    ends: tuple[tuple[int, int], ...]  # the two vertices of each edge
    edge_cells: tuple[tuple[int, ...], ...]  # the 1-2 cells beside each edge


@lru_cache(maxsize=16)
def geometry(n: int) -> Geometry:
    horizontal = (n + 1) * n

    def h(r: int, c: int) -> int:
        return r * n + c

    def v(r: int, c: int) -> int:
        return horizontal + r * (n + 1) + c

    cells = tuple((h(r, c), h(r + 1, c), v(r, c), v(r, c + 1)) for r in range(n) for c in range(n))
    ends = [(r * (n + 1) + c, r * (n + 1) + c + 1) for r in range(n + 1) for c in range(n)]
    ends += [(r * (n + 1) + c, (r + 1) * (n + 1) + c) for r in range(n) for c in range(n + 1)]
    at: list[list[int]] = [[] for _ in range((n + 1) ** 2)]
    for edge, (a, b) in enumerate(ends):
        at[a].append(edge)
        at[b].append(edge)
    beside: list[list[int]] = [[] for _ in ends]
    for cell, edges in enumerate(cells):
        for edge in edges:
            beside[edge].append(cell)
    return Geometry(n, cells, tuple(tuple(x) for x in at), tuple(ends), tuple(tuple(x) for x in beside))


def region_edges(n: int, inside: list[list[int]]) -> list[int]:
    """0/1 per edge: 1 where the edge separates an inside cell from an outside one (or the border)."""
    geo = geometry(n)
    on = [0] * len(geo.ends)
    for r in range(n):
        for c in range(n):
            if inside[r][c]:
                for edge in geo.cell_edges[r * n + c]:
                    on[edge] ^= 1
    return on


def clue_counts(n: int, on: list[int]) -> list[int]:
    return [sum(on[e] for e in edges) for edges in geometry(n).cell_edges]


def loop_problem(n: int, on: list[int]) -> str | None:
    """Why the on-edges are not one simple closed loop, or ``None`` when they are."""
    geo = geometry(n)
    used = [e for e, x in enumerate(on) if x]
    if not used:
        return "the loop is empty"
    for vertex, edges in enumerate(geo.vertex_edges):
        if sum(on[e] for e in edges) not in (0, 2):
            r, c = divmod(vertex, n + 1)
            return f"the loop touches or crosses itself at the corner below row {r}, right of column {c}"
    seen = {used[0]}
    stack = [used[0]]
    while stack:
        edge = stack.pop()
        for vertex in geo.ends[edge]:
            for other in geo.vertex_edges[vertex]:
                if on[other] and other not in seen:
                    seen.add(other)
                    stack.append(other)
    if len(seen) != len(used):
        return "the boundary of the region is more than one loop (the region has a hole or two parts)"
    return None


# --------------------------------------------------------------------------------------------
# Propagation and search over edge states (-1 unknown, 0 off, 1 on)
# --------------------------------------------------------------------------------------------


class Contradiction(Exception):
    pass


def propagate(n: int, clues: list[int | None], state: list[int], changed: list[int] | None = None) -> None:
    """Apply the forced deductions until none applies; raise :class:`Contradiction` on a conflict.

    A work list holds the cells (``c``) and vertices (``v``) whose edges changed since they were
    last checked (all of them, or those beside the ``changed`` edges); the sub-loop rule runs
    when the list is empty."""
    geo = geometry(n)
    if changed is None:
        work = [("c", cell) for cell, clue in enumerate(clues) if clue is not None]
        work += [("v", vertex) for vertex in range(len(geo.vertex_edges))]
    else:
        work = [("v", vertex) for e in changed for vertex in geo.ends[e]]
        work += [("c", cell) for e in changed for cell in geo.edge_cells[e] if clues[cell] is not None]
    queued = set(work)

    def assign(edges: list[int], value: int) -> None:
        for e in edges:
            state[e] = value
            for vertex in geo.ends[e]:
                if ("v", vertex) not in queued:
                    queued.add(("v", vertex))
                    work.append(("v", vertex))
            for cell in geo.edge_cells[e]:
                if clues[cell] is not None and ("c", cell) not in queued:
                    queued.add(("c", cell))
                    work.append(("c", cell))

    while True:
        while work:
            item = work.pop()
            queued.discard(item)
            kind, index = item
            if kind == "c":
                clue = clues[index]
                edges = geo.cell_edges[index]
                on = sum(1 for e in edges if state[e] == 1)
                unknown = [e for e in edges if state[e] == UNKNOWN]
                if on > clue or on + len(unknown) < clue:  # type: ignore[operator]
                    raise Contradiction
                if unknown and (on == clue or on + len(unknown) == clue):
                    assign(unknown, 0 if on == clue else 1)
                continue
            edges = geo.vertex_edges[index]
            on = sum(1 for e in edges if state[e] == 1)
            unknown = [e for e in edges if state[e] == UNKNOWN]
            if on > 2 or (on == 1 and not unknown):
                raise Contradiction
            if not unknown:
                continue
            if on == 2 or (on == 0 and len(unknown) == 1):
                assign(unknown, 0)
            elif on == 1 and len(unknown) == 1:
                assign(unknown, 1)
        off = _close_subloops(n, state)
        if not off:
            return
        for e in off:
            state[e] = UNKNOWN
        assign(off, 0)


def _close_subloops(n: int, state: list[int]) -> list[int]:
    """Unknown edges that must be off: one joining the two ends of a path is off unless that path
    holds every on-edge; once a closed loop exists, every unknown edge is off (one loop only)."""
    geo = geometry(n)
    parent = list(range((n + 1) ** 2))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    on_edges = [e for e, x in enumerate(state) if x == 1]
    unknown = [e for e, x in enumerate(state) if x == UNKNOWN]
    for e in on_edges:
        a, b = geo.ends[e]
        ra, rb = root(a), root(b)
        if ra == rb:  # a closed loop
            if unknown:
                if len(_component(geo, state, e)) != len(on_edges):
                    raise Contradiction
                return unknown
            continue
        parent[ra] = rb
    sizes: dict[int, int] = {}
    for e in on_edges:
        r = root(geo.ends[e][0])
        sizes[r] = sizes.get(r, 0) + 1
    off = []
    for e in unknown:
        a, b = geo.ends[e]
        ra = root(a)
        if ra == root(b) and sizes.get(ra, 0) < len(on_edges):
            off.append(e)
    return off


def _component(geo: Geometry, state: list[int], start: int) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        edge = stack.pop()
        for vertex in geo.ends[edge]:
            for other in geo.vertex_edges[vertex]:
                if state[other] == 1 and other not in seen:
                    seen.add(other)
                    stack.append(other)
    return seen


def search(n: int, clues: list[int | None], limit: int = 2) -> tuple[list[list[int]], int]:
    """Loops satisfying the clues (up to ``limit``) and the search nodes, depth-first with propagation."""
    geo = geometry(n)
    solutions: list[list[int]] = []
    nodes = 0

    def descend(state: list[int], changed: list[int] | None) -> bool:
        nonlocal nodes
        nodes += 1
        try:
            propagate(n, clues, state, changed)
        except Contradiction:
            return False
        unknown = [e for e, x in enumerate(state) if x == UNKNOWN]
        if not unknown:
            if loop_problem(n, state) is None:
                solutions.append(state)
            return len(solutions) >= limit
        # branch next to the loop drawn so far: an unknown edge at a vertex with one on-edge
        branch = next(
            (e for e in unknown for v in geo.ends[e] if sum(state[f] == 1 for f in geo.vertex_edges[v]) == 1),
            unknown[0],
        )
        for value in (1, 0):
            child = list(state)
            child[branch] = value
            if descend(child, [branch]):
                return True
        return False

    descend([UNKNOWN] * len(geo.ends), None)
    return solutions, nodes


def weak_solve(n: int, clues: list[int | None]) -> list[int] | None:
    """Propagation alone: the loop when it fixes every edge, else ``None``."""
    state = [UNKNOWN] * len(geometry(n).ends)
    try:
        propagate(n, clues, state)
    except Contradiction:
        return None
    if UNKNOWN in state or loop_problem(n, state) is not None:
        return None
    return state


# --------------------------------------------------------------------------------------------
# Random loops: the boundary of a grown region
# --------------------------------------------------------------------------------------------


def _keeps_shape(n: int, inside: list[list[int]], r: int, c: int) -> bool:
    """Whether adding cell (r, c) keeps the outside connected to the border and no corner-only touch."""
    inside[r][c] = 1
    try:
        for dr in (0, -1):  # the four 2x2 blocks around (r, c) must not be diagonal pairs
            for dc in (0, -1):
                a, b = r + dr, c + dc
                block = [
                    inside[y][x] if 0 <= y < n and 0 <= x < n else 0
                    for y, x in ((a, b), (a, b + 1), (a + 1, b), (a + 1, b + 1))
                ]
                if block in ([1, 0, 0, 1], [0, 1, 1, 0]):
                    return False
        outside = [(y, x) for y in range(n) for x in range(n) if not inside[y][x]]
        reached = {(y, x) for y, x in outside if y in (0, n - 1) or x in (0, n - 1)}
        stack = list(reached)
        while stack:
            y, x = stack.pop()
            for nxt in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if nxt not in reached and 0 <= nxt[0] < n and 0 <= nxt[1] < n and not inside[nxt[0]][nxt[1]]:
                    reached.add(nxt)
                    stack.append(nxt)
        return len(reached) == len(outside)
    finally:
        inside[r][c] = 0


def random_region(n: int, fill: float, rng: np.random.Generator) -> list[list[int]]:
    inside = [[0] * n for _ in range(n)]
    r, c = int(rng.integers(n)), int(rng.integers(n))
    inside[r][c] = 1
    size, target = 1, max(2, round(fill * n * n))
    while size < target:
        frontier = sorted(
            {
                (y, x)
                for r in range(n)
                for c in range(n)
                if inside[r][c]
                for y, x in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1))
                if 0 <= y < n and 0 <= x < n and not inside[y][x]
            }
        )
        for i in rng.permutation(len(frontier)).tolist():
            y, x = frontier[i]
            if _keeps_shape(n, inside, y, x):
                inside[y][x] = 1
                size += 1
                break
        else:
            break  # no cell can be added
    return inside


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


def clue_text(n: int, clues: list[int | None]) -> str:
    return "\n".join(
        " ".join("." if x is None else str(x) for x in clues[r * n : (r + 1) * n]) for r in range(n)
    )


def region_text(inside: list[list[int]]) -> str:
    return "\n".join("".join(INSIDE if x else OUTSIDE for x in row) for row in inside)


def region_of(n: int, on: list[int]) -> list[list[int]]:
    """The cells inside a loop: crossing an on-edge flips inside/outside (scan each row from the left)."""
    geo = geometry(n)
    inside = [[0] * n for _ in range(n)]
    for r in range(n):
        state = 0
        for c in range(n):
            state ^= on[geo.cell_edges[r * n + c][2]]  # the cell's left side
            inside[r][c] = state
    return inside


def canonical_hash(n: int, clues: list[int | None]) -> str:
    grid = [[-1 if x is None else x for x in clues[r * n : (r + 1) * n]] for r in range(n)]
    forms = []
    for _ in range(4):
        grid = [list(col) for col in zip(*grid[::-1], strict=True)]
        forms.append(grid)
        forms.append([row[::-1] for row in grid])
    return content_hash({"slitherlink": n, "clues": min(forms)})


PROMPT = """Solve this {n}x{n} slitherlink puzzle. Draw one closed loop along the grid lines \
(the sides of the cells) that never crosses or touches itself. A number in a cell says how \
many of that cell's four sides the loop uses; a . cell has no clue. The loop is unique.

{clues}

Give the loop as the cells it encloses, inside <answer>...</answer>: {n} lines of {n} \
characters, # for a cell inside the loop and . for a cell outside (1 and 0 are also read). \
Format example only (a 3x3 grid whose loop goes around an L of four cells, not this puzzle):
<answer>
##.
#..
#..
</answer>"""


@family(
    "slitherlink",
    domain="puzzles",
    knobs=SlitherlinkKnobs,
    levels=LEVELS,
    description="Slitherlink (4x4 to 6x6): the unique loop, given as the cells it encloses; uniqueness proven by search.",
    verifier_kind="constraint check",
)
class Slitherlink(Family):
    def generate(self, knobs: SlitherlinkKnobs, rng: np.random.Generator) -> TaskDraft:
        n = knobs.size
        for _ in range(MAX_ATTEMPTS):
            inside = random_region(n, knobs.fill, rng)
            loop = region_edges(n, inside)
            full = clue_counts(n, loop)
            shown = rng.random(n * n) < knobs.shown
            clues: list[int | None] = [
                x if show else None for x, show in zip(full, shown.tolist(), strict=True)
            ]
            clues = make_unique(n, clues, loop, rng)
            if knobs.reject_easy and weak_solve(n, clues) is not None:
                continue
            return TaskDraft(
                prompt=PROMPT.format(n=n, clues=clue_text(n, clues)),
                answer=region_text(inside),
                metadata={
                    "size": n,
                    "clues": [clues[r * n : (r + 1) * n] for r in range(n)],
                    "solutions": 1,
                    "canonical_hash": canonical_hash(n, clues),
                },
            )
        raise RuntimeError(f"no slitherlink matched {knobs} in {MAX_ATTEMPTS} attempts")

    def verify(self, task: Task, response: str) -> Verdict:
        n, clues = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        inside, error = read_binary_grid(
            extraction.text, n, n, _INSIDE_MARKS, _OUTSIDE_MARKS, max_chars=MAX_CHARS
        )
        if inside is None:
            return Verdict.bad_format(error)
        on = region_edges(n, inside)
        if problem := loop_problem(n, on):
            return Verdict.wrong(problem, parsed=inside)
        counts = clue_counts(n, on)
        for cell, clue in enumerate(clues):
            if clue is not None and counts[cell] != clue:
                r, c = divmod(cell, n)
                return Verdict.wrong(
                    f"the loop uses {counts[cell]} sides of the cell in row {r + 1}, column {c + 1}, not {clue}",
                    parsed=inside,
                )
        return Verdict.right(parsed=inside)

    def solve_exact(self, task: Task) -> SolverRun:
        """Depth-first search over edges with propagation, proving no second loop (effort: nodes)."""
        n, clues = _unpack(task)
        solutions, nodes = search(n, clues, limit=2)
        if not solutions:
            return SolverRun(None, float(nodes))
        return SolverRun(f"<answer>\n{region_text(region_of(n, solutions[0]))}\n</answer>", float(nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        """Propagation alone (clue counts, vertex degrees, no early sub-loop); gives up when stuck."""
        n, clues = _unpack(task)
        on = weak_solve(n, clues)
        return SolverRun(None if on is None else f"<answer>\n{region_text(region_of(n, on))}\n</answer>", 1.0)

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        n, _ = _unpack(task)
        rows = [list(line) for line in task.answer.split("\n")]
        out = []
        for _ in range(4):  # one cell flipped: a clue or the loop's shape breaks (the loop is unique)
            flipped = [list(row) for row in rows]
            r, c = int(rng.integers(n)), int(rng.integers(n))
            flipped[r][c] = INSIDE if flipped[r][c] == OUTSIDE else OUTSIDE
            out.append("\n".join("".join(row) for row in flipped))
        inverted = "\n".join("".join(OUTSIDE if ch == INSIDE else INSIDE for ch in row) for row in rows)
        out.append(inverted)  # the same boundary inside the grid, plus the border: wrong
        out.append("\n".join("".join(row) for row in rows[:-1]))  # a row missing
        responses = [f"<answer>\n{text}\n</answer>" for text in dict.fromkeys(out)]
        return [r for r in responses if not self.verify(task, r).correct]


def make_unique(
    n: int, clues: list[int | None], loop: list[int], rng: np.random.Generator
) -> list[int | None]:
    """Show more clues of ``loop`` until the search finds no other loop (each one kills the last rival)."""
    full = clue_counts(n, loop)
    clues = list(clues)
    while True:
        solutions, _ = search(n, clues, limit=2)
        rival = next((s for s in solutions if s != loop), None)
        if rival is None:
            return clues
        counts = clue_counts(n, rival)
        differing = [c for c in range(n * n) if counts[c] != full[c]]
        cell = differing[int(rng.integers(len(differing)))]
        clues[cell] = full[cell]


def _unpack(task: Task) -> tuple[int, list[int | None]]:
    n = int(task.metadata["size"])
    return n, [None if x is None else int(x) for row in task.metadata["clues"] for x in row]
