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
    description=(
        "Echo a number (test family: 'crash' kills the verifier, 'hang' stalls it, 'mark:PATH' "
        "creates PATH, 'crash-once:PATH' kills the verifier unless PATH exists, 'env' reports "
        "the worker's environment and address-space limit)."
    ),
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
        if response.startswith("mark:"):
            open(response[5:], "w").close()
        if response.startswith("crash-once:"):
            if not os.path.exists(response[11:]):
                open(response[11:], "w").close()
                os._exit(3)
            return Verdict.right(parsed=response)
        if response == "env":
            import json
            import resource

            report = {
                "env": sorted(os.environ.items()),
                "rlimit_as": resource.getrlimit(resource.RLIMIT_AS)[1],
            }
            return Verdict.wrong(json.dumps(report))
        return Verdict.right(parsed=response) if response == task.answer else Verdict.wrong("not the number")

    def solve_exact(self, task: Task) -> SolverRun:
        return SolverRun(task.answer, 1.0)
