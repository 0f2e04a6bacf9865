"""Lattice paths: count the right/down paths across a grid with blocked cells, modulo a prime.

Efficient algorithm: the path-count DP over the cells, O(rows x cols). The test re-counts by
walking every path on the small levels. Levels grow the grid and the modulus.
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
class LatticePathsBlockedKnobs(Knobs):
    rows: int = knob(6, low=2, high=80, help="grid rows")
    cols: int = knob(6, low=2, high=80, help="grid columns")
    blocked: float = knob(0.2, low=0.0, high=0.45, help="share of blocked cells")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = LatticePathsBlockedKnobs
LEVELS = {
    1: K(rows=3, cols=4, blocked=0.15, modulus=0),
    2: K(rows=4, cols=5, blocked=0.2, modulus=0),
    3: K(rows=6, cols=6, blocked=0.2, modulus=0),
    4: K(rows=8, cols=8, blocked=0.2, modulus=10007),
    5: K(rows=10, cols=11, blocked=0.22, modulus=100003),
    6: K(rows=13, cols=14, blocked=0.22, modulus=1000003),
    7: K(rows=17, cols=18, blocked=0.24, modulus=998244353),
    8: K(rows=22, cols=24, blocked=0.24, modulus=998244353),
    9: K(rows=30, cols=32, blocked=0.25, modulus=1000000007),
    10: K(rows=40, cols=44, blocked=0.25, modulus=1000000007),
}


def count_paths(grid: list[str]) -> int:
    """Paths from the top-left to the bottom-right cell moving right or down over open cells."""
    cols = len(grid[0])
    ways = [0] * cols
    ways[0] = 1
    for row in grid:
        for c, cell in enumerate(row):
            if cell == "#":
                ways[c] = 0
            elif c:
                ways[c] += ways[c - 1]
    return ways[-1]


MAX_GRIDS = 2_000  # grids drawn before the blocked share counts as leaving no path (0.45 on 80 x 80)


def draw_grid(knobs: LatticePathsBlockedKnobs, rng: np.random.Generator) -> list[str]:
    for _ in range(MAX_GRIDS):
        cells = rng.random((knobs.rows, knobs.cols)) < knobs.blocked
        cells[0, 0] = cells[-1, -1] = False
        grid = ["".join("#" if b else "." for b in row) for row in cells]
        if count_paths(grid) > 1:
            return grid
    raise GenerationError(
        f"lattice_paths_blocked: no {knobs.rows} x {knobs.cols} grid with more than one path in {MAX_GRIDS} "
        f"draws: lower 'blocked' ({knobs.blocked})"
    )


@family(
    "lattice_paths_blocked",
    domain="algorithms",
    knobs=LatticePathsBlockedKnobs,
    levels=LEVELS,
    description="Count right/down lattice paths across a grid with blocked cells, modulo a prime.",
    verifier_kind="exact integer",
)
class LatticePathsBlocked(IntegerFamily):
    what = "the count"

    def build(self, knobs: LatticePathsBlockedKnobs, rng: np.random.Generator) -> Instance:
        grid = draw_grid(knobs, rng)
        exact = count_paths(grid)
        question = (
            f"A grid has {knobs.rows} rows and {knobs.cols} columns ('.' open, '#' blocked):\n"
            + "\n".join(grid)
            + "\n\nA path starts at the top-left cell, ends at the bottom-right cell, moves one cell "
            "right or one cell down at each step and never enters a blocked cell. How many such "
            f"paths are there? {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        return Instance(
            question,
            answer,
            work=knobs.rows * knobs.cols,
            data={"grid": grid, "modulus": knobs.modulus},
            weak=answer if exact <= WEAK_BUDGET else None,  # listing the paths by hand
            wrong=[reduce(exact - 1, knobs.modulus), reduce(exact * 2, knobs.modulus)],
        )
