"""Hostile programs against the sandbox: each must end safely and leave the host untouched."""

from __future__ import annotations

import secrets
import sys

import pytest

from palaestra.sandbox import Sandbox

attacks = sys.modules["palaestra_sandbox_tests_attacks"]  # loaded by path in conftest.py


@pytest.fixture(scope="module")
def watch(tmp_path_factory):
    w = attacks.HostWatch(str(tmp_path_factory.mktemp("world")))
    yield w
    w.close()


def test_catalogue_is_complete():
    names = [a.name for a in attacks.ATTACKS]
    assert len(names) == len(set(names))
    assert len(names) >= 35


@pytest.mark.parametrize("attack", attacks.ATTACKS, ids=lambda a: a.name)
def test_attack(attack, sandbox, report, watch):
    reason = attacks.skip_reason(attack, report)
    if reason:
        attacks.skip_counted(f"{attack.name}: {reason}")
    attacks.run_attack(sandbox, attack, watch, sandbox.backend.uids())


def test_path_escape_in_files_is_refused(sandbox, watch):
    for name in ("../escape", "/tmp/escape", "a/../../escape", ""):
        result = sandbox.run("print('ran')", files={name: "x"})
        assert result.status == "refused", (name, result)
        assert result.stdout == ""
    watch.check(result, sandbox.backend.uids())


# A program that searches its own address space for a marker it is given in two halves (so
# the whole marker never exists in its memory unless something else put it there), plus a
# control marker it assembles itself to prove the scan sees the heap. Unmapped pages are
# skipped by writing them to a pipe: write() answers EFAULT instead of crashing.
_MEMORY_SCAN = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.sbrk.restype = ctypes.c_void_p
libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
h1, h2, c1, c2 = (bytes.fromhex(x) for x in sys.stdin.read().split())
control = bytearray(c1) + bytearray(c2)
r, w = os.pipe()
PAGE = 1 << 16
def count(data, a, b):
    n, i = 0, data.find(a)
    while i >= 0:
        n += data[i + len(a):i + len(a) + len(b)] == b
        i = data.find(a, i + 1)
    return n
found = {"secret": 0, "control": 0}
seen = set()
anchors = [libc.sbrk(0), id(h1), id(object()), id(control), ctypes.addressof(ctypes.create_string_buffer(1 << 20))]
for anchor in anchors:
    for step in (PAGE, -PAGE):
        addr, misses = (anchor & ~(PAGE - 1)) + (0 if step > 0 else -PAGE), 0
        while misses < 64 and len(seen) < 8192:
            if addr not in seen:
                seen.add(addr)
                got = libc.write(w, addr, PAGE)
                if got <= 0:
                    misses += 1
                else:
                    misses = 0
                    data = os.read(r, got)
                    found["secret"] += count(data, h1, h2)
                    found["control"] += count(data, c1, c2)
            addr += step
print(found["secret"], found["control"], len(seen))
"""


def test_no_data_leaks_between_runs_in_one_worker():
    # Programs are forked from the warm server: earlier jobs' code, stdin, files and output
    # must be gone from its memory, or the next program could read them.
    with Sandbox(workers=1, min_level=0) as sb:
        secret = "SECRET-" + secrets.token_hex(24)
        first = sb.run(
            f"import sys\ndata = sys.stdin.read()\nprint({secret!r} * 3)",
            stdin=(secret + "\n") * 500,
            files={"tests.txt": secret * 40},
            timeout_s=60,
        )
        assert first.ok and secret in first.stdout
        raw, control = secret.encode(), ("CONTROL-" + secrets.token_hex(24)).encode()
        halves = [raw[:20], raw[20:], control[:20], control[20:]]
        scan = sb.run(_MEMORY_SCAN, stdin=" ".join(h.hex() for h in halves), timeout_s=60)
        assert scan.ok, scan.stderr[-1000:]
        leaked, seen_control, pages = (int(x) for x in scan.stdout.split())
        assert seen_control >= 1, "the scan is blind: it did not find its own control marker"
        assert leaked == 0, f"an earlier job's data is readable from the next program ({leaked} copies)"
