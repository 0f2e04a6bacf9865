"""Minesweeper without guessing: name every cell a position proves safe.

Boards are drawn until a rule-based solver (single-cell rules plus the subset rule between
neighbouring numbers) opens every safe cell from the first click, so no move ever needs a
guess. Single-turn: the prompt shows a position of that logical play (the first click and then
a random-length prefix of the cells the rules open, in their order) and asks for the exact set
of unopened cells that are certainly safe, i.e. safe in every mine layout that agrees with the
visible numbers and the total mine count. The generator computes that set exactly by
enumerating the layouts of the unopened cells next to the numbers (group by group, the groups
joined through the mine count; the cells away from every number are interchangeable, so they
are safe all together or not at all) and stores it; the verifier compares sets (any order, no
cell twice). A set cannot be guessed: a constant answer is paid only when a position's whole
safe set equals it (the old "name one safe cell" question paid the prompt's own example on 35%
of level-4 tasks). Positions, not only first clicks, keep the questions distinct (after the
first click alone, 8% of level-3 questions repeated).
Difficulty grows with the board (5x5 with 3 mines to 14x14 with 33): larger safe sets, more
numbers to combine, and more cells that only the subset rule or the mine count proves safe.
Generation: about 180 tasks per CPU-second at level 5 and 40 at level 10, where drawing a
guess-free board dominates (most random 14x14 boards with 33 mines need a guess and are
redrawn); the exact enumeration takes about a millisecond. Interactive
(``palaestra/Minesweeper-v0``): open and flag cells from the first click until the board is
clear or a mine goes off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.constraints import parse_cells
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import fold_lookalikes

Cell = tuple[int, int]
_COMMAND = re.compile(r"(?i)\b(open|flag)\s*\(?\s*(\d+)\s*[,\s]\s*(\d+)\s*\)?")
# Search nodes allowed when enumerating one board's layouts; a board needing more is redrawn
# (the most seen over 600 positions at levels 5 and 10 was 12,710).
NODE_LIMIT = 200_000
# Notation a model may put around the whole list (never parentheses: a cell has its own).
_WRAPPERS = (
    ("$$", "$$"),
    ("$", "$"),
    ("\\(", "\\)"),
    ("\\[", "\\]"),
    ("\\boxed{", "}"),
    ("\\{", "\\}"),
    ("{", "}"),
)


@dataclass(frozen=True)
class MinesweeperKnobs(Knobs):
    rows: int = knob(5, low=3, high=20, help="board rows")
    cols: int = knob(5, low=3, high=20, help="board columns")
    mines: int = knob(3, low=1, high=100, help="number of mines")

    def validate(self) -> None:
        if self.mines > self.rows * self.cols - 9:
            raise ValueError(
                f"{self.mines} mines do not fit with a safe 3x3 first click on {self.rows}x{self.cols}"
            )


LEVELS = {
    1: MinesweeperKnobs(rows=5, cols=5, mines=3),
    2: MinesweeperKnobs(rows=6, cols=6, mines=5),
    3: MinesweeperKnobs(rows=7, cols=7, mines=7),
    4: MinesweeperKnobs(rows=8, cols=8, mines=10),
    5: MinesweeperKnobs(rows=9, cols=9, mines=12),
    6: MinesweeperKnobs(rows=10, cols=10, mines=15),
    7: MinesweeperKnobs(rows=11, cols=11, mines=19),
    8: MinesweeperKnobs(rows=12, cols=12, mines=23),
    9: MinesweeperKnobs(rows=13, cols=13, mines=28),
    10: MinesweeperKnobs(rows=14, cols=14, mines=33),
}


class Board:
    """Mines, numbers and what the player has opened or flagged."""

    def __init__(self, rows: int, cols: int, mines: set[tuple[int, int]]):
        self.rows, self.cols, self.mines = rows, cols, mines
        self.opened: set[tuple[int, int]] = set()
        self.flagged: set[tuple[int, int]] = set()

    def neighbours(self, r: int, c: int) -> list[tuple[int, int]]:
        return [
            (r + dr, c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < self.rows and 0 <= c + dc < self.cols
        ]

    def number(self, cell: tuple[int, int]) -> int:
        return sum(n in self.mines for n in self.neighbours(*cell))

    def open(self, cell: tuple[int, int]) -> None:
        """Open a safe cell, flooding through zeros."""
        stack = [cell]
        while stack:
            current = stack.pop()
            if current in self.opened:
                continue
            self.opened.add(current)
            if self.number(current) == 0:
                stack.extend(n for n in self.neighbours(*current) if n not in self.opened)

    @property
    def cleared(self) -> bool:
        return len(self.opened) == self.rows * self.cols - len(self.mines)

    def render(self) -> str:
        header = "    " + " ".join(f"{c:>2}" for c in range(self.cols))
        lines = [header]
        for r in range(self.rows):
            cells = []
            for c in range(self.cols):
                if (r, c) in self.opened:
                    cells.append(f"{self.number((r, c)):>2}" if self.number((r, c)) else " .")
                else:
                    cells.append(" F" if (r, c) in self.flagged else " #")
            lines.append(f"{r:>2}  " + " ".join(cells))
        return "\n".join(lines)

    def visible(self) -> dict[str, list]:
        """What the player sees: opened cells with their numbers."""
        return {"opened": sorted([r, c, self.number((r, c))] for r, c in self.opened)}


def logic_step(board: Board, known_mines: set[tuple[int, int]]) -> tuple[set[tuple[int, int]], int]:
    """Cells the single-cell and subset rules prove safe (and mines they add to ``known_mines``).

    Returns (safe cells, rule applications). Only opened numbers are used: no guessing.
    """
    work = 0
    constraints = []
    for cell in board.opened:
        hidden = frozenset(
            n for n in board.neighbours(*cell) if n not in board.opened and n not in known_mines
        )
        need = board.number(cell) - sum(n in known_mines for n in board.neighbours(*cell))
        if hidden:
            constraints.append((hidden, need))
    safe: set[tuple[int, int]] = set()
    for hidden, need in constraints:
        work += 1
        if need == 0:
            safe |= hidden
        elif need == len(hidden):
            known_mines |= hidden
    if safe:
        return safe - known_mines, work
    for (a, need_a), (b, need_b) in combinations(constraints, 2):
        work += 1
        for small, need_s, large, need_l in ((a, need_a, b, need_b), (b, need_b, a, need_a)):
            if small < large:
                rest = large - small
                if need_l == need_s:
                    safe |= rest
                elif need_l - need_s == len(rest):
                    known_mines |= rest
    return safe - known_mines, work


def rule_safe_cells(board: Board, known_mines: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Apply the rules (finding mines first if need be) until some cells are proven safe."""
    while True:
        before = len(known_mines)
        safe, _ = logic_step(board, known_mines)
        if safe or len(known_mines) == before:
            return safe


def solve_by_logic(board: Board) -> tuple[bool, int, list[tuple[int, int]]]:
    """Play the rules to the end: (cleared, total work, cells opened in order)."""
    known: set[tuple[int, int]] = set()
    total, order = 0, []
    while not board.cleared:
        before = len(known)
        safe, work = logic_step(board, known)
        total += work
        if not safe and len(known) == before:
            return False, total, order
        for cell in sorted(safe):
            board.open(cell)
            order.append(cell)
    return True, total, order


def _neighbours(rows: int, cols: int, cell: Cell) -> list[Cell]:
    return Board(rows, cols, set()).neighbours(*cell)


def _constraints(rows: int, cols: int, shown: dict[Cell, int]) -> list[tuple[list[Cell], int]]:
    """Each shown number's unopened neighbours and how many mines they hold."""
    out = []
    for cell, number in sorted(shown.items()):
        hidden = [n for n in _neighbours(rows, cols, cell) if n not in shown]
        if hidden:
            out.append((hidden, number))
    return out


def _components(frontier: list[Cell], constraints: list[tuple[list[Cell], int]]) -> list[list[Cell]]:
    """The frontier split into groups no number links, each in depth-first order (so that a
    number's cells are assigned close together and a broken number is seen early)."""
    linked: dict[Cell, set[Cell]] = {cell: set() for cell in frontier}
    for cells, _ in constraints:
        for cell in cells:
            linked[cell].update(cells)
    seen: set[Cell] = set()
    groups = []
    for root in frontier:
        if root in seen:
            continue
        group, stack = [], [root]
        while stack:
            cell = stack.pop()
            if cell in seen:
                continue
            seen.add(cell)
            group.append(cell)
            stack.extend(sorted(linked[cell] - seen, reverse=True))
        groups.append(group)
    return groups


def _layouts_by_count(
    cells: list[Cell], constraints: list[tuple[list[Cell], int]], budget: int
) -> tuple[dict[int, int], int]:
    """Backtrack over every mine layout of ``cells`` meeting the numbers that touch them.

    Returns ({mine count: bitmask over ``cells`` of every cell that is a mine in some layout
    with that count}, nodes visited); stops early once ``budget`` nodes are spent.
    """
    index = {cell: i for i, cell in enumerate(cells)}
    numbers = [c for c in constraints if c[0][0] in index]  # a number's cells share one group
    need = [number for _, number in numbers]  # mines still to place around each number
    left = [len(members) for members, _ in numbers]  # its cells not yet decided
    touching: list[list[int]] = [[] for _ in cells]
    for j, (members, _) in enumerate(numbers):
        for cell in members:
            touching[index[cell]].append(j)
    masks: dict[int, int] = {}
    nodes = 0

    def place(i: int, mask: int, count: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > budget:
            return
        if i == len(cells):
            masks[count] = masks.get(count, 0) | mask
            return
        for is_mine in (0, 1):
            for j in touching[i]:
                left[j] -= 1
                need[j] -= is_mine
            if all(0 <= need[j] <= left[j] for j in touching[i]):
                place(i + 1, mask | (is_mine << i), count + is_mine)
            for j in touching[i]:
                left[j] += 1
                need[j] += is_mine

    place(0, 0, 0)
    return masks, nodes


def certainly_safe(
    rows: int, cols: int, mines: int, shown: dict[Cell, int], node_limit: int = NODE_LIMIT
) -> tuple[frozenset[Cell], int] | None:
    """The unopened cells that hold no mine in any layout consistent with the shown numbers and
    the total ``mines``, and the search nodes spent; ``None`` past ``node_limit`` nodes.

    The frontier (unopened cells next to a number) is enumerated group by group; the groups
    meet only through the mine count, and the other unopened cells, being interchangeable,
    take whatever the frontier leaves (0 up to all of them).
    """
    hidden = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in shown]
    constraints = _constraints(rows, cols, shown)
    frontier = sorted({cell for cells, _ in constraints for cell in cells})
    interior = len(hidden) - len(frontier)
    groups, counts, nodes = [], [], 0
    for group in _components(frontier, constraints):
        masks, spent = _layouts_by_count(group, constraints, node_limit - nodes)
        nodes += spent
        if nodes > node_limit:
            return None
        groups.append(group)
        counts.append(masks)
    low, high = mines - interior, mines  # the frontier's mine total
    before = [{0}]  # mine totals reachable by the groups before group i
    for masks in counts:
        before.append({a + k for a in before[-1] for k in masks})
    after = [{0}]  # and by the groups after it
    for masks in reversed(counts):
        after.append({a + k for a in after[-1] for k in masks})
    after.reverse()
    maybe_mine: set[Cell] = set()
    for i, (group, masks) in enumerate(zip(groups, counts, strict=True)):
        others = {a + b for a in before[i] for b in after[i + 1]}
        for count, mask in masks.items():
            if any(low <= count + other <= high for other in others):
                maybe_mine.update(cell for bit, cell in enumerate(group) if mask >> bit & 1)
    safe = set(frontier) - maybe_mine
    if not any(low <= total < mines for total in before[-1]):  # the frontier holds every mine
        safe |= set(hidden) - set(frontier)
    return frozenset(safe), nodes


def single_cell_safe(rows: int, cols: int, shown: dict[Cell, int]) -> set[Cell]:
    """What the single-cell rules prove safe, applied until nothing changes: a number whose
    mines are all found clears its other neighbours; a number with as many unknown neighbours
    as missing mines marks them all mines. No subset rule and no mine count."""
    constraints = _constraints(rows, cols, shown)
    mines: set[Cell] = set()
    safe: set[Cell] = set()
    changed = True
    while changed:
        changed = False
        for cells, number in constraints:
            unknown = [c for c in cells if c not in mines and c not in safe]
            missing = number - sum(c in mines for c in cells)
            if unknown and missing == 0:
                safe.update(unknown)
                changed = True
            elif unknown and missing == len(unknown):
                mines.update(unknown)
                changed = True
    return safe


def read_cells(text: str) -> list[Cell] | None:
    """``(0, 4), (3, 1)`` (commas, semicolons, spaces or new lines between the cells, optionally
    in brackets or braces, ``$...$`` or ``\\boxed{}`` around all) as a list; ``None`` otherwise."""
    text = fold_lookalikes(text).strip()
    for _ in range(4):
        cells = parse_cells(text)
        if cells is not None:
            return cells
        unwrapped = text[:-1].rstrip() if text.endswith(".") else text
        for left, right in _WRAPPERS:
            if (
                unwrapped.startswith(left)
                and unwrapped.endswith(right)
                and len(unwrapped) > len(left + right)
            ):
                unwrapped = unwrapped[len(left) : -len(right)].strip()
                break
        if unwrapped == text:
            return None
        text = unwrapped
    return None


def format_cells(cells: list[Cell] | frozenset[Cell] | set[Cell]) -> str:
    return ", ".join(f"({r}, {c})" for r, c in sorted(cells))


def _shown(task: Task) -> dict[Cell, int]:
    return {(r, c): n for r, c, n in task.metadata["opened"]}


def _canonical(rows: int, cols: int, mines: int, shown: dict[Cell, int]) -> str:
    """A hash equal for boards that are mirror images or rotations of each other."""
    maps = [
        lambda r, c: (r, c),
        lambda r, c: (rows - 1 - r, c),
        lambda r, c: (r, cols - 1 - c),
        lambda r, c: (rows - 1 - r, cols - 1 - c),
    ]
    if rows == cols:
        maps += [lambda r, c, f=f: f(c, r) for f in list(maps)]
    forms = [sorted([*m(r, c), n] for (r, c), n in shown.items()) for m in maps]
    return content_hash([rows, cols, mines, min(forms)])


def _draw(
    knobs: MinesweeperKnobs, rng: np.random.Generator
) -> tuple[set[Cell], Cell, Board, frozenset[Cell]]:
    """A guess-free board, a position of its logical play (the first click and then some of the
    cells the rules open, in their order), and the certainly safe cells of that position."""
    for _ in range(2000):
        first = (int(rng.integers(knobs.rows)), int(rng.integers(knobs.cols)))
        board = Board(knobs.rows, knobs.cols, set())
        keep_clear = set(board.neighbours(*first)) | {first}
        free = [(r, c) for r in range(knobs.rows) for c in range(knobs.cols) if (r, c) not in keep_clear]
        picks = rng.choice(len(free), size=knobs.mines, replace=False)
        mines = {free[int(i)] for i in picks}
        trial = Board(knobs.rows, knobs.cols, mines)
        trial.open(first)
        if trial.cleared:
            continue  # one click clears it: degenerate
        cleared, _, order = solve_by_logic(trial)
        if not cleared:
            continue
        start = Board(knobs.rows, knobs.cols, mines)  # the game so far: a prefix of that play
        for cell in [first, *order[: int(rng.integers(len(order)))]]:
            start.open(cell)
        if start.cleared:
            continue
        shown = {cell: start.number(cell) for cell in start.opened}
        found = certainly_safe(knobs.rows, knobs.cols, knobs.mines, shown)
        if found is not None:  # a guess-free board always has a safe cell: the rules found one
            return mines, first, start, found[0]
    raise RuntimeError(f"no guess-free board in 2000 draws for {knobs}")


PROMPT = """Minesweeper, {rows} rows x {cols} columns (rows and columns numbered from 0), {mines} \
mines in all. Some cells have been opened (none held a mine); a number is how many of the 8 \
neighbours are mines, '.' is an opened cell with no mine around it, '#' is unopened:

{board}

List every unopened cell that is certainly safe. A cell is certainly safe when no placement of \
the {mines} mines on the unopened cells that agrees with every number shown puts a mine on it \
(the total of {mines} mines counts too). At least one such cell exists. Write each cell as \
(row, column), in any order, separated by commas, for example <answer>{example}</answer>. The \
answer is right only if it names every certainly safe cell and no other cell."""


def _example(rows: int, cols: int, safe: frozenset[Cell]) -> str:
    """A format example that is not this board's answer (two opposite corners)."""
    for corners in ({(0, cols - 1), (rows - 1, 0)}, {(0, 0), (rows - 1, cols - 1)}):
        if corners != safe:
            return format_cells(corners)
    raise AssertionError("two disjoint sets cannot both equal one")


@family(
    "minesweeper",
    domain="interactive",
    knobs=MinesweeperKnobs,
    levels=LEVELS,
    description=(
        "Minesweeper boards solvable without guessing: list every cell a position proves safe; "
        "interactive: clear the board."
    ),
    verifier_kind="exact set (every consistent mine layout enumerated at generation)",
    version=2,  # v2: the whole set of certainly safe cells (one safe cell was guessable: 35% at level 4)
)
class Minesweeper(Family):
    def generate(self, knobs: MinesweeperKnobs, rng: np.random.Generator) -> TaskDraft:
        mines, first, start, safe = _draw(knobs, rng)
        shown = {cell: start.number(cell) for cell in start.opened}
        metadata = {
            "mines": sorted([r, c] for r, c in mines),
            "first_click": list(first),
            **start.visible(),
            "safe": sorted([r, c] for r, c in safe),
            "canonical_hash": _canonical(knobs.rows, knobs.cols, knobs.mines, shown),
        }
        prompt = PROMPT.format(
            rows=knobs.rows,
            cols=knobs.cols,
            mines=knobs.mines,
            board=start.render(),
            example=_example(knobs.rows, knobs.cols, safe),
        )
        return TaskDraft(prompt, format_cells(safe), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        k = task.knobs
        extraction = extract_answer(response, max_chars=12 * k["rows"] * k["cols"] + 64)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        cells = read_cells(extraction.text)
        if cells is None:
            return Verdict.bad_format(
                "list the cells as (row, column) separated by commas, e.g. (0, 4), (4, 0)"
            )
        for cell in cells:
            if not (0 <= cell[0] < k["rows"] and 0 <= cell[1] < k["cols"]):
                return Verdict.bad_format(f"{cell} is off the board")
        if len(set(cells)) < len(cells):
            twice = next(cell for cell in cells if cells.count(cell) > 1)
            return Verdict.bad_format(f"{twice} is named twice")
        parsed = sorted([r, c] for r, c in cells)
        shown = _shown(task)
        safe = {(r, c) for r, c in task.metadata["safe"]}
        problems = [f"{cell} is already open" for cell in cells if cell in shown]
        problems += [f"{cell} can hold a mine" for cell in cells if cell not in shown and cell not in safe]
        missing = len(safe - set(cells))
        if missing:  # how many, not which: a retry must not be handed the answer
            problems.append(f"misses {missing} certainly safe cell{'s' if missing > 1 else ''}")
        if problems:
            return Verdict.wrong("; ".join(problems[:3]), parsed=parsed)
        return Verdict.right(parsed=parsed)

    def solve_exact(self, task: Task) -> SolverRun:
        """Enumerates every mine layout of the cells next to the numbers (effort: search nodes)."""
        k = task.knobs
        found = certainly_safe(k["rows"], k["cols"], k["mines"], _shown(task))
        if found is None:
            return SolverRun(None, float(NODE_LIMIT))
        safe, nodes = found
        return SolverRun(f"<answer>{format_cells(safe)}</answer>", float(nodes))

    def solve_weak(self, task: Task) -> SolverRun:
        """Single-cell rules only: misses what needs the subset rule or the mine count."""
        k = task.knobs
        safe = single_cell_safe(k["rows"], k["cols"], _shown(task))
        if not safe:
            return SolverRun(None, float(len(task.metadata["opened"])))
        return SolverRun(f"<answer>{format_cells(safe)}</answer>", float(len(task.metadata["opened"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        k = task.knobs
        safe = [(r, c) for r, c in task.metadata["safe"]]
        shown = _shown(task)
        mines = [(r, c) for r, c in task.metadata["mines"]]
        unsure = [
            (r, c)
            for r in range(k["rows"])
            for c in range(k["cols"])
            if (r, c) not in shown and (r, c) not in mines and (r, c) not in safe
        ]  # no mine here, but some consistent layout puts one: still not certainly safe
        drop = int(rng.integers(len(safe)))
        variants = [
            safe[:drop] + safe[drop + 1 :],  # one safe cell missing
            [*safe, mines[int(rng.integers(len(mines)))]],  # a mine added
            [*safe, sorted(shown)[0]],  # an opened cell added
            [*safe, safe[0]],  # a cell named twice
        ]
        if unsure:
            variants.append([*safe, unsure[int(rng.integers(len(unsure)))]])
            variants.append([*safe[:drop], unsure[0], *safe[drop + 1 :]])  # swapped for an unsure one
        weak = single_cell_safe(k["rows"], k["cols"], shown)
        if weak and weak != set(safe):
            variants.append(sorted(weak))
        return [f"<answer>{', '.join(f'({r}, {c})' for r, c in v)}</answer>" for v in variants]

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        return MinesweeperGame(task)


class MinesweeperGame(Episode):
    """Open or flag cells; opening every safe cell wins, opening a mine loses."""

    def __init__(self, task: Task):
        k = task.knobs
        self.board = Board(k["rows"], k["cols"], {tuple(m) for m in task.metadata["mines"]})
        self.board.open(tuple(task.metadata["first_click"]))
        self.max_turns = 2 * (k["rows"] * k["cols"]) + 10
        self.known_mines: set[tuple[int, int]] = set()
        self.queue: list[tuple[int, int]] = []

    def opening(self) -> str:
        b = self.board
        return (
            f"Minesweeper, {b.rows}x{b.cols} with {len(b.mines)} mines; the first click is done. Send 'open r c' or "
            f"'flag r c' (rows and columns from 0). Open every safe cell to win; a mine ends the game.\n{b.render()}"
        )

    def act(self, action: str) -> Turn:
        commands = _COMMAND.findall(action[:500])
        if len(commands) != 1:
            return Turn("invalid: send exactly one 'open r c' or 'flag r c'.", info={"invalid": True})
        verb, r, c = commands[0][0].lower(), int(commands[0][1]), int(commands[0][2])
        cell = (r, c)
        if not (0 <= r < self.board.rows and 0 <= c < self.board.cols) or cell in self.board.opened:
            return Turn(f"invalid: {cell} is off the board or already open.", info={"invalid": True})
        if verb == "flag":
            self.board.flagged ^= {cell}
            return Turn(self.board.render())
        if cell in self.board.mines:
            return Turn(f"Boom: {cell} was a mine.", outcome="failed")
        self.board.open(cell)
        self.board.flagged -= self.board.opened
        if self.board.cleared:
            return Turn("Board cleared!", reward=1.0, outcome="solved")
        return Turn(self.board.render())

    def reference_action(self) -> str:
        """Open a cell the rules prove safe (boards are generated so one always exists)."""
        self.queue = [q for q in self.queue if q not in self.board.opened]
        if not self.queue:
            self.queue = sorted(rule_safe_cells(self.board, self.known_mines))
        r, c = self.queue.pop(0)
        return f"open {r} {c}"

    def random_action(self, rng: np.random.Generator) -> str:
        hidden = [
            (r, c)
            for r in range(self.board.rows)
            for c in range(self.board.cols)
            if (r, c) not in self.board.opened
        ]
        r, c = hidden[int(rng.integers(len(hidden)))]
        return f"open {r} {c}"
