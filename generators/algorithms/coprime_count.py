"""Coprime counting: how many integers in [1, N] share no prime factor with M.

Efficient algorithm: factor M by trial division, then inclusion-exclusion over its distinct
primes, O(sqrt M + 2^k). The test compares with a gcd count over the whole range on the levels
small enough and with sympy's factorisation on every level. Levels grow N and M.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family

SMALL_PRIMES = (
    2,
    3,
    5,
    7,
    11,
    13,
    17,
    19,
    23,
    29,
    31,
    37,
    41,
    43,
    47,
    53,
    59,
    61,
    67,
    71,
    73,
    79,
    83,
    89,
    97,
)


@dataclass(frozen=True)
class CoprimeCountKnobs(Knobs):
    limit_digits: int = knob(3, low=1, high=18, help="N has up to this many digits")
    primes: int = knob(3, low=1, high=10, help="largest number of distinct primes of M")


K = CoprimeCountKnobs
LEVELS = {
    1: K(limit_digits=2, primes=1),
    2: K(limit_digits=2, primes=2),
    3: K(limit_digits=3, primes=2),
    4: K(limit_digits=3, primes=3),
    5: K(limit_digits=4, primes=4),
    6: K(limit_digits=5, primes=5),
    7: K(limit_digits=7, primes=6),
    8: K(limit_digits=9, primes=7),
    9: K(limit_digits=12, primes=8),
    10: K(limit_digits=15, primes=9),
}


def distinct_primes(m: int) -> tuple[list[int], int]:
    """Trial division; the distinct primes of m and the divisions tried."""
    primes, d, work = [], 2, 0
    while d * d <= m:
        work += 1
        if m % d == 0:
            primes.append(d)
            while m % d == 0:
                m //= d
        d += 1 if d == 2 else 2
    if m > 1:
        primes.append(m)
    return primes, work


def count_coprime(limit: int, primes: list[int]) -> tuple[int, int]:
    """Inclusion-exclusion over the products of the primes; and the terms summed."""
    total, work = 0, 0
    for mask in range(1 << len(primes)):
        product, bits = 1, 0
        for i, p in enumerate(primes):
            if mask >> i & 1:
                product, bits = product * p, bits + 1
        total += (-1) ** bits * (limit // product)
        work += 1
    return total, work


@family(
    "coprime_count",
    domain="algorithms",
    knobs=CoprimeCountKnobs,
    levels=LEVELS,
    description="Count the integers up to N that are coprime to M (inclusion-exclusion).",
    verifier_kind="exact integer",
)
class CoprimeCount(IntegerFamily):
    what = "the count"

    def build(self, knobs: CoprimeCountKnobs, rng: np.random.Generator) -> Instance:
        limit = int(rng.integers(10 ** (knobs.limit_digits - 1) + 1, 10**knobs.limit_digits))
        count = int(rng.integers(1, knobs.primes + 1))
        chosen = sorted(int(p) for p in rng.choice(SMALL_PRIMES, size=count, replace=False))
        m = 1
        for p in chosen:
            m *= p ** int(rng.integers(1, 3))
        primes, trial = distinct_primes(m)
        answer, terms = count_coprime(limit, primes)
        question = f"How many integers n with 1 <= n <= {limit} have gcd(n, {m}) = 1?"
        euler_guess = limit
        for p in primes:
            euler_guess = euler_guess * (p - 1) // p  # the density estimate, floored at each step
        return Instance(
            question,
            answer,
            work=trial + terms,
            data={"limit": limit, "m": m},
            weak=answer if limit <= 30 else euler_guess,
            wrong=[euler_guess, answer + 1, limit - answer],
        )
