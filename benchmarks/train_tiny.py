"""Does RL beat SFT alone? ``palaestra train --preset tiny --no-selfplay`` over several seeds.

``preset("tiny")`` is the preset's plain GRPO config (the command line's ``--no-selfplay``; by
default ``--preset tiny`` trains by self-play, measured by ``benchmarks/selfplay_tiny.py``).

For each training seed: the preset's SFT warm start, greedy accuracy on held-out tasks (seeds from
2**40, disjoint from every training seed), then the RL phase and the same evaluation. The result
is the per-seed accuracy gain of RL over the SFT-only checkpoint, its mean and spread.

    python benchmarks/train_tiny.py --seeds 0 1 2 --jobs 3

Writes ``benchmarks/results/train_tiny.json`` and copies seed 0's plots to ``docs/``.
Set OMP_NUM_THREADS=1 and VLLM_ENABLE_V1_MULTIPROCESSING=0 as in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import time
from pathlib import Path

from _seeds import run_seed_processes  # benchmarks/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "train_tiny.json"


def run_one(seed: int, out: Path, overrides: dict) -> dict:
    from palaestra.agents.config import preset
    from palaestra.agents.run import run_training

    config = preset("tiny", seed=seed, output_dir=str(out / f"seed{seed}"), progress=False, **overrides)
    start = time.perf_counter()
    summary = run_training(config, quiet=True)
    return {
        "seed": seed,
        "sft_accuracy": summary["eval_accuracy_sft"],
        "rl_accuracy": summary["eval_accuracy_final"],
        "gain_points": 100 * (summary["eval_accuracy_final"] - summary["eval_accuracy_sft"]),
        "wall_seconds": round(time.perf_counter() - start, 1),
        "reward_first_20pct": summary["reward_first_20pct"],
        "reward_last_20pct": summary["reward_last_20pct"],
        "config": config.to_dict(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--jobs", type=int, default=1, help="seeds run in parallel processes")
    parser.add_argument("--out", default="runs/train_tiny", help="folder for the runs")
    parser.add_argument(
        "--set", action="append", default=[], metavar="FIELD=JSON", help="override a config field"
    )
    parser.add_argument("--results", default=str(RESULTS), help="where to write the result JSON")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # worker mode
    args = parser.parse_args()
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    out = Path(args.out)
    if args.one is not None:
        row = run_one(args.one, out, overrides)
        (out / f"seed{args.one}.json").write_text(json.dumps(row, indent=2))
        return 0

    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    commands = {}
    for seed in args.seeds:
        commands[seed] = [sys.executable, __file__, "--one", str(seed), "--out", str(out)]
        for s in args.set:
            commands[seed] += ["--set", s]
    rows = run_seed_processes(commands, args.jobs, out)
    gains = [r["gain_points"] for r in rows]
    result = {
        "benchmark": "train_tiny",
        "target": "held-out greedy accuracy after RL >= SFT-only + 10 points (mean over seeds)",
        "seeds": rows,
        "mean_sft_accuracy": statistics.mean(r["sft_accuracy"] for r in rows) if rows else None,
        "mean_rl_accuracy": statistics.mean(r["rl_accuracy"] for r in rows) if rows else None,
        "mean_gain_points": statistics.mean(gains) if gains else None,
        "gain_stdev_points": statistics.stdev(gains) if len(gains) > 1 else None,
        "gain_min_max_points": [min(gains), max(gains)] if gains else None,
        "target_met": bool(gains) and statistics.mean(gains) >= 10,
        "total_wall_seconds": round(time.perf_counter() - start, 1),
        "parallel_jobs": args.jobs,
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg_at_end": os.getloadavg(),
            "python": platform.python_version(),
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        },
        "overrides": overrides,
    }
    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(result, indent=2))
    plots = out / f"seed{args.seeds[0]}" / "plots" / "training.png"
    if plots.exists() and results == RESULTS:
        shutil.copy(plots, ROOT / "docs" / "train_tiny_training.png")
    print(json.dumps({k: v for k, v in result.items() if k != "seeds"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
