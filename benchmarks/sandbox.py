"""Sandbox throughput: executions per second and CPU per execution.

Compares, on a trivial program and on one that imports 10 stdlib modules:
  (a) ``subprocess.run([sys.executable, "-c", code])`` one at a time (no isolation at all),
      and (a2) the same with ``-I -S`` (no site-packages: the cheapest interpreter start),
  (b) ``Sandbox.run`` one at a time (full hardening at the probed level),
  (c) ``Sandbox.run_many`` with every worker (os.cpu_count()),
plus ``run_many`` scaling over 1..cpu_count workers, the bubblewrap backend when installed,
and the fork+exec floor of this machine. CPU per execution counts every process involved:
the supervisor, the fork servers and the programs (from /proc and getrusage).

    python benchmarks/sandbox.py            # writes benchmarks/results/sandbox.json
    python benchmarks/sandbox.py --quick    # fewer repetitions, same file
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from palaestra.sandbox import Sandbox, probe
from palaestra.sandbox.backends import bubblewrap_path

PROGRAMS = {
    "trivial": "print('hello')",
    "import_10_stdlib": (
        "import decimal, fractions, statistics, difflib, textwrap, csv, calendar, heapq, bisect, string\n"
        "print(fractions.Fraction(1, 3) + decimal.Decimal(1).as_integer_ratio()[0])"
    ),
}
RESULTS = Path(__file__).parent / "results" / "sandbox.json"
# A wall limit the programs never reach even on a loaded machine: we measure, not police.
TIMEOUT_S = 120.0
_TICK = os.sysconf("SC_CLK_TCK")


def _proc_cpu(pid: int) -> float:
    """utime + stime + cutime + cstime of ``pid`` (its reaped children included), seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / _TICK


def _self_and_children_cpu() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _sandbox_cpu(sb: Sandbox) -> float:
    return _self_and_children_cpu() + sum(_proc_cpu(w.proc.pid) for w in sb.backend._all if w.alive)


def _measure(fn, n: int, cpu_fn) -> dict[str, float]:
    cpu0, t0 = cpu_fn(), time.perf_counter()
    fn(n)
    wall, cpu = time.perf_counter() - t0, cpu_fn() - cpu0
    return {"execs_per_s": n / wall, "cpu_ms_per_exec": 1000 * cpu / n, "n": n}


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    return {
        "execs_per_s": round(statistics.median(r["execs_per_s"] for r in runs), 1),
        "cpu_ms_per_exec": round(statistics.median(r["cpu_ms_per_exec"] for r in runs), 2),
        "n": runs[0]["n"],
        "repeats": len(runs),
    }


def _check(result) -> None:
    if result.status != "ok":
        raise RuntimeError(f"benchmark program failed: {result}")


def bench_subprocess(code: str, n: int, repeats: int, flags: tuple[str, ...] = ()) -> dict:
    def go(k: int) -> None:
        for _ in range(k):
            subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, check=True, env={})

    return _median([_measure(go, n, _self_and_children_cpu) for _ in range(repeats)])


def bench_run(sb: Sandbox, code: str, n: int, repeats: int) -> dict:
    def go(k: int) -> None:
        for _ in range(k):
            _check(sb.run(code, timeout_s=TIMEOUT_S))

    sb.run_many([{"code": code, "timeout_s": TIMEOUT_S}] * sb.workers)  # warm every worker
    return _median([_measure(go, n, lambda: _sandbox_cpu(sb)) for _ in range(repeats)])


def bench_run_many(sb: Sandbox, code: str, n: int, repeats: int) -> dict:
    def go(k: int) -> None:
        for r in sb.run_many([{"code": code, "timeout_s": TIMEOUT_S}] * k):
            _check(r)

    sb.run_many([{"code": code, "timeout_s": TIMEOUT_S}] * sb.workers)
    return _median([_measure(go, n, lambda: _sandbox_cpu(sb)) for _ in range(repeats)])


def bench_fork_exec(n: int, repeats: int) -> dict:
    true = "/bin/true" if os.path.exists("/bin/true") else "/usr/bin/true"

    def go(k: int) -> None:
        for _ in range(k):
            pid = os.posix_spawn(true, [true], {})
            os.waitpid(pid, 0)

    return _median([_measure(go, n, _self_and_children_cpu) for _ in range(repeats)])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer executions (noisier numbers)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON results")
    args = parser.parse_args(argv)
    scale = 0.25 if args.quick else 1.0
    repeats = 3
    cores = os.cpu_count() or 1
    report = probe()
    out: dict = {
        "machine": {
            "cpu_count": cores,
            "loadavg_before": os.getloadavg(),
            "python": platform.python_version(),
            "kernel": platform.release(),
            "probe_level": report.level,
            "probe_missing": report.missing,
        },
        "programs": {},
    }
    out["fork_exec_floor"] = bench_fork_exec(int(400 * scale), repeats)
    with Sandbox(workers=cores, min_level=0) as sb:
        for name, code in PROGRAMS.items():
            n_sub = int((100 if name == "trivial" else 60) * scale)
            n_run = int(400 * scale)
            row = {
                "a_subprocess_run": bench_subprocess(code, n_sub, repeats),
                # The fastest plain interpreter start: no site-packages (.pth files) at all.
                "a2_subprocess_run_isolated_no_site": bench_subprocess(code, n_sub, repeats, ("-I", "-S")),
                "b_sandbox_run": bench_run(sb, code, n_run, repeats),
                "c_sandbox_run_many": bench_run_many(sb, code, n_run * 2, repeats),
            }
            a, b, c = (
                row[k]["execs_per_s"] for k in ("a_subprocess_run", "b_sandbox_run", "c_sandbox_run_many")
            )
            row["b_over_a_speedup"] = round(b / a, 2)
            row["c_over_b_speedup"] = round(c / b, 2)
            out["programs"][name] = row
            print(name, json.dumps(row), flush=True)
    out["run_many_scaling"] = {}
    for workers in range(1, cores + 1):
        with Sandbox(workers=workers, min_level=0) as sb:
            out["run_many_scaling"][str(workers)] = bench_run_many(
                sb, PROGRAMS["trivial"], int(600 * scale), repeats
            )
    if bubblewrap_path():
        with Sandbox(workers=1, min_level=0, backend="bubblewrap") as sb:
            row = _median(
                [
                    _measure(
                        lambda k: [
                            _check(sb.run(PROGRAMS["trivial"], timeout_s=TIMEOUT_S)) for _ in range(k)
                        ],
                        int(40 * scale),
                        _self_and_children_cpu,
                    )
                ]
            )
        # The program runs in bwrap's pid namespace and is reaped there, so its CPU never
        # reaches our rusage: a CPU figure here would be an undercount, not a measurement.
        row["cpu_ms_per_exec"] = None
        row["note"] = "one bwrap process per run; CPU not measurable from the supervisor"
        out["bubblewrap_run"] = row
    out["machine"]["loadavg_after"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main()
