"""Palindromic substrings: how many (start, end) position pairs of a string read the same both ways.

Efficient algorithm: Manacher's, O(n). The test checks every substring on every level. Levels
grow the string (lengths drawn, so the answer varies).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import Instance, IntegerFamily
from palaestra.registry import family


@dataclass(frozen=True)
class PalindromicSubstringsKnobs(Knobs):
    length: int = knob(
        20, low=3, high=2000, help="longest string (lengths drawn from three quarters of it up)"
    )
    letters: int = knob(3, low=2, high=6, help="largest alphabet (drawn from one less up)")


K = PalindromicSubstringsKnobs
LEVELS = {
    1: K(length=5, letters=2),
    2: K(length=8, letters=2),
    3: K(length=16, letters=4),
    4: K(length=24, letters=4),
    5: K(length=34, letters=4),
    6: K(length=46, letters=4),
    7: K(length=60, letters=5),
    8: K(length=80, letters=5),
    9: K(length=100, letters=5),
    10: K(length=130, letters=6),
}


def manacher(text: str) -> tuple[int, int]:
    """Palindromic substrings by position; and the comparisons made."""
    s = "^#" + "#".join(text) + "#$"
    radius = [0] * len(s)
    center = right = work = 0
    for i in range(1, len(s) - 1):
        if i < right:
            radius[i] = min(right - i, radius[2 * center - i])
        while s[i + radius[i] + 1] == s[i - radius[i] - 1]:
            radius[i] += 1
            work += 1
        if i + radius[i] > right:
            center, right = i, i + radius[i]
    return sum((r + 1) // 2 for r in radius), work + len(s)


@family(
    "palindromic_substrings",
    domain="algorithms",
    knobs=PalindromicSubstringsKnobs,
    levels=LEVELS,
    description="Count the palindromic substrings of a string by position (Manacher).",
    verifier_kind="exact integer",
)
class PalindromicSubstrings(IntegerFamily):
    what = "the count"

    def build(self, knobs: PalindromicSubstringsKnobs, rng: np.random.Generator) -> Instance:
        letters = "abcdef"[: int(rng.integers(max(2, knobs.letters - 1), knobs.letters + 1))]
        size = int(rng.integers(max(3, 3 * knobs.length // 4), knobs.length + 1))
        text = "".join(letters[int(i)] for i in rng.integers(0, len(letters), size=size))
        count, work = manacher(text)
        question = (
            f"How many substrings of {text} are palindromes? A substring is a block of consecutive "
            "characters given by its start and end positions, so equal blocks at different positions "
            "count separately; single characters count."
        )
        short = len(text) + sum(a == b for a, b in zip(text, text[1:], strict=False))  # lengths 1 and 2 only
        return Instance(
            question,
            count,
            work=work,
            data={"text": text},
            weak=count if len(text) <= 6 else short,
            wrong=[short, count + 1, len(text)],
        )
