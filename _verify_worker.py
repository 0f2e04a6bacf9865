"""A ``verify_many`` worker process: ``python -m palaestra._verify_worker READ_FD WRITE_FD``.

It imports palaestra once, then answers messages ``(forget, learn, pairs)`` from its parent:
drop the tasks whose ids are in ``forget``; parse the tasks in ``learn`` (``(JSON text, module,
file)``: a family registered outside palaestra's own modules and plugins is imported from its
module, by name or else from its file); verify each ``(task id, response)`` of ``pairs`` in
order, sending every verdict back as soon as it is decided. It exits when the parent closes
the pipe.
"""

from __future__ import annotations

import importlib
import importlib.util
import pickle
import sys
from multiprocessing.connection import Connection

from palaestra.core import Task, Verdict
from palaestra.registry import discover, is_registered, verify


def serve(inbox: Connection, outbox: Connection) -> None:
    tasks: dict[str, Task] = {}
    discover()
    outbox.send("ready")
    while True:
        try:
            forget, learn, pairs = inbox.recv()
        except EOFError:
            return
        for task_id in forget:
            tasks.pop(task_id, None)
        for text, module, path in learn:
            task = Task.from_json(text)
            if not is_registered(task.family):
                _import_family_module(module, path)
            tasks[task.id] = task
        for task_id, response in pairs:
            verdict = verify(tasks[task_id], response)
            try:
                outbox.send(verdict)  # pickles in full before writing: a failure sends nothing
            except (pickle.PicklingError, TypeError, AttributeError):
                outbox.send(_with_parsed_repr(verdict))


def _import_family_module(module: str, path: str | None) -> None:
    """Import the module that registers a family (by name, else from its file)."""
    try:
        importlib.import_module(module)
        return
    except ImportError:
        if path is None:
            raise
    spec = importlib.util.spec_from_file_location(module, path)
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[module] = loaded
    spec.loader.exec_module(loaded)


def _with_parsed_repr(verdict: Verdict) -> Verdict:
    """A copy whose ``parsed`` (a value that cannot be pickled) is replaced by its repr."""
    return Verdict(
        reward=verdict.reward,
        correct=verdict.correct,
        format_ok=verdict.format_ok,
        parsed=repr(verdict.parsed),
        reason=verdict.reason,
        error=verdict.error,
        status=verdict.status,
    )


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False))
