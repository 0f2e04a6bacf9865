"""A trainer-sized verification batch: serial ``verify`` against ``verify_many`` on 1 and all cores.

The batch: ``--size`` responses (1,024) over every registered family (levels 1-10 in turn), 25%
right (the reference response) and 75% wrong (the family's own wrong answers, then model-style
ones: a wrong number, a truncated response, no answer at all), of which ``--hang-share`` (2%)
are programs that never end (``while True: pass``) submitted to the code families that run
programs. Timed warm (the worker pools and the sandbox started beforehand):

- serial: ``[palaestra.verify(t, r) ...]`` in this process, one after another;
- ``verify_many(workers=1)`` and ``verify_many(workers=all cores)``;
- the same batch with the hanging programs replaced by quickly wrong ones, serially and on all
  cores, so that what the hangs add is measured rather than assumed;
- the same batch keeping only as many hanging programs as there are cores, on all cores.

Reported: wall seconds, whether every verdict equals the serial one, the cost per domain (serial
wall seconds), the CPU spent by verify_many's parent and workers against the serial CPU
(the overhead share), and the load average around each run (the machine is shared). The hangs
are accounted in CPU time as well: every sandbox run's status, CPU and wall seconds are recorded
(the sandbox kills a program at its CPU limit, or at its wall backstop of 3 x limit + 1 s on a
machine too loaded to give it that CPU), and what the hangs add to the batch is set beside the
floor no scheduler can beat, the hangs' summed CPU limits over the cores. Results:
``benchmarks/results/verify_batch.json``.

    nice -n 5 python benchmarks/verify_batch.py
    python benchmarks/verify_batch.py --kinds    # easy / heavy / code batches (run_kinds)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

import palaestra
from palaestra import batch, measurements
from palaestra.registry import get
from palaestra.sandbox import ExecResult, Job
from palaestra.sandbox.executor import Sandbox, available_cores

RESULTS = Path(__file__).resolve().parent / "results" / "verify_batch.json"
HANGS = {  # family -> a program that never ends, in the family's answer format
    "algorithmic_coding": "<answer>\ndef solve(data):\n    while True:\n        pass\n</answer>",
    "function_induction": "<answer>\ndef f(xs):\n    while True:\n        pass\n</answer>",
    "bug_repair": "<answer>\ndef f(xs):\n    while True:\n        pass\n</answer>",
}
QUICKLY_WRONG = {
    "algorithmic_coding": "<answer>\ndef solve(data):\n    return ''\n</answer>",
    "function_induction": "<answer>\ndef f(xs):\n    return []\n</answer>",
    "bug_repair": "<answer>\ndef f(xs):\n    return []\n</answer>",
}


def wrong_response(task: palaestra.Task, k: int, rng: np.random.Generator) -> str:
    """One of the family's own wrong answers, or a model-style one, in turn."""
    impl = get(task.family).impl
    mutated = impl.mutated_responses(task, rng)
    reference = impl.reference_response(task)
    choices = [
        *mutated[:2],
        "<answer>42</answer>",
        reference[: len(reference) // 2],  # cut off mid-answer
        "Let me think step by step. I am not sure, so I will stop here.",
    ]
    return choices[k % len(choices)]


def build_batch(size: int, hang_share: float, seed: int = 0) -> tuple[list, list[str], list[str]]:
    """(tasks, responses, kinds) with kinds in right / wrong / hang."""
    rng = np.random.default_rng(seed)
    names = palaestra.families()
    tasks, responses, kinds = [], [], []
    for i in range(size):
        family = names[i % len(names)]
        level = 1 + (i // len(names)) % 10
        task = palaestra.make_task(family, seed=seed * 100_000 + i, level=level)
        right = rng.random() < 0.25
        response = get(family).impl.reference_response(task) if right else wrong_response(task, i, rng)
        tasks.append(task)
        responses.append(response)
        kinds.append("right" if right else "wrong")
    candidates = [i for i, t in enumerate(tasks) if t.family in HANGS]
    for i in rng.choice(candidates, size=min(round(size * hang_share), len(candidates)), replace=False):
        responses[i], kinds[i] = HANGS[tasks[i].family], "hang"
    return tasks, responses, kinds


def cpu_limit(task: palaestra.Task) -> float:
    """The CPU limit the family gives the submitted program (seconds)."""
    return float(task.difficulty.knobs.get("time_limit_s", 3.0))


class SandboxRuns:
    """Records every sandbox run of this process (job limit, status, CPU and wall seconds)."""

    def __init__(self) -> None:
        self.runs: list[tuple[float, ExecResult]] = []
        self._execute = Sandbox._execute
        recorder = self

        def execute(sandbox: Sandbox, job: Job) -> ExecResult:
            result = recorder._execute(sandbox, job)
            recorder.runs.append((job.timeout_s, result))
            return result

        Sandbox._execute = execute  # type: ignore[method-assign]

    def take(self) -> list[tuple[float, ExecResult]]:
        runs, self.runs = self.runs, []
        return runs


def hang_accounting(runs: list[tuple[float, ExecResult]]) -> dict[str, object]:
    """The programs a run stopped at a limit: CPU used against the CPU limit, wall seconds."""
    stopped = [(limit, r) for limit, r in runs if r.status == "timeout"]
    at_cpu_limit = [r.cpu_s >= limit for limit, r in stopped]
    return {
        "stopped": len(stopped),
        "stopped_at_cpu_limit": sum(at_cpu_limit),
        "stopped_at_wall_backstop": len(stopped) - sum(at_cpu_limit),
        "cpu_s_over_limit_max": round(
            max((r.cpu_s - limit for limit, r in stopped if r.cpu_s >= limit), default=0.0), 3
        ),
        "cpu_s_total": round(sum(r.cpu_s for _, r in stopped), 2),
        "wall_s_each_max": round(max((r.wall_s for _, r in stopped), default=0.0), 2),
    }


def worker_cpu_seconds(workers: int) -> float:
    """CPU seconds used so far by the worker processes of the pool of ``workers``."""
    total = 0.0
    for pid in batch.worker_pids(workers):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                fields = f.read().rpartition(b")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def run_serial(tasks: list, responses: list[str]) -> tuple[list, dict[str, float], list[float]]:
    started, cpu = time.perf_counter(), time.process_time()
    verdicts, walls = [], []
    for task, response in zip(tasks, responses, strict=True):
        t0 = time.perf_counter()
        verdicts.append(palaestra.verify(task, response))
        walls.append(time.perf_counter() - t0)
    figures = {"wall_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu}
    return verdicts, figures, walls


def run_many(tasks: list, responses: list[str], workers: int) -> tuple[list, dict[str, float]]:
    before_workers = worker_cpu_seconds(workers)
    started, cpu = time.perf_counter(), time.process_time()
    verdicts = batch.verify_many(tasks, responses, workers=workers)
    figures = {
        "wall_s": time.perf_counter() - started,
        "parent_cpu_s": time.process_time() - cpu,
        "workers_cpu_s": worker_cpu_seconds(workers) - before_workers,
    }
    return verdicts, figures


def rounded(figures: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 3) for k, v in figures.items()}


KINDS_RESULTS = RESULTS.with_name("verify_batch_kinds.json")


def measured_cost_ms(family: str) -> float | None:
    """The family's measured verification cost (worst level and answer kind, mean ms)."""
    speed = measurements.load(measurements.GENERATION).get("families", {}).get(family)
    if not speed:
        return None
    return max(kind["mean_ms"] for level in speed.values() for kind in level["verification"].values())


def kind_batch(families: list[str], size: int, seed: int = 0) -> tuple[list, list[str]]:
    """``size`` responses over ``families`` (levels 1-10 in turn), 25% right, the rest wrong."""
    rng = np.random.default_rng(seed)
    tasks, responses = [], []
    for i in range(size):
        family = families[i % len(families)]
        task = palaestra.make_task(family, seed=seed * 100_000 + i, level=1 + (i // len(families)) % 10)
        right = rng.random() < 0.25
        tasks.append(task)
        if family in QUICKLY_WRONG and not right:
            responses.append(QUICKLY_WRONG[family])
        else:
            responses.append(
                get(family).impl.reference_response(task) if right else wrong_response(task, i, rng)
            )
    return tasks, responses


def run_kinds(workers: int, rounds: int, out: Path) -> None:
    """Three batches a trainer sends, serial against ``verify_many(workers=...)``: ``easy`` (1,024
    responses over the 16 families measured cheapest), ``heavy`` (256 over the 8 measured
    slowest) and ``code`` (128 programs of the code families run in the sandbox, none hanging).
    Warm (workers, sandbox and family modules started), ``rounds`` rounds, serial and
    verify_many interleaved in alternating order; the median wall seconds of each and whether
    the verdicts are equal."""
    costs = {n: measured_cost_ms(n) for n in palaestra.families()}
    plain = sorted((c, n) for n, c in costs.items() if c is not None and not batch.runs_programs(get(n)))
    batches = {
        "easy": kind_batch([n for _, n in plain[:16]], 1024),
        "heavy": kind_batch([n for _, n in plain[-8:]], 256),
        "code": kind_batch(sorted(QUICKLY_WRONG), 128),
    }
    starts_before = len(batch.worker_start_seconds())
    results: dict[str, object] = {
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "cores": available_cores(),
        "workers": workers,
        "rounds": rounds,
        "families": {k: sorted({t.family for t in v[0]}) for k, v in batches.items()},
    }
    for name, (tasks, responses) in batches.items():
        batch.verify_many(tasks, responses, workers=workers)  # warm: modules, workers, sandbox
        for task, response in zip(tasks, responses, strict=True):
            palaestra.verify(task, response)
        serial_s, many_s, serial_cpu, many_cpu, equal = [], [], [], [], True
        load = os.getloadavg()[0]
        for round_ in range(rounds):  # the order alternates: neither always runs second
            for first in (True, False) if round_ % 2 == 0 else (False, True):
                if first:
                    serial, figures, _ = run_serial(tasks, responses)
                    serial_s.append(figures["wall_s"])
                    serial_cpu.append(figures["cpu_s"])
                else:
                    verdicts, figures = run_many(tasks, responses, workers)
                    many_s.append(figures["wall_s"])
                    many_cpu.append(figures["parent_cpu_s"] + figures["workers_cpu_s"])
            equal = equal and verdicts == serial
        speedup = statistics.median(serial_s) / statistics.median(many_s)
        per_round = sorted(s / m for s, m in zip(serial_s, many_s, strict=True))
        results[name] = {
            "responses": len(tasks),
            "load_average_at_start": round(load, 2),
            "load_average_at_end": round(os.getloadavg()[0], 2),
            "serial_wall_s": round(statistics.median(serial_s), 3),
            "verify_many_wall_s": round(statistics.median(many_s), 3),
            "speedup_vs_serial": round(speedup, 2),
            # each round's serial wall over its verify_many wall (the two ran back to back)
            "speedup_per_round_sorted": [round(r, 2) for r in per_round],
            # CPU of verify_many (this process and its workers) over the serial loop's: what the
            # fan-out costs; with cores to spare the speedup nears workers / this
            "serial_cpu_s": round(statistics.median(serial_cpu), 3),
            "verify_many_cpu_s": round(statistics.median(many_cpu), 3),
            "cpu_ratio_many_over_serial": round(
                statistics.median(many_cpu) / statistics.median(serial_cpu), 3
            ),
            "verdicts_equal_serial": equal,
            "inline_share": round(
                sum(batch.grades_inline(get(t.family), batch.DEFAULT_TIMEOUT_S) for t in tasks) / len(tasks),
                3,
            ),
        }
        print(name, results[name], flush=True)
    results["worker_start_seconds"] = batch.worker_start_seconds()[starts_before:]
    out.write_text(json.dumps(results, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--hang-share", type=float, default=0.02)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--kinds",
        action="store_true",
        help="the easy, heavy and code batches instead (verify_batch_kinds.json)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each kind batch (with --kinds)")
    args = parser.parse_args()
    if args.kinds:
        run_kinds(available_cores(), args.rounds, KINDS_RESULTS if args.out == RESULTS else args.out)
        return

    cores = available_cores()
    tasks, responses, kinds = build_batch(args.size, args.hang_share)
    hang_free = [
        QUICKLY_WRONG[t.family] if k == "hang" else r for t, r, k in zip(tasks, responses, kinds, strict=True)
    ]
    hangs = [i for i, k in enumerate(kinds) if k == "hang"]
    print(
        f"{len(tasks)} responses, {len(set(t.family for t in tasks))} families, {len(hangs)} hanging programs"
    )

    # warm up: every family's verifier, the sandbox and both worker pools
    warm = {t.family: (t, r) for t, r in zip(tasks, hang_free, strict=True)}
    warm_tasks, warm_responses = zip(*warm.values(), strict=True)
    for w in sorted({1, cores}):
        batch.verify_many(warm_tasks, warm_responses, workers=w)
    for t, r in warm.values():
        palaestra.verify(t, r)

    runs: dict[str, dict[str, float]] = {}
    loads: dict[str, float] = {}
    recorder = SandboxRuns()
    accounting: dict[str, dict[str, object]] = {}
    loads["serial"] = os.getloadavg()[0]
    serial, runs["serial"], walls = run_serial(tasks, responses)
    accounting["serial"] = hang_accounting(recorder.take())
    print(f"serial: {runs['serial']['wall_s']:.1f} s")
    equal = {}
    for w in sorted({1, cores}):
        name = f"verify_many_{w}_workers"
        loads[name] = os.getloadavg()[0]
        verdicts, runs[name] = run_many(tasks, responses, w)
        accounting[name] = hang_accounting(recorder.take())
        equal[name] = verdicts == serial
        print(f"{name}: {runs[name]['wall_s']:.1f} s, verdicts equal serial: {equal[name]}")
    loads["serial_without_hangs"] = os.getloadavg()[0]
    _, runs["serial_without_hangs"], _ = run_serial(tasks, hang_free)
    name = f"verify_many_{cores}_workers_without_hangs"
    loads[name] = os.getloadavg()[0]
    _, runs[name] = run_many(tasks, hang_free, cores)
    # as many hangs as cores: each can have a core of its own
    few = set(hangs[:cores])
    few_hangs = [
        r if i in few or k != "hang" else h
        for i, (r, h, k) in enumerate(zip(responses, hang_free, kinds, strict=True))
    ]
    few_name = f"verify_many_{cores}_workers_{len(few)}_hangs"
    loads[few_name] = os.getloadavg()[0]
    recorder.take()
    few_verdicts, runs[few_name] = run_many(tasks, few_hangs, cores)
    accounting[few_name] = hang_accounting(recorder.take())

    per_domain: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for task, wall in zip(tasks, walls, strict=True):
        domain = get(task.family).domain
        per_domain[domain] += wall
        count[domain] += 1
    sandboxed = sum(w for t, w in zip(tasks, walls, strict=True) if batch.runs_programs(get(t.family)))
    all_cores = f"verify_many_{cores}_workers"
    many = runs[all_cores]
    serial_checks_cpu = runs["serial"]["cpu_s"]  # this process only: sandbox programs run elsewhere
    limit = max((cpu_limit(tasks[i]) for i in hangs), default=0.0)
    floor = sum(cpu_limit(tasks[i]) for i in hangs) / cores
    without = runs[f"verify_many_{cores}_workers_without_hangs"]["wall_s"]
    results = {
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "cores": cores,
        "batch": {
            "size": len(tasks),
            "families": len({t.family for t in tasks}),
            "right": kinds.count("right"),
            "wrong": kinds.count("wrong"),
            "hanging_programs": len(hangs),
            "hang_cpu_limits_s": sorted(cpu_limit(tasks[i]) for i in hangs),
        },
        "load_average_at_start_of_run": {k: round(v, 1) for k, v in loads.items()},
        "runs": {k: rounded(v) for k, v in runs.items()},
        "verdicts_equal_serial": equal,
        "speedup_vs_serial": {
            k: round(runs["serial"]["wall_s"] / v["wall_s"], 2)
            for k, v in runs.items()
            if k.startswith("verify_many")
        },
        "hangs": {
            "largest_cpu_limit_s": limit,
            "summed_cpu_limits_s": sum(cpu_limit(tasks[i]) for i in hangs),
            "cpu_floor_s": round(floor, 2),
            "cpu_floor_note": "summed CPU limits / cores: the least wall time any scheduler needs to run every hang to its CPU limit",
            "added_wall_s_serial": round(
                runs["serial"]["wall_s"] - runs["serial_without_hangs"]["wall_s"], 2
            ),
            "added_wall_s_verify_many_all_cores": round(many["wall_s"] - without, 2),
            "added_wall_s_verify_many_all_cores_over_floor": round(
                (many["wall_s"] - without) / max(floor, 1e-9), 2
            ),
            "hangs_as_many_as_cores": {
                "hangs": len(few),
                "largest_cpu_limit_s": max((cpu_limit(tasks[i]) for i in few), default=0.0),
                "added_wall_s": round(runs[few_name]["wall_s"] - without, 2),
                # every response that batch shares with the full one (all but the replaced hangs)
                "verdicts_equal_serial": all(
                    few_verdicts[i] == serial[i] for i in range(len(tasks)) if i in few or kinds[i] != "hang"
                ),
            },
            "sandbox_runs_stopped_at_a_limit": accounting,
        },
        "serial_wall_s_per_domain": {
            d: {
                "total_s": round(per_domain[d], 3),
                "responses": count[d],
                "ms_each": round(1e3 * per_domain[d] / count[d], 2),
            }
            for d in sorted(per_domain)
        },
        "serial_wall_s_sandboxed_families": round(sandboxed, 2),
        "overhead": {
            "serial_in_process_cpu_s": round(serial_checks_cpu, 3),
            "verify_many_cpu_s": round(many["parent_cpu_s"] + many["workers_cpu_s"], 3),
            "share": round(
                1 - serial_checks_cpu / max(many["parent_cpu_s"] + many["workers_cpu_s"], 1e-9), 3
            ),
            "note": "share = 1 - serial CPU / verify_many CPU (parent + workers); sandbox programs excluded from both",
        },
    }
    print(json.dumps({k: results[k] for k in ("speedup_vs_serial", "hangs", "overhead")}, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {os.path.relpath(args.out)}")
    batch.shutdown()


if __name__ == "__main__":
    main()
