"""Polynomial interpolation modulo a prime: the value at a new point of the polynomial of lowest
degree through given points.

Efficient algorithm: Lagrange's formula modulo p, O(d^2). The test interpolates the same points
over the rationals with sympy and reduces the value modulo p, on every level. Levels grow the
degree and the prime.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, random_prime
from palaestra.registry import family


@dataclass(frozen=True)
class PolynomialInterpolationKnobs(Knobs):
    degree: int = knob(3, low=1, high=30, help="degree of the hidden polynomial")
    prime_digits: int = knob(3, low=2, high=12, help="the prime has this many digits")


K = PolynomialInterpolationKnobs
LEVELS = {
    1: K(degree=1, prime_digits=2),
    2: K(degree=2, prime_digits=2),
    3: K(degree=2, prime_digits=3),
    4: K(degree=3, prime_digits=3),
    5: K(degree=4, prime_digits=4),
    6: K(degree=5, prime_digits=5),
    7: K(degree=6, prime_digits=6),
    8: K(degree=8, prime_digits=7),
    9: K(degree=10, prime_digits=9),
    10: K(degree=12, prime_digits=9),
}


def lagrange_at(points: list[list[int]], t: int, p: int) -> tuple[int, int]:
    """The value at ``t`` modulo ``p`` of the polynomial through ``points``; and the products made."""
    total, work = 0, 0
    for i, (xi, yi) in enumerate(points):
        numerator, denominator = 1, 1
        for j, (xj, _) in enumerate(points):
            if j != i:
                numerator = numerator * (t - xj) % p
                denominator = denominator * (xi - xj) % p
                work += 1
        total = (total + yi * numerator * pow(denominator, -1, p)) % p
    return total, work


@family(
    "polynomial_interpolation",
    domain="algorithms",
    knobs=PolynomialInterpolationKnobs,
    levels=LEVELS,
    description="Lagrange interpolation modulo a prime: a polynomial's value at a new point.",
    verifier_kind="exact integer",
)
class PolynomialInterpolation(IntegerFamily):
    what = "the value"

    def build(self, knobs: PolynomialInterpolationKnobs, rng: np.random.Generator) -> Instance:
        p = random_prime(rng, max(11, 10 ** (knobs.prime_digits - 1)), 10**knobs.prime_digits - 1)
        d = min(knobs.degree, p - 3)
        xs = sorted(int(x) for x in rng.choice(min(p, 10**6), size=d + 2, replace=False))
        t = xs.pop(int(rng.integers(0, d + 2)))
        coefficients = [int(c) for c in rng.integers(0, p, size=d + 1)]
        coefficients[-1] = coefficients[-1] or 1
        points = [[x, sum(c * pow(x, k, p) for k, c in enumerate(coefficients)) % p] for x in xs]
        value, work = lagrange_at(points, t, p)
        listing = ", ".join(f"f({x}) = {y}" for x, y in points)
        question = (
            f"Work modulo the prime p = {p}. The polynomial f has degree at most {d} and coefficients in "
            f"the integers modulo p; it satisfies {listing} (mod p). What is f({t}) mod p, as an integer "
            f"from 0 to {p - 1}?"
        )
        nearest = min(points, key=lambda q: (abs(q[0] - t), q[0]))[1]  # a guess from the nearest point
        return Instance(
            question,
            value,
            work=work,
            data={"p": p, "points": points, "t": t},
            weak=nearest,
            wrong=[nearest, (value + 1) % p, (p - value) % p],
        )
