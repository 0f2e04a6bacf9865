"""Unit tests of the confinement primitives and the supervisor's result classification."""

from __future__ import annotations

import signal
import struct

import pytest

from palaestra.sandbox import _hardening as hd
from palaestra.sandbox.backends import _validate, classify
from palaestra.sandbox.result import Job

needs_x86 = pytest.mark.skipif(not hd.seccomp_supported(), reason="seccomp filter is mapped for x86_64 only")


@needs_x86
def test_seccomp_program_patches_only_the_pid_slots():
    prog = hd.SeccompProgram()
    a, b = prog.bytes_for(1234), prog.bytes_for(98765)
    assert len(a) == len(b) == 8 * len(prog) and len(prog) < 4096
    diffs = {i // 8 for i in range(len(a)) if a[i] != b[i]}
    assert diffs and diffs <= set(prog._pid_slots) | set(prog._neg_slots)
    ks = {struct.unpack_from("=I", a, 8 * i + 4)[0] for i in prog._pid_slots}
    assert ks == {1234}
    assert {struct.unpack_from("=I", a, 8 * i + 4)[0] for i in prog._neg_slots} == {(-1234) & 0xFFFFFFFF}


@needs_x86
def test_seccomp_program_denies_every_listed_syscall():
    prog = hd.SeccompProgram()
    compared = {k for code, _, _, k in prog._insns if code == 0x15}
    for name in hd.DENIED_SYSCALLS:
        assert hd._SYS[name] in compared, name


@needs_x86
def test_exec_variant_drops_only_exec():
    full, with_exec = hd.SeccompProgram(), hd.SeccompProgram(allow_exec=True, own_pid_signals=False)
    k_full = {k for c, _, _, k in full._insns if c == 0x15}
    k_exec = {k for c, _, _, k in with_exec._insns if c == 0x15}
    assert hd._SYS["execve"] in k_full and hd._SYS["execve"] not in k_exec
    assert hd._SYS["fork"] in k_exec and hd._SYS["clone3"] in k_exec


def test_assembler_rejects_far_jumps():
    src = [("ld", 0), ("jeq", 1, "far", None)] + [("ld", 0)] * 300 + [("label", "far"), ("ret", 0)]
    with pytest.raises(ValueError):
        hd._assemble(src)


def test_landlock_abi_is_an_int():
    assert isinstance(hd.landlock_abi(), int) and hd.landlock_abi() >= 0


@pytest.mark.parametrize(
    ("raw", "stderr", "expected"),
    [
        ({"reason": "timeout", "ready": True, "wstatus": signal.SIGKILL}, b"", ("timeout", -9)),
        ({"reason": "output_limit", "ready": True, "wstatus": signal.SIGKILL}, b"", ("output_limit", -9)),
        ({"reason": None, "ready": False, "wstatus": 126 << 8}, b"setup failed", ("refused", 126)),
        ({"reason": None, "ready": False, "wstatus": signal.SIGKILL}, b"", ("killed", -9)),
        ({"reason": None, "ready": True, "wstatus": signal.SIGXCPU}, b"", ("timeout", -signal.SIGXCPU)),
        ({"reason": None, "ready": True, "wstatus": 1 << 8}, b"...\nMemoryError\n", ("memory", 1)),
        ({"reason": None, "ready": True, "wstatus": signal.SIGSEGV}, b"", ("error", -11)),
        ({"reason": None, "ready": True, "wstatus": signal.SIGKILL}, b"", ("killed", -9)),
        ({"reason": None, "ready": True, "wstatus": 0}, b"", ("ok", 0)),
    ],
)
def test_classify(raw, stderr, expected):
    raw = {"cpu_s": 0.1, "cpu_limit_s": 3, **raw}
    assert classify(raw, b"", stderr) == expected


def test_cpu_kill_at_the_hard_limit_is_a_timeout():
    raw = {"reason": None, "ready": True, "wstatus": signal.SIGKILL, "cpu_s": 3.0, "cpu_limit_s": 3}
    assert classify(raw, b"", b"")[0] == "timeout"


@pytest.mark.parametrize("name", ["../a", "/abs", "a/../b", "a//b", "./a", "", "a\0b"])
def test_validate_rejects_paths_leaving_scratch(name):
    assert _validate(Job("pass", files={name: "x"}), 64) is not None


def test_validate_accepts_nested_relative_paths():
    assert _validate(Job("pass", files={"a/b/c.txt": "x", "d": b"y"}), 64) is None
    assert _validate(Job("pass", files={"big": b"x" * (2 << 20)}), 1) is not None
