"""The sandbox: a kernel-enforced executor for untrusted Python.

>>> from palaestra.sandbox import Sandbox
>>> with Sandbox(workers=2) as sb:
...     sb.run("print(input()[::-1])", stdin="abc").stdout
'cba\\n'

See docs/sandbox.md for the threat model and the protection levels.
"""

from .backends import Backend, BubblewrapBackend, ForkServerBackend
from .executor import DeterminismReport, Limits, Sandbox
from .info import sandbox_info_main
from .probe import DEFAULT_MIN_LEVEL, LAYERS, MAX_LEVEL, ProbeReport, probe
from .result import STATUSES, CallError, ExecResult, Job, SandboxError, SandboxUnavailable

__all__ = [
    "Backend",
    "BubblewrapBackend",
    "CallError",
    "DEFAULT_MIN_LEVEL",
    "DeterminismReport",
    "ExecResult",
    "ForkServerBackend",
    "Job",
    "LAYERS",
    "Limits",
    "MAX_LEVEL",
    "ProbeReport",
    "STATUSES",
    "Sandbox",
    "SandboxError",
    "SandboxUnavailable",
    "probe",
    "sandbox_info_main",
]
