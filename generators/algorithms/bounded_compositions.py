"""Bounded compositions: how many integer sequences with per-position bounds reach a sum, modulo a prime.

Efficient algorithm: a DP over positions and partial sums with prefix sums, O(positions x sum).
The test enumerates every sequence on the small levels. Levels grow the positions, the bounds
and the modulus.
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
class BoundedCompositionsKnobs(Knobs):
    positions: int = knob(5, low=2, high=100, help="length of the sequences")
    max_bound: int = knob(8, low=2, high=500, help="upper bounds are drawn up to this")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = BoundedCompositionsKnobs
LEVELS = {
    1: K(positions=3, max_bound=4, modulus=0),
    2: K(positions=4, max_bound=6, modulus=0),
    3: K(positions=5, max_bound=9, modulus=0),
    4: K(positions=7, max_bound=12, modulus=10007),
    5: K(positions=9, max_bound=18, modulus=100003),
    6: K(positions=12, max_bound=25, modulus=1000003),
    7: K(positions=16, max_bound=35, modulus=998244353),
    8: K(positions=21, max_bound=50, modulus=998244353),
    9: K(positions=27, max_bound=70, modulus=1000000007),
    10: K(positions=34, max_bound=100, modulus=1000000007),
}


def count_sequences(bounds: list[list[int]], total: int) -> int:
    """Sequences with lo_i <= a_i <= hi_i summing to ``total`` (exact)."""
    ways = [1] + [0] * total
    for lo, hi in bounds:
        prefix = [0]
        for w in ways:
            prefix.append(prefix[-1] + w)
        # ways'[s] = sum of ways[s - hi .. s - lo]
        ways = [
            prefix[max(0, s - lo + 1)] - prefix[max(0, s - hi)] if s >= lo else 0 for s in range(total + 1)
        ]
    return ways[total]


@family(
    "bounded_compositions",
    domain="algorithms",
    knobs=BoundedCompositionsKnobs,
    levels=LEVELS,
    description="Count integer sequences with per-position bounds and a fixed sum, modulo a prime.",
    verifier_kind="exact integer",
)
class BoundedCompositions(IntegerFamily):
    what = "the count"

    def build(self, knobs: BoundedCompositionsKnobs, rng: np.random.Generator) -> Instance:
        while True:
            bounds = []
            for _ in range(knobs.positions):
                lo = int(rng.integers(0, max(1, knobs.max_bound // 3) + 1))
                bounds.append([lo, int(rng.integers(lo + 1, knobs.max_bound + 1))])
            low, high = sum(b[0] for b in bounds), sum(b[1] for b in bounds)
            total = int(rng.integers(low + (high - low) // 4, high - (high - low) // 4 + 1))
            exact = count_sequences(bounds, total)
            if exact > 2:
                break
        limits = ", ".join(f"{lo} <= a{i + 1} <= {hi}" for i, (lo, hi) in enumerate(bounds))
        question = (
            f"How many sequences of integers (a1, ..., a{knobs.positions}) satisfy {limits} and "
            f"a1 + ... + a{knobs.positions} = {total}? {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        return Instance(
            question,
            answer,
            work=knobs.positions * (total + 1),
            data={"bounds": bounds, "total": total, "modulus": knobs.modulus},
            weak=answer if exact <= WEAK_BUDGET else None,  # lists the sequences by hand
            wrong=[reduce(exact - 1, knobs.modulus), reduce(exact + knobs.positions, knobs.modulus)],
        )
