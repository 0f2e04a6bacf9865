"""Longest common subsequence: its length for two strings.

Efficient algorithm: the classic O(n x m) DP. The test tries every subsequence of the shorter
string on the small levels. Levels grow the strings (lengths and alphabets drawn, so the answer varies).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family

ALPHABET = "ABCDEFGH"


@dataclass(frozen=True)
class LcsLengthKnobs(Knobs):
    length: int = knob(
        12, low=3, high=300, help="longest string length (lengths drawn from a third of it up)"
    )
    letters: int = knob(4, low=2, high=len(ALPHABET), help="largest alphabet size (drawn from 2 up)")


K = LcsLengthKnobs
LEVELS = {
    1: K(length=5, letters=3),
    2: K(length=7, letters=3),
    3: K(length=10, letters=4),
    4: K(length=22, letters=5),
    5: K(length=28, letters=5),
    6: K(length=36, letters=6),
    7: K(length=46, letters=6),
    8: K(length=60, letters=7),
    9: K(length=78, letters=8),
    10: K(length=100, letters=8),
}


def lcs(a: str, b: str) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        previous_diagonal = 0
        for j, y in enumerate(b, start=1):
            kept = row[j]
            row[j] = previous_diagonal + 1 if x == y else max(row[j], row[j - 1])
            previous_diagonal = kept
    return row[-1]


def greedy(a: str, b: str) -> int:
    """Match each letter of ``a`` at the first possible place in ``b`` (the weak heuristic)."""
    position, matched = 0, 0
    for x in a:
        found = b.find(x, position)
        if found >= 0:
            matched, position = matched + 1, found + 1
    return matched


@family(
    "lcs_length",
    domain="algorithms",
    knobs=LcsLengthKnobs,
    levels=LEVELS,
    description="The length of a longest common subsequence of two strings.",
    verifier_kind="exact integer (the optimum)",
)
class LcsLength(IntegerFamily):
    what = "the length"

    def build(self, knobs: LcsLengthKnobs, rng: np.random.Generator) -> Instance:
        letters = ALPHABET[: int(rng.integers(2, knobs.letters + 1))]  # drawn: spreads the answers

        def word() -> str:
            size = int(rng.integers(max(2, knobs.length // 3), knobs.length + 1))
            return "".join(letters[int(i)] for i in rng.integers(0, len(letters), size=size))

        a, b = word(), word()
        best = lcs(a, b)
        question = (
            f"S = {a}\nT = {b}\n\nWhat is the length of a longest common subsequence of S and T "
            "(a string obtained from each of them by deleting characters, keeping the order)?"
        )
        return Instance(
            question,
            best,
            work=len(a) * len(b),
            data={"a": a, "b": b},
            weak=greedy(a, b),
            wrong=[greedy(a, b), greedy(b, a), best + 1],
        )
