"""What every adapter shares: reading tasks from a trainer's batch, completion text, batched grading.

Trainers hand a reward function the dataset's columns as lists (TRL), one row's fields (verl,
OpenRLHF) or a label string. Every palaestra row carries its whole task record in
``extra_info["task"]`` (exports and :func:`palaestra.integrations.trl.task_rows` alike); older
rows carried it as a ``task`` column. A batch without either is a data-shape mismatch and fails
loudly: a reward never scores 0 because it was handed the wrong columns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import palaestra
from palaestra.core import Task, Verdict

MISSING_TASK = (
    "palaestra rewards need the task record: pass the rows of `palaestra export` or "
    "`palaestra.integrations.trl.task_rows` unchanged (their `extra_info` column holds it)"
)


def task_from_record(record: Any) -> Task:
    """A task from what a row carries: ``extra_info`` (dict or its JSON), the task JSON, or a Task."""
    if isinstance(record, Task):
        return record
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except json.JSONDecodeError:
            raise ValueError(f"{MISSING_TASK}; got a string that is not JSON: {record[:80]!r}") from None
    if isinstance(record, Mapping):
        if "task" in record:  # extra_info
            return task_from_record(record["task"])
        if "family" in record and "difficulty" in record:  # the task record itself
            return Task.from_dict(record)
    raise ValueError(f"{MISSING_TASK}; got {type(record).__name__}: {str(record)[:80]!r}")


IDENTITY_COLUMNS = ("id", "family", "family_version", "level", "seed", "knobs", "answer")


def tasks_from_columns(columns: Mapping[str, Any], n: int) -> list[Task]:
    """The ``n`` tasks of a batch given as columns (``extra_info`` or, for old rows, ``task``).

    The rows' identity columns (``id``, ``family``, ``seed``, ... where the batch has them) must
    agree with their task records, as ``palaestra verify-dataset`` checks them: an edited row
    raises ``ValueError`` instead of being graded as the task its record holds.
    """
    for name in ("extra_info", "task"):
        values = columns.get(name)
        if values is not None:
            if len(values) != n:
                raise ValueError(f"{n} completions but {len(values)} values in column {name!r}")
            tasks = _cached_tasks(values)
            _check_identity_columns(columns, tasks)
            return tasks
    raise ValueError(f"{MISSING_TASK}; the batch has columns {sorted(columns)}")


def _cached_tasks(values: Sequence[Any]) -> list[Task]:
    cache: dict[str, Task] = {}  # a GRPO batch repeats each task once per generation
    out = []
    for value in values:
        key = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        if key not in cache:
            cache[key] = task_from_record(value)
        out.append(cache[key])
    return out


def _check_identity_columns(columns: Mapping[str, Any], tasks: Sequence[Task]) -> None:
    from palaestra.export import check_row_agrees

    present = [c for c in IDENTITY_COLUMNS if columns.get(c) is not None and len(columns[c]) == len(tasks)]
    for i, task in enumerate(tasks):
        check_row_agrees({c: columns[c][i] for c in present}, task)


def tagged_answer(answer: str) -> str:
    """A tool's answer argument as a response: a bare answer gets the ``<answer>`` tags the
    verifiers read (an answer already tagged is left as it is)."""
    return answer if "<answer>" in answer else f"<answer>{answer}</answer>"


def retry_feedback(verdict: Verdict, left: int) -> str:
    """What a retry tool says after a wrong answer: why, and how many attempts are left."""
    kind = "wrong" if verdict.format_ok else "unreadable answer"
    return f"{kind} ({verdict.reason}); {left} attempt{'s' if left != 1 else ''} left"


def completion_text(completion: Any) -> str:
    """TRL passes a string (standard format) or a list of chat messages (conversational)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return str(completion.get("content") or "")
    if isinstance(completion, Sequence) and completion:
        # the final assistant message carries the answer
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
                return str(message.get("content") or "")
    return ""


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
