"""The executor's value types: jobs, results and errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["ok", "error", "timeout", "memory", "output_limit", "killed", "refused"]
STATUSES: tuple[str, ...] = ("ok", "error", "timeout", "memory", "output_limit", "killed", "refused")


@dataclass(frozen=True)
class ExecResult:
    """The outcome of one program.

    ``status``: ok (exit 0) / error (non-zero exit, uncaught exception, crash signal) /
    timeout (wall or CPU limit) / memory (MemoryError under the address-space limit) /
    output_limit (stdout + stderr passed the cap; output is truncated there) / killed (killed
    from outside our limits, or its worker died) / refused (the sandbox would not run it: bad
    job, or a hardening step failed, so the code never ran). ``exit_code`` follows
    ``subprocess``: negative for a signal, ``None`` when no exit status exists.
    """

    status: Status
    exit_code: int | None
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "exit_code": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "wall_s": self.wall_s,
            "cpu_s": self.cpu_s,
        }


@dataclass(frozen=True)
class Job:
    """One program and its limits, as ``run`` takes them (for ``run_many``)."""

    code: str
    stdin: str | bytes = ""
    files: Mapping[str, str | bytes] | None = field(default=None)
    timeout_s: float = 2.0
    memory_mb: int = 512
    output_limit_bytes: int = 1 << 20

    @classmethod
    def coerce(cls, job: Job | str | Mapping[str, Any]) -> Job:
        """Accept a Job, a bare code string, or a mapping of ``run``'s keyword arguments."""
        if isinstance(job, Job):
            return job
        if isinstance(job, str):
            return cls(code=job)
        return cls(**job)


def refused(reason: str) -> ExecResult:
    return ExecResult("refused", None, "", reason, 0.0, 0.0)


def killed(reason: str, wall_s: float = 0.0) -> ExecResult:
    return ExecResult("killed", None, "", reason, wall_s, 0.0)


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the program)."""


class SandboxUnavailable(SandboxError):
    """The host cannot provide the protection level that was asked for."""


class CallError(SandboxError):
    """``Sandbox.call`` could not produce a result; ``.result`` holds the run's ExecResult."""

    def __init__(self, message: str, result: ExecResult) -> None:
        super().__init__(message)
        self.result = result
