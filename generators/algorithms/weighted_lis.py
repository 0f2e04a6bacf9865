"""Heaviest increasing subsequence: the largest sum of a strictly increasing subsequence.

Efficient algorithm: a DP with a Fenwick tree of prefix maxima over the values, O(n log V).
The test tries every subsequence on the small levels. Levels grow the array and its values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, int_list
from palaestra.registry import family


@dataclass(frozen=True)
class WeightedLisKnobs(Knobs):
    length: int = knob(12, low=4, high=400, help="array length")
    max_value: int = knob(50, low=5, high=10**6, help="values are drawn from 1..max_value")


K = WeightedLisKnobs
LEVELS = {
    1: K(length=5, max_value=12),
    2: K(length=7, max_value=20),
    3: K(length=10, max_value=40),
    4: K(length=13, max_value=60),
    5: K(length=17, max_value=100),
    6: K(length=24, max_value=200),
    7: K(length=34, max_value=400),
    8: K(length=48, max_value=800),
    9: K(length=66, max_value=1500),
    10: K(length=90, max_value=3000),
}


def heaviest_increasing(values: list[int]) -> tuple[int, int]:
    """Largest sum of a strictly increasing subsequence; and the Fenwick steps taken."""
    size = max(values)
    tree = [0] * (size + 1)  # tree over values: best sum of a subsequence ending at a value <= v
    work = 0
    for v in values:
        best, i = 0, v - 1
        while i > 0:  # best over values < v
            best, i, work = max(best, tree[i]), i - (i & -i), work + 1
        total, i = best + v, v
        while i <= size:
            tree[i], i, work = max(tree[i], total), i + (i & -i), work + 1
    best, i = 0, size
    while i > 0:
        best, i = max(best, tree[i]), i - (i & -i)
    return best, work


def greedy(values: list[int]) -> int:
    """Take every value larger than the last one taken (the weak solver's heuristic)."""
    total, last = 0, 0
    for v in values:
        if v > last:
            total, last = total + v, v
    return total


@family(
    "weighted_lis",
    domain="algorithms",
    knobs=WeightedLisKnobs,
    levels=LEVELS,
    description="The largest sum of a strictly increasing subsequence of an array.",
    verifier_kind="exact integer (the optimum)",
)
class WeightedLis(IntegerFamily):
    what = "the largest sum"

    def build(self, knobs: WeightedLisKnobs, rng: np.random.Generator) -> Instance:
        values = int_list(rng.integers(1, knobs.max_value + 1, size=knobs.length))
        best, work = heaviest_increasing(values)
        question = (
            f"The sequence is: {' '.join(map(str, values))}\n\nChoose a subsequence (keep some "
            "elements in their order) whose elements are strictly increasing, making the sum of the "
            "chosen elements as large as possible. What is that largest sum?"
        )
        return Instance(
            question,
            best,
            work=work,
            data={"values": values},
            weak=greedy(values),
            wrong=[max(values), greedy(values), best - 1],
        )
