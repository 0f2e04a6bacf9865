"""GRPO trainer: rollouts through a backend, verifier rewards, clipped policy-gradient updates.

Reads top to bottom: ``GRPOTrainer.train`` = optional SFT warm start, then ``step()`` repeated:

1. the curriculum picks (family, level) per prompt; tasks come from the run's
   :class:`~palaestra.agents.tasks.TaskSpace` with seeds drawn from ``(run seed, step)`` (so a
   resumed run draws exactly what it would have), on the training side of the content split;
2. the rollout collects ``group_size`` completions per task; rewards come from the verifiers;
3. group advantages (mean or RLOO baseline, optional std scaling), zero-variance groups dropped;
4. PPO-clip loss (asymmetric clip), truncated importance weights for the rollout/trainer
   logprob mismatch, optional k3 KL to the reference and entropy bonus, token / sequence / sum
   aggregation with global denominators (so gradient accumulation is exact);
5. the new weights go to the rollout engine with ``sync_weights``.
"""

from __future__ import annotations

import copy
import json
import math
import time
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from palaestra.agents.backends import (
    Backend,
    DataParallelBackend,
    Sampling,
    TransformersBackend,
    cuda_available,
)
from palaestra.agents.config import TrainConfig
from palaestra.agents.curriculum import TrainerCurriculum
from palaestra.agents.distributed import DataParallel
from palaestra.agents.heldout_eval import EvalResult, evaluate
from palaestra.agents.policy import full_weights, load_policy, preflight
from palaestra.agents.rollout import ChatFormat, Episode, Rollout, SingleTurnRollout, prompt_token_budget
from palaestra.agents.tasks import TRAIN_SEED_LIMIT, TaskSpace
from palaestra.agents.teacher import Teacher


def group_advantages(rewards: np.ndarray, baseline: str = "mean", scale: bool = True) -> np.ndarray:
    """Advantages of one group: reward minus the group mean (or leave-one-out mean), optionally
    divided by the group's standard deviation; with ``baseline="none"`` the rewards themselves
    (rejection-sampling fine-tuning: each verified-correct sample is imitated with weight 1)."""
    rewards = np.asarray(rewards, dtype=np.float64)
    if baseline == "none":
        return rewards.copy()
    g = len(rewards)
    if baseline == "rloo":
        adv = rewards - (rewards.sum() - rewards) / (g - 1)
    else:
        adv = rewards - rewards.mean()
    if scale:
        adv = adv / (rewards.std() + 1e-4)
    return adv


def make_backend(config: TrainConfig, path: Path, policy: Any, pad_token_id: int) -> Backend:
    """The rollout engine(s) the config asks for."""
    kind = config.backend
    if kind == "auto":
        try:
            import vllm  # noqa: F401

            kind = "vllm"
        except ImportError:
            kind = "transformers"
    if kind == "transformers":
        if config.num_engines != 1 or config.use_ray:
            raise ValueError("num_engines > 1 and use_ray need backend=vllm")
        # The policy itself generates: no copy, and syncing is free.
        return TransformersBackend(policy, pad_token_id=pad_token_id, batch_size=config.micro_batch_size)
    if config.use_ray:
        from palaestra.agents.ray_engines import ray_engines

        return ray_engines(
            path,
            config.num_engines,
            engine_kwargs=_vllm_engine_kwargs(config),
            use_gpu=cuda_available(),
            cpus_per_engine=config.ray_cpus_per_engine,
            seed=config.seed,
        )
    if config.num_engines > 1 and cuda_available():
        raise ValueError(
            "num_engines > 1 on a GPU needs --use-ray, which gives each engine its own GPU (without Ray "
            "every engine would load onto the trainer's device)"
        )
    engines = [_vllm_engine(config, path, i) for i in range(config.num_engines)]
    return engines[0] if len(engines) == 1 else DataParallelBackend(engines)


def _vllm_engine(config: TrainConfig, path: Path, index: int) -> Backend:
    from palaestra.agents.backends import VLLMBackend

    return VLLMBackend(path, seed=config.seed + index, **_vllm_engine_kwargs(config))


def _vllm_engine_kwargs(config: TrainConfig) -> dict[str, Any]:
    """Engine settings from the config (everything but the model path and the seed)."""
    gpu = cuda_available()
    return dict(
        max_model_len=config.max_model_len,
        dtype="bfloat16" if gpu and config.bf16 else "float32",
        kv_cache_bytes=None if gpu else config.vllm_kv_cache_mb * 2**20,
        gpu_memory_utilization=config.vllm_gpu_memory_utilization if gpu else None,
        enable_sleep_mode=config.sleep_mode and gpu,
        enforce_eager=not gpu,  # CUDA graphs on a GPU; the CPU backend has none
        use_tqdm_on_load=config.verbose,
    )


def make_rollout(config: TrainConfig, chat: ChatFormat) -> Rollout:
    """Single-turn rollouts, or multi-turn ones over envs when a family is interactive or
    ``feedback_attempts > 1``."""
    from palaestra.registry import get

    interactive = any(get(f).impl.interactive for f in config.family_list())
    if not interactive and config.feedback_attempts <= 1:
        return SingleTurnRollout(chat, prompt_token_budget(config.max_model_len, config.max_new_tokens))
    from palaestra.agents.multiturn import MultiTurnRollout, default_env

    def env_factory(family: str) -> Any:
        return default_env(family, feedback_attempts=max(1, config.feedback_attempts))

    return MultiTurnRollout(chat, env_factory, max_turns=config.max_turns, max_context=config.max_model_len)


def check_sharding(config: TrainConfig, backend: Backend | None) -> None:
    """What FSDP sharding supports, refused by name otherwise: every process must run the same
    forward passes in lockstep, which per-process generation by the policy would break."""
    if config.lora_rank:
        raise ValueError("sharding=fsdp trains all weights: use lora_rank=0 (LoRA needs no sharding)")
    if config.kl_coef:
        raise ValueError("sharding=fsdp has no KL reference model yet: use kl_coef=0")
    if backend is None and config.backend == "transformers":
        raise ValueError("sharding=fsdp needs a vLLM engine per process: use backend=vllm")


class GRPOTrainer:
    """The RL loop. ``backend`` and ``rollout`` may be injected (tests, multi-turn, Ray)."""

    def __init__(
        self, config: TrainConfig, *, backend: Backend | None = None, rollout: Rollout | None = None
    ) -> None:
        import torch

        self.config = config
        self.path, self.tokenizer, self.model_config, self.device = preflight(config)
        self.parallel = DataParallel(use_cpu=not self.device.startswith("cuda"), sharding=config.sharding)
        if self.parallel.sharded:
            check_sharding(config, backend)
        if self.parallel.accelerator is not None and self.device.startswith("cuda"):
            self.device = str(self.parallel.accelerator.device)  # one GPU per process
        torch.manual_seed(config.seed)
        self.policy = load_policy(self.path, self.device, config)
        # the model the loss runs through: under a launcher, gradients are averaged over processes
        self.train_model = self.parallel.wrap(self.policy)
        self.chat = ChatFormat(self.tokenizer)
        self.rollout = rollout or make_rollout(config, self.chat)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        self.optimizer = torch.optim.AdamW(
            [p for p in self.policy.parameters() if p.requires_grad],  # LoRA: the adapters only
            lr=config.learning_rate,
            weight_decay=config.weight_decay,
        )
        self.curriculum = TrainerCurriculum(
            config.family_list(),
            start_level=config.start_level,
            max_level=config.max_level,
            band=(config.band_low, config.band_high),
            window=config.curriculum_window,
            ucb_c=config.ucb_c,
            adaptive=config.adaptive_level,
        )
        self.space = TaskSpace.from_config(config)
        self.teacher = Teacher.from_config(config)
        self.reference: Any = None
        self.step_count = 0
        self.generated_tokens = 0  # completion tokens of every rollout so far (the token budget's count)
        self.backend = backend or make_backend(config, self.path, self.policy, self.pad_id)
        self._eval_tasks: dict[tuple[tuple[int, ...], int], list[Any]] = {}
        self.eval_prompts_too_long = 0

    # ------------------------------------------------------------------ reference and sync

    def snapshot_reference(self) -> None:
        """Freeze the current policy as the KL reference (after SFT, before RL)."""
        if self.config.kl_coef > 0:
            self.reference = copy.deepcopy(self.policy).eval()
            for p in self.reference.parameters():
                p.requires_grad_(False)

    def sync(self) -> None:
        self.backend.sync_weights(full_weights(self.policy))

    def learning_rate(self, step: int) -> float:
        """The RL learning rate at ``step`` (1-based): linear warmup over ``warmup_steps``, then
        constant or a cosine decay to 10% at ``steps``. A function of the step alone, so a resumed
        run continues the schedule exactly."""
        cfg = self.config
        if step <= cfg.warmup_steps:
            return cfg.learning_rate * step / cfg.warmup_steps
        if cfg.lr_schedule == "constant":
            return cfg.learning_rate
        progress = min(1.0, (step - cfg.warmup_steps) / max(1, cfg.steps - cfg.warmup_steps))
        return cfg.learning_rate * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))

    # ------------------------------------------------------------------ one RL step

    def step(self) -> dict[str, float]:
        """One GRPO step; returns its metrics."""
        cfg = self.config
        step = self.step_count + 1
        rng = np.random.default_rng([cfg.seed, step])
        t0 = time.perf_counter()
        slots = self.curriculum.sample(rng, cfg.prompts_per_step)
        tasks = [self.space.train_task(f, lvl, rng) for f, lvl in slots]
        sampling = Sampling(
            max_tokens=cfg.max_new_tokens,
            temperature=cfg.temperature,
            top_p=cfg.top_p,
            seed=int(rng.integers(TRAIN_SEED_LIMIT)),
            stop_token_ids=self.chat.stop_token_ids,
        )
        # under a launcher each process rolls out its contiguous share of the step's tasks; request
        # i of the share is seeded as request start + i of the whole step, as one process seeds it
        start, stop = self.parallel.shard(len(tasks))
        shard_sampling = replace(sampling, seed=sampling.seed + start)
        self.backend.wake()
        episodes = self.rollout.collect(self.backend, tasks[start:stop], cfg.group_size, shard_sampling)
        t_rollout = time.perf_counter() - t0
        too_long = int(self.parallel.sum([getattr(self.rollout, "last_prompts_too_long", 0)])[0])
        all_episodes = self.parallel.gather(episodes)
        if not all_episodes:  # every prompt was too long: nothing to learn from, nothing crashed
            self.backend.sleep()
            self.step_count = step
            return {"step": step, "rollout/prompts_too_long": too_long, "train/skipped": 1.0}

        kept, advantages, group_metrics = self._advantages(episodes)
        self.backend.sleep()
        t1 = time.perf_counter()
        any_kept = self.parallel.sum([len(kept)])[0] > 0
        train_metrics = self.update(kept, advantages, sharded=True) if any_kept else {"train/skipped": 1.0}
        t_train = time.perf_counter() - t1
        t2 = time.perf_counter()
        if any_kept:
            self.sync()
        t_sync = time.perf_counter() - t2
        self.step_count = step

        tokens = sum(len(e.completion_ids) for e in episodes)
        self.generated_tokens += int(self.parallel.sum([sum(len(e.completion_ids) for e in all_episodes)])[0])
        metrics = {
            "step": step,
            "rollout/prompts_too_long": too_long,
            "generated_tokens": self.generated_tokens,
        }
        metrics.update(_rollout_metrics(all_episodes))
        metrics.update(group_metrics)
        metrics.update(train_metrics)
        metrics.update(self.curriculum.metrics())
        metrics.update(
            {
                "time/rollout_s": t_rollout,
                "time/train_s": t_train,
                "time/sync_s": t_sync,
                "time/step_s": time.perf_counter() - t0,
                "throughput/rollout_tokens_per_s": tokens / max(t_rollout, 1e-9),
            }
        )
        return metrics

    def _advantages(self, episodes: list[Episode]) -> tuple[list[Episode], list[float], dict[str, float]]:
        cfg = self.config
        groups: dict[int, list[Episode]] = {}
        for e in episodes:
            groups.setdefault(e.group, []).append(e)
        kept: list[Episode] = []
        advantages: list[float] = []
        dropped = 0
        outcomes = []  # (family, level, corrects, signal) per group, for the curriculum
        for members in groups.values():
            rewards = np.array([e.reward for e in members])
            adv = group_advantages(rewards, cfg.baseline, cfg.scale_rewards)
            first = members[0]
            # the curriculum scores the group's signal before negatives are scaled down
            outcomes.append(
                (first.family, first.level, [e.correct for e in members], float(np.abs(adv).mean()))
            )
            if cfg.baseline == "none":  # RFT: only the rewarded samples are trained on
                chosen = [k for k, a in enumerate(adv) if a != 0.0]
                dropped += not chosen
                kept.extend(members[k] for k in chosen)
                advantages.extend(float(adv[k]) for k in chosen)
                continue
            if cfg.drop_zero_variance and rewards.std() == 0:
                dropped += 1
                continue
            kept.extend(members)
            advantages.extend(float(a) for a in np.where(adv < 0, adv * cfg.negative_advantage_scale, adv))
        all_outcomes = self.parallel.gather(outcomes)  # every process's curriculum sees every group
        for family, level, corrects, signal in all_outcomes:
            self.curriculum.update(family, level, corrects, signal)
        dropped = int(self.parallel.sum([dropped])[0])
        return (
            kept,
            advantages,
            {
                "groups/dropped_zero_variance": dropped,
                "groups/kept": len(all_outcomes) - dropped,
            },
        )

    def update(
        self, episodes: Sequence[Episode], advantages: Sequence[float], sharded: bool = False
    ) -> dict[str, float]:
        """Policy-gradient update(s) on one batch; returns loss diagnostics. Under a launcher,
        ``sharded``: ``episodes`` are this process's share; otherwise they are the whole batch (the
        same on every process) and each process trains on its contiguous share of them."""
        import torch

        cfg = self.config
        if not sharded:
            start, stop = self.parallel.shard(len(episodes))
            episodes, advantages = episodes[start:stop], advantages[start:stop]
        n_seq, n_tok = (
            int(x) for x in self.parallel.sum([len(episodes), sum(e.num_policy_tokens for e in episodes)])
        )
        if cfg.loss_aggregation == "token":
            denom = float(max(n_tok, 1))
        elif cfg.loss_aggregation == "sum":
            denom = float(n_seq * cfg.max_new_tokens)
        else:
            denom = float(n_seq)
        local = len(episodes)  # this process's share (all of them in a single process)
        chunks = [
            list(range(i, min(i + cfg.micro_batch_size, local)))
            for i in range(0, local, cfg.micro_batch_size)
        ]
        batches = [self._batch([episodes[i] for i in c], [advantages[i] for i in c]) for c in chunks]
        # sharded, every forward gathers parameters from every process: all run as many
        # micro-batches, a process with fewer filling in empty ones (no gradient)
        count = int(max(self.parallel.gather([len(batches)]))) if self.parallel.sharded else len(batches)
        slots: list[dict[str, Any] | None] = [*batches, *[None] * (count - len(batches))]
        need_old = cfg.updates_per_step > 1
        with torch.no_grad():
            for b in slots:
                if b is None:
                    if need_old:
                        self._empty_forward()
                    continue
                if need_old:
                    b["old"] = self._logprobs(self.policy, b)[0]
                if self.reference is not None:
                    b["ref"] = self._logprobs(self.reference, b)[0]
        sums: dict[str, float] = dict.fromkeys(("loss", "clipped", "entropy", "kl", "tis", "mismatch"), 0.0)
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate(self.step_count + 1)
        self.policy.train()
        for _ in range(cfg.updates_per_step):
            self.optimizer.zero_grad(set_to_none=True)
            for k, b in enumerate(slots):
                # gradients are averaged over processes once, on the last backward of the update
                with self.parallel.no_sync(self.train_model) if k < len(slots) - 1 else nullcontext():
                    if b is None:
                        self._empty_backward()
                        continue
                    loss, stats = self._loss(b, denom)
                    (loss * self.parallel.world).backward()  # the average over processes, undone
                for key, v in stats.items():
                    sums[key] += v
            if not slots and self.parallel.world > 1:
                self._empty_backward()  # this process had no sequences: it joins the all-reduce
            grad_norm = (
                torch.nn.utils.clip_grad_norm_(self.policy.parameters(), cfg.max_grad_norm)
                if cfg.max_grad_norm > 0
                else torch.tensor(0.0)
            )
            if hasattr(grad_norm, "full_tensor"):  # sharded: the norm over every process's shard
                grad_norm = grad_norm.full_tensor()
            sums["grad_norm"] = sums.get("grad_norm", 0.0) + float(grad_norm)
            self.optimizer.step()
        self.policy.eval()
        summed = [key for key in sums if key != "grad_norm"]  # grad norms are already global
        sums.update(zip(summed, self.parallel.sum([sums[key] for key in summed]), strict=True))
        k = cfg.updates_per_step
        tok = max(n_tok, 1) * k
        return {
            "train/loss": sums["loss"] / k,
            "train/grad_norm": sums["grad_norm"] / k,
            "train/clip_frac": sums["clipped"] / tok,
            "train/entropy": sums["entropy"] / tok,
            "train/kl": sums["kl"] / tok,
            "train/tis_weight": sums["tis"] / tok,
            "train/logprob_mismatch": sums["mismatch"] / tok,
            "train/sequences": n_seq,
            "train/learning_rate": self.optimizer.param_groups[0]["lr"],
            "train/tokens": n_tok,
        }

    def _empty_forward(self) -> Any:
        """A one-token forward through the data-parallel model: the collectives of a forward for a
        process that has no micro-batch where the others have one."""
        import torch

        ids = torch.full((1, 1), self.pad_id, dtype=torch.long, device=self.device)
        return self.train_model(input_ids=ids).logits

    def _empty_backward(self) -> None:
        """A backward with zero gradients through the data-parallel model, for a process with no
        sequences in this micro-batch (every process must join each gradient reduction)."""
        (self._empty_forward().sum() * 0.0).backward()

    def _batch(self, episodes: Sequence[Episode], advantages: Sequence[float]) -> dict[str, Any]:
        """Right-padded tensors; position t of the ``*_t`` tensors scores token t + 1."""
        import torch

        seqs = [e.prompt_ids + e.completion_ids for e in episodes]
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), self.pad_id, dtype=torch.long)
        attn = torch.zeros((len(seqs), width), dtype=torch.long)
        mask = torch.zeros((len(seqs), width - 1))
        rollout_lp = torch.zeros((len(seqs), width - 1))
        for j, (e, s) in enumerate(zip(episodes, seqs, strict=True)):
            ids[j, : len(s)] = torch.tensor(s)
            attn[j, : len(s)] = 1
            start = len(e.prompt_ids) - 1
            n = len(e.completion_ids)
            mask[j, start : start + n] = torch.tensor(e.loss_mask, dtype=torch.float32)
            rollout_lp[j, start : start + n] = torch.tensor(e.rollout_logprobs, dtype=torch.float32)
        dev = self.device
        return {
            "ids": ids.to(dev),
            "attn": attn.to(dev),
            "mask": mask.to(dev),
            "rollout": rollout_lp.to(dev),
            "adv": torch.tensor(advantages, dtype=torch.float32, device=dev),
        }

    def _autocast(self) -> Any:
        import torch

        if self.config.bf16 and self.device.startswith("cuda"):
            return torch.autocast("cuda", dtype=torch.bfloat16)
        return nullcontext()

    def _logprobs(self, model: Any, b: dict[str, Any]) -> tuple[Any, Any]:
        """Per-token logprobs of the sequence under ``model`` at the rollout temperature, and the
        per-position entropy."""
        import torch

        with self._autocast():
            logits = model(input_ids=b["ids"], attention_mask=b["attn"]).logits[:, :-1]
        logp = torch.log_softmax(logits.float() / self.config.temperature, dim=-1)
        token_lp = logp.gather(-1, b["ids"][:, 1:, None])[..., 0]
        entropy = -(logp.exp() * logp).sum(-1)
        return token_lp, entropy

    def _loss(self, b: dict[str, Any], denom: float) -> tuple[Any, dict[str, float]]:
        import torch

        cfg = self.config
        new, entropy = self._logprobs(self.train_model, b)
        old = b.get("old", new.detach())
        mask, adv = b["mask"], b["adv"][:, None]
        ratio = torch.exp(new - old)
        clipped_ratio = ratio.clamp(1 - cfg.clip_low, 1 + cfg.clip_high)
        pg = -torch.minimum(ratio * adv, clipped_ratio * adv)
        # Truncated importance sampling: the rollout engine's distribution differs slightly from
        # the trainer's (kernels, precision); reweight by min(pi_old / pi_rollout, cap).
        if cfg.tis_cap > 0:
            tis = torch.exp(old - b["rollout"]).clamp(max=cfg.tis_cap).detach()
        else:
            tis = torch.ones_like(new)
        per_token = pg * tis
        kl = torch.zeros_like(new)
        if "ref" in b:
            d = b["ref"] - new
            kl = torch.exp(d) - d - 1
            per_token = per_token + cfg.kl_coef * kl
        if cfg.entropy_coef:
            per_token = per_token - cfg.entropy_coef * entropy
        masked = per_token * mask
        if cfg.loss_aggregation == "sequence":
            loss = (masked.sum(1) / mask.sum(1).clamp(min=1)).sum() / denom
        else:
            loss = masked.sum() / denom
        with torch.no_grad():
            stats = {
                "loss": float(loss),
                "clipped": float(((ratio - clipped_ratio).abs() > 0).float().mul(mask).sum()),
                "entropy": float((entropy * mask).sum()),
                "kl": float((kl * mask).sum()),
                "tis": float((tis * mask).sum()),
                "mismatch": float(((old - b["rollout"]).abs() * mask).sum()),
            }
        return loss, stats

    # ------------------------------------------------------------------ evaluation

    def eval_levels(self) -> list[int]:
        return self.config.eval_level_list()

    def eval_tasks(self, levels: Sequence[int] | None = None, n: int | None = None) -> list[Any]:
        """The held-out problems (built once per set of levels and size)."""
        key = (tuple(levels or self.eval_levels()), n or self.config.eval_tasks)
        if key not in self._eval_tasks:
            budget = prompt_token_budget(self.config.max_model_len, self.config.max_new_tokens)
            tasks = self.space.eval_set(*key)
            kept = [t for t in tasks if len(self.chat.prompt_ids(t.prompt)) <= budget]
            self.eval_prompts_too_long = len(tasks) - len(kept)  # counted in every eval row
            if not kept:
                raise ValueError(
                    f"every held-out problem's prompt is longer than max_model_len - max_new_tokens = "
                    f"{budget} tokens: raise max_model_len"
                )
            self._eval_tasks[key] = kept
        return self._eval_tasks[key]

    def evaluate_full(
        self,
        levels: Sequence[int] | None = None,
        n: int | None = None,
        progress: Any = None,
        samples: int | None = None,
    ) -> EvalResult:
        """Greedy (and sampled, ``eval_samples`` unless ``samples`` says otherwise) accuracy on the
        held-out problems, per subset."""
        cfg = self.config
        tasks = self.eval_tasks(levels, n)
        result = evaluate(
            self.backend,
            self.chat,
            tasks,
            max_tokens=cfg.max_new_tokens,
            samples=cfg.eval_samples if samples is None else samples,
            temperature=cfg.temperature,
            subset=self.teacher.subset,
            progress=progress,
        )
        result.metrics["eval/prompts_too_long"] = float(self.eval_prompts_too_long)
        return result

    def evaluate(
        self, levels: Sequence[int] | None = None, n: int | None = None, samples: int | None = None
    ) -> dict[str, float]:
        """The ``eval/...`` metrics of :meth:`evaluate_full`."""
        return self.evaluate_full(levels, n, samples=samples).metrics


def _rollout_metrics(episodes: Sequence[Episode]) -> dict[str, float]:
    out = {
        "rollout/reward": float(np.mean([e.reward for e in episodes])),
        "rollout/solve_rate": float(np.mean([e.correct for e in episodes])),
        "rollout/format_rate": float(np.mean([e.format_ok for e in episodes])),
        "rollout/response_tokens": float(np.mean([len(e.completion_ids) for e in episodes])),
        "rollout/truncated_rate": float(np.mean([e.finish_reason == "length" for e in episodes])),
    }
    by: dict[tuple[str, Any], list[bool]] = {}
    for e in episodes:
        by.setdefault((e.family, None), []).append(e.correct)
        by.setdefault((e.family, e.level), []).append(e.correct)
    for (family, level), outcomes in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0)):
        key = f"solve/{family}" if level is None else f"solve/{family}/L{level}"
        out[key] = float(np.mean(outcomes))
    return out


def write_jsonl(path: Path, row: dict[str, Any]) -> None:
    with path.open("a") as fh:
        fh.write(json.dumps(row, sort_keys=True, allow_nan=True) + "\n")
