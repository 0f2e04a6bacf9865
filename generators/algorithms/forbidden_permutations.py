"""Permutations with forbidden positions: seatings of n people in n seats avoiding refused seats,
modulo a prime (a rook-polynomial count).

Efficient algorithm: the DP over sets of taken seats, O(2^n x n). The test tries every
permutation on the small levels. Levels grow n, the refusals and the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, modulus_clause, reduce
from palaestra.registry import family


@dataclass(frozen=True)
class ForbiddenPermutationsKnobs(Knobs):
    people: int = knob(6, low=3, high=14, help="number of people and seats")
    refusals: float = knob(0.3, low=0.0, high=0.7, help="share of (person, seat) pairs refused")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = ForbiddenPermutationsKnobs
LEVELS = {
    1: K(people=3, refusals=0.3, modulus=0),
    2: K(people=4, refusals=0.3, modulus=0),
    3: K(people=6, refusals=0.3, modulus=0),
    4: K(people=7, refusals=0.3, modulus=997),
    5: K(people=8, refusals=0.3, modulus=10007),
    6: K(people=9, refusals=0.3, modulus=100003),
    7: K(people=10, refusals=0.3, modulus=1000003),
    8: K(people=11, refusals=0.3, modulus=998244353),
    9: K(people=12, refusals=0.3, modulus=998244353),
    10: K(people=12, refusals=0.25, modulus=1000000007),
}


def count_seatings(n: int, refused: set[tuple[int, int]]) -> tuple[int, int]:
    """Permutations avoiding the refused (person, seat) pairs; and the DP steps."""
    ways = [0] * (1 << n)
    ways[0] = 1
    work = 0
    for mask in range(1 << n):
        if not ways[mask]:
            continue
        person = bin(mask).count("1") + 1  # people sit in order; mask = seats taken
        for seat in range(1, n + 1):
            bit = 1 << (seat - 1)
            if not mask & bit and (person, seat) not in refused:
                ways[mask | bit] += ways[mask]
                work += 1
    return ways[-1], work + (1 << n)


@family(
    "forbidden_permutations",
    domain="algorithms",
    knobs=ForbiddenPermutationsKnobs,
    levels=LEVELS,
    description="Count the permutations that avoid forbidden positions (refused seats), modulo a prime.",
    verifier_kind="exact integer",
)
class ForbiddenPermutations(IntegerFamily):
    what = "the count"

    def build(self, knobs: ForbiddenPermutationsKnobs, rng: np.random.Generator) -> Instance:
        n = knobs.people
        while True:
            refused = {
                (p, s) for p in range(1, n + 1) for s in range(1, n + 1) if rng.random() < knobs.refusals
            }
            exact, work = count_seatings(n, refused)
            if exact > 1 and refused:
                break
        by_person: dict[int, list[int]] = {}
        for p, s in sorted(refused):
            by_person.setdefault(p, []).append(s)
        rules = "; ".join(
            f"P{p} refuses seat{'s' if len(s) > 1 else ''} {', '.join(map(str, s))}"
            for p, s in by_person.items()
        )
        question = (
            f"{n} people P1, ..., P{n} sit in seats 1 to {n}, one person per seat. {rules}. How many "
            f"seatings respect every refusal? {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        return Instance(
            question,
            answer,
            work=work,
            data={"people": n, "refused": sorted([p, s] for p, s in refused), "modulus": knobs.modulus},
            weak=answer if n <= 3 else None,  # lists the seatings by hand
            wrong=[reduce(factorial(n), knobs.modulus), reduce(exact + 1, knobs.modulus)],
        )
