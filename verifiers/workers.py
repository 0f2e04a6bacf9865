"""A kill-safe pool of verifier worker processes with a hard per-call time bound.

Signals only work on the main thread, and a thread cannot be killed, so the only hard bound
that holds inside other frameworks' threads is a separate process: each call borrows an
idle worker (a fresh ``python -m palaestra.verifiers.workers`` speaking JSON lines over
pipes), waits with ``select`` for its answer and, on timeout, kills it (SIGKILL) and
discards it. Callers in many threads each get their own worker; nothing is shared but the
idle list. The child also caps its own address space so a memory bomb dies there.

Only functions named in ``_HANDLERS`` can be called: the request says which by name. Other
modules reuse the pool for their own bounded work: ``WorkerPool(module=NAME)`` runs
``python -m NAME``, whose ``__main__`` calls :func:`serve` with its handlers and warm-up.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

STARTUP_TIMEOUT_S = 60.0
MEMORY_LIMIT_BYTES = 4 * 1024**3
_MAX_LINE = 16 * 1024 * 1024


class WorkerTimeout(Exception):
    """The call ran past its time bound; the worker was killed."""


class WorkerCrashed(Exception):
    """The worker died or answered garbage; it was discarded."""


DEFAULT_MODULE = "palaestra.verifiers.workers"


class _Worker:
    def __init__(
        self, module: str = DEFAULT_MODULE, spawned: Callable[[_Worker], None] | None = None
    ) -> None:
        started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
        )
        if spawned is not None:  # the pool can kill it while it starts (at exit)
            spawned(self)
        self.buffer = b""
        try:
            ready = self.read_line(STARTUP_TIMEOUT_S)
        except (WorkerTimeout, WorkerCrashed) as exc:
            self.kill()
            raise WorkerCrashed(f"worker failed to start: {type(exc).__name__} {exc}") from None
        if ready != {"ready": True}:
            self.kill()
            raise WorkerCrashed(f"worker failed to start: {ready!r}")
        self.start_s = time.monotonic() - started  # imports and warm-up, reported by the pool

    def call(self, request: dict[str, Any], timeout_s: float) -> Any:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerCrashed(f"worker pipe closed: {exc}") from None
        reply = self.read_line(timeout_s)
        if "error" in reply:
            raise WorkerCrashed(reply["error"])
        return reply["result"]

    def read_line(self, timeout_s: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WorkerTimeout
            readable, _, _ = select.select([fd], [], [], left)
            if not readable:
                raise WorkerTimeout
            chunk = os.read(fd, 65536)
            if not chunk:
                raise WorkerCrashed("worker exited")
            self.buffer += chunk
            if len(self.buffer) > _MAX_LINE:
                raise WorkerCrashed("worker reply too large")
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError:
            raise WorkerCrashed("worker sent a malformed reply") from None

    def kill(self) -> None:
        try:
            self.proc.kill()
        except OSError:
            pass
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass

    def alive(self) -> bool:
        return self.proc.poll() is None


class WorkerPool:
    """Borrow-one-worker-per-call pool of at most ``max_workers`` processes.

    Idle workers stay warm between calls; a caller that finds all of them busy waits for
    one (that wait is not part of its time bound, which starts when its request is sent).
    """

    def __init__(self, max_workers: int | None = None, module: str = DEFAULT_MODULE) -> None:
        self.max_workers = max_workers or max(4, os.cpu_count() or 1)
        self.module = module  # what each worker runs: python -m MODULE
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._slots = threading.BoundedSemaphore(self.max_workers)
        self._idle: list[_Worker] = []
        self._starting = 0  # replacements being started in the background
        self._spawning: set[_Worker] = set()  # their processes, until they are ready
        self._start_seconds: list[float] = []
        self._pid = os.getpid()
        atexit.register(self.close)
        # a fork may happen while another thread holds the lock: the child starts afresh
        os.register_at_fork(after_in_child=self._reset_after_fork)

    def _reset_after_fork(self) -> None:
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._slots = threading.BoundedSemaphore(self.max_workers)
        self._idle, self._starting, self._pid = [], 0, os.getpid()
        self._spawning, self._start_seconds = set(), []

    def call(self, request: dict[str, Any], timeout_s: float) -> Any:
        """Run ``request`` in a worker; raises WorkerTimeout or WorkerCrashed."""
        with self._slots:
            worker = self._borrow()
            try:
                result = worker.call(request, timeout_s)
            except BaseException:
                # timed out, crashed or interrupted mid-call: its reply may still be in flight
                worker.kill()
                self._replace_in_background()
                raise
            self._give_back(worker)
            return result

    def warm(self, n: int = 1) -> None:
        """Start ``n`` workers now so that the first calls do not pay the start-up."""
        for _ in range(min(n, self.max_workers)):
            self._give_back(self._started(_Worker(self.module)))

    def start_in_background(self, n: int = 1) -> None:
        """Start ``n`` workers in background threads and return at once: their start-up (imports,
        warm-up) overlaps the caller's own work, and a first call waits only for what is left."""
        for _ in range(min(n, self.max_workers)):
            self._replace_in_background()

    def start_seconds(self) -> list[float]:
        """Wall seconds each worker of this pool took to start (imports and warm-up), in order."""
        with self._lock:
            return list(self._start_seconds)

    def _spawned_by(self, mine: list[_Worker]) -> Callable[[_Worker], None]:
        def spawned(worker: _Worker) -> None:
            mine.append(worker)
            with self._lock:
                self._spawning.add(worker)

        return spawned

    def _started(self, worker: _Worker) -> _Worker:
        with self._lock:
            self._start_seconds.append(round(worker.start_s, 3))
            del self._start_seconds[:-256]
        return worker

    def _replace_in_background(self) -> None:
        """Start a replacement now so the next caller does not pay the start-up."""

        def start() -> None:
            worker: _Worker | None = None
            spawned: list[_Worker] = []
            try:
                worker = self._started(_Worker(self.module, spawned=self._spawned_by(spawned)))
            except (WorkerCrashed, OSError):
                pass  # the next call starts one itself and reports the failure (or: closed at exit)
            finally:
                with self._ready:
                    self._starting -= 1
                    self._spawning.difference_update(spawned)
                    self._ready.notify_all()
            if worker is not None:
                self._give_back(worker)

        with self._lock:
            self._starting += 1
        threading.Thread(target=start, name="palaestra-verifier-respawn", daemon=True).start()

    def _borrow(self) -> _Worker:
        with self._ready:
            while True:
                while self._idle:
                    worker = self._idle.pop()
                    if worker.alive():
                        return worker
                if self._starting == 0:
                    break
                # a replacement is already starting: wait for it rather than start another
                self._ready.wait(timeout=STARTUP_TIMEOUT_S)
        return self._started(_Worker(self.module))

    def _give_back(self, worker: _Worker) -> None:
        with self._ready:
            if len(self._idle) < self.max_workers and os.getpid() == self._pid:
                self._idle.append(worker)
                self._ready.notify()
                return
        worker.kill()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
            starting, self._spawning = list(self._spawning), set()
        if os.getpid() == self._pid:
            for worker in idle + starting:  # one still starting is killed too: no orphan
                worker.kill()


# ------------------------------------------------------------------------------------------
# The child side
# ------------------------------------------------------------------------------------------


def _compare(args: dict[str, Any]) -> Any:
    from palaestra.verifiers._mathcompare import Settings, compare_strings

    return compare_strings(args["gold"], args["pred"], Settings(**args["settings"]), args.get("question"))


def _sleep(args: dict[str, Any]) -> Any:  # used by the tests to exercise the time bound
    time.sleep(float(args["seconds"]))
    return "slept"


_HANDLERS = {"compare": _compare, "sleep": _sleep}


_WARM_UP_PAIRS = [
    (r"(1, \infty)", "x > 1"),
    ("x^2-1", "(x-1)(x+1)"),
    (r"\sin(\pi/6)", r"\frac{1}{2}"),
    (r"\{1, 2\}", "2, 1"),
    ("1-i", "2/(1+i)"),
    ("0", r"\sin^2(1)+\cos^2(1)-1"),
]


def _warm_up() -> None:
    """Run a few comparisons before reporting ready: sympy imports much of itself lazily on
    first use (solveset, simplify), and that cost belongs to start-up, not to a caller's bound."""
    from palaestra.verifiers._mathcompare import Settings, compare_strings

    for gold, pred in _WARM_UP_PAIRS:
        compare_strings(gold, pred, Settings())


def serve(handlers: Mapping[str, Callable[[dict[str, Any]], Any]], warm_up: Callable[[], None]) -> None:
    """The worker's main loop: cap memory, warm up, say ready, then answer JSON-line requests
    naming one of ``handlers`` until stdin closes."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    except (ImportError, ValueError, OSError):
        pass
    warm_up()

    out = sys.stdout.buffer
    out.write(b'{"ready": true}\n')
    out.flush()
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
            handler = handlers.get(request.get("fn"))
            if handler is None:
                raise ValueError(f"unknown function {request.get('fn')!r}")
            reply: dict[str, Any] = {"result": handler(request["args"])}
        except MemoryError:
            reply = {"error": "out of memory"}
        except Exception as exc:  # report, keep serving: the parent decides what it means
            reply = {"error": f"{type(exc).__name__}: {exc}"[:500]}
        out.write(json.dumps(reply).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    serve(_HANDLERS, _warm_up)
