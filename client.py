"""A standard-library client for ``palaestra serve``: tasks, batched verification, curriculum.

It needs nothing beyond the core library (no FastAPI), so a trainer's reward worker can talk to
a server from any environment; :func:`remote_reward` wraps it as a TRL-style reward function.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from palaestra.core import Task, Verdict

KNOWN_TASKS = 4096  # records a client remembers the server has checked (the server keeps as many)


class Client:
    """A standard-library client for ``palaestra serve`` (one keep-alive-free request per call).

    ``token``: the server's bearer token (default: the ``PALAESTRA_TOKEN`` environment variable).
    A task record the server has checked is sent again as its id (``task_ref``); where the
    server no longer holds it, the request is sent once more with the records.
    """

    def __init__(
        self, url: str = "http://127.0.0.1:8000", timeout_s: float = 300.0, *, token: str | None = None
    ) -> None:
        self.url, self.timeout_s = url.rstrip("/"), timeout_s
        self.token = token if token is not None else os.environ.get("PALAESTRA_TOKEN") or None
        self._checked: OrderedDict[str, Any] = OrderedDict()  # task id -> the record the server took

    def _call(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(
            self.url + path,
            data=data,
            headers=headers,
            method="GET" if data is None else "POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as reply:
                return json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")[:500]
            raise ValueError(f"palaestra server {exc.code} on {path}: {detail}") from None

    def health(self) -> dict[str, Any]:
        return self._call("/health")

    def tasks(
        self, family: str, n: int = 1, *, seed: int = 0, level: int | None = None, **knobs: Any
    ) -> list[Task]:
        body = {"family": family, "n": n, "seed": seed, "level": level, "knobs": knobs}
        return [Task.from_dict(t) for t in self._call("/v1/tasks", body)["tasks"]]

    def verify(
        self, tasks: Sequence[Any], responses: Sequence[str], *, timeout_s: float | None = None
    ) -> list[Verdict]:
        records = [_record(t) for t in tasks]
        items = [self._item(record, r) for record, r in zip(records, responses, strict=True)]
        try:
            reply = self._call("/v1/verify", {"items": items, "timeout_s": timeout_s})
        except ValueError as exc:
            if "unknown 'task_ref'" not in str(exc):
                raise
            self._checked.clear()  # the server restarted or let them go: send every record
            items = [{"task": record, "response": r} for record, r in zip(records, responses, strict=True)]
            reply = self._call("/v1/verify", {"items": items, "timeout_s": timeout_s})
        for record in records:  # answered 200: the server checked every one of them
            self._remember(record)
        return [Verdict(**v) for v in reply["verdicts"]]

    def _item(self, record: Any, response: str) -> dict[str, Any]:
        task_id = _task_id(record)
        if task_id is not None and self._checked.get(task_id) == record:
            return {"task_ref": task_id, "response": response}
        return {"task": record, "response": response}

    def _remember(self, record: Any) -> None:
        task_id = _task_id(record)
        if task_id is not None:
            self._checked[task_id] = record
            self._checked.move_to_end(task_id)
            while len(self._checked) > KNOWN_TASKS:
                self._checked.popitem(last=False)

    def next_tasks(self, n: int = 1, family: str | None = None) -> list[Task]:
        return [
            Task.from_dict(t) for t in self._call("/v1/curriculum/next", {"n": n, "family": family})["tasks"]
        ]

    def record(self, tasks: Sequence[Any], rewards: Sequence[float]) -> dict[str, int]:
        items = [{"task": _record(t), "reward": float(r)} for t, r in zip(tasks, rewards, strict=True)]
        return self._call("/v1/curriculum/record", {"items": items})["levels"]


def _record(task: Any) -> Any:
    return task.to_dict() if isinstance(task, Task) else task


def _task_id(record: Any) -> str | None:
    """The task id a record carries (a task record, or a row's ``extra_info`` holding one)."""
    if isinstance(record, dict):
        if "family" in record:
            return record["id"] if isinstance(record.get("id"), str) else None
        if isinstance(record.get("task"), dict):
            return _task_id(record["task"])
    return None


def remote_reward(
    url: str = "http://127.0.0.1:8000", *, timeout_s: float | None = None, token: str | None = None
) -> Any:
    """A TRL-style reward function graded by a palaestra server (rows need ``extra_info``)."""
    from palaestra.rows import completion_text

    client = Client(url, token=token)

    def palaestra_remote_reward(completions: list[Any], **columns: Any) -> list[float]:
        records = columns.get("extra_info") or columns.get("task")
        if records is None:
            raise ValueError("remote_reward needs the rows' 'extra_info' (or 'task') column")
        verdicts = client.verify(records, [completion_text(c) for c in completions], timeout_s=timeout_s)
        return [float(v.reward) for v in verdicts]

    return palaestra_remote_reward
