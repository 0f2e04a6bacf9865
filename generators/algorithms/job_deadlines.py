"""Job sequencing with deadlines: unit-time jobs, each paying its profit if done by its deadline.

Efficient algorithm: the exchange-argument greedy (highest profit first, into the latest free
slot by a union-find), O(n log n), which is optimal for this matroid. The test tries every
subset of jobs with the earliest-deadline feasibility check on the small levels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class JobDeadlinesKnobs(Knobs):
    jobs: int = knob(8, low=3, high=500, help="number of jobs")
    max_profit: int = knob(50, low=5, high=10**5, help="profits are drawn from 1..max_profit")


K = JobDeadlinesKnobs
LEVELS = {
    1: K(jobs=4, max_profit=20),
    2: K(jobs=6, max_profit=30),
    3: K(jobs=8, max_profit=50),
    4: K(jobs=11, max_profit=80),
    5: K(jobs=14, max_profit=120),
    6: K(jobs=19, max_profit=200),
    7: K(jobs=26, max_profit=300),
    8: K(jobs=35, max_profit=500),
    9: K(jobs=47, max_profit=800),
    10: K(jobs=62, max_profit=1200),
}


def best_profit(jobs: list[list[int]]) -> tuple[int, int]:
    """Jobs are [deadline, profit]; the optimum and the union-find steps."""
    horizon = max(d for d, _ in jobs)
    free = list(range(horizon + 1))  # free[t]: the latest free slot <= t (0 = none)
    work = 0

    def latest(t: int) -> int:
        nonlocal work
        while free[t] != t:
            free[t] = free[free[t]]
            t, work = free[t], work + 1
        return t

    total = 0
    for deadline, profit in sorted(jobs, key=lambda j: -j[1]):
        slot = latest(deadline)
        work += 1
        if slot:
            total += profit
            free[slot] = slot - 1
    return total, work


def earliest_deadline(jobs: list[list[int]]) -> int:
    """Take the jobs by deadline while they fit, ignoring profits (the weak heuristic)."""
    total, time = 0, 0
    for deadline, profit in sorted(jobs):
        if time < deadline:
            total, time = total + profit, time + 1
    return total


@family(
    "job_deadlines",
    domain="algorithms",
    knobs=JobDeadlinesKnobs,
    levels=LEVELS,
    description="Job sequencing with deadlines: the largest total profit of unit jobs done in time.",
    verifier_kind="exact integer (the optimum)",
)
class JobDeadlines(IntegerFamily):
    what = "the largest total profit"

    def build(self, knobs: JobDeadlinesKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.jobs
        jobs = [
            [int(rng.integers(1, max(2, n // 2) + 1)), int(rng.integers(1, knobs.max_profit + 1))]
            for _ in range(n)
        ]
        best, work = best_profit(jobs)
        listing = "\n".join(f"job {i + 1}: deadline {d}, profit {p}" for i, (d, p) in enumerate(jobs))
        question = (
            f"Each job takes one unit of time; one job runs at a time, starting at time 0. A job pays "
            f"its profit only if it finishes by its deadline.\n{listing}\n\nWhat is the largest total "
            "profit of a schedule?"
        )
        naive = earliest_deadline(jobs)
        return Instance(
            question,
            best,
            work=work,
            data={"jobs": jobs},
            weak=naive,
            wrong=[naive, best - 1, sum(p for _, p in jobs)],
        )
