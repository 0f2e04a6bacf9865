"""Hashi (bridges): islands carry numbers; connect them with horizontal or vertical bridges so
that each island has as many bridges as its number, at most two bridges join any pair, bridges
do not cross islands or each other, and all islands form one connected group.

Generation: islands are grown one at a time from a random start: an existing island sends a
bridge of 1 or 2 in a free direction to a new island at least two cells away, never crossing an
island or bridge; a few extra bridges then join islands that already see each other. The numbers
are read off. The exact solver (edge domains 0..2, island-sum bounds, crossing exclusion,
connectivity pruning; branching on the most constrained edge) counts solutions up to 2, and only
puzzles with exactly one solution are kept. Effort = the solver's search nodes plus propagation
rounds (``work``).

The weak solver is island-sum propagation alone (no crossing or connectivity reasoning, no
branching); it gives up when stuck, and its answer is checked against crossings and connectivity.

Speed (CPU time of one quiet core, 300 seeds): level 1 ~520 tasks/s, level 5 (9x9, 14 islands)
60-75/s depending on the seeds, level 10 (15x15, 40 islands) ~18/s: about half of the random
layouts are ambiguous, and from level 5 puzzles the weak propagation solves are rejected as well.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import fold_lookalikes

MAX_ATTEMPTS = 500
MAX_CHARS = 20000
DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))


@dataclass(frozen=True)
class HashiKnobs(Knobs):
    size: int = knob(5, low=5, high=15, help="grid size (rows = columns)")
    islands: int = knob(5, low=3, high=60, help="number of islands")
    extra: float = knob(
        0.2, low=0.0, high=1.0, help="chance that two islands seeing each other get an extra bridge"
    )
    allow_easy: bool = knob(True, help="accept puzzles that propagation alone solves (False: reject them)")

    def validate(self) -> None:
        if self.islands > self.size * self.size // 3:
            raise ValueError(f"islands {self.islands} is too many for a {self.size}x{self.size} grid")


LEVELS = {
    1: HashiKnobs(size=5, islands=5),
    2: HashiKnobs(size=6, islands=7),
    3: HashiKnobs(size=7, islands=9),
    4: HashiKnobs(size=8, islands=12, extra=0.4),
    5: HashiKnobs(size=9, islands=14, extra=0.5, allow_easy=False),
    6: HashiKnobs(size=10, islands=18, extra=0.5, allow_easy=False),
    7: HashiKnobs(size=11, islands=22, extra=0.5, allow_easy=False),
    8: HashiKnobs(size=12, islands=26, extra=0.5, allow_easy=False),
    9: HashiKnobs(size=13, islands=32, extra=0.5, allow_easy=False),
    10: HashiKnobs(size=15, islands=40, extra=0.5, allow_easy=False),
}


# --------------------------------------------------------------------------------------------
# Geometry: candidate edges between islands that see each other
# --------------------------------------------------------------------------------------------


def candidate_edges(
    size: int, islands: list[tuple[int, int]]
) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """Edges (i, j), i < j, between islands that see each other, and the pairs that cross."""
    at = {p: i for i, p in enumerate(islands)}
    edges = []
    for i, (r, c) in enumerate(islands):
        for dr, dc in ((1, 0), (0, 1)):
            rr, cc = r + dr, c + dc
            while 0 <= rr < size and 0 <= cc < size:
                if (rr, cc) in at:
                    j = at[(rr, cc)]
                    edges.append((min(i, j), max(i, j)))
                    break
                rr, cc = rr + dr, cc + dc
    return edges, _crossings(islands, edges)


def _crossings(islands: list[tuple[int, int]], edges: list[tuple[int, int]]) -> list[list[int]]:
    """For each edge, the edges it crosses, in ascending order (both loops run in edge order).
    Only a horizontal and a vertical edge can cross, so each horizontal edge is tested against
    the vertical ones alone."""
    horizontal, vertical = [], []  # (edge, fixed coordinate, low end, high end), strict interior
    for e, (i, j) in enumerate(edges):
        (r1, c1), (r2, c2) = islands[i], islands[j]
        if r1 == r2:
            horizontal.append((e, r1, min(c1, c2), max(c1, c2)))
        else:
            vertical.append((e, c1, min(r1, r2), max(r1, r2)))
    crosses: list[list[int]] = [[] for _ in edges]
    for h, row, left, right in horizontal:
        for v, column, top, bottom in vertical:
            if left < column < right and top < row < bottom:
                crosses[h].append(v)
                crosses[v].append(h)
    return crosses


# --------------------------------------------------------------------------------------------
# Solver
# --------------------------------------------------------------------------------------------


class _Solver:
    def __init__(self, size: int, islands: list[tuple[int, int]], numbers: list[int]) -> None:
        self.islands, self.numbers = islands, numbers
        self.edges, self.crosses = candidate_edges(size, islands)
        self.inc: list[list[int]] = [[] for _ in islands]
        for e, (i, j) in enumerate(self.edges):
            self.inc[i].append(e)
            self.inc[j].append(e)
        self.nodes = 0
        self.work = 0
        self.count = 0
        self.solutions: list[list[int]] = []

    def propagate(self, lo: list[int], hi: list[int], connect: bool = True) -> bool:
        """Tighten edge bounds [lo, hi] until nothing changes; False on a contradiction.
        ``connect`` adds crossing exclusion and connectivity pruning (the weak solver has neither)."""
        changed = True
        while changed:
            changed = False
            self.work += len(self.numbers)  # island checks per round
            for e, others in enumerate(self.crosses if connect else ()):
                if lo[e] > 0:
                    for o in others:
                        if hi[o] > 0:
                            if lo[o] > 0:
                                return False
                            hi[o] = 0
                            changed = True
            for i, need in enumerate(self.numbers):
                inc = self.inc[i]
                s_lo = sum(lo[e] for e in inc)
                s_hi = sum(hi[e] for e in inc)
                if s_lo > need or s_hi < need:
                    return False
                for e in inc:
                    new_lo = max(lo[e], need - (s_hi - hi[e]))
                    new_hi = min(hi[e], need - (s_lo - lo[e]))
                    if new_lo > new_hi:
                        return False
                    if new_lo != lo[e] or new_hi != hi[e]:
                        s_lo += new_lo - lo[e]
                        s_hi += new_hi - hi[e]
                        lo[e], hi[e] = new_lo, new_hi
                        changed = True
        return not connect or self._may_connect(lo, hi)

    def _may_connect(self, lo: list[int], hi: list[int]) -> bool:
        """All islands must be reachable over edges that may still carry a bridge."""
        n = len(self.islands)
        seen = {0}
        stack = [0]
        while stack:
            i = stack.pop()
            for e in self.inc[i]:
                if hi[e]:
                    a, b = self.edges[e]
                    j = b if a == i else a
                    if j not in seen:
                        seen.add(j)
                        stack.append(j)
        return len(seen) == n

    def search(self, limit: int = 2) -> _Solver:
        m = len(self.edges)
        self._rec([0] * m, [2] * m, limit)
        return self

    def _rec(self, lo: list[int], hi: list[int], limit: int) -> bool:
        self.nodes += 1
        if not self.propagate(lo, hi):
            return False
        open_edges = [e for e in range(len(lo)) if lo[e] != hi[e]]
        if not open_edges:
            self.count += 1
            self.solutions.append(list(lo))
            return self.count >= limit
        e = min(open_edges, key=lambda x: (hi[x] - lo[x], x))
        for v in range(hi[e], lo[e] - 1, -1):
            lo2, hi2 = list(lo), list(hi)
            lo2[e] = hi2[e] = v
            if self._rec(lo2, hi2, limit):
                return True
        return False


def solve(size: int, islands, numbers, limit: int = 2) -> _Solver:
    return _Solver(size, islands, numbers).search(limit)


def weak_solve(size: int, islands, numbers) -> tuple[list[int] | None, _Solver]:
    s = _Solver(size, islands, numbers)
    m = len(s.edges)
    lo, hi = [0] * m, [2] * m
    if not s.propagate(lo, hi, connect=False) or lo != hi or not s._may_connect(lo, hi):
        return None, s
    if any(lo[e] and any(lo[o] for o in others) for e, others in enumerate(s.crosses)):
        return None, s
    return lo, s


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def random_layout(size: int, count: int, extra: float, rng: np.random.Generator):
    """Islands and bridges {(i, j): k} of a random connected layout, or None."""
    islands = [(int(rng.integers(size)), int(rng.integers(size)))]
    occupied = {islands[0]: "island"}
    bridges: dict[tuple[int, int], int] = {}
    tries = 0
    while len(islands) < count and tries < 50 * count:
        tries += 1
        i = int(rng.integers(len(islands)))
        dr, dc = DIRS[int(rng.integers(4))]
        r, c = islands[i]
        dist = 2 + int(rng.integers(max(1, size // 2)))
        path = [(r + dr * s, c + dc * s) for s in range(1, dist + 1)]
        if not all(0 <= pr < size and 0 <= pc < size for pr, pc in path):
            continue
        if any(p in occupied for p in path):
            continue
        end = path[-1]
        # islands never touch: a bridge needs water between its two islands
        if any(occupied.get((end[0] + a, end[1] + b)) == "island" for a, b in DIRS):
            continue
        j = len(islands)
        islands.append(end)
        occupied[end] = "island"
        for p in path[:-1]:
            occupied[p] = "bridge"
        bridges[(i, j)] = 1 + int(rng.integers(2))
    if len(islands) < count:
        return None
    edges, crosses = candidate_edges(size, islands)
    index = {e: k for k, e in enumerate(edges)}
    # every layout bridge joins islands that see each other (paths were clear when built)
    used = set()
    for (i, j), _ in bridges.items():
        key = (min(i, j), max(i, j))
        if key not in index:
            return None
        used.add(index[key])
    final = {(min(i, j), max(i, j)): k for (i, j), k in bridges.items()}
    for k in rng.permutation(len(edges)).tolist():
        if k in used or rng.random() >= extra:
            continue
        if any(o in used for o in crosses[k]):
            continue
        used.add(k)
        final[edges[k]] = 1 + int(rng.integers(2))
    if any(o in used for k in used for o in crosses[k]):
        return None
    return islands, final


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Solve this hashi (bridges) puzzle on a {n}x{n} grid. Each number is an island; dots are \
water. Connect the islands with bridges so that:
- every bridge runs straight (horizontally or vertically) between two islands, over water only;
- at most two bridges join the same pair of islands;
- bridges never cross each other or pass over an island;
- each island has exactly as many bridges as its number;
- all islands are connected into one group.
The puzzle has exactly one solution. Rows and columns are numbered from 1 (top-left is row 1, \
column 1).

{board}

Islands (row, column: number): {listing}

Give the bridges inside <answer>...</answer>, one pair of islands per line, as \
"row,column - row,column : count" with count 1 or 2. List each pair once. Format example only \
(not a solution of this puzzle):
<answer>
1,1 - 1,4 : 2
1,4 - 3,4 : 1
</answer>"""

MAX_LINE_CHARS = 80  # one bridge per line; longer lines are refused unread
_COORD = r"[(\[]?[ \t]*[rR]?[ \t]*([0-9]{1,4})[ \t]*(?:,|[ \t]|[cC])[ \t]*[cC]?[ \t]*([0-9]{1,4})[ \t]*[)\]]?"
_BRIDGE = re.compile(
    rf"[ \t]*{_COORD}[ \t]*(?:-+>?|<->|–|—|→|↔|to)[ \t]*{_COORD}"
    r"[ \t]*(?:(?:[:=,;*x×]|bridges?:?)[ \t]*([0-9]{1,4}))?[ \t]*[.;,]?[ \t]*"
)


def parse_bridges(text: str) -> tuple[dict[tuple[tuple[int, int], tuple[int, int]], int] | None, str]:
    """One bridge per line, ``r1,c1 - r2,c2 : count`` (count 1 if left out); 1-based coordinates.

    Every character of a line must be read (``(1,1) - (1,4) : 2``, ``r1c1 -> r1c4 x2`` are fine);
    a number of more than four digits, extra text or a pair listed twice is a format error.
    """
    if len(text) > MAX_CHARS:
        return None, f"the answer is longer than {MAX_CHARS} characters"
    out: dict[tuple[tuple[int, int], tuple[int, int]], int] = {}
    for line in fold_lookalikes(text).strip().splitlines():
        if not line.strip():
            continue
        match = _BRIDGE.fullmatch(line) if len(line) <= MAX_LINE_CHARS else None
        if match is None:
            return None, f"could not read a bridge from {line.strip()[:40]!r}"
        nums = [int(match.group(k)) for k in range(1, 5)] + [int(match.group(5) or 1)]
        a, b = (nums[0] - 1, nums[1] - 1), (nums[2] - 1, nums[3] - 1)
        key = (min(a, b), max(a, b))
        if key in out:
            return None, f"the pair {line.strip()[:40]!r} is listed twice"
        out[key] = nums[4]
    if not out:
        return None, "no bridges found"
    return out, ""


def board_text(size: int, islands, numbers) -> str:
    grid = [["." for _ in range(size)] for _ in range(size)]
    for (r, c), v in zip(islands, numbers, strict=True):
        grid[r][c] = str(v)
    return "\n".join(" ".join(row) for row in grid)


def answer_text(islands, edges, values) -> str:
    lines = []
    for (i, j), v in zip(edges, values, strict=True):
        if v:
            (r1, c1), (r2, c2) = islands[i], islands[j]
            lines.append(f"{r1 + 1},{c1 + 1} - {r2 + 1},{c2 + 1} : {v}")
    return "\n".join(lines)


def canonical_hash(size: int, islands, numbers) -> str:
    forms = []
    for t in range(8):
        pts = []
        for (r, c), v in zip(islands, numbers, strict=True):
            rr, cc = (c, r) if t & 4 else (r, c)
            rr = size - 1 - rr if t & 1 else rr
            cc = size - 1 - cc if t & 2 else cc
            pts.append([rr, cc, v])
        forms.append(sorted(pts))
    return content_hash({"hashi": size, "form": min(forms)})


@family(
    "hashi",
    domain="puzzles",
    knobs=HashiKnobs,
    levels=LEVELS,
    description="Hashi/bridges (numbered islands joined by 1-2 straight bridges, connected, no crossings), unique solution proven.",
    verifier_kind="constraint check",
)
class Hashi(Family):
    def generate(self, knobs: HashiKnobs, rng: np.random.Generator) -> TaskDraft:
        size = knobs.size
        for _ in range(MAX_ATTEMPTS):
            layout = random_layout(size, knobs.islands, knobs.extra, rng)
            if layout is None:
                continue
            islands, final = layout
            numbers = [0] * len(islands)
            for (i, j), k in final.items():
                numbers[i] += k
                numbers[j] += k
            proof = solve(size, islands, numbers)
            if proof.count != 1:
                continue
            weak, _ = weak_solve(size, islands, numbers)
            if weak is not None and not knobs.allow_easy:
                continue
            # islands listed in reading order so the prompt and metadata are canonical
            order = sorted(range(len(islands)), key=lambda i: islands[i])
            islands = [islands[i] for i in order]
            numbers = [numbers[i] for i in order]
            s = solve(size, islands, numbers, limit=1)
            return TaskDraft(
                prompt=PROMPT.format(
                    n=size,
                    board=board_text(size, islands, numbers),
                    listing="; ".join(
                        f"{r + 1},{c + 1}: {v}" for (r, c), v in zip(islands, numbers, strict=True)
                    ),
                ),
                answer=answer_text(islands, s.edges, s.solutions[0]),
                metadata={
                    "size": size,
                    "islands": [[r, c, v] for (r, c), v in zip(islands, numbers, strict=True)],
                    "nodes": proof.nodes,
                    "work": proof.work,
                    "technique": "propagation" if weak is not None else "search",
                    "solutions": 1,
                    "canonical_hash": canonical_hash(size, islands, numbers),
                },
            )
        raise RuntimeError(f"no hashi puzzle matched {knobs} in {MAX_ATTEMPTS} attempts")

    def verify(self, task: Task, response: str) -> Verdict:
        size, islands, numbers = _unpack(task)
        extraction = extract_answer(response, allow_bare=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        bridges, error = parse_bridges(extraction.text)
        if bridges is None:
            return Verdict.bad_format(error)
        parsed = [[list(a), list(b), k] for (a, b), k in sorted(bridges.items())]
        edges, crosses = candidate_edges(size, islands)
        index = {(islands[i], islands[j]): e for e, (i, j) in enumerate(edges)}
        values = [0] * len(edges)
        for (a, b), k in bridges.items():
            if k not in (1, 2):
                return Verdict.wrong(f"a pair carries {k} bridges (1 or 2 allowed)", parsed)
            e = index.get((a, b))
            if e is None:
                return Verdict.wrong(
                    f"no straight open line joins islands {a[0] + 1},{a[1] + 1} and {b[0] + 1},{b[1] + 1}",
                    parsed,
                )
            values[e] = k
        for e, others in enumerate(crosses):
            if values[e] and any(values[o] for o in others):
                return Verdict.wrong("two bridges cross", parsed)
        totals = [0] * len(islands)
        for (i, j), v in zip(edges, values, strict=True):
            totals[i] += v
            totals[j] += v
        for (r, c), need, got in zip(islands, numbers, totals, strict=True):
            if need != got:
                return Verdict.wrong(f"island {r + 1},{c + 1} needs {need} bridges, has {got}", parsed)
        solver = _Solver(size, islands, numbers)
        if not solver._may_connect(values, values):
            return Verdict.wrong("the islands are not all connected", parsed)
        return Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        size, islands, numbers = _unpack(task)
        s = solve(size, islands, numbers, limit=1)
        effort = float(s.work)
        if not s.solutions:
            return SolverRun(None, effort)
        return SolverRun(f"<answer>\n{answer_text(islands, s.edges, s.solutions[0])}\n</answer>", effort)

    def solve_weak(self, task: Task) -> SolverRun:
        size, islands, numbers = _unpack(task)
        values, s = weak_solve(size, islands, numbers)
        if values is None:
            return SolverRun(None, float(s.work))
        return SolverRun(f"<answer>\n{answer_text(islands, s.edges, values)}\n</answer>", float(s.work))

    def reference_response(self, task: Task) -> str:
        return f"<answer>\n{task.answer}\n</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        lines = task.answer.split("\n")
        out = []
        k = int(rng.integers(len(lines)))
        out.append(
            "\n".join(lines[:k] + lines[k + 1 :]) or lines[0].replace(": 1", ": 2").replace(": 2", ": 1")
        )
        changed = list(lines)  # one bridge count changed 1 <-> 2
        changed[k] = changed[k][:-1] + ("2" if changed[k].endswith("1") else "1")
        out.append("\n".join(changed))
        all_double = [ln[:-1] + "2" for ln in lines]  # every pair doubled
        if all_double == lines:
            all_double = [ln[:-1] + "1" for ln in lines]
        out.append("\n".join(all_double))
        out.append("\n".join(lines + ["1,1 - 1,1 : 1"]))  # a bridge from an island to itself / water
        return [f"<answer>\n{g}\n</answer>" for g in out]


def _unpack(task: Task) -> tuple[int, list[tuple[int, int]], list[int]]:
    meta = task.metadata
    islands = [(int(r), int(c)) for r, c, _ in meta["islands"]]
    return int(meta["size"]), islands, [int(v) for _, _, v in meta["islands"]]
