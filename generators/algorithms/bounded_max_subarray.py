"""Bounded maximum subarray: the largest sum of a contiguous block of at most K elements.

Efficient algorithm: prefix sums with a sliding-window minimum (a monotone deque), O(n). The
test tries every block on every level. Levels grow the array and the window.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, int_list
from palaestra.registry import family


@dataclass(frozen=True)
class BoundedMaxSubarrayKnobs(Knobs):
    length: int = knob(12, low=4, high=2000, help="array length")
    max_abs: int = knob(20, low=2, high=10**6, help="values are drawn from -max_abs..max_abs")


K = BoundedMaxSubarrayKnobs
LEVELS = {
    1: K(length=5, max_abs=9),
    2: K(length=8, max_abs=15),
    3: K(length=12, max_abs=30),
    4: K(length=17, max_abs=50),
    5: K(length=24, max_abs=80),
    6: K(length=34, max_abs=120),
    7: K(length=48, max_abs=200),
    8: K(length=66, max_abs=300),
    9: K(length=90, max_abs=500),
    10: K(length=120, max_abs=800),
}


def best_block(values: list[int], window: int) -> tuple[int, int]:
    """Largest sum of values[i:j] with 1 <= j - i <= window; and the deque operations."""
    prefix = [0]
    for v in values:
        prefix.append(prefix[-1] + v)
    best, work = None, 0
    candidates: deque[int] = deque()  # start indices with increasing prefix sums
    for j in range(1, len(prefix)):
        while candidates and prefix[candidates[-1]] >= prefix[j - 1]:
            candidates.pop()
            work += 1
        candidates.append(j - 1)
        if candidates[0] < j - window:
            candidates.popleft()
        work += 1
        total = prefix[j] - prefix[candidates[0]]
        best = total if best is None else max(best, total)
    assert best is not None
    return best, work


@family(
    "bounded_max_subarray",
    domain="algorithms",
    knobs=BoundedMaxSubarrayKnobs,
    levels=LEVELS,
    description="The largest sum of a contiguous block of at most K elements of an array.",
    verifier_kind="exact integer (the optimum)",
)
class BoundedMaxSubarray(IntegerFamily):
    what = "the largest sum"

    def build(self, knobs: BoundedMaxSubarrayKnobs, rng: np.random.Generator) -> Instance:
        values = int_list(rng.integers(-knobs.max_abs, knobs.max_abs + 1, size=knobs.length))
        window = int(rng.integers(2, max(3, knobs.length // 2) + 1))
        best, work = best_block(values, window)
        unbounded = best_block(values, len(values))[0]  # the window ignored: the weak heuristic
        question = (
            f"The array is: {' '.join(map(str, values))}\n\nAmong all blocks of consecutive elements "
            f"with at least 1 and at most {window} elements, what is the largest sum of a block?"
        )
        return Instance(
            question,
            best,
            work=work,
            data={"values": values, "window": window},
            weak=unbounded,
            wrong=[unbounded, max(values), best - 1],
        )
