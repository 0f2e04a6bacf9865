"""CPU per verification of ``palaestra serve`` against verifying in process.

A real server (``palaestra serve --workers W`` on loopback, token authentication on) is sent
``--requests`` POST /v1/verify requests of ``--batch`` items (64), one at a time over one
keep-alive connection: the non-code families of ``benchmarks/server_load.py``, half reference
answers and half wrong ones, drawn from a pool of 24 tasks per family. The CPU (user + system)
of the server and all its child processes (verify workers, rebuilders) is read from ``/proc``
before and after each pass:

- ``first pass``: every record is new to the server (each is rebuilt from its family, version,
  difficulty and seed and compared with what the client sent, as the server always does);
- ``repeat passes`` (the figure): the same requests again, as a trainer sends the same tasks for
  every generation of a GRPO group and every epoch; records already proven are not rebuilt;
- ``reference passes``: the same requests with each task named by its id (``task_ref``), as
  :class:`palaestra.client.Client` sends a record the server has checked; interleaved with the
  repeat passes (``ratio_by_reference``).

The same items are verified in this process, one after another (``palaestra.verify``), and its
CPU per verification is the baseline; ``ratio`` = server CPU per verification / in-process CPU
per verification (target: at most 1.5). Every server verdict's reward is compared with the
in-process one. Results: ``benchmarks/results/server_cpu.json``.

    python benchmarks/server_cpu.py --requests 100 --passes 3

(The server's CPU is read in clock ticks, 10 ms: 100 requests of 64 make each pass some 30 ticks.)
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import FAMILIES, auth, free_port, start_server  # noqa: E402

import palaestra  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "server_cpu.json"
TARGET = 1.5


def by_reference(items: list[list[tuple]]) -> list[bytes]:
    """The same requests naming each task by its id (the server has checked them all)."""
    return [
        json.dumps({"items": [{"task_ref": t.id, "response": r} for t, r in picks], "timeout_s": 10}).encode()
        for picks in items
    ]


def build_requests(n_requests: int, batch: int, seed: int) -> tuple[list[bytes], list[list[tuple]]]:
    rng = np.random.default_rng(seed)
    pool = []
    for family, level in FAMILIES:
        for s in range(24):
            task = palaestra.make_task(family, seed=s, level=level)
            pool.append((task, palaestra.get(family).impl.reference_response(task)))
            pool.append((task, "<answer>0</answer>"))
    bodies, items = [], []
    for _ in range(n_requests):
        picks = [pool[int(i)] for i in rng.integers(len(pool), size=batch)]
        bodies.append(
            json.dumps(
                {"items": [{"task": t.to_dict(), "response": r} for t, r in picks], "timeout_s": 10}
            ).encode()
        )
        items.append(picks)
    return bodies, items


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and every live descendant (the server's workers stay up)."""
    root = psutil.Process(pid)
    total = 0.0
    for proc in [root, *root.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def send_all(port: int, token: str, bodies: list[bytes]) -> list[list[float]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    rewards = []
    for body in bodies:
        conn.request("POST", "/v1/verify", body=body, headers=auth(token))
        reply = conn.getresponse()
        data = json.loads(reply.read())
        if reply.status != 200:
            raise RuntimeError(f"status {reply.status}: {str(data)[:300]}")
        rewards.append([float(v["reward"]) for v in data["verdicts"]])
    conn.close()
    return rewards


def in_process(items: list[list[tuple]]) -> tuple[float, list[list[float]]]:
    start = time.process_time()
    rewards = [[palaestra.verify(t, r).reward for t, r in picks] for picks in items]
    return time.process_time() - start, rewards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--passes", type=int, default=3, help="repeat passes after the first (default 3)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    bodies, items = build_requests(args.requests, args.batch, seed=0)
    verifications = args.requests * args.batch
    in_process(items)  # warm: family modules imported, caches as a trainer's would be
    local_cpu, expected = [], None
    token = secrets.token_hex(16)
    with tempfile.NamedTemporaryFile("w", suffix=".tokens") as token_file:
        token_file.write(token + "\n")
        token_file.flush()
        port = free_port()
        load_before = os.getloadavg()[0]
        server = start_server(port, args.workers, token_file.name, token)
        try:
            passes, ref_passes = [], []
            ref_bodies = by_reference(items)
            for k in range(1 + 2 * args.passes):  # first, then full and by-reference in turn
                by_ref = k > 0 and k % 2 == 0
                before = tree_cpu(server.pid)
                rewards = send_all(port, token, ref_bodies if by_ref else bodies)
                (ref_passes if by_ref else passes).append(tree_cpu(server.pid) - before)
                cpu, expected = in_process(items)  # interleaved with the server's passes
                local_cpu.append(cpu)
                if rewards != expected:
                    raise RuntimeError(f"pass {k}: a server reward differs from the in-process one")
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    local = statistics.median(local_cpu) / verifications
    repeat = statistics.median(passes[1:]) / verifications
    by_ref = statistics.median(ref_passes) / verifications
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "method": "CPU of the server process tree (psutil) per verification, one keep-alive client, "
        "sequential requests; in-process: palaestra.verify on the same items, interleaved with the passes",
        "families": [f for f, _ in FAMILIES],
        "requests": args.requests,
        "batch": args.batch,
        "workers": args.workers,
        "load_average": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "in_process_ms_per_verification": round(1e3 * local, 4),
        "server_first_pass_ms_per_verification": round(1e3 * passes[0] / verifications, 4),
        "server_repeat_passes_ms_per_verification": [round(1e3 * p / verifications, 4) for p in passes[1:]],
        "ratio_first_pass": round(passes[0] / verifications / local, 3),
        "server_reference_passes_ms_per_verification": [
            round(1e3 * p / verifications, 4) for p in ref_passes
        ],
        "ratio": round(repeat / local, 3),
        "ratio_by_reference": round(by_ref / local, 3),
        "target_ratio": TARGET,
        "rewards_equal_in_process": True,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
