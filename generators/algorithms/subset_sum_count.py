"""Subset-sum counting: how many subsets of numbered items reach an exact total, modulo a prime.

Efficient algorithm: the knapsack counting DP over totals, O(items x target). The test counts
every subset on the small levels. Levels grow the items, their sizes and the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import (
    WEAK_BUDGET,
    Instance,
    IntegerFamily,
    int_list,
    modulus_clause,
    reduce,
)
from palaestra.registry import family


@dataclass(frozen=True)
class SubsetSumCountKnobs(Knobs):
    items: int = knob(10, low=3, high=80, help="number of items")
    max_value: int = knob(20, low=3, high=1000, help="largest item value")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = SubsetSumCountKnobs
LEVELS = {
    1: K(items=5, max_value=6, modulus=0),
    2: K(items=7, max_value=9, modulus=0),
    3: K(items=10, max_value=15, modulus=0),
    4: K(items=14, max_value=20, modulus=10007),
    5: K(items=18, max_value=30, modulus=100003),
    6: K(items=24, max_value=40, modulus=1000003),
    7: K(items=30, max_value=60, modulus=998244353),
    8: K(items=38, max_value=80, modulus=998244353),
    9: K(items=46, max_value=100, modulus=1000000007),
    10: K(items=56, max_value=120, modulus=1000000007),
}


def count_subsets(values: list[int], target: int) -> int:
    """Subsets (of positions) of ``values`` whose sum is ``target``."""
    ways = [1] + [0] * target
    for v in values:
        for total in range(target, v - 1, -1):
            ways[total] += ways[total - v]
    return ways[target]


@family(
    "subset_sum_count",
    domain="algorithms",
    knobs=SubsetSumCountKnobs,
    levels=LEVELS,
    description="Count the subsets of numbered items whose values sum to a target, modulo a prime.",
    verifier_kind="exact integer",
)
class SubsetSumCount(IntegerFamily):
    what = "the count"

    def build(self, knobs: SubsetSumCountKnobs, rng: np.random.Generator) -> Instance:
        while True:
            values = int_list(rng.integers(1, knobs.max_value + 1, size=knobs.items))
            target = int(rng.integers(sum(values) // 4, sum(values) // 2 + 1))
            exact = count_subsets(values, target)
            if exact > 1:
                break
        listing = ", ".join(f"item {i + 1}: {v}" for i, v in enumerate(values))
        question = (
            f"There are {knobs.items} items with these values ({listing}). Items with equal values "
            f"are still different items. How many subsets of the items have values summing to exactly "
            f"{target}? {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        return Instance(
            question,
            answer,
            work=knobs.items * target,
            data={"values": values, "target": target, "modulus": knobs.modulus},
            weak=answer if 2**knobs.items <= WEAK_BUDGET else None,  # tries every subset by hand
            wrong=[reduce(exact - 1, knobs.modulus), reduce(len(set(values)), knobs.modulus)],
        )
