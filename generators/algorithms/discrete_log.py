"""Discrete logarithm: the smallest exponent x with g^x = h modulo a prime.

Efficient algorithm: baby-step giant-step, O(sqrt p). The test checks against sympy's
discrete_log and the order of g on every level, and by trying every exponent on the small
levels. Levels grow the prime.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isqrt

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import WEAK_BUDGET, Instance, IntegerFamily, random_prime
from palaestra.registry import family


@dataclass(frozen=True)
class DiscreteLogKnobs(Knobs):
    prime_digits: int = knob(3, low=2, high=12, help="the prime has about this many digits")


K = DiscreteLogKnobs
LEVELS = {lv: K(prime_digits=d) for lv, d in enumerate((2, 2, 3, 3, 4, 5, 6, 7, 8, 9), start=1)}
# levels 1-2 both have two digits: level 1 below 40, level 2 up to 99 (see build)


def baby_giant(g: int, h: int, p: int) -> tuple[int | None, int]:
    """Smallest x >= 0 with g^x = h (mod p), or None; and the multiplications made."""
    m = isqrt(p - 1) + 1
    table: dict[int, int] = {}
    value = 1
    for j in range(m):
        table.setdefault(value, j)  # the smallest j with g^j = value
        value = value * g % p
    factor = pow(g, -m, p)  # g^-m
    gamma = h
    for i in range(m + 1):
        if gamma in table:
            return i * m + table[gamma], m + i + 1
        gamma = gamma * factor % p
    return None, 2 * m + 1


@family(
    "discrete_log",
    domain="algorithms",
    knobs=DiscreteLogKnobs,
    levels=LEVELS,
    description="The smallest x with g^x = h modulo a prime (discrete logarithm).",
    verifier_kind="exact integer",
)
class DiscreteLog(IntegerFamily):
    what = "the smallest exponent"
    example = "12"

    def build(self, knobs: DiscreteLogKnobs, rng: np.random.Generator) -> Instance:
        low, high = 10 ** (knobs.prime_digits - 1), 10**knobs.prime_digits - 1
        if knobs.prime_digits == 2:
            low, high = (11, 40) if int(rng.integers(2)) else (41, 99)
        while True:
            p = random_prime(rng, low, high)
            g = int(rng.integers(2, p - 1))
            h = pow(g, int(rng.integers(1, p - 1)), p)
            x, work = baby_giant(g, h, p)
            if x is not None and x > 1:
                break
        question = (
            f"What is the smallest non-negative integer x such that {g}^x ≡ {h} (mod {p})? ({p} is prime.)"
        )
        return Instance(
            question,
            x,
            work=work,
            data={"g": g, "h": h, "p": p},
            weak=x if x <= WEAK_BUDGET else None,  # multiplies by g until it reaches h, within a budget
            wrong=[x + 1, p - 1 - x, (x + (p - 1) // 2) % (p - 1)],
        )
