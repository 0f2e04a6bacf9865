"""The tasks the suite attacks, and the attacks' verdicts, computed once per process."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

import palaestra
from palaestra.core import Task, Verdict

from .attacks import Attack, attacks_for

LEVELS = (1, 5, 10)
SEEDS = (0, 1)
OTHER_SEEDS = (7, 8)  # whose reference answers are offered as answers to seeds 0 and 1
SIZE_TASKS = ((5, 0),)  # (level, seed): the megabyte attacks cost time, one task per family


@dataclass(frozen=True)
class Outcome:
    task: Task
    attack: Attack
    verdict: Verdict
    cpu_s: float
    wall_s: float

    def describe(self) -> str:
        v = self.verdict
        return (
            f"{self.task.family} L{self.task.level} seed {self.task.seed} {self.attack.cls}/{self.attack.name}: "
            f"status={v.status} reward={v.reward} reason={v.reason[:100]!r} response={self.attack.response[:160]!r}"
        )


@cache
def tasks(family: str, levels: tuple[int, ...] = LEVELS, seeds: tuple[int, ...] = SEEDS) -> tuple[Task, ...]:
    return tuple(palaestra.make_task(family, seed=s, level=lv) for lv in levels for s in seeds)


@cache
def outcomes(family: str, cls: str) -> tuple[Outcome, ...]:
    """Every attack of class ``cls`` on the family's tasks, with its verdict and verify time."""
    chosen = (
        tasks(family, levels=tuple(lv for lv, _ in SIZE_TASKS), seeds=(SIZE_TASKS[0][1],))
        if cls == "size"
        else tasks(family)
    )
    out = []
    for task in chosen:
        for attack in attacks_for(task, (cls,), OTHER_SEEDS):
            if attack.slow and task is not chosen[0]:
                continue
            cpu, wall = time.process_time(), time.perf_counter()
            verdict = palaestra.verify(task, attack.response)
            out.append(Outcome(task, attack, verdict, time.process_time() - cpu, time.perf_counter() - wall))
    return tuple(out)
