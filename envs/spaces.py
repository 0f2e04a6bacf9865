"""A text space that accepts any string up to a length.

Gymnasium's ``spaces.Text`` checks every character against a finite charset whose default
rejects spaces and punctuation, so it cannot hold a prompt or a model response.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

# Sampling draws from printable ASCII plus a few non-ASCII letters and whitespace, so a
# sampled action exercises the same paths as real model text.
_SAMPLE_ALPHABET = [chr(c) for c in range(32, 127)] + ["\n", "\t", "é", "π", "≤", "中"]


class AnyText(spaces.Space[str]):
    """Any ``str`` of at most ``max_length`` characters."""

    def __init__(self, max_length: int = 1 << 20, seed: int | np.random.Generator | None = None):
        if max_length < 1:
            raise ValueError(f"max_length must be positive, got {max_length}")
        self.max_length = int(max_length)
        super().__init__(dtype=str, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        length = int(self.np_random.integers(0, min(self.max_length, 64) + 1))
        picks = self.np_random.integers(0, len(_SAMPLE_ALPHABET), size=length)
        return "".join(_SAMPLE_ALPHABET[i] for i in picks)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText(max_length={self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AnyText) and other.max_length == self.max_length

    def to_jsonable(self, sample_n: Any) -> list[str]:
        return list(sample_n)

    def from_jsonable(self, sample_n: list[str]) -> list[str]:
        return list(sample_n)
