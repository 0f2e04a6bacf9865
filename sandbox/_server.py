"""The warm fork server: one per worker, one fresh forked child per program.

Started by the supervisor as ``python -s -B -c BOOT CONFIG`` with an empty environment, it
loads only this folder's stdlib-only helpers by path (never the ``palaestra`` package), imports
what the caller asked to preload, enters its private namespaces once, builds the Landlock
ruleset and the seccomp program once, and then answers job frames on its protocol pipe. Each
job runs in a child forked from this warm interpreter, which hardens itself in a fixed order
before the program's first byte runs.
"""

from __future__ import annotations

import builtins
import errno
import gc
import importlib
import json
import linecache
import math
import os
import select
import shutil
import signal
import stat
import struct
import sys
import sysconfig
import threading
import time
import traceback

import _hardening as hd
import _protocol as proto

READY = b"R"
SETUP_FAILED = 126
# Directories never granted as a whole, whatever the interpreter maps from them.
_NEVER_READABLE = {"/", "/etc", "/proc", "/sys", "/dev", "/home", "/root", "/tmp", "/var", "/var/tmp", "/run"}
_RW_DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]


class Server:
    def __init__(self, cfg: dict) -> None:
        self.cfg = cfg
        self.scratch = cfg["scratch"]
        self.layers: dict[str, object] = {}
        self.errors: dict[str, str] = {}
        self.uid: int | None = None
        self.userns = False
        self.ruleset_fd: int | None = None
        self.seccomp: hd.SeccompProgram | None = None
        self.per_run_mounts = False  # a fresh tmpfs per run (needs our own mount namespace)

    # ---------------------------------------------------------------- start-up (once)

    def start(self) -> None:
        for name in self.cfg.get("preload", []):
            importlib.import_module(name)
        self._enter_namespaces()
        if os.geteuid() == 0 and not self.userns and self.cfg.get("uid") is not None:
            self.uid = int(self.cfg["uid"])
        self.layers["privdrop"] = "uid" if self.uid is not None else ("userns" if self.userns else None)
        self._build_landlock()
        self._build_seccomp()
        self.layers["malloc_arenas"] = hd.limit_malloc_arenas()
        self.baseline_vm = _vm_size()

    def _try(self, layer: str, fn, *args) -> bool:
        try:
            fn(*args)
        except OSError as exc:
            self.errors[layer] = f"{type(exc).__name__}: {exc}"
            return False
        return True

    def _enter_namespaces(self) -> None:
        for layer in ("user_ns", "mount_ns", "net_ns", "ipc_ns"):
            self.layers[layer] = False
        if not self.cfg.get("namespaces", True):
            return
        if os.geteuid() != 0:
            uid, gid = os.getuid(), os.getgid()
            self.userns = self._try("user_ns", hd.enter_user_namespace, uid, gid)
            self.layers["user_ns"] = self.userns
        if os.geteuid() == 0:  # real root, or root inside our own user namespace
            self.layers["mount_ns"] = self._try("mount_ns", self._private_mounts)
            self.layers["net_ns"] = self._try("net_ns", hd.unshare, hd.CLONE_NEWNET)
            # SysV IPC is refused by seccomp; a private IPC namespace also keeps any object a
            # lower level lets through (and POSIX queues) off the host, and it dies with us.
            self.layers["ipc_ns"] = self._try("ipc_ns", hd.unshare, hd.CLONE_NEWIPC)

    def _private_mounts(self) -> None:
        hd.unshare(hd.CLONE_NEWNS)
        hd.mount("none", "/", None, hd.MS_REC | hd.MS_PRIVATE)
        if self.cfg.get("uid") is not None:
            _expose_interpreter(self.scratch)
        # The scratch root: a tiny tmpfs, visible only in here, holding one empty mount point
        # and then made read-only, so a program (the owner of it in user-namespace mode) can
        # neither leave files beside its run directory nor change its modes or xattrs. Each run
        # gets a fresh tmpfs on that mount point with the scratch quota (see _fresh_rundir).
        hd.mount(
            "tmpfs", self.scratch, "tmpfs", hd.MS_NOSUID | hd.MS_NODEV, "size=64k,nr_inodes=16,mode=0755"
        )
        os.mkdir(os.path.join(self.scratch, "run"), 0o755)
        flags = hd.MS_REMOUNT | hd.MS_RDONLY | hd.MS_NOSUID | hd.MS_NODEV
        hd.mount("tmpfs", self.scratch, "tmpfs", flags, "size=64k,nr_inodes=16,mode=0755")
        self.per_run_mounts = True
        if os.path.isdir("/dev/shm"):  # shared memory files would outlive the run: hide them
            hd.mount("tmpfs", "/dev/shm", "tmpfs", hd.MS_NOSUID | hd.MS_NODEV | hd.MS_RDONLY, "size=4k")

    def _build_landlock(self) -> None:
        abi = hd.landlock_abi() if self.cfg.get("landlock", True) else 0
        self.layers["landlock_abi"] = abi
        if abi <= 0:
            self.errors.setdefault("landlock", "Landlock is not enabled in this kernel")
            return
        try:
            self.ruleset_fd = hd.landlock_ruleset(_read_paths(), [self.scratch], _RW_DEVICES, abi)
        except OSError as exc:
            self.layers["landlock_abi"] = 0
            self.errors["landlock"] = f"{type(exc).__name__}: {exc}"

    def _build_seccomp(self) -> None:
        self.layers["seccomp"] = False
        if not self.cfg.get("seccomp", True):
            return
        try:
            self.seccomp = hd.SeccompProgram()
            self.layers["seccomp"] = True
        except OSError as exc:
            self.errors["seccomp"] = str(exc)

    # ---------------------------------------------------------------- one job

    def run_job(self, header: dict, blobs: list[bytearray]) -> tuple[dict, _Sink, _Sink]:
        rundir = self._fresh_rundir()
        stdin_fd = os.memfd_create("stdin")
        os.write(stdin_fd, blobs[1])
        os.lseek(stdin_fd, 0, os.SEEK_SET)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        ready_r, ready_w = os.pipe()
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            self._child(header, blobs, rundir, stdin_fd, out_w, err_w, ready_w)
        for fd in (stdin_fd, out_w, err_w, ready_w):
            os.close(fd)
        try:
            outcome = self._supervise(pid, header, out_r, err_r, ready_r, start)
        finally:
            for fd in (out_r, err_r, ready_r):
                os.close(fd)
        anomaly = not self._discard_rundir(rundir)
        result, out, err = outcome
        result["anomaly"] = anomaly or result.pop("stray", False)
        return result, out, err

    def _fresh_rundir(self) -> str:
        """An empty run directory on a scratch root that no earlier run has touched."""
        rundir = os.path.join(self.scratch, "run")
        owner = 0 if self.uid is None else self.uid
        if self.per_run_mounts:
            opts = (
                f"size={int(self.cfg['scratch_mb'])}m,nr_inodes={int(self.cfg['scratch_files'])},"
                f"mode=0700,uid={owner},gid={owner}"
            )
            hd.mount("tmpfs", rundir, "tmpfs", hd.MS_NOSUID | hd.MS_NODEV, opts)
            return rundir
        # No mount namespace: the scratch root is a plain host directory. Empty all of it (not
        # only the run directory), so nothing a program put beside its run survives.
        _clear_dir(self.scratch)
        os.chmod(self.scratch, 0o755)
        os.mkdir(rundir, 0o700)
        if self.uid is not None:
            os.chown(rundir, self.uid, self.uid)
        return rundir

    def _discard_rundir(self, rundir: str) -> bool:
        """Drop the run's scratch; False if anything of it is left."""
        if self.per_run_mounts:
            try:
                hd.umount(rundir, hd.MNT_DETACH)
            except OSError:
                return False
            return not os.listdir(rundir)
        return _clear_dir(self.scratch)

    def _supervise(self, pid: int, header: dict, out_r: int, err_r: int, ready_r: int, start: float):
        pidfd = os.pidfd_open(pid)
        bufs = {out_r: _Sink(), err_r: _Sink()}
        watch = {out_r, err_r, ready_r, pidfd}
        limit = int(header["output_limit"])
        # CPU time is the limit (as contest judges count it); wall time only a backstop for
        # programs that sleep or block. The CPU clock is read when it could first have run out
        # (it advances no faster than the wall clock per thread), so a program costs no wake-ups.
        cpu_limit = float(header["timeout_s"])
        deadline = start + float(header["wall_timeout_s"])
        cpu_check = start + cpu_limit
        ready, reason = False, None
        try:
            while reason is None and pidfd in watch:
                now = time.monotonic()
                if now >= cpu_check:
                    used = _cpu_seconds(pid)
                    if used >= cpu_limit:
                        reason = "timeout"
                        break
                    cpu_check = now + max(cpu_limit - used, 0.005)
                left = min(deadline, cpu_check) - now
                if now >= deadline:
                    reason = "timeout"
                    break
                for fd in select.select(list(watch), [], [], left)[0]:
                    if fd == pidfd:
                        watch.discard(pidfd)
                    elif fd == ready_r:
                        data = os.read(fd, 16)
                        ready = ready or data.startswith(READY)
                        if not data:
                            watch.discard(fd)
                    elif not self._read_into(fd, bufs, watch, limit):
                        reason = "output_limit"
                        break
            _kill_tree(pid)
            _, wstatus, usage = os.wait4(pid, 0)
        finally:
            os.close(pidfd)
        stray = self._drain(bufs, watch - {pidfd, ready_r}, limit)
        wall = time.monotonic() - start
        result = {
            "ready": ready,
            "reason": reason,
            "wstatus": wstatus,
            "wall_s": wall,
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "cpu_limit_s": _cpu_limit(header["timeout_s"]),
            "timeout_s": cpu_limit,
            "stray": stray,
        }
        return result, bufs[out_r], bufs[err_r]

    def _read_into(self, fd: int, bufs: dict, watch: set, limit: int) -> bool:
        """Read one chunk; False once stdout + stderr together pass ``limit``."""
        chunk = self.chunk
        got = os.readv(fd, [chunk])
        if not got:
            watch.discard(fd)
            return True
        room = max(limit - sum(b.n for b in bufs.values()), 0)
        bufs[fd].add(memoryview(chunk)[: min(got, room)])
        return got <= room

    def _drain(self, bufs: dict, fds: set, limit: int) -> bool:
        """Collect what the dead child left in its pipes. True if a writer is still alive,
        which only a process that escaped the no-fork filter could be."""
        fds = set(fds)
        while fds:
            readable = select.select(list(fds), [], [], 0)[0]
            if not readable:
                return True
            for fd in readable:
                if not self._read_into(fd, bufs, fds, limit):
                    return False
        return False

    # ---------------------------------------------------------------- the child

    def _child(self, header, blobs, rundir, stdin_fd, out_w, err_w, ready_w) -> None:
        """Harden, in order, then run the program. Never returns."""
        try:
            os.setsid()  # own process group: the server kills the whole group
            for src, dst in ((stdin_fd, 0), (out_w, 1), (err_w, 2), (ready_w, 3)):
                os.dup2(src, dst)
            keep = 4
            if self.ruleset_fd is not None:
                os.dup2(self.ruleset_fd, 4)
                keep = 5
            os.closerange(keep, 2**31 - 1)  # every inherited fd: protocol pipe, pidfds, ...
            os.chdir(rundir)
            os.environ.clear()
            os.environ.update(_child_env(rundir))
            hd.set_rlimits(
                address_space=self.baseline_vm + int(header["memory_mb"]) * (1 << 20),
                cpu_s=_cpu_limit(header["timeout_s"]),
                file_size=int(self.cfg["scratch_mb"]) << 20,
                open_files=256,
                nproc=int(self.cfg["max_threads"]) if self.uid is not None else None,
            )
            self._drop_privileges()
            hd.prctl(hd.PR_SET_PDEATHSIG, signal.SIGKILL)  # cleared by setuid: set it after
            if os.getppid() != self.pid:
                os._exit(SETUP_FAILED)
            hd.set_no_new_privs()
            if self.ruleset_fd is not None:
                hd.landlock_restrict(4)
                os.close(4)
            _write_files(header["files"], blobs[2:])
            if self.seccomp is not None:
                self.seccomp.load(os.getpid())
            os.write(3, READY)
            os.close(3)
        except BaseException as exc:  # noqa: BLE001 - report any setup failure, never run code
            _write_all(2, f"sandbox setup failed: {type(exc).__name__}: {exc}\n".encode())
            os._exit(SETUP_FAILED)
        if header.get("probe"):
            _run_program(_PROBE_CODE, "<probe>")
        _run_program(blobs[0].decode("utf-8", "surrogateescape"), "<program>")

    def _drop_privileges(self) -> None:
        if self.uid is not None:
            os.setgroups([])
            os.setresgid(self.uid, self.uid, self.uid)
            os.setresuid(self.uid, self.uid, self.uid)
            if os.getuid() == 0 or os.geteuid() == 0:
                raise OSError(errno.EPERM, "still root after setresuid")
        elif self.userns:
            hd.drop_capabilities()

    # ---------------------------------------------------------------- main loop

    def serve(self, rfd: int, wfd: int) -> None:
        """Answer jobs until the supervisor closes the pipe.

        Every program is forked from this process, so its memory is the program's to read:
        job data (code, stdin, files) and captured output must not outlive their job here.
        They live only in buffers this loop wipes after each job, never in Python ``bytes``
        copies that would be freed with their contents intact.
        """
        self.pid = os.getpid()
        self.chunk = bytearray(1 << 16)
        proto.write_frame(wfd, {"hello": True, "layers": self.layers, "errors": self.errors, "pid": self.pid})
        source = open(rfd, "rb", buffering=0)  # noqa: SIM115 - lives as long as the server
        while True:
            try:
                header, blobs = _read_job(source)
            except EOFError:
                return
            result, out, err = self.run_job(header, blobs)
            _write_result(wfd, result, out.view(), err.view())
            for buf in (*blobs, out.buf, err.buf, self.chunk):
                _wipe(buf)


# -------------------------------------------------------------------- wiped buffers


class _Sink:
    """A growable output buffer that wipes what it outgrows."""

    def __init__(self) -> None:
        self.buf = bytearray(1 << 12)
        self.n = 0

    def add(self, data: memoryview) -> None:
        need = self.n + len(data)
        if need > len(self.buf):
            bigger = bytearray(max(need, 2 * len(self.buf)))
            bigger[: self.n] = memoryview(self.buf)[: self.n]
            _wipe(self.buf)
            self.buf = bigger
        self.buf[self.n : need] = data
        self.n = need

    def view(self) -> memoryview:
        return memoryview(self.buf)[: self.n]


def _wipe(buf: bytearray) -> None:
    buf[:] = bytes(len(buf))  # same length: overwritten in place, no reallocation


def _read_exact(source, n: int) -> bytearray:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = source.readinto(view[got:])
        if not k:
            raise EOFError("supervisor closed the pipe")
        got += k
    return buf


def _read_job(source) -> tuple[dict, list[bytearray]]:
    """Read one frame straight into fresh bytearrays (no intermediate copies to leak)."""
    (count,) = struct.unpack("!I", _read_exact(source, 4))
    parts = [_read_exact(source, struct.unpack("!I", _read_exact(source, 4))[0]) for _ in range(count)]
    return json.loads(parts[0]), parts[1:]


def _write_result(fd: int, result: dict, *views: memoryview) -> None:
    header = json.dumps(result).encode()
    parts: list[bytes | memoryview] = [
        struct.pack("!I", 1 + len(views)),
        struct.pack("!I", len(header)),
        header,
    ]
    for view in views:
        parts += [struct.pack("!I", len(view)), view]
    pieces = [memoryview(p) for p in parts]
    while pieces:
        sent = os.writev(fd, pieces)
        while pieces and sent >= len(pieces[0]):
            sent -= len(pieces[0])
            pieces.pop(0)
        if pieces and sent:
            pieces[0] = pieces[0][sent:]


# -------------------------------------------------------------------- child-side helpers


def _run_program(source: str, filename: str) -> None:
    """Execute ``source`` as ``__main__`` with fresh std streams; exit with its status."""
    # The streams `python -c` would have in UTF-8 mode, without consulting the locale.
    # (sys.__stdin__ and friends are Final to type checkers; a forked child replaces them anyway)
    sys.stdin = sys.__stdin__ = open(0, errors="surrogateescape", encoding="utf-8", closefd=False)  # type: ignore[misc]  # noqa: SIM115
    sys.stdout = sys.__stdout__ = open(1, "w", errors="surrogateescape", encoding="utf-8", closefd=False)  # type: ignore[misc]  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(  # type: ignore[misc]  # noqa: SIM115
        2, "w", errors="backslashreplace", buffering=1, encoding="utf-8", closefd=False
    )
    sys.argv = ["-c"]
    sys.path.insert(0, "")  # as `python -c`: modules passed in `files` are importable
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    status = 0
    try:
        code = compile(source, filename, "exec")
        exec(code, {"__name__": "__main__", "__builtins__": builtins})
        _join_threads()
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except BaseException as exc:  # noqa: BLE001 - the program's own error, reported like python does
        status = 1
        try:
            # Skip this function's own frame: the traceback starts in the program, as python's.
            # Innermost frames only, like the interpreter (sys.tracebacklimit, default 1000):
            # a runaway recursion would otherwise spend the timeout formatting millions.
            limit = -max(int(getattr(sys, "tracebacklimit", 1000)), 1)
            below = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
            traceback.print_exception(type(exc), exc, below, limit=limit)
        except BaseException:  # noqa: BLE001 - e.g. MemoryError while formatting
            _write_all(2, b"\nMemoryError\n")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001,S110 - a closed or broken stream loses its tail
            pass
    os._exit(status)


def _join_threads() -> None:
    # `python -c` waits for non-daemon threads before exiting; so do we.
    main = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main and not thread.daemon:
            thread.join()


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except BaseException:  # noqa: BLE001,S110
        pass
    return 1


def _write_files(names: list[str], contents: list[bytes]) -> None:
    # Runs after the privilege drop and Landlock, so the kernel confines any path trick.
    for name, data in zip(names, contents, strict=True):
        parent = os.path.dirname(name)
        if parent:
            os.makedirs(parent, exist_ok=True)
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _child_env(rundir: str) -> dict[str, str]:
    return {"HOME": rundir, "TMPDIR": rundir, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PWD": rundir}


def _cpu_limit(timeout_s: float) -> int:
    """The kernel's CPU rlimit: a safety net behind the supervisor's exact CPU check."""
    return int(math.ceil(float(timeout_s))) + 1


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (all its threads), from /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rpartition(b")")[2].split()
    except OSError:  # already gone: wait4 reports its exact usage
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def _vm_size() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 64 << 20


def _read_paths() -> list[str]:
    """Directories the interpreter reads: its prefixes, stdlib, site-packages, and the
    directories of every file it has mapped (shared libraries of preloaded modules)."""
    paths = {sys.prefix, sys.exec_prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        paths.add(sysconfig.get_paths()[key])
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.split(maxsplit=5)
            mapped = fields[5].strip() if len(fields) == 6 else ""
            # Only real library files: not "/memfd:x (deleted)", "/dev/zero (deleted)" & co,
            # whose directory ("/", "/dev") would open far more than the interpreter.
            if mapped.startswith("/") and not mapped.endswith("(deleted)") and os.path.isfile(mapped):
                paths.add(os.path.dirname(mapped))
    paths = {p for p in paths if p and os.path.exists(p) and p not in _NEVER_READABLE}
    return sorted(paths | {"/etc/ld.so.cache", "/etc/localtime"})


def _expose_interpreter(scratch: str) -> None:
    """Make the interpreter's prefix reachable for the per-worker uids.

    An interpreter installed under a private directory (pyenv in /root, mode 0700) is
    unreadable once privileges drop, so lazy imports would fail. In our private mount
    namespace the private ancestor is covered with an empty tmpfs and only the prefix is
    bind-mounted back: the rest of that directory (``.ssh`` and the like) stays hidden.
    """
    prefixes = sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})
    scratch = os.path.realpath(scratch)
    plan = [(prefix, _private_ancestor(prefix)) for prefix in prefixes]
    # A virtualenv and its base interpreter may share one private ancestor (both under /root):
    # open every prefix first, cover each ancestor once, then bind every prefix back.
    plan = [(p, h) for p, h in plan if h is not None and not scratch.startswith(h + os.sep)]
    hiding = sorted({h for _, h in plan if h is not None})
    fds = {prefix: os.open(prefix, os.O_PATH) for prefix, _ in plan}
    try:
        for hidden in hiding:
            hd.mount("tmpfs", hidden, "tmpfs", hd.MS_NOSUID | hd.MS_NODEV, "mode=0755,size=64k")
        for prefix, fd in fds.items():
            os.makedirs(prefix, mode=0o755, exist_ok=True)
            hd.mount(f"/proc/self/fd/{fd}", prefix, None, hd.MS_BIND | hd.MS_REC)
    finally:
        for fd in fds.values():
            os.close(fd)


def _private_ancestor(path: str) -> str | None:
    """The top-most directory on ``path`` that others may not traverse, if any."""
    current = "/"
    for part in path.strip("/").split("/"):
        current = os.path.join(current, part)
        if not os.stat(current).st_mode & 0o001:
            return current
    return None


def _kill_tree(pid: int) -> None:
    # The child is its own process-group leader; seccomp forbids it any descendants, and the
    # group kill covers the layers-missing case. SIGKILL: programs may ignore SIGTERM.
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _clear_dir(path: str) -> bool:
    """Remove every entry of ``path`` (not ``path`` itself); True if it is empty after."""
    for name in os.listdir(path):
        _remove_tree(os.path.join(path, name))
    return not os.listdir(path)


def _remove_tree(path: str) -> bool:
    """Remove a run directory whatever the program did to its permissions."""

    def fix(func, p, _exc):  # the program may chmod 000 its own directories
        try:
            for d in (os.path.dirname(p), p):
                # Never chmod through a symlink the program planted: only real directories.
                if stat.S_ISDIR(os.lstat(d).st_mode):
                    os.chmod(d, 0o700)
            func(p)
        except OSError:
            pass

    if os.path.lexists(path):
        shutil.rmtree(path, onerror=fix)
    return not os.path.lexists(path)


_PROBE_CODE = r"""
import json, os, resource, socket, errno
def blocked(fn):
    try:
        r = fn()
    except PermissionError:
        return True
    except OSError as e:
        return e.errno in (errno.EPERM, errno.EACCES)
    if r == 0:
        os._exit(0)
    if isinstance(r, int) and r > 0:
        os.waitpid(r, 0)
    return False
res = {
    "uid": os.getuid(), "euid": os.geteuid(),
    "fork_blocked": blocked(os.fork),
    "inet_blocked": blocked(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()),
    "fs_outside_blocked": blocked(lambda: os.listdir("/")),
    "rlimit_as": resource.getrlimit(resource.RLIMIT_AS)[0],
}
try:  # a stdlib module the server has not loaded: can programs import what they need?
    import colorsys
    res["stdlib_readable"] = True
except Exception:
    res["stdlib_readable"] = False
print(json.dumps(res))
"""


def main(argv: list[str]) -> None:
    # No parent-death signal here: Linux sends it when the *thread* that spawned us exits, and
    # supervisors spawn from pool threads. The server exits on EOF of its protocol pipe instead,
    # and every program it forks dies with it (PR_SET_PDEATHSIG in the child).
    cfg = json.loads(argv[1])
    # The protocol runs on private fds; 0/1 point at /dev/null so no stray print corrupts it.
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    server = Server(cfg)
    try:
        server.start()
    except Exception as exc:  # noqa: BLE001 - reported to the supervisor, which raises it
        proto.write_frame(wfd, {"hello": False, "error": f"{type(exc).__name__}: {exc}"})
        return
    # Objects alive now are shared with every program; frozen, the collector never walks
    # (and so never copies-on-write) their pages in the children.
    gc.freeze()
    server.serve(rfd, wfd)
