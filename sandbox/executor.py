"""``Sandbox``: the public executor over a backend (the fork-server pool by default)."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import secrets
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .backends import Backend, BubblewrapBackend, ForkServerBackend, ForkServerWorker
from .probe import DEFAULT_MIN_LEVEL, MAX_LEVEL, ProbeReport, probe
from .result import CallError, ExecResult, Job, SandboxUnavailable, wall_backstop

JSONValue = Any


@dataclass(frozen=True)
class Limits:
    """The most any one program may get, whatever its job asks for (a task's knobs, a client's
    request): a larger request is clamped to these, so a forged or hostile task cannot hold a
    worker longer or use more memory than the operator allowed."""

    max_timeout_s: float = 60.0  # CPU seconds
    max_wall_timeout_s: float = 181.0  # wall-clock backstop (3 x 60 s + 1 s)
    max_memory_mb: int = 4096
    max_output_bytes: int = 16 << 20

    def clamp(self, job: Job) -> Job:
        """``job`` with every limit at most the maximum (invalid values are left for the
        backend to refuse)."""
        changes: dict[str, Any] = {}
        for name, most in (
            ("timeout_s", self.max_timeout_s),
            ("memory_mb", self.max_memory_mb),
            ("output_limit_bytes", self.max_output_bytes),
        ):
            value = _number(getattr(job, name))
            if value is not None and value > most:
                changes[name] = type(most)(most)
        job = dataclasses.replace(job, **changes) if changes else job
        cpu = _number(job.timeout_s)
        if job.wall_timeout_s is not None:
            wall = _number(job.wall_timeout_s)
        else:
            wall = None if cpu is None else wall_backstop(cpu)
        if wall is not None and wall > self.max_wall_timeout_s:
            job = dataclasses.replace(job, wall_timeout_s=self.max_wall_timeout_s)
        return job


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class DeterminismReport:
    """Two runs of one program in fresh workers with different ``PYTHONHASHSEED``."""

    deterministic: bool
    first: ExecResult
    second: ExecResult
    reason: str


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity, which containers and taskset narrow)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Sandbox:
    """Run untrusted Python under kernel-enforced limits.

    ``Sandbox(workers=None, min_level=3)`` (``None``: one worker per available core) probes the host, refuses to start below
    ``min_level`` (raising :class:`SandboxUnavailable` with what is missing and how to enable
    it), and starts ``workers`` warm fork servers. ``run`` is thread-safe; ``run_many`` keeps
    every worker busy. Use it as a context manager or call :meth:`close`.

    ``preload`` lists modules the fork servers import once (e.g. what a task family declares),
    so programs importing them pay nothing. ``backend="bubblewrap"`` runs each program in its
    own ``bwrap`` process instead (slower; for other languages later).
    """

    def __init__(
        self,
        workers: int | None = None,
        min_level: int = DEFAULT_MIN_LEVEL,
        *,
        preload: Sequence[str] = (),
        backend: str | Backend = "forkserver",
        scratch_mb: int = 64,
        scratch_files: int = 512,
        max_runs_per_worker: int = 1000,
        hash_seed: int | None = None,
        limits: Limits | None = None,
    ) -> None:
        if not 0 <= min_level <= MAX_LEVEL:
            raise ValueError(f"min_level must be in 0..{MAX_LEVEL}")
        self.workers = int(workers or available_cores())
        self.report: ProbeReport = probe()
        self.level = self.report.level
        self.min_level = min_level
        if self.level < min_level:
            raise SandboxUnavailable(_unavailable_message(self.report, min_level))
        self._preload = tuple(preload)
        self.limits = limits or Limits()
        self._scratch = (scratch_mb, scratch_files)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._closed = False
        if isinstance(backend, Backend):
            self.backend = backend
        elif backend == "forkserver":
            self.backend = ForkServerBackend(
                self.workers,
                preload=self._preload,
                scratch_mb=scratch_mb,
                scratch_files=scratch_files,
                max_runs=max_runs_per_worker,
                hash_seed=hash_seed,
            )
        elif backend == "bubblewrap":
            self.backend = BubblewrapBackend(self.workers)
        else:
            raise ValueError(f"unknown backend {backend!r}; use 'forkserver' or 'bubblewrap'")

    # ------------------------------------------------------------------ running

    def run(
        self,
        code: str,
        *,
        stdin: str | bytes = "",
        files: Mapping[str, str | bytes] | None = None,
        timeout_s: float = 2.0,
        memory_mb: int = 512,
        output_limit_bytes: int = 1 << 20,
        wall_timeout_s: float | None = None,
    ) -> ExecResult:
        """Run one program; the result's ``status`` says how it ended (never raises for it).

        ``timeout_s`` is the CPU time the program may use; ``wall_timeout_s`` the wall-clock
        backstop for programs that sleep or block (default: 3 x ``timeout_s`` + 1 s)."""
        job = Job(code, stdin, files, timeout_s, memory_mb, output_limit_bytes, wall_timeout_s)
        return self._execute(job)

    def run_many(self, jobs: Iterable[Job | str | Mapping[str, Any]]) -> list[ExecResult]:
        """Run many programs on all workers at once; results in the order of ``jobs``."""
        batch = [Job.coerce(job) for job in jobs]
        if not batch:
            return []
        return list(self._executor().map(self._execute, batch))

    def _execute(self, job: Job) -> ExecResult:
        if self._closed:
            raise RuntimeError("the sandbox is closed")
        return self.backend.execute(self.limits.clamp(job))

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.backend.slots, thread_name_prefix="palaestra-sandbox")
            return self._pool

    # ------------------------------------------------------------------ helpers

    def call(
        self,
        code: str,
        function: str,
        args: Sequence[JSONValue] = (),
        *,
        timeout_s: float = 2.0,
        memory_mb: int = 512,
    ) -> JSONValue:
        """Define ``code``, call ``function(*args)`` in the sandbox and return its result as
        JSON data (tuples become lists). Raises :class:`CallError` (with ``.result``) when the
        program fails, times out, or returns something that is not JSON.
        """
        if not function.isidentifier():
            raise ValueError(f"function must be an identifier, got {function!r}")
        marker = secrets.token_hex(16)
        driver = _CALL_DRIVER.format(function=function, marker=marker)
        result = self.run(
            code + "\n" + driver, stdin=json.dumps(list(args)), timeout_s=timeout_s, memory_mb=memory_mb
        )
        if not result.ok:
            raise CallError(f"{function}() did not return: {result.status}: {result.stderr[-500:]}", result)
        _, sep, payload = result.stdout.rpartition(marker + "\n")
        if not sep:
            raise CallError(f"{function}() produced no result", result)
        reply = json.loads(payload)
        if "error" in reply:
            raise CallError(f"{function}() returned a value that is not JSON: {reply['error']}", result)
        return reply["value"]

    def check_determinism(
        self,
        code: str,
        *,
        stdin: str | bytes = "",
        files: Mapping[str, str | bytes] | None = None,
        timeout_s: float = 2.0,
        memory_mb: int = 512,
        hash_seeds: tuple[int, int] = (1, 2),
    ) -> DeterminismReport:
        """Run ``code`` in two fresh workers whose ``PYTHONHASHSEED`` differ and compare
        status, exit code and stdout. Hash-order dependent programs (set iteration order of
        strings, ``hash()`` output) differ; self-play rejects them."""
        job = Job(code, stdin, files, timeout_s, memory_mb)
        first, second = (self._fresh_run(job, seed) for seed in hash_seeds)
        same = (first.status, first.exit_code, first.stdout) == (
            second.status,
            second.exit_code,
            second.stdout,
        )
        if not first.ok or not second.ok:
            same, reason = False, f"runs did not both succeed: {first.status}, {second.status}"
        else:
            reason = "identical output" if same else "output differs between hash seeds"
        return DeterminismReport(same, first, second, reason)

    def _fresh_run(self, job: Job, hash_seed: int) -> ExecResult:
        backend = ForkServerBackend(
            1,
            preload=self._preload,
            scratch_mb=self._scratch[0],
            scratch_files=self._scratch[1],
            hash_seed=hash_seed,
        )
        try:
            return backend.execute(self.limits.clamp(job))
        finally:
            backend.close()

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Stop the workers and remove scratch space; idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=True)
        self.backend.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001,S110 - interpreter shutdown: nothing left to report to
            pass


_CALL_DRIVER = """
def __palaestra_call():
    import json, sys
    args = json.loads(sys.stdin.read())
    value = {function}(*args)
    try:
        text = json.dumps({{"value": value}}, allow_nan=False)
    except (TypeError, ValueError) as exc:
        text = json.dumps({{"error": str(exc)}})
    sys.stdout.write("\\n{marker}\\n" + text)
__palaestra_call()
"""


def _unavailable_message(report: ProbeReport, min_level: int) -> str:
    lines = [f"sandbox protection level {report.level} is below the required min_level={min_level}."]
    for name, hint in report.hints().items():
        lines.append(f"- missing {name}: {hint}")
    lines.append("Run `palaestra sandbox-info` for the full report.")
    return "\n".join(lines)


__all__ = ["Sandbox", "DeterminismReport", "ForkServerWorker", "Limits"]
