"""The math verification worker starts with the import of the math verifier, in the background,
and a pool's start-up is reported; a worker still starting is killed when its pool closes."""

from __future__ import annotations

import json
import subprocess
import sys

from palaestra.verifiers.workers import WorkerPool


def test_a_background_start_serves_the_first_call_and_is_reported() -> None:
    pool = WorkerPool(max_workers=2)
    try:
        pool.start_in_background()
        assert pool.call({"fn": "sleep", "args": {"seconds": 0}}, timeout_s=120) == "slept"
        assert len(pool.start_seconds()) == 1  # the call took the started worker, started no other
        assert pool.start_seconds()[0] > 0
    finally:
        pool.close()


def test_closing_the_pool_kills_a_worker_still_starting() -> None:
    pool = WorkerPool(max_workers=1)
    pool.start_in_background()
    while not pool._spawning and pool._starting:  # the process exists within milliseconds
        pass
    starting = list(pool._spawning)
    pool.close()
    for worker in starting:
        assert worker.proc.wait(timeout=30) is not None  # killed, not left to finish its imports


def test_importing_the_math_verifier_starts_its_worker() -> None:
    code = (
        "import json\n"
        "import palaestra.verifiers.math as m\n"
        "starting = m._POOL._starting\n"
        "ok = m.math_equal('x^2-1', '(x-1)(x+1)', policy=m.MathPolicy(timeout_s=120)).correct\n"
        "print(json.dumps({'starting': starting, 'ok': ok, 'starts': len(m._POOL.start_seconds())}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"starting": 1, "ok": True, "starts": 1}
