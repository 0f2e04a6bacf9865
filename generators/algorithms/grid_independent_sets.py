"""Independent sets in a grid: how many sets of open cells contain no two side-adjacent cells,
modulo a prime (the empty set included).

Efficient algorithm: a row-by-row transfer DP over the valid row masks, O(rows x masks^2). The test
tries every set of cells on the small levels. Levels grow the grid and the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, modulus_clause, reduce
from palaestra.registry import family


@dataclass(frozen=True)
class GridIndependentSetsKnobs(Knobs):
    rows: int = knob(5, low=2, high=80, help="largest number of rows (drawn from one less up)")
    cols: int = knob(4, low=2, high=8, help="largest number of columns (drawn from one less up)")
    blocked: float = knob(0.2, low=0.0, high=0.5, help="share of blocked cells")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = GridIndependentSetsKnobs
LEVELS = {
    1: K(rows=2, cols=3, blocked=0.2, modulus=0),
    2: K(rows=3, cols=4, blocked=0.25, modulus=0),
    3: K(rows=5, cols=5, blocked=0.3, modulus=0),
    4: K(rows=7, cols=5, blocked=0.3, modulus=10007),
    5: K(rows=9, cols=6, blocked=0.25, modulus=100003),
    6: K(rows=13, cols=6, blocked=0.25, modulus=1000003),
    7: K(rows=18, cols=7, blocked=0.2, modulus=998244353),
    8: K(rows=24, cols=7, blocked=0.2, modulus=998244353),
    9: K(rows=32, cols=8, blocked=0.2, modulus=1000000007),
    10: K(rows=40, cols=8, blocked=0.2, modulus=1000000007),
}


def count_sets(grid: list[str]) -> tuple[int, int]:
    """Independent sets of the open cells (exact); and the transitions."""
    width = len(grid[0])
    masks = [m for m in range(1 << width) if not m & (m >> 1)]  # no two neighbours in a row
    ways = {0: 1}
    work = 0
    for row in grid:
        open_mask = sum(1 << c for c, cell in enumerate(row) if cell == ".")
        nxt: dict[int, int] = {}
        for m in masks:
            if m & ~open_mask:
                continue
            total = 0
            for previous, w in ways.items():
                work += 1
                if not previous & m:
                    total += w
            if total:
                nxt[m] = total
        ways = nxt
    return sum(ways.values()), work


@family(
    "grid_independent_sets",
    domain="algorithms",
    knobs=GridIndependentSetsKnobs,
    levels=LEVELS,
    description="Count the sets of grid cells with no two side-adjacent (independent sets), modulo a prime.",
    verifier_kind="exact integer",
)
class GridIndependentSets(IntegerFamily):
    what = "the count"

    def build(self, knobs: GridIndependentSetsKnobs, rng: np.random.Generator) -> Instance:
        rows = int(rng.integers(max(2, knobs.rows - 1), knobs.rows + 1))
        cols = int(rng.integers(max(2, knobs.cols - 1), knobs.cols + 1))
        cells = rng.random((rows, cols)) < knobs.blocked
        grid = ["".join("#" if b else "." for b in row) for row in cells]
        exact, work = count_sets(grid)
        open_cells = sum(row.count(".") for row in grid)
        question = (
            f"A grid has {rows} rows and {cols} columns ('.' open, '#' blocked):\n" + "\n".join(grid) + "\n\n"
            "How many sets of open cells contain no two cells that share a side? The empty set counts. "
            f"{modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        return Instance(
            question,
            answer,
            work=work,
            data={"grid": grid, "modulus": knobs.modulus},
            weak=answer if open_cells <= 5 else None,  # lists the sets by hand
            wrong=[reduce(2**open_cells, knobs.modulus), reduce(exact - 1, knobs.modulus)],
        )
