"""Distinct subsequences: how many different non-empty subsequences a string has, modulo a prime.

Efficient algorithm: the DP "double, minus what the previous copy of this letter already
counted", O(n). The test lists every subsequence as a set on the small levels. Levels grow the
string, its alphabet and the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily, modulus_clause, reduce
from palaestra.registry import family

ALPHABET = "abcdefgh"


@dataclass(frozen=True)
class DistinctSubsequencesKnobs(Knobs):
    length: int = knob(12, low=3, high=1000, help="string length")
    letters: int = knob(3, low=2, high=len(ALPHABET), help="alphabet size")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = DistinctSubsequencesKnobs
LEVELS = {
    1: K(length=5, letters=2, modulus=0),
    2: K(length=8, letters=3, modulus=0),
    3: K(length=12, letters=3, modulus=0),
    4: K(length=16, letters=4, modulus=10007),
    5: K(length=24, letters=4, modulus=100003),
    6: K(length=36, letters=5, modulus=1000003),
    7: K(length=52, letters=5, modulus=998244353),
    8: K(length=75, letters=6, modulus=998244353),
    9: K(length=110, letters=6, modulus=1000000007),
    10: K(length=160, letters=8, modulus=1000000007),
}


def count_distinct(text: str) -> int:
    """Distinct non-empty subsequences (exact)."""
    total = 1  # the empty subsequence
    last: dict[str, int] = {}
    for c in text:
        total, last[c] = 2 * total - last.get(c, 0), total
    return total - 1


@family(
    "distinct_subsequences",
    domain="algorithms",
    knobs=DistinctSubsequencesKnobs,
    levels=LEVELS,
    description="Count the distinct non-empty subsequences of a string, modulo a prime.",
    verifier_kind="exact integer",
)
class DistinctSubsequences(IntegerFamily):
    what = "the count"

    def build(self, knobs: DistinctSubsequencesKnobs, rng: np.random.Generator) -> Instance:
        letters = ALPHABET[: knobs.letters]
        text = "".join(letters[int(i)] for i in rng.integers(0, len(letters), size=knobs.length))
        exact = count_distinct(text)
        question = (
            f"How many different non-empty strings can be obtained from the string {text} by deleting "
            "some of its characters (possibly none) and keeping the order of the others? Equal strings "
            f"obtained in different ways count once. {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        naive = reduce(2 ** len(text) - 1, knobs.modulus)  # as if every choice gave a new string
        return Instance(
            question,
            answer,
            work=len(text),
            data={"text": text, "modulus": knobs.modulus},
            weak=answer if len(text) <= 6 else naive,  # small strings by hand, else every choice counted
            wrong=[naive, reduce(exact + 1, knobs.modulus)],
        )
