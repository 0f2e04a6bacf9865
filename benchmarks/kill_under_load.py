"""Workers SIGKILLed under load cost no correct answer its reward (issue 27).

Grades batches of right answers (sandboxed code, SQL and certificates in verify workers, expression
and sudoku inline) with ``verify_many`` on 2
workers while SIGKILLing a sandbox fork server 0.05 s into each batch and every 0.4 s after (and a
verify worker every second time), until ``--requests`` verdicts are in; counts the kills and every
verdict that is not ``correct``.

    python benchmarks/kill_under_load.py --requests 3000

Writes ``benchmarks/results/kill_under_load.json``. ``tests/test_kill_under_load.py`` runs the same
code on fewer requests.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import palaestra
from palaestra import batch
from palaestra.generators.code import shared_sandbox

RESULTS = Path(__file__).resolve().parent / "results" / "kill_under_load.json"


def reference_batch() -> tuple[list[palaestra.Task], list[str]]:
    """280 right answers, one of each route of ``verify_many``: 80 sandboxed programs (the shared
    sandbox's fork servers), 60 SQL queries and 20 inequality certificates (verify workers), 80
    expressions and 40 sudokus (graded in the calling thread)."""
    tasks, responses = [], []
    families = (
        ("function_induction", 1, 40),
        ("sql_synthesis", 1, 30),
        ("inequality_certificate", 1, 10),
        ("expression", 3, 40),
        ("sudoku", 2, 20),
    )
    for family, level, seeds in families:
        impl = palaestra.get(family).impl
        for seed in range(seeds):
            task = palaestra.make_task(family, seed=seed, level=level)
            tasks.append(task)
            responses.append(impl.reference_response(task))
    return tasks * 2, responses * 2


def grade_while_killing(tasks, responses, killed: dict[str, int]) -> list[palaestra.Verdict]:
    """One verify_many batch in a thread, SIGKILLing a fork server 0.05 s in and every 0.4 s after
    (and a verify worker every second time) while it runs."""
    result: list[list[palaestra.Verdict]] = []
    grader = threading.Thread(
        target=lambda: result.append(palaestra.verify_many(tasks, responses, workers=2))
    )
    grader.start()
    for tick in range(240):  # a kill 0.05 s in, then every 0.4 s while the batch runs
        time.sleep(0.05)
        if not grader.is_alive():
            break
        if tick % 8:
            continue
        round_ = tick // 8
        pids = (("fork servers", shared_sandbox.fork_server_pids()), ("verify workers", batch.worker_pids(2)))
        for what, found in pids:
            if found and (what == "fork servers" or round_ % 2 == 1):
                try:
                    os.kill(found[round_ % len(found)], signal.SIGKILL)
                    killed[what] += 1
                except ProcessLookupError:
                    pass
    grader.join(timeout=600)
    assert result, "the batch did not finish"
    return result[0]


def run(requests: int, min_kills: int = 2) -> dict:
    """Batches until ``requests`` verdicts are in, at least ``min_kills`` fork servers and one
    verify worker died."""
    tasks, responses = reference_batch()
    killed = {"fork servers": 0, "verify workers": 0}
    shared_sandbox.sandbox()  # started before the first batch, so there are fork servers to kill
    verdicts: list[palaestra.Verdict] = []
    for _ in range(max(1, requests // len(tasks)) * 10):
        verdicts += grade_while_killing(tasks, responses, killed)
        if len(verdicts) >= requests and killed["fork servers"] >= min_kills and killed["verify workers"]:
            break
    statuses = [v.status for v in verdicts]
    return {
        "requests": len(statuses),
        "killed": killed,
        "statuses": {s: statuses.count(s) for s in sorted(set(statuses))},
        "correct_scored_zero": sum(s != "correct" for s in statuses),
        "not_correct_examples": [
            (tasks[i % len(tasks)].family, verdicts[i].status, verdicts[i].reason)
            for i, s in enumerate(statuses)
            if s != "correct"
        ][:5],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    t0, cpu0 = time.perf_counter(), time.process_time()
    result = run(args.requests)
    result.update(
        benchmark="kill_under_load",
        wall_s=round(time.perf_counter() - t0, 1),
        cpu_s=round(time.process_time() - cpu0, 1),
        load_average=os.getloadavg(),
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))
    return 0 if result["correct_scored_zero"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
