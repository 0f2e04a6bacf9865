"""Export throughput: wall time with 1 and 2 processes, paired and interleaved, and CPU per process.

    python benchmarks/export.py                  # 20k rows, 3 pairs: prints the 2-vs-1 wall ratio
    python benchmarks/export.py --rows 200000 --pairs 1

Each export runs in a fresh subprocess (``palaestra export``). Runs come in pairs (1 process, then
2; the next pair in the other order), so both sides of a pair see about the same load from the
rest of the machine; the load average is recorded beside every run. For each run:

- wall seconds, and the CPU seconds (user + sys) of the whole process tree: exact from the
  resource usage of the finished command when its workers are its own children and are waited for
  (the larger of that and the sampled sum is reported);
- CPU seconds per process (parent and each worker, sampled every 0.1 s: the last slice is missed)
  and rows per CPU second: on a busy machine, the number that does not depend on the share of the
  machine the export got;
- peak RAM of the tree: summed RSS and PSS (shared pages counted once; sampled every 0.5 s, since
  reading PSS costs the sampler CPU that the export would otherwise get);
- the output size and the fingerprint (it must be the same for every run).

The result that matters is ``wall_ratio_2_vs_1`` (median over pairs of one process's wall time over
two processes'), measured on an idle machine. On a busy one it says little: Linux's scheduler
autogroup (``/proc/sys/kernel/sched_autogroup_enabled``) shares the CPU between sessions, not
processes, so while other sessions keep the cores busy an export gets the same share with 2
workers as with 1, and the ratio sinks towards 1 or below whatever the exporter does. Then the
CPU figures are the evidence: ``cpu_ratio_2_vs_1`` (the cost of parallelism) and
``estimated_idle_ratio_2_vs_1`` (one process's CPU over the 2-process run's critical path, the
parent's CPU plus its busiest worker's: an estimate, labelled as such).
Results go to ``benchmarks/results/export.json``.
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
import tempfile
import threading
import time
from pathlib import Path

import psutil

import palaestra

# Quick families at mid levels: the benchmark measures the exporter, not the slowest generator.
FAMILIES = [
    "expression",
    "long_arithmetic",
    "lights_out",
    "sat_model",
    "shortest_path",
    "sliding_tiles",
    "countdown",
    "knights_knaves",
]
LEVELS = [3, 4, 5]
TEST_SHARE = 0.05
RESULTS = Path(__file__).parent / "results" / "export.json"


def mixture(rows: int) -> dict:
    """The benchmark mixture, scaled to ``rows`` rows in total (95% train, 5% test)."""
    names = [f for f in FAMILIES if f in palaestra.families()]
    cells = len(names) * len(LEVELS)
    per_cell = max(1, rows // cells)
    test = max(1, round(per_cell * TEST_SHARE))
    return {
        "name": f"bench-{rows}",
        "seed": 2026,
        "version": 1,
        "shard_size": 20_000,
        "chunk_size": 1000,
        "calibration_samples": 0,
        "mixture": [
            {"family": f, "levels": LEVELS, "counts": {"train": per_cell - test, "test": test}} for f in names
        ],
    }


class TreeSampler(threading.Thread):
    """Samples a process tree: CPU seconds per process, peak summed RSS and PSS."""

    def __init__(self, proc: subprocess.Popen) -> None:
        super().__init__(daemon=True)
        self.proc, self.root = proc, psutil.Process(proc.pid)
        self.cpu: dict[int, float] = {}
        self.role: dict[int, str] = {}
        self.peak_rss = self.peak_pss = 0

    def run(self) -> None:
        tick = 0
        while self.proc.poll() is None:
            self._sample(with_pss=tick % 5 == 0)
            tick += 1
            time.sleep(0.1)

    def _sample(self, with_pss: bool) -> None:
        rss = pss = 0
        try:
            tree = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return
        for p in tree:
            try:
                times = p.cpu_times()
                rss += p.memory_info().rss
                if with_pss:
                    info = p.memory_full_info()
                    pss += getattr(info, "pss", info.rss)
            except psutil.Error:
                continue
            self.cpu[p.pid] = max(self.cpu.get(p.pid, 0.0), times.user + times.system)
            self.role.setdefault(p.pid, "parent" if p.pid == self.root.pid else "worker")
        self.peak_rss = max(self.peak_rss, rss)
        if with_pss:
            self.peak_pss = max(self.peak_pss, pss)


def _critical_path(per_process: list[dict]) -> float:
    """Parent + busiest worker + any helper: the two busiest children are the 2 workers (running in
    parallel); others (a fork server, a resource tracker) do their work serially."""
    parent = sum(p["cpu_s"] for p in per_process if p["role"] == "parent")
    ranked = sorted((p["cpu_s"] for p in per_process if p["role"] == "worker"), reverse=True)
    return parent + (ranked[0] + sum(ranked[2:]) if ranked else 0.0)


def run_once(config_path: Path, out: Path, num_proc: int, extra: list[str]) -> dict:
    cmd = [sys.executable, "-m", "palaestra.cli", "export", "--config", str(config_path), "--out", str(out)]
    cmd += ["--num-proc", str(num_proc), "--quiet", *extra]
    load = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = TreeSampler(proc)
    sampler.start()
    _, stderr = proc.communicate()
    wall = time.perf_counter() - start
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"export failed ({proc.returncode}): {stderr.strip()}")
    # Exact where every process of the tree was waited for; an engine whose workers are reaped by
    # a helper process (a fork server) hides them from it, and then the sampled sum is the figure.
    waited = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    sampled = sum(sampler.cpu.values())
    cpu_s = max(waited, sampled)
    manifest = json.loads((out / "palaestra_export.json").read_text())
    rows = sum(manifest["counts"].values())
    per_process = [
        {"role": sampler.role[pid], "cpu_s": round(cpu, 2)}
        for pid, cpu in sorted(sampler.cpu.items(), key=lambda item: item[0])
    ]
    return {
        "num_proc": num_proc,
        "rows": rows,
        "candidates_generated": manifest["candidates_generated"],
        "wall_s": round(wall, 2),
        "rows_per_s": round(rows / wall, 1),
        "cpu_s": round(cpu_s, 2),  # user + sys of the whole tree
        "cpu_s_waited": round(waited, 2),  # from the finished command's resource usage
        "cpu_s_sampled": round(sampled, 2),
        "rows_per_cpu_s": round(rows / cpu_s, 1),
        "cpu_per_process": per_process,  # sampled
        # parent's CPU plus the busiest worker's: the wall time on idle cores if the parent's work
        # is serial and the workers' runs in parallel (an estimate from CPU seconds, not a measurement)
        "cpu_critical_path_s": round(_critical_path(per_process), 2),
        "peak_rss_mib": round(sampler.peak_rss / 2**20, 1),
        "peak_pss_mib": round(sampler.peak_pss / 2**20, 1),
        "fingerprint": manifest["fingerprint"],
        "output_mib": round(sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 2**20, 1),
        "load_average_before": [round(x, 2) for x in load],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000, help="rows in the mixture (default 20000)")
    parser.add_argument("--pairs", type=int, default=3, help="interleaved (1 process, 2 processes) pairs")
    parser.add_argument("--arrow-copy", action="store_true", help="also write the Arrow copy")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results JSON")
    args = parser.parse_args()
    config = mixture(args.rows)
    extra = ["--arrow-copy"] if args.arrow_copy else []
    pairs = []
    with tempfile.TemporaryDirectory(prefix="palaestra-bench-") as tmp:
        config_path = Path(tmp) / "mix.json"
        config_path.write_text(json.dumps(config))
        for k in range(args.pairs):
            pair = {}
            for n in (1, 2) if k % 2 == 0 else (2, 1):
                out = Path(tmp) / f"out-{k}-{n}"
                pair[n] = run_once(config_path, out, n, extra)
                subprocess.run(["rm", "-rf", str(out)], check=True)
                print(json.dumps(pair[n]), flush=True)
            pairs.append(
                {
                    "one": pair[1],
                    "two": pair[2],
                    "wall_ratio": round(pair[1]["wall_s"] / pair[2]["wall_s"], 2),
                }
            )
            print(f"pair {k + 1}: wall ratio 2-vs-1 = {pairs[-1]['wall_ratio']}", flush=True)
    runs = [p[side] for p in pairs for side in ("one", "two")]
    ratio = round(statistics.median(p["wall_ratio"] for p in pairs), 2)
    cpu_ratio = round(statistics.median(p["two"]["cpu_s"] / p["one"]["cpu_s"] for p in pairs), 3)
    estimate = round(
        statistics.median(p["one"]["cpu_critical_path_s"] / p["two"]["cpu_critical_path_s"] for p in pairs), 2
    )
    report = {
        "benchmark": "palaestra export",
        "requested_rows": args.rows,
        "arrow_copy": args.arrow_copy,
        "mixture": config,
        "pairs": pairs,
        "wall_ratio_2_vs_1": ratio,  # median over pairs; >= 1.5 is the target on an idle 2-core machine
        "cpu_ratio_2_vs_1": cpu_ratio,  # total CPU of 2 processes over 1: the cost of parallelism
        # one process's CPU over the 2-process run's critical path (parent + busiest worker): what
        # idle cores would give, estimated from CPU seconds; the wall ratio is the measurement
        "estimated_idle_ratio_2_vs_1": estimate,
        "same_fingerprint_for_all_runs": len({r["fingerprint"] for r in runs}) == 1,
        "host": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "palaestra": palaestra.__version__,
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    print(
        f"wall ratio 2 processes vs 1: {ratio} (median of {len(pairs)} pairs; load average "
        f"{min(r['load_average_before'][0] for r in runs)}-{max(r['load_average_before'][0] for r in runs)}); "
        f"CPU ratio {cpu_ratio}; estimated from CPU seconds on idle cores: {estimate}"
    )


if __name__ == "__main__":
    main()
