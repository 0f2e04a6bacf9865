"""Rod cutting: the best revenue from cutting a rod into pieces with listed prices.

Efficient algorithm: the unbounded-knapsack DP over lengths, O(n^2). The test tries every way to
cut the rod (every composition of its length) on the small levels. Levels grow the rod.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class RodCuttingKnobs(Knobs):
    length: int = knob(10, low=2, high=300, help="rod length")
    noise: float = knob(0.5, low=0.0, high=2.0, help="how far prices stray from proportional to length")


K = RodCuttingKnobs
LEVELS = {
    1: K(length=4, noise=0.6),
    2: K(length=6, noise=0.6),
    3: K(length=8, noise=0.6),
    4: K(length=11, noise=0.6),
    5: K(length=14, noise=0.6),
    6: K(length=20, noise=0.6),
    7: K(length=28, noise=0.6),
    8: K(length=40, noise=0.6),
    9: K(length=56, noise=0.6),
    10: K(length=80, noise=0.6),
}


def best_revenue(prices: list[int], length: int) -> int:
    """``prices[i]`` is the price of a piece of length i + 1."""
    best = [0] * (length + 1)
    for total in range(1, length + 1):
        best[total] = max(prices[piece - 1] + best[total - piece] for piece in range(1, total + 1))
    return best[length]


def greedy(prices: list[int], length: int) -> int:
    """Cut the best price-per-length piece that fits, again and again (the weak heuristic)."""
    revenue, left = 0, length
    while left:
        piece = max(range(1, left + 1), key=lambda p: (prices[p - 1] / p, p))
        revenue, left = revenue + prices[piece - 1], left - piece
    return revenue


@family(
    "rod_cutting",
    domain="algorithms",
    knobs=RodCuttingKnobs,
    levels=LEVELS,
    description="Rod cutting: the largest revenue from cutting a rod into priced pieces.",
    verifier_kind="exact integer (the optimum)",
)
class RodCutting(IntegerFamily):
    what = "the largest revenue"

    def build(self, knobs: RodCuttingKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.length
        unit = int(rng.integers(3, 12))
        prices = [
            max(1, round(unit * p * (1 + knobs.noise * (float(rng.random()) - 0.5)))) for p in range(1, n + 1)
        ]
        best = best_revenue(prices, n)
        listing = ", ".join(f"length {p}: {prices[p - 1]}" for p in range(1, n + 1))
        question = (
            f"A rod of length {n} may be cut into pieces of whole lengths; a piece sells at its price "
            f"({listing}). What is the largest total price the pieces of the rod can fetch?"
        )
        return Instance(
            question,
            best,
            work=n * (n + 1) // 2,
            data={"prices": prices},
            weak=greedy(prices, n),
            wrong=[prices[-1], greedy(prices, n), best - 1],
        )
