"""Rollouts: turn tasks into scored token-level episodes through a :class:`Backend`.

An :class:`Episode` is what the trainer consumes: the prompt tokens, the tokens after the prompt,
a loss mask saying which of those the policy generated, the rollout engine's logprobs of them and
a reward that comes from a palaestra verifier. Single-turn rollouts fill the mask with ones; a
multi-turn rollout (over the envs' ``EnvPool``) appends environment observations with mask 0 and
the env's reward, and the trainer needs no change. Any object with the :class:`Rollout` method
``collect`` plugs in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from palaestra.agents.backends import Backend, Sampling
from palaestra.core import Task


@dataclass
class Episode:
    """One scored trajectory of a GRPO group."""

    group: int
    prompt_ids: list[int]
    completion_ids: list[int]
    loss_mask: list[int]
    rollout_logprobs: list[float]
    reward: float
    correct: bool
    format_ok: bool
    family: str
    level: int | None
    text: str = ""
    finish_reason: str = "stop"
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def num_policy_tokens(self) -> int:
        return sum(self.loss_mask)


class ChatFormat:
    """Renders a task prompt with the tokenizer's chat template and decodes completions."""

    def __init__(self, tokenizer: Any, system_prompt: str | None = None) -> None:
        if not getattr(tokenizer, "chat_template", None):
            raise ValueError(
                "the tokenizer has no chat template; set tokenizer.chat_template (a Jinja string) "
                "or use an instruction-tuned model's tokenizer"
            )
        self.tokenizer = tokenizer
        self.system_prompt = system_prompt
        self.eos_token_id = tokenizer.eos_token_id
        self.stop_token_ids = tuple(sorted({tokenizer.eos_token_id} - {None}))

    def messages(self, prompt: str) -> list[dict[str, str]]:
        msgs = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return msgs + [{"role": "user", "content": prompt}]

    def prompt_ids(self, prompt: str) -> list[int]:
        text = self.tokenizer.apply_chat_template(
            self.messages(prompt), add_generation_prompt=True, tokenize=False
        )
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def response_ids(self, response: str) -> list[int]:
        """Tokens of a reference response followed by the stop token (for SFT)."""
        ids = list(self.tokenizer(response, add_special_tokens=False)["input_ids"])
        return ids + [self.eos_token_id]

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=True)


class Rollout(Protocol):
    """Collects ``group_size`` scored episodes per task."""

    def collect(
        self, backend: Backend, tasks: Sequence[Task], group_size: int, sampling: Sampling
    ) -> list[Episode]: ...


def prompt_token_budget(max_model_len: int, max_new_tokens: int) -> int:
    """The most prompt tokens that leave room for ``max_new_tokens`` inside ``max_model_len``: a
    longer prompt makes vLLM raise (measured: 530 > 512), so it is refused before generation."""
    return max_model_len - max_new_tokens


class SingleTurnRollout:
    """One prompt, one completion, one verdict per episode. Tasks whose prompt exceeds
    ``max_prompt_tokens`` get no episodes; ``last_prompts_too_long`` counts them per ``collect``."""

    def __init__(self, chat: ChatFormat, max_prompt_tokens: int | None = None) -> None:
        self.chat = chat
        self.max_prompt_tokens = max_prompt_tokens
        self.last_prompts_too_long = 0

    def collect(
        self, backend: Backend, tasks: Sequence[Task], group_size: int, sampling: Sampling
    ) -> list[Episode]:
        import palaestra

        if not sampling.stop_token_ids:
            sampling = Sampling(**{**sampling.__dict__, "stop_token_ids": self.chat.stop_token_ids})
        prompts = [self.chat.prompt_ids(t.prompt) for t in tasks]
        if self.max_prompt_tokens is not None:
            fits = [len(p) <= self.max_prompt_tokens for p in prompts]
            self.last_prompts_too_long = fits.count(False)
            tasks = [t for t, ok in zip(tasks, fits, strict=True) if ok]
            prompts = [p for p, ok in zip(prompts, fits, strict=True) if ok]
        if not tasks:
            return []
        groups = backend.generate(prompts, group_size, sampling)
        texts = [[self.chat.decode(c.token_ids) for c in completions] for completions in groups]
        # the whole step's responses at once: worker processes, concurrent sandbox programs
        verdicts = iter(
            palaestra.verify_many(
                [task for task, group in zip(tasks, texts, strict=True) for _ in group],
                [text for group in texts for text in group],
            )
        )
        episodes = []
        for g, (task, prompt, completions) in enumerate(zip(tasks, prompts, groups, strict=True)):
            for c, text in zip(completions, texts[g], strict=True):
                verdict = next(verdicts)
                episodes.append(
                    Episode(
                        group=g,
                        prompt_ids=prompt,
                        completion_ids=list(c.token_ids),
                        loss_mask=[1] * len(c.token_ids),
                        rollout_logprobs=list(c.logprobs),
                        reward=float(verdict.reward),
                        correct=bool(verdict.correct),
                        format_ok=bool(verdict.format_ok),
                        family=task.family,
                        level=task.difficulty.level,
                        text=text,
                        finish_reason=c.finish_reason,
                    )
                )
        return episodes
