"""The process-wide sandbox that code-family verifiers share (created on first use).

It has two warm fork servers per available core (at least four; at most 64). Sandbox limits
count CPU time, so two programs sharing a core each still reach their CPU limit within twice
its wall time, inside the 3 x limit + 1 s wall backstop: a verdict does not change, while a
hanging program holds one server of two per core and the rest of a batch goes on beside it
(with one server per core, hangs on every server stopped every other program). Its servers
import once what submitted programs commonly import: the standard-library modules in
:data:`PRELOAD` plus those each code family declares in its ``sandbox_preload`` class attribute.
A program then pays nothing for those imports (a program importing a dozen standard modules
runs in about a third of the CPU time).
"""

from __future__ import annotations

import atexit
import threading

from palaestra.core import Verdict
from palaestra.sandbox import ExecResult, Job, Sandbox, SandboxError
from palaestra.sandbox.executor import available_cores

# Imported by every family's driver and by most programs, declared or not.
PRELOAD = ("collections", "json", "math", "re")
SERVERS_PER_CORE = 2
MIN_WORKERS = 4
MAX_WORKERS = 64
_LIMITS = {
    "timeout": "past its CPU time or wall-clock limit",
    "memory": "past its memory limit",
    "output_limit": "past its output limit",
    "killed": "killed by the sandbox",
}

_lock = threading.Lock()
_sandbox: Sandbox | None = None


def preload_modules() -> tuple[str, ...]:
    """:data:`PRELOAD` and every registered family's ``sandbox_preload``, sorted."""
    from palaestra.registry import families, get

    declared = {name for family in families() for name in getattr(get(family).impl, "sandbox_preload", ())}
    return tuple(sorted(declared | set(PRELOAD)))


def worker_count() -> int:
    """:data:`SERVERS_PER_CORE` fork servers per available core, within
    [:data:`MIN_WORKERS`, :data:`MAX_WORKERS`]."""
    return min(max(SERVERS_PER_CORE * available_cores(), MIN_WORKERS), MAX_WORKERS)


def sandbox() -> Sandbox:
    """The lazily started sandbox shared by every verifier in this process."""
    global _sandbox
    with _lock:
        if _sandbox is None:
            _sandbox = Sandbox(workers=worker_count(), preload=preload_modules())
            atexit.register(_sandbox.close)
        return _sandbox


def fork_server_pids() -> list[int]:
    """Process ids of the shared sandbox's fork servers (empty before its first use)."""
    with _lock:
        box = _sandbox
    if box is None:
        return []
    pids = getattr(box.backend, "pids", None)  # the fork-server backend has them
    return pids() if pids is not None else []


def run_jobs(jobs: list[Job]) -> list[ExecResult] | Verdict:
    """Run ``jobs`` in the shared sandbox, or a failure verdict if the sandbox cannot run.

    A job whose sandbox worker died under it (not the program's own doing) runs once more on
    a fresh worker; if that dies too, :func:`failed_run` reports it as the verifier's failure.
    """
    try:
        results = sandbox().run_many(jobs)
        again = [i for i, r in enumerate(results) if worker_died(r)]
        if again:
            for i, result in zip(again, sandbox().run_many([jobs[i] for i in again]), strict=True):
                results[i] = result
        return results
    except (SandboxError, OSError, RuntimeError) as exc:
        return Verdict.failure(error=f"sandbox unavailable: {type(exc).__name__}: {exc}")


def worker_died(result: ExecResult) -> bool:
    """True when the sandbox lost the program's worker (the fork server died or stopped
    answering): the program got no verdict of its own. A program killed by a signal has an
    exit code; these results have none."""
    return result.status == "killed" and result.exit_code is None


def failed_run(result: ExecResult, what: str) -> Verdict:
    """The verdict for a submitted program that did not finish normally (timeout, crash, ...)."""
    if worker_died(result):  # our failure, not the model's: never graded as a wrong answer
        return Verdict.failure(error=f"{what}: the sandbox worker died: {result.stderr[:200]}")
    if result.status in _LIMITS:
        # the model's program ran out of a limit: a wrong answer (the model's failure, not the
        # verifier's), with the limit named in the reason; never the measured time, which
        # varies from run to run while the verdict must not
        return Verdict.wrong(f"{what}: {result.status} ({_LIMITS[result.status]})")
    tail = result.stderr.strip().splitlines()[-1:] or [result.status]
    return Verdict.wrong(f"{what}: {result.status}: {tail[0][:200]}")
