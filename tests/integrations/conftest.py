"""Shared fixtures: an ASGI app served by uvicorn on a free loopback port, for tests that drive a
real client (OpenEnv's, palaestra's own urllib Client) over real sockets."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


@contextmanager
def serve_on_loopback(app: Any) -> Iterator[str]:
    """Run ``app`` under uvicorn on 127.0.0.1 in a thread; yields its base URL, stops it after."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def loopback() -> Any:
    """:func:`serve_on_loopback` for test modules (which cannot import a conftest by name)."""
    return serve_on_loopback


@pytest.fixture
def live_palaestra_server() -> Iterator[str]:
    """``palaestra serve`` (one worker, a curriculum over expression) on loopback."""
    from palaestra.curriculum import Curriculum
    from palaestra.server import create_app

    with serve_on_loopback(create_app(workers=1, curriculum=Curriculum(["expression"], window=4))) as url:
        yield url
