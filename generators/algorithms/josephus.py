"""Josephus problem: who is left when every k-th person around a circle leaves.

Efficient algorithm: the recurrence J(i) = (J(i-1) + k) mod i, O(n). The test simulates the
circle on every level small enough. Levels grow the circle and the step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import WEAK_BUDGET, Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class JosephusKnobs(Knobs):
    people: int = knob(100, low=4, high=10**6, help="largest circle (sizes drawn from a tenth of it up)")
    step: int = knob(10, low=2, high=10**6, help="largest step k (drawn from 2 up)")


K = JosephusKnobs
LEVELS = {
    1: K(people=8, step=3),
    2: K(people=30, step=8),
    3: K(people=1000, step=300),
    4: K(people=2000, step=600),
    5: K(people=4000, step=1000),
    6: K(people=8000, step=2000),
    7: K(people=15000, step=4000),
    8: K(people=30000, step=8000),
    9: K(people=60000, step=15000),
    10: K(people=100000, step=30000),
}


def survivor(n: int, k: int) -> int:
    """The last person left (numbered from 1), by the recurrence."""
    position = 0
    for size in range(2, n + 1):
        position = (position + k) % size
    return position + 1


@family(
    "josephus",
    domain="algorithms",
    knobs=JosephusKnobs,
    levels=LEVELS,
    description="The Josephus problem: the survivor when every k-th person leaves a circle.",
    verifier_kind="exact integer",
)
class Josephus(IntegerFamily):
    what = "the survivor's number"
    example = "7"

    def build(self, knobs: JosephusKnobs, rng: np.random.Generator) -> Instance:
        n = int(rng.integers(max(4, knobs.people // 10), knobs.people + 1))
        k = int(rng.integers(2, knobs.step + 1))
        last = survivor(n, k)
        question = (
            f"{n} people stand in a circle, numbered 1 to {n} clockwise. Counting starts at person 1: "
            f"persons are counted 1, 2, ..., {k} clockwise, and the person counted {k} leaves the "
            f"circle; counting restarts at 1 with the next person still in the circle. This repeats "
            "until one person is left. What is that person's number?"
        )
        return Instance(
            question,
            last,
            work=n,
            data={"people": n, "step": k},
            weak=last if n * k <= WEAK_BUDGET else None,  # acts the circle out by hand when it is small
            wrong=[last % n + 1, survivor(n, k + 1), n - last + 1],
        )
