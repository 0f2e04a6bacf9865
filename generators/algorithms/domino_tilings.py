"""Domino tilings: how many ways dominoes cover the open cells of a board, modulo a prime.

Efficient algorithm: the broken-profile DP over cells with a bitmask of the board's height,
O(cells x 2^height). The test tiles by recursive search (first empty cell, both orientations) on
the small levels. Levels grow the board and the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import GenerationError, Knobs, knob
from palaestra.generators.algorithms.shared import (
    WEAK_BUDGET,
    Instance,
    IntegerFamily,
    modulus_clause,
    reduce,
)
from palaestra.registry import family


@dataclass(frozen=True)
class DominoTilingsKnobs(Knobs):
    height: int = knob(4, low=2, high=8, help="board height")
    width: int = knob(8, low=2, high=100, help="largest board width (drawn from three quarters of it up)")
    blocked: float = knob(0.12, low=0.0, high=0.4, help="share of blocked cells (exactly that many, rounded)")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


# DP transitions spent on redrawn boards before giving up: the levels stay far below it (level 10's
# worst of 400 seeds drew 315 boards, about 3M transitions); a blocked share that leaves almost no
# tileable board (0.4 on 8 x 100 never finished in 120 s) is refused instead of searched forever
WORK_BUDGET = 20_000_000
MAX_BOARDS = 20_000  # boards drawn before giving up (most dense ones fail the cheap check: could_tile)

K = DominoTilingsKnobs
LEVELS = {
    1: K(height=2, width=4, blocked=0.0, modulus=0),
    2: K(height=3, width=6, blocked=0.1, modulus=0),
    3: K(height=4, width=10, blocked=0.18, modulus=0),
    4: K(height=4, width=14, blocked=0.18, modulus=10007),
    5: K(height=5, width=16, blocked=0.15, modulus=100003),
    6: K(height=5, width=22, blocked=0.12, modulus=1000003),
    7: K(height=6, width=28, blocked=0.12, modulus=998244353),
    8: K(height=6, width=36, blocked=0.12, modulus=998244353),
    9: K(height=6, width=42, blocked=0.1, modulus=1000000007),
    10: K(height=6, width=50, blocked=0.1, modulus=1000000007),
}


def could_tile(board: list[str]) -> bool:
    """False when the open cells certainly have no tiling: a domino covers one cell of each
    chessboard colour, so the colours must balance, and every open cell needs an open neighbour."""
    height, width = len(board), len(board[0])
    balance = 0
    for r in range(height):
        for c in range(width):
            if board[r][c] != ".":
                continue
            balance += 1 if (r + c) % 2 else -1
            neighbours = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if not any(0 <= y < height and 0 <= x < width and board[y][x] == "." for y, x in neighbours):
                return False
    return balance == 0


def count_tilings(board: list[str]) -> tuple[int, int]:
    """Domino tilings of the '.' cells (exact); and the DP transitions. Cells go column by column;
    bit r of the mask says that cell (r, c) is already covered when column c is reached."""
    height, width = len(board), len(board[0])
    ways = {0: 1}
    work = 0
    for c in range(width):
        for r in range(height):
            nxt: dict[int, int] = {}
            for mask, w in ways.items():
                work += 1
                bit = 1 << r
                if mask & bit:  # covered from the left
                    if board[r][c] == "#":
                        continue
                    states = [mask & ~bit]
                elif board[r][c] == "#":
                    states = [mask]
                else:
                    states = []
                    if c + 1 < width and board[r][c + 1] == ".":
                        states.append(mask | bit)  # horizontal: covers (r, c+1) next column
                    if r + 1 < height and board[r + 1][c] == "." and not mask & (bit << 1):
                        states.append(mask | (bit << 1))  # vertical: (r+1, c) is now covered
                for s in states:
                    nxt[s] = nxt.get(s, 0) + w
            ways = nxt
    return ways.get(0, 0), work


@family(
    "domino_tilings",
    domain="algorithms",
    knobs=DominoTilingsKnobs,
    levels=LEVELS,
    description="Count the domino tilings of a board with blocked cells, modulo a prime.",
    verifier_kind="exact integer",
)
class DominoTilings(IntegerFamily):
    what = "the count"

    def build(self, knobs: DominoTilingsKnobs, rng: np.random.Generator) -> Instance:
        spent = boards = 0
        while True:
            height = knobs.height
            width = int(rng.integers(max(2, 3 * knobs.width // 4), knobs.width + 1))
            count = round(knobs.blocked * height * width)  # exactly this many blocked cells
            blocked = (
                set(int(i) for i in rng.choice(height * width, size=count, replace=False)) if count else set()
            )
            board = [
                "".join("#" if r * width + c in blocked else "." for c in range(width)) for r in range(height)
            ]
            boards += 1
            if could_tile(board):  # else no tiling at all, seen without the DP: draw again
                exact, work = count_tilings(board)
                if exact > 1:
                    break
                spent += work
            if spent > WORK_BUDGET or boards > MAX_BOARDS:
                raise GenerationError(
                    f"domino_tilings: no board with more than one tiling within the search budget: "
                    f"lower 'blocked' ({knobs.blocked}) or change 'height'/'width'"
                )
        question = (
            f"A board has {height} rows and {width} columns ('.' open, '#' blocked):\n"
            + "\n".join(board)
            + "\n\n"
            "In how many ways can the open cells be covered by dominoes (each covering two open cells that "
            f"share a side), with every open cell covered exactly once? {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        return Instance(
            question,
            answer,
            work=work,
            data={"board": board, "modulus": knobs.modulus},
            weak=answer if exact <= WEAK_BUDGET // 4 else None,  # draws the tilings by hand
            wrong=[reduce(exact - 1, knobs.modulus), reduce(exact * 2, knobs.modulus)],
        )
