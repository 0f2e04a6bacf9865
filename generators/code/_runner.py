"""The process-wide sandbox that code-family verifiers share (created on first use)."""

from __future__ import annotations

import atexit
import threading

from palaestra.core import Verdict
from palaestra.sandbox import ExecResult, Job, Sandbox, SandboxError

_lock = threading.Lock()
_sandbox: Sandbox | None = None


def sandbox() -> Sandbox:
    """A lazily started ``Sandbox(workers=2)`` shared by every verifier in this process."""
    global _sandbox
    with _lock:
        if _sandbox is None:
            _sandbox = Sandbox(workers=2)
            atexit.register(_sandbox.close)
        return _sandbox


def run_jobs(jobs: list[Job]) -> list[ExecResult] | Verdict:
    """Run ``jobs`` in the shared sandbox, or a failure verdict if the sandbox cannot run."""
    try:
        return sandbox().run_many(jobs)
    except (SandboxError, OSError, RuntimeError) as exc:
        return Verdict.failure(error=f"sandbox unavailable: {type(exc).__name__}: {exc}")


def failed_run(result: ExecResult, what: str) -> Verdict:
    """The verdict for a submitted program that did not finish normally (timeout, crash, ...)."""
    if result.status in ("timeout", "memory", "output_limit", "killed"):
        # the model's program ran out of a limit: a wrong answer (the model's failure, not the
        # verifier's), with the limit named in the reason
        return Verdict.wrong(f"{what}: {result.status} after {result.wall_s:.2f}s")
    tail = result.stderr.strip().splitlines()[-1:] or [result.status]
    return Verdict.wrong(f"{what}: {result.status}: {tail[0][:200]}")
