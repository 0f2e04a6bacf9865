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
    timeout (CPU limit, or the wall-clock backstop) / memory (MemoryError under the address-space limit) /
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


# The wall-clock backstop of a job that sets none: contest judges allow a few times the CPU
# limit, so a program starved of a core on a loaded machine is not cut short, while one that
# sleeps or blocks (and so burns no CPU) still ends.
WALL_FACTOR = 3.0
WALL_SLACK_S = 1.0


def wall_backstop(timeout_s: float) -> float:
    """The default wall-clock limit for a CPU limit of ``timeout_s`` seconds."""
    return WALL_FACTOR * float(timeout_s) + WALL_SLACK_S


@dataclass(frozen=True)
class Job:
    """One program and its limits, as ``run`` takes them (for ``run_many``).

    ``timeout_s`` is CPU time (user + system) the program may use, as contest judges count
    it: a busy machine does not turn a correct program into a timeout. ``wall_timeout_s`` is the
    wall-clock backstop for programs that sleep or block (default :func:`wall_backstop`).
    """

    code: str
    stdin: str | bytes = ""
    files: Mapping[str, str | bytes] | None = field(default=None)
    timeout_s: float = 2.0
    memory_mb: int = 512
    output_limit_bytes: int = 1 << 20
    wall_timeout_s: float | None = None

    @property
    def wall_limit_s(self) -> float:
        """The wall-clock limit in force: ``wall_timeout_s``, or the default backstop."""
        return wall_backstop(self.timeout_s) if self.wall_timeout_s is None else float(self.wall_timeout_s)

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
