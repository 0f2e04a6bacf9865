"""The optional per-run bubblewrap backend (skipped, with a counted reason, without bwrap)."""

from __future__ import annotations

import sys

import pytest

from palaestra.sandbox import Sandbox
from palaestra.sandbox.backends import bubblewrap_path

attacks = sys.modules["palaestra_sandbox_tests_attacks"]  # loaded by path in conftest.py
PATIENT = 60.0  # wall limit for programs expected to finish (the machine may be loaded)


@pytest.fixture(scope="module")
def bwrap_box():
    if bubblewrap_path() is None:
        attacks.skip_counted("bubblewrap backend: bwrap is not installed (apt-get install bubblewrap)")
    try:
        sb = Sandbox(workers=2, min_level=0, backend="bubblewrap")
        probe_run = sb.run("print('up')", timeout_s=PATIENT)
    except OSError as exc:
        attacks.skip_counted(f"bubblewrap backend: bwrap cannot start here: {exc}")
    if probe_run.status != "ok":
        attacks.skip_counted(
            f"bubblewrap backend: bwrap cannot create namespaces here: {probe_run.stderr[-200:]}"
        )
    yield sb
    sb.close()


def test_runs_with_stdin_and_files(bwrap_box):
    r = bwrap_box.run(
        "print(input()[::-1], open('f.txt').read())", stdin="abc", files={"f.txt": "data"}, timeout_s=PATIENT
    )
    assert r.status == "ok" and r.stdout == "cba data\n", r


@pytest.mark.parametrize(
    ("code", "status", "needle"),
    [
        ("import os\nos.fork()", "error", "PermissionError"),
        ("import subprocess\nsubprocess.run(['id'])", "error", "PermissionError"),
        ("import socket\nsocket.create_connection(('127.0.0.1', 9))", "error", "PermissionError"),
        ("print(open('/etc/shadow').read())", "error", "Error"),
        ("x = bytearray(8 * 1024**3)", "memory", "MemoryError"),
        ("while True:\n    pass", "timeout", ""),
    ],
)
def test_confinement(bwrap_box, code, status, needle):
    r = bwrap_box.run(code, timeout_s=1.0 if status == "timeout" else PATIENT)
    assert r.status == status, r
    assert needle in r.stderr


def test_output_limit(bwrap_box):
    r = bwrap_box.run("while True:\n    print('x' * 1000)", output_limit_bytes=10_000, timeout_s=PATIENT)
    assert r.status == "output_limit" and len(r.stdout) <= 10_000


def test_run_many_order(bwrap_box):
    jobs = [{"code": f"print({i})", "timeout_s": PATIENT} for i in range(4)]
    assert [r.stdout for r in bwrap_box.run_many(jobs)] == [f"{i}\n" for i in range(4)]
