"""reasoning-gym's API over palaestra's families: code written for reasoning-gym runs unchanged.

    from palaestra.integrations import reasoning_gym as rg     # instead of `import reasoning_gym as rg`

    data = rg.create_dataset("sudoku", size=100, seed=42, level=3)
    for entry in data:
        answer = my_model(entry["question"])                  # the text inside <answer></answer>
        reward = data.score_answer(answer, entry)             # 1.0 or 0.0, graded by the verifier

As in reasoning-gym, a dataset is a sized, indexable, iterable sequence of entries
``{"question", "answer", "metadata"}`` whose item ``i`` is a pure function of ``(seed, i)``,
``score_answer(answer, entry)`` grades an extracted answer (``None`` scores 0.0), and
:func:`get_score_answer_fn` finds the scorer from ``metadata["source_dataset"]``. What differs:
names are palaestra families (:data:`DATASETS`), difficulty is ``level`` (1..10) or the family's
knobs, and ``metadata["task"]`` carries the task record, so any entry can be re-verified later.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

import palaestra
from palaestra.core import Task
from palaestra.integrations._common import tagged_answer, verify_batch
from palaestra.rows import task_from_record

SOURCE_PREFIX = "palaestra/"
_ANSWER = re.compile(r"<answer>(.*)</answer>", re.DOTALL)


def __getattr__(name: str) -> Any:
    if name == "DATASETS":  # the registry is read when asked (plugins register late)
        return palaestra.families()
    raise AttributeError(name)


class PalaestraDataset:
    """``size`` tasks of one family, as reasoning-gym's ``ProceduralDataset`` presents them."""

    def __init__(
        self, family: str, *, size: int = 500, seed: int | None = None, level: int | None = None, **knobs: Any
    ):
        spec = palaestra.get(family)  # unknown names raise ValueError listing the valid ones
        if size < 1:
            raise ValueError(f"size must be positive, got {size}")
        self.family, self.size, self.level, self.knobs = family, int(size), level, dict(knobs)
        self.seed = int(np.random.SeedSequence().generate_state(1)[0]) if seed is None else int(seed)
        self.category = spec.domain
        self.config = {"size": self.size, "seed": self.seed, "level": level, **self.knobs}
        palaestra.make_task(family, seed=0, level=level, **knobs)  # bad level/knobs fail here

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self[i] for i in range(self.size))

    def __getitem__(self, index: int) -> dict[str, Any]:
        if not -self.size <= index < self.size:
            raise IndexError(f"index {index} out of range for a dataset of {self.size}")
        index %= self.size
        task = palaestra.make_task(self.family, seed=self.task_seed(index), level=self.level, **self.knobs)
        return entry_of(task, index)

    def task_seed(self, index: int) -> int:
        words = np.random.SeedSequence([self.seed, index]).generate_state(2, np.uint32)
        return int(words[0]) | int(words[1]) << 32

    def score_answer(self, answer: str | None, entry: Mapping[str, Any]) -> float:
        return score_answer(answer, entry)


def entry_of(task: Task, index: int = 0) -> dict[str, Any]:
    """A reasoning-gym entry for ``task``; ``answer`` is the reference answer's text."""
    reference = palaestra.get(task.family).impl.reference_response(task)
    found = _ANSWER.search(reference)
    return {
        "question": task.prompt,
        "answer": (found.group(1) if found else reference).strip(),
        "metadata": {
            "source_dataset": SOURCE_PREFIX + task.family,
            "source_index": index,
            "family": task.family,
            "level": task.level,
            "seed": task.seed,
            "id": task.id,
            "difficulty": {"level": task.level, **dict(task.knobs)},
            "task": task.to_json(),
        },
    }


def score_answer(answer: str | None, entry: Mapping[str, Any]) -> float:
    """The verifier's reward for an extracted ``answer`` (tags are added when it has none)."""
    if answer is None:
        return 0.0
    task = task_from_record(entry["metadata"]["task"])
    return float(verify_batch([task], [tagged_answer(answer)], workers=0)[0].reward)


def create_dataset(name: str, **kwargs: Any) -> PalaestraDataset:
    """reasoning-gym's entry point: ``create_dataset(name, size=, seed=, level=, **knobs)``."""
    return PalaestraDataset(name, **kwargs)


def get_score_answer_fn(name: str) -> Callable[[str | None, Mapping[str, Any]], float]:
    """The scorer for a ``source_dataset`` name (``"palaestra/sudoku"`` or ``"sudoku"``)."""
    palaestra.get(name.removeprefix(SOURCE_PREFIX))
    return score_answer
