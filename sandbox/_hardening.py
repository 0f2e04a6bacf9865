"""Kernel confinement primitives through raw syscalls (standard library only).

The fork server loads this file by path (it must not import the ``palaestra`` package, whose
``__init__`` belongs to other rooms), so it imports nothing but the standard library. Every
defence here is enforced by the kernel: seccomp-BPF, Landlock, namespaces, credentials and
rlimits. Nothing relies on Python-level monkeypatching, which ``ctypes`` bypasses.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.restype = ctypes.c_int
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]

ARCH = platform.machine()

# prctl options
PR_SET_PDEATHSIG = 1
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
SECCOMP_MODE_FILTER = 2

# clone/unshare flags
CLONE_THREAD = 0x00010000
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
_NAMESPACE_FLAGS = (
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
)

# mount flags
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_BIND = 4096
MS_REMOUNT = 32
MS_REC = 16384
MNT_DETACH = 2
MS_PRIVATE = 1 << 18


def _check(result: int) -> int:
    if result == -1:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def syscall(nr: int, *args: object) -> int:
    """``syscall(2)``; ints are passed as C longs, ctypes objects as they are."""
    cargs = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    return _check(_libc.syscall(ctypes.c_long(nr), *cargs))


def prctl(option: int, arg2: int | object = 0, arg3: int = 0) -> int:
    a2 = ctypes.c_ulong(arg2) if isinstance(arg2, int) else arg2
    return _check(
        _libc.prctl(ctypes.c_int(option), a2, ctypes.c_ulong(arg3), ctypes.c_ulong(0), ctypes.c_ulong(0))
    )


# --------------------------------------------------------------------------------------------
# Namespaces and mounts (used by the fork server at start, once per worker)
# --------------------------------------------------------------------------------------------


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags))


def mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(
        _libc.mount(
            source.encode(),
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        )
    )


def umount(target: str, flags: int = 0) -> None:
    _check(_libc.umount2(target.encode(), flags))


def enter_user_namespace(uid: int, gid: int) -> None:
    """Unshare a user namespace and map ``uid``/``gid`` to root inside it."""
    unshare(CLONE_NEWUSER)
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"0 {uid} 1")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"0 {gid} 1")


def drop_capabilities() -> None:
    """Clear the effective, permitted and inheritable capability sets (capset v3)."""
    header = struct.pack("=Ii", 0x20080522, 0)
    data = bytes(24)  # two __user_cap_data_struct of three zero u32s
    if "capset" not in _SYS:
        raise OSError(errno.ENOSYS, f"capset number unknown on {ARCH}")
    syscall(_SYS["capset"], ctypes.c_char_p(header), ctypes.c_char_p(data))


# --------------------------------------------------------------------------------------------
# rlimits
# --------------------------------------------------------------------------------------------


M_ARENA_MAX = -8  # mallopt parameter number, glibc <malloc.h>


def limit_malloc_arenas(arenas: int = 1) -> bool:
    """Keep glibc from reserving a 64 MiB malloc arena per thread.

    The memory limit is an address-space rlimit, and each arena is a 64 MiB reservation that is
    rarely touched: without this a program under a 512 MiB limit could not start 8 threads.
    Children inherit the setting through fork. Returns False where libc has no ``mallopt``.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # musl and other non-glibc hosts
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))


def set_rlimits(
    *, address_space: int, cpu_s: int, file_size: int, open_files: int, nproc: int | None
) -> None:
    """Soft == hard for every limit so the program cannot raise it back (no CAP_SYS_RESOURCE)."""
    limits = [
        (resource.RLIMIT_AS, address_space),
        (resource.RLIMIT_FSIZE, file_size),
        (resource.RLIMIT_NOFILE, open_files),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_MEMLOCK, 0),
        (resource.RLIMIT_MSGQUEUE, 0),
    ]
    if nproc is not None:
        limits.append((resource.RLIMIT_NPROC, nproc))
    for which, value in limits:
        resource.setrlimit(which, (value, value))
    # CPU: SIGXCPU at the soft limit, SIGKILL one second later at the hard limit.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))


# --------------------------------------------------------------------------------------------
# seccomp-BPF
# --------------------------------------------------------------------------------------------

# x86_64 syscall numbers. Other architectures report seccomp as missing rather than guess.
_SYS_X86_64 = {
    "shmget": 29,
    "shmat": 30,
    "shmctl": 31,
    "socket": 41,
    "socketpair": 53,
    "clone": 56,
    "fork": 57,
    "vfork": 58,
    "execve": 59,
    "kill": 62,
    "semget": 64,
    "semop": 65,
    "semctl": 66,
    "shmdt": 67,
    "msgget": 68,
    "msgsnd": 69,
    "msgrcv": 70,
    "msgctl": 71,
    "ptrace": 101,
    "syslog": 103,
    "capset": 126,
    "rt_sigqueueinfo": 129,
    "uselib": 134,
    "personality": 135,
    "ustat": 136,
    "sysfs": 139,
    "vhangup": 153,
    "modify_ldt": 154,
    "pivot_root": 155,
    "_sysctl": 156,
    "adjtimex": 159,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "sethostname": 170,
    "setdomainname": 171,
    "iopl": 172,
    "ioperm": 173,
    "create_module": 174,
    "init_module": 175,
    "delete_module": 176,
    "get_kernel_syms": 177,
    "query_module": 178,
    "quotactl": 179,
    "nfsservctl": 180,
    "tkill": 200,
    "semtimedop": 220,
    "lookup_dcookie": 212,
    "clock_settime": 227,
    "tgkill": 234,
    "mq_open": 240,
    "mq_unlink": 241,
    "mq_timedsend": 242,
    "mq_timedreceive": 243,
    "mq_notify": 244,
    "mq_getsetattr": 245,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "rt_tgsigqueueinfo": 297,
    "perf_event_open": 298,
    "fanotify_init": 300,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "memfd_create": 319,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "execveat": 322,
    "userfaultfd": 323,
    "pidfd_send_signal": 424,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "pidfd_open": 434,
    "clone3": 435,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "mount_setattr": 442,
    "quotactl_fd": 443,
    "landlock_create_ruleset": 444,
    "landlock_add_rule": 445,
    "landlock_restrict_self": 446,
    "memfd_secret": 447,
}
_SYS = (
    _SYS_X86_64
    if ARCH == "x86_64"
    else {
        # Landlock and capset numbers are needed on every arch; these three are arch-independent
        # (new syscalls share one table) except capset, which only x86_64 is mapped for.
        "landlock_create_ruleset": 444,
        "landlock_add_rule": 445,
        "landlock_restrict_self": 446,
    }
)
_AUDIT_ARCH_X86_64 = 0xC000003E

# Denied with EPERM: process creation and exec, tracing and other processes' memory, mounts and
# namespaces, kernel keyrings/modules/BPF, clocks, io_uring (it would bypass this filter);
# SysV IPC and POSIX message queues (kernel objects that outlive the run and would carry data
# to the next one); memfd_create (its pages are outside the address-space limit); socket()
# itself, so no host pathname unix socket is reachable (socketpair stays, AF_UNIX only).
DENIED_SYSCALLS = (
    "socket",
    "shmget",
    "shmat",
    "shmctl",
    "shmdt",
    "semget",
    "semop",
    "semctl",
    "semtimedop",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    "memfd_create",
    "fork",
    "vfork",
    "execve",
    "execveat",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "create_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    "iopl",
    "ioperm",
    "modify_ldt",
    "quotactl",
    "quotactl_fd",
    "personality",
    "syslog",
    "lookup_dcookie",
    "name_to_handle_at",
    "open_by_handle_at",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    "process_madvise",
    "tkill",
    "vhangup",
    "uselib",
    "nfsservctl",
    "get_kernel_syms",
    "query_module",
    "_sysctl",
    "ustat",
    "sysfs",
    "fanotify_init",
    "memfd_secret",
)

_BPF_LD_W_ABS = 0x20
_BPF_JEQ = 0x15
_BPF_JGE = 0x35
_BPF_JSET = 0x45
_BPF_RET = 0x06
_RET_KILL_PROCESS = 0x80000000
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16  # offsets in struct seccomp_data (little-endian)
_AF_UNIX = 1
_PID_MARK, _NEG_PID_MARK = 0x7EADBEEF, 0x7EEDBEEF  # placeholders patched with the child's pid


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def seccomp_supported() -> bool:
    return ARCH == "x86_64"


class SeccompProgram:
    """A seccomp-BPF program built once per worker; ``load(pid)`` patches in the child's pid.

    The filter allows everything except the list above, with argument checks for the calls
    programs legitimately need in a restricted form: ``clone`` only for threads (CLONE_THREAD
    and no namespace flags), ``socketpair`` only for AF_UNIX (``socket`` not at all), and signals only to
    the program itself. ``clone3`` answers ENOSYS so glibc falls back to ``clone``, whose flags
    a classic BPF filter can read (clone3 passes them in memory, out of its reach).
    """

    def __init__(self, *, allow_exec: bool = False, own_pid_signals: bool = True) -> None:
        if not seccomp_supported():
            raise OSError(errno.ENOSYS, f"seccomp filter not available on {ARCH}")
        self._insns = _assemble(_filter_source(allow_exec, own_pid_signals))
        self._pid_slots = [i for i, (_, _, _, k) in enumerate(self._insns) if k == _PID_MARK]
        self._neg_slots = [i for i, (_, _, _, k) in enumerate(self._insns) if k == _NEG_PID_MARK]
        self._template = bytearray(b"".join(struct.pack("=HBBI", *insn) for insn in self._insns))

    def __len__(self) -> int:
        return len(self._insns)

    def bytes_for(self, pid: int) -> bytes:
        prog = bytearray(self._template)
        for i in self._pid_slots:
            struct.pack_into("=I", prog, 8 * i + 4, pid & 0xFFFFFFFF)
        for i in self._neg_slots:
            struct.pack_into("=I", prog, 8 * i + 4, (-pid) & 0xFFFFFFFF)
        return bytes(prog)

    def load(self, pid: int) -> None:
        """Install the filter on the calling thread; requires no_new_privs (set first)."""
        buf = ctypes.create_string_buffer(self.bytes_for(pid))
        fprog = _SockFprog(len(self._insns), ctypes.cast(buf, ctypes.c_void_p))
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog))


def _filter_source(allow_exec: bool, own_pid_signals: bool) -> list[tuple]:
    """The filter as (op, k, jump_true_label, jump_false_label) / (label,) / (ret, value).

    ``allow_exec`` keeps execve (a per-run launcher such as bubblewrap must exec the program;
    without fork, exec only replaces the process). ``own_pid_signals=False`` leaves signals to
    a pid namespace instead of the patched-in pid.
    """
    s = _SYS
    exec_calls = ("execve", "execveat") if allow_exec else ()
    src: list[tuple] = [
        ("ld", _OFF_ARCH),
        ("jeq", _AUDIT_ARCH_X86_64, None, "kill"),  # foreign ABIs (int 0x80) are killed
        ("ld", _OFF_NR),
        ("jge", 0x40000000, "kill", None),  # the x32 ABI aliases every syscall
    ]
    for name in DENIED_SYSCALLS:
        if name not in exec_calls:
            src.append(("jeq", s[name], "eperm", None))
    src += [
        ("jeq", s["clone3"], "enosys", None),
        ("jeq", s["clone"], "clone", None),
        ("jeq", s["socketpair"], "socket", None),
    ]
    if own_pid_signals:
        src += [
            ("jeq", s["kill"], "kill_sig", None),
            ("jeq", s["tgkill"], "own_pid", None),
            ("jeq", s["rt_sigqueueinfo"], "own_pid", None),
            ("jeq", s["rt_tgsigqueueinfo"], "own_pid", None),
        ]
    src += [
        ("ret", _RET_ALLOW),
        ("label", "clone"),
        ("ld", _OFF_ARG0),
        ("jset", _NAMESPACE_FLAGS, "eperm", None),
        ("jset", CLONE_THREAD, "allow", "eperm"),
        ("label", "socket"),
        ("ld", _OFF_ARG0),
        ("jeq", _AF_UNIX, "allow", "eperm"),
        ("label", "kill_sig"),
        ("ld", _OFF_ARG0),
        ("jeq", 0, "allow", None),  # own process group (== own pid after setsid)
        ("jeq", _NEG_PID_MARK, "allow", None),
        ("label", "own_pid"),
        ("ld", _OFF_ARG0),
        ("jeq", _PID_MARK, "allow", "eperm"),
        ("label", "allow"),
        ("ret", _RET_ALLOW),
        ("label", "eperm"),
        ("ret", _RET_ERRNO | errno.EPERM),
        ("label", "enosys"),
        ("ret", _RET_ERRNO | errno.ENOSYS),
        ("label", "kill"),
        ("ret", _RET_KILL_PROCESS),
    ]
    return src


def _assemble(src: list[tuple]) -> list[tuple[int, int, int, int]]:
    """Resolve labels into classic-BPF relative jumps: (code, jt, jf, k) tuples."""
    labels: dict[str, int] = {}
    body: list[tuple] = []
    for item in src:
        if item[0] == "label":
            labels[item[1]] = len(body)
        else:
            body.append(item)
    insns = []
    for i, item in enumerate(body):
        op = item[0]
        if op == "ld":
            insns.append((_BPF_LD_W_ABS, 0, 0, item[1]))
        elif op == "ret":
            insns.append((_BPF_RET, 0, 0, item[1]))
        else:
            code = {"jeq": _BPF_JEQ, "jge": _BPF_JGE, "jset": _BPF_JSET}[op]
            jt, jf = (0 if lab is None else labels[lab] - i - 1 for lab in item[2:4])
            if not (0 <= jt < 256 and 0 <= jf < 256):
                raise ValueError("seccomp jump out of range")
            insns.append((code, jt, jf, item[1]))
    return insns


def set_no_new_privs() -> None:
    prctl(PR_SET_NO_NEW_PRIVS, 1)


# --------------------------------------------------------------------------------------------
# Landlock
# --------------------------------------------------------------------------------------------

_LL_EXECUTE, _LL_WRITE_FILE, _LL_READ_FILE, _LL_READ_DIR = 1, 2, 4, 8
_LL_TRUNCATE = 1 << 14
_LL_FILE_RIGHTS_V3 = _LL_EXECUTE | _LL_WRITE_FILE | _LL_READ_FILE | _LL_TRUNCATE
_LL_SCOPE_ABSTRACT_UNIX, _LL_SCOPE_SIGNAL = 1, 2
_LL_NET_BIND_TCP, _LL_NET_CONNECT_TCP = 1, 2


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when Landlock is unavailable."""
    try:
        return syscall(444, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    except OSError:
        return 0


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= 1 << 13  # refer
    if abi >= 3:
        rights |= _LL_TRUNCATE
    if abi >= 5:
        rights |= 1 << 15  # ioctl_dev
    return rights


def landlock_ruleset(read_paths: list[str], write_paths: list[str], rw_files: list[str], abi: int) -> int:
    """Build a ruleset fd: read/execute beneath ``read_paths``, everything beneath
    ``write_paths``, read/write on the ``rw_files`` (device nodes like /dev/null). With ABI >= 4
    all TCP bind/connect is denied; with ABI >= 6 signals and abstract unix sockets are scoped
    to the sandbox. The returned fd is applied later with :func:`landlock_restrict`."""
    handled = _fs_rights(abi)
    attr = struct.pack("=Q", handled)
    if abi >= 4:
        attr += struct.pack("=Q", _LL_NET_BIND_TCP | _LL_NET_CONNECT_TCP)
    if abi >= 6:
        attr += struct.pack("=Q", _LL_SCOPE_ABSTRACT_UNIX | _LL_SCOPE_SIGNAL)
    fd = syscall(444, ctypes.c_char_p(attr), len(attr), 0)
    read = _LL_EXECUTE | _LL_READ_FILE | _LL_READ_DIR
    file_rw = _LL_READ_FILE | _LL_WRITE_FILE | (_LL_TRUNCATE if abi >= 3 else 0)
    try:
        for paths, rights in ((read_paths, read), (write_paths, handled), (rw_files, file_rw)):
            for path in paths:
                _landlock_add_path(fd, path, rights & handled)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _landlock_add_path(ruleset_fd: int, path: str, rights: int) -> None:
    try:
        pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # an absent path needs no rule
    try:
        if not os.path.isdir(path):
            rights &= _LL_FILE_RIGHTS_V3  # directory rights are invalid on a file
        attr = struct.pack("=Qi", rights, pfd)  # struct landlock_path_beneath_attr is packed
        syscall(445, ruleset_fd, 1, ctypes.c_char_p(attr), 0)
    finally:
        os.close(pfd)


def landlock_restrict(ruleset_fd: int) -> None:
    syscall(446, ruleset_fd, 0)
