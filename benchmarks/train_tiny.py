"""Does GRPO beat SFT alone, and SFT continued for the same compute? The tiny model on CPU.

``palaestra train --preset tiny --no-selfplay`` over several seeds (``preset("tiny")``). Per seed,
in its own process:

1. SFT warm start on a *weak teacher's* demonstrations (systematic errors: a negative result loses
   its minus sign, a final carry is dropped, each in 60% of the demonstrations where it applies),
   with the convergence check (a seed whose SFT never converges is reported as failed, not run on);
2. held-out evaluation of the SFT-only checkpoint: distinct problems on the held-out side of the
   content split (never trained on), greedy and sampled accuracy, per subset (where the teacher errs
   and where it is right), standard errors over problems;
3. GRPO with the exact verifier, and the same evaluation;
4. the control: SFT continued from the warm start for as many sequences as GRPO generated (equal
   compute), and the same evaluation.

Each row under ``"seeds"`` has ``gain_pts`` (GRPO minus SFT-only, held-out greedy accuracy, points)
and ``gain_over_control_pts`` (GRPO minus the control), each with the standard error of the
per-problem differences, plus CPU and wall seconds of the seed's process.

    python benchmarks/train_tiny.py --seeds 0 1 2 --jobs 1

Writes ``benchmarks/results/train_tiny.json`` and copies seed 0's summary plot to
``docs/train_tiny.png``. Sets OMP_NUM_THREADS=1 and VLLM_ENABLE_V1_MULTIPROCESSING=0 as in CI unless
they are set.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from _seeds import (  # benchmarks/ is on sys.path when run as a script
    run_or_collect,
    seed_parser,
    set_flags,
    set_overrides,
    write_results,
)

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "train_tiny.json"
PLOT = ROOT / "docs" / "train_tiny.png"
TARGETS = {"mean_gain_pts": 10.0, "mean_gain_over_control_pts": 5.0}


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its finished children (the verification
    workers of ``verify_many`` count once :func:`stop_workers` has ended them)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def stop_workers() -> None:
    from palaestra.batch import shutdown

    shutdown()


def seed_row(seed: int, summary: dict[str, Any], wall: float, cpu: float, config: Any) -> dict[str, Any]:
    """The benchmark row of one finished seed (shared with selfplay_tiny.py)."""
    keys = (
        "gain_pts",
        "gain_se_pts",
        "gain_over_control_pts",
        "gain_over_control_se_pts",
        "gain_pts_sampled",
        "gain_se_pts_sampled",
        "gain_over_control_pts_sampled",
        "gain_over_control_se_pts_sampled",
        "accuracy_sft_only",
        "accuracy_control",
        "accuracy_after",
        "sampled_accuracy_sft_only",
        "sampled_accuracy_control",
        "sampled_accuracy_after",
        "heldout_problems",
        "sft_steps",
        "sft_probe_accuracy",
        "sft_seconds",
        "control_steps",
        "control_sequences",
        "control_seconds",
    )
    row: dict[str, Any] = {"seed": seed, "status": "ok"}
    row.update({k: summary[k] for k in keys if k in summary})
    row["subsets"] = {
        arm: {k: v for k, v in figures.items() if k.startswith("subset/")}
        for arm, figures in summary["arms"].items()
    }
    row["wall_seconds"] = round(wall, 1)
    row["cpu_seconds"] = round(cpu, 1)
    row["run_dir"] = summary["run_dir"]
    row["config"] = config.to_dict()
    return row


def run_one(seed: int, out: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    from palaestra.agents.config import preset
    from palaestra.agents.run import SFTNotConverged, run_training

    config = preset(
        "tiny",
        seed=seed,
        output_dir=str(out / f"seed{seed}"),
        run_subfolder=False,
        progress=False,
        **overrides,
    )
    wall0, cpu0 = time.perf_counter(), cpu_seconds()
    try:
        summary = run_training(config, quiet=True)
    except SFTNotConverged as exc:
        return {"seed": seed, "status": "sft_not_converged", "error": str(exc), "config": config.to_dict()}
    stop_workers()
    return seed_row(seed, summary, time.perf_counter() - wall0, cpu_seconds() - cpu0, config)


def spread(values: list[float]) -> dict[str, Any]:
    return {
        "mean": statistics.fmean(values) if values else None,
        "stdev": statistics.stdev(values) if len(values) > 1 else None,
        "min_max": [min(values), max(values)] if values else None,
    }


def aggregate(rows: list[dict[str, Any]], targets: dict[str, float]) -> dict[str, Any]:
    """Means and spreads over the seeds, and whether each must-show item holds."""
    ok = [r for r in rows if r.get("status") == "ok"]
    out: dict[str, Any] = {"seeds_run": len(rows), "seeds_ok": len(ok)}
    for key in (
        "gain_pts",
        "gain_over_control_pts",
        "gain_pts_sampled",
        "gain_over_control_pts_sampled",
        "accuracy_sft_only",
        "accuracy_control",
        "accuracy_after",
        "cpu_seconds",
        "wall_seconds",
    ):
        values = [r[key] for r in ok if key in r]
        if values:
            out[key] = spread(values)
    checks = {"at_least_3_seeds": len(ok) >= 3 and len(ok) == len(rows)}
    for name, bound in targets.items():
        key = name.removeprefix("mean_")
        mean = out.get(key, {}).get("mean")
        checks[f"{name} >= {bound}"] = mean is not None and mean >= bound
    checks["every_seed_gain_positive"] = bool(ok) and all(r["gain_pts"] > 0 for r in ok)
    if "mean_gain_over_control_pts" in targets:
        checks["every_seed_gain_over_control_positive"] = bool(ok) and all(
            r["gain_over_control_pts"] > 0 for r in ok
        )
    out["must_show"] = checks
    out["must_show_met"] = all(checks.values())
    return out


def machine(jobs: int) -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "loadavg_at_end": os.getloadavg(),
        "python": platform.python_version(),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "parallel_jobs": jobs,
        "note": "shared machine: wall seconds include waiting for the CPU; CPU seconds (user + system "
        "of the seed's process) do not",
    }


def main() -> int:
    parser = seed_parser(__doc__.splitlines()[0], "runs/train_tiny", RESULTS)
    args = parser.parse_args()
    overrides = set_overrides(args)
    if args.one is not None:
        out = Path(args.out)
        row = run_one(args.one, out, overrides)
        (out / f"seed{args.one}.json").write_text(json.dumps(row, indent=2))
        return 0
    rows, wall = run_or_collect(args, __file__, set_flags(args))
    result = {
        "benchmark": "train_tiny",
        "question": "held-out greedy accuracy after GRPO vs SFT-only (gain_pts) and vs SFT continued for the "
        "same number of sequences (gain_over_control_pts), weak-teacher SFT, exact verifier",
        "targets": {**TARGETS, "every_seed_positive": True, "seeds": 3},
        "seeds": rows,
        **aggregate(rows, TARGETS),
        "total_wall_seconds": wall,
        "machine": machine(args.jobs),
        "overrides": overrides,
    }
    write_results(result, args.results, RESULTS, PLOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
