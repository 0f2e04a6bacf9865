"""Plans replayed by our own simulators, shortest plans by our own breadth-first search, and
minesweeper's safe cells by z3."""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import z3

from palaestra.core import Task

from ._registry import judge, others


@judge("minesweeper")
def _minesweeper(task: Task, text: str) -> bool:
    """The named cells, in any order, are exactly the cells z3 proves mine-free."""
    cells = [(int(r), int(c)) for r, c in _MINESWEEPER_CELL.findall(text)]
    if _MINESWEEPER_CELL.sub("", text).strip(" ,\n") or len(set(cells)) != len(cells):
        raise ValueError(text)  # text other than cells and commas, or a cell named twice
    return set(cells) == _safe_cells(task)


_MINESWEEPER_CELL = re.compile(r"\(\s*(\d+)\s*,\s*(\d+)\s*\)")


@lru_cache(maxsize=128)
def _safe_cells_cached(task_json: str) -> frozenset[tuple[int, int]]:
    task = Task.from_json(task_json)
    meta = task.metadata
    rows, cols = map(int, re.search(r"(\d+) rows x (\d+) columns", task.prompt).groups())
    total = len(meta["mines"])
    opened = {(r, c): n for r, c, n in meta["opened"]}
    ctx = z3.Context()
    cells = {
        (r, c): z3.Bool(f"m{r}_{c}", ctx) for r in range(rows) for c in range(cols) if (r, c) not in opened
    }
    solver = z3.Solver(ctx=ctx)
    solver.add(z3.PbEq([(m, 1) for m in cells.values()], total))
    for (r, c), n in opened.items():
        around = [
            cells[(r + dr, c + dc)] for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (r + dr, c + dc) in cells
        ]
        solver.add(z3.PbEq([(m, 1) for m in around], n) if around else z3.BoolVal(n == 0, ctx))
    safe = set()
    for cell, mine in cells.items():
        if solver.check(mine) == z3.unsat:
            safe.add(cell)
    return frozenset(safe)


def _safe_cells(task: Task) -> frozenset[tuple[int, int]]:
    return _safe_cells_cached(task.to_json())


@others("minesweeper")
def _other_safe_cells(task: Task) -> list[str]:
    """The same set in other orders and spacings (the set is the only right answer)."""
    cells = sorted(_safe_cells(task))
    shown = [f"({r}, {c})" for r, c in cells]
    return [
        ", ".join(reversed(shown)),
        ",".join(f"({r},{c})" for r, c in cells),
        "\n".join(shown[1:] + shown[:1]),
    ]


def _moves(text: str, pattern: str) -> list[tuple[str, ...]]:
    parts = [p for p in re.split(r"\s*,\s*|\s+", text.strip()) if p]
    out = []
    for part in parts:
        match = re.fullmatch(pattern, part)
        if not match:
            raise ValueError(part)
        out.append(match.groups())
    return out


@judge("blocks_world")
def _blocks_world(task: Task, text: str) -> bool:
    meta = task.metadata
    stacks = [list(s) for s in meta["start"]]
    moves = _moves(text, r"([A-Z])->([A-Z]|table)")
    for block, dest in moves:
        source = next((s for s in stacks if s and s[-1] == block), None)
        if source is None:
            return False
        if dest == "table":
            source.pop()
            stacks.append([block])
        else:
            target = next((s for s in stacks if s and s[-1] == dest), None)
            if target is None or dest == block:
                return False
            source.pop()
            target.append(block)
        stacks = [s for s in stacks if s]
    return sorted("".join(s) for s in stacks) == sorted(meta["goal"]) and len(moves) == meta["optimal_length"]


@judge("tower_of_hanoi")
def _tower_of_hanoi(task: Task, text: str) -> bool:
    meta = task.metadata
    pegs = "ABCDEFGH"[: meta["pegs"]]
    moves = _moves(text, rf"([{pegs}])->([{pegs}])")
    where = list(meta["start"])  # where[d] = peg of disk d+1
    allowed = {tuple(m) for m in meta["moves"]}
    for a, b in moves:
        src, dst = pegs.index(a), pegs.index(b)
        if (src, dst) not in allowed:
            return False
        on_src = [d for d, p in enumerate(where) if p == src]
        on_dst = [d for d, p in enumerate(where) if p == dst]
        if not on_src or (on_dst and min(on_dst) < min(on_src)):
            return False
        where[min(on_src)] = dst
    return where == list(meta["goal"]) and len(moves) == meta["optimal_length"]


@judge("sliding_tiles")
def _sliding_tiles(task: Task, text: str) -> bool:
    meta = task.metadata
    board = [row[:] for row in meta["board"]]
    rows, cols = meta["rows"], meta["cols"]
    tiles = [int(t) for t in text.split()]
    for tile in tiles:
        (br, bc), (tr, tc) = _find(board, 0), _find(board, tile)
        if abs(br - tr) + abs(bc - tc) != 1:
            return False
        board[br][bc], board[tr][tc] = tile, 0
    goal = [[(r * cols + c + 1) % (rows * cols) for c in range(cols)] for r in range(rows)]
    return board == goal and len(tiles) == meta["optimal_length"]


def _find(board: list[list[int]], value: int) -> tuple[int, int]:
    for r, row in enumerate(board):
        if value in row:
            return r, row.index(value)
    raise ValueError(f"no tile {value}")


@judge("sokoban")
def _sokoban(task: Task, text: str) -> bool:
    grid = task.metadata["grid"]
    moves = re.sub(r"[\s,]+", "", text).upper()
    if not re.fullmatch(r"[UDLR]+", moves):
        return False
    walls = {(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch == "#"}
    goals = {(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch in ".*+"}
    boxes = {(r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch in "$*"}
    player = next((r, c) for r, line in enumerate(grid) for c, ch in enumerate(line) if ch in "@+")
    pushes = 0
    for move in moves:
        dr, dc = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[move]
        step = (player[0] + dr, player[1] + dc)
        if step in walls:
            return False
        if step in boxes:
            beyond = (step[0] + dr, step[1] + dc)
            if beyond in walls or beyond in boxes:
                return False
            boxes = (boxes - {step}) | {beyond}
            pushes += 1
        player = step
    return boxes <= goals and pushes == task.metadata["optimal_pushes"]


@judge("lights_out")
def _lights_out(task: Task, text: str) -> bool:
    meta = task.metadata
    rows, cols, torus = meta["rows"], meta["cols"], meta["torus"]
    presses = [tuple(map(int, p)) for p in re.findall(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)", text)]
    if re.sub(r"\(\s*-?\d+\s*,\s*-?\d+\s*\)|[\s,]", "", text):
        return False
    lit = [[ch == "1" for ch in row] for row in meta["board"]]
    for r, c in presses:
        if not (1 <= r <= rows and 1 <= c <= cols):
            return False
        for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r - 1 + dr, c - 1 + dc
            if torus:
                rr, cc = rr % rows, cc % cols
            if 0 <= rr < rows and 0 <= cc < cols:
                lit[rr][cc] = not lit[rr][cc]
    return not any(any(row) for row in lit) and len(presses) == meta["optimal_length"]


@others("lights_out")
def _other_press_sets(task: Task) -> list[str]:
    """Our own search over press sets of the optimal size (small boards only)."""
    meta = task.metadata
    cells = [(r, c) for r in range(1, meta["rows"] + 1) for c in range(1, meta["cols"] + 1)]
    k = meta["optimal_length"]
    if len(cells) > 20 or k > 6 or meta["nullity"] == 0:
        return []
    out = []
    for combo in itertools.combinations(cells, k):
        text = ", ".join(f"({r},{c})" for r, c in combo)
        if _lights_out(task, text):
            out.append(text)
            if len(out) == 3:
                break
    return out


@judge("river_crossing")
def _river_crossing(task: Task, text: str) -> bool:
    meta = task.metadata
    names = meta["names"]
    side = list(meta["start"])
    boat = meta["boat"][0]
    trips = [t.strip() for t in text.split(";")]
    for trip in trips:
        people = [p.strip() for p in trip.split("+")]
        if any(p not in names for p in people) or len(set(people)) != len(people):
            return False
        index = [names.index(p) for p in people]
        if any(side[i] != boat for i in index) or not any(i < meta["rowers"] for i in index):
            return False
        if sum(meta["weights"][i] for i in index) > meta["capacity"]:
            return False
        for i in index:
            side[i] = 1 - boat
        boat = 1 - boat
        for bank in (0, 1):
            here = {i for i, s in enumerate(side) if s == bank}
            if not any(i < meta["rowers"] for i in here) and any(
                a in here and b in here for a, b in meta["conflicts"]
            ):
                return False
    return side == list(meta["goal"]) and boat == meta["boat"][1] and len(trips) == meta["optimal_length"]


def _bfs_plans(
    start: Any, goal: Callable[[Any], bool], moves: Callable[[Any], list[tuple[str, Any]]], cap: int = 200_000
) -> list[list[str]]:
    """All shortest plans' first few, by breadth-first search with parent lists (small instances)."""
    parents: dict[Any, list[tuple[Any, str]]] = {start: []}
    depth = {start: 0}
    frontier = deque([start])
    found_depth = None
    goals = []
    while frontier and len(depth) < cap:
        state = frontier.popleft()
        if found_depth is not None and depth[state] >= found_depth:
            break
        for label, nxt in moves(state):
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                parents[nxt] = [(state, label)]
                frontier.append(nxt)
                if goal(nxt):
                    found_depth = depth[nxt]
                    goals.append(nxt)
            elif depth[nxt] == depth[state] + 1:
                parents[nxt].append((state, label))
    plans: list[list[str]] = []

    def walk(state: Any, suffix: list[str]) -> None:
        if len(plans) >= 4:
            return
        if not parents[state]:
            plans.append(suffix)
            return
        for prev, label in parents[state]:
            walk(prev, [label, *suffix])

    for g in goals:
        walk(g, [])
    return plans


@others("river_crossing")
def _other_crossings(task: Task) -> list[str]:
    """Our own breadth-first search over (who is where, boat side), small instances only."""
    meta = task.metadata
    names, n = meta["names"], meta["items"]
    if n > 8:
        return []

    def safe(side: tuple[int, ...]) -> bool:
        for bank in (0, 1):
            here = {i for i in range(n) if side[i] == bank}
            if not any(i < meta["rowers"] for i in here) and any(
                a in here and b in here for a, b in meta["conflicts"]
            ):
                return False
        return True

    def moves(state: tuple[tuple[int, ...], int]) -> list[tuple[str, tuple[tuple[int, ...], int]]]:
        side, boat = state
        present = [i for i in range(n) if side[i] == boat]
        out = []
        for size in range(1, meta["capacity"] + 1):
            for group in itertools.combinations(present, size):
                if not any(i < meta["rowers"] for i in group):
                    continue
                if sum(meta["weights"][i] for i in group) > meta["capacity"]:
                    continue
                after = tuple(1 - s if i in group else s for i, s in enumerate(side))
                if safe(after):
                    out.append(("+".join(names[i] for i in group), (after, 1 - boat)))
        return out

    goal = (tuple(meta["goal"]), meta["boat"][1])
    plans = _bfs_plans((tuple(meta["start"]), meta["boat"][0]), lambda s: s == goal, moves)
    return ["; ".join(p) for p in plans]


@others("tower_of_hanoi")
def _other_hanoi_plans(task: Task) -> list[str]:
    meta = task.metadata
    if meta["disks"] > 6:
        return []
    pegs = "ABCDEFGH"[: meta["pegs"]]

    def moves(state: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
        out = []
        for src, dst in meta["moves"]:
            on_src = [d for d, p in enumerate(state) if p == src]
            on_dst = [d for d, p in enumerate(state) if p == dst]
            if on_src and (not on_dst or min(on_dst) > min(on_src)):
                nxt = list(state)
                nxt[min(on_src)] = dst
                out.append((f"{pegs[src]}->{pegs[dst]}", tuple(nxt)))
        return out

    goal = tuple(meta["goal"])
    return [", ".join(p) for p in _bfs_plans(tuple(meta["start"]), lambda s: s == goal, moves)]


@others("blocks_world")
def _other_blocks_plans(task: Task) -> list[str]:
    meta = task.metadata
    if meta["blocks"] > 6:
        return []

    def norm(stacks: list[str]) -> tuple[str, ...]:
        return tuple(sorted(s for s in stacks if s))

    def moves(state: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
        out = []
        for i, s in enumerate(state):
            block = s[-1]
            rest = list(state)
            rest[i] = s[:-1]
            if len(s) > 1:
                out.append((f"{block}->table", norm([*rest, block])))
            for j, t in enumerate(state):
                if j != i:
                    placed = list(rest)
                    placed[j] = t + block
                    out.append((f"{block}->{t[-1]}", norm(placed)))
        return out

    goal = norm(meta["goal"])
    return [", ".join(p) for p in _bfs_plans(norm(meta["start"]), lambda s: s == goal, moves)]


@others("sliding_tiles")
def _other_sliding_plans(task: Task) -> list[str]:
    meta = task.metadata
    if meta["optimal_length"] > 14:
        return []
    rows, cols = meta["rows"], meta["cols"]
    goal = tuple((i + 1) % (rows * cols) for i in range(rows * cols))

    def moves(state: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
        blank = state.index(0)
        r, c = divmod(blank, cols)
        out = []
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < rows and 0 <= cc < cols:
                nxt = list(state)
                tile = rr * cols + cc
                nxt[blank], nxt[tile] = nxt[tile], 0
                out.append((str(state[tile]), tuple(nxt)))
        return out

    start = tuple(v for row in meta["board"] for v in row)
    return [" ".join(p) for p in _bfs_plans(start, lambda s: s == goal, moves)]


_MAZE_STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def _maze_cells(task: Task) -> tuple[list[str], tuple[int, int], tuple[int, int]]:
    grid = task.metadata["grid"]
    find = {ch: (r, row.index(ch)) for r, row in enumerate(grid) for ch in "SE" if ch in row}
    return grid, find["S"], find["E"]


def _maze_routes(task: Task, orders: tuple[str, ...]) -> list[str]:
    """A shortest route per move order, by our own breadth-first search."""
    grid, start, end = _maze_cells(task)
    routes = []
    for order in orders:
        previous: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {start: None}
        queue = deque([start])
        while queue and end not in previous:
            r, c = queue.popleft()
            for move in order:
                dr, dc = _MAZE_STEPS[move]
                nxt = (r + dr, c + dc)
                if grid[nxt[0]][nxt[1]] != "#" and nxt not in previous:
                    previous[nxt] = ((r, c), move)
                    queue.append(nxt)
        moves, cell = [], end
        while previous[cell] is not None:
            cell, move = previous[cell]
            moves.append(move)
        routes.append("".join(reversed(moves)))
    return routes


@judge("maze")
def _maze(task: Task, text: str) -> bool:
    """Replays the moves: never into a wall, ending on E, as short as our own BFS route."""
    moves = re.fullmatch(r"\s*([UDLR]+)\s*", text).group(1)
    grid, (r, c), end = _maze_cells(task)
    for move in moves:
        r, c = r + _MAZE_STEPS[move][0], c + _MAZE_STEPS[move][1]
        if grid[r][c] == "#":
            return False
    return (r, c) == end and len(moves) == len(_maze_routes(task, ("UDLR",))[0])


@others("maze")
def _other_maze_routes(task: Task) -> list[str]:
    return _maze_routes(task, ("UDLR", "RLDU", "DRUL"))


@judge("logistics")
def _logistics(task: Task, text: str) -> bool:
    """Replays the actions on the facts in the metadata: legal, every package delivered, as many
    actions as the proven optimum."""
    meta = task.metadata
    roads = {frozenset(r) for r in meta["roads"]}
    trucks = list(meta["trucks"])
    places: list[tuple[str, int]] = [("at", s) for s in meta["starts"]]
    actions = [a.strip() for a in re.split(r"\s*[,;\n]\s*", text.strip()) if a.strip()]
    for action in actions:
        words = action.split()
        shape = [w[0].upper() + ("N" if w[1:].isdigit() and w[1] != "0" else "?") for w in words[1:]]
        if words[0].lower() == "drive" and shape == ["TN", "LN", "LN"]:
            t, a, b = int(words[1][1:]) - 1, int(words[2][1:]) - 1, int(words[3][1:]) - 1
            if trucks[t] != a or frozenset((a, b)) not in roads or a == b:
                return False
            trucks[t] = b
        elif words[0].lower() in ("load", "unload") and shape == ["PN", "TN"]:
            p, t = int(words[1][1:]) - 1, int(words[2][1:]) - 1
            if words[0].lower() == "load":
                if places[p] != ("at", trucks[t]):
                    return False
                places[p] = ("in", t)
            else:
                if places[p] != ("in", t):
                    return False
                places[p] = ("at", trucks[t])
        else:
            return False
    delivered = places == [("at", g) for g in meta["goals"]]
    return delivered and len(actions) == meta["optimal_length"]
