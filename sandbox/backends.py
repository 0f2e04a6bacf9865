"""Execution backends: the warm fork-server pool (default) and a per-run bubblewrap backend.

A backend turns a :class:`Job` into an :class:`ExecResult`; ``execute`` is thread-safe and
blocks while all of the backend's slots are busy, so ``Sandbox.run_many`` keeps every slot fed
by calling it from one thread per slot.
"""

from __future__ import annotations

import abc
import itertools
import json
import math
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any

from . import _hardening as hd
from . import _protocol as proto
from .result import ExecResult, Job, Status, killed, refused

_HERE = os.path.dirname(os.path.abspath(__file__))
# Loads the server by path: the child must not import the palaestra package (other rooms).
_BOOT = "import sys; sys.path[0] = {here!r}; import _server; del sys.path[0]; _server.main(sys.argv)"
START_TIMEOUT_S = 60.0
# Extra time the supervisor grants a server beyond the job's own timeout before killing it.
SUPERVISOR_GRACE_S = 10.0
_SETUP_FAILED = 126
_uid_blocks = itertools.count()


def sandbox_uid_base() -> int:
    """A block of 256 uids for one pool, unlikely to collide with another process's pool."""
    block = (os.getpid() * 64 + next(_uid_blocks)) % (1 << 20)
    return 1_600_000_000 + block * 256


class Backend(abc.ABC):
    """Runs jobs. Subclasses say how many run at once (``slots``)."""

    name: str = "backend"
    slots: int = 1

    @abc.abstractmethod
    def execute(self, job: Job) -> ExecResult:
        """Run one job to completion; never raises for anything the program does."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release processes and scratch space; idempotent."""


# ------------------------------------------------------------------------------------------
# Fork server
# ------------------------------------------------------------------------------------------


def _validate(job: Job, scratch_mb: int) -> str | None:
    """Why a job must be refused before it reaches a worker, or None."""
    if not isinstance(job.code, str):
        return "code must be a str"
    try:
        job.code.encode("utf-8")
        if isinstance(job.stdin, str):
            job.stdin.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"code and stdin must be encodable as UTF-8: {exc}"
    if not (0 < float(job.timeout_s) <= 3600):
        return "timeout_s must be in (0, 3600]"
    if not (0 < job.wall_limit_s <= 4 * 3600):
        return "wall_timeout_s must be in (0, 14400]"
    if not (1 <= int(job.memory_mb) <= 1 << 20) or int(job.output_limit_bytes) < 0:
        return "memory_mb must be >= 1 and output_limit_bytes >= 0"
    total = 0
    for name, data in (job.files or {}).items():
        parts = name.split("/")
        if not name or name.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\0" in name:
            return f"file name {name!r} must be a relative path inside the scratch directory"
        try:
            total += len(_as_bytes(data))
        except (UnicodeEncodeError, TypeError) as exc:
            return f"file {name!r} must be str or bytes: {exc}"
    if total > scratch_mb << 20:
        return "files exceed the scratch quota"
    return None


def _as_bytes(data: str | bytes) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8")
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"expected str or bytes, got {type(data).__name__}")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _pipe(stream: IO[Any] | None) -> IO[Any]:
    """A child's pipe that Popen opened (stdin/stdout/stderr=PIPE): never None."""
    assert stream is not None, "the pipe was not opened"
    return stream


def classify(raw: dict, stdout: bytes, stderr: bytes) -> tuple[Status, int | None]:
    """Map the server's raw outcome to (status, exit_code)."""
    code = os.waitstatus_to_exitcode(raw["wstatus"])
    reason = raw["reason"]
    if reason:  # the server killed it: timeout or output_limit
        return reason, code
    if not raw["ready"]:
        return ("refused" if code == _SETUP_FAILED else "killed"), code
    if code in (-signal.SIGXCPU,) or (code == -signal.SIGKILL and raw["cpu_s"] >= raw["cpu_limit_s"] - 0.05):
        return "timeout", code  # RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the hard one
    if raw["cpu_s"] > raw.get("timeout_s", math.inf):
        return "timeout", code  # finished, but past its CPU limit (between two checks)
    if code != 0 and b"MemoryError" in stderr[-400:]:
        return "memory", code
    if code == -signal.SIGKILL:
        return "killed", code
    return ("ok" if code == 0 else "error"), code


class ForkServerWorker:
    """One warm fork server process and its protocol pipe (not thread-safe; a pool owns it)."""

    def __init__(
        self, *, scratch: str, uid: int | None, options: dict[str, Any], hash_seed: int | None = None
    ):
        self.scratch = scratch
        self.uid = uid
        self.options = options
        self.hash_seed = hash_seed
        self.proc: subprocess.Popen | None = None
        self.hello: dict[str, Any] = {}
        self.runs = 0
        self.index = 0  # its slot in the pool that owns it

    def start(self) -> None:
        os.makedirs(self.scratch, mode=0o755, exist_ok=True)
        cfg = dict(self.options, scratch=self.scratch, uid=self.uid)
        # An empty environment: nothing of the parent's (secrets included) reaches the server.
        env = {} if self.hash_seed is None else {"PYTHONHASHSEED": str(self.hash_seed)}
        debug = os.environ.get("PALAESTRA_SANDBOX_DEBUG")
        self.proc = subprocess.Popen(
            [sys.executable, "-s", "-B", "-c", _BOOT.format(here=_HERE), json.dumps(cfg)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if debug else subprocess.DEVNULL,
            env=env,
            cwd=self.scratch,
            close_fds=True,
            start_new_session=True,
        )
        self.reader = proto.FrameReader(_pipe(self.proc.stdout).fileno())
        try:
            hello, _ = self.reader.read(deadline=time.monotonic() + START_TIMEOUT_S)
        except (TimeoutError, EOFError, ValueError) as exc:
            self.kill()
            raise OSError(f"fork server did not start: {exc}") from None
        if not hello.get("hello"):
            self.kill()
            raise OSError(f"fork server failed to start: {hello.get('error')}")
        self.hello = hello

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def execute(self, job: Job, *, probe: bool = False) -> tuple[ExecResult, bool]:
        """Run a job; returns (result, healthy). An unhealthy worker must be replaced."""
        files = dict(job.files or {})
        header = {
            "timeout_s": float(job.timeout_s),
            "wall_timeout_s": job.wall_limit_s,
            "memory_mb": int(job.memory_mb),
            "output_limit": int(job.output_limit_bytes),
            "files": list(files),
            "probe": probe,
        }
        blobs = [_as_bytes(job.code), _as_bytes(job.stdin), *(_as_bytes(v) for v in files.values())]
        start = time.monotonic()
        assert self.proc is not None, "the worker was not started"
        try:
            proto.write_frame(_pipe(self.proc.stdin).fileno(), header, *blobs)
            deadline = start + job.wall_limit_s + SUPERVISOR_GRACE_S
            raw, (out, err) = self.reader.read(deadline=deadline)
        except (OSError, EOFError, TimeoutError, ValueError) as exc:
            self.kill()
            return killed(
                f"sandbox worker failed: {type(exc).__name__}: {exc}", time.monotonic() - start
            ), False
        self.runs += 1
        status, code = classify(raw, out, err)
        result = ExecResult(status, code, _decode(out), _decode(err), raw["wall_s"], raw["cpu_s"])
        healthy = not raw.get("anomaly") and status not in ("killed", "refused")
        return result, healthy

    def kill(self) -> None:
        if self.proc is None:
            return
        # The server's programs carry PR_SET_PDEATHSIG and die with it.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            _pipe(pipe).close()

    def close(self) -> None:
        if self.proc is None:
            return
        if self.alive:
            try:
                _pipe(self.proc.stdin).close()  # EOF: the server exits by itself
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        self.proc = None


class ForkServerBackend(Backend):
    """A pool of warm fork servers, one program at a time each.

    Each worker has its own scratch directory and, when the supervisor is root, its own uid.
    A worker is replaced after ``max_runs`` programs and after any anomaly (a killed or
    refused run, a protocol failure, a run directory that could not be cleaned).
    """

    name = "forkserver"

    def __init__(
        self,
        workers: int,
        *,
        preload: tuple[str, ...] = (),
        scratch_mb: int = 64,
        scratch_files: int = 512,
        max_threads: int = 64,
        max_runs: int = 1000,
        hash_seed: int | None = None,
        uid_base: int | None = None,
        layers: dict[str, bool] | None = None,
    ) -> None:
        if workers < 1 or workers > 256:
            raise ValueError("workers must be in 1..256")
        self.slots = workers
        self.max_runs = max_runs
        self.scratch_mb = scratch_mb
        self.hash_seed = hash_seed
        self.base = tempfile.mkdtemp(prefix="palaestra-sandbox-")
        os.chmod(self.base, 0o711)  # per-worker uids must traverse it to reach their scratch
        self.uid_base = (
            (uid_base if uid_base is not None else sandbox_uid_base()) if os.geteuid() == 0 else None
        )
        self.options = {
            "preload": list(preload),
            "scratch_mb": scratch_mb,
            "scratch_files": scratch_files,
            "max_threads": max_threads,
            **{k: bool(v) for k, v in (layers or {}).items()},
        }
        self._generation = itertools.count()
        self._idle: queue.SimpleQueue[ForkServerWorker] = queue.SimpleQueue()
        self._all: list[ForkServerWorker] = []
        self._lock = threading.Lock()
        self._closed = False
        for index in range(workers):
            self._idle.put(self._new_worker(index))
        self._start_all()

    def pids(self) -> list[int]:
        """Process ids of the running fork servers (for operators and fault-injection tests)."""
        with self._lock:
            workers = list(self._all)
        return [w.proc.pid for w in workers if w.proc is not None and w.alive]

    def uids(self) -> list[int]:
        """The uids this pool's programs run as (empty when not root)."""
        return [] if self.uid_base is None else [self.uid_base + i for i in range(self.slots)]

    def _new_worker(self, index: int, hash_seed: int | None = None) -> ForkServerWorker:
        scratch = os.path.join(self.base, f"w{index}-{next(self._generation)}")
        uid = None if self.uid_base is None else self.uid_base + index
        worker = ForkServerWorker(
            scratch=scratch,
            uid=uid,
            options=self.options,
            hash_seed=self.hash_seed if hash_seed is None else hash_seed,
        )
        worker.index = index
        with self._lock:
            self._all.append(worker)
        return worker

    def _start_all(self) -> None:
        workers = list(self._all)
        errors: list[BaseException] = []

        def start(w: ForkServerWorker) -> None:
            try:
                w.start()
            except OSError as exc:
                errors.append(exc)

        threads = [threading.Thread(target=start, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.close()
            raise OSError(f"could not start the sandbox workers: {errors[0]}")

    @property
    def hello(self) -> dict[str, Any]:
        return self._all[0].hello

    def execute(self, job: Job) -> ExecResult:
        reason = _validate(job, self.scratch_mb)
        if reason:
            return refused(reason)
        if self._closed:
            return refused("the sandbox is closed")
        worker = self._idle.get()
        healthy = False
        try:
            if not worker.alive:
                worker = self._replace(worker)
            result, healthy = worker.execute(job)
        except OSError as exc:
            result = killed(f"sandbox worker could not start: {exc}")
        finally:
            if not healthy or worker.runs >= self.max_runs:
                worker = self._retire(worker)
            self._idle.put(worker)
        return result

    def _replace(self, worker: ForkServerWorker) -> ForkServerWorker:
        fresh = self._retire(worker)
        fresh.start()
        return fresh

    def _retire(self, worker: ForkServerWorker) -> ForkServerWorker:
        """Close a worker and return its not-yet-started successor (started on next use)."""
        worker.close()
        shutil.rmtree(worker.scratch, ignore_errors=True)
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
        return self._new_worker(worker.index)

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers, self._all = list(self._all), []
        for worker in workers:
            worker.close()
        shutil.rmtree(self.base, ignore_errors=True)


# ------------------------------------------------------------------------------------------
# Bubblewrap
# ------------------------------------------------------------------------------------------

_BWRAP_LAUNCHER = r"""
import json, resource, runpy, sys
lim = json.loads(sys.argv[1])
for name, (soft, hard) in lim.items():
    resource.setrlimit(getattr(resource, name), (soft, hard))
sys.argv = ["/sandbox/main.py"]
runpy.run_path("/sandbox/main.py", run_name="__main__")
"""


def bubblewrap_path() -> str | None:
    return shutil.which("bwrap")


class BubblewrapBackend(Backend):
    """One ``bwrap`` process per run: fresh user, pid, net, mount, ipc and uts namespaces, a
    read-only view of the interpreter, a private /tmp and a writable ``/sandbox`` scratch.

    Slower than the fork server (an exec and namespace setup per run) but language-agnostic:
    ``argv`` decides what runs, which is how later languages plug in. Programs may exec, but a
    seccomp filter (the fork server's, with exec allowed) still forbids new processes, sockets
    other than AF_UNIX, ptrace, mounts and the rest.
    """

    name = "bubblewrap"

    def __init__(self, workers: int = 1, *, argv: list[str] | None = None) -> None:
        bwrap = bubblewrap_path()
        if bwrap is None:
            raise OSError("bubblewrap (bwrap) is not installed; apt-get install bubblewrap")
        self.bwrap: str = bwrap
        self.slots = workers
        self.argv = argv
        self._sem = threading.Semaphore(workers)
        self.base = tempfile.mkdtemp(prefix="palaestra-bwrap-")
        self._seccomp = (
            hd.SeccompProgram(allow_exec=True, own_pid_signals=False) if hd.seccomp_supported() else None
        )
        self._count = itertools.count()

    def _command(self, rundir: str, job: Job, seccomp_fd: int | None) -> list[str]:
        ro = sorted({sys.prefix, sys.base_prefix, "/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache"})
        cmd = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
        for path in ro:
            if os.path.exists(path):
                cmd += ["--ro-bind", path, path]
        cmd += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--bind", rundir, "/sandbox"]
        cmd += ["--chdir", "/sandbox", "--setenv", "HOME", "/sandbox", "--setenv", "PATH", "/usr/bin:/bin"]
        if seccomp_fd is not None:
            cmd += ["--seccomp", str(seccomp_fd)]
        memory = (int(job.memory_mb) + 64) << 20
        cpu = int(math.ceil(job.timeout_s))
        # The soft CPU limit sends SIGXCPU, which bwrap reports as exit code 128 + SIGXCPU: a
        # timeout we can tell apart from other deaths. The hard limit is the backstop.
        limits = {
            "RLIMIT_AS": (memory, memory),
            "RLIMIT_CPU": (cpu, cpu + 1),
            "RLIMIT_FSIZE": (64 << 20, 64 << 20),
            "RLIMIT_CORE": (0, 0),
        }
        program = self.argv or [sys.executable, "-I", "-c", _BWRAP_LAUNCHER, json.dumps(limits)]
        return [*cmd, "--", *program]

    def execute(self, job: Job) -> ExecResult:
        reason = _validate(job, 64)
        if reason:
            return refused(reason)
        with self._sem:
            rundir = os.path.join(self.base, str(next(self._count)))
            os.mkdir(rundir, 0o700)
            try:
                return self._run(rundir, job)
            finally:
                shutil.rmtree(rundir, ignore_errors=True)

    def _run(self, rundir: str, job: Job) -> ExecResult:
        with open(os.path.join(rundir, "main.py"), "w") as f:
            f.write(job.code)
        for name, data in (job.files or {}).items():
            os.makedirs(os.path.dirname(os.path.join(rundir, name)), exist_ok=True)
            with open(os.path.join(rundir, name), "wb") as f:
                f.write(_as_bytes(data))
        seccomp_r = None
        if self._seccomp is not None:
            seccomp_r, w = os.pipe()
            os.write(w, self._seccomp.bytes_for(0))  # < 1 KiB: fits the pipe buffer
            os.close(w)
        start = time.monotonic()
        try:
            proc = subprocess.Popen(
                self._command(rundir, job, seccomp_r),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={},
                start_new_session=True,
                pass_fds=() if seccomp_r is None else (seccomp_r,),
            )
        finally:
            if seccomp_r is not None:
                os.close(seccomp_r)
        deadline = start + job.wall_limit_s
        feeder = threading.Thread(target=_feed, args=(proc.stdin, _as_bytes(job.stdin)), daemon=True)
        feeder.start()
        out, err, reason = _collect(proc, deadline, int(job.output_limit_bytes))
        code, cpu, reason = _reap(proc, deadline, reason)
        feeder.join()
        wall = time.monotonic() - start
        status: Status
        if reason:
            status = reason
        elif code in (-signal.SIGXCPU, 128 + signal.SIGXCPU, 128 + signal.SIGKILL) and wall >= job.timeout_s:
            status = "timeout"  # the CPU limit (bwrap reports its child's death as 128 + signal)
        elif cpu > float(job.timeout_s):
            status = "timeout"  # finished past its CPU limit, as the fork server counts it
        elif code == 0:
            status = "ok"
        elif b"MemoryError" in err[-400:]:
            status = "memory"
        elif code == -signal.SIGKILL:
            status = "killed"
        else:
            status = "error"
        return ExecResult(status, code, _decode(out), _decode(err), wall, cpu)

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def _feed(pipe, data: bytes) -> None:
    # A thread, so a program that never reads its stdin cannot block the output loop.
    try:
        pipe.write(data)
    except (BrokenPipeError, ValueError):
        pass
    finally:
        try:
            pipe.close()
        except BrokenPipeError:
            pass


def _collect(proc: subprocess.Popen, deadline: float, limit: int) -> tuple[bytes, bytes, Status | None]:
    """Read stdout and stderr up to ``limit`` bytes together, until EOF, expiry or overflow."""
    bufs = {_pipe(proc.stdout).fileno(): bytearray(), _pipe(proc.stderr).fileno(): bytearray()}
    fds = set(bufs)
    reason: Status | None = None
    while fds and reason is None:
        left = deadline - time.monotonic()
        if left <= 0:
            reason = "timeout"
            break
        for fd in select.select(list(fds), [], [], left)[0]:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                fds.discard(fd)
                continue
            room = limit - sum(len(b) for b in bufs.values())
            bufs[fd] += chunk[: max(room, 0)]
            if len(chunk) > room:
                reason = "output_limit"
    _pipe(proc.stdout).close()
    _pipe(proc.stderr).close()
    out, err = (bytes(b) for b in bufs.values())
    return out, err, reason


def _reap(proc: subprocess.Popen, deadline: float, reason: Status | None) -> tuple[int, float, Status | None]:
    """Wait for bwrap until the deadline (it may outlive closed pipes), SIGKILL its session
    otherwise; returns (exit code, CPU seconds of bwrap and the reaped program, reason)."""
    pidfd = os.pidfd_open(proc.pid)
    try:
        if reason is None and not select.select([pidfd], [], [], max(deadline - time.monotonic(), 0))[0]:
            reason = "timeout"
    finally:
        os.close(pidfd)
    if reason is not None:
        # bwrap's --die-with-parent takes the whole pid namespace down with it.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, wstatus, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(wstatus)
    return proc.returncode, usage.ru_utime + usage.ru_stime, reason
