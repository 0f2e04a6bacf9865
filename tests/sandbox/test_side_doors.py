"""Side doors found in review: SysV IPC outliving a run, host pathname unix sockets, memory
held in memfds, files left beside a run directory. Each probe counts what got through; every
count must be zero. The same probes run with the supervisor as uid 65534 in
``test_unprivileged.py`` (user-namespace mode)."""

from __future__ import annotations

import sys

import pytest

from palaestra.sandbox import ForkServerBackend, Sandbox

side_doors = sys.modules["palaestra_sandbox_tests_side_doors"]  # loaded by path in conftest.py


def _factory():
    return Sandbox(workers=1, min_level=0)


@pytest.mark.parametrize("name", ["sysv_ipc", "unix_sockets", "memfd", "files_across_runs"])
def test_side_door_is_closed(name, report):
    if report.level < 2:
        pytest.skip(f"needs the seccomp layer (host level {report.level})")
    found = side_doors.PROBES[name](_factory)
    print(name, found)
    assert not side_doors.violations(name, found), (side_doors.violations(name, found), found)


def test_files_do_not_outlive_a_run_without_a_mount_namespace(report):
    # The fallback: the scratch root is a host directory, emptied before and after every run.
    if report.level < 1:
        pytest.skip("sandbox unavailable")

    def factory():
        return Sandbox(min_level=0, backend=ForkServerBackend(1, layers={"namespaces": False}))

    found = side_doors.files_across_runs(factory)
    print(found)
    assert found["first"].startswith("ok"), found
    assert not side_doors.violations("files_across_runs", found), found
