"""Load test of ``palaestra serve`` on loopback, with authentication on: requests/s, latency
percentiles, workers killed mid-run that must lose no verdict, and non-code grading while slow
programs fill the sandbox.

    nice -n 5 python benchmarks/server_load.py            # -> benchmarks/results/server.json

A server with ``--workers`` verifier processes is started on 127.0.0.1 with a token file (one
bearer token per client thread; a request without a token must get 401). Phase 1: ``--clients``
threads send ``--requests`` POST /v1/verify requests in total (each a batch of ``--batch`` items
mixing families, one request in eight with a program run in the sandbox, half reference answers and half
wrong ones), over keep-alive connections; at a third, a half and two thirds of the requests a
verify worker and a sandbox fork server are killed with SIGKILL. Every verdict is compared with
the in-process verifier's: a request that fails, or a reward that differs, counts as lost.
Phase 2: ``--slow`` requests whose programs spin until their CPU limit run at once (from five
tokens) while one background client sends non-code batches; its latency percentiles are the
figure (target: p99 under 2 s). The run is bounded in count and time and stops by itself. The
machine's load average before and after is recorded: figures taken under load say so.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import palaestra

RESULTS = Path(__file__).resolve().parent / "results" / "server.json"
FAMILIES = [("expression", 4), ("sudoku", 3), ("knights_knaves", 3), ("shortest_path", 3), ("countdown", 3)]
CODE_FAMILY = ("function_induction", 1)  # one item in eight runs a program in the sandbox
SPINNER = "<answer>\ndef f(*args):\n    while True:\n        pass\n</answer>"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def settled_reward(task: palaestra.Task, response: str) -> float:
    """The in-process reward, graded again while it is a timeout: on a loaded machine a program
    can pass its wall-clock backstop here too, and the reference must not be a timeout's 0."""
    for _ in range(5):
        verdict = palaestra.verify(task, response)
        if verdict.status not in ("timeout", "verifier_error"):
            return float(verdict.reward)
    raise RuntimeError(f"{task.family} {task.id}: no settled in-process verdict ({verdict.status})")


def build_requests(n_requests: int, batch: int, seed: int) -> list[tuple[bytes, list[float]]]:
    """Request bodies and the rewards the in-process verifier gives each item."""
    rng = np.random.default_rng(seed)
    pool = []
    for family, level in [*FAMILIES, CODE_FAMILY]:
        for s in range(24):
            task = palaestra.make_task(family, seed=s, level=level)
            right = palaestra.get(family).impl.reference_response(task)
            pool.append((task, right, settled_reward(task, right)))
            wrong = "<answer>0</answer>"
            pool.append((task, wrong, settled_reward(task, wrong)))
    requests = []
    code = [p for p in pool if p[0].family == CODE_FAMILY[0]]
    other = [p for p in pool if p[0].family != CODE_FAMILY[0]]
    for _ in range(n_requests):
        picks = [other[int(i)] for i in rng.integers(len(other), size=batch)]
        if rng.random() < 1 / 8:  # one request in eight carries a program to run
            picks[0] = code[int(rng.integers(len(code)))]
        body = {"items": [{"task": t.to_dict(), "response": r} for t, r, _ in picks], "timeout_s": 10}
        requests.append((json.dumps(body).encode(), [float(w) for _, _, w in picks]))
    return requests


def auth(token: str) -> dict[str, str]:
    return {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}


def get(port: int, path: str, token: str | None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers=auth(token) if token else {})
    reply = conn.getresponse()
    body = json.loads(reply.read())
    conn.close()
    return reply.status, body


def start_server(port: int, workers: int, token_file: str, token: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "palaestra.cli", "serve", "--port", str(port), "--workers", str(workers)]
    cmd += ["--token-file", token_file]
    env = {k: v for k, v in os.environ.items() if k != "PALAESTRA_TOKEN"}
    server = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True, env=env
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if get(port, "/health", token)[1]["status"] == "healthy":
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


def percentiles(seconds: list[float]) -> dict[str, float]:
    ms = sorted(1000 * x for x in seconds)
    if not ms:
        return {}
    return {
        "p50": round(statistics.median(ms), 1),
        "p90": round(ms[int(0.9 * (len(ms) - 1))], 1),
        "p99": round(ms[int(0.99 * (len(ms) - 1))], 1),
        "max": round(ms[-1], 1),
        "mean": round(statistics.fmean(ms), 1),
        "n": len(ms),
    }


def post(conn: http.client.HTTPConnection, body: bytes, token: str) -> tuple[int, dict]:
    conn.request("POST", "/v1/verify", body, auth(token))
    reply = conn.getresponse()
    return reply.status, json.loads(reply.read())


def load_phase(args: argparse.Namespace, port: int, tokens: list[str], admin: str) -> dict:
    """Phase 1: the request stream, with verify workers and fork servers SIGKILLed at 1/3, 1/2, 2/3."""
    requests = build_requests(args.requests, args.batch, args.seed)
    latencies: list[float] = []
    lost: list[str] = []
    done = threading.Semaphore(0)
    next_index = iter(range(len(requests)))
    lock = threading.Lock()
    deadline = time.monotonic() + args.max_seconds

    def client(token: str) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        while time.monotonic() < deadline:
            with lock:
                i = next(next_index, None)
            if i is None:
                break
            body, expected = requests[i]
            started = time.perf_counter()
            try:
                status, data = post(conn, body, token)
            except (OSError, http.client.HTTPException, ValueError) as exc:
                lost.append(f"request {i}: {type(exc).__name__}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
                continue
            latencies.append(time.perf_counter() - started)
            if status != 200 or data.get("rewards") != expected:
                got = data.get("rewards") or data
                lost.append(f"request {i}: status {status}, rewards {got} != {expected}"[:400])
            done.release()
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(tokens[k],)) for k in range(args.clients)]
    for thread in threads:
        thread.start()
    kills = []
    answered = 0
    for share in (1 / 3, 1 / 2, 2 / 3):
        while answered < int(share * len(requests)):
            done.acquire()
            answered += 1
        health = get(port, "/health", admin)[1]
        for kind, pids in (("verify worker", health["worker_pids"]), ("fork server", health["sandbox_pids"])):
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                kills.append(f"{kind} {pids[0]}")
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    done_n = len(latencies)
    return {
        "answered_requests": done_n,
        "unanswered_requests": args.requests - done_n,
        "lost_or_wrong": len(lost),
        "lost_examples": lost[:5],
        "sigkilled": kills,
        "elapsed_s": round(elapsed, 2),
        "requests_per_s": round(done_n / elapsed, 2),
        "verifications_per_s": round(done_n * args.batch / elapsed, 1),
        "latency_ms": percentiles(latencies),
    }


def slow_code_phase(args: argparse.Namespace, port: int, tokens: list[str], background: str) -> dict:
    """Phase 2: ``--slow`` spinning programs at once (five tokens); one client's non-code latency."""
    code = palaestra.make_task(*CODE_FAMILY[:1], seed=0, level=CODE_FAMILY[1])
    slow_body = json.dumps({"items": [{"task": code.to_dict(), "response": SPINNER}]}).encode()
    quick = build_requests(200, args.batch, args.seed + 1)
    quick = [(b, w) for b, w in quick if CODE_FAMILY[0].encode() not in b]
    slow_status: list[int] = []
    latencies: list[float] = []
    wrong = 0

    def slow(token: str) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        try:
            slow_status.append(post(conn, slow_body, token)[0])
        except (OSError, http.client.HTTPException, ValueError):
            slow_status.append(-1)
        conn.close()

    senders = [threading.Thread(target=slow, args=(tokens[k % 5],)) for k in range(args.slow)]
    for sender in senders:
        sender.start()
    time.sleep(2.0)  # the slow programs are running
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    end = time.monotonic() + args.max_seconds
    for k in range(5000):
        body, expected = quick[k % len(quick)]
        if len(slow_status) == len(senders) or time.monotonic() > end:
            break  # only latencies measured while slow programs ran count
        started = time.perf_counter()
        status, data = post(conn, body, background)
        latencies.append(time.perf_counter() - started)
        wrong += status != 200 or data.get("rewards") != expected
    conn.close()
    for sender in senders:
        sender.join(timeout=600)
    return {
        "slow_requests": args.slow,
        "slow_statuses": {str(s): slow_status.count(s) for s in sorted(set(slow_status))},
        "background_requests": len(latencies),
        "background_wrong": wrong,
        "background_latency_ms": percentiles(latencies),
        "target": "background p99 under 2000 ms",
    }


def run(args: argparse.Namespace) -> dict:
    tokens = [secrets.token_hex(24) for _ in range(max(args.clients, 5) + 2)]
    admin, background = tokens[-1], tokens[-2]
    with tempfile.NamedTemporaryFile("w", suffix=".tokens", delete=False) as f:
        f.write("\n".join(tokens) + "\n")
    os.chmod(f.name, 0o600)
    port = free_port()
    load_before = load_average()
    server = start_server(port, args.workers, f.name, admin)
    try:
        unauthenticated = get(port, "/health", None)[0]
        phase1 = load_phase(args, port, tokens, admin)
        phase2 = slow_code_phase(args, port, tokens, background) if args.slow else None
        health = get(port, "/health", admin)[1]
    finally:
        server.send_signal(signal.SIGINT)
        stopped = time.perf_counter()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        stop_s = time.perf_counter() - stopped
        os.unlink(f.name)
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
            "families": [f"{f}@{lv}" for f, lv in [*FAMILIES, CODE_FAMILY]],
            "auth": "bearer token per client (token file)",
        },
        "unauthenticated_status": unauthenticated,
        **phase1,
        "worker_pids_after": health["worker_pids"],
        "slow_code": phase2,
        "sigint_to_exit_s": round(stop_s, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slow", type=int, default=40, help="spinning-program requests in phase 2")
    parser.add_argument("--max-seconds", type=float, default=600)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = run(args)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    if result["lost_or_wrong"] or result["unanswered_requests"] or result["unauthenticated_status"] != 401:
        sys.exit(1)


if __name__ == "__main__":
    main()
