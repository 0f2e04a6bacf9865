"""A ``verify_many`` worker process: ``python -m palaestra._verify_worker READ_FD WRITE_FD [MB]``.

It imports palaestra once (the registry's index: no family module), then answers messages
``(forget, learn, pairs, announce)`` from its parent: drop the tasks whose ids are in ``forget``;
parse the tasks in ``learn`` (``(JSON text, module, file)``: a family's module is imported when
the worker first meets the family, by name or else from its file, so families registered outside
palaestra's own modules work too) and, with ``announce``, say "imported" (the parent times those
imports apart from the verifications); verify each ``(task id, response)`` of ``pairs`` in order,
sending every verdict back as soon as it is decided. It exits when the parent closes the pipe.
With ``MB``, once palaestra is imported it limits its address space to what it then holds plus
``MB`` MiB (soft = hard: a verifier cannot raise it back); family modules load within that limit.
"""

from __future__ import annotations

import importlib
import importlib.util
import pickle
import sys
from multiprocessing.connection import Connection

from palaestra.core import Task, Verdict
from palaestra.registry import is_registered, make_task, rebuild, verify


def serve(inbox: Connection, outbox: Connection, memory_mb: int | None = None) -> None:
    tasks: dict[str, Task] = {}
    if memory_mb is not None:
        limit_address_space(memory_mb)
    outbox.send("ready")
    while True:
        try:
            message = inbox.recv()
        except EOFError:
            return
        if message[0] == "generate":
            _generate(message[1], outbox)
            continue
        forget, learn, pairs, announce = message
        for task_id in forget:
            tasks.pop(task_id, None)
        for text, module, path in learn:
            task = Task.from_trusted_json(text)  # the parent wrote it from a built Task
            if not is_registered(task.family):
                _import_family_module(module, path)
            tasks[task.id] = task
        if announce:  # the parent times the imports apart from the verifications
            outbox.send("imported")
        for task_id, response in pairs:
            verdict = verify(tasks[task_id], response)
            try:
                outbox.send(verdict)  # pickles in full before writing: a failure sends nothing
            except (pickle.PicklingError, TypeError, AttributeError):
                outbox.send(_with_parsed_repr(verdict))


def _generate(requests: list[tuple], outbox: Connection) -> None:
    """Answer each ``("make", family, seed, level, knobs)`` or ``("rebuild", task JSON)`` with
    ``("ok", task JSON)`` or ``("error", one line)``, as soon as it is made."""
    for request in requests:
        try:
            if request[0] == "make":
                _, family, seed, level, knobs = request
                task = make_task(family, seed=seed, level=level, **knobs)
            else:
                task = rebuild(Task.from_trusted_json(request[1]))  # the parent wrote it
            outbox.send(("ok", task.to_json()))
        except Exception as exc:  # noqa: BLE001 - the parent turns it into the client's 400
            first = (str(exc).splitlines() or [""])[0][:300]
            outbox.send(("error", f"{type(exc).__name__}: {first}"))


def limit_address_space(extra_mb: int) -> None:
    """RLIMIT_AS = the address space held now + ``extra_mb`` MiB (Linux; elsewhere nothing)."""
    try:
        import resource

        with open("/proc/self/status") as f:
            size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    except (ImportError, OSError, StopIteration):
        return
    limit = size + (int(extra_mb) << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


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
    serve(
        Connection(int(sys.argv[1]), writable=False),
        Connection(int(sys.argv[2]), readable=False),
        int(sys.argv[3]) if len(sys.argv) > 3 else None,
    )
