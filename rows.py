"""The row format: how a task travels as a dataset row, a trainer batch or a chat completion.

One row feeds every trainer without a ``map`` (``palaestra export``, the TRL/verl/OpenRLHF
adapters, evaluation and the bundled trainer all read and write it here):

- ``prompt`` is a conversational message list; ``data_source``/``reward_model``/``extra_info``
  are the columns verl's reward functions take;
- ``extra_info["task"]`` holds the whole task record, from which :func:`row_to_task` and
  :func:`task_from_record` rebuild the :class:`~palaestra.core.Task` (its id checked against its
  content);
- the identity columns (``id``, ``family``, ``family_version``, ``level``, ``seed``, ``knobs``,
  ``answer``) must agree with that record: an edited row raises, never gets graded as another task.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from palaestra.core import Task, canonical_json, content_hash
from palaestra.version import __version__

# The one train/test split (issue 25): a problem's side is a function of what the solver sees
# (family and prompt), never of its seed. Content whose fraction falls below TEST_SHARE is test
# content for every consumer (TRL rows, the GRPO loop, self-play in every language); a consumer
# may hold out more (the training loop's ``heldout_share``), never less.
TEST_SHARE = 0.2  # the training loop's default heldout_share: at defaults, one split exactly


def content_key(task: Task) -> str:
    """The canonical hash of a problem: its family and the prompt the solver sees."""
    return content_hash([task.family, task.prompt])


def split_fraction(task: Task) -> float:
    """The task's content mapped uniformly onto [0, 1)."""
    return int(content_key(task)[:12], 16) / 16**12


def is_test_content(task: Task, share: float = TEST_SHARE) -> bool:
    """Whether the task lies on the held-out side of a split that holds out ``share`` (at least
    :data:`TEST_SHARE`: a smaller share would put other consumers' test content in training)."""
    return split_fraction(task) < max(share, TEST_SHARE)


def features():  # -> datasets.Features
    """The typed columns of an exported dataset.

    One row feeds every trainer without a ``map``: ``prompt`` is a conversational message list
    (TRL, verl and OpenRLHF apply the chat template to it), ``data_source``/``reward_model``/
    ``extra_info`` are the columns verl's reward functions take, and ``extra_info.task`` is the
    whole task record that :func:`row_to_task` and palaestra's rewards rebuild the task from.
    """
    from datasets import Features, List, Value

    return Features(
        {
            "id": Value("string"),
            "family": Value("string"),
            "family_version": Value("int32"),
            "level": Value("int32"),
            "knobs": Value("string"),
            "seed": Value("int64"),
            "split": Value("string"),
            "canonical_hash": Value("string"),
            "palaestra_version": Value("string"),
            "prompt": List({"role": Value("string"), "content": Value("string")}),
            "answer": Value("string"),
            "data_source": Value("string"),
            "reward_model": {"style": Value("string"), "ground_truth": Value("string")},
            "extra_info": {"task": Value("string"), "split": Value("string")},
        }
    )


def dedup_key(task: Task) -> str:
    """Two tasks with the same key are the same task (up to the family's symmetries)."""
    return f"{task.family}/{task.metadata.get('canonical_hash') or task.id}"


DATA_SOURCE_PREFIX = "palaestra/"


def task_to_row(task: Task, split: str, system_prompt: str | None = None) -> dict[str, Any]:
    """One dataset row; ``knobs``, ``answer`` and the task record hold canonical JSON text."""
    turns = [{"role": "system", "content": system_prompt}] if system_prompt else []
    answer = canonical_json(task.answer)
    return {
        "id": task.id,
        "family": task.family,
        "family_version": task.family_version,
        "level": task.level,
        "knobs": canonical_json(dict(task.knobs)),
        "seed": task.seed,
        "split": split,
        "canonical_hash": str(task.metadata.get("canonical_hash") or task.id),
        "palaestra_version": __version__,
        "prompt": turns + [{"role": "user", "content": task.prompt}],
        "answer": answer,
        "data_source": DATA_SOURCE_PREFIX + task.family,
        "reward_model": {"style": "rule", "ground_truth": answer},
        "extra_info": {"task": task.to_json(), "split": split},
    }


# The columns a row's task must agree with (a tampered or mis-joined row fails loudly).
_CHECKED_COLUMNS = ("id", "family", "family_version", "level", "seed")


def row_to_task(row: Mapping[str, Any]) -> Task:
    """Rebuild the :class:`Task` of a row; its id is checked against its content and the row's
    own columns (``id``, ``family``, ``family_version``, ``level``, ``seed``, ``knobs``,
    ``answer``) must agree with it. Reads format-1 rows (flat ``metadata`` column) too."""
    info = row.get("extra_info")
    if isinstance(info, Mapping) and info.get("task"):
        task = Task.from_json(info["task"])
    elif "metadata" in row:  # format 1
        prompt = row["prompt"]
        task = Task.from_dict(
            {
                "id": row["id"],
                "family": row["family"],
                "family_version": row["family_version"],
                "difficulty": {"level": row["level"], "knobs": json.loads(row["knobs"])},
                "seed": row["seed"],
                "prompt": prompt if isinstance(prompt, str) else _user_turn(prompt),
                "answer": json.loads(row["answer"]),
                "metadata": json.loads(row["metadata"]),
            }
        )
    else:
        raise ValueError(
            f"not a palaestra row: it has no 'extra_info' with the task record (columns: {sorted(row)})"
        )
    check_row_agrees(row, task)
    return task


def _user_turn(messages: Sequence[Mapping[str, Any]]) -> str:
    users = [m["content"] for m in messages if m.get("role") == "user"]
    if len(users) != 1:
        raise ValueError(f"a palaestra prompt has exactly one user turn, got {len(users)}")
    return users[0]


def check_row_agrees(row: Mapping[str, Any], task: Task) -> None:
    """Raise ``ValueError`` where one of the row's identity columns (those it has) disagrees with
    ``task``: a row edited after export is refused, never graded as some other task."""
    expected = {
        "id": task.id,
        "family": task.family,
        "family_version": task.family_version,
        "level": task.level,
        "seed": task.seed,
    }
    for column in _CHECKED_COLUMNS:
        if column in row and row[column] != expected[column]:
            raise ValueError(
                f"row column {column}={row[column]!r} disagrees with its task ({expected[column]!r})"
            )
    if "knobs" in row and json.loads(row["knobs"]) != dict(task.knobs):
        raise ValueError("row column 'knobs' disagrees with its task")
    if "answer" in row and json.loads(row["answer"]) != task.answer:
        raise ValueError("row column 'answer' disagrees with its task")


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
    present = [c for c in IDENTITY_COLUMNS if columns.get(c) is not None and len(columns[c]) == len(tasks)]
    for i, task in enumerate(tasks):
        check_row_agrees({c: columns[c][i] for c in present}, task)


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
