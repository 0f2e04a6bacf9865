"""The word lists of the words families (SCOWL; provenance and licence in ``data/SOURCE.md``).

``common_words(n)``: the most common English words of ``n`` letters (SCOWL sizes 10 and 20),
from which secrets and reference answers are drawn. ``known_words(n)``: words an educated reader
knows (SCOWL up to size 35), which a word ladder's reference steps may use. ``dictionary(n)``: every word of ``n``
letters of the larger spell-checker list (SCOWL sizes up to 50, American and British
spellings), which solvers may use and against which uniqueness is proven. Both are sorted
tuples of lowercase ASCII words, loaded once per process.
"""

from __future__ import annotations

import functools
import gzip
from importlib import resources

MAX_WORD_LETTERS = 40


@functools.cache
def _all(name: str) -> tuple[str, ...]:
    data = resources.files("palaestra.generators.words").joinpath("data", name).read_bytes()
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    return tuple(data.decode("ascii").split())


def all_common_words() -> tuple[str, ...]:
    return _all("common.txt")


def all_known_words() -> tuple[str, ...]:
    return _all("known.txt.gz")


def all_dictionary_words() -> tuple[str, ...]:
    return _all("dictionary.txt.gz")


@functools.cache
def common_words(length: int) -> tuple[str, ...]:
    """Common words of ``length`` letters, sorted."""
    return tuple(w for w in all_common_words() if len(w) == length)


@functools.cache
def known_words(length: int) -> tuple[str, ...]:
    """Known words of ``length`` letters (SCOWL up to size 35), sorted; between the two lists."""
    return tuple(w for w in all_known_words() if len(w) == length)


@functools.cache
def dictionary(length: int) -> tuple[str, ...]:
    """Dictionary words of ``length`` letters, sorted (a superset of ``common_words``)."""
    return tuple(w for w in all_dictionary_words() if len(w) == length)


@functools.cache
def dictionary_set() -> frozenset[str]:
    return frozenset(all_dictionary_words())


def is_word(word: str) -> bool:
    """Whether ``word`` (lowercase) is in the dictionary."""
    return len(word) <= MAX_WORD_LETTERS and word in dictionary_set()
