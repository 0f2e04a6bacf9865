"""Adaptive difficulty for any trainer: ``record(task, reward)`` after grading, ``next_task()`` to draw.

    from palaestra.curriculum import Curriculum

    curriculum = Curriculum(["sudoku", "countdown"], seed=0)
    task = curriculum.next_task()              # at each family's current level
    ...                                        # the model answers, the verifier grades
    curriculum.record(task, verdict.reward)    # the level moves when the solve rate leaves the band

Each family keeps its own level and the outcomes of its recent attempts at that level. Once
``window`` outcomes are in, a solve rate above the band raises the level by one, a rate below it
lowers it by one, and the window starts over (outcomes from another level never count). This
is the same rule, in the same function (:func:`band_step`), that ``palaestra train`` uses
(``palaestra.agents.curriculum``); TRL/verl callbacks, the verification server and hand-written
loops all share it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import palaestra
from palaestra.core import MAX_LEVEL, MIN_LEVEL, Task, check_level

DEFAULT_BAND = (0.2, 0.8)
DEFAULT_WINDOW = 64


def band_step(
    outcomes: deque,
    level: int,
    new_outcomes: Iterable[bool],
    *,
    band: tuple[float, float] = DEFAULT_BAND,
    window: int = DEFAULT_WINDOW,
    min_level: int = MIN_LEVEL,
    max_level: int = MAX_LEVEL,
    adaptive: bool = True,
) -> tuple[int, float | None]:
    """Add ``new_outcomes`` (at ``level``) to ``outcomes`` and apply the solve-rate band.

    Returns ``(level, rate)``: the level to use from now on, and the solve rate that moved it
    (``None`` when it did not move). On a move ``outcomes`` is cleared; otherwise it keeps at
    most the last ``window`` outcomes.
    """
    outcomes.extend(bool(c) for c in new_outcomes)
    if adaptive and len(outcomes) >= window:
        rate = sum(outcomes) / len(outcomes)
        moved = level
        if rate > band[1] and level < max_level:
            moved = level + 1
        elif rate < band[0] and level > min_level:
            moved = level - 1
        if moved != level:
            outcomes.clear()
            return moved, rate
    while len(outcomes) > window:
        outcomes.popleft()
    return level, None


def check_band(band: Sequence[float], window: int) -> tuple[float, float]:
    low, high = (float(b) for b in band)
    if not 0.0 <= low < high <= 1.0:
        raise ValueError(f"band must be (low, high) with 0 <= low < high <= 1, got {tuple(band)}")
    if window < 1:
        raise ValueError(f"window must be positive, got {window}")
    return low, high


@dataclass
class _Family:
    level: int
    outcomes: deque = field(default_factory=deque)
    issued: int = 0
    attempts: int = 0
    solved: int = 0


class Curriculum:
    """Per-family adaptive levels over a set of families, usable from any training loop.

    Args:
        families: family names (``palaestra.families()``).
        start_level: every family's first level.
        band: target solve-rate band; the level rises above it and falls below it.
        window: recent attempts (at the current level) the solve rate is taken over.
        min_level, max_level: the levels the curriculum may use.
        success: a reward at or above this counts as solved (1.0: only fully correct answers).
        seed: seeds the task stream; the same seed and the same records give the same tasks.

    ``next_task`` cycles through the families in turn (use ``next_task(family)`` to choose);
    ``record`` accepts a :class:`Task` or any palaestra row (export, ``task_rows``). Thread-safe.
    """

    def __init__(
        self,
        families: Sequence[str],
        *,
        start_level: int = 1,
        band: Sequence[float] = DEFAULT_BAND,
        window: int = DEFAULT_WINDOW,
        min_level: int = MIN_LEVEL,
        max_level: int = MAX_LEVEL,
        success: float = 1.0,
        seed: int = 0,
    ) -> None:
        if not families:
            raise ValueError("a curriculum needs at least one family")
        for name in families:
            palaestra.get(name)  # unknown names fail here, listing the valid ones
        self.band = check_band(band, window)
        self.window, self.success = window, float(success)
        self.min_level, self.max_level = check_level(min_level), check_level(max_level)
        if not self.min_level <= check_level(start_level) <= self.max_level:
            raise ValueError(f"start_level {start_level} is outside [{min_level}, {max_level}]")
        self.families = list(dict.fromkeys(families))
        self.state = {f: _Family(level=start_level) for f in self.families}
        self.events: list[dict[str, Any]] = []
        self._seed = seed
        self._turn = 0
        self._lock = threading.Lock()

    def level(self, family: str) -> int:
        return self.state[family].level

    def next_task(self, family: str | None = None) -> Task:
        """A fresh task of ``family`` (default: the next family in turn) at its current level."""
        with self._lock:
            if family is None:
                family = self.families[self._turn % len(self.families)]
                self._turn += 1
            s = self.state[family]
            seed = self._task_seed(family, s.issued)
            s.issued += 1
            level = s.level
        return palaestra.make_task(family, seed=seed, level=level)

    def _task_seed(self, family: str, index: int) -> int:
        words = np.random.SeedSequence([self._seed, *family.encode(), index]).generate_state(2, np.uint32)
        return int(words[0]) | int(words[1]) << 32

    def record(self, task: Task | Mapping[str, Any] | str, reward: float) -> None:
        """Count one graded attempt: ``reward >= success`` is solved."""
        task = _as_task(task)
        if task.family not in self.state:
            raise ValueError(f"family {task.family!r} is not in this curriculum {self.families}")
        solved = float(reward) >= self.success
        with self._lock:
            s = self.state[task.family]
            s.attempts += 1
            s.solved += solved
            if task.level != s.level:  # graded after the level moved: do not mix levels
                return
            new, rate = band_step(
                s.outcomes,
                s.level,
                [solved],
                band=self.band,
                window=self.window,
                min_level=self.min_level,
                max_level=self.max_level,
            )
            if rate is not None:
                self.events.append({"family": task.family, "from": s.level, "to": new, "solve_rate": rate})
                s.level = new

    def record_batch(self, tasks: Sequence[Any], rewards: Sequence[float]) -> None:
        if len(tasks) != len(rewards):
            raise ValueError(f"{len(tasks)} tasks but {len(rewards)} rewards")
        for task, reward in zip(tasks, rewards, strict=True):
            self.record(task, reward)

    def metrics(self) -> dict[str, float]:
        """``curriculum/<family>/level`` and ``.../recent_solve_rate`` for a logger."""
        out: dict[str, float] = {}
        with self._lock:
            for name, s in self.state.items():
                out[f"curriculum/{name}/level"] = s.level
                out[f"curriculum/{name}/recent_solve_rate"] = (
                    sum(s.outcomes) / len(s.outcomes) if s.outcomes else float("nan")
                )
        return out

    def state_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "turn": self._turn,
                "events": list(self.events),
                "families": {
                    name: {
                        "level": s.level,
                        "outcomes": list(s.outcomes),
                        "issued": s.issued,
                        "attempts": s.attempts,
                        "solved": s.solved,
                    }
                    for name, s in self.state.items()
                },
            }

    def load_state_dict(self, data: Mapping[str, Any]) -> None:
        with self._lock:
            self._turn = int(data["turn"])
            self.events = list(data["events"])
            for name, d in data["families"].items():
                if name not in self.state:
                    raise ValueError(f"saved curriculum has family {name!r}, which this one does not have")
                self.state[name] = _Family(
                    level=d["level"],
                    outcomes=deque(d["outcomes"]),
                    issued=d["issued"],
                    attempts=d["attempts"],
                    solved=d["solved"],
                )


def _as_task(task: Any) -> Task:
    if isinstance(task, Task):
        return task
    from palaestra.rows import task_from_record

    if isinstance(task, Mapping) and "extra_info" in task:
        return task_from_record(task["extra_info"])
    return task_from_record(task)
