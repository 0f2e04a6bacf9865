"""anagrams: every scramble spells exactly one word of the shipped dictionary (checked here
by reading the data files directly and comparing letter counts)."""

from __future__ import annotations

import functools
import gzip
import time
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.words import wordlist as _wordlist

DATA = Path(_wordlist.__file__).resolve().parent / "data"


@functools.cache
def _dictionary() -> dict[int, list[str]]:
    words = gzip.decompress((DATA / "dictionary.txt.gz").read_bytes()).decode().split()
    by_length: dict[int, list[str]] = {}
    for word in words:
        by_length.setdefault(len(word), []).append(word)
    return by_length


@functools.cache
def _common() -> frozenset[str]:
    return frozenset((DATA / "common.txt").read_text().split())


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_each_scramble_has_exactly_one_dictionary_anagram(seed: int, level: int) -> None:
    task = palaestra.make_task("anagrams", seed=seed, level=level)
    answers = task.answer.split(", ")
    assert len(answers) == task.knobs["words"] == len(set(answers))
    for scrambled, answer in zip(task.metadata["scrambles"], answers, strict=True):
        letters = Counter(scrambled)
        spelled = [w for w in _dictionary()[len(scrambled)] if Counter(w) == letters]
        assert spelled == [answer]
        assert answer in _common() and scrambled != answer
        assert task.knobs["min_length"] <= len(answer) <= task.knobs["max_length"]
        assert scrambled.upper() in task.prompt


def test_answer_forms_and_wrong_words() -> None:
    task = palaestra.make_task("anagrams", seed=7, level=6)
    words = task.answer.split(", ")
    for form in (" ".join(words), ";".join(w.upper() for w in words), ",\n".join(words) + "."):
        assert palaestra.verify(task, f"<answer>{form}</answer>").correct, form
    assert not palaestra.verify(task, f"<answer>{', '.join(words[::-1])}</answer>").correct
    assert not palaestra.verify(task, f"<answer>{', '.join(words[:-1])}</answer>").format_ok
    other = [*words[:-1], words[-1][1:] + words[-1][0]]
    assert "not an English word" in palaestra.verify(task, f"<answer>{', '.join(other)}</answer>").reason
    assert "letters" in palaestra.verify(task, f"<answer>{', '.join([*words[:-1], 'zzz'])}</answer>").reason


def test_hostile_answers_are_refused_quickly() -> None:
    task = palaestra.make_task("anagrams", seed=1, level=10)
    started = time.process_time()
    for response in ("<answer>" + "a " * 10**5 + "</answer>", "<answer>" + "ab" * 1000 + "</answer>"):
        assert not palaestra.verify(task, response).correct
    assert time.process_time() - started < 0.5
