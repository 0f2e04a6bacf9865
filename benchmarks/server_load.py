"""Load test of ``palaestra serve`` on loopback: requests/s, latency percentiles, and a worker
killed mid-run that must lose no request.

    nice -n 5 python benchmarks/server_load.py            # -> benchmarks/results/server.json

A server with ``--workers`` verifier processes (``palaestra.verify_many``'s) is started on 127.0.0.1; ``--clients`` threads
send ``--requests`` POST /v1/verify requests in total (each a batch of ``--batch`` items mixing
families, half reference answers and half wrong ones), over keep-alive connections. After a
third of the requests one worker is killed with SIGKILL. Every verdict is compared with the
in-process verifier's: a request that fails, or a reward that differs, counts as lost. The run is
bounded in count and time and stops by itself. The machine's load average before and after is
recorded: figures taken under load say so.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

import palaestra

RESULTS = Path(__file__).resolve().parent / "results" / "server.json"
FAMILIES = [("expression", 4), ("sudoku", 3), ("knights_knaves", 3), ("shortest_path", 3), ("countdown", 3)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def build_requests(n_requests: int, batch: int, seed: int) -> list[tuple[bytes, list[float]]]:
    """Request bodies and the rewards the in-process verifier gives each item."""
    rng = np.random.default_rng(seed)
    pool = []
    for family, level in FAMILIES:
        for s in range(24):
            task = palaestra.make_task(family, seed=s, level=level)
            right = palaestra.get(family).impl.reference_response(task)
            pool.append((task, right, palaestra.verify(task, right).reward))
            wrong = "<answer>0</answer>"
            pool.append((task, wrong, palaestra.verify(task, wrong).reward))
    requests = []
    for _ in range(n_requests):
        picks = [pool[int(i)] for i in rng.integers(len(pool), size=batch)]
        body = {"items": [{"task": t.to_dict(), "response": r} for t, r, _ in picks], "timeout_s": 10}
        requests.append((json.dumps(body).encode(), [float(w) for _, _, w in picks]))
    return requests


def get(port: int, path: str) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    reply = json.loads(conn.getresponse().read())
    conn.close()
    return reply


def start_server(port: int, workers: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "palaestra.cli", "serve", "--port", str(port), "--workers", str(workers)]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if get(port, "/health")["status"] == "healthy":
                return server
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError(f"the server did not come up: {server.stderr.read().decode()[-2000:]}")


def _load_note(load_before: list[float]) -> str:
    """Where the figures were taken: a load average past the core count means other work ran too."""
    cores = os.cpu_count() or 1
    busy = load_before and load_before[0] > cores
    return f"loopback, server and clients on the same {cores}-core machine" + (
        f", under other work's load (load average {load_before[0]:g})" if busy else ", otherwise idle"
    )


def run(args: argparse.Namespace) -> dict:
    requests = build_requests(args.requests, args.batch, args.seed)
    port = free_port()
    load_before = load_average()
    server = start_server(port, args.workers)
    latencies: list[float] = []
    lost: list[str] = []
    done = threading.Semaphore(0)
    next_index = iter(range(len(requests)))
    lock = threading.Lock()
    deadline = time.monotonic() + args.max_seconds

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while time.monotonic() < deadline:
            with lock:
                i = next(next_index, None)
            if i is None:
                break
            body, expected = requests[i]
            started = time.perf_counter()
            try:
                conn.request("POST", "/v1/verify", body, {"Content-Type": "application/json"})
                reply = conn.getresponse()
                data = json.loads(reply.read())
            except (OSError, http.client.HTTPException, ValueError) as exc:
                lost.append(f"request {i}: {type(exc).__name__}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                continue
            latencies.append(time.perf_counter() - started)
            if reply.status != 200 or data.get("rewards") != expected:
                lost.append(f"request {i}: status {reply.status}, rewards differ")
            done.release()
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    for _ in range(len(requests) // 3):  # a third in: kill a worker
        done.acquire()
    victim = get(port, "/health")["worker_pids"][0]
    os.kill(victim, signal.SIGKILL)
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    health = get(port, "/health")
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
    answered = len(latencies)
    ms = sorted(1000 * x for x in latencies)
    return {
        "benchmark": "server_load",
        "command": "nice -n 5 python benchmarks/server_load.py " + " ".join(sys.argv[1:]),
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_before": load_before,
            "load_average_after": load_average(),
        },
        "note": _load_note(load_before),
        "config": {
            "workers": args.workers,
            "clients": args.clients,
            "requests": args.requests,
            "batch": args.batch,
            "families": [f"{f}@{lv}" for f, lv in FAMILIES],
        },
        "answered_requests": answered,
        "unanswered_requests": args.requests - answered,
        "lost_or_wrong": len(lost),
        "lost_examples": lost[:5],
        "killed_worker_pid": victim,
        "worker_pids_after": health["worker_pids"],
        "killed_worker_replaced": victim not in health["worker_pids"],
        "elapsed_s": round(elapsed, 2),
        "requests_per_s": round(answered / elapsed, 2),
        "verifications_per_s": round(answered * args.batch / elapsed, 1),
        "latency_ms": {
            "p50": round(statistics.median(ms), 1),
            "p90": round(ms[int(0.9 * (len(ms) - 1))], 1),
            "p99": round(ms[int(0.99 * (len(ms) - 1))], 1),
            "max": round(ms[-1], 1),
            "mean": round(statistics.fmean(ms), 1),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=600)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = run(args)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    if result["lost_or_wrong"] or result["unanswered_requests"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
