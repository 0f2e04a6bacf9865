"""Two-constraint knapsack: the most value from items under both a weight and a volume limit.

Efficient algorithm: the DP over (weight, volume) budgets, O(items x W x V). The test tries every
subset on the small levels. Levels grow the items and the budgets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class TwoConstraintKnapsackKnobs(Knobs):
    items: int = knob(8, low=2, high=60, help="number of items")
    max_size: int = knob(10, low=2, high=50, help="weights and volumes are drawn from 1..max_size")


K = TwoConstraintKnapsackKnobs
LEVELS = {
    1: K(items=3, max_size=5),
    2: K(items=5, max_size=6),
    3: K(items=7, max_size=8),
    4: K(items=9, max_size=9),
    5: K(items=11, max_size=10),
    6: K(items=13, max_size=11),
    7: K(items=15, max_size=12),
    8: K(items=18, max_size=13),
    9: K(items=21, max_size=14),
    10: K(items=24, max_size=15),
}


def best_value(items: list[list[int]], weight_cap: int, volume_cap: int) -> tuple[int, int]:
    """Items are [weight, volume, value]; the optimum and the DP cells updated."""
    best = [[0] * (volume_cap + 1) for _ in range(weight_cap + 1)]
    work = 0
    for w, v, value in items:
        for a in range(weight_cap, w - 1, -1):
            row, source = best[a], best[a - w]
            for b in range(volume_cap, v - 1, -1):
                if source[b - v] + value > row[b]:
                    row[b] = source[b - v] + value
            work += volume_cap - v + 1
    return best[weight_cap][volume_cap], work


def greedy(items: list[list[int]], weight_cap: int, volume_cap: int) -> int:
    """Best value per unit of weight plus volume first, while it fits (the weak heuristic)."""
    total, w_left, v_left = 0, weight_cap, volume_cap
    for w, v, value in sorted(items, key=lambda t: (-t[2] / (t[0] + t[1]), t[0])):
        if w <= w_left and v <= v_left:
            total, w_left, v_left = total + value, w_left - w, v_left - v
    return total


@family(
    "two_constraint_knapsack",
    domain="algorithms",
    knobs=TwoConstraintKnapsackKnobs,
    levels=LEVELS,
    description="0/1 knapsack with a weight and a volume limit: the largest total value.",
    verifier_kind="exact integer (the optimum)",
)
class TwoConstraintKnapsack(IntegerFamily):
    what = "the largest total value"

    def build(self, knobs: TwoConstraintKnapsackKnobs, rng: np.random.Generator) -> Instance:
        n, size = knobs.items, knobs.max_size
        items = [
            [
                int(rng.integers(1, size + 1)),
                int(rng.integers(1, size + 1)),
                int(rng.integers(1, 10 * size + 1)),
            ]
            for _ in range(n)
        ]
        weight_cap = max(1, sum(t[0] for t in items) * int(rng.integers(30, 60)) // 100)
        volume_cap = max(1, sum(t[1] for t in items) * int(rng.integers(30, 60)) // 100)
        best, work = best_value(items, weight_cap, volume_cap)
        listing = "\n".join(
            f"item {i + 1}: weight {w}, volume {v}, value {val}" for i, (w, v, val) in enumerate(items)
        )
        question = (
            f"Items (each can be taken at most once):\n{listing}\n\nThe total weight may be at most {weight_cap} "
            f"and the total volume at most {volume_cap}. What is the largest total value that can be taken?"
        )
        guess = greedy(items, weight_cap, volume_cap)
        return Instance(
            question,
            best,
            work=work + n,
            data={"items": items, "weight_cap": weight_cap, "volume_cap": volume_cap},
            weak=guess,
            wrong=[guess, best + 1, best - 1],
        )
