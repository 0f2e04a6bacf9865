"""Unscramble words: each scrambled group of letters spells exactly one English word.

Each word is a common English word (SCOWL sizes 10-20, ``data/SOURCE.md``) whose letters spell
no other word of the 63,414-word dictionary (SCOWL up to size 50, American and British
spellings): ties such as ``listen``/``silent`` are rejected at generation, so the answer is
unique among all dictionary words, not only the common ones. A scramble is never the word
itself. The answer lists the words in the order of the scrambles.

Difficulty: word length (4 letters at level 1 to 10-11 at level 10) and words per task (1 to
4). The weak solver tries 60 random orders of each scramble against the dictionary; the exact
solver builds each word letter by letter along the dictionary's prefixes (effort = prefixes
visited). A task with the same words in another order or scramble is a duplicate (the
canonical hash is the sorted word list). Generation: ~5,000 tasks per second at level 5.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

from .wordlist import common_words, dictionary

WEAK_TRIES = 60
_SEPARATORS = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class AnagramsKnobs(Knobs):
    words: int = knob(1, low=1, high=6, help="scrambled words per task")
    min_length: int = knob(4, low=3, high=14, help="shortest word length")
    max_length: int = knob(4, low=3, high=14, help="longest word length")

    def validate(self) -> None:
        if self.min_length > self.max_length:
            raise ValueError("min_length must not exceed max_length")


LEVELS = {
    1: AnagramsKnobs(words=1, min_length=4, max_length=4),
    2: AnagramsKnobs(words=1, min_length=5, max_length=5),
    3: AnagramsKnobs(words=2, min_length=5, max_length=5),
    4: AnagramsKnobs(words=2, min_length=6, max_length=6),
    5: AnagramsKnobs(words=2, min_length=7, max_length=7),
    6: AnagramsKnobs(words=3, min_length=7, max_length=7),
    7: AnagramsKnobs(words=3, min_length=8, max_length=8),
    8: AnagramsKnobs(words=3, min_length=9, max_length=9),
    9: AnagramsKnobs(words=4, min_length=9, max_length=10),
    10: AnagramsKnobs(words=4, min_length=10, max_length=11),
}


def signature(word: str) -> str:
    return "".join(sorted(word))


@functools.cache
def unique_words(length: int) -> tuple[str, ...]:
    """Common words of ``length`` letters whose letters spell no other dictionary word."""
    counts = Counter(signature(w) for w in dictionary(length))
    return tuple(w for w in common_words(length) if counts[signature(w)] == 1)


@functools.cache
def _prefixes(length: int) -> frozenset[str]:
    return frozenset(w[:k] for w in dictionary(length) for k in range(1, length + 1))


def unscramble(letters: str) -> tuple[str | None, int]:
    """The dictionary word spelled by ``letters`` (built along dictionary prefixes), and the
    prefixes visited."""
    prefixes, remaining = _prefixes(len(letters)), Counter(letters)
    visited = 0
    stack = [""]
    while stack:
        prefix = stack.pop()
        visited += 1
        if len(prefix) == len(letters):
            return prefix, visited
        used = Counter(prefix)
        for ch in sorted(set(remaining - used), reverse=True):
            if prefix + ch in prefixes:
                stack.append(prefix + ch)
    return None, visited


def scramble(word: str, rng: np.random.Generator) -> str:
    while True:
        mixed = "".join(word[int(i)] for i in rng.permutation(len(word)))
        if mixed != word:
            return mixed


def read_words(text: str, count: int) -> list[str] | None:
    """``count`` words separated by commas, semicolons or spaces (case ignored)."""
    if len(text) > 40 * count + 200:
        return None
    words = [w.lower() for w in _SEPARATORS.split(text.strip().strip(".")) if w]
    if len(words) != count or not all(w.isascii() and w.isalpha() for w in words):
        return None
    return words


PROMPT = """Unscramble {what}. Each group of letters spells exactly one English word (use \
every letter exactly once).

{scrambles}

Answer with the {count_words} in the same order, separated by commas, inside <answer></answer> \
tags."""


@family(
    "anagrams",
    domain="words",
    knobs=AnagramsKnobs,
    levels=LEVELS,
    description="Unscramble common English words; each scramble has exactly one dictionary anagram.",
    verifier_kind="exact (unique anagram proven against a 63k-word dictionary)",
)
class Anagrams(Family):
    def generate(self, knobs: AnagramsKnobs, rng: np.random.Generator) -> TaskDraft:
        words: list[str] = []
        while len(words) < knobs.words:
            pool = unique_words(int(rng.integers(knobs.min_length, knobs.max_length + 1)))
            word = pool[int(rng.integers(len(pool)))]
            if word not in words:
                words.append(word)
        scrambles = [scramble(w, rng) for w in words]
        many = knobs.words > 1
        prompt = PROMPT.format(
            what=f"these {knobs.words} words" if many else "this word",
            scrambles="\n".join(f"{i}. {s.upper()}" for i, s in enumerate(scrambles, 1)),
            count_words=f"{knobs.words} words" if many else "word",
        )
        metadata = {"scrambles": scrambles, "canonical_hash": content_hash(sorted(words))}
        return TaskDraft(prompt, ", ".join(words), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=2000)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        expected = task.answer.split(", ")
        words = read_words(extraction.text, len(expected))
        if words is None:
            return Verdict.bad_format(f"answer with {len(expected)} words separated by commas")
        for i, (word, scrambled, right) in enumerate(
            zip(words, task.metadata["scrambles"], expected, strict=True), 1
        ):
            if signature(word) != signature(scrambled):
                return Verdict.wrong(f"word {i} does not use the letters {scrambled.upper()}", parsed=words)
            if word != right:
                return Verdict.wrong(f"word {i}: {word} is not an English word", parsed=words)
        return Verdict.right(parsed=words)

    def solve_exact(self, task: Task) -> SolverRun:
        """Builds each word letter by letter along dictionary prefixes (effort = prefixes visited)."""
        found, effort = [], 0
        for letters in task.metadata["scrambles"]:
            word, visited = unscramble(letters)
            found.append(word or "?")
            effort += visited
        return SolverRun(f"<answer>{', '.join(found)}</answer>", float(effort))

    def solve_weak(self, task: Task) -> SolverRun:
        """Tries 60 random orders of each scramble and keeps the first dictionary word."""
        rng = np.random.default_rng(int(task.id, 16))
        found = []
        for letters in task.metadata["scrambles"]:
            words = set(dictionary(len(letters)))
            tries = (
                "".join(letters[int(i)] for i in rng.permutation(len(letters))) for _ in range(WEAK_TRIES)
            )
            found.append(next((t for t in tries if t in words), letters))
        return SolverRun(f"<answer>{', '.join(found)}</answer>", float(WEAK_TRIES * len(found)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        words = task.answer.split(", ")
        scrambles = task.metadata["scrambles"]
        wrong = [
            scrambles,  # the letters as given
            [*words[:-1], words[-1][::-1]],
            [*words[:-1], words[-1][1:] + words[-1][0]],
            [*words[:-1], words[-1] + "s"],
            [*words[:-1], words[-1][:-1]],
        ]
        if len(words) > 1:
            wrong.append(words[::-1])
        texts = {", ".join(w) for w in wrong} - {task.answer}
        return [f"<answer>{t}</answer>" for t in sorted(texts)]
