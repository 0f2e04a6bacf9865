"""Connect four on boards from 4x5 (connect 3) to the classic 6x7 (connect 4).

The reference player is a depth-limited negamax with alpha-beta pruning that always takes a
win and blocks an immediate loss; it is strong but not perfect on the larger boards, so this
game's ``value`` is unknown (``None``).
"""

from __future__ import annotations

import re

import numpy as np

from palaestra.envs.games.base import TurnGame

# level -> (rows, columns, in a row to win, search depth of the reference player)
LEVEL_SETUPS = {
    1: (4, 5, 3, 4),
    2: (4, 5, 3, 4),
    3: (5, 5, 4, 4),
    4: (5, 6, 4, 4),
    5: (5, 6, 4, 4),
    6: (6, 7, 4, 3),
    7: (6, 7, 4, 3),
    8: (6, 7, 4, 4),
    9: (6, 7, 4, 4),
    10: (6, 7, 4, 4),
}
PIECES = {"player_0": "X", "player_1": "O"}
_MOVE = re.compile(r"(?i)\bcolumn\s*(\d+)\b|^\s*(\d+)\s*$")
WIN_SCORE = 10_000


class ConnectFour(TurnGame):
    """Drop pieces into columns; the first to line up ``connect`` pieces wins."""

    name = "connect_four"
    possible_agents = ["player_0", "player_1"]

    def new_game(self, rng: np.random.Generator, level: int) -> None:
        self.rows, self.cols, self.connect, self.depth = LEVEL_SETUPS[level]
        self.grid = [["." for _ in range(self.cols)] for _ in range(self.rows)]

    def rules(self, agent: str) -> str:
        return (
            f"Connect four on a {self.rows}x{self.cols} board. You play {PIECES[agent]} and move "
            f"{'first' if agent == 'player_0' else 'second'}. Drop a piece into a column; it falls to the lowest "
            f"empty cell. {self.connect} in a row (any direction) wins: 1; a full board is a draw: 0; a loss -1. "
            f"Move by naming a column 1-{self.cols}, for example 'column 3'."
        )

    def view(self, agent: str) -> str:
        header = " ".join(str(c + 1) for c in range(self.cols))
        return "\n".join([header, *(" ".join(row) for row in self.grid)])

    def legal_moves(self) -> list[str]:
        return [f"column {c + 1}" for c in range(self.cols) if self.grid[0][c] == "."]

    def parse_move(self, text: str) -> str | None:
        found = {a or b for a, b in _MOVE.findall(text.strip())}
        return f"column {int(found.pop())}" if len(found) == 1 else None

    def apply(self, move: str) -> dict[str, float] | None:
        piece = PIECES[self.agent_selection]
        row = self._drop(int(move.split()[1]) - 1, piece)
        if self._wins(row, int(move.split()[1]) - 1, piece):
            return {a: (1.0 if a == self.agent_selection else -1.0) for a in self.agents}
        if all(cell != "." for cell in self.grid[0]):
            return {a: 0.0 for a in self.agents}
        return None

    def describe(self, agent: str, move: str) -> str:
        return f"{PIECES[agent]} dropped a piece into {move}."

    # --------------------------------------------------------------------- board helpers

    def _drop(self, col: int, piece: str) -> int:
        for row in range(self.rows - 1, -1, -1):
            if self.grid[row][col] == ".":
                self.grid[row][col] = piece
                return row
        raise ValueError("column is full")

    def _undo(self, col: int) -> None:
        for row in range(self.rows):
            if self.grid[row][col] != ".":
                self.grid[row][col] = "."
                return

    def _wins(self, row: int, col: int, piece: str) -> bool:
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.cols and self.grid[r][c] == piece:
                    count += 1
                    r, c = r + sign * dr, c + sign * dc
            if count >= self.connect:
                return True
        return False

    def _open_columns(self) -> list[int]:
        centre = (self.cols - 1) / 2
        return sorted((c for c in range(self.cols) if self.grid[0][c] == "."), key=lambda c: abs(c - centre))

    def _negamax(self, piece: str, depth: int, alpha: float, beta: float) -> float:
        other = "O" if piece == "X" else "X"
        columns = self._open_columns()
        if not columns:
            return 0.0
        if depth == 0:
            return self._heuristic(piece) - self._heuristic(other)
        best = -float("inf")
        for col in columns:
            row = self._drop(col, piece)
            score = (
                WIN_SCORE + depth
                if self._wins(row, col, piece)
                else -self._negamax(other, depth - 1, -beta, -alpha)
            )
            self._undo(col)
            best, alpha = max(best, score), max(alpha, score)
            if alpha >= beta:
                break
        return best

    def _heuristic(self, piece: str) -> float:
        """Pieces near the centre column count more."""
        centre = (self.cols - 1) / 2
        return sum(
            1.0 / (1 + abs(c - centre)) for row in self.grid for c, cell in enumerate(row) if cell == piece
        )

    def minimax_move(self) -> str:
        piece = PIECES[self.agent_selection]
        other = "O" if piece == "X" else "X"
        best_col, best = None, -float("inf")
        for col in self._open_columns():
            row = self._drop(col, piece)
            score = (
                WIN_SCORE + self.depth
                if self._wins(row, col, piece)
                else -self._negamax(other, self.depth - 1, -float("inf"), float("inf"))
            )
            self._undo(col)
            if score > best:
                best_col, best = col, score
        assert best_col is not None
        return f"column {best_col + 1}"
