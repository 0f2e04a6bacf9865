"""Self-play with the built-in tiny model on CPU (``arith`` language), over several seeds.

For each seed, in its own process: the ``tiny`` preset's SFT warm start on catalog ``expression``
answers, the arith warm start (SFT on random valid DSL proposals and their answers, so that the
proposer can write valid tasks at all), greedy accuracy on the held-out catalog arithmetic tasks
(``expression`` level 1, seeds from 2**40: the checkpoint self-play starts from), ``--steps``
self-play steps, greedy accuracy again. Reports per seed and as mean and spread over seeds: the
accuracy gain, and the proposer's valid-proposal rate and mean learnability in the first vs last
quarter of the steps; wall seconds and CPU seconds (user + system of the seed's process, all
threads) per seed, since wall time on a shared machine also measures the neighbours. Writes
``benchmarks/results/selfplay_tiny.json`` and ``docs/selfplay_tiny.png``.

    python benchmarks/selfplay_tiny.py --seeds 0 1 2 --jobs 3

Needs ``pip install 'palaestra[train]'`` and the CPU vLLM stack (README); falls back to the
transformers backend with ``--backend transformers``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from _seeds import run_seed_processes  # benchmarks/ is on sys.path when run as a script

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "selfplay_tiny.json"
PLOT = ROOT / "docs" / "selfplay_tiny.png"


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_seed(seed: int, args: argparse.Namespace, out: Path) -> dict[str, Any]:
    """One seed, start to end, in this process."""
    from palaestra.agents.config import selfplay_preset
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.cli import run_selfplay

    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    config, _ = selfplay_preset(
        "tiny",
        seed=seed,
        steps=args.steps,
        max_new_tokens=args.max_new_tokens,
        backend=args.backend,
        output_dir=str(out),
        progress=False,
        plots=False,
        **overrides,
    )
    sp = SelfPlayConfig(
        proposals_per_type=args.proposals,
        probes=args.probes,
        temperature=config.temperature,
        reward_form=args.reward,
        catalog_fraction=args.catalog_fraction,
        catalog_families=("expression",) if args.catalog_fraction else (),
        catalog_level=1,
        seed=seed,
    )
    wall0, cpu0 = time.perf_counter(), _cpu_seconds()
    summary = run_selfplay(config, sp, "arith", warm_start_steps=args.warm_start_steps, quiet=True)
    wall, cpu = time.perf_counter() - wall0, _cpu_seconds() - cpu0
    rows = read_jsonl(out / "metrics.jsonl")
    steps = [r for r in rows if r.get("kind") == "selfplay"]
    quarter = max(1, len(steps) // 4)

    def mean(key: str, part: list[dict[str, Any]]) -> float:
        return statistics.fmean(r[key] for r in part) if part else float("nan")

    sft = next((r for r in rows if r.get("kind") == "sft_done"), {})
    warm = next((r for r in rows if r.get("kind") == "selfplay_warm_start"), {})
    before, after = summary["sft_eval"]["eval/accuracy"], summary["eval"]["eval/accuracy"]
    return {
        "seed": seed,
        "sft_accuracy": before,
        "selfplay_accuracy": after,
        "gain_points": 100 * (after - before),
        "format_rate_before_after": [
            summary["sft_eval"]["eval/format_rate"],
            summary["eval"]["eval/format_rate"],
        ],
        "valid_rate_first_quarter": mean("valid_rate", steps[:quarter]),
        "valid_rate_last_quarter": mean("valid_rate", steps[-quarter:]),
        "learnability_first_quarter": mean("mean_learnability", steps[:quarter]),
        "learnability_last_quarter": mean("mean_learnability", steps[-quarter:]),
        "solver_reward_first_last_quarter": [
            mean("solver_reward", steps[:quarter]),
            mean("solver_reward", steps[-quarter:]),
        ],
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "phase_wall_seconds": {
            "sft": round(sft.get("sft_seconds", 0.0), 1),
            "arith_warm_start": round(warm.get("seconds", 0.0), 1),
            "selfplay_steps": round(sum(r.get("time/step_s", 0.0) for r in steps), 1),
        },
        "warm_start_loss_first_last": [warm.get("loss_first"), warm.get("loss")],
        "rejections_total": _rejections(steps),
        "curve": [
            {
                "step": r["step"],
                "valid_rate": r["valid_rate"],
                "mean_learnability": r["mean_learnability"],
                "solver_reward": r["solver_reward"],
                "proposer_reward": r["proposer_reward"],
                "episodes": r.get("train/episodes", 0),
                "distinct_fraction": r["diversity"]["distinct_fraction"],
                "shape_clusters": r["diversity"]["shape_clusters"],
            }
            for r in steps
        ],
        "config": config.to_dict(),
        "selfplay_config": {k: v for k, v in vars(sp).items()},
    }


def _rejections(steps: list[dict[str, Any]]) -> dict[str, int]:
    """Gate counts over the run (the gate's counters are cumulative: the last row holds them)."""
    if not steps:
        return {}
    return {k: v for k, v in steps[-1]["rejections"].items() if v}


def _spread(values: list[float]) -> dict[str, float | list[float] | None]:
    return {
        "mean": statistics.fmean(values),
        "stdev": statistics.stdev(values) if len(values) > 1 else None,
        "min_max": [min(values), max(values)],
    }


def plot(runs: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(16, 3.4))
    seeds = [r["seed"] for r in runs]
    xs = range(len(runs))
    axes[0].bar([x - 0.2 for x in xs], [r["sft_accuracy"] for r in runs], 0.4, label="SFT only")
    axes[0].bar([x + 0.2 for x in xs], [r["selfplay_accuracy"] for r in runs], 0.4, label="after self-play")
    axes[0].set_xticks(list(xs), [f"seed {s}" for s in seeds])
    axes[0].set_title("held-out greedy accuracy (expression L1)")
    axes[0].legend(fontsize=8)
    for r in runs:
        steps = [c["step"] for c in r["curve"]]
        for ax, key in zip(axes[1:], ("valid_rate", "mean_learnability", "solver_reward"), strict=True):
            ax.plot(steps, [c[key] for c in r["curve"]], label=f"seed {r['seed']}", alpha=0.8)
    for ax, title in zip(
        axes[1:],
        ("valid-proposal rate", "mean learnability (valid proposals)", "solver reward (probes)"),
        strict=True,
    ):
        ax.set_title(title)
        ax.set_xlabel("self-play step")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    from palaestra.agents.config import selfplay_preset

    # every default is the `tiny` preset's self-play setting: the benchmark measures the main job
    train, sp = selfplay_preset("tiny")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=train.steps, help="self-play steps per seed")
    parser.add_argument("--proposals", type=int, default=sp["proposals"], help="proposals per step")
    parser.add_argument("--probes", type=int, default=sp["probes"], help="solver attempts per proposal")
    parser.add_argument("--reward", default=sp["reward"], help="learnability form: azr | rzero | stp")
    parser.add_argument("--max-new-tokens", type=int, default=train.max_new_tokens)
    parser.add_argument(
        "--warm-start-steps",
        type=int,
        default=sp["warm_start_steps"],
        help="arith DSL-format SFT (with catalog replay) before self-play",
    )
    parser.add_argument(
        "--catalog-fraction",
        type=float,
        default=sp["catalog_fraction"],
        help="catalog expression tasks mixed into the solver data",
    )
    parser.add_argument("--backend", default="auto", help="vllm | transformers | auto")
    parser.add_argument(
        "--set", action="append", default=[], metavar="FIELD=JSON", help="override a config field"
    )
    parser.add_argument("--jobs", type=int, default=1, help="seeds run in parallel processes")
    parser.add_argument("--out", default="runs/selfplay_tiny", help="folder for the runs")
    parser.add_argument("--results", default=str(RESULTS), help="where to write the result JSON")
    parser.add_argument("--plot", default=str(PLOT), help="where to write the figure")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # worker mode
    args = parser.parse_args()
    out = Path(args.out)
    if args.one is not None:
        row = run_seed(args.one, args, out / f"seed{args.one}")
        (out / f"seed{args.one}.json").write_text(json.dumps(row, indent=2))
        return 0

    out.mkdir(parents=True, exist_ok=True)
    for s in args.seeds:
        (out / f"seed{s}.json").unlink(missing_ok=True)
    argv = [a for a in sys.argv[1:]]
    start = time.perf_counter()
    commands = {seed: [sys.executable, __file__, *argv, "--one", str(seed)] for seed in args.seeds}
    runs = run_seed_processes(commands, args.jobs, out)
    if not runs:
        return 1
    report = {
        "benchmark": "selfplay_tiny",
        "target": "held-out greedy accuracy after self-play > SFT-only (mean over seeds); valid-proposal "
        "rate and mean learnability rise over the run",
        "held_out_set": f"expression level 1, {runs[0]['config']['eval_tasks']} tasks, seeds from 2**40",
        "seeds": [r["seed"] for r in runs],
        "steps": args.steps,
        "settings": {k: v for k, v in vars(args).items() if k not in ("one", "seeds")},
        "sft_accuracy": _spread([r["sft_accuracy"] for r in runs]),
        "selfplay_accuracy": _spread([r["selfplay_accuracy"] for r in runs]),
        "gain_points": _spread([r["gain_points"] for r in runs]),
        "valid_rate_first_quarter": _spread([r["valid_rate_first_quarter"] for r in runs]),
        "valid_rate_last_quarter": _spread([r["valid_rate_last_quarter"] for r in runs]),
        "learnability_first_quarter": _spread([r["learnability_first_quarter"] for r in runs]),
        "learnability_last_quarter": _spread([r["learnability_last_quarter"] for r in runs]),
        "wall_seconds_per_seed": _spread([r["wall_seconds"] for r in runs]),
        "cpu_seconds_per_seed": _spread([r["cpu_seconds"] for r in runs]),
        "total_wall_seconds": round(time.perf_counter() - start, 1),
        "parallel_jobs": args.jobs,
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg_at_end": os.getloadavg(),
            "python": platform.python_version(),
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
            "note": "shared with other jobs: wall seconds include waiting for the CPU; CPU seconds do not",
        },
        "runs": runs,
    }
    results = Path(args.results)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(report, indent=2))
    try:
        plot(runs, Path(args.plot))
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
    print(json.dumps({k: v for k, v in report.items() if k not in ("runs", "settings")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
