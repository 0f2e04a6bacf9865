"""A whole training run: preflight, SFT warm start, RL steps, evaluation, checkpoints, reports.

Writes to ``config.output_dir``: ``config.json``, ``metrics.jsonl`` (one row per SFT log point,
RL step and evaluation, each with a ``kind``), ``plots/*.png``, ``checkpoints/step_N/`` and
``summary.json``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from palaestra.agents.backends import Backend
from palaestra.agents.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
from palaestra.agents.config import TrainConfig
from palaestra.agents.reporting import ProgressBar, plot_metrics, read_jsonl, summary_table
from palaestra.agents.sft import warm_start
from palaestra.agents.trainer import GRPOTrainer, write_jsonl


def run_training(
    config: TrainConfig, *, backend: Backend | None = None, stop_after: int | None = None, quiet: bool = False
) -> dict[str, Any]:
    """Train as ``config`` says; ``stop_after`` ends the process's work after that step (as if
    killed right after its checkpoint). Returns the summary."""
    start = time.perf_counter()
    out = Path(config.output_dir)
    trainer = GRPOTrainer(config, backend=backend)  # preflight checks run here, before any work
    out.mkdir(parents=True, exist_ok=True)
    metrics_path = out / "metrics.jsonl"
    say = (lambda *_: None) if quiet else (lambda msg: print(msg, file=sys.stderr))
    resumed_from = latest_checkpoint(out) if config.resume else None
    extra: dict[str, Any] = {}

    if resumed_from is not None:
        extra = load_checkpoint(trainer, resumed_from)
        rows = [
            r
            for r in read_jsonl(metrics_path)
            if r.get("kind") in ("sft", "eval_sft") or r.get("step", 0) <= trainer.step_count
        ]
        metrics_path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
        say(f"resumed from {resumed_from} at step {trainer.step_count}")
    else:
        if metrics_path.exists():
            metrics_path.unlink()
        (out / "config.json").write_text(config.to_json())
        if config.sft_steps > 0:
            extra.update(_sft_phase(trainer, metrics_path, config, say))
        trainer.snapshot_reference()
        trainer.sync()
        if config.sft_steps > 0:
            extra["sft_eval"] = trainer.evaluate()
            write_jsonl(metrics_path, {"kind": "eval_sft", "step": 0, **extra["sft_eval"]})

    bar = ProgressBar(config.steps, label="rl", enabled=config.progress and not quiet)
    bar.begin_at(trainer.step_count)
    last: dict[str, Any] = {}
    while trainer.step_count < config.steps:
        last = trainer.step()
        write_jsonl(metrics_path, {"kind": "step", **last})
        step = trainer.step_count
        if config.eval_every and step % config.eval_every == 0 and step < config.steps:
            write_jsonl(metrics_path, {"kind": "eval", "step": step, **trainer.evaluate()})
        if config.checkpoint_every and step % config.checkpoint_every == 0:
            save_checkpoint(trainer, extra)
        bar.update(step, f"reward {last['rollout/reward']:.2f} solve {last['rollout/solve_rate']:.2f}")
        if stop_after is not None and step >= stop_after:
            bar.close()
            return {"stopped_at": step, "last": last}
    bar.close()

    final = trainer.evaluate()
    write_jsonl(metrics_path, {"kind": "eval", "step": trainer.step_count, **final})
    save_checkpoint(trainer, extra)
    rows = read_jsonl(metrics_path)
    plots = plot_metrics(rows, out / "plots") if config.plots and _has_matplotlib() else []
    summary = _summary(config, rows, extra, final, time.perf_counter() - start)
    summary["plots"] = [str(p) for p in plots]
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    if not quiet:
        print(summary_table({k: v for k, v in summary.items() if k != "plots"}))
    if backend is None:  # an injected engine belongs to the caller
        trainer.backend.close()
    return summary


def _sft_phase(trainer: GRPOTrainer, metrics_path: Path, config: TrainConfig, say: Any) -> dict[str, Any]:
    bar = ProgressBar(config.sft_steps, label="sft", enabled=config.progress and say is not None)
    t0 = time.perf_counter()

    def on_step(m: dict[str, float]) -> None:
        step = int(m["sft/step"])
        if step % 10 == 0 or step == config.sft_steps:
            write_jsonl(metrics_path, {"kind": "sft", **m})
        bar.update(step, f"loss {m['sft/loss']:.3f}")

    losses = warm_start(
        trainer.policy,
        trainer.chat,
        families=config.family_list(),
        levels=config.sft_level_list(),
        steps=config.sft_steps,
        batch_size=config.sft_batch_size,
        learning_rate=config.sft_learning_rate,
        seed=config.seed,
        device=trainer.device,
        on_step=on_step,
    )
    bar.close()
    trainer.policy.eval()
    return {"sft_seconds": time.perf_counter() - t0, "sft_final_loss": losses[-1]}


def _summary(
    config: TrainConfig,
    rows: list[dict[str, Any]],
    extra: dict[str, Any],
    final: dict[str, float],
    seconds: float,
) -> dict[str, Any]:
    steps = [r for r in rows if r.get("kind") == "step"]
    head, tail = steps[: max(1, len(steps) // 5)], steps[-max(1, len(steps) // 5) :]

    def mean(rs: list[dict[str, Any]], key: str) -> float:
        vals = [r[key] for r in rs if key in r]
        return float(sum(vals) / len(vals)) if vals else float("nan")

    summary: dict[str, Any] = {
        "model": config.model,
        "families": config.families,
        "steps": len(steps),
        "wall_seconds": round(seconds, 1),
        "reward_first_20pct": mean(head, "rollout/reward"),
        "reward_last_20pct": mean(tail, "rollout/reward"),
        "rollout_tokens_per_s": mean(steps, "throughput/rollout_tokens_per_s"),
    }
    if "sft_eval" in extra:
        summary["eval_accuracy_sft"] = extra["sft_eval"]["eval/accuracy"]
    summary["eval_accuracy_final"] = final["eval/accuracy"]
    for key, value in final.items():
        if key.count("/") >= 2:
            summary[key] = value
    for f in config.family_list():
        key = f"curriculum/{f}/level"
        if steps and key in steps[-1]:
            summary[f"final_level/{f}"] = steps[-1][key]
    return summary


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
