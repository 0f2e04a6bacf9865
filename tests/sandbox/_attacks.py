"""The attack catalogue: hostile programs, each with its expected safe outcome.

Shared by ``test_attacks.py`` (run as the test user) and ``_run_as_nobody.py`` (a subset
re-run as uid 65534). Every attack is checked twice: its own expectation here, and the host
checks in :class:`HostWatch` (supervisor alive, no stray sandbox processes, no file outside the
scratch directory, nothing received by the test's listeners, the parent's secret never shown).

``needs`` is the protection level whose layer the expectation depends on: on a host below it
the attack is skipped with that reason, never silently passed. ``harmful`` marks attacks
that could hurt the host if they escaped; they additionally need the probe to confirm the
privilege drop and the no-fork filter.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

SECRET_ENV = "PALAESTRA_TEST_SECRET"
PATIENT = 60.0
SKIPS: list[str] = []  # reasons of host-dependent skips, printed in the pytest summary


def skip_counted(reason: str) -> None:
    """Skip the current test with a printed reason that the summary counts."""
    import pytest

    SKIPS.append(reason)
    print(f"SKIP: {reason}")
    pytest.skip(reason)


@dataclass
class Context:
    """What the attacks aim at; all of it must come out untouched."""

    token: str
    secret: str
    world_dir: str  # world-writable, outside the scratch dir: only Landlock keeps writes out
    fake_ssh: str  # a world-readable fake private key outside the scratch dir
    tcp_port: int
    udp_port: int
    abstract_name: str
    supervisor_pid: int

    @property
    def canaries(self) -> list[str]:
        t = self.token
        return [
            f"/tmp/pwn-{t}",
            f"/var/tmp/pwn-{t}",
            f"/dev/shm/pwn-{t}",
            f"{self.world_dir}/pwn-{t}",
            f"/root/pwn-{t}",
            f"/etc/pwn-{t}",
        ]


@dataclass
class Attack:
    name: str
    code: str
    statuses: tuple[str, ...]
    check: Callable[[object, Context], None] | None = None
    needs: int = 2
    harmful: bool = False
    kwargs: dict = field(default_factory=dict)

    def source(self, ctx: Context) -> str:
        return self.code.format(ctx=ctx, token=ctx.token)


def _out_has(*texts: str) -> Callable[[object, Context], None]:
    def check(result, ctx):
        for text in texts:
            assert text in result.stdout, f"expected {text!r} in stdout, got {result.stdout[-500:]!r}"

    return check


def _err_has(*texts: str) -> Callable[[object, Context], None]:
    def check(result, ctx):
        for text in texts:
            assert text in result.stderr, f"expected {text!r} in stderr, got {result.stderr[-500:]!r}"

    return check


def _both(*checks: Callable) -> Callable[[object, Context], None]:
    def check(result, ctx):
        for c in checks:
            c(result, ctx)

    return check


def _no_secret_key(result, ctx: Context) -> None:
    assert "BEGIN FAKE KEY" not in result.stdout + result.stderr


def _output_capped(limit: int) -> Callable[[object, Context], None]:
    def check(result, ctx):
        assert len(result.stdout.encode()) + len(result.stderr.encode()) <= limit

    return check


_LIBC = "import ctypes; libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long\n"
# Prints "<return value> <errno>" of a raw syscall, bypassing every Python-level wrapper.
_RAW = _LIBC + "r = libc.syscall({nr}{args}); print(r, ctypes.get_errno())\n"
_PERM_DENIED = "PermissionError"


def _raw(nr: int, args: str = "") -> str:
    return _RAW.replace("{nr}", str(nr)).replace("{args}", args)


ATTACKS: list[Attack] = [
    # ---- time
    Attack("infinite_loop", "while True:\n    pass", ("timeout",), kwargs={"timeout_s": 1.0}, needs=1),
    Attack(
        "sleep_past_timeout", "import time\ntime.sleep(60)", ("timeout",), kwargs={"timeout_s": 1.0}, needs=1
    ),
    Attack(
        "ignore_sigterm",
        "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass",
        ("timeout",),
        kwargs={"timeout_s": 1.0},
        needs=1,
    ),
    Attack(
        "spinning_threads",
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "for _ in range(8):\n    threading.Thread(target=spin).start()",
        ("timeout",),
        kwargs={"timeout_s": 1.0},
        needs=1,
    ),
    # ---- processes (bounded so that a regression fails the test instead of the host)
    Attack(
        "fork_bomb_os_fork",
        "import os, time\nn = 0\nfor _ in range(64):\n    try:\n        pid = os.fork()\n"
        "    except OSError as e:\n        print('blocked', e.errno); break\n"
        "    if pid == 0:\n        time.sleep(30); os._exit(0)\n    n += 1\nprint('forked', n)",
        ("ok",),
        _out_has("blocked 1", "forked 0"),
        harmful=True,
    ),
    Attack("fork_raw_syscall", _raw(57), ("ok",), _out_has("-1 1"), harmful=True),
    Attack("vfork_raw_syscall", _raw(58), ("ok",), _out_has("-1 1"), harmful=True),
    Attack(
        "clone_raw_syscall_process", _raw(56, ", 17, 0, 0, 0, 0"), ("ok",), _out_has("-1 1"), harmful=True
    ),
    Attack(
        "clone_new_user_namespace_thread",
        _raw(56, ", 0x10000 | 0x100 | 0x800 | 0x10000000, 0, 0, 0, 0"),
        ("ok",),
        _out_has("-1 1"),
        harmful=True,
    ),
    Attack("clone3_raw_syscall", _raw(435, ", 0, 0"), ("ok",), _out_has("-1 38"), harmful=True),
    Attack(
        "thread_bomb",
        "import threading, time\nn = 0\ntry:\n    while True:\n"
        "        threading.Thread(target=time.sleep, args=(60,), daemon=True).start(); n += 1\n"
        "except (RuntimeError, MemoryError) as e:\n    print('stopped after', n, type(e).__name__)",
        ("ok", "memory", "timeout"),
        kwargs={"timeout_s": 5.0},
        harmful=True,
    ),
    Attack(
        "subprocess_run",
        "import subprocess\nprint(subprocess.run(['id'], capture_output=True).stdout)",
        ("error",),
        _err_has(_PERM_DENIED),
    ),
    Attack("os_system", "import os\nprint('rc', os.system('id > pwned'))", ("ok",), _out_has("rc ")),
    Attack(
        "os_execv", "import os\nos.execv('/bin/sh', ['sh', '-c', 'id'])", ("error",), _err_has(_PERM_DENIED)
    ),
    Attack(
        "reimport_blocked_modules",
        "import importlib\nsp = __import__('sub' + 'process')\nos_ = importlib.import_module('o' + 's')\n"
        "for f in (lambda: sp.Popen(['id']), lambda: os_.fork(), lambda: os_.posix_spawn('/bin/id', ['id'], {{}})):\n"
        "    try:\n        f(); print('ESCAPED')\n    except PermissionError:\n        print('denied')",
        ("ok",),
        lambda r, c: (_out_has("denied")(r, c), _check_absent("ESCAPED", r)),
    ),
    # ---- memory and recursion
    Attack("memory_one_huge_allocation", "x = bytearray(8 * 1024**3)", ("memory",), needs=1),
    Attack(
        "memory_slow_growth",
        "chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024**2))",
        ("memory",),
        needs=1,
    ),
    Attack(
        "deep_recursion",
        "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1) + 1\nf(0)",
        ("error", "memory", "timeout"),  # millions of frames: any bounded end is safe
        kwargs={"timeout_s": 3.0},
        needs=1,
    ),
    Attack(
        "ctypes_segfault",
        "import ctypes\nctypes.string_at(0)",
        ("error",),
        lambda r, c: _exit(r, -11),
        needs=1,
    ),
    # ---- disk
    Attack(
        "disk_fill_one_file",
        "with open('big', 'wb') as f:\n    while True:\n        f.write(b'x' * 2**20)",
        ("error",),
        _err_has("OSError"),
        needs=1,
    ),
    Attack(
        "disk_fill_many_files",
        "i = 0\nwhile True:\n    open('f' + str(i), 'w').close(); i += 1",
        ("error",),
        _err_has("No space left"),
        needs=5,  # the inode cap comes from the namespaced tmpfs scratch
    ),
    # ---- filesystem confinement
    Attack(
        "write_outside_cwd",
        "for p in {ctx.canaries!r}:\n    try:\n        open(p, 'w').write('pwned'); print('WROTE', p)\n"
        "    except OSError as e:\n        print('denied', type(e).__name__)",
        ("ok",),
        lambda r, c: _check_absent("WROTE", r),
        needs=4,
    ),
    Attack(
        "write_dev_shm",
        "import os\nfd = os.open('/dev/shm/pwn-{token}', os.O_CREAT | os.O_WRONLY)\nos.write(fd, b'x')",
        ("error",),
        _err_has("Error"),
        needs=4,
    ),
    Attack(
        "symlink_out_of_scratch_write",
        "import os\nos.symlink({ctx.world_dir!r}, 'out')\nopen('out/pwn-{token}', 'w').write('pwned')",
        ("error",),
        _err_has(_PERM_DENIED),
        needs=4,
    ),
    Attack(
        "symlink_out_of_scratch_read",
        "import os\nos.symlink({ctx.fake_ssh!r} + '/id_rsa', 'key')\nprint(open('key').read())",
        ("error",),
        _both(_err_has(_PERM_DENIED), _no_secret_key),
        needs=4,
    ),
    Attack(
        "hardlink_out_of_scratch",
        "import os\nos.link({ctx.fake_ssh!r} + '/id_rsa', 'key')\nprint(open('key').read())",
        ("error",),
        _both(_err_has("Error"), _no_secret_key),
        needs=4,
    ),
    Attack(
        "list_sensitive_directories",
        "import os\nfor d in ('/', '/etc', '/tmp', '/home', '/root', '/proc', '/sys', '/dev', '/var', '/run'):\n"
        "    try:\n        os.listdir(d); print('LISTED', d)\n    except OSError:\n        print('denied', d)",
        ("ok",),
        lambda r, c: _check_absent("LISTED", r),
        needs=4,
    ),
    Attack(
        "read_etc_shadow", "print(open('/etc/shadow').read())", ("error",), _err_has(_PERM_DENIED), needs=3
    ),
    Attack(
        "read_ssh_keys",
        "import os\nfor d in ({ctx.fake_ssh!r}, os.path.expanduser('~root/.ssh'), '/root/.ssh'):\n"
        "    try:\n        print(d, os.listdir(d))\n        print(open(d + '/id_rsa').read())\n"
        "    except OSError as e:\n        print('denied', d, type(e).__name__)",
        ("ok",),
        _both(_no_secret_key, _out_has("denied")),
        needs=4,
    ),
    Attack(
        "read_proc_1_environ", "print(open('/proc/1/environ').read())", ("error",), _err_has("Error"), needs=3
    ),
    Attack(
        "read_parent_proc_environ",
        "import os\nfor pid in (os.getppid(), {ctx.supervisor_pid}):\n    try:\n"
        "        print(open(f'/proc/{{pid}}/environ').read())\n    except OSError as e:\n        print('denied', type(e).__name__)",
        ("ok",),
        _out_has("denied"),
        needs=3,
    ),
    Attack("environ_secrets", "import os\nprint(dict(os.environ))", ("ok",), _out_has("HOME"), needs=1),
    Attack(
        "inherited_fds",
        "import os\nopen_fds = []\nfor fd in range(3, 4096):\n    try:\n        os.fstat(fd); open_fds.append(fd)\n"
        "    except OSError:\n        pass\nprint('open', open_fds)",
        ("ok",),
        _out_has("open []"),
        needs=1,
    ),
    # ---- network
    Attack(
        "tcp_connect_localhost",
        "import socket\ns = socket.create_connection(('127.0.0.1', {ctx.tcp_port}), timeout=1)\ns.sendall(b'pwn')",
        ("error",),
        _err_has(_PERM_DENIED),
    ),
    Attack(
        "udp_send_localhost",
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b'pwn', ('127.0.0.1', {ctx.udp_port}))",
        ("error",),
        _err_has(_PERM_DENIED),
    ),
    Attack("raw_socket_syscall", _raw(41, ", 2, 1, 0"), ("ok",), _out_has("-1 1")),
    Attack(
        "ipv6_and_packet_sockets",
        "import socket\nfor fam in (socket.AF_INET6, socket.AF_PACKET, socket.AF_NETLINK):\n    try:\n"
        "        socket.socket(fam, socket.SOCK_RAW); print('ESCAPED', fam)\n    except PermissionError:\n        print('denied')",
        ("ok",),
        lambda r, c: (_check_absent("ESCAPED", r), _out_has("denied")(r, c)),
    ),
    Attack(
        "abstract_unix_socket",
        "import socket\ns = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\ns.connect('\\0' + {ctx.abstract_name!r})\ns.sendall(b'pwn')",
        ("error",),
        needs=5,
    ),
    # ---- other processes
    Attack(
        "kill_supervisor",
        "import os, signal\nos.kill({ctx.supervisor_pid}, signal.SIGKILL)",
        ("error",),
        _err_has(_PERM_DENIED),
        harmful=True,
    ),
    Attack(
        "kill_fork_server",
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)",
        ("error",),
        _err_has(_PERM_DENIED),
        harmful=True,
    ),
    Attack(
        "kill_everything",
        "import os, signal\nos.kill(-1, signal.SIGKILL)",
        ("error",),
        _err_has(_PERM_DENIED),
        harmful=True,
    ),
    Attack(
        "ptrace_attach_supervisor",
        _raw(101, ", 16, {ctx.supervisor_pid}, 0, 0"),
        ("ok",),
        _out_has("-1 1"),
        harmful=True,
    ),
    Attack(
        "process_vm_readv_supervisor",
        _raw(310, ", {ctx.supervisor_pid}, 0, 0, 0, 0, 0"),
        ("ok",),
        _out_has("-1 1"),
        harmful=True,
    ),
    # ---- kernel surface
    Attack(
        "mount_syscall",
        _LIBC + "print(libc.mount(b'none', b'/tmp', b'tmpfs', 0, None), ctypes.get_errno())",
        ("ok",),
        _out_has("-1 1"),
    ),
    Attack("unshare_namespaces", _raw(272, ", 0x10000000 | 0x20000"), ("ok",), _out_has("-1 1")),
    Attack("bpf_syscall", _raw(321, ", 0, 0, 0"), ("ok",), _out_has("-1 1")),
    Attack("io_uring_setup", _raw(425, ", 8, 0"), ("ok",), _out_has("-1 1")),
    Attack(
        "setuid_root_gains_nothing",
        # Per-worker uid: setuid(0) is denied. User namespace: the program already is uid 0
        # there (mapped to an unprivileged user), so what matters is that it holds no capability.
        "import os, ctypes\ntry:\n    os.setuid(0); print('setuid returned')\nexcept PermissionError:\n"
        "    print('setuid denied')\nhdr = (ctypes.c_uint32 * 2)(0x20080522, 0)\ndata = (ctypes.c_uint32 * 6)()\n"
        "rc = ctypes.CDLL(None).capget(hdr, data)\nprint('capget', rc, 'eff', data[0] | data[3], 'prm', data[1] | data[4])",
        ("ok",),
        _out_has("capget 0 eff 0 prm 0"),
        needs=3,
    ),
    Attack(
        "raise_rlimits_back",
        "import resource\nfor r in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NOFILE):\n"
        "    resource.setrlimit(r, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))",
        ("error",),
        _err_has("ValueError"),
        needs=3,
    ),
    # ---- output and protocol
    Attack(
        "huge_stdout",
        "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)",
        ("output_limit",),
        _output_capped(100_000),
        kwargs={"output_limit_bytes": 100_000},
        needs=1,
    ),
    Attack(
        "huge_stderr",
        "import sys\nwhile True:\n    sys.stderr.write('y' * 65536)",
        ("output_limit",),
        _output_capped(100_000),
        kwargs={"output_limit_bytes": 100_000},
        needs=1,
    ),
    Attack(
        "closing_stdout",
        "import os, time\nprint('before', flush=True)\nos.close(1)\nos.close(2)\ntime.sleep(0.2)",
        ("ok",),
        _out_has("before"),
        needs=1,
    ),
    Attack(
        "imitate_result_protocol",
        "import sys, struct, json\nh = json.dumps({{'ready': True, 'reason': None, 'wstatus': 0, 'wall_s': 0,"
        " 'cpu_s': 0, 'cpu_limit_s': 9, 'anomaly': False}}).encode()\n"
        "frame = struct.pack('!I', 3) + struct.pack('!I', len(h)) + h + struct.pack('!I', 2) + b'OK' + struct.pack('!I', 0)\n"
        "sys.stdout.buffer.write(frame * 3)\nsys.stdout.flush()\nsys.exit(3)",
        ("error",),
        lambda r, c: (_exit(r, 3), _out_has('"ready": true')(r, c)),
        needs=1,
    ),
]


def _check_absent(text: str, result) -> None:
    assert text not in result.stdout, result.stdout[-500:]


def _exit(result, code: int) -> None:
    assert result.exit_code == code, (result.exit_code, result.stderr[-300:])


# ------------------------------------------------------------------------------------------
# Host checks
# ------------------------------------------------------------------------------------------


class HostWatch:
    """Listeners and canaries the attacks aim at, and the checks that they stayed untouched."""

    def __init__(self, world_dir: str, supervisor_pid: int | None = None) -> None:
        token = secrets.token_hex(8)
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(8)
        self.tcp.setblocking(False)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.setblocking(False)
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        abstract = f"palaestra-test-{token}"
        self.unix.bind("\0" + abstract)
        self.unix.listen(8)
        self.unix.setblocking(False)
        os.chmod(world_dir, 0o777)  # world-writable: only the sandbox may keep writes out
        fake_ssh = os.path.join(world_dir, ".ssh")
        os.makedirs(fake_ssh, exist_ok=True)
        os.chmod(fake_ssh, 0o755)
        with open(os.path.join(fake_ssh, "id_rsa"), "w") as f:
            f.write("-----BEGIN FAKE KEY-----\n")
        os.chmod(os.path.join(fake_ssh, "id_rsa"), 0o644)
        self.ctx = Context(
            token=token,
            secret=os.environ[SECRET_ENV],
            world_dir=world_dir,
            fake_ssh=fake_ssh,
            tcp_port=self.tcp.getsockname()[1],
            udp_port=self.udp.getsockname()[1],
            abstract_name=abstract,
            supervisor_pid=supervisor_pid or os.getpid(),
        )

    def check(self, result, sandbox_uids: list[int]) -> None:
        ctx = self.ctx
        assert ctx.secret not in result.stdout + result.stderr, "the parent's secret leaked"
        for path in ctx.canaries:
            assert not os.path.lexists(path), f"file written outside the scratch dir: {path}"
        for sock in (self.tcp, self.unix):
            try:
                conn, _ = sock.accept()
            except BlockingIOError:
                continue
            conn.close()
            raise AssertionError(f"a connection reached the test listener {sock.getsockname()!r}")
        try:
            data = self.udp.recv(100)
        except BlockingIOError:
            data = None
        assert data is None, f"a datagram reached the test listener: {data!r}"
        strays = stray_processes(sandbox_uids)
        assert not strays, f"processes of the sandbox uids survived: {strays}"

    def close(self) -> None:
        for sock in (self.tcp, self.udp, self.unix):
            sock.close()


def stray_processes(uids: list[int]) -> list[tuple[int, int]]:
    """(pid, uid) of live processes running as any of ``uids``."""
    wanted = set(uids)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                for line in f:
                    if line.startswith("Uid:"):
                        uid = int(line.split()[1])
                        if uid in wanted:
                            found.append((int(entry), uid))
                        break
        except OSError:
            continue
    return found


def run_attack(sandbox, attack: Attack, watch: HostWatch, uids: list[int]) -> object:
    """Run one attack and every check; raise AssertionError on any failure."""
    # Attacks that should end by themselves get a wall limit no loaded machine reaches, so a
    # starved run cannot turn into a spurious "timeout"; timeout attacks set their own.
    result = sandbox.run(attack.source(watch.ctx), **{"timeout_s": PATIENT, **attack.kwargs})
    assert result.status in attack.statuses, (
        f"{attack.name}: status {result.status} (exit {result.exit_code}), expected {attack.statuses}; "
        f"stdout={result.stdout[-300:]!r} stderr={result.stderr[-500:]!r}"
    )
    if attack.check is not None:
        attack.check(result, watch.ctx)
    watch.check(result, uids)
    after = sandbox.run("print(6 * 7)", timeout_s=PATIENT)
    assert after.status == "ok" and after.stdout == "42\n", (
        f"the sandbox is unhealthy after {attack.name}: {after}"
    )
    return result


def skip_reason(attack: Attack, report) -> str | None:
    """Why this host cannot run ``attack`` meaningfully, or None."""
    if report.level < attack.needs:
        missing = [m for m in report.missing]
        return f"host protection level {report.level} < {attack.needs} needed (missing: {missing})"
    if attack.harmful and not (report.layers.get("privdrop") and report.layers.get("seccomp")):
        return "harmful attack: the probe did not confirm the privilege drop and the no-fork filter"
    return None
