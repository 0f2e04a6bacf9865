"""Modular square root: the smallest x with x^2 = a modulo a prime.

Efficient algorithm: Tonelli-Shanks, O(log^2 p) multiplications. The test checks against sympy's
sqrt_mod on every level and by trying every residue on the small levels. Levels grow the prime.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import WEAK_BUDGET, Instance, IntegerFamily, random_prime
from palaestra.registry import family


@dataclass(frozen=True)
class ModularSqrtKnobs(Knobs):
    prime_digits: int = knob(3, low=2, high=18, help="the prime has about this many digits")


K = ModularSqrtKnobs
LEVELS = {lv: K(prime_digits=d) for lv, d in enumerate((2, 3, 4, 5, 6, 7, 9, 11, 13, 15), start=1)}


def tonelli_shanks(a: int, p: int) -> tuple[int, int]:
    """The smallest square root of the quadratic residue ``a`` modulo the odd prime ``p``; and the
    multiplications made."""
    q, s = p - 1, 0
    while q % 2 == 0:
        q, s = q // 2, s + 1
    z = 2
    while pow(z, (p - 1) // 2, p) != p - 1:  # a non-residue
        z += 1
    work = z + q.bit_length()
    m, c, t, r = s, pow(z, q, p), pow(a, q, p), pow(a, (q + 1) // 2, p)
    while t != 1:
        i, t2 = 0, t
        while t2 != 1:
            t2, i, work = t2 * t2 % p, i + 1, work + 1
        b = pow(c, 1 << (m - i - 1), p)
        m, c, t, r = i, b * b % p, t * b * b % p, r * b % p
        work += m
    return min(r, p - r), work + p.bit_length()


@family(
    "modular_sqrt",
    domain="algorithms",
    knobs=ModularSqrtKnobs,
    levels=LEVELS,
    description="The smallest square root of a quadratic residue modulo a prime (Tonelli-Shanks).",
    verifier_kind="exact integer",
)
class ModularSqrt(IntegerFamily):
    what = "the smallest such x"
    example = "5"

    def build(self, knobs: ModularSqrtKnobs, rng: np.random.Generator) -> Instance:
        low, high = 10 ** (knobs.prime_digits - 1), 10**knobs.prime_digits - 1
        p = random_prime(rng, max(low, 11), high)
        root = int(rng.integers(2, p - 1))
        a = root * root % p
        x, work = tonelli_shanks(a, p)
        question = (
            f"What is the smallest non-negative integer x such that x^2 ≡ {a} (mod {p})? ({p} is prime.)"
        )
        return Instance(
            question,
            x,
            work=work,
            data={"a": a, "p": p},
            weak=x if x <= WEAK_BUDGET else None,  # tries 0, 1, 2, ... within a budget
            wrong=[p - x, x + 1, a],
        )
