"""The training configuration: one typed dataclass whose fields carry their help text.

``palaestra train`` builds its flags from these fields (see :mod:`palaestra.agents.cli`), so the
help text here is the CLI documentation too. ``PRESETS`` holds named starting points.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from dataclasses import dataclass, field
from typing import Any


def opt(default: Any, help: str, choices: tuple[Any, ...] | None = None) -> Any:
    """A config field with its help text (and allowed values) in the metadata."""
    return field(default=default, metadata={"help": help, "choices": choices})


@dataclass
class TrainConfig:
    """Everything a training run needs; JSON-serialisable and saved with every checkpoint."""

    # --- model and engine ---
    model: str = opt("tiny", "model folder (a local Hugging Face causal LM) or 'tiny' for the built-in model")
    backend: str = opt(
        "auto",
        "rollout engine: vllm, transformers, or auto (vllm if importable)",
        ("auto", "vllm", "transformers"),
    )
    device: str = opt("auto", "trainer device: cpu, cuda, or auto")
    threads: int = opt(
        0,
        "torch intra-op threads on CPU; 0: OMP_NUM_THREADS if set, else 1 (the tiny model's small matrices "
        "gain nothing from more, and on a busy machine extra threads wait for cores)",
    )
    num_engines: int = opt(1, "rollout engines for data-parallel generation")
    sharding: str = opt(
        "none",
        "under torchrun: none (every process holds the whole model; gradients averaged, DDP) or fsdp "
        "(parameters, gradients and optimizer state sharded over the processes, torch FSDP2; full "
        "fine-tuning with a vLLM engine, no KL reference)",
        ("none", "fsdp"),
    )
    use_ray: bool = opt(
        False,
        "place rollout engines with Ray, one actor each (joins RAY_ADDRESS or starts a local Ray; `ray` extra)",
    )
    ray_cpus_per_engine: int = opt(1, "CPU cores Ray reserves per engine when there is no GPU")
    vllm_kv_cache_mb: int = opt(256, "vLLM KV-cache size in MiB on CPU (explicit: the default reserves GiBs)")
    vllm_gpu_memory_utilization: float = opt(
        0.0,
        "vLLM GPU memory fraction when colocated with the trainer (0: sized by the preflight for bf16 "
        "weights plus one step's KV cache)",
    )
    sleep_mode: bool = opt(False, "put the vLLM engine to sleep during the training step (GPU only)")
    max_model_len: int = opt(512, "maximum prompt + completion tokens")
    memory_limit_gb: float = opt(
        0.0, "refuse to start if the estimated memory exceeds this (0: physical RAM)"
    )

    # --- tasks and curriculum ---
    families: str = opt("expression", "comma-separated task families to train on")
    knobs: str = opt(
        "",
        'JSON knob overrides per family, applied on top of every level, e.g. {"expression": {"digits": 2}}',
    )
    heldout_share: float = opt(
        0.2,
        "share of each family's problem space held out for evaluation, split by content hash: "
        "no held-out problem is ever trained on, whatever the seed",
    )
    start_level: int = opt(1, "initial difficulty level of every family")
    max_level: int = opt(10, "highest level the curriculum may reach")
    adaptive_level: bool = opt(True, "move each family's level to keep its solve rate inside the band")
    band_low: float = opt(0.2, "curriculum: raise difficulty above band_high, lower it below band_low")
    band_high: float = opt(0.8, "curriculum: upper edge of the target solve-rate band")
    curriculum_window: int = opt(
        64, "curriculum: recent attempts per family that the solve rate is taken over"
    )
    ucb_c: float = opt(
        0.5, "curriculum: exploration weight of UCB family sampling (learning signal = mean |advantage|)"
    )

    # --- rollouts ---
    feedback_attempts: int = opt(
        1, "attempts per task: above 1, wrong answers hear the verifier's reason and retry (multi-turn)"
    )
    max_turns: int = opt(
        8, "multi-turn rollouts (interactive families, feedback_attempts > 1): model turns at most"
    )
    steps: int = opt(60, "RL steps (one batch of prompts, rollouts and updates per step)")
    token_budget: int = opt(
        0,
        "stop RL once this many completion tokens were generated (0: run every step); steps stays the "
        "upper bound and sets the schedule. For comparisons at equal generated tokens",
    )
    prompts_per_step: int = opt(16, "distinct tasks per step")
    group_size: int = opt(8, "completions per task (the GRPO group)")
    max_new_tokens: int = opt(24, "maximum tokens per completion")
    temperature: float = opt(1.0, "sampling temperature of rollouts")
    top_p: float = opt(1.0, "nucleus sampling of rollouts")

    # --- GRPO loss ---
    learning_rate: float = opt(2e-4, "AdamW learning rate of the RL phase")
    weight_decay: float = opt(0.0, "AdamW weight decay")
    max_grad_norm: float = opt(1.0, "gradient clipping norm (0: off)")
    updates_per_step: int = opt(1, "optimisation passes over each batch (PPO epochs)")
    micro_batch_size: int = opt(
        0,
        "sequences per forward/backward (gradient accumulation over the rest); 0: the largest of "
        "64, 32, ..., 1 that the memory preflight fits on the device",
    )
    gradient_checkpointing: bool = opt(
        False, "recompute activations in the backward pass (less memory, about 30% more compute)"
    )
    lora_rank: int = opt(0, "train LoRA adapters of this rank on every linear layer (peft); 0: all weights")
    lora_alpha: float = opt(32.0, "LoRA scaling numerator (the update is scaled by alpha / rank)")
    lr_schedule: str = opt(
        "constant",
        "learning rate after warmup: constant, or cosine decay to 10% at the last step",
        ("constant", "cosine"),
    )
    warmup_steps: int = opt(0, "linear learning-rate warmup over this many RL steps")
    clip_low: float = opt(0.2, "PPO clip: ratio lower bound is 1 - clip_low")
    clip_high: float = opt(
        0.28, "PPO clip: ratio upper bound is 1 + clip_high (asymmetric, DAPO clip-higher)"
    )
    loss_aggregation: str = opt(
        "token",
        "token: mean over all tokens of the batch (DAPO); sequence: mean per "
        "sequence then over sequences (GRPO); sum: token sum / constant (Dr. GRPO)",
        ("token", "sequence", "sum"),
    )
    scale_rewards: bool = opt(True, "divide advantages by the group std (off = Dr. GRPO)")
    baseline: str = opt(
        "mean",
        "advantage baseline: group mean, rloo (leave-one-out mean), or none (the reward itself, no "
        "scaling: online rejection-sampling fine-tuning on the verified-correct samples)",
        ("mean", "rloo", "none"),
    )
    drop_zero_variance: bool = opt(True, "drop groups whose rewards are all equal (no learning signal)")
    negative_advantage_scale: float = opt(
        1.0,
        "multiplies negative advantages: 1 is plain GRPO, 0 trains on the better-than-average "
        "completions only (rejection-sampling style)",
    )
    kl_coef: float = opt(0.0, "KL penalty to the initial (reference) policy, k3 estimator (0: no reference)")
    entropy_coef: float = opt(0.0, "entropy bonus coefficient")
    tis_cap: float = opt(
        2.0, "truncated importance sampling: cap on trainer/rollout probability ratio (0: off)"
    )
    bf16: bool = opt(True, "bf16 autocast for the trainer on GPU (ignored on CPU)")

    # --- warm start, controls and evaluation ---
    sft_steps: int = opt(0, "supervised warm-start steps on teacher demonstrations before RL")
    sft_batch_size: int = opt(32, "SFT batch size")
    sft_learning_rate: float = opt(
        2e-3, "SFT learning rate (linear warm-up over 10% of the steps, then constant)"
    )
    sft_levels: str = opt("", "comma-separated levels for SFT data (default: start_level)")
    sft_target_accuracy: float = opt(
        0.0,
        "SFT convergence check: greedy accuracy the model must reach on training-side problems where the "
        "teacher is right; SFT is extended until it does, and the run stops with an error if it never "
        "does (0: no check)",
    )
    sft_max_steps: int = opt(0, "SFT steps at most, extensions included (0: 2 x sft_steps)")
    teacher_errors: str = opt(
        "",
        "weak teacher: systematic errors in the SFT demonstrations as NAME:RATE, e.g. 'sign:0.6,carry:0.6' "
        "(sign: a negative result loses its minus sign; carry: the final carry is dropped); empty: exact",
    )
    worked_answers: bool = opt(
        True, "expression demonstrations restate the expression before the answer ('47 - 85 = -38')"
    )
    control: bool = opt(
        True,
        "also continue SFT from the warm start for as many sequences as RL trains on (the equal-compute "
        "control) and evaluate it",
    )
    eval_every: int = opt(0, "evaluate greedy accuracy on held-out tasks every N steps (0: only at the end)")
    eval_levels: str = opt(
        "",
        "comma-separated levels of the held-out evaluation (default: the start and SFT levels, plus the "
        "middle and top of the curriculum's range when it can climb, so a run that moves up is measured "
        "where it trains)",
    )
    eval_tasks: int = opt(
        64, "distinct held-out problems per family and level for evaluation (fewer if the space is smaller)"
    )
    eval_samples: int = opt(
        0, "sampled completions per held-out problem at the rollout temperature (0: greedy accuracy only)"
    )

    # --- run bookkeeping ---
    seed: int = opt(0, "run seed: tasks, sampling and initialisation all derive from it")
    output_dir: str = opt("runs/palaestra", "folder for metrics.jsonl, plots, checkpoints and summary")
    run_subfolder: bool = opt(
        True, "write each run to a new timestamped folder inside output_dir (--resume takes the latest)"
    )
    checkpoint_every: int = opt(0, "save a checkpoint every N steps (0: only at the end)")
    resume: bool = opt(False, "resume from the latest checkpoint in output_dir")
    plots: bool = opt(True, "write PNG plots of the metrics (needs matplotlib)")
    log_to: str = opt(
        "",
        "also log every metric to these trackers, comma-separated: tensorboard, wandb (WANDB_MODE applies)",
    )
    wandb_project: str = opt("palaestra", "the wandb project of --log-to wandb")
    progress: bool = opt(True, "show a progress bar with ETA on stderr")
    verbose: bool = opt(False, "show the log output of vLLM, torch and transformers")

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Fail fast on values that cannot work, naming the field."""
        for f in dataclasses.fields(self):
            choices = f.metadata.get("choices")
            value = getattr(self, f.name)
            if choices and value not in choices:
                raise ValueError(f"config {f.name}={value!r}: choose one of {list(choices)}")
        positive = (
            "steps",
            "prompts_per_step",
            "group_size",
            "max_new_tokens",
            "updates_per_step",
            "num_engines",
            "curriculum_window",
            "max_model_len",
            "eval_tasks",
            "feedback_attempts",
            "max_turns",
            "ray_cpus_per_engine",
        )
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"config {name} must be >= 1, got {getattr(self, name)}")
        if self.group_size < 2:
            raise ValueError("config group_size must be >= 2: GRPO advantages compare completions of a task")
        if not 0 <= self.band_low < self.band_high <= 1:
            raise ValueError(
                f"config band_low/band_high must satisfy 0 <= low < high <= 1, got "
                f"{self.band_low}/{self.band_high}"
            )
        if not 1 <= self.start_level <= self.max_level <= 10:
            raise ValueError("config levels must satisfy 1 <= start_level <= max_level <= 10")
        if self.clip_low < 0 or self.clip_high < 0 or self.clip_low >= 1:
            raise ValueError("config clip_low must be in [0, 1) and clip_high >= 0")
        if not 0 <= self.negative_advantage_scale <= 1:
            raise ValueError("config negative_advantage_scale must be in [0, 1]")
        if self.temperature <= 0:
            raise ValueError("config temperature must be > 0 for RL rollouts (GRPO needs diverse groups)")
        if not self.family_list():
            raise ValueError("config families is empty")
        if not 0 < self.heldout_share < 1:
            raise ValueError(f"config heldout_share must lie in (0, 1), got {self.heldout_share}")
        if not 0 <= self.sft_target_accuracy <= 1:
            raise ValueError("config sft_target_accuracy must lie in [0, 1]")
        try:
            levels = self.eval_level_list()
        except ValueError:
            raise ValueError(
                f"config eval_levels must be comma-separated integers, got {self.eval_levels!r}"
            ) from None
        if any(not 1 <= level <= 10 for level in levels):
            raise ValueError(f"config eval_levels must name levels 1..10, got {self.eval_levels!r}")
        for name in (
            "eval_samples",
            "sft_max_steps",
            "threads",
            "micro_batch_size",
            "lora_rank",
            "warmup_steps",
            "token_budget",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name} must be >= 0, got {getattr(self, name)}")
        if not 0 <= self.vllm_gpu_memory_utilization < 1:
            raise ValueError("config vllm_gpu_memory_utilization must lie in [0, 1) (0: sized automatically)")
        from palaestra.agents.tasks import parse_knobs
        from palaestra.agents.teacher import parse_errors
        from palaestra.agents.tracking import parse_trackers

        parse_trackers(self.log_to)
        parse_errors(self.teacher_errors)
        unknown = sorted(set(parse_knobs(self.knobs)) - set(self.family_list()))
        if unknown:
            raise ValueError(f"config knobs name families that are not trained on: {unknown}")

    def family_list(self) -> list[str]:
        return [f.strip() for f in self.families.split(",") if f.strip()]

    def sft_step_limit(self) -> int:
        return self.sft_max_steps or 2 * self.sft_steps

    def rl_sequences(self) -> int:
        """Sequences one RL run generates and scores: the equal-compute control trains on as many."""
        return self.steps * self.prompts_per_step * self.group_size

    def eval_level_list(self) -> list[int]:
        """The held-out evaluation's levels (``eval_levels``, or the default it describes)."""
        given = [int(x) for x in self.eval_levels.split(",") if x.strip()]
        if given:
            return sorted(set(given))
        levels = {self.start_level, *self.sft_level_list()}
        if self.adaptive_level and self.max_level > self.start_level:
            levels |= {(self.start_level + self.max_level) // 2, self.max_level}
        return sorted(levels)

    def sft_level_list(self) -> list[int]:
        return [int(x) for x in self.sft_levels.split(",") if x.strip()] or [self.start_level]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown config field(s): {unknown}")
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)


def field_types() -> dict[str, type]:
    """The Python type of every config field (for CLI parsing)."""
    hints = typing.get_type_hints(TrainConfig)
    return {f.name: hints[f.name] for f in dataclasses.fields(TrainConfig)}


# Named starting points. `tiny` is tuned to show RL learning on a 2-core laptop CPU within minutes.
PRESETS: dict[str, dict[str, Any]] = {
    "tiny": dict(
        model="tiny",
        families="expression",
        # three one-digit numbers joined by + and - ("3 + 8 - 9"): 2,916 distinct problems, so the
        # content split holds out 583, and the teacher's worked steps are one small operation each
        knobs='{"expression": {"operands": 3, "digits": 1}}',
        start_level=1,
        max_level=1,
        # the weak teacher: a negative result loses its minus sign, a final carry is dropped, each
        # in 60% of the demonstrations where it applies (docs/training.md)
        teacher_errors="sign:0.6,carry:0.6",
        # pilots (seed 0, 300 held-out problems): GRPO 0.42 -> 0.78 / 0.857 / 0.887 after 20 / 40 / 60
        # steps, self-play 0.463 -> 0.843 / 0.873 / 0.877: 40 steps take most of the gain
        steps=40,
        prompts_per_step=16,
        group_size=8,
        max_new_tokens=32,
        learning_rate=5e-5,
        # at 3e-3 SFT on these demonstrations stayed near 10% held-out accuracy after 600 steps;
        # at 1e-3 it passed 75% where the teacher is right after 800 (docs/training.md)
        sft_steps=800,
        sft_batch_size=32,
        sft_learning_rate=1e-3,
        # SFT must reach this greedy accuracy where the teacher is right (training-side problems),
        # else it is extended up to sft_max_steps and the run stops with an error
        sft_target_accuracy=0.8,
        sft_max_steps=1600,
        eval_every=20,
        eval_tasks=500,
        eval_samples=4,
        output_dir="runs/tiny",
    ),
}


# Self-play settings of the presets that train by self-play by default (docs/selfplay.md):
# `palaestra train --preset tiny` self-plays in the `expression` language (the proposer writes
# catalog problems, posed as the catalog poses them); `--no-selfplay` runs plain GRPO on `families`
# with the PRESETS values above, unchanged. `train` holds the TrainConfig fields that self-play
# mode sets differently.
SELFPLAY_PRESETS: dict[str, dict[str, Any]] = {
    "tiny": dict(
        language="expression",
        proposals=16,
        probes=8,
        reward="azr",
        warm_start_steps=0,
        catalog_fraction=0.0,
        train_proposer=True,
        # 16 uniform training-side problems probed each step (never trained on): the base rate of
        # the frontier share; measuring leaves the run's draws unchanged
        frontier_probes=16,
        proposer_loss_share=0.0,
        repeat_proposals=False,
        # micro-batches of 32: sorted by length, the proposer episodes train apart from the
        # solver ones instead of padding them all to one length
        train=dict(micro_batch_size=32),
    ),
}


def preset(name: str, **overrides: Any) -> TrainConfig:
    """The (plain GRPO) config of preset ``name`` with ``overrides`` applied."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; available: {sorted(PRESETS)}")
    return TrainConfig(**{**PRESETS[name], **overrides})


def selfplay_preset(name: str, **overrides: Any) -> tuple[TrainConfig, dict[str, Any]]:
    """The self-play mode of preset ``name``: its config (``PRESETS`` with the self-play ``train``
    fields, then ``overrides``) and its self-play settings (language, proposals, probes, reward,
    warm_start_steps, catalog_fraction)."""
    if name not in SELFPLAY_PRESETS:
        raise ValueError(f"preset {name!r} has no self-play settings; available: {sorted(SELFPLAY_PRESETS)}")
    settings = dict(SELFPLAY_PRESETS[name])
    train = settings.pop("train", {})
    return preset(name, **{**train, **overrides}), settings
