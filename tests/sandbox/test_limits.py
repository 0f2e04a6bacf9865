"""Every sandbox resource is clamped to the sandbox's configured maximum, whatever a job asks
(a task's knobs or a client's request must not buy a program more time or memory)."""

from __future__ import annotations

import pytest

from palaestra.sandbox import Job, Limits, Sandbox

_REPORT = "import resource\nprint(resource.getrlimit(resource.RLIMIT_CPU)[1], resource.getrlimit(resource.RLIMIT_AS)[1])"


def test_clamp_lowers_only_what_exceeds_the_maximum():
    limits = Limits(max_timeout_s=5.0, max_wall_timeout_s=16.0, max_memory_mb=256, max_output_bytes=1000)
    big = limits.clamp(Job("pass", timeout_s=3600, memory_mb=1 << 20, output_limit_bytes=1 << 30))
    assert (big.timeout_s, big.memory_mb, big.output_limit_bytes) == (5.0, 256, 1000)
    assert big.wall_limit_s == 16.0  # the default backstop of 5 s (3 x 5 + 1) is 16 s
    assert limits.clamp(Job("pass", timeout_s=2.0, wall_timeout_s=10**6)).wall_limit_s == 16.0
    small = Job("pass", timeout_s=1.0, memory_mb=64, output_limit_bytes=10)
    assert limits.clamp(small) == small
    for bad in (0, -1, float("nan"), float("inf"), "x"):  # left for the backend to refuse
        assert limits.clamp(Job("pass", timeout_s=bad)).timeout_s is bad


def test_a_job_cannot_buy_more_than_the_maximum(report):
    if report.level < 1:
        pytest.skip("sandbox unavailable")
    limits = Limits(max_timeout_s=1.0, max_wall_timeout_s=2.0, max_memory_mb=64)
    with Sandbox(workers=1, min_level=0, limits=limits) as sb:
        small = sb.run(_REPORT, timeout_s=1.0, memory_mb=64)
        huge = sb.run(_REPORT, timeout_s=3600, memory_mb=1 << 20)
        # the kernel's limits of a program that asked for an hour and a terabyte
        assert small.ok and huge.ok, (small, huge)
        assert huge.stdout == small.stdout
        # a program that blocks, asking for a day of wall time, is stopped at the maximum
        blocked = sb.run("import time\ntime.sleep(3600)", timeout_s=3600, wall_timeout_s=86400)
        assert blocked.status == "timeout"
        hog = sb.run("x = bytearray(512 << 20)", memory_mb=1 << 20)
        assert hog.status == "memory"
