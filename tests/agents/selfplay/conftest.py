"""One small sandbox for the self-play tests that run programs."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def sandbox():
    from palaestra.sandbox import Sandbox, SandboxUnavailable

    try:
        box = Sandbox(workers=2)
    except SandboxUnavailable as exc:  # pragma: no cover - hosts without the kernel features
        pytest.skip(f"sandbox unavailable: {exc}")
    yield box
    box.close()
