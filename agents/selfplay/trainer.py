"""``SelfPlayLoop``: self-play on top of the GRPO trainer's backend and update.

One model plays both roles. The proposer and solver prompts go through the trainer's
``ChatFormat`` and token-level ``Backend.generate``; every completion's token ids and rollout
logprobs are kept so that the proposer samples and the solver samples (the probe attempts, reused)
become trainer ``Episode``s with their self-play advantages, applied by ``GRPOTrainer.update``;
then the new weights go to the engine with ``sync``. Nothing here imports torch: any object with
``config``, ``chat``, ``backend``, ``update(episodes, advantages)`` and ``sync()`` drives it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from palaestra.agents.backends import Sampling
from palaestra.agents.rollout import Episode, prompt_token_budget

from .loop import Sample, SelfPlay, StepResult

SEED_LIMIT = 2**31


class BackendPolicy:
    """A :class:`~palaestra.agents.selfplay.loop.Policy` over the trainer's chat format and
    backend that remembers every completion's tokens for the update."""

    def __init__(self, chat: Any, backend: Any, max_tokens: int, seed: int = 0) -> None:
        self.chat, self.backend, self.max_tokens = chat, backend, max_tokens
        self.rng = np.random.default_rng(seed)
        self.tokens: dict[tuple[str, str], list[tuple[list[int], Any]]] = {}
        self.generated_tokens = 0  # every completion token sampled for the run (not measurements)

    def generate(self, prompts: Sequence[str], n: int, temperature: float) -> list[list[str]]:
        """``n`` completions per prompt in one engine call (one seed for the call)."""
        return self._generate(prompts, n, temperature, seed=int(self.rng.integers(SEED_LIMIT)))

    def generate_each(
        self, prompts: Sequence[str], n: int, temperature: float, seeds: Sequence[int] | None = None
    ) -> list[list[str]]:
        """The same completions as one :meth:`generate` call per prompt, in order (one seed each),
        from a single engine call: a step's probes in one batch, sampled as they were one by one.
        ``seeds`` given, the call is a measurement: sampled from those seeds, with the policy's own
        stream, its token count and its stored tokens left as they were (nothing to train on)."""
        if not prompts:
            return []
        if seeds is not None:
            return self._generate(prompts, n, temperature, seeds=tuple(seeds), measurement=True)
        own = tuple(int(self.rng.integers(SEED_LIMIT)) for _ in prompts)
        return self._generate(prompts, n, temperature, seeds=own)

    def _generate(
        self,
        prompts: Sequence[str],
        n: int,
        temperature: float,
        seed: int | None = None,
        seeds: tuple[int, ...] | None = None,
        measurement: bool = False,
    ) -> list[list[str]]:
        ids = [self.chat.prompt_ids(p) for p in prompts]
        sampling = Sampling(
            max_tokens=self.max_tokens,
            temperature=temperature,
            seed=seed,
            seeds=seeds,
            stop_token_ids=tuple(self.chat.stop_token_ids),
        )
        out = []
        for prompt, prompt_ids, group in zip(
            prompts, ids, self.backend.generate(ids, n, sampling), strict=True
        ):
            texts = []
            for completion in group:
                text = self.chat.decode(completion.token_ids)
                if not measurement:
                    self.tokens.setdefault((prompt, text), []).append((prompt_ids, completion))
                    self.generated_tokens += len(completion.token_ids)
                texts.append(text)
            out.append(texts)
        return out

    def episode(self, sample: Sample, group: int) -> Episode | None:
        """The trainer episode of one self-play sample (None if it was not generated here)."""
        stored = self.tokens.get((sample.prompt, sample.completion))
        if not stored:
            return None
        prompt_ids, completion = stored.pop(0)
        return Episode(
            group=group,
            prompt_ids=list(prompt_ids),
            completion_ids=list(completion.token_ids),
            loss_mask=[1] * len(completion.token_ids),
            rollout_logprobs=list(completion.logprobs),
            reward=sample.reward,
            correct=sample.reward >= 1.0,
            format_ok=True,
            family=f"selfplay/{sample.role}/{sample.task_type}",
            level=None,
            text=sample.completion,
            finish_reason=completion.finish_reason,
            info={"source": sample.source},
        )

    def clear(self) -> None:
        self.tokens.clear()


class SelfPlayLoop:
    """Drives :class:`SelfPlay` steps through a trainer (``GRPOTrainer`` or a stand-in)."""

    def __init__(self, trainer: Any, selfplay: SelfPlay, max_tokens: int | None = None) -> None:
        self.trainer = trainer
        self.selfplay = selfplay
        tokens = max_tokens or getattr(trainer.config, "max_new_tokens", 128)
        self.policy = BackendPolicy(trainer.chat, trainer.backend, tokens, seed=selfplay.config.seed)
        if selfplay.catalog is not None:  # the catalog mix trains on the run's training side only
            selfplay.catalog.space = getattr(trainer, "space", None)
        max_model_len = getattr(trainer.config, "max_model_len", None)
        if max_model_len is not None:
            self._guard_prompt_length(prompt_token_budget(max_model_len, tokens))

    def _guard_prompt_length(self, budget: int) -> None:
        """Refuse proposals whose solver prompt is too long (a counted gate reason, never a vLLM
        error mid-run), and refuse to start if a proposer prompt without examples cannot fit."""
        chat = self.trainer.chat

        def fits(prompt: str) -> bool:
            return len(chat.prompt_ids(prompt)) <= budget

        language = self.selfplay.language
        for task_type in language.task_types:
            bare = len(chat.prompt_ids(language.proposer_prompt(task_type, [])))
            if bare > budget:
                raise ValueError(
                    f"the {language.name} proposer prompt ({task_type}) is {bare} tokens, but "
                    f"max_model_len - max_new_tokens leaves {budget}: raise --max-model-len to at least "
                    f"{bare + (self.policy.max_tokens)}"
                )
        self.selfplay.gate.prompt_fits = fits

    def _balance_roles(self, episodes: list[Episode], advantages: list[float]) -> float:
        """Scale the proposer's advantages (in place) so that its episodes carry
        ``proposer_loss_share`` of the update's loss weight, counted as the trainer aggregates
        (tokens, or sequences); the scale used (1.0: unchanged)."""
        share = self.selfplay.config.proposer_loss_share
        per_sequence = getattr(self.trainer.config, "loss_aggregation", "token") == "sequence"
        weight = {"proposer": 0.0, "solver": 0.0}
        for episode in episodes:
            weight[_role(episode)] += 1.0 if per_sequence else len(episode.completion_ids)
        if not share or not weight["proposer"] or not weight["solver"]:
            return 1.0
        scale = share / (1.0 - share) * weight["solver"] / weight["proposer"]
        for k, episode in enumerate(episodes):
            if _role(episode) == "proposer":
                advantages[k] *= scale
        return scale

    def step(self) -> tuple[StepResult, dict[str, Any]]:
        """One self-play step, one policy update on proposer + solver samples, one weight sync."""
        self.policy.clear()
        if hasattr(self.trainer.backend, "wake"):
            self.trainer.backend.wake()
        result = self.selfplay.step(self.policy, self.policy)
        if hasattr(self.trainer.backend, "sleep"):
            self.trainer.backend.sleep()
        episodes, advantages = [], []
        train_proposer = self.selfplay.config.train_proposer
        for group, sample in enumerate(result.proposer + result.solver):
            episode = self.policy.episode(sample, group)
            # zero advantage: no gradient; the frozen-proposer ablation trains on solving only
            if (
                episode is not None
                and sample.advantage != 0.0
                and (train_proposer or sample.role == "solver")
            ):
                episodes.append(episode)
                advantages.append(sample.advantage)
        metrics: dict[str, Any] = dict(result.metrics)
        metrics["generated_tokens"] = self.policy.generated_tokens
        metrics["proposer_loss_scale"] = self._balance_roles(episodes, advantages)
        if episodes:
            # shortest first: micro-batches of similar length (proposer prompts are ~4x longer
            # than solver prompts) pad far less; the loss uses global denominators, so order
            # does not change it
            order = sorted(
                range(len(episodes)),
                key=lambda i: len(episodes[i].prompt_ids) + len(episodes[i].completion_ids),
            )
            episodes, advantages = [episodes[i] for i in order], [advantages[i] for i in order]
            metrics.update(self.trainer.update(episodes, advantages))
            self.trainer.sync()
        metrics["train/episodes"] = len(episodes)
        return result, metrics


def _role(episode: Episode) -> str:
    return "proposer" if episode.family.startswith("selfplay/proposer/") else "solver"
