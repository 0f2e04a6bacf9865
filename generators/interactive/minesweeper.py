"""Minesweeper without guessing: the first click is safe and logic alone clears the board.

Boards are drawn until a rule-based solver (single-cell rules plus the subset rule between
neighbouring numbers) opens every safe cell from the first click, so no move ever needs a
guess. Single-turn: the prompt shows the board right after the first click and asks for any
cell that is certainly safe; the verifier proves the submitted cell safe with z3 over every
mine layout consistent with the visible numbers and the mine count (any provably safe cell
counts). Interactive (``palaestra/Minesweeper-v0``): open and flag cells until the board is
clear or a mine goes off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import z3

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import fold_lookalikes, unwrap_math

_CELL = re.compile(r"\(?\s*(\d+)\s*[,\s]\s*(\d+)\s*\)?")
_COMMAND = re.compile(r"(?i)\b(open|flag)\s*\(?\s*(\d+)\s*[,\s]\s*(\d+)\s*\)?")
Z3_TIMEOUT_MS = 5000


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


def provably_safe(
    rows: int, cols: int, mines: int, opened: list[list[int]], cell: tuple[int, int]
) -> bool | None:
    """Is ``cell`` safe in every mine layout consistent with the opened numbers and the count?

    ``None`` when z3 runs out of time (the verifier then reports an error).
    """
    board = Board(rows, cols, set())
    shown = {(r, c): n for r, c, n in opened}
    if cell in shown:
        return False
    hidden = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in shown]
    var = {h: z3.Bool(f"m_{h[0]}_{h[1]}") for h in hidden}
    solver = z3.Solver()
    solver.set("timeout", Z3_TIMEOUT_MS)
    for (r, c), n in shown.items():
        around = [var[x] for x in board.neighbours(r, c) if x in var]
        solver.add(z3.PbEq([(v, 1) for v in around], n) if around else z3.BoolVal(n == 0))
    solver.add(z3.PbEq([(v, 1) for v in var.values()], mines))
    solver.add(var[cell])
    outcome = solver.check()
    if outcome == z3.unknown:
        return None
    return outcome == z3.unsat


def _draw(
    knobs: MinesweeperKnobs, rng: np.random.Generator
) -> tuple[set[tuple[int, int]], tuple[int, int], int, Board]:
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
        start = Board(knobs.rows, knobs.cols, mines)
        start.open(first)
        cleared, work, _ = solve_by_logic(trial)
        if cleared:
            return mines, first, work, start
    raise RuntimeError(f"no guess-free board in 2000 draws for {knobs}")


PROMPT = """Minesweeper, {rows} rows x {cols} columns (rows and columns numbered from 0), {mines} \
mines in all. The first click opened some cells; a number is how many of the 8 neighbours \
are mines, '.' is an opened cell with no mine around it, '#' is unopened:

{board}

Name one unopened cell that is certainly safe, as (row, column), for example <answer>(2, 3)</answer>. \
Any cell that is safe in every mine layout consistent with the board is accepted."""


@family(
    "minesweeper",
    domain="interactive",
    knobs=MinesweeperKnobs,
    levels=LEVELS,
    description="Minesweeper boards solvable without guessing: name a provably safe cell; interactive: clear the board.",
    verifier_kind="proof check (z3: the cell is safe in every consistent layout)",
)
class Minesweeper(Family):
    def generate(self, knobs: MinesweeperKnobs, rng: np.random.Generator) -> TaskDraft:
        mines, first, work, start = _draw(knobs, rng)
        safe = rule_safe_cells(start, set())
        answer = sorted(safe)[0]
        metadata = {
            "mines": sorted([r, c] for r, c in mines),
            "first_click": list(first),
            **start.visible(),
            "logic_work": work,
            "rule_safe": sorted([r, c] for r, c in safe),
            "canonical_hash": content_hash(
                [knobs.rows, knobs.cols, sorted([r, c] for r, c in mines), list(first)]
            ),
        }
        prompt = PROMPT.format(rows=knobs.rows, cols=knobs.cols, mines=knobs.mines, board=start.render())
        return TaskDraft(prompt, f"({answer[0]}, {answer[1]})", metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=100)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        match = _CELL.fullmatch(fold_lookalikes(unwrap_math(extraction.text)))
        k = task.knobs
        if match is None:
            return Verdict.bad_format("name one cell as (row, column), e.g. (2, 3)")
        cell = (int(match.group(1)), int(match.group(2)))
        if not (0 <= cell[0] < k["rows"] and 0 <= cell[1] < k["cols"]):
            return Verdict.bad_format(f"{cell} is off the board")
        if [cell[0], cell[1]] in [[r, c] for r, c, _ in task.metadata["opened"]]:
            return Verdict.wrong(f"{cell} is already open", parsed=list(cell))
        proven = provably_safe(k["rows"], k["cols"], k["mines"], task.metadata["opened"], cell)
        if proven is None:
            return Verdict.timed_out("the safety proof ran out of time")
        if proven:
            return Verdict.right(parsed=list(cell))
        return Verdict.wrong(f"{cell} could hide a mine", parsed=list(cell))

    def solve_exact(self, task: Task) -> SolverRun:
        """Rule-based logic (single-cell and subset rules) from the visible board."""
        k = task.knobs
        board = Board(k["rows"], k["cols"], {tuple(m) for m in task.metadata["mines"]})
        board.open(tuple(task.metadata["first_click"]))
        cell = sorted(rule_safe_cells(board, set()))[0]
        return SolverRun(f"<answer>({cell[0]}, {cell[1]})</answer>", float(task.metadata["logic_work"]))

    def solve_weak(self, task: Task) -> SolverRun:
        """Picks the unopened cell farthest from every number (a hunch, not a proof)."""
        k = task.knobs
        opened = {(r, c) for r, c, _ in task.metadata["opened"]}
        numbered = [(r, c) for r, c, n in task.metadata["opened"] if n]
        hidden = [(r, c) for r in range(k["rows"]) for c in range(k["cols"]) if (r, c) not in opened]
        cell = max(
            hidden, key=lambda h: (min((abs(h[0] - r) + abs(h[1] - c) for r, c in numbered), default=0), h)
        )
        return SolverRun(f"<answer>({cell[0]}, {cell[1]})</answer>", float(len(hidden)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        mines = task.metadata["mines"]
        opened = task.metadata["opened"]
        picks = [mines[int(i)] for i in rng.choice(len(mines), size=min(2, len(mines)), replace=False)]
        return [f"<answer>({r}, {c})</answer>" for r, c in picks] + [
            f"<answer>({opened[0][0]}, {opened[0][1]})</answer>",  # already open
            f"<answer>({task.knobs['rows']}, 0)</answer>",  # off the board
        ]

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
