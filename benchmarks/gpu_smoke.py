"""GPU smoke run: the trainer with the transformers backend on one GPU, the Qwen2.5-0.5B architecture
randomly initialised and built locally (the GPU machines here have CUDA torch, no vLLM and no network).

Records rollout tokens/s, step time and peak GPU memory over a few GRPO steps in bf16 autocast with
gradient checkpointing and the preflight's micro-batch. Without a GPU it records the run as unrun
(``--allow-cpu`` runs the same code path on the CPU, shrunk, to check the script itself).

    python benchmarks/gpu_smoke.py                       # on a GPU machine
    python benchmarks/gpu_smoke.py --allow-cpu --layers 1 --steps 1 --out /tmp/smoke.json

Writes ``benchmarks/results/gpu_smoke.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
ARCHITECTURE = "Qwen2.5-0.5B-Instruct"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--layers", type=int, default=None, help="shrink the depth (default: the real 24)")
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--allow-cpu", action="store_true", help="run on the CPU when there is no GPU")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "gpu_smoke.json"))
    args = parser.parse_args(argv)

    import torch

    gpu = torch.cuda.is_available()
    result: dict = {"benchmark": "gpu_smoke", "architecture": ARCHITECTURE, "date": time.strftime("%Y-%m-%d")}
    if not gpu and not args.allow_cpu:
        result.update(status="unrun", reason="no GPU on this machine (torch.cuda.is_available() is False)")
        return write(result, args.out)

    from palaestra.agents.config import TrainConfig
    from palaestra.agents.tiny import build_random_architecture
    from palaestra.agents.trainer import GRPOTrainer

    with tempfile.TemporaryDirectory(prefix="palaestra-gpu-smoke-") as tmp:
        model = build_random_architecture(ARCHITECTURE, Path(tmp) / "model", layers=args.layers)
        config = TrainConfig(
            model=str(model), backend="transformers", device="cuda" if gpu else "cpu", families="expression",
            prompts_per_step=args.prompts, group_size=args.group_size, max_new_tokens=args.max_new_tokens,
            max_model_len=1024, gradient_checkpointing=True, bf16=True, learning_rate=1e-6, steps=args.steps,
            drop_zero_variance=False, output_dir=str(Path(tmp) / "run"), run_subfolder=False,
            progress=False, plots=False,
        )  # fmt: skip
        trainer = GRPOTrainer(config)
        if gpu:
            torch.cuda.reset_peak_memory_stats()
        rows = [trainer.step() for _ in range(args.steps)]
        peak = torch.cuda.max_memory_allocated() / 2**30 if gpu else None
    result.update(
        status="ok",
        device=torch.cuda.get_device_name(0) if gpu else "cpu (--allow-cpu: a check of this script)",
        layers=args.layers or 24,
        parameters=sum(p.numel() for p in trainer.policy.parameters()),
        steps=len(rows),
        micro_batch_size=config.micro_batch_size,
        step_s=round(statistics.mean(r["time/step_s"] for r in rows), 2),
        rollout_tokens_per_s=round(statistics.mean(r["throughput/rollout_tokens_per_s"] for r in rows), 1),
        train_s=round(statistics.mean(r["time/train_s"] for r in rows), 2),
        peak_gpu_memory_gb=None if peak is None else round(peak, 2),
        settings={
            "prompts": args.prompts,
            "group_size": args.group_size,
            "max_new_tokens": args.max_new_tokens,
        },
        torch=torch.__version__,
        python=platform.python_version(),
    )
    return write(result, args.out)


def write(result: dict, out: str) -> int:
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
