"""Shared fixtures for the sandbox tests: one pool for the session, the probe, host watches."""

from __future__ import annotations

import importlib.util
import os
import secrets
import sys
from pathlib import Path

import pytest

from palaestra.sandbox import Sandbox, probe

HERE = Path(__file__).parent


def load_local(name: str):
    """Import a helper module from this folder under a unique name (tests run with
    --import-mode=importlib, so test modules cannot import siblings); test modules fetch it
    with ``sys.modules["palaestra_sandbox_tests" + name]``."""
    key = "palaestra_sandbox_tests" + name
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, HERE / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


attacks = load_local("_attacks")
load_local("_side_doors")
# A secret in the supervisor's environment before any worker starts: it must never come out.
os.environ.setdefault(attacks.SECRET_ENV, "palaestra-secret-" + secrets.token_hex(12))

_skips: list[str] = attacks.SKIPS


@pytest.fixture(scope="session")
def report():
    return probe()


@pytest.fixture(scope="session")
def sandbox(report):
    if report.level < 1:
        pytest.skip(f"sandbox unavailable on this host: {report.missing}")
    with Sandbox(workers=2, min_level=0) as sb:
        yield sb


def pytest_terminal_summary(terminalreporter):
    if _skips:
        terminalreporter.write_line(f"sandbox: {len(_skips)} test(s) skipped for missing host layers:")
        for reason in sorted(set(_skips)):
            terminalreporter.write_line(f"  {_skips.count(reason)} x {reason}")
