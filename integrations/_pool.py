"""Process-isolated, time-bounded batch verification: the engine under the server and the adapters.

A :class:`VerifierPool` keeps ``workers`` warm processes (``python -m palaestra.integrations._pool``,
the JSON-lines workers of :mod:`palaestra.verifiers._worker`: they never import the caller's
script, and cap their own memory). Verification jobs wait in one queue shared by every caller, so
concurrent requests are batched together; one feeder thread per worker sends it up to
``max_batch`` jobs at a time and reads the verdicts back one by one, each against its own
deadline:

* a verdict not back by its deadline: the worker is killed (SIGKILL) and replaced, that job gets
  ``Verdict.timed_out``, and the jobs queued behind it in the same batch go back to the queue;
* a worker that dies (killed from outside, a crash in C code): its unfinished jobs go back to the
  queue and run on the replacement; a job that has killed two workers gets ``Verdict.failure``.

So every job ends with a verdict within its time bound (plus queueing) and no caller ever hangs.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from palaestra.core import Task, Verdict
from palaestra.verifiers._worker import WorkerCrashed, WorkerTimeout, serve
from palaestra.verifiers._worker import _Worker as _JsonLinesWorker

WORKER_MODULE = "palaestra.integrations._pool"
MAX_ATTEMPTS = 2  # a job that killed this many workers is reported as a verifier failure


@dataclass
class _Job:
    task_json: str
    response: str
    timeout_s: float
    future: Future = field(default_factory=Future)
    attempts: int = 0


# ------------------------------------------------------------------------------------------
# The worker process
# ------------------------------------------------------------------------------------------

_TASKS: dict[str, Task] = {}  # the worker's parsed tasks (GRPO sends each one many times)


def _verify_handler(args: dict[str, Any]) -> dict[str, Any]:
    """One verification, as a verdict dict."""
    import palaestra

    task = _TASKS.get(args["task"])
    if task is None:
        if len(_TASKS) > 4096:
            _TASKS.clear()
        task = _TASKS[args["task"]] = Task.from_json(args["task"])
    return palaestra.verify(task, args["response"]).to_dict()


def _warm_up() -> None:
    import palaestra

    palaestra.families()  # import every family before saying ready


class _Worker(_JsonLinesWorker):
    """A verifier process: ``send`` pipelines a batch, ``receive`` reads the next verdict."""

    def __init__(self) -> None:
        super().__init__(WORKER_MODULE)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, jobs: Sequence[_Job]) -> None:
        assert self.proc.stdin is not None
        request = [{"fn": "verify", "args": {"task": j.task_json, "response": j.response}} for j in jobs]
        try:
            self.proc.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in request))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerCrashed(f"worker pipe closed: {exc}") from None

    def receive(self, timeout_s: float) -> Verdict:
        reply = self.read_line(timeout_s)
        if "error" in reply:  # the handler raised (a malformed task): the verifier's failure
            return Verdict.failure(error=str(reply["error"]))
        return Verdict(**reply["result"])


# ------------------------------------------------------------------------------------------
# The pool
# ------------------------------------------------------------------------------------------


class VerifierPool:
    """``workers`` verifier processes fed from one queue (see the module docstring)."""

    def __init__(self, workers: int = 2, *, max_batch: int = 32) -> None:
        if workers < 1:
            raise ValueError(f"workers must be positive, got {workers}")
        self.size, self.max_batch = workers, max_batch
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._closed = False
        self.restarts = 0
        self.workers: list[_Worker] = [_Worker() for _ in range(workers)]
        self._threads = [
            threading.Thread(target=self._feed, args=(i,), name=f"palaestra-verifier-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, task: Task, response: str, timeout_s: float) -> Future:
        """Queue one verification; the future's result is a :class:`Verdict`."""
        if self._closed:
            raise RuntimeError("the verifier pool is closed")
        job = _Job(task.to_json(), response if isinstance(response, str) else "", float(timeout_s))
        if not isinstance(response, str):
            job.future.set_result(
                Verdict.bad_format(f"response must be a string, got {type(response).__name__}")
            )
        else:
            self._queue.put(job)
        return job.future

    def verify(
        self, tasks: Sequence[Task], responses: Sequence[str], timeout_s: float = 10.0
    ) -> list[Verdict]:
        """Verify a batch; blocks until every verdict is in (each bounded by ``timeout_s``)."""
        futures = [self.submit(t, r, timeout_s) for t, r in zip(tasks, responses, strict=True)]
        return [f.result() for f in futures]

    def pids(self) -> list[int]:
        return [w.pid for w in self.workers]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout=30)
        for worker in self.workers:
            worker.kill()

    def __enter__(self) -> VerifierPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----------------------------------------------------------------- feeder threads

    def _feed(self, index: int) -> None:
        while True:
            batch = self._take_batch()
            if batch is None:
                return
            if batch:
                self._run(index, batch)

    def _take_batch(self) -> list[_Job] | None:
        first = self._queue.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < self.max_batch:
            try:
                job = self._queue.get_nowait()
            except queue.Empty:
                break
            if job is None:  # closing: hand the sentinel on, finish this batch
                self._queue.put(None)
                break
            batch.append(job)
        return [j for j in batch if not j.future.done()]  # skip jobs whose caller gave up

    def _run(self, index: int, batch: list[_Job]) -> None:
        worker = self.workers[index]
        try:
            worker.send(batch)
        except WorkerCrashed:
            self._replace(index, requeue=batch)
            return
        for position, job in enumerate(batch):
            try:
                verdict = worker.receive(job.timeout_s)
            except WorkerTimeout:  # past its deadline: kill, report this job, requeue the rest
                reason = f"verification took longer than {job.timeout_s:g} s; the worker was stopped"
                self._replace(index, requeue=batch[position + 1 :], timed_out=job, reason=reason)
                return
            except WorkerCrashed:  # the worker died: its unfinished jobs run on the replacement
                self._replace(index, requeue=batch[position:])
                return
            _settle(job, verdict)

    def _replace(
        self, index: int, requeue: list[_Job], timed_out: _Job | None = None, reason: str = ""
    ) -> None:
        self.workers[index].kill()
        self.restarts += 1
        if timed_out is not None:  # answered now, before the replacement's start-up
            _settle(timed_out, Verdict.timed_out(reason))
        for job in requeue:  # back to the queue first: the other workers take them meanwhile
            job.attempts += 1
            if job.attempts >= MAX_ATTEMPTS or self._closed:
                error = f"verifier worker died {job.attempts} times on this job"
                _settle(job, Verdict.failure(error=error, reason="the verifier process crashed"))
            else:
                self._queue.put(job)
        while not self._closed:  # start-up takes seconds: only this feeder waits
            try:
                self.workers[index] = _Worker()
                return
            except WorkerCrashed:  # could not start (memory?): try again, never leave the slot dead
                time.sleep(1.0)


def _settle(job: _Job, verdict: Verdict) -> None:
    if not job.future.done():  # a caller may have cancelled it (its request gave up)
        job.future.set_result(verdict)


_SHARED: dict[int, VerifierPool] = {}
_SHARED_LOCK = threading.Lock()


def shared_pool(workers: int | None = None) -> VerifierPool:
    """One pool per worker count for this process (started on first use, stopped at exit)."""
    size = workers or max(1, min(4, os.cpu_count() or 1))
    with _SHARED_LOCK:
        pool = _SHARED.get(size)
        if pool is None:
            pool = _SHARED[size] = VerifierPool(size)
            atexit.register(pool.close)
        return pool


if __name__ == "__main__":
    serve({"verify": _verify_handler}, _warm_up)
