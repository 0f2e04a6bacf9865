"""A text space that accepts any string up to a length.

Gymnasium's ``spaces.Text`` checks every character against a finite charset whose default
rejects spaces and punctuation, so it cannot hold a prompt or a model response.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils.shared_memory import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

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


# --------------------------------------------------------------------------------------------
# Shared memory for AsyncVectorEnv (its default, shared_memory=True, needs these per space)
# --------------------------------------------------------------------------------------------

_LENGTH_BYTES = 8  # each env's slot: the UTF-8 length, then the bytes (at most 4 per character)


def _slot_bytes(space: AnyText) -> int:
    return _LENGTH_BYTES + 4 * space.max_length


@create_shared_memory.register(AnyText)
def _create_text_memory(space: AnyText, n: int = 1, ctx: Any = multiprocessing) -> Any:
    # Pages no env writes to are never touched again after allocation: a long max_length costs
    # address space, and each step copies only the text's own bytes.
    return ctx.Array("B", n * _slot_bytes(space))


@write_to_shared_memory.register(AnyText)
def _write_text_memory(space: AnyText, index: int, value: str, shared_memory: Any) -> None:
    data = value.encode("utf-8")
    buffer = np.frombuffer(shared_memory.get_obj(), dtype=np.uint8)
    start = index * _slot_bytes(space)
    buffer[start : start + _LENGTH_BYTES] = np.frombuffer(
        len(data).to_bytes(_LENGTH_BYTES, "little"), np.uint8
    )
    buffer[start + _LENGTH_BYTES : start + _LENGTH_BYTES + len(data)] = np.frombuffer(data, np.uint8)


@read_from_shared_memory.register(AnyText)
def _read_text_memory(space: AnyText, shared_memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(space, shared_memory, n)


class SharedTexts(Sequence[str]):
    """The ``n`` texts in a shared-memory buffer, decoded when read.

    AsyncVectorEnv reads its observation buffer once and expects a live view of it (for numpy
    spaces it gets an array over the buffer); a tuple of strings would stay stale forever. With
    ``copy=True`` (its default) the vector env deep-copies this view: the copy is a plain tuple.
    """

    def __init__(self, space: AnyText, shared_memory: Any, n: int):
        self._buffer = np.frombuffer(shared_memory.get_obj(), dtype=np.uint8)
        self._slot, self._n = _slot_bytes(space), n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._n)))
        if not -self._n <= index < self._n:
            raise IndexError(index)
        start = (index % self._n) * self._slot
        length = int.from_bytes(self._buffer[start : start + _LENGTH_BYTES].tobytes(), "little")
        return self._buffer[start + _LENGTH_BYTES : start + _LENGTH_BYTES + length].tobytes().decode("utf-8")

    def __deepcopy__(self, memo: Any) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"
