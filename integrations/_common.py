"""What the adapters share besides the row format (:mod:`palaestra.rows`): tool answers, retry
feedback and batched grading."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import palaestra
from palaestra.core import Task, Verdict

# Samples an adapter paid 0.0 because it could not grade them, by kind, where the trainer would
# otherwise swallow the error. One counter per process: trainers load adapter files by path (a
# second copy of the module), and both copies count here.
GRADING_ERRORS: Counter[str] = Counter()


def tagged_answer(answer: str) -> str:
    """A tool's answer argument as a response: a bare answer gets the ``<answer>`` tags the
    verifiers read (an answer already tagged is left as it is)."""
    return answer if "<answer>" in answer else f"<answer>{answer}</answer>"


def retry_feedback(verdict: Verdict, left: int) -> str:
    """What a retry tool says after a wrong answer: why, and how many attempts are left."""
    kind = "wrong" if verdict.format_ok else "unreadable answer"
    return f"{kind} ({verdict.reason}); {left} attempt{'s' if left != 1 else ''} left"


def verify_batch(
    tasks: Sequence[Task],
    responses: Sequence[str],
    *,
    workers: int | None = None,
    timeout_s: float | None = None,
) -> list[Verdict]:
    """Grade a batch; every adapter and the server grade through this one function.

    It is :func:`palaestra.verify_many`: worker processes (one per core by default; ``workers=0``
    grades in this thread), each verdict bounded by ``timeout_s``, sandboxed families on the
    shared sandbox. Multi-turn adapters grading one answer at a time pass ``workers=0``.
    """
    return palaestra.verify_many(tasks, responses, workers=workers, timeout_s=timeout_s)
