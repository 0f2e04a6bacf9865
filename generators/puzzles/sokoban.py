"""Sokoban on small rooms with a BFS-proven minimum number of pushes.

Generation plays the game backwards: boxes start on their goals and the player pulls them around
at random, so the level is solvable by construction. The push optimum is then proven by a
forward breadth-first search over (box positions, player region) states: pushes are the only
moves that count, the player walks freely inside its region, and boxes pushed onto dead squares
(from which no goal can be reached) are pruned, which never removes a solution. Any move sequence
that solves the level with the minimum number of pushes is accepted, however long the walks
between pushes are; the verifier replays every step.

The BFS costs a flood fill per state, so the higher levels generate a few tasks per second.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.generators.shared.search import MAX_PLAN_STEPS, extract_plan_text, grade_length
from palaestra.registry import Family, SolverRun, TaskDraft, family

WALL, FLOOR = "#", "_"
LETTERS = "UDLR"
NODE_LIMIT = 60_000  # a level whose push proof needs more states is redrawn
PULL_LIMIT = 4_000  # states the reverse (pulling) search visits when picking a far start


@dataclass(frozen=True)
class SokobanKnobs(Knobs):
    rows: int = knob(4, low=3, high=9, help="interior rows of the room")
    cols: int = knob(4, low=3, high=9, help="interior columns of the room")
    boxes: int = knob(1, low=1, high=4, help="number of boxes (and goals)")
    walls: float = knob(0.15, low=0.0, high=0.4, help="density of interior wall cells")
    # 20 at most: a 9x9 level with 4 boxes needing 30 pushes took 18 s to draw, 100 never finished (issue 27)
    min_pushes: int = knob(2, low=1, high=20, help="reject levels solvable in fewer pushes")


LEVELS = {
    1: SokobanKnobs(rows=4, cols=4, boxes=1, walls=0.1, min_pushes=2),
    2: SokobanKnobs(rows=5, cols=5, boxes=1, walls=0.15, min_pushes=4),
    3: SokobanKnobs(rows=5, cols=5, boxes=2, walls=0.15, min_pushes=5),
    4: SokobanKnobs(rows=5, cols=6, boxes=2, walls=0.15, min_pushes=6),
    5: SokobanKnobs(rows=6, cols=6, boxes=2, walls=0.2, min_pushes=7),
    6: SokobanKnobs(rows=6, cols=6, boxes=2, walls=0.2, min_pushes=9),
    7: SokobanKnobs(rows=6, cols=7, boxes=2, walls=0.2, min_pushes=11),
    8: SokobanKnobs(rows=6, cols=6, boxes=3, walls=0.2, min_pushes=9),
    9: SokobanKnobs(rows=7, cols=7, boxes=3, walls=0.2, min_pushes=10),
    10: SokobanKnobs(rows=7, cols=7, boxes=3, walls=0.2, min_pushes=12),
}


# --------------------------------------------------------------------------------------------
# Levels: a flat grid (border included), cell = r * width + c
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    width: int
    floor: frozenset[int]
    goals: frozenset[int]

    @property
    def steps(self) -> dict[str, int]:
        return {"U": -self.width, "D": self.width, "L": -1, "R": 1}


def flood(level: Level, start: int, boxes: frozenset[int]) -> set[int]:
    """Cells the player reaches from ``start`` without pushing."""
    seen, stack = {start}, [start]
    near = _floor_neighbours(level)
    while stack:
        cell = stack.pop()
        for nxt in near[cell] if cell in near else _neighbours_on_floor(level, cell):
            if nxt not in boxes and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _neighbours_on_floor(level: Level, cell: int) -> tuple[int, ...]:
    w = level.width
    return tuple(nxt for nxt in (cell - w, cell + w, cell - 1, cell + 1) if nxt in level.floor)


@lru_cache(maxsize=64)
def _floor_neighbours(level: Level) -> dict[int, tuple[int, ...]]:
    """Each floor cell's floor neighbours, up, down, left, right (flood's hot loop, precomputed;
    the order is kept so sets are filled, and iterated, exactly as before)."""
    return {cell: _neighbours_on_floor(level, cell) for cell in level.floor}


def live_squares(level: Level) -> frozenset[int]:
    """Cells from which a lone box can still be pushed onto some goal."""
    live = set(level.goals)
    queue = deque(level.goals)
    while queue:
        target = queue.popleft()
        for d in level.steps.values():
            box, player = target - d, target - 2 * d  # a box on `box` pushed by a player on `player`
            if box in level.floor and player in level.floor and box not in live:
                live.add(box)
                queue.append(box)
    return frozenset(live)


def push_search(level: Level, boxes: frozenset[int], player: int, node_limit: int = NODE_LIMIT):
    """BFS over pushes: (list of (box, direction letter) pushes or None, expanded states)."""
    live = live_squares(level)
    reach = flood(level, player, boxes)
    start = (boxes, min(reach))
    parents: dict = {start: None}
    queue = deque([(boxes, reach)])
    expanded = 0
    if boxes <= level.goals:
        return [], 0
    while queue:
        current, reach = queue.popleft()
        key = (current, min(reach))
        expanded += 1
        if expanded > node_limit:
            return None, expanded
        for box in sorted(current):
            for letter, d in level.steps.items():
                target = box + d
                if box - d not in reach or target not in live or target in current:
                    continue
                moved = (current - {box}) | {target}
                child_reach = flood(level, box, moved)
                child = (moved, min(child_reach))
                if child in parents:
                    continue
                parents[child] = (key, (box, letter))
                if moved <= level.goals:
                    pushes = []
                    node = child
                    while parents[node] is not None:
                        node, push = parents[node]
                        pushes.append(push)
                    return pushes[::-1], expanded
                queue.append((moved, child_reach))
    return None, expanded


def walk(level: Level, start: int, goal: int, boxes: frozenset[int]) -> str:
    """Letters of a shortest walk from ``start`` to ``goal`` that pushes nothing."""
    if start == goal:
        return ""
    prev: dict[int, tuple[int, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for letter, d in level.steps.items():
            nxt = cell + d
            if nxt in level.floor and nxt not in boxes and nxt not in prev:
                prev[nxt] = (cell, letter)
                if nxt == goal:
                    out = []
                    node = nxt
                    while prev[node] is not None:
                        node, step = prev[node]
                        out.append(step)
                    return "".join(reversed(out))
                queue.append(nxt)
    raise ValueError("no walk between the cells")


def moves_for(level: Level, boxes: frozenset[int], player: int, pushes: list[tuple[int, str]]) -> str:
    """Expand pushes into the full move string (walks plus pushes)."""
    out = []
    for box, letter in pushes:
        d = level.steps[letter]
        out.append(walk(level, player, box - d, boxes) + letter)
        boxes = (boxes - {box}) | {box + d}
        player = box
    return "".join(out)


def simulate(
    level: Level, boxes: frozenset[int], player: int, moves: str
) -> tuple[frozenset[int] | None, int, str]:
    """Replay moves: (final boxes or None if illegal, pushes made, reason)."""
    pushes = 0
    for k, letter in enumerate(moves, 1):
        d = level.steps[letter]
        nxt = player + d
        if nxt not in level.floor:
            return None, pushes, f"move {k} ({letter}) walks into a wall"
        if nxt in boxes:
            beyond = nxt + d
            if beyond not in level.floor or beyond in boxes:
                return None, pushes, f"move {k} ({letter}) pushes a box into a wall or another box"
            boxes = (boxes - {nxt}) | {beyond}
            pushes += 1
        player = nxt
    return boxes, pushes, ""


# --------------------------------------------------------------------------------------------
# Drawing levels
# --------------------------------------------------------------------------------------------


def _room(knobs: SokobanKnobs, rng: np.random.Generator) -> Level | None:
    width = knobs.cols + 2
    cells = [(r + 1) * width + c + 1 for r in range(knobs.rows) for c in range(knobs.cols)]
    floor = {cell for cell in cells if rng.random() >= knobs.walls}
    if not floor:
        return None
    # keep the largest connected piece of floor
    pieces, seen = [], set()
    for cell in sorted(floor):
        if cell in seen:
            continue
        level = Level(width, frozenset(floor), frozenset())
        piece = flood(level, cell, frozenset())
        seen |= piece
        pieces.append(piece)
    floor = max(pieces, key=len)
    if len(floor) < 2 * knobs.boxes + 4:
        return None
    return Level(width, frozenset(floor), frozenset())


def pull_distances(level: Level, node_limit: int) -> dict[tuple[frozenset[int], int], int]:
    """Reverse BFS by pulls from the solved position (every player region of it).

    The pull distance of a state equals its push distance to the goal, so the states it reaches
    are solvable with exactly that many pushes (the forward search re-proves it).
    """
    boxes = level.goals
    dist: dict[tuple[frozenset[int], int], int] = {}
    queue: deque = deque()
    for cell in sorted(level.floor - boxes):
        if any(cell in reach for _, reach in queue):
            continue
        reach = flood(level, cell, boxes)
        dist[(boxes, min(reach))] = 0
        queue.append((boxes, reach))
    while queue and len(dist) < node_limit:
        current, reach = queue.popleft()
        depth = dist[(current, min(reach))]
        for box in sorted(current):
            for d in level.steps.values():
                stand, back = box + d, box + 2 * d
                if stand not in reach or back not in level.floor or back in current:
                    continue
                moved = (current - {box}) | {stand}
                child_reach = flood(level, back, moved)
                key = (moved, min(child_reach))
                if key not in dist:
                    dist[key] = depth + 1
                    queue.append((moved, child_reach))
    return dist


def render(level: Level, rows: int, cols: int, boxes: frozenset[int], player: int) -> list[str]:
    lines = []
    for r in range(rows + 2):
        line = []
        for c in range(cols + 2):
            cell = r * level.width + c
            if cell not in level.floor:
                line.append(WALL)
            elif cell == player:
                line.append("+" if cell in level.goals else "@")
            elif cell in boxes:
                line.append("*" if cell in level.goals else "$")
            else:
                line.append("." if cell in level.goals else FLOOR)
        lines.append("".join(line))
    return lines


def parse_grid(lines: list[str]) -> tuple[Level, frozenset[int], int]:
    width = len(lines[0])
    floor, goals, boxes, player = set(), set(), set(), -1
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            cell = r * width + c
            if ch != WALL:
                floor.add(cell)
            if ch in ".*+":
                goals.add(cell)
            if ch in "$*":
                boxes.add(cell)
            if ch in "@+":
                player = cell
    return Level(width, frozenset(floor), frozenset(goals)), frozenset(boxes), player


def canonical_hash(lines: list[str]) -> str:
    """Hash of the level up to rotation/reflection, with the player's region in place of its cell."""
    level, boxes, player = parse_grid(lines)
    region = flood(level, player, boxes)
    width = level.width
    grid = np.array([list(line) for line in lines])
    for cell in region:
        grid[cell // width, cell % width] = "r" if cell not in level.goals else "g"
    images = []
    for k in range(4):
        for flip in (False, True):
            img = np.rot90(grid, k)
            img = np.fliplr(img) if flip else img
            images.append("/".join("".join(row) for row in img.tolist()))
    return content_hash(min(images))


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """Sokoban. Legend: # wall, _ floor, . goal, $ box, * box on a goal, @ you, + you on a goal.

{grid}

You move one square at a time: U (up), D (down), L (left), R (right). Walking into a box pushes it \
one square in the same direction, which is only possible if the square beyond it is floor or a goal \
without a box. You cannot pull boxes or walk through walls. Put every box on a goal using the \
fewest possible pushes (the number of walking moves does not matter). Answer with your whole move \
sequence as one string of letters, for example <answer>RRDLU</answer> (only the format, not the \
solution). Any solution with the minimum number of pushes is accepted."""

_CLEAN = re.compile(r"[\s,]+")
_MOVES = re.compile(r"[UDLRudlr]+")


@family(
    "sokoban",
    domain="puzzles",
    knobs=SokobanKnobs,
    levels=LEVELS,
    description="Small Sokoban levels (made by reverse pulling) solved with the BFS-proven fewest pushes.",
    verifier_kind="simulation + proven optimum",
)
class Sokoban(Family):
    def generate(self, knobs: SokobanKnobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(2000):
            room = _room(knobs, rng)
            if room is None:
                continue
            cells = sorted(room.floor)
            goals = [cells[int(i)] for i in rng.permutation(len(cells))[: knobs.boxes]]
            level = Level(room.width, room.floor, frozenset(goals))
            dist = pull_distances(level, PULL_LIMIT)
            far = sorted(
                ((sorted(bs), p) for (bs, p), d in dist.items() if d >= knobs.min_pushes), key=lambda x: x
            )
            if not far:
                continue
            box_list, region_cell = far[int(rng.integers(len(far)))]
            frozen = frozenset(box_list)
            region = sorted(flood(level, region_cell, frozen))
            player = region[int(rng.integers(len(region)))]
            pushes, expanded = push_search(level, frozen, player)
            if pushes is None or len(pushes) < knobs.min_pushes:
                continue
            lines = render(level, knobs.rows, knobs.cols, frozen, player)
            solution = moves_for(level, frozen, player, pushes)
            return TaskDraft(
                prompt=PROMPT.format(grid="\n".join(lines)),
                answer=solution,
                metadata={
                    "grid": lines,
                    "boxes": knobs.boxes,
                    "optimal_length": len(pushes),
                    "optimal_pushes": len(pushes),
                    "solution": solution,
                    "search_nodes": expanded,
                    "canonical_hash": canonical_hash(lines),
                },
            )
        raise RuntimeError(f"could not draw a Sokoban level for {knobs}")

    def verify(self, task: Task, response: str) -> Verdict:
        text, error = extract_plan_text(response)
        if text is None:
            return Verdict.bad_format(error or "no answer")
        moves = _CLEAN.sub("", text)
        if not _MOVES.fullmatch(moves) or len(moves) > 20 * MAX_PLAN_STEPS:
            return Verdict.bad_format(f"could not read {text[:60]!r} as a string of U/D/L/R moves")
        moves = moves.upper()
        level, boxes, player = parse_grid(task.metadata["grid"])
        final, pushes, reason = simulate(level, boxes, player, moves)
        if final is None:
            return Verdict.wrong(reason, parsed=moves)
        if not final <= level.goals:
            return Verdict.wrong("not every box ends on a goal", parsed=moves)
        return grade_length(pushes, task.metadata["optimal_pushes"], moves, unit="pushes")

    def solve_exact(self, task: Task) -> SolverRun:
        level, boxes, player = parse_grid(task.metadata["grid"])
        pushes, expanded = push_search(level, boxes, player, node_limit=10 * NODE_LIMIT)
        if pushes is None:
            return SolverRun(response=None, effort=float(expanded))
        return SolverRun(
            response=f"<answer>{moves_for(level, boxes, player, pushes)}</answer>", effort=float(expanded)
        )

    def effort(self, task: Task) -> float:
        return float(task.metadata["search_nodes"])  # the generator's own push BFS

    def solve_weak(self, task: Task) -> SolverRun:
        # greedy: repeatedly make the single push that most reduces the total box-to-nearest-goal
        # distance (no lookahead); gives up when no push helps
        level, boxes, player = parse_grid(task.metadata["grid"])
        live = live_squares(level)
        goals = sorted(level.goals)
        w = level.width

        def cost(bs: frozenset[int]) -> int:
            return sum(min(abs(b // w - g // w) + abs(b % w - g % w) for g in goals) for b in bs)

        pushes: list[tuple[int, str]] = []
        current, pos = boxes, player
        for _ in range(4 * task.metadata["optimal_pushes"] + 4):
            if current <= level.goals:
                break
            reach = flood(level, pos, current)
            options = []
            for box in sorted(current):
                for letter, d in level.steps.items():
                    if box - d in reach and box + d in live and box + d not in current:
                        moved = (current - {box}) | {box + d}
                        options.append((cost(moved), box, letter, moved))
            if not options:
                break
            best = min(options, key=lambda o: o[0])
            pushes.append((best[1], best[2]))
            current, pos = best[3], best[1]
        if not current <= level.goals:
            return SolverRun(response=None, effort=float(len(pushes)))
        return SolverRun(
            response=f"<answer>{moves_for(level, boxes, player, pushes)}</answer>", effort=float(len(pushes))
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        solution = task.metadata["solution"]
        opposite = {"U": "D", "D": "U", "L": "R", "R": "L"}
        candidates = [
            solution[:-1],  # the last push missing
            solution[1:],
            "".join(opposite[ch] for ch in solution),
            solution[::-1],
            "U" * 50,
        ]
        responses = [f"<answer>{c}</answer>" for c in candidates if c]
        return [r for r in dict.fromkeys(responses) if not self.verify(task, r).correct]
