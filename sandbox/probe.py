"""The capability probe: which kernel layers this host gives the sandbox, as a numbered level.

The probe does not guess from kernel versions: it starts a real fork server and runs a probe
program through the full hardening path, which then tries to fork, open an AF_INET socket and
list ``/``; a layer counts only if the kernel actually refused.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import threading
from dataclasses import dataclass, field
from typing import Any

from . import _hardening as hd
from .backends import ForkServerWorker, bubblewrap_path, sandbox_uid_base
from .result import Job

# level -> (layer, what it enforces). Levels are cumulative: level N needs every layer <= N.
LAYERS: dict[int, tuple[str, str]] = {
    1: (
        "process",
        "fresh forked child per program, inherited fds closed, empty environment, "
        "scratch directory, rlimits (address space, CPU, file size, open files, no core), wall timeout",
    ),
    2: (
        "seccomp",
        "no new processes (fork/vfork/clone without CLONE_THREAD), no exec, no sockets "
        "but AF_UNIX, no ptrace/mount/namespaces/bpf/io_uring/keyring/modules, signals only to itself",
    ),
    3: (
        "privdrop",
        "programs run without privileges: a per-worker uid when the supervisor is root, "
        "a user namespace with no capabilities otherwise; no_new_privs",
    ),
    4: (
        "landlock",
        "filesystem: read only the interpreter's files, write only the scratch directory; "
        "TCP bind/connect denied (Landlock ABI >= 4), signals scoped (ABI >= 6)",
    ),
    5: (
        "namespaces",
        "private network namespace (no interfaces), private mount namespace with a "
        "tmpfs scratch of fixed size and inode count, /dev/shm hidden",
    ),
}
MAX_LEVEL = max(LAYERS)
DEFAULT_MIN_LEVEL = 3

HINTS: dict[str, str] = {
    "process": "the fork server could not start; check that the Python interpreter can run",
    "seccomp": "needs Linux on x86_64 with CONFIG_SECCOMP_FILTER (other architectures are not "
    "mapped yet); inside Docker keep the default seccomp profile (filters stack)",
    "privdrop": "run the supervisor as root (programs get per-worker uids), or allow unprivileged "
    "user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), and on Ubuntu >= 23.10 "
    "`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile granting "
    "`userns` to the Python binary; in containers, run with --cap-add SYS_ADMIN or as root",
    "landlock": "needs Linux >= 5.13 with CONFIG_SECURITY_LANDLOCK=y and `landlock` in the `lsm=` "
    "boot parameter (e.g. lsm=landlock,lockdown,yama,integrity,apparmor)",
    "namespaces": "needs root or unprivileged user namespaces (see privdrop) and permission to "
    "unshare mount and network namespaces (containers: --cap-add SYS_ADMIN or --privileged)",
}


@dataclass(frozen=True)
class ProbeReport:
    """What the host supports: ``level`` (0..5), per-layer status and the missing layers."""

    level: int
    layers: dict[str, bool]
    missing: list[str]
    details: dict[str, Any] = field(default_factory=dict)

    def hints(self) -> dict[str, str]:
        return {name: HINTS[name] for name in self.missing}

    def format(self) -> str:
        """A human-readable report, as ``palaestra sandbox-info`` prints it."""
        lines = [f"palaestra sandbox protection level: {self.level} of {MAX_LEVEL}"]
        for level, (name, what) in sorted(LAYERS.items()):
            mark = "yes" if self.layers.get(name) else "NO "
            lines.append(f"  [{mark}] {level} {name}: {what}")
        for key in (
            "privdrop_mode",
            "landlock_abi",
            "stdlib_readable",
            "arch",
            "kernel",
            "cgroups_v2",
            "bubblewrap",
            "euid",
        ):
            lines.append(f"  {key}: {self.details.get(key)}")
        for name, hint in self.hints().items():
            lines.append(f"  missing {name}: {hint}")
        for name, err in self.details.get("errors", {}).items():
            lines.append(f"  error {name}: {err}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "layers": self.layers, "missing": self.missing, "details": self.details}


def level_of(layers: dict[str, bool]) -> int:
    level = 0
    for n in sorted(LAYERS):
        if not layers.get(LAYERS[n][0]):
            break
        level = n
    return level


_cache: ProbeReport | None = None
_cache_lock = threading.Lock()


def probe(*, refresh: bool = False) -> ProbeReport:
    """Probe the host once per process (cached); ``refresh=True`` probes again."""
    global _cache
    with _cache_lock:
        if _cache is None or refresh:
            _cache = _probe()
        return _cache


def _probe() -> ProbeReport:
    import tempfile

    base = tempfile.mkdtemp(prefix="palaestra-probe-")
    os.chmod(base, 0o711)
    uid = sandbox_uid_base() if os.geteuid() == 0 else None
    options = {"preload": [], "scratch_mb": 8, "scratch_files": 64, "max_threads": 8}
    worker = ForkServerWorker(scratch=os.path.join(base, "w"), uid=uid, options=options)
    details: dict[str, Any] = {
        "arch": platform.machine(),
        "kernel": platform.release(),
        "euid": os.geteuid(),
        "cgroups_v2": _cgroup_v2(),
        "bubblewrap": bubblewrap_path(),
        "errors": {},
    }
    layers = {name: False for name, _ in LAYERS.values()}
    try:
        worker.start()
        result, _ = worker.execute(Job(code="", timeout_s=10.0, memory_mb=256), probe=True)
        hello = worker.hello
        details["errors"] = dict(hello.get("errors", {}))
        checks = json.loads(result.stdout) if result.ok else {}
        if not result.ok:
            details["errors"]["probe_run"] = f"{result.status}: {result.stderr.strip()[-300:]}"
        _judge(layers, details, hello.get("layers", {}), checks, uid)
    except (OSError, ValueError) as exc:
        details["errors"]["process"] = str(exc)
    finally:
        worker.close()
        shutil.rmtree(base, ignore_errors=True)
    level = level_of(layers)
    missing = [name for n, (name, _) in sorted(LAYERS.items()) if not layers[name]]
    return ProbeReport(level=level, layers=layers, missing=missing, details=details)


def _judge(layers: dict, details: dict, server: dict, checks: dict, uid: int | None) -> None:
    """Credit each layer only when both the server set it up and the kernel enforced it."""
    if not checks:
        return
    layers["process"] = checks.get("rlimit_as", -1) > 0
    layers["seccomp"] = bool(server.get("seccomp")) and checks["fork_blocked"] and checks["inet_blocked"]
    mode = server.get("privdrop")
    details["privdrop_mode"] = mode
    if mode == "uid":
        layers["privdrop"] = checks["uid"] == checks["euid"] == uid
    else:
        layers["privdrop"] = mode == "userns"
    abi = int(server.get("landlock_abi") or 0)
    details["landlock_abi"] = abi
    layers["landlock"] = abi >= 1 and checks["fs_outside_blocked"]
    layers["namespaces"] = bool(server.get("mount_ns")) and bool(server.get("net_ns"))
    details["seccomp_arch_supported"] = hd.seccomp_supported()
    details["stdlib_readable"] = checks.get("stdlib_readable", False)
    if not details["stdlib_readable"]:
        details["errors"]["stdlib"] = (
            "the sandboxed uid cannot read the interpreter's standard library (e.g. Python under a "
            "0700 home without a mount namespace): programs can only import preloaded modules"
        )


def _cgroup_v2() -> str:
    """Whether a cgroup v2 hierarchy is mounted (informational: the sandbox does not use it)."""
    try:
        with open("/proc/self/mounts") as f:
            mounts = [line.split()[1] for line in f if line.split()[2] == "cgroup2"]
    except OSError:
        return "unknown"
    return f"mounted at {mounts[0]} (not used)" if mounts else "absent"
