"""Nim and its variants: normal play, misère play, and a cap on how many one may take.

Perfect play is known in closed form (Sprague-Grundy): with a take cap ``k`` a pile of ``n``
has Grundy value ``n mod (k + 1)``; the position is lost for the player to move when the XOR
of the pile values is 0 (misère Nim differs only when every pile has at most one object).
"""

from __future__ import annotations

import re
from functools import reduce

import numpy as np

from palaestra.envs.games.base import TurnGame

_MOVE = re.compile(r"(?i)\b(?:take\s+)?(\d+)\s*(?:from|of|at)?\s*(?:pile\s*)?([A-Z])\b")

# level -> (number of piles, largest pile, take cap or 0 for none, misère)
LEVEL_SETUPS = {
    1: (2, 3, 0, False),
    2: (2, 5, 0, False),
    3: (3, 5, 0, False),
    4: (3, 7, 3, False),
    5: (3, 9, 0, True),
    6: (4, 9, 4, False),
    7: (4, 12, 0, True),
    8: (5, 12, 5, False),
    9: (5, 15, 0, True),
    10: (6, 20, 6, False),
}


class Nim(TurnGame):
    """Take objects from one pile per turn; by default whoever takes the last object wins."""

    name = "nim"
    possible_agents = ["player_0", "player_1"]

    def new_game(self, rng: np.random.Generator, level: int) -> None:
        count, largest, self.cap, self.misere = LEVEL_SETUPS[level]
        assert not (self.cap and self.misere), "misère play is only solved here without a take cap"
        self.piles = [int(x) for x in rng.integers(1, largest + 1, size=count)]
        self.start = list(self.piles)

    def _label(self, i: int) -> str:
        return "ABCDEFGH"[i]

    def rules(self, agent: str) -> str:
        take = f"1 to {self.cap} objects" if self.cap else "one or more objects"
        last = "loses" if self.misere else "wins"
        order = "first" if agent == "player_0" else "second"
        return (
            f"Nim. You move {order}. On your turn take {take} from a single pile. Whoever takes the last object "
            f"{last} (win 1, loss -1). Write a move as 'take N from X', for example 'take 2 from A'."
        )

    def view(self, agent: str) -> str:
        return "Piles: " + ", ".join(f"{self._label(i)}={n}" for i, n in enumerate(self.piles))

    def legal_moves(self) -> list[str]:
        moves = []
        for i, n in enumerate(self.piles):
            top = min(n, self.cap) if self.cap else n
            moves += [f"take {k} from {self._label(i)}" for k in range(1, top + 1)]
        return moves

    def parse_move(self, text: str) -> str | None:
        found = {(int(k), pile.upper()) for k, pile in _MOVE.findall(text)}
        if len(found) != 1:
            return None
        k, pile = found.pop()
        return f"take {k} from {pile}"

    def _split(self, move: str) -> tuple[int, int]:
        _, k, _, pile = move.split()
        return int(k), "ABCDEFGH".index(pile)

    def apply(self, move: str) -> dict[str, float] | None:
        k, i = self._split(move)
        self.piles[i] -= k
        if sum(self.piles):
            return None
        mover = self.agent_selection
        winner_is_mover = not self.misere
        return {a: (1.0 if (a == mover) == winner_is_mover else -1.0) for a in self.agents}

    def describe(self, agent: str, move: str) -> str:
        return f"Your opponent took {self._split(move)[0]} from pile {move[-1]}."

    def _losing(self, piles: list[int]) -> bool:
        """Is the player to move lost under perfect play?"""
        grundy = [n % (self.cap + 1) if self.cap else n for n in piles]
        nim_sum = reduce(lambda a, b: a ^ b, grundy, 0)
        if self.misere and all(n <= 1 for n in piles):
            return sum(piles) % 2 == 1  # odd number of single objects: you take the last one
        return nim_sum == 0

    def minimax_move(self) -> str:
        moves = self.legal_moves()
        for move in moves:
            k, i = self._split(move)
            after = self.piles.copy()
            after[i] -= k
            if sum(after) == 0:
                if not self.misere:
                    return move
                continue
            if self._losing(after):
                return move
        # lost position: take one object from the largest pile and hope for a mistake
        largest = max(range(len(self.piles)), key=lambda j: self.piles[j])
        return f"take 1 from {self._label(largest)}"

    def value(self, agent: str) -> float | None:
        first_wins = not self._losing(self.start)
        return 1.0 if (agent == "player_0") == first_wins else -1.0
