"""Pattern-avoiding strings: count the strings of a length that contain none of some forbidden words.

Efficient algorithm: a DP over the states of the pattern automaton (the longest suffix that is a
prefix of a forbidden word), O(length x states x letters). The test enumerates every string on
the small levels. Levels grow the length, the alphabet, the number of words and the modulus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, knob
from palaestra.generators.algorithms.shared import (
    WEAK_BUDGET,
    Instance,
    IntegerFamily,
    modulus_clause,
    reduce,
)
from palaestra.registry import family

ALPHABET = "abcdef"


@dataclass(frozen=True)
class PatternAvoidingStringsKnobs(Knobs):
    length: int = knob(10, low=2, high=500, help="length of the strings counted (drawn up to this)")
    letters: int = knob(3, low=2, high=len(ALPHABET), help="alphabet size")
    words: int = knob(2, low=1, high=5, help="number of forbidden words")
    word_length: int = knob(3, low=2, high=6, help="longest forbidden word")
    modulus: int = knob(0, low=0, high=2**31, help="the count is asked modulo this (0: the exact count)")


K = PatternAvoidingStringsKnobs
LEVELS = {
    1: K(length=5, letters=2, words=1, word_length=2, modulus=0),
    2: K(length=7, letters=2, words=2, word_length=3, modulus=0),
    3: K(length=10, letters=3, words=3, word_length=4, modulus=0),
    4: K(length=16, letters=3, words=3, word_length=4, modulus=10007),
    5: K(length=30, letters=3, words=3, word_length=4, modulus=100003),
    6: K(length=50, letters=4, words=3, word_length=4, modulus=1000003),
    7: K(length=80, letters=4, words=4, word_length=5, modulus=998244353),
    8: K(length=120, letters=4, words=4, word_length=5, modulus=998244353),
    9: K(length=180, letters=5, words=4, word_length=5, modulus=1000000007),
    10: K(length=250, letters=5, words=5, word_length=6, modulus=1000000007),
}


def count_avoiding(length: int, letters: str, words: list[str]) -> tuple[int, int]:
    """Strings of ``length`` over ``letters`` containing no word of ``words``; and the DP steps."""
    prefixes = sorted({w[:i] for w in words for i in range(len(w))}, key=lambda p: (len(p), p))

    def state_after(text: str) -> str | None:
        if any(text.endswith(w) for w in words):
            return None  # a forbidden word was completed
        for start in range(len(text) + 1):
            if text[start:] in prefix_set:
                return text[start:]
        return ""

    prefix_set = set(prefixes)
    step = {(p, c): state_after(p + c) for p in prefixes for c in letters}
    ways = {"": 1}
    work = 0
    for _ in range(length):
        nxt: dict[str, int] = {}
        for state, w in ways.items():
            for c in letters:
                work += 1
                target = step[(state, c)]
                if target is not None:
                    nxt[target] = nxt.get(target, 0) + w
        ways = nxt
    return sum(ways.values()), work


@family(
    "pattern_avoiding_strings",
    domain="algorithms",
    knobs=PatternAvoidingStringsKnobs,
    levels=LEVELS,
    description="Count the strings of a given length that avoid a set of forbidden words, modulo a prime.",
    verifier_kind="exact integer",
)
class PatternAvoidingStrings(IntegerFamily):
    what = "the count"

    def build(self, knobs: PatternAvoidingStringsKnobs, rng: np.random.Generator) -> Instance:
        letters = ALPHABET[: knobs.letters]
        while True:
            words: set[str] = set()
            while len(words) < knobs.words:
                size = int(rng.integers(2, knobs.word_length + 1))
                words.add("".join(letters[int(i)] for i in rng.integers(0, len(letters), size=size)))
            ordered = sorted(words)
            if any(a != b and a in b for a in ordered for b in ordered):
                continue  # a word inside another forbids nothing more
            length = int(rng.integers(max(2, knobs.length // 2), knobs.length + 1))
            exact, work = count_avoiding(length, letters, ordered)
            if exact > 1:
                break
        question = (
            f"How many strings of length {length} over the letters {', '.join(letters)} contain none of "
            f"the words {', '.join(ordered)} as a contiguous substring? {modulus_clause(knobs.modulus)}."
        )
        answer = reduce(exact, knobs.modulus)
        total = len(letters) ** length
        return Instance(
            question,
            answer,
            work=work,
            data={"length": length, "letters": letters, "words": ordered, "modulus": knobs.modulus},
            weak=answer if total <= WEAK_BUDGET else None,  # writes out every string by hand
            wrong=[reduce(total, knobs.modulus), reduce(exact + 1, knobs.modulus)],
        )
