"""A family for tests of ``verify_many`` whose verifier crashes or hangs on request.

Imported by tests/test_batch.py (which registers it only for the duration of a test) and, by
file, in the worker processes of ``verify_many``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family

NAME = "batch_probe"


@dataclass(frozen=True)
class ProbeKnobs(Knobs):
    size: int = knob(10, low=1, high=100, help="range of the number to echo")


@family(
    NAME,
    domain="arithmetic",
    knobs=ProbeKnobs,
    levels={k: ProbeKnobs() for k in range(1, 11)},
    description="Echo a number (test family: 'crash' kills the verifier, 'hang' stalls it).",
)
class BatchProbe(Family):
    def generate(self, knobs: ProbeKnobs, rng: np.random.Generator) -> TaskDraft:
        n = int(rng.integers(0, knobs.size))
        return TaskDraft(prompt=f"Echo {n}.", answer=str(n))

    def verify(self, task: Task, response: str) -> Verdict:
        if response == "crash":
            os._exit(3)
        if response == "hang":
            time.sleep(3600)
        if response == "raise":
            raise RuntimeError("verifier bug")
        return Verdict.right(parsed=response) if response == task.answer else Verdict.wrong("not the number")

    def solve_exact(self, task: Task) -> SolverRun:
        return SolverRun(task.answer, 1.0)
