"""pattern_avoiding_strings: the automaton DP re-counted by listing every string (levels 1-4)."""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "pattern_avoiding_strings"


def list_every_string(length: int, letters: str, words: list[str]) -> int:
    return sum(not any(w in "".join(s) for w in words) for s in product(letters, repeat=length))


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 3))
@settings(max_examples=40, deadline=None)
def test_the_count_is_what_listing_every_string_finds(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    meta = task.metadata
    count = list_every_string(meta["length"], meta["letters"], meta["words"])
    assert task.answer == str(count % meta["modulus"] if meta["modulus"] else count)


def test_level_four_reduces_modulo_the_prime() -> None:
    task = palaestra.make_task(FAMILY, seed=3, level=4)
    meta = task.metadata
    if len(meta["letters"]) ** meta["length"] <= 3**12:
        count = list_every_string(meta["length"], meta["letters"], meta["words"])
        assert task.answer == str(count % meta["modulus"])
    assert meta["modulus"] == 10007 and 0 <= int(task.answer) < 10007
