"""What ``import palaestra`` costs, side by side with ``import reasoning_gym``, and how soon a
``verify_many`` worker is ready.

Every figure is the CPU time (user + system, from ``os.wait4``) of a fresh interpreter, so it
counts interpreter start-up and exit too; a bare ``python -c pass`` is measured in the same
rounds and reported beside it. Bytecode is cached (one unmeasured warm-up run of each first).
The runs are paired and interleaved: every round runs each command once, in an order that
alternates between rounds, so a change of machine load hits all of them alike. Reported per
command: median and mean CPU seconds over ``--runs`` rounds, and the median of the per-round
ratio palaestra / reasoning-gym (below 1: palaestra imports faster).

The worker figure is a real ``verify_many`` worker (``python -m palaestra._verify_worker``,
started as palaestra starts it): the CPU it spent by the time it said "ready", measured as the
CPU of the whole process when it exits right after (an upper bound). Last, the math verifier's
first comparison that needs its worker, in a fresh process right after importing it and after
3 s of other work (the worker starts in the background with the import). Results:
``benchmarks/results/import_time.json``.

    python benchmarks/import_time.py --runs 21
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

from palaestra.batch import worker_environment

RESULTS = Path(__file__).resolve().parent / "results" / "import_time.json"
COMMANDS = {
    "python -c pass": "pass",
    "import palaestra": "import palaestra",
    "import reasoning_gym": "import reasoning_gym",
}
TARGET_IMPORT_CPU_S = 0.35
TARGET_WORKER_CPU_S = 0.5


def child_cpu(pid: int) -> float:
    """Wait for child ``pid``; the CPU seconds it used (user + system)."""
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"process {pid} failed with status {status}")
    return usage.ru_utime + usage.ru_stime


def import_cpu(code: str) -> float:
    """CPU seconds of a fresh ``python -c code``."""
    proc = subprocess.Popen([sys.executable, "-c", code])
    cpu = child_cpu(proc.pid)
    proc.returncode = 0  # reaped by wait4 above
    return cpu


def worker_ready_cpu() -> tuple[float, float]:
    """(CPU seconds, wall seconds) a verify worker takes to say "ready" (it exits right after)."""
    down_r, down_w = os.pipe()
    up_r, up_w = os.pipe()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "palaestra._verify_worker", str(down_r), str(up_w)],
        pass_fds=(down_r, up_w),
        stdin=subprocess.DEVNULL,
        env=worker_environment(),
    )
    os.close(down_r)
    os.close(up_w)
    inbox = Connection(up_r, writable=False)
    if inbox.recv() != "ready":
        raise RuntimeError("the worker did not say ready")
    wall = time.perf_counter() - start
    inbox.close()
    os.close(down_w)  # EOF: the worker returns from serve() and exits
    cpu = child_cpu(proc.pid)
    proc.returncode = 0
    return cpu, wall


MATH_FIRST_CALL = (
    "import json, time\n"
    "start = time.perf_counter()\n"
    "import palaestra.verifiers.math as m\n"
    "imported = time.perf_counter()\n"
    "time.sleep({pause})\n"
    "asked = time.perf_counter()\n"
    "verdict = m.math_equal('x^2-1', '(x-1)(x+1)', policy=m.MathPolicy(timeout_s=120))\n"
    "done = time.perf_counter()\n"
    "print(json.dumps({{'import_s': imported - start, 'first_call_s': done - asked,"
    " 'correct': verdict.correct, 'worker_start_s': m._POOL.start_seconds()}}))\n"
)


def math_first_call(pause_s: float) -> dict[str, object]:
    """A fresh process imports the math verifier, does other work for ``pause_s`` (a sleep), then
    makes its first comparison that needs the math worker: that call's wall seconds."""
    done = subprocess.run(
        [sys.executable, "-c", MATH_FIRST_CALL.format(pause=pause_s)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median_s": round(statistics.median(values), 4),
        "mean_s": round(statistics.fmean(values), 4),
        "min_s": round(min(values), 4),
        "max_s": round(max(values), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="paired rounds (default 21)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    names = [*COMMANDS, "verify worker ready"]
    for code in COMMANDS.values():  # warm-up: write the bytecode caches, fill the page cache
        import_cpu(code)
    worker_ready_cpu()
    cpu: dict[str, list[float]] = {name: [] for name in names}
    worker_wall: list[float] = []
    load_before = os.getloadavg()[0]
    for round_ in range(args.runs):
        order = names if round_ % 2 == 0 else names[::-1]
        for name in order:
            if name == "verify worker ready":
                seconds, wall = worker_ready_cpu()
                worker_wall.append(wall)
            else:
                seconds = import_cpu(COMMANDS[name])
            cpu[name].append(seconds)
    load_after = os.getloadavg()[0]

    math_calls = {f"after_{pause:g}_s": [math_first_call(pause) for _ in range(3)] for pause in (0.0, 3.0)}
    ratios = [p / r for p, r in zip(cpu["import palaestra"], cpu["import reasoning_gym"], strict=True)]
    bare = statistics.median(cpu["python -c pass"])
    result = {
        "date": time.strftime("%Y-%m-%d"),
        "python": sys.version.split()[0],
        "runs": args.runs,
        "method": "CPU (user+system) of fresh interpreters from os.wait4, bytecode cached, paired "
        "rounds with alternating order; worker: python -m palaestra._verify_worker until 'ready', "
        "then exit",
        "load_average": {"before": round(load_before, 2), "after": round(load_after, 2)},
        "cpu": {name: summary(values) for name, values in cpu.items()},
        "palaestra_over_reasoning_gym": {
            "median_of_paired_ratios": round(statistics.median(ratios), 3),
            "ratio_of_means": round(
                statistics.fmean(cpu["import palaestra"]) / statistics.fmean(cpu["import reasoning_gym"]), 3
            ),
        },
        "import_palaestra_net_of_bare_python_median_s": round(
            statistics.median(cpu["import palaestra"]) - bare, 4
        ),
        "verify_worker_ready_wall": summary(worker_wall),
        "math_verifier_first_call": {
            "method": "fresh process: import palaestra.verifiers.math (its worker starts in the "
            "background), sleep 0 or 3 s, then a comparison that needs the worker; wall seconds, 3 runs each",
            **math_calls,
        },
        "targets": {
            "import_palaestra_cpu_s": TARGET_IMPORT_CPU_S,
            "verify_worker_ready_cpu_s": TARGET_WORKER_CPU_S,
            "import_held": statistics.median(cpu["import palaestra"]) <= TARGET_IMPORT_CPU_S,
            "worker_held": statistics.median(cpu["verify worker ready"]) <= TARGET_WORKER_CPU_S,
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
