"""Tic-tac-toe on a 3x3 board, with a perfect minimax player."""

from __future__ import annotations

import functools
import re

import numpy as np

from palaestra.envs.games.base import TurnGame

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
MARKS = {"player_0": "X", "player_1": "O"}
_MOVE = re.compile(r"\b([abcABC])\s*([123])\b|\b([1-9])\b")


def winner(board: str) -> str | None:
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return board[a]
    return None


@functools.cache
def _value(board: str, to_move: str) -> int:
    """Game value for X under perfect play (+1 X wins, 0 draw, -1 O wins)."""
    won = winner(board)
    if won:
        return 1 if won == "X" else -1
    if "." not in board:
        return 0
    following = "O" if to_move == "X" else "X"
    values = [
        _value(board[:i] + to_move + board[i + 1 :], following) for i, c in enumerate(board) if c == "."
    ]
    return max(values) if to_move == "X" else min(values)


def cell_name(index: int) -> str:
    return "abc"[index % 3] + str(index // 3 + 1)


class TicTacToe(TurnGame):
    """Three in a row wins. Moves name a cell by column a-c and row 1-3 (``b2`` is the centre)."""

    name = "tic_tac_toe"
    possible_agents = ["player_0", "player_1"]

    def new_game(self, rng: np.random.Generator, level: int) -> None:
        self.board = "." * 9

    def rules(self, agent: str) -> str:
        return (
            f"Tic-tac-toe. You play {MARKS[agent]} ({'first' if agent == 'player_0' else 'second'}). Three in a row "
            "(row, column or diagonal) wins: 1 point; a draw is 0; a loss -1. Name a cell by column a-c and row "
            "1-3, for example b2 for the centre."
        )

    def view(self, agent: str) -> str:
        rows = [" ".join(self.board[r * 3 : r * 3 + 3]) + f"  {r + 1}" for r in range(3)]
        return "\n".join(["a b c", *rows])

    def legal_moves(self) -> list[str]:
        return [cell_name(i) for i, c in enumerate(self.board) if c == "."]

    def parse_move(self, text: str) -> str | None:
        matches = _MOVE.findall(text)
        if len(matches) != 1:
            return None  # none, or several different cells: ambiguous
        column, row, number = matches[0]
        if number:
            return cell_name(int(number) - 1)
        return column.lower() + row

    def apply(self, move: str) -> dict[str, float] | None:
        index = "abc".index(move[0]) + 3 * (int(move[1]) - 1)
        self.board = self.board[:index] + MARKS[self.agent_selection] + self.board[index + 1 :]
        won = winner(self.board)
        if won:
            return {a: (1.0 if MARKS[a] == won else -1.0) for a in self.agents}
        if "." not in self.board:
            return {a: 0.0 for a in self.agents}
        return None

    def value(self, agent: str) -> float | None:
        return 0.0  # perfect play draws

    def describe(self, agent: str, move: str) -> str:
        return f"{MARKS[agent]} played {move}."

    def minimax_move(self) -> str:
        mark = MARKS[self.agent_selection]
        following = "O" if mark == "X" else "X"
        sign = 1 if mark == "X" else -1
        scored = [
            (sign * _value(self.board[:i] + mark + self.board[i + 1 :], following), -i)
            for i, c in enumerate(self.board)
            if c == "."
        ]
        return cell_name(-max(scored)[1])
