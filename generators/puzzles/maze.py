"""Maze navigation: walk from S to E through a character-grid maze by a shortest route.

The maze is a random spanning tree of a grid of rooms (randomised depth-first search), drawn as
a ``(2 rows + 1) x (2 cols + 1)`` character grid (``#`` wall, ``.`` floor), with a share of the
remaining inner walls knocked down to make loops, so that several routes exist and only some
are shortest. S and E are rooms far apart (their distance is at least ``min_spread`` of the
largest distance from S). The optimum is proven by breadth-first search; any route of that
length is accepted: the verifier replays every move (walls and the border stop it) and counts.

Degenerate mazes are rejected where the level asks for it (``reject_wall_follower``): a maze in
which the left-hand or the right-hand wall follower, with its detours erased, already walks a
shortest route. In a loop-free maze that trivial baseline is always optimal (the route is
unique), which is why the low levels have no loops and the high levels have many.

Difficulty moves with the size (rooms) and the share of loops; the weak solver is the
right-hand wall follower with loop erasure (solve rate 1.0 at level 1, 0 from level 7 on, where
such mazes are rejected); exact effort = squares the BFS expands.

Speed (mean CPU time of one core, benchmarks/generation.py): level 1 ~3,600 tasks/s, level 5
~1,450/s, level 10 ~380/s.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.search import MAX_PLAN_STEPS, extract_plan_text, grade_length
from palaestra.registry import Family, SolverRun, TaskDraft, family

WALL, FLOOR = "#", "."
STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
MAX_ATTEMPTS = 200
_SEPARATORS = re.compile(r"[\s,;]+")
_MOVES = re.compile(r"[UDLRudlr]+")


@dataclass(frozen=True)
class MazeKnobs(Knobs):
    rows: int = knob(4, low=2, high=30, help="rooms per column (the grid has 2 rows + 1 lines)")
    cols: int = knob(4, low=2, high=30, help="rooms per row (the grid has 2 cols + 1 characters a line)")
    loops: float = knob(0.0, low=0.0, high=0.6, help="share of the remaining inner walls knocked down")
    min_spread: float = knob(
        0.7, low=0.0, high=1.0, help="S-E distance at least this share of the farthest room from S"
    )
    reject_wall_follower: bool = knob(
        False, help="reject mazes where a wall follower (detours erased) walks a shortest route"
    )


LEVELS = {
    1: MazeKnobs(rows=4, cols=4),
    2: MazeKnobs(rows=5, cols=5),
    3: MazeKnobs(rows=6, cols=6, loops=0.05),
    4: MazeKnobs(rows=7, cols=7, loops=0.1),
    5: MazeKnobs(rows=8, cols=8, loops=0.1),
    6: MazeKnobs(rows=9, cols=9, loops=0.15),
    7: MazeKnobs(rows=10, cols=10, loops=0.15, reject_wall_follower=True),
    8: MazeKnobs(rows=12, cols=12, loops=0.2, reject_wall_follower=True),
    9: MazeKnobs(rows=14, cols=14, loops=0.2, reject_wall_follower=True),
    10: MazeKnobs(rows=16, cols=16, loops=0.25, reject_wall_follower=True),
}


# --------------------------------------------------------------------------------------------
# Building mazes: a grid of strings, rooms at odd coordinates
# --------------------------------------------------------------------------------------------


def carve(rows: int, cols: int, loops: float, rng: np.random.Generator) -> list[list[str]]:
    """A random spanning tree of the rooms (depth-first), then ``loops`` of the inner walls removed."""
    grid = [[WALL] * (2 * cols + 1) for _ in range(2 * rows + 1)]
    seen = [[False] * cols for _ in range(rows)]
    start = (int(rng.integers(rows)), int(rng.integers(cols)))
    stack = [start]
    seen[start[0]][start[1]] = True
    grid[2 * start[0] + 1][2 * start[1] + 1] = FLOOR
    while stack:
        r, c = stack[-1]
        fresh = [
            (r + dr, c + dc)
            for dr, dc in STEPS.values()
            if 0 <= r + dr < rows and 0 <= c + dc < cols and not seen[r + dr][c + dc]
        ]
        if not fresh:
            stack.pop()
            continue
        nr, nc = fresh[int(rng.integers(len(fresh)))]
        seen[nr][nc] = True
        grid[r + nr + 1][c + nc + 1] = FLOOR  # the wall between the two rooms
        grid[2 * nr + 1][2 * nc + 1] = FLOOR
        stack.append((nr, nc))
    if loops > 0:
        inner = [
            (r, c)
            for r in range(1, 2 * rows)
            for c in range(1, 2 * cols)
            if (r + c) % 2 == 1 and grid[r][c] == WALL
        ]
        for i in rng.permutation(len(inner))[: round(loops * len(inner))].tolist():
            r, c = inner[i]
            grid[r][c] = FLOOR
    return grid


def distances(
    grid: list[str] | list[list[str]], start: tuple[int, int]
) -> tuple[dict[tuple[int, int], int], int]:
    """BFS distance (in squares) from ``start`` to every reachable floor square, and squares expanded."""
    dist = {start: 0}
    queue = deque([start])
    expanded = 0
    while queue:
        r, c = queue.popleft()
        expanded += 1
        for dr, dc in STEPS.values():
            nxt = (r + dr, c + dc)
            if nxt not in dist and grid[nxt[0]][nxt[1]] != WALL:  # the border is all wall
                dist[nxt] = dist[(r, c)] + 1
                queue.append(nxt)
    return dist, expanded


def shortest_route(grid: list[str], start: tuple[int, int], goal: tuple[int, int]) -> tuple[str, int]:
    """One shortest route as U/D/L/R letters, and the squares the BFS expanded before reaching ``goal``."""
    parent: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
    queue = deque([start])
    expanded = 0
    while queue:
        pos = queue.popleft()
        expanded += 1
        if pos == goal:
            break
        for letter, (dr, dc) in STEPS.items():
            nxt = (pos[0] + dr, pos[1] + dc)
            if nxt not in parent and grid[nxt[0]][nxt[1]] != WALL:
                parent[nxt] = (pos, letter)
                queue.append(nxt)
    moves = []
    pos = goal
    while parent[pos] is not None:
        pos, letter = parent[pos]  # type: ignore[misc]
        moves.append(letter)
    return "".join(reversed(moves)), expanded


_RIGHT_OF = {"U": "R", "R": "D", "D": "L", "L": "U"}
_LEFT_OF = {v: k for k, v in _RIGHT_OF.items()}
_BACK = {"U": "D", "D": "U", "L": "R", "R": "L"}


def wall_follower(
    grid: list[str], start: tuple[int, int], goal: tuple[int, int], hand: str = "right"
) -> str | None:
    """Keep one hand on the wall until E, then erase the detours (loops) of the walk.

    ``None`` when the walk comes back to a square it left in the same direction (it circles an
    island of walls that does not touch E)."""
    turn_first, turn_back = (_RIGHT_OF, _LEFT_OF) if hand == "right" else (_LEFT_OF, _RIGHT_OF)
    pos, heading = start, "U"
    walk = [start]
    letters: list[str] = []
    seen = set()
    while pos != goal:
        if (pos, heading) in seen:
            return None
        seen.add((pos, heading))
        for letter in (turn_first[heading], heading, turn_back[heading], _BACK[heading]):
            dr, dc = STEPS[letter]
            if grid[pos[0] + dr][pos[1] + dc] != WALL:
                pos, heading = (pos[0] + dr, pos[1] + dc), letter
                break
        else:
            return None  # a closed cell: no move at all
        # loop erasure: coming back to a square on the walk cuts the detour since it
        if pos in walk:
            cut = walk.index(pos)
            del walk[cut + 1 :]
            del letters[cut:]
        else:
            walk.append(pos)
            letters.append(heading)
    return "".join(letters)


def replay(grid: list[str], start: tuple[int, int], moves: str) -> tuple[tuple[int, int] | None, str]:
    """The square the moves end on, or ``(None, reason)`` at the first move into a wall."""
    r, c = start
    for step, letter in enumerate(moves, 1):
        dr, dc = STEPS[letter]
        if grid[r + dr][c + dc] == WALL:
            return None, f"move {step} ({letter}) walks into a wall at row {r + dr + 1}, column {c + dc + 1}"
        r, c = r + dr, c + dc
    return (r, c), ""


def canonical_hash(lines: list[str]) -> str:
    """Least form under the symmetries of the rectangle (8 for a square) and swapping S with E."""
    forms = []
    grid = [list(line) for line in lines]
    for _ in range(4):
        grid = [list(col) for col in zip(*grid[::-1], strict=True)]  # quarter turn
        for g in (grid, [row[::-1] for row in grid]):
            text = "\n".join("".join(row) for row in g)
            forms.append(text)
            forms.append(text.translate(str.maketrans("SE", "ES")))
    if len(lines) != len(lines[0]):  # a rectangle has only the forms of its own shape
        forms = [f for f in forms if f.index("\n") == len(lines[0])]
    return content_hash({"maze": min(forms)})


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Find a shortest route through this maze from S to E. # is a wall, . is open floor, \
and S and E are open squares.

{maze}

Each move goes one square up (U), down (D), left (L) or right (R); you cannot enter a wall. \
Give the moves in order inside <answer>...</answer>, for example <answer>RRDDL</answer> (this \
example is only the format, not the route). Any route with the fewest possible moves is \
accepted; a longer route is wrong."""


def _find(lines: list[str], mark: str) -> tuple[int, int]:
    r = next(i for i, line in enumerate(lines) if mark in line)
    return r, lines[r].index(mark)


@family(
    "maze",
    domain="puzzles",
    knobs=MazeKnobs,
    levels=LEVELS,
    description="Grid maze with loops (9x9 to 33x33 squares): any shortest S-E route, optimum proven by BFS.",
    verifier_kind="simulation + proven optimum",
)
class Maze(Family):
    def generate(self, knobs: MazeKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(MAX_ATTEMPTS):
            grid = carve(knobs.rows, knobs.cols, knobs.loops, rng)
            rooms = [(2 * r + 1, 2 * c + 1) for r in range(knobs.rows) for c in range(knobs.cols)]
            start = rooms[int(rng.integers(len(rooms)))]
            dist, _ = distances(grid, start)
            far = max(dist[room] for room in rooms)
            goals = [room for room in rooms if room != start and dist[room] >= knobs.min_spread * far]
            goal = goals[int(rng.integers(len(goals)))]
            grid[start[0]][start[1]] = "S"
            grid[goal[0]][goal[1]] = "E"
            lines = ["".join(row) for row in grid]
            route, expanded = shortest_route(lines, start, goal)
            if knobs.reject_wall_follower and self._follower_is_optimal(lines, start, goal, len(route)):
                continue
            return TaskDraft(
                prompt=PROMPT.format(maze="\n".join(lines)),
                answer=route,
                metadata={
                    "grid": lines,
                    "optimal_length": len(route),
                    "bfs_expanded": expanded,
                    "canonical_hash": canonical_hash(lines),
                },
            )
        raise RuntimeError(f"no maze matched {knobs} in {MAX_ATTEMPTS} attempts")

    @staticmethod
    def _follower_is_optimal(
        lines: list[str], start: tuple[int, int], goal: tuple[int, int], best: int
    ) -> bool:
        for hand in ("right", "left"):
            route = wall_follower(lines, start, goal, hand)
            if route is not None and len(route) == best:
                return True
        return False

    def verify(self, task: Task, response: str) -> Verdict:
        text, error = extract_plan_text(response)
        if text is None:
            return Verdict.bad_format(error or "no answer")
        moves = _SEPARATORS.sub("", text)
        if len(moves) > MAX_PLAN_STEPS or not _MOVES.fullmatch(moves):
            return Verdict.bad_format(f"could not read {text[:60]!r} as a string of U/D/L/R moves")
        moves = moves.upper()
        lines = task.metadata["grid"]
        end, reason = replay(lines, _find(lines, "S"), moves)
        if end is None:
            return Verdict.wrong(reason, parsed=moves)
        if end != _find(lines, "E"):
            return Verdict.wrong(
                f"the route ends at row {end[0] + 1}, column {end[1] + 1}, not at E", parsed=moves
            )
        return grade_length(len(moves), task.metadata["optimal_length"], moves)

    def solve_exact(self, task: Task) -> SolverRun:
        """Breadth-first search from S (effort: squares expanded until E)."""
        lines = task.metadata["grid"]
        route, expanded = shortest_route(lines, _find(lines, "S"), _find(lines, "E"))
        return SolverRun(f"<answer>{route}</answer>", float(expanded))

    def effort(self, task: Task) -> float:
        return float(task.metadata["bfs_expanded"])

    def solve_weak(self, task: Task) -> SolverRun:
        """Right-hand wall follower with its detours erased (shortest only where the route is unique)."""
        lines = task.metadata["grid"]
        route = wall_follower(lines, _find(lines, "S"), _find(lines, "E"), "right")
        return SolverRun(None if route is None else f"<answer>{route}</answer>", float(len(route or "")))

    def reference_response(self, task: Task) -> str:
        return f"<answer>{task.answer}</answer>"

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        route = task.answer
        out = [
            route[:-1],  # stops one square short
            route + _BACK[route[-1]] + route[-1],  # a needless step back and forth: legal, longer
            route[1:],  # the first move dropped: walks into a wall or ends elsewhere
            route.translate(str.maketrans("UDLR", "DURL")),  # mirrored
        ]
        if len(route) >= 2 and route[0] != route[1]:
            out.append(route[1] + route[0] + route[2:])
        responses = [f"<answer>{moves}</answer>" for moves in dict.fromkeys(out) if moves]
        # the mirrored or swapped route could, in a symmetric corner, be another shortest route
        return [r for r in responses if not self.verify(task, r).correct]
