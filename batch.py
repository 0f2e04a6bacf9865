"""``verify_many``: grade a trainer's whole batch at once, without ever stalling it.

>>> import palaestra
>>> tasks = [palaestra.make_task("expression", seed=s, level=3) for s in range(4)]
>>> verdicts = palaestra.verify_many(tasks, [f"<answer>{t.answer}</answer>" for t in tasks])
>>> [v.correct for v in verdicts]
[True, True, True, True]

The verdicts are those :func:`palaestra.verify` gives, in order. Where the work goes:

- CPU-bound checks (z3, search, parsing) run in a pool of worker processes, one per available
  core by default, started on first use and kept. A task travels to a worker once, as its
  canonical JSON, and stays there (``CACHED_TASKS`` per worker); later responses to it carry
  only its id. Workers stream each verdict back as soon as it is decided. A worker imports a
  family's module when it first meets the family, as start-up work (bounded by
  ``START_TIMEOUT_S``, not charged to ``timeout_s``); :func:`worker_start_seconds` reports
  how long workers took to start.
- Checks measured cheap (:func:`grades_inline`) run in the calling thread while the workers
  take the rest: shipping them costs more than checking them.
- Families that run the model's program (those declaring ``sandbox_preload``) are graded from
  threads of this process on the shared sandbox, so programs run concurrently on all of its
  fork servers; a hanging program holds one server up to its CPU limit and no other response.
- Every verification has a wall-clock bound (``timeout_s``) enforced from outside the worker:
  a verifier that runs past it is killed with its worker and answers
  :meth:`Verdict.timed_out`; a worker that crashes answers ``verifier_error`` for the response
  it was checking; the responses queued behind either go to a fresh worker. No verdict is
  lost, and no signal is used, so any thread may call ``verify_many``, several at once.
- A response whose worker died under it (or whose sandbox worker died) is graded once more on
  a fresh worker; only a second crash is reported, as ``verifier_error`` (never as wrong).
- ``deadline_s`` bounds the whole call: responses not yet started by then answer ``timeout``
  and are never started; those running end within their own ``timeout_s``.
- Workers run with a minimal environment (no variable of the caller's, tokens included) and,
  where the platform allows, an address-space limit (``WORKER_MEMORY_MB``).
"""

from __future__ import annotations

import atexit
import collections
import functools
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from palaestra.core import Task, Verdict
from palaestra.registry import FamilySpec, get, verify

DEFAULT_TIMEOUT_S = 60.0  # per verification; every family bounds itself well below this
START_TIMEOUT_S = 120.0  # a worker imports palaestra and its families once
CACHED_TASKS = 4096  # tasks a worker keeps between calls (GRPO groups reuse them)
MAX_CHUNK = 32  # responses sent to a worker in one message
# Address space a worker may add to what it holds once started (a forged task cannot grow it
# past this: the worker's allocation fails with MemoryError, a verifier_error verdict).
WORKER_MEMORY_MB = 2048
# The only variables a worker inherits: where to find palaestra and its temporary directory.
_WORKER_ENV_KEEP = ("PATH", "PYTHONPATH", "HOME", "TMPDIR", "LANG", "LC_ALL")


def verify_many(
    tasks: Sequence[Task],
    responses: Sequence[str],
    *,
    workers: int | None = None,
    timeout_s: float | None = None,
    deadline_s: float | None = None,
) -> list[Verdict]:
    """Verify ``responses[i]`` against ``tasks[i]`` for every ``i``; the verdicts, in order.

    Args:
        tasks: one task per response (the same task object may repeat, as in GRPO groups).
        responses: the model's responses.
        workers: worker processes for CPU-bound checks (default: one per available core);
            ``0`` verifies in the calling thread, one after another, as ``verify`` would
            (no time bound beyond each family's own).
        timeout_s: wall-clock bound of one verification in a worker (default
            ``DEFAULT_TIMEOUT_S``); past it the verdict is ``timeout`` and the worker is replaced.
        deadline_s: wall-clock bound of the whole call (default none); responses not started
            by then answer ``timeout`` and are dropped from the queues, never run.

    Thread-safe; calls from several threads share the same workers. A response whose worker
    crashed under it is graded once more; a second crash is its ``verifier_error`` verdict.
    """
    verdicts = _verify_once(tasks, responses, workers, timeout_s, deadline_s)
    again = [i for i, v in enumerate(verdicts) if v.status == "verifier_error"]
    if again and (deadline_s is None or deadline_s > 0):
        retried = _verify_once(
            [tasks[i] for i in again], [responses[i] for i in again], workers, timeout_s, deadline_s
        )
        for i, verdict in zip(again, retried, strict=True):
            verdicts[i] = verdict
    return verdicts


def _verify_once(
    tasks: Sequence[Task],
    responses: Sequence[str],
    workers: int | None,
    timeout_s: float | None,
    deadline_s: float | None,
) -> list[Verdict]:
    tasks, responses = list(tasks), list(responses)
    if len(tasks) != len(responses):
        raise ValueError(f"{len(tasks)} tasks but {len(responses)} responses")
    workers = _available_cores() if workers is None else int(workers)
    if workers < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    timeout = DEFAULT_TIMEOUT_S if timeout_s is None else float(timeout_s)
    if not timeout > 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")
    if deadline_s is not None and not deadline_s > 0:
        raise ValueError(f"deadline_s must be positive, got {deadline_s}")
    specs = {
        family: get(family) for family in {task.family for task in tasks}
    }  # unknown ones raise, as in verify
    routes = {name: _route(spec, timeout) for name, spec in specs.items()}
    if workers == 0 or (deadline_s is None and all(r == "inline" for r in routes.values())):
        # nothing to ship: the serial loop itself (inline checks are bounded by their families)
        return [verify(task, response) for task, response in zip(tasks, responses, strict=True)]

    call = _Call(len(tasks), timeout)
    local: list[int] = []
    inline: list[int] = []
    for i, (task, response) in enumerate(zip(tasks, responses, strict=True)):
        route = routes[task.family]
        if route == "sandbox":
            local.append(i)
        elif not isinstance(response, str):  # verify's own format verdict; nothing to ship
            call.finish(i, verify(task, response))
        elif route == "inline":
            inline.append(i)
        else:
            call.pending.append(_Item(call, i, task, response))
    for i in local:
        _sandbox_threads().submit(_verify_into, call, i, tasks[i], responses[i])
    if call.pending:
        _pool(workers).submit(call.pending)
    # the cheap checks run here while the workers and the sandbox do the rest: shipping them to
    # a worker would cost more than checking them
    end = None if deadline_s is None else time.monotonic() + deadline_s
    for i in inline:
        if end is not None and time.monotonic() >= end:
            break  # the call's deadline: what is left answers timeout below, never started
        _verify_into(call, i, tasks[i], responses[i])
    wait = None if end is None else max(end - time.monotonic(), 0.0)
    if not call.done.wait(wait):
        call.expire(f"not graded within the call's deadline of {deadline_s:g} s")
    return call.verdicts  # type: ignore[return-value]


def _available_cores() -> int:
    # imported here: the sandbox package costs `import palaestra` 16 ms and most callers never need it
    from palaestra.sandbox.executor import available_cores

    return available_cores()


# A family whose measured verification costs under this (mean CPU milliseconds, the worst of its
# levels and answer kinds, measured/generation.json) is graded in the calling thread: sending a
# response to a worker and its verdict back costs more than that.
INLINE_BELOW_MS = 0.5
_COSTS: dict[tuple[str, int], tuple[float, float] | None] = {}


def _route(spec: FamilySpec, timeout_s: float) -> str:
    """Where ``verify_many`` grades a family: "sandbox" (threads on the shared sandbox),
    "inline" (the calling thread) or "workers"."""
    if runs_programs(spec) or spec.module == "__main__":  # a worker cannot import __main__
        return "sandbox"
    return "inline" if grades_inline(spec, timeout_s) else "workers"


def grades_inline(spec: FamilySpec, timeout_s: float) -> bool:
    """Whether ``verify_many`` grades this family in the calling thread rather than a worker.

    Only a family measured cheap (under :data:`INLINE_BELOW_MS`) whose slowest measured
    verification of hostile input (``measured/reward_errors.json``, this family version) is
    well inside ``timeout_s``: its own bounds keep it there, so no worker needs to be killed
    to keep the bound. Unmeasured families (a new one, a plugin, a changed version) use workers.
    """
    cost = _measured_cost(spec)
    return cost is not None and cost[0] < INLINE_BELOW_MS and 4 * cost[1] < timeout_s


def _measured_cost(spec: FamilySpec) -> tuple[float, float] | None:
    """(typical verification ms, slowest hostile verification CPU s) of this family version."""
    key = (spec.name, spec.version)
    if key not in _COSTS:
        stored_errors, stored_speed = _stored_measurements()
        errors = stored_errors.get(spec.name, {})
        speed = stored_speed.get(spec.name, {})
        typical = [
            kind["mean_ms"] for level in speed.values() for kind in level.get("verification", {}).values()
        ]
        hostile = errors.get("max_hostile_verify_cpu_s")
        measured = errors.get("family_version") == spec.version and typical and hostile is not None
        _COSTS[key] = (max(typical), float(hostile)) if measured else None
    return _COSTS[key]


@functools.lru_cache(maxsize=1)
def _stored_measurements() -> tuple[dict[str, Any], dict[str, Any]]:
    """The families' reward-error and speed records (package data), read once."""
    from palaestra import measurements

    return (
        measurements.load(measurements.REWARD_ERRORS).get("families", {}),
        measurements.load(measurements.GENERATION).get("families", {}),
    )


def runs_programs(spec: FamilySpec) -> bool:
    """True for families whose verifier runs the response as a program in the sandbox."""
    return getattr(spec.impl, "sandbox_preload", None) is not None


def shutdown(wait: bool = True) -> None:
    """Stop every worker process and thread (they start again on the next call).
    ``wait=False`` does not wait for sandbox threads still running a program."""
    global _SANDBOX_THREADS
    with _POOLS_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
        threads, _SANDBOX_THREADS = _SANDBOX_THREADS, None
    for pool in pools:
        pool.close()
    if threads is not None:
        threads.shutdown(wait=wait, cancel_futures=not wait)


class GenerationPool:
    """Worker processes that make tasks under a deadline that actually stops the work.

    ``run(requests, deadline_s)`` sends ``("make", family, seed, level, knobs)`` and
    ``("rebuild", task)`` requests to an idle worker and returns, per request, the Task or the
    one-line error it raised (``ValueError`` and the like, as text). Past the deadline the
    worker is killed (its generation with it) and ``TimeoutError`` is raised; a fresh worker
    starts on the next use. Workers have the verify workers' empty environment and memory limit.
    """

    def __init__(self, size: int = 1) -> None:
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        self._all = [_Worker() for _ in range(max(1, int(size)))]
        for worker in self._all:
            self._idle.put(worker)

    def warm(self) -> None:
        """Start every worker now (each imports palaestra once)."""
        for worker in self._all:
            if worker.proc is None:
                worker.start()

    def run(self, requests: Sequence[tuple], deadline_s: float) -> list[Task | str]:
        end = time.monotonic() + deadline_s
        try:
            worker = self._idle.get(timeout=max(deadline_s, 0.001))
        except queue.Empty:
            raise TimeoutError(f"no generation worker free within {deadline_s:g} s") from None
        try:
            return self._run_on(worker, requests, end, deadline_s)
        finally:
            if worker.proc is None:  # killed at its deadline: restart it off the request's path
                threading.Thread(target=self._restart, args=(worker,), daemon=True).start()
            else:
                self._idle.put(worker)

    def _restart(self, worker: _Worker) -> None:
        try:
            worker.start()
        except OSError:
            worker.stop()  # the next use starts it again
        self._idle.put(worker)

    def _run_on(self, worker: _Worker, requests: Sequence[tuple], end: float, deadline_s: float) -> list:
        if worker.proc is None or worker.proc.poll() is not None:
            worker.stop()
            worker.start()
            end = time.monotonic() + deadline_s  # the deadline bounds the generation, not the start
        payload = [r if r[0] == "make" else ("rebuild", r[1].to_json()) for r in requests]
        out: list[Task | str] = []
        try:
            worker.to_worker.send(("generate", payload))
            for _ in payload:
                if not worker.from_worker.poll(max(end - time.monotonic(), 0)):
                    break
                kind, text = worker.from_worker.recv()
                # the worker wrote it with Task.to_json: nothing to normalise or re-hash
                out.append(Task.from_trusted_json(text) if kind == "ok" else text)
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            code = worker.stop()
            raise RuntimeError(
                f"the generation worker died (exit code {code}): {type(exc).__name__}"
            ) from None
        if len(out) < len(payload):
            worker.stop()  # the generation stops with its process
            raise TimeoutError(f"task generation ran past its {deadline_s:g} s deadline")
        return out

    def close(self) -> None:
        for worker in self._all:
            worker.stop()


# --------------------------------------------------------------------------------------------
# One call's bookkeeping
# --------------------------------------------------------------------------------------------


class _Call:
    """The verdicts of one ``verify_many`` call, filled from any thread."""

    def __init__(self, size: int, timeout_s: float) -> None:
        self.verdicts: list[Verdict | None] = [None] * size
        self.timeout_s = timeout_s
        self.pending: list[_Item] = []
        self.done = threading.Event()
        self._left = size
        self._lock = threading.Lock()
        if size == 0:
            self.done.set()

    def finish(self, index: int, verdict: Verdict) -> None:
        with self._lock:
            if self.verdicts[index] is not None:
                return
            self.verdicts[index] = verdict
            self._left -= 1
            if self._left == 0:
                self.done.set()

    def expire(self, reason: str) -> None:
        """Answer ``timeout`` for every response still open; queued ones are then skipped."""
        for index in range(len(self.verdicts)):
            self.finish(index, Verdict.timed_out(reason, error="verify_many: deadline passed"))

    def is_open(self, index: int) -> bool:
        return self.verdicts[index] is None


@dataclass
class _Item:
    call: _Call
    index: int
    task: Task
    response: str


def _verify_into(call: _Call, index: int, task: Task, response: str) -> None:
    if not call.is_open(index):  # its call's deadline passed while it waited: never start it
        return
    try:
        verdict = verify(task, response)
    except BaseException as exc:  # noqa: BLE001 - verify catches Exception; keep the verdict anyway
        verdict = Verdict.failure(error=f"{type(exc).__name__}: {exc}")
    call.finish(index, verdict)


# --------------------------------------------------------------------------------------------
# Threads for sandboxed families, processes for the rest
# --------------------------------------------------------------------------------------------

_POOLS: dict[int, _Pool] = {}
_POOLS_LOCK = threading.Lock()
_SANDBOX_THREADS: ThreadPoolExecutor | None = None


def _sandbox_threads() -> ThreadPoolExecutor:
    """As many threads as the shared sandbox has fork servers: each waits on one program."""
    global _SANDBOX_THREADS
    with _POOLS_LOCK:
        if _SANDBOX_THREADS is None:
            from palaestra.generators.code.shared_sandbox import worker_count

            _SANDBOX_THREADS = ThreadPoolExecutor(
                worker_count(), thread_name_prefix="palaestra-verify-sandbox"
            )
        return _SANDBOX_THREADS


def _pool(workers: int) -> _Pool:
    with _POOLS_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = _Pool(workers)
        return pool


def warm(workers: int | None = None, wait: bool = True) -> list[float]:
    """Start the worker processes of ``verify_many(..., workers=workers)`` now (it starts them
    on first use otherwise); with ``wait``, return once they are ready (each within
    ``START_TIMEOUT_S``), with the start seconds of the workers started so far."""
    pool = _pool(_available_cores() if workers is None else int(workers))
    if wait:
        for event in pool.started:
            event.wait(START_TIMEOUT_S)
    return worker_start_seconds()


def worker_pids(workers: int | None = None) -> list[int]:
    """Process ids of this process's verify workers (of the pool of ``workers`` workers, or of
    every pool), for operators, load tests and benchmarks."""
    with _POOLS_LOCK:
        if workers is None:
            pools = list(_POOLS.values())
        else:
            pools = [_POOLS[workers]] if workers in _POOLS else []
    return [w.proc.pid for pool in pools for w in pool.workers if w.proc is not None]


def _forget_after_fork() -> None:
    # A forked child owns none of the parent's workers or threads: it starts its own.
    global _SANDBOX_THREADS, _POOLS_LOCK
    _POOLS.clear()
    _SANDBOX_THREADS = None
    _POOLS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
atexit.register(shutdown)


class _Pool:
    """Worker processes fed from one queue; one feeder thread per worker."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.queue: collections.deque[_Item] = collections.deque()
        self.ready = threading.Condition()
        self.closed = False
        self.workers = [_Worker() for _ in range(size)]
        # each feeder starts its worker at once: a batch that needs one pool worker soon needs all
        self.started = [threading.Event() for _ in range(size)]
        self.feeders = [
            threading.Thread(target=self._feed, args=(w, k), name=f"palaestra-verify-{k}", daemon=True)
            for k, w in enumerate(self.workers)
        ]
        for feeder in self.feeders:
            feeder.start()

    def submit(self, items: list[_Item]) -> None:
        with self.ready:
            self.queue.extend(items)
            self.ready.notify_all()

    def close(self) -> None:
        with self.ready:
            self.closed = True
            self.ready.notify_all()
        for feeder in self.feeders:
            feeder.join(timeout=5)
        for worker in self.workers:
            worker.stop()

    def _take(self) -> list[_Item] | None:
        """The next chunk: small enough that every worker gets a share of what is queued."""
        with self.ready:
            while not self.queue and not self.closed:
                self.ready.wait()
            if self.closed:
                return None
            size = max(1, min(MAX_CHUNK, len(self.queue) // (2 * self.size)))
            chunk = [self.queue.popleft() for _ in range(min(size, len(self.queue)))]
            # items whose call already expired are dropped here, never sent to a worker
            return [item for item in chunk if item.call.is_open(item.index)]

    def _put_back(self, items: list[_Item]) -> None:
        with self.ready:
            self.queue.extendleft(reversed(items))
            self.ready.notify_all()

    def _feed(self, worker: _Worker, k: int) -> None:
        try:
            worker.start()
        except OSError:
            worker.stop()  # its first chunk starts it again, and reports a failure then
        finally:
            self.started[k].set()
        while True:
            chunk = self._take()
            if chunk is None:
                return
            if not chunk:
                continue
            try:
                rest = worker.run(chunk)
            except BaseException as exc:  # noqa: BLE001 - a feeder must never die with items in hand
                for item in chunk:
                    item.call.finish(
                        item.index, Verdict.failure(error=f"verify_many: {type(exc).__name__}: {exc}")
                    )
                worker.stop()
                continue
            if rest:
                self._put_back(rest)


_STARTS: collections.deque[float] = collections.deque(maxlen=256)


def worker_start_seconds() -> list[float]:
    """Wall seconds each recent worker took from its start to ready (it imports palaestra and no
    family module; each family's module loads when the worker first meets the family, and a
    call waits up to ``START_TIMEOUT_S`` for that outside ``timeout_s``), the latest last."""
    return list(_STARTS)


def worker_environment() -> dict[str, str]:
    """What a worker process inherits: palaestra's path, one math-library thread, nothing else
    (no token, credential or other secret of the caller's environment)."""
    env = {k: os.environ[k] for k in _WORKER_ENV_KEEP if k in os.environ}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


@dataclass
class _Worker:
    """One worker process and what it holds (which tasks it has parsed)."""

    proc: subprocess.Popen | None = None
    to_worker: Connection | None = None
    from_worker: Connection | None = None
    known: collections.OrderedDict[str, None] = field(default_factory=collections.OrderedDict)
    families: set[str] = field(default_factory=set)  # whose modules the process has imported

    def start(self) -> None:
        started = time.monotonic()
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "palaestra._verify_worker",
                    str(down_r),
                    str(up_w),
                    str(WORKER_MEMORY_MB),
                ],
                pass_fds=(down_r, up_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=worker_environment(),
                close_fds=True,
            )
        finally:
            os.close(down_r)
            os.close(up_w)
        self.to_worker = Connection(down_w, readable=False)
        self.from_worker = Connection(up_r, writable=False)
        self.known.clear()
        self.families.clear()
        if not self.from_worker.poll(START_TIMEOUT_S):
            self.stop()
            raise OSError(f"verify worker did not start within {START_TIMEOUT_S:.0f} s")
        self.from_worker.recv()  # the worker's hello
        _STARTS.append(round(time.monotonic() - started, 4))

    def run(self, chunk: list[_Item]) -> list[_Item]:
        """Verify ``chunk``; returns the items it could not reach (to go to another worker)."""
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self.start()
        assert self.to_worker is not None and self.from_worker is not None
        message = self._message(chunk)
        self.to_worker.send(message)
        if message[3]:  # it imports a family module first: start-up work, outside timeout_s
            failure = self._await_imports()
            if failure is not None:
                chunk[0].call.finish(chunk[0].index, Verdict.failure(error=f"verify_many: {failure}"))
                return chunk[1:]
            self.families.update(item.task.family for item in chunk)
        for k, item in enumerate(chunk):
            if not self.from_worker.poll(item.call.timeout_s):
                self.stop()
                item.call.finish(
                    item.index,
                    Verdict.timed_out(
                        f"verification ran past {item.call.timeout_s:g} s",
                        error=f"verify_many: {item.task.family} verifier exceeded {item.call.timeout_s:g} s",
                    ),
                )
                return chunk[k + 1 :]
            try:
                verdict = self.from_worker.recv()
            except (EOFError, OSError, pickle.UnpicklingError) as exc:
                code = self.stop()
                item.call.finish(
                    item.index,
                    Verdict.failure(
                        error=f"verify_many: the {item.task.family} verifier's worker died "
                        f"(exit code {code}) while checking this response: {type(exc).__name__}"
                    ),
                )
                return chunk[k + 1 :]
            item.call.finish(item.index, verdict)
        return []

    def _await_imports(self) -> str | None:
        """Wait (up to ``START_TIMEOUT_S``) for the worker to say it imported the modules of the
        families it just met; why not, or ``None``."""
        assert self.from_worker is not None
        if not self.from_worker.poll(START_TIMEOUT_S):
            self.stop()
            return f"a worker did not import the families' modules within {START_TIMEOUT_S:.0f} s"
        try:
            self.from_worker.recv()
        except (EOFError, OSError, pickle.UnpicklingError) as exc:
            code = self.stop()
            return f"a worker died (exit code {code}) importing the families' modules: {type(exc).__name__}"
        return None

    def _message(
        self, chunk: list[_Item]
    ) -> tuple[list[str], list[tuple[str, str, str | None]], list[tuple[str, str]], bool]:
        """(task ids to forget, tasks to learn (JSON, family module, its file), (task id,
        response) pairs, whether it meets a family new to it: then it says when it has
        imported the family modules, before verifying)."""
        learn: dict[str, tuple[str, str, str | None]] = {}
        for item in chunk:
            task_id = item.task.id
            if task_id in self.known:
                self.known.move_to_end(task_id)
            elif task_id not in learn:
                module = get(item.task.family).module
                path = getattr(sys.modules.get(module), "__file__", None)
                learn[task_id] = (item.task.to_json(), module, path)
                self.known[task_id] = None
        forget = []
        while len(self.known) > CACHED_TASKS:
            oldest, _ = self.known.popitem(last=False)
            forget.append(oldest)
        new_family = any(item.task.family not in self.families for item in chunk)
        return forget, list(learn.values()), [(item.task.id, item.response) for item in chunk], new_family

    def stop(self) -> int | None:
        """Kill the process (if any); its exit code."""
        code = None
        for conn in (self.to_worker, self.from_worker):
            if conn is not None:
                conn.close()
        self.to_worker = self.from_worker = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            code = self.proc.wait()
            self.proc = None
        self.known.clear()
        self.families.clear()
        return code
