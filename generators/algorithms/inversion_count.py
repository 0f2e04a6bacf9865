"""Inversions: count the pairs i < j with a[i] > a[j] in an array of integers.

Efficient algorithm: merge sort counting, O(n log n). The test counts all pairs directly on
every level. Levels grow the array and the range of its values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, int_list
from palaestra.registry import family


@dataclass(frozen=True)
class InversionCountKnobs(Knobs):
    length: int = knob(12, low=4, high=400, help="array length")
    max_value: int = knob(50, low=2, high=10**6, help="values are drawn from 1..max_value")


K = InversionCountKnobs
LEVELS = {
    1: K(length=5, max_value=9),
    2: K(length=8, max_value=20),
    3: K(length=12, max_value=50),
    4: K(length=18, max_value=100),
    5: K(length=26, max_value=200),
    6: K(length=36, max_value=500),
    7: K(length=50, max_value=1000),
    8: K(length=70, max_value=2000),
    9: K(length=95, max_value=5000),
    10: K(length=130, max_value=10000),
}


def inversions(values: list[int]) -> tuple[int, int]:
    """Inversions of ``values`` by merge sort; and the comparisons made."""
    work = 0

    def sort(items: list[int]) -> tuple[list[int], int]:
        nonlocal work
        if len(items) <= 1:
            return items, 0
        mid = len(items) // 2
        left, a = sort(items[:mid])
        right, b = sort(items[mid:])
        merged, count, i, j = [], a + b, 0, 0
        while i < len(left) and j < len(right):
            work += 1
            if right[j] < left[i]:  # right[j] is smaller than every remaining left item
                merged.append(right[j])
                count += len(left) - i
                j += 1
            else:
                merged.append(left[i])
                i += 1
        return merged + left[i:] + right[j:], count

    return sort(values)[1], work


@family(
    "inversion_count",
    domain="algorithms",
    knobs=InversionCountKnobs,
    levels=LEVELS,
    description="Count the inversions of an integer array (pairs out of order).",
    verifier_kind="exact integer",
)
class InversionCount(IntegerFamily):
    what = "the number of inversions"

    def build(self, knobs: InversionCountKnobs, rng: np.random.Generator) -> Instance:
        values = int_list(rng.integers(1, knobs.max_value + 1, size=knobs.length))
        exact, work = inversions(values)
        descents = sum(a > b for a, b in zip(values, values[1:], strict=False))
        question = (
            f"The array a[1..{len(values)}] is: {' '.join(map(str, values))}\n\n"
            "How many pairs of positions i < j have a[i] > a[j] (equal values are not an inversion)?"
        )
        pairs = len(values) * (len(values) - 1) // 2
        return Instance(
            question,
            exact,
            work=work + len(values),
            data={"values": values},
            weak=exact if pairs <= 2 * 10 else descents,  # small arrays by hand, else adjacent pairs only
            wrong=[descents, pairs - exact],
        )
