"""Task buffers per task type, with provenance, an eviction policy that keeps fresh and
learnable tasks (a new task always gets in: the buffer never freezes at its cap), reference
sampling for the proposer prompt, and exact checkpoint/resume.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .languages import SelfPlayTask

FRESHNESS_HALF_LIFE = 20.0  # steps after which a task's freshness bonus halves


@dataclass
class Entry:
    """A buffered task and its provenance: when and by which proposer sample it was made, and
    every pass rate measured on it since."""

    task: SelfPlayTask
    step: int
    proposer_sample: str  # "<step>:<index>" of the proposal that made it, or "seed"/"catalog"
    pass_rates: list[float] = field(default_factory=list)

    def score(self, now: int) -> float:
        """Keep-score: learnability of the latest pass rate (p(1-p)*4, in [0, 1]) plus a
        freshness bonus halving every FRESHNESS_HALF_LIFE steps. Unmeasured tasks count as
        maximally uncertain."""
        p = self.pass_rates[-1] if self.pass_rates else 0.5
        learnable = 4.0 * p * (1.0 - p)
        fresh = 0.5 ** ((now - self.step) / FRESHNESS_HALF_LIFE)
        return learnable + fresh

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["task"] = self.task.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Entry:
        return cls(
            task=SelfPlayTask.from_dict(data["task"]),
            step=data["step"],
            proposer_sample=data["proposer_sample"],
            pass_rates=list(data["pass_rates"]),
        )


class TaskBuffer:
    """One buffer of tasks of one type, capped at ``capacity``."""

    def __init__(self, capacity: int = 256, seed: int = 0) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.capacity = capacity
        self.entries: list[Entry] = []
        self.rng = np.random.default_rng(seed)
        self.evicted = 0

    def __len__(self) -> int:
        return len(self.entries)

    def canonicals(self) -> set[str]:
        return {e.task.canonical for e in self.entries}

    def shapes(self) -> list[str]:
        return [e.task.shape for e in self.entries]

    def add(
        self, task: SelfPlayTask, step: int, proposer_sample: str, pass_rate: float | None = None
    ) -> Entry:
        """Insert ``task``; at the cap, evict the lowest-scoring OLDER entry (ties: the oldest)."""
        entry = Entry(task, step, proposer_sample, [] if pass_rate is None else [float(pass_rate)])
        if len(self.entries) >= self.capacity:
            scores = [(e.score(step), e.step, k) for k, e in enumerate(self.entries)]
            _, _, worst = min(scores)
            del self.entries[worst]
            self.evicted += 1
        self.entries.append(entry)
        return entry

    def record(self, canonical: str, pass_rate: float) -> None:
        """Append a newly measured pass rate to the entry with this canonical hash."""
        for entry in self.entries:
            if entry.task.canonical == canonical:
                entry.pass_rates.append(float(pass_rate))

    def sample(self, k: int) -> list[SelfPlayTask]:
        """``k`` distinct reference tasks (fewer if the buffer is smaller), weighted by score."""
        if not self.entries or k <= 0:
            return []
        now = max(e.step for e in self.entries)
        weights = np.array([e.score(now) for e in self.entries], dtype=np.float64) + 1e-6
        picks = self.rng.choice(
            len(self.entries), size=min(k, len(self.entries)), replace=False, p=weights / weights.sum()
        )
        return [self.entries[int(i)].task for i in picks]

    # -- checkpoint
    def state_dict(self) -> dict[str, Any]:
        return {
            "capacity": self.capacity,
            "evicted": self.evicted,
            "entries": [e.to_dict() for e in self.entries],
            "rng": self.rng.bit_generator.state,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> TaskBuffer:
        buffer = cls(capacity=state["capacity"])
        buffer.evicted = state["evicted"]
        buffer.entries = [Entry.from_dict(d) for d in state["entries"]]
        buffer.rng.bit_generator.state = state["rng"]
        return buffer


class Buffers:
    """One :class:`TaskBuffer` per task type."""

    def __init__(self, task_types: Iterable[str], capacity: int = 256, seed: int = 0) -> None:
        self.buffers = {t: TaskBuffer(capacity, seed=seed + k) for k, t in enumerate(task_types)}

    def __getitem__(self, task_type: str) -> TaskBuffer:
        return self.buffers[task_type]

    def state_dict(self) -> dict[str, Any]:
        return {t: b.state_dict() for t, b in self.buffers.items()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.buffers = {t: TaskBuffer.from_state(s) for t, s in state.items()}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.state_dict()))

    @classmethod
    def load(cls, path: str | Path) -> Buffers:
        state = json.loads(Path(path).read_text())
        buffers = cls(())
        buffers.load_state_dict(state)
        return buffers
