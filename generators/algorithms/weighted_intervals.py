"""Weighted interval scheduling: the heaviest set of pairwise disjoint intervals.

Efficient algorithm: sort by end, binary-search the last compatible interval, DP, O(n log n).
The test tries every subset of intervals on the small levels. Levels grow the number of
intervals and the time line.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class WeightedIntervalsKnobs(Knobs):
    intervals: int = knob(10, low=3, high=300, help="number of intervals")
    horizon: int = knob(30, low=10, high=10**5, help="intervals lie within [0, horizon]")
    max_weight: int = knob(20, low=2, high=10**4, help="weights are drawn from 1..max_weight")


K = WeightedIntervalsKnobs
LEVELS = {
    1: K(intervals=4, horizon=12, max_weight=9),
    2: K(intervals=6, horizon=18, max_weight=15),
    3: K(intervals=9, horizon=25, max_weight=30),
    4: K(intervals=12, horizon=35, max_weight=50),
    5: K(intervals=16, horizon=50, max_weight=80),
    6: K(intervals=22, horizon=70, max_weight=120),
    7: K(intervals=30, horizon=100, max_weight=200),
    8: K(intervals=42, horizon=140, max_weight=300),
    9: K(intervals=58, horizon=200, max_weight=500),
    10: K(intervals=80, horizon=280, max_weight=800),
}


def best_schedule(intervals: list[list[int]]) -> tuple[int, int]:
    """Largest total weight of pairwise disjoint half-open intervals [start, end); and the DP steps."""
    ordered = sorted(intervals, key=lambda t: t[1])
    ends = [t[1] for t in ordered]
    best = [0] * (len(ordered) + 1)
    work = 0
    for i, (start, _end, weight) in enumerate(ordered):
        j = bisect_right(ends, start, 0, i)  # intervals ending by `start` are compatible
        work += max(1, i.bit_length())
        best[i + 1] = max(best[i], best[j] + weight)
    return best[-1], work


def greedy(intervals: list[list[int]]) -> int:
    """Heaviest first, keeping those that fit (the weak solver's heuristic)."""
    chosen: list[list[int]] = []
    for start, end, weight in sorted(intervals, key=lambda t: (-t[2], t[0])):
        if all(end <= s or e <= start for s, e, _ in chosen):
            chosen.append([start, end, weight])
    return sum(t[2] for t in chosen)


@family(
    "weighted_intervals",
    domain="algorithms",
    knobs=WeightedIntervalsKnobs,
    levels=LEVELS,
    description="Weighted interval scheduling: the heaviest set of pairwise disjoint intervals.",
    verifier_kind="exact integer (the optimum)",
)
class WeightedIntervals(IntegerFamily):
    what = "the largest total weight"

    def build(self, knobs: WeightedIntervalsKnobs, rng: np.random.Generator) -> Instance:
        intervals = []
        for _ in range(knobs.intervals):
            length = int(rng.integers(1, max(2, knobs.horizon // 3) + 1))
            start = int(rng.integers(0, knobs.horizon - length + 1))
            intervals.append([start, start + length, int(rng.integers(1, knobs.max_weight + 1))])
        intervals.sort()
        best, work = best_schedule(intervals)
        listing = "\n".join(f"[{s}, {e}) weight {w}" for s, e, w in intervals)
        question = (
            f"Intervals (half-open: [s, e) and [e, f) do not overlap), each with a weight:\n{listing}\n\n"
            "Choose intervals that pairwise do not overlap, making their total weight as large as "
            "possible. What is that largest total weight?"
        )
        return Instance(
            question,
            best,
            work=work + len(intervals),
            data={"intervals": intervals},
            weak=greedy(intervals),
            wrong=[greedy(intervals), best - 1, sum(t[2] for t in intervals)],
        )
