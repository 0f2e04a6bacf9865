"""Constrained Dyck paths: up/down paths that stay within a height band and avoid marked points.

Efficient algorithm: a DP over steps and heights, O(steps x height). The test walks every path
recursively on the small levels. Levels grow the path, loosen the ceiling, add marked points
and raise the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import (
    WEAK_BUDGET,
    Instance,
    IntegerFamily,
    modulus_clause,
    reduce,
)
from palaestra.registry import family


@dataclass(frozen=True)
class DyckPathsConstrainedKnobs(Knobs):
    pairs: int = knob(6, low=2, high=300, help="the path has 2 x pairs steps")
    forbidden: int = knob(2, low=0, high=40, help="marked points the path must avoid")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = DyckPathsConstrainedKnobs
LEVELS = {
    1: K(pairs=3, forbidden=1, modulus=0),
    2: K(pairs=5, forbidden=2, modulus=0),
    3: K(pairs=8, forbidden=4, modulus=0),
    4: K(pairs=10, forbidden=5, modulus=10007),
    5: K(pairs=13, forbidden=6, modulus=100003),
    6: K(pairs=16, forbidden=7, modulus=1000003),
    7: K(pairs=21, forbidden=8, modulus=998244353),
    8: K(pairs=28, forbidden=9, modulus=998244353),
    9: K(pairs=38, forbidden=11, modulus=1000000007),
    10: K(pairs=50, forbidden=13, modulus=1000000007),
}


def count_paths(pairs: int, ceiling: int, forbidden: set[tuple[int, int]]) -> int:
    """Paths from (0, 0) to (2 pairs, 0) with steps +-1, heights in [0, ceiling], no forbidden point."""
    ways = {0: 1}
    for step in range(1, 2 * pairs + 1):
        nxt: dict[int, int] = {}
        for height, w in ways.items():
            for h in (height - 1, height + 1):
                if 0 <= h <= ceiling and (step, h) not in forbidden:
                    nxt[h] = nxt.get(h, 0) + w
        ways = nxt
    return ways.get(0, 0)


@family(
    "dyck_paths_constrained",
    domain="algorithms",
    knobs=DyckPathsConstrainedKnobs,
    levels=LEVELS,
    description="Count Dyck paths below a ceiling that avoid marked points, modulo a prime.",
    verifier_kind="exact integer",
)
class DyckPathsConstrained(IntegerFamily):
    what = "the count"

    def build(self, knobs: DyckPathsConstrainedKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.pairs
        while True:
            ceiling = int(rng.integers(max(2, n // 3), n + 1))
            points: set[tuple[int, int]] = set()
            while len(points) < knobs.forbidden:
                step = int(rng.integers(1, 2 * n))
                height = int(rng.integers(0, min(step, 2 * n - step, ceiling) + 1))
                if (step + height) % 2 == 0:  # only points a path can reach
                    points.add((step, height))
            forbidden = sorted(points)
            exact = count_paths(n, ceiling, points)
            if exact > 1:
                break
        marked = "; ".join(f"({s}, {h})" for s, h in forbidden) or "none"
        question = (
            f"A path starts at (0, 0) and takes {2 * n} steps; step i goes from x = i - 1 to x = i and "
            f"changes the height y by +1 or -1. It must end at ({2 * n}, 0), never go below y = 0 or "
            f"above y = {ceiling}, and never visit any of these points (x, y): {marked}. How many such "
            f"paths are there? {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        free = count_paths(n, ceiling, set())
        return Instance(
            question,
            answer,
            work=2 * n * (ceiling + 1),
            data={
                "pairs": n,
                "ceiling": ceiling,
                "forbidden": [list(p) for p in forbidden],
                "modulus": knobs.modulus,
            },
            weak=answer if exact <= WEAK_BUDGET else None,  # draws the paths by hand
            wrong=[reduce(free, knobs.modulus), reduce(exact + 1, knobs.modulus)],
        )
