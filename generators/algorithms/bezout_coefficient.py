"""Bezout coefficients: the smallest non-negative x with a*x + b*y = gcd(a, b) for some integer y.

Efficient algorithm: the extended Euclidean algorithm, O(log min(a, b)), then x reduced modulo
b / gcd. The test checks against sympy's gcdex on every level and by trying every x on the small
levels. Levels grow the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import WEAK_BUDGET, Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class BezoutCoefficientKnobs(Knobs):
    # 18: numpy's integers draw below 2**63, so more digits raised an int64 error
    digits: int = knob(4, low=1, high=18, help="the numbers have up to this many digits")


K = BezoutCoefficientKnobs
LEVELS = {lv: K(digits=d) for lv, d in enumerate((2, 2, 3, 4, 5, 7, 9, 12, 15, 18), start=1)}


def extended_euclid(a: int, b: int) -> tuple[int, int, int, int]:
    """(g, x, y, steps) with a*x + b*y = g = gcd(a, b)."""
    old_r, r, old_x, x, old_y, y, steps = a, b, 1, 0, 0, 1, 0
    while r:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_x, x = x, old_x - q * x
        old_y, y = y, old_y - q * y
        steps += 1
    return old_r, old_x, old_y, steps


@family(
    "bezout_coefficient",
    domain="algorithms",
    knobs=BezoutCoefficientKnobs,
    levels=LEVELS,
    description="The smallest non-negative Bezout coefficient x with a*x + b*y = gcd(a, b).",
    verifier_kind="exact integer",
)
class BezoutCoefficient(IntegerFamily):
    what = "the smallest such x"
    example = "12"

    def build(self, knobs: BezoutCoefficientKnobs, rng: np.random.Generator) -> Instance:
        top = 10**knobs.digits - 1
        low = 10 ** (knobs.digits - 1) if knobs.digits > 2 else 10
        while True:
            common = int(rng.integers(1, 4)) if int(rng.integers(3)) == 0 else 1
            a = int(rng.integers(low, top + 1)) * common
            b = int(rng.integers(low, top + 1)) * common
            g, x0, _, steps = extended_euclid(a, b)
            period = b // g
            x = x0 % period
            if a != b and period > 2 and x > 1:
                break
        question = (
            f"Let a = {a} and b = {b}, and let g = gcd(a, b). What is the smallest non-negative integer x "
            "for which some integer y gives a*x + b*y = g?"
        )
        return Instance(
            question,
            x,
            work=steps + 1,
            data={"a": a, "b": b},
            weak=x if x <= WEAK_BUDGET else None,  # tries x = 0, 1, 2, ... within a budget
            wrong=[x + period, period - x, x0 if x0 != x else x + 1],
        )
