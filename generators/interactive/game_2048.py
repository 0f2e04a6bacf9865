"""2048 with planned moves: reach a target tile within a move budget, with known tile spawns.

The board, the target tile and the move budget come from the task; the tiles that appear after
each move follow a spawn list fixed by the task's seed (after move k the tile ``value_k`` lands on
empty cell number ``choice_k mod (number of empty cells)``, counting empty cells in reading
order), so the whole game is deterministic and reproducible. Single-turn: the answer is a move
sequence, and the verifier replays the full transcript: every move must change the board, the
sequence must fit the budget, and the target tile must be on the board at the end (tiles never
shrink, so reaching it once suffices). Every winning sequence is accepted. Interactive
(``palaestra/Game2048-v0``): the agent sends one move at a time and sees the new board.

What is proven: the target is reachable within the budget (breadth-first search over every
move sequence, states deduplicated per move number), it is the largest tile any sequence of at
most ``budget`` (knob) moves can build, and the task's budget is the fewest moves that build it
(no shorter sequence does: the budget is tight).

Difficulty: a larger board (3x3 to 4x4), more starting tiles and a longer budget (up to 2 to 6 moves),
so the search tree grows (the exact solver's effort counts search states). From level 3 on,
instances the greedy player (each move chosen to maximise the largest tile, then empty cells,
the weak solver) wins are rejected.

Generation: ~2,700 tasks per CPU-second at level 1, ~250 at level 5 and ~30 at level 10. Under
50/s at levels 9 and 10 because the proof that the target is the largest reachable tile explores
every move sequence within the budget (up to 4^6, deduplicated) in pure Python, and boards the
greedy player wins are redrawn.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.extract import extract_answer

Board = tuple[tuple[int, ...], ...]
MOVES = "LRUD"
NAMES = {"L": "left", "R": "right", "U": "up", "D": "down"}
_WORDS = {"l": "L", "left": "L", "r": "R", "right": "R", "u": "U", "up": "U", "d": "D", "down": "D"}
_TOKENS = re.compile(r"[,;\s]+|->|→")
CHOICE_RANGE = 100
MAX_MOVE_CHARS = 400


@dataclass(frozen=True)
class Game2048Knobs(Knobs):
    size: int = knob(3, low=3, high=4, help="the board is size x size")
    tiles: int = knob(4, low=2, high=12, help="tiles on the starting board")
    largest_start: int = knob(3, low=1, high=6, help="starting tiles are 2^1..2^largest_start")
    budget: int = knob(
        2, low=1, high=8, help="most moves allowed (a task allows the fewest that build its target)"
    )
    reject_greedy: bool = knob(False, help="reject boards the greedy player wins")


LEVELS = {
    1: Game2048Knobs(size=3, tiles=4, largest_start=2, budget=2),
    2: Game2048Knobs(size=3, tiles=5, largest_start=3, budget=3),
    3: Game2048Knobs(size=3, tiles=5, largest_start=3, budget=3, reject_greedy=True),
    4: Game2048Knobs(size=3, tiles=6, largest_start=3, budget=4, reject_greedy=True),
    5: Game2048Knobs(size=4, tiles=7, largest_start=4, budget=4, reject_greedy=True),
    6: Game2048Knobs(size=4, tiles=8, largest_start=4, budget=4, reject_greedy=True),
    7: Game2048Knobs(size=4, tiles=8, largest_start=4, budget=5, reject_greedy=True),
    8: Game2048Knobs(size=4, tiles=9, largest_start=5, budget=5, reject_greedy=True),
    9: Game2048Knobs(size=4, tiles=9, largest_start=5, budget=6, reject_greedy=True),
    10: Game2048Knobs(size=4, tiles=10, largest_start=5, budget=6, reject_greedy=True),
}


# --------------------------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1 << 16)
def _slide_row(row: tuple[int, ...]) -> tuple[int, ...]:
    """Slide a row to the left, merging equal neighbours once each (2 2 2 0 -> 4 2 0 0)."""
    values = [v for v in row if v]
    merged: list[int] = []
    i = 0
    while i < len(values):
        if i + 1 < len(values) and values[i] == values[i + 1]:
            merged.append(2 * values[i])
            i += 2
        else:
            merged.append(values[i])
            i += 1
    return tuple(merged + [0] * (len(row) - len(merged)))


def _transpose(board: Board) -> Board:
    return tuple(zip(*board, strict=True))


def slide(board: Board, move: str) -> Board:
    """The board after a move (before the new tile appears)."""
    if move == "L":
        return tuple(_slide_row(r) for r in board)
    if move == "R":
        return tuple(_slide_row(r[::-1])[::-1] for r in board)
    if move == "U":
        return _transpose(slide(_transpose(board), "L"))
    return _transpose(slide(_transpose(board), "R"))


def spawn(board: Board, step: int, spawns: list[list[int]]) -> Board:
    """Place the tile of spawn ``step`` on its empty cell (the board always has one after a move)."""
    choice, value = spawns[step]
    empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if not v]
    if not empty:
        return board
    r, c = empty[choice % len(empty)]
    rows = [list(row) for row in board]
    rows[r][c] = value
    return tuple(tuple(row) for row in rows)


def play(board: Board, move: str, step: int, spawns: list[list[int]]) -> Board | None:
    """The board after ``move`` and its spawn, or None when the move changes nothing."""
    moved = slide(board, move)
    return None if moved == board else spawn(moved, step, spawns)


def largest(board: Board) -> int:
    return max(max(row) for row in board)


def best_reachable(board: Board, budget: int, spawns: list[list[int]]) -> tuple[list[int], int]:
    """The largest tile reachable after exactly k moves, for k = 0..budget, and states visited."""
    frontier, best, visited = {board}, [largest(board)], 1
    for step in range(budget):
        moved = {after for b in frontier for m in MOVES if (after := slide(b, m)) != b}
        visited += len(moved)
        # a spawn adds a 2 or a 4 and never merges, so the largest tile is known before it lands
        best.append(max((max(largest(b), spawns[step][1]) for b in moved), default=best[-1]))
        if step + 1 < budget:
            frontier = {spawn(b, step, spawns) for b in moved} or frontier
    return best, visited


def plan(
    board: Board, first_step: int, moves_left: int, target: int, spawns: list[list[int]]
) -> tuple[str | None, int]:
    """A shortest move sequence from ``board`` (at move ``first_step``) that builds ``target``.

    Breadth-first over move numbers, states deduplicated; returns (moves or None, states visited).
    """
    if largest(board) >= target:
        return "", 1
    frontier: dict[Board, str] = {board: ""}
    visited = 1
    for step in range(first_step, first_step + moves_left):
        following: dict[Board, str] = {}
        for b, path in frontier.items():
            for m in MOVES:
                after = play(b, m, step, spawns)
                if after is None or after in following:
                    continue
                following[after] = path + m
                visited += 1
                if largest(after) >= target:
                    return path + m, visited
        frontier = following
    return None, visited


def greedy_moves(board: Board, budget: int, spawns: list[list[int]]) -> str:
    """Each move maximises (largest tile, empty cells) one step ahead; ties in order L, R, U, D."""
    moves = ""
    for step in range(budget):
        options = [(m, after) for m in MOVES if (after := play(board, m, step, spawns)) is not None]
        if not options:
            break
        move, board = max(options, key=lambda o: (largest(o[1]), sum(v == 0 for r in o[1] for v in r)))
        moves += move
    return moves


def show(board: Board) -> str:
    width = max(len(str(v)) for row in board for v in row)
    return "\n".join(" ".join(f"{v if v else '.':>{width}}" for v in row) for row in board)


def parse_moves(text: str) -> str | None:
    """ "L R U", "left, up", "LRU" -> "LRU"; None when any token is not a move."""
    moves = ""
    for token in _TOKENS.split(text.strip().strip("[]").lower()):
        if not token:
            continue
        if token in _WORDS:
            moves += _WORDS[token]
        elif set(token) <= set("lrud"):
            moves += token.upper()
        else:
            return None
    return moves


def replay(board: Board, moves: str, spawns: list[list[int]]) -> tuple[Board, int | None]:
    """The board after the moves, and the index of the first move that changes nothing (or None)."""
    for step, move in enumerate(moves):
        after = play(board, move, step, spawns)
        if after is None:
            return board, step
        board = after
    return board, None


# --------------------------------------------------------------------------------------------
# The family
# --------------------------------------------------------------------------------------------

PROMPT = """2048 on a {size}x{size} board ('.' is an empty cell):
{board}

A move (L = left, R = right, U = up, D = down) slides every tile as far as it goes in that \
direction; two equal tiles that collide merge into one tile of their sum, and a tile made by a \
merge does not merge again in the same move. A move that changes nothing is not allowed. After \
move number k (counting from 1) a new tile appears: with (choice, value) the k-th pair of the \
list below, the tile `value` lands on empty cell number (choice mod E) + 1, where E is the number \
of empty cells and they are counted row by row from the top left.
New tiles: {spawns}

Build a tile of value {target} in at most {budget} move(s). Any sequence of moves that does it is accepted. \
Answer with the moves in order, for example <answer>{example}</answer>."""


def _draw_board(knobs: Game2048Knobs, rng: np.random.Generator) -> Board:
    cells = rng.choice(knobs.size * knobs.size, size=knobs.tiles, replace=False)
    flat = [0] * (knobs.size * knobs.size)
    for cell in cells:
        flat[int(cell)] = 2 ** int(rng.integers(1, knobs.largest_start + 1))
    return tuple(tuple(flat[r * knobs.size : (r + 1) * knobs.size]) for r in range(knobs.size))


def _state(task: Task) -> tuple[Board, list[list[int]], int, int]:
    meta = task.metadata
    return tuple(tuple(r) for r in meta["board"]), meta["spawns"], meta["target"], meta["budget"]


def _moves_text(moves: str) -> str:
    return " ".join(moves)


@family(
    "game_2048",
    domain="interactive",
    knobs=Game2048Knobs,
    levels=LEVELS,
    description="2048 with known spawns: reach a target tile within a move budget (any winning sequence counts).",
    verifier_kind="full replay of the move sequence (target proven reachable by search)",
)
class Game2048(Family):
    def generate(self, knobs: Game2048Knobs, rng: np.random.Generator) -> TaskDraft:
        for _ in range(2000):
            board = _draw_board(knobs, rng)
            values = rng.choice([2, 4], size=knobs.budget, p=[0.9, 0.1])
            spawns = [
                [int(c), int(v)]
                for c, v in zip(rng.integers(0, CHOICE_RANGE, size=knobs.budget), values, strict=True)
            ]
            best, _ = best_reachable(board, knobs.budget, spawns)
            target = max(best)
            if target <= largest(board):
                continue  # no move builds a larger tile than the board already has
            budget = best.index(target)  # the fewest moves that build it: the budget is tight
            spawns = spawns[:budget]
            if knobs.reject_greedy:
                final, _ = replay(board, greedy_moves(board, budget, spawns), spawns)
                if largest(final) >= target:
                    continue
            break
        else:
            raise RuntimeError(f"no suitable board in 2000 draws for {knobs}")
        moves, states = plan(board, 0, budget, target, spawns)
        assert moves is not None
        metadata = {
            "board": [list(r) for r in board],
            "spawns": spawns,
            "target": target,
            "budget": budget,
            "search_states": states,
            "canonical_hash": content_hash([[list(r) for r in board], spawns, target, budget]),
        }
        prompt = PROMPT.format(
            size=knobs.size,
            board=show(board),
            spawns=", ".join(f"({c}, {v})" for c, v in spawns),
            target=target,
            budget=budget,
            example="L U" if budget > 1 else "L",
        )
        return TaskDraft(prompt, _moves_text(moves), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, labels=("moves",), max_chars=MAX_MOVE_CHARS)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        moves = parse_moves(extraction.text)
        if not moves:
            return Verdict.bad_format("the answer must be moves L, R, U, D (or left, right, up, down)")
        board, spawns, target, budget = _state(task)
        if len(moves) > budget:
            return Verdict.wrong(f"{len(moves)} moves, but at most {budget} are allowed", parsed=moves)
        final, stuck = replay(board, moves, spawns)
        if stuck is not None:
            return Verdict.wrong(f"move {stuck + 1} ({NAMES[moves[stuck]]}) changes nothing", parsed=moves)
        if largest(final) < target:
            return Verdict.wrong(
                f"after these moves the largest tile is {largest(final)}, not {target}", parsed=moves
            )
        return Verdict.right(parsed=moves)

    def solve_exact(self, task: Task) -> SolverRun:
        """Breadth-first search over move sequences (effort = states visited)."""
        board, spawns, target, budget = _state(task)
        moves, states = plan(board, 0, budget, target, spawns)
        return SolverRun(None if moves is None else f"<answer>{_moves_text(moves)}</answer>", float(states))

    def solve_weak(self, task: Task) -> SolverRun:
        """Greedy one-move look-ahead (largest tile, then empty cells)."""
        board, spawns, _, budget = _state(task)
        return SolverRun(
            f"<answer>{_moves_text(greedy_moves(board, budget, spawns))}</answer>", float(4 * budget)
        )

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        board, spawns, target, budget = _state(task)
        moves = task.answer.replace(" ", "")
        mutations = [moves + "L" * (budget + 1 - len(moves)), moves * 2 + "U"]  # over the budget
        for move in MOVES:  # a move that changes nothing, or one that misses the target
            if slide(board, move) == board:
                mutations.append(move + moves)
        for sequence in ("L" * budget, "R" * budget, "U" * budget, "D" * budget, moves[:-1] or "X"):
            final, stuck = replay(board, sequence, spawns) if sequence != "X" else (board, 0)
            if stuck is not None or largest(final) < target:
                mutations.append(sequence)
        return [f"<answer>{_moves_text(m)}</answer>" for m in dict.fromkeys(mutations)]

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        return Game2048Episode(*_state(task))


class Game2048Episode(Episode):
    """Play the task's board move by move; solved once the target tile appears."""

    def __init__(self, board: Board, spawns: list[list[int]], target: int, budget: int):
        self.board, self.spawns, self.target, self.budget = board, spawns, target, budget
        self.moves_made = 0
        self.max_turns = budget + 10  # room for a few invalid messages

    def opening(self) -> str:
        return (
            f"Let's play 2048 on this board ('.' is empty):\n{show(self.board)}\n"
            f"Send one move per message: L, R, U or D (left, right, up, down). Tiles slide as far as "
            f"they go; two equal tiles that collide merge once per move; a move that changes nothing "
            f"is refused. After your k-th move the k-th new tile (choice, value) of this list lands on "
            f"empty cell number (choice mod E) + 1, E empty cells counted row by row from the top "
            f"left: {', '.join(f'({c}, {v})' for c, v in self.spawns)}.\n"
            f"Build a tile of value {self.target} within {self.budget} move(s)."
        )

    def act(self, action: str) -> Turn:
        extraction = extract_answer(action, allow_bare=True, max_chars=20)
        moves = parse_moves(extraction.text or "") if extraction.ok else None
        if not moves or len(moves) != 1:
            return Turn("invalid move: send one of L, R, U, D.", info={"invalid": True})
        after = play(self.board, moves, self.moves_made, self.spawns)
        if after is None:
            return Turn(f"moving {NAMES[moves]} changes nothing; try another move.", info={"invalid": True})
        self.board, self.moves_made = after, self.moves_made + 1
        if largest(after) >= self.target:
            return Turn(f"{show(after)}\nYou built {self.target}: solved!", reward=1.0, outcome="solved")
        if self.moves_made == self.budget or all(
            play(after, m, self.moves_made, self.spawns) is None for m in MOVES
        ):
            return Turn(f"{show(after)}\nNo moves left; the target was {self.target}.", outcome="failed")
        return Turn(f"{show(after)}\n{self.budget - self.moves_made} moves left.")

    def reference_action(self) -> str:
        """The first move of a shortest winning sequence (any legal move when none is left)."""
        moves, _ = plan(self.board, self.moves_made, self.budget - self.moves_made, self.target, self.spawns)
        if moves:
            return moves[0]
        return next((m for m in MOVES if play(self.board, m, self.moves_made, self.spawns)), "L")

    def random_action(self, rng: np.random.Generator) -> str:
        legal = [m for m in MOVES if play(self.board, m, self.moves_made, self.spawns) is not None]
        return str(rng.choice(legal or list(MOVES)))
