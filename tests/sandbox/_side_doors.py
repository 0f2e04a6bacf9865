"""Side doors between runs and out of the sandbox, measured as counts.

Shared by ``test_side_doors.py`` (run as the test user) and ``_run_as_nobody.py`` (re-run with
the supervisor as uid 65534, in user-namespace mode). Each probe uses a one-worker sandbox, so
the second program is forked from the same server as the first: whatever the first left
behind (SysV IPC objects, files beside its run directory) the second would find. Each returns
plain counts; zero is the contained outcome.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import tempfile

PATIENT = 60.0

# ---------------------------------------------------------------- SysV IPC across runs

_IPC_LIBC = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
BAD = ctypes.c_void_p(-1).value
class Msg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]
"""

# Run 1: a 64 MiB shared memory segment, a message queue and a semaphore set, all holding the
# secret (where they can), created 0666 so that any later process may open them.
_IPC_WRITER = (
    _IPC_LIBC
    + """
key, secret = {key}, {secret!r}.encode()
made = []
shm = libc.shmget(key, 64 << 20, 0o1666)
if shm >= 0:
    addr = libc.shmat(shm, None, 0)
    if addr not in (None, BAD):
        ctypes.memmove(addr, secret, len(secret))
        libc.shmdt(ctypes.c_void_p(addr))
    made.append("shm")
msq = libc.msgget(key, 0o1666)
if msq >= 0:
    m = Msg(1, secret)
    libc.msgsnd(msq, ctypes.byref(m), len(secret), 0)
    made.append("msg")
sem = libc.semget(key, 1, 0o1666)
if sem >= 0:
    made.append("sem")
print("made", " ".join(made) or "nothing", "errno", ctypes.get_errno())
"""
)

# Run 2: open the same keys without creating, and read what run 1 left.
_IPC_READER = (
    _IPC_LIBC
    + """
key = {key}
found = []
shm = libc.shmget(key, 0, 0)
if shm >= 0:
    found.append("shm")
    addr = libc.shmat(shm, None, 0)
    if addr not in (None, BAD):
        print("shm-data", ctypes.string_at(addr, 64).split(b"\\0")[0].decode(errors="replace"))
msq = libc.msgget(key, 0)
if msq >= 0:
    found.append("msg")
    m = Msg()
    if libc.msgrcv(msq, ctypes.byref(m), 64, 0, 0o4000) >= 0:  # IPC_NOWAIT
        print("msg-data", m.mtext.decode(errors="replace"))
if libc.semget(key, 0, 0) >= 0:
    found.append("sem")
print("found", len(found))
"""
)


def _sysv_keys_on_host(key: int) -> int:
    """SysV objects with ``key`` visible in this process's IPC namespace."""
    count = 0
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                next(f)
                count += sum(1 for line in f if int(line.split()[0]) == key)
        except OSError:
            continue
    return count


def sysv_ipc(sandbox_factory) -> dict:
    """Objects of run 1 that run 2 (same worker) opens, the secret it reads back, and objects
    left in the host's IPC namespace after the sandbox closed."""
    key = secrets.randbelow(1 << 30) + 1
    secret = "SECRET-FROM-RUN-1-" + secrets.token_hex(8)
    with sandbox_factory() as sb:
        first = sb.run(_IPC_WRITER.format(key=key, secret=secret), timeout_s=PATIENT)
        second = sb.run(_IPC_READER.format(key=key), timeout_s=PATIENT)
        host_during = _sysv_keys_on_host(key)
    found = int(second.stdout.split("found")[-1].split()[0]) if "found" in second.stdout else -1
    return {
        "first": f"{first.status}: {first.stdout.strip()[-200:]} {first.stderr[-200:]}",
        "second_status": second.status,
        "objects_seen_by_next_run": found,
        "secret_read_by_next_run": secret in second.stdout,
        "objects_on_host_while_open": host_during,
        "objects_on_host_after_close": _sysv_keys_on_host(key),
    }


# ---------------------------------------------------------------- host pathname unix sockets

_UNIX_CLIENT = """
import socket
for kind, path in (("stream", {stream!r}), ("dgram", {dgram!r})):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM if kind == "stream" else socket.SOCK_DGRAM)
    except OSError as exc:
        print(kind, "socket-refused", exc.errno)
        continue
    try:
        if kind == "stream":
            s.connect(path)
            s.sendall(b"pwn")
        else:
            s.sendto(b"pwn", path)
        print(kind, "REACHED")
    except OSError as exc:
        print(kind, "connect-failed", exc.errno)
a, b = socket.socketpair()  # asyncio's self-pipe: must keep working
a.sendall(b"pair")
print("socketpair", b.recv(4).decode())
"""


def unix_sockets(sandbox_factory) -> dict:
    """Host listeners on pathname sockets (mode 0777, in a world-traversable directory):
    how many connections and datagrams from the program reached them."""
    where = tempfile.mkdtemp(prefix="palaestra-unix-", dir="/tmp")
    os.chmod(where, 0o755)
    stream_path, dgram_path = os.path.join(where, "stream.sock"), os.path.join(where, "dgram.sock")
    stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        stream.bind(stream_path)
        stream.listen(8)
        dgram.bind(dgram_path)
        for path in (stream_path, dgram_path):
            os.chmod(path, 0o777)
        stream.setblocking(False)
        dgram.setblocking(False)
        with sandbox_factory() as sb:
            result = sb.run(_UNIX_CLIENT.format(stream=stream_path, dgram=dgram_path), timeout_s=PATIENT)
        reached = 0
        try:
            conn, _ = stream.accept()
            conn.close()
            reached += 1
        except BlockingIOError:
            pass
        try:
            dgram.recv(16)
            reached += 1
        except BlockingIOError:
            pass
    finally:
        stream.close()
        dgram.close()
        shutil.rmtree(where, ignore_errors=True)
    return {
        "status": result.status,
        "stdout": result.stdout,
        "reached_host_listeners": reached,
        "socketpair_works": "socketpair pair" in result.stdout,
    }


# ---------------------------------------------------------------- memory held in memfds

_MEMFD_HOG = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
held, chunk, fds = 0, b"x" * (1 << 20), []
# Many memfds, each below the file-size rlimit: os.memfd_create and the raw syscall (319 on
# x86_64), which no Python-level wrapper can intercept.
for attempt in range(64):
    try:
        fd = os.memfd_create("hog") if attempt % 2 == 0 else libc.syscall(319, b"hog", 0)
    except OSError as exc:
        fd = -1
        ctypes.set_errno(exc.errno)
    if fd < 0:
        print("memfd-refused", ctypes.get_errno())
        continue
    fds.append(fd)
    size = 0
    while size < (48 << 20) and held < ({target_mb} << 20):
        try:
            n = os.write(fd, chunk)
        except OSError:
            break
        size += n
        held += n
    if held >= {target_mb} << 20:
        break
print("held_mib", held >> 20)
"""


def memfd(sandbox_factory, memory_mb: int = 64, target_mb: int = 480) -> dict:
    """MiB a program under ``memory_mb`` holds in memfds (0 when memfd_create is refused)."""
    with sandbox_factory() as sb:
        result = sb.run(_MEMFD_HOG.format(target_mb=target_mb), timeout_s=PATIENT, memory_mb=memory_mb)
    held = 0
    for line in result.stdout.splitlines():
        if line.startswith("held_mib"):
            held = int(line.split()[1])
    return {
        "status": result.status,
        "held_mib": held,
        "stdout": result.stdout[-300:],
        "stderr": result.stderr[-300:],
    }


# ---------------------------------------------------------------- files across runs

_FILE_WRITER = """
import os
wrote = []
for path in ("../PERSIST", "PERSIST", "../sub/PERSIST", "../../PERSIST"):
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.write({secret!r})
        wrote.append(path)
    except OSError as exc:
        pass
for target in ("..", "."):
    for op in (lambda t: os.chmod(t, 0o777), lambda t: os.setxattr(t, "user.persist", {secret!r}.encode())):
        try:
            op(target)
            wrote.append(target + ":meta")
        except (OSError, AttributeError):
            pass
print("wrote", wrote)
"""

_FILE_READER = """
import os
seen = []
for top in ("..", ".", "../.."):
    for root, dirs, files in os.walk(top):
        if root.count("/") - top.count("/") >= 2:
            dirs[:] = []  # two levels below each start are where a run could have written
        for name in files:
            try:
                with open(os.path.join(root, name), errors="replace") as f:
                    seen.append(f.read(200))
            except (OSError, ValueError):
                pass
for target in ("..", "."):
    try:
        seen.append(os.getxattr(target, "user.persist").decode())
    except (OSError, AttributeError):
        pass
    try:
        seen.append("mode " + oct(os.stat(target).st_mode & 0o7777))
    except OSError:
        pass
print("\\n".join(seen))
"""


def files_across_runs(sandbox_factory) -> dict:
    """Things run 1 wrote (files beside or above its run directory, modes and xattrs of its
    directories) that run 2, forked from the same server, can read."""
    secret = "PERSIST-" + secrets.token_hex(8)
    with sandbox_factory() as sb:
        before = sb.run(_FILE_READER, timeout_s=PATIENT)
        first = sb.run(_FILE_WRITER.format(secret=secret), timeout_s=PATIENT)
        second = sb.run(_FILE_READER, timeout_s=PATIENT)

    def modes(result) -> list[str]:
        return [line for line in result.stdout.splitlines() if line.startswith("mode ")]

    return {
        "first": f"{first.status}: {first.stdout.strip()[-300:]}",
        "second_status": second.status,
        "secret_copies_seen_by_next_run": second.stdout.count(secret),
        "modes_before": modes(before),
        "modes_seen_by_next_run": modes(second),
    }


PROBES = {
    "sysv_ipc": sysv_ipc,
    "unix_sockets": unix_sockets,
    "memfd": memfd,
    "files_across_runs": files_across_runs,
}


def violations(name: str, found: dict) -> list[str]:
    """What in a probe's counts is a side door (empty: contained)."""
    bad = []
    if name == "sysv_ipc":
        for key in ("objects_seen_by_next_run", "objects_on_host_while_open", "objects_on_host_after_close"):
            if found[key] != 0:
                bad.append(f"{key}={found[key]}")
        if found["secret_read_by_next_run"]:
            bad.append("the next run read run 1's secret")
    elif name == "unix_sockets":
        if found["reached_host_listeners"]:
            bad.append(f"{found['reached_host_listeners']} host listener(s) reached")
        if not found["socketpair_works"]:
            bad.append(f"socketpair broken: {found['stdout']!r}")
    elif name == "memfd":
        if found["held_mib"] != 0:
            bad.append(f"{found['held_mib']} MiB held in memfds outside the memory limit")
    elif name == "files_across_runs":
        if found["secret_copies_seen_by_next_run"]:
            bad.append(f"{found['secret_copies_seen_by_next_run']} file(s) of run 1 read by run 2")
        if found["modes_before"] != found["modes_seen_by_next_run"]:
            bad.append(
                f"directory modes changed: {found['modes_before']} -> {found['modes_seen_by_next_run']}"
            )
    if name in ("sysv_ipc", "files_across_runs") and found["second_status"] != "ok":
        bad.append(f"the reading run did not finish: {found['second_status']}")
    return bad
