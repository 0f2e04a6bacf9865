"""Where training and evaluation tasks come from, and the content split that keeps them apart.

A :class:`TaskSpace` names the families a run trains on, the knobs it pins on top of each level
(``{"expression": {"digits": 2}}``) and the share of the problem space held out for evaluation.

The split is by *content*, not by seed: a problem is held out when the hash of what the solver
sees (family and prompt, :func:`palaestra.rows.content_key`) falls in the held-out share; it is the
one split every consumer uses (:func:`palaestra.rows.is_test_content`). Two seeds that draw the
same problem land on the same side, so no held-out problem is ever trained on, by SFT, RL or
self-play, whatever seeds they draw (seeds alone did not give this: level 1 of ``expression`` has
162 distinct problems, and 200 "held-out" seeds were 117 problems all seen in training).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from palaestra.core import Task
from palaestra.rows import content_key, is_test_content

EVAL_SEED_BASE = 2**40  # held-out problems are drawn from seeds above this (training seeds stay below 2**31)
TRAIN_SEED_LIMIT = 2**31
DRAWS_PER_PROBLEM = 60  # give up looking for more distinct held-out problems after n * this many draws
# ... or after this many draws in a row found nothing new: the held-out side is exhausted (for a
# space of 162 problems, missing any one of them that long has probability below e**-12)
EXHAUSTED_AFTER = 2000


def parse_knobs(text: str | Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Per-family knob overrides from JSON text (``{"expression": {"digits": 2}}``) or a mapping."""
    if not text:
        return {}
    data = json.loads(text) if isinstance(text, str) else dict(text)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(
            f'knobs must map family names to knob objects, e.g. {{"expression": {{"digits": 2}}}}; got {text!r}'
        )
    return {str(k): dict(v) for k, v in data.items()}


@dataclass(frozen=True)
class TaskSpace:
    """Families, pinned knobs and the held-out share of one run."""

    families: tuple[str, ...]
    knobs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    heldout_share: float = 0.2

    def __post_init__(self) -> None:
        if not 0 < self.heldout_share < 1:
            raise ValueError(f"heldout_share must lie in (0, 1), got {self.heldout_share}")
        unknown = sorted(set(self.knobs) - set(self.families))
        if unknown:
            raise ValueError(f"knobs given for families the run does not use: {unknown}")

    def make(self, family: str, level: int, seed: int) -> Task:
        import palaestra

        return palaestra.make_task(family, seed=seed, level=level, **self.knobs.get(family, {}))

    def is_heldout(self, task: Task) -> bool:
        """Held out for this run: its content lies below ``heldout_share`` of the one split
        (:func:`palaestra.rows.is_test_content`), so every test row of an export or TRL dataset is
        held out here too."""
        return is_test_content(task, self.heldout_share)

    def train_task(self, family: str, level: int, rng: np.random.Generator) -> Task:
        """A task on the training side of the split (seeds drawn from ``rng`` until one is)."""
        for _ in range(10_000):
            task = self.make(family, level, int(rng.integers(TRAIN_SEED_LIMIT)))
            if not self.is_heldout(task):
                return task
        raise RuntimeError(f"{family} level {level}: no training-side problem in 10,000 draws")

    def heldout_tasks(self, family: str, level: int, n: int) -> list[Task]:
        """Up to ``n`` distinct held-out problems, always the same ones; fewer when the space of
        held-out problems is smaller than ``n`` (the caller reports how many it got)."""
        out: list[Task] = []
        seen: set[str] = set()
        since_new = 0
        for task in self._draws(family, level, n * DRAWS_PER_PROBLEM):
            key = content_key(task)
            since_new += 1
            if key in seen or not self.is_heldout(task):
                if since_new >= EXHAUSTED_AFTER:
                    break
                continue
            seen.add(key)
            out.append(task)
            since_new = 0
            if len(out) == n:
                break
        return out

    def _draws(self, family: str, level: int, count: int) -> Iterator[Task]:
        for i in range(count):
            yield self.make(family, level, EVAL_SEED_BASE + i)

    def eval_set(self, levels: Sequence[int], n: int) -> list[Task]:
        """Held-out problems for every family and level, ``n`` each at most."""
        return [t for f in self.families for lvl in levels for t in self.heldout_tasks(f, lvl, n)]

    @classmethod
    def from_config(cls, config: Any) -> TaskSpace:
        return cls(
            tuple(config.family_list()),
            parse_knobs(getattr(config, "knobs", "")),
            float(getattr(config, "heldout_share", 0.2)),
        )


def overlap(train: Iterable[Task], heldout: Iterable[Task]) -> int:
    """How many distinct held-out problems also occur among ``train`` (0 for a sound split)."""
    seen = {content_key(t) for t in train}
    return len({content_key(t) for t in heldout} & seen)
