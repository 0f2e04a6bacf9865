"""Export throughput: rows per second with 1 and 2 processes, and peak RAM.

    python benchmarks/export.py                 # the 200k-row mixture
    python benchmarks/export.py --rows 20000    # a smaller run of the same mixture

Each export runs in a fresh subprocess (``palaestra export``); a sampler thread sums the memory of
that process and all its children (the worker pool) every 0.1 s, so the peak RAM is the whole
process tree's: PSS (shared pages counted once, the honest total) and summed RSS (an upper bound).
CPU seconds (user + sys of the tree) are recorded too: on a busy machine, rows per CPU second is
the number that does not depend on how much of the machine the export got. Results go to ``benchmarks/results/export.json`` and include the host's load
average, since other work on a shared machine slows every number here.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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


def _tree_sample(proc: psutil.Process, cpu: dict[int, float]) -> tuple[int, int]:
    """(RSS, PSS) summed over a process and its children; PSS counts shared pages once.

    Also records each process's CPU seconds in ``cpu`` (pool workers are reaped by the
    forkserver, so their time never reaches this process's RUSAGE_CHILDREN).
    """
    rss = pss = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            info = p.memory_full_info()
            times = p.cpu_times()
        except psutil.Error:
            continue
        rss += info.rss
        pss += getattr(info, "pss", info.rss)
        cpu[p.pid] = max(cpu.get(p.pid, 0.0), times.user + times.system)
    return rss, pss


def run_once(config_path: Path, out: Path, num_proc: int) -> dict:
    cmd = [sys.executable, "-m", "palaestra.cli", "export", "--config", str(config_path), "--out", str(out)]
    cmd += ["--num-proc", str(num_proc), "--quiet"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watched = psutil.Process(proc.pid)
    peak = [0, 0]
    cpu: dict[int, float] = {}

    def sample() -> None:
        while proc.poll() is None:
            try:
                rss, pss = _tree_sample(watched, cpu)
            except psutil.Error:
                continue
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - start
    sampler.join()
    cpu_s = sum(cpu.values())  # sampled every 0.1 s: misses at most a final slice per process
    if proc.returncode != 0:
        raise SystemExit(f"export failed ({proc.returncode}): {stderr.strip()}")
    manifest = json.loads((out / "palaestra_export.json").read_text())
    rows = sum(manifest["counts"].values())
    return {
        "num_proc": num_proc,
        "rows": rows,
        "candidates_generated": manifest["candidates_generated"],
        "duplicates_dropped": manifest["duplicates_dropped"],
        "wall_s": round(wall, 2),
        "rows_per_s": round(rows / wall, 1),
        "cpu_s": round(cpu_s, 1),  # user + sys of the whole process tree
        "rows_per_cpu_s": round(rows / cpu_s, 1),
        "peak_rss_mib": round(peak[0] / 2**20, 1),  # sum of RSS: counts shared pages per process
        "peak_pss_mib": round(peak[1] / 2**20, 1),  # proportional set size: the tree's real RAM
        "fingerprint": manifest["fingerprint"],
        "output_mib": round(sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 2**20, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000, help="rows in the mixture (default 200000)")
    parser.add_argument("--procs", type=int, nargs="+", default=[1, 2], help="process counts to measure")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results JSON")
    args = parser.parse_args()
    config = mixture(args.rows)
    runs = []
    with tempfile.TemporaryDirectory(prefix="palaestra-bench-") as tmp:
        config_path = Path(tmp) / "mix.json"
        config_path.write_text(json.dumps(config))
        for n in args.procs:
            load = os.getloadavg()
            result = run_once(config_path, Path(tmp) / f"out-{n}", n)
            result["load_average_before"] = [round(x, 2) for x in load]
            runs.append(result)
            print(json.dumps(result))
    fingerprints = {r["fingerprint"] for r in runs}
    report = {
        "benchmark": "palaestra export",
        "requested_rows": args.rows,
        "mixture": config,
        "runs": runs,
        "same_fingerprint_for_all_num_proc": len(fingerprints) == 1,
        "speedup_2_vs_1": (
            round(runs[1]["rows_per_s"] / runs[0]["rows_per_s"], 2)
            if len(runs) > 1 and args.procs[:2] == [1, 2]
            else None
        ),
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


if __name__ == "__main__":
    main()
