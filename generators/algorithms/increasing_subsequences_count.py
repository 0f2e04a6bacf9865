"""Increasing subsequences: how many strictly increasing subsequences an array has, modulo a prime.

Efficient algorithm: a Fenwick tree of counts over the values, O(n log V). The test tries every
subsequence on the small levels. Levels grow the array and the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, int_list, modulus_clause, reduce
from palaestra.registry import family


@dataclass(frozen=True)
class IncreasingSubsequencesCountKnobs(Knobs):
    length: int = knob(10, low=3, high=1000, help="array length")
    max_value: int = knob(30, low=3, high=10**6, help="values are drawn from 1..max_value")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = IncreasingSubsequencesCountKnobs
LEVELS = {
    1: K(length=4, max_value=9, modulus=0),
    2: K(length=6, max_value=15, modulus=0),
    3: K(length=9, max_value=30, modulus=0),
    4: K(length=12, max_value=50, modulus=10007),
    5: K(length=17, max_value=80, modulus=100003),
    6: K(length=24, max_value=150, modulus=1000003),
    7: K(length=34, max_value=300, modulus=998244353),
    8: K(length=48, max_value=600, modulus=998244353),
    9: K(length=68, max_value=1000, modulus=1000000007),
    10: K(length=95, max_value=2000, modulus=1000000007),
}


def count_increasing(values: list[int]) -> tuple[int, int]:
    """Non-empty strictly increasing subsequences (exact); and the Fenwick steps."""
    size = max(values)
    tree = [0] * (size + 1)  # counts of subsequences ending at each value
    total = work = 0
    for v in values:
        ending, i = 1, v - 1  # v alone, or v after one ending below v
        while i > 0:
            ending, i, work = ending + tree[i], i - (i & -i), work + 1
        total += ending
        i = v
        while i <= size:
            tree[i], i, work = tree[i] + ending, i + (i & -i), work + 1
    return total, work


@family(
    "increasing_subsequences_count",
    domain="algorithms",
    knobs=IncreasingSubsequencesCountKnobs,
    levels=LEVELS,
    description="Count the strictly increasing subsequences of an array, modulo a prime.",
    verifier_kind="exact integer",
)
class IncreasingSubsequencesCount(IntegerFamily):
    what = "the count"

    def build(self, knobs: IncreasingSubsequencesCountKnobs, rng: np.random.Generator) -> Instance:
        values = int_list(rng.integers(1, knobs.max_value + 1, size=knobs.length))
        exact, work = count_increasing(values)
        question = (
            f"The array is: {' '.join(map(str, values))}\n\nHow many non-empty subsequences (choices of "
            "positions, kept in order) are strictly increasing? Choices of different positions count "
            f"separately even when their values are equal. {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        pairs = sum(a < b for i, a in enumerate(values) for b in values[i + 1 :])
        return Instance(
            question,
            answer,
            work=work,
            data={"values": values, "modulus": knobs.modulus},
            weak=answer
            if len(values) <= 4
            else reduce(len(values) + pairs, knobs.modulus),  # lengths 1-2 only
            wrong=[reduce(len(values) + pairs, knobs.modulus), reduce(exact - 1, knobs.modulus)],
        )
