"""Cheapest grid path: the smallest cost of a right/down path across a grid of cell costs.

Efficient algorithm: the DP over cells, O(rows x cols). The test walks every path on the small
levels. Levels grow the grid and the costs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class GridMinPathKnobs(Knobs):
    rows: int = knob(5, low=2, high=60, help="grid rows")
    cols: int = knob(5, low=2, high=60, help="grid columns")
    max_cost: int = knob(9, low=1, high=999, help="cell costs are drawn from 1..max_cost")


K = GridMinPathKnobs
LEVELS = {
    1: K(rows=2, cols=3, max_cost=9),
    2: K(rows=3, cols=3, max_cost=9),
    3: K(rows=4, cols=5, max_cost=20),
    4: K(rows=5, cols=6, max_cost=30),
    5: K(rows=6, cols=7, max_cost=50),
    6: K(rows=8, cols=8, max_cost=70),
    7: K(rows=9, cols=10, max_cost=99),
    8: K(rows=11, cols=12, max_cost=99),
    9: K(rows=13, cols=14, max_cost=99),
    10: K(rows=15, cols=16, max_cost=99),
}


def cheapest(grid: list[list[int]]) -> int:
    cols = len(grid[0])
    best = [0] * cols
    for r, row in enumerate(grid):
        for c, cost in enumerate(row):
            if r == 0 and c == 0:
                best[c] = cost
            elif r == 0:
                best[c] = best[c - 1] + cost
            elif c == 0:
                best[c] += cost
            else:
                best[c] = min(best[c], best[c - 1]) + cost
    return best[-1]


def greedy(grid: list[list[int]]) -> int:
    """Step to the cheaper of the two next cells (the weak heuristic)."""
    r = c = 0
    total = grid[0][0]
    rows, cols = len(grid), len(grid[0])
    while (r, c) != (rows - 1, cols - 1):
        down = grid[r + 1][c] if r + 1 < rows else None
        right = grid[r][c + 1] if c + 1 < cols else None
        if right is None or (down is not None and down < right):
            r += 1
        else:
            c += 1
        total += grid[r][c]
    return total


@family(
    "grid_min_path",
    domain="algorithms",
    knobs=GridMinPathKnobs,
    levels=LEVELS,
    description="The cheapest right/down path across a grid of cell costs.",
    verifier_kind="exact integer (the optimum)",
)
class GridMinPath(IntegerFamily):
    what = "the smallest total cost"

    def build(self, knobs: GridMinPathKnobs, rng: np.random.Generator) -> Instance:
        grid = [
            [int(v) for v in row]
            for row in rng.integers(1, knobs.max_cost + 1, size=(knobs.rows, knobs.cols))
        ]
        best = cheapest(grid)
        shown = "\n".join(" ".join(f"{v:>2}" for v in row) for row in grid)
        question = (
            f"A grid of cell costs ({knobs.rows} rows, {knobs.cols} columns):\n{shown}\n\nA path starts at the "
            "top-left cell, ends at the bottom-right cell and moves one cell right or down at each step. Its "
            "cost is the sum of the costs of all cells it visits, both ends included. What is the smallest cost?"
        )
        guess = greedy(grid)
        return Instance(
            question,
            best,
            work=knobs.rows * knobs.cols,
            data={"grid": grid},
            weak=guess,
            wrong=[guess, best + 1, best - grid[0][0]],
        )
