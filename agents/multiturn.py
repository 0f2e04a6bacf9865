"""Multi-turn rollouts: GRPO groups over palaestra environments, turn by turn.

Each task of a step is played ``group_size`` times in an :class:`~palaestra.envs.pool.EnvPool`
(env steps, and so verification and tool calls, run in threads). Interactive families play
their own game (``InteractiveEnv``); other families become retry-until-solved episodes through
``FeedbackEnv`` (the verifier's reason after a wrong answer). Every turn the backend continues
each live episode's token sequence with one completion; the environment's reply is appended as
chat-template tokens with loss mask 0, so the trainer learns only from tokens the policy wrote
and needs no change. The episode's reward is the sum of the env's rewards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium

from palaestra.agents.backends import Backend, Completion, Sampling
from palaestra.agents.rollout import ChatFormat, Episode
from palaestra.core import Task

TURN_SEED_STRIDE = 1_000_003  # sampling seeds of turn k start at seed + k * stride


def default_env(family: str, *, feedback_attempts: int = 3) -> gymnasium.Env:
    """The family's own game when it is interactive, else a ``FeedbackEnv`` over it."""
    from palaestra.envs.feedback import FeedbackEnv
    from palaestra.registry import get

    spec = get(family)
    if spec.impl.interactive:
        return gymnasium.make(spec.env_id).unwrapped
    return FeedbackEnv(family, max_attempts=feedback_attempts, feedback="reason")


@dataclass
class _Live:
    """One episode being played: its token sequence so far and its chat."""

    group: int
    task: Task
    prompt_ids: list[int]
    messages: list[dict[str, str]]
    ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    reward: float = 0.0
    finish_reason: str = "stop"
    info: dict[str, Any] = field(default_factory=dict)
    done: bool = False

    @property
    def context(self) -> list[int]:
        return self.prompt_ids + self.ids


class MultiTurnRollout:
    """Collects scored multi-turn episodes; a drop-in :class:`~palaestra.agents.rollout.Rollout`.

    Args:
        chat: the chat format (tokenizer with a chat template).
        env_factory: ``family -> env`` (default :func:`default_env`); the env must accept
            ``reset(options={"task": task})``.
        max_turns: model turns per episode at most.
        max_context: tokens an episode may reach; it ends (as truncated) before exceeding it.
    """

    def __init__(
        self,
        chat: ChatFormat,
        env_factory: Callable[[str], gymnasium.Env] | None = None,
        *,
        max_turns: int = 8,
        max_context: int = 512,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be positive, got {max_turns}")
        self.chat = chat
        self.env_factory = env_factory or default_env
        self.max_turns = max_turns
        self.max_context = max_context

    def collect(
        self, backend: Backend, tasks: Sequence[Task], group_size: int, sampling: Sampling
    ) -> list[Episode]:
        from palaestra.envs.pool import EnvPool

        plays = [(g, task) for g, task in enumerate(tasks) for _ in range(group_size)]
        factories = [lambda family=task.family: self.env_factory(family) for _, task in plays]
        with EnvPool(factories, autoreset=False) as pool:
            live = []
            for i, (g, task) in enumerate(plays):
                observation, _ = pool.reset([i], options={"task": task})[i]
                live.append(
                    _Live(g, task, self.chat.prompt_ids(observation), self.chat.messages(observation))
                )
            for turn in range(self.max_turns):
                active = [i for i, ep in enumerate(live) if not ep.done]
                if not active:
                    break
                self._take_turn(backend, pool, live, active, self._turn_sampling(sampling, turn))
            for ep in live:
                if not ep.done:  # out of turns or context
                    ep.finish_reason, ep.done = "length", True
        return [self._episode(ep) for ep in live]

    # ------------------------------------------------------------------------------ one turn

    def _take_turn(
        self, backend: Backend, pool: Any, live: list[_Live], active: list[int], sampling: Sampling
    ) -> None:
        fits = [i for i in active if len(live[i].context) + sampling.max_tokens <= self.max_context]
        for i in set(active) - set(fits):
            live[i].done, live[i].finish_reason = True, "length"
        if not fits:
            return
        groups = backend.generate([live[i].context for i in fits], 1, sampling)
        actions = {}
        for i, (completion,) in zip(fits, groups, strict=True):
            actions[i] = self._add_completion(live[i], completion)
        for i, result in pool.step(actions).items():
            ep = live[i]
            ep.reward += result.reward
            ep.info = result.info
            if result.terminated or result.truncated:
                ep.done = True
                ep.finish_reason = "stop" if result.terminated else "truncated"
            else:
                self._add_observation(ep, result.observation, result.info.get("role", "user"))

    def _add_completion(self, ep: _Live, completion: Completion) -> str:
        ep.ids += completion.token_ids
        ep.mask += [1] * len(completion.token_ids)
        ep.logprobs += completion.logprobs
        text = self.chat.decode(completion.token_ids)
        ep.messages.append({"role": "assistant", "content": text})
        ep.finish_reason = completion.finish_reason
        return text

    def _add_observation(self, ep: _Live, observation: str, role: str) -> None:
        """Append what the chat template puts between the model's last token and its next turn:
        the end of the assistant message the model did not write, the observation message, and
        the generation prompt. All of it is masked 0."""
        before = self._render_text(ep.messages)
        ep.messages.append({"role": role, "content": observation})
        after = self._render_text(ep.messages, generation_prompt=True)
        if not after.startswith(before):
            raise ValueError("the chat template is not prefix-stable; cannot append an observation")
        glue = self._assistant_tail(ep.messages[:-1], before, ep.ids)
        new = self.chat.tokenizer(glue + after[len(before) :], add_special_tokens=False)["input_ids"]
        ep.ids += list(new)
        ep.mask += [0] * len(new)
        ep.logprobs += [0.0] * len(new)

    def _assistant_tail(self, messages: list[dict[str, str]], rendered: str, ids: list[int]) -> str:
        """Template text after the last assistant content that the model has not produced: its
        end-of-turn token when it stopped by length, plus any separator after that token."""
        content = messages[-1]["content"]
        head = self._render_text(messages[:-1], generation_prompt=True)
        rest = rendered[len(head) :] if rendered.startswith(head) else rendered[rendered.rindex(content) :]
        tail = (
            rest[len(content) :] if rest.startswith(content) else rest[rest.rindex(content) + len(content) :]
        )
        stop = ids[-1:] if ids and ids[-1] in self.chat.stop_token_ids else []
        stop_text = self.chat.tokenizer.decode(stop) if stop else ""
        return tail[len(stop_text) :] if stop_text and tail.startswith(stop_text) else tail

    # ------------------------------------------------------------------------------ helpers

    def _render_text(self, messages: list[dict[str, str]], generation_prompt: bool = False) -> str:
        return self.chat.tokenizer.apply_chat_template(
            messages, add_generation_prompt=generation_prompt, tokenize=False
        )

    @staticmethod
    def _turn_sampling(sampling: Sampling, turn: int) -> Sampling:
        seed = None if sampling.seed is None else sampling.seed + turn * TURN_SEED_STRIDE
        return Sampling(**{**sampling.__dict__, "seed": seed})

    def _episode(self, ep: _Live) -> Episode:
        info = ep.info
        correct = bool(
            info.get("correct", False) or info.get("solved", False) or info.get("outcome") == "solved"
        )
        verdict = info.get("verdict")
        format_ok = bool(getattr(verdict, "format_ok", not info.get("invalid", False)))
        return Episode(
            group=ep.group,
            prompt_ids=ep.prompt_ids,
            completion_ids=ep.ids,
            loss_mask=ep.mask,
            rollout_logprobs=ep.logprobs,
            reward=float(ep.reward),
            correct=correct,
            format_ok=format_ok,
            family=ep.task.family,
            level=ep.task.difficulty.level,
            text=self.chat.decode(ep.ids),
            finish_reason=ep.finish_reason,
            info={"turns": sum(1 for m in ep.messages if m["role"] == "assistant")},
        )
