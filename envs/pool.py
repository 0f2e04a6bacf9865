"""A batched pool of text environments for LLM rollouts.

``EnvPool`` steps any subset of its environments at once, in threads, so an environment whose
verification or tool call is slow (the sandbox) does not hold up the others. The answers given
to single-turn and feedback environments in one ``step`` are verified together first, with
:func:`palaestra.verify_many` (worker processes: threads alone gain nothing on CPU-bound
checks, the GIL serialises them). Every episode's
seed comes from one ``SeedSequence`` (env ``i``'s ``k``-th episode uses spawn key ``(i, k)``),
so a pool is reproducible whatever order its environments finish in. With ``autoreset`` an
environment that finishes starts its next episode at once, and the step result keeps the
final observation and info of the one that ended.

Each environment's episode is also recorded as a :class:`Rollout` — chat messages, per-turn
rewards, and, when a tokenizer is given, token ids with an action mask marking model tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np

from palaestra.core import Task

MAX_SEED = 2**63 - 1


@dataclass
class Rollout:
    """One finished episode in the form trainers consume.

    ``messages`` is the chat (system?, user prompt, then assistant/user-or-tool turns);
    ``rewards[k]`` is the reward of the ``k``-th assistant turn. ``token_ids`` and
    ``action_mask`` (1 = a token the model produced) are filled by :func:`tokenize_rollout`.
    """

    env_index: int
    episode: int
    seed: int
    messages: list[dict[str, str]] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    terminated: bool = False
    truncated: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    token_ids: list[int] | None = None
    action_mask: list[int] | None = None

    @property
    def total_reward(self) -> float:
        return float(sum(self.rewards))


@dataclass
class PoolStep:
    """What one environment returned for one action."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    final_observation: str | None = None  # set when the episode ended and the env reset
    final_info: dict[str, Any] | None = None
    rollout: Rollout | None = None  # the finished episode, when it ended


def episode_seed(root_seed: int, env_index: int, episode: int) -> int:
    """The reset seed of env ``env_index``'s ``episode``-th episode (stateless, order-free)."""
    sequence = np.random.SeedSequence(root_seed, spawn_key=(env_index, episode))
    return int(sequence.generate_state(1, dtype=np.uint64)[0] % MAX_SEED)


class EnvPool:
    """Many text environments stepped together.

    Args:
        env: an env id for ``gymnasium.make``, or a list of zero-argument env factories.
        num_envs: how many copies of ``env`` (ignored when factories are given).
        seed: the root seed of every episode of every env.
        autoreset: start a new episode as soon as one ends (final observation kept).
        max_workers: threads stepping envs in parallel (default: ``min(32, num_envs)``).
        verify_workers: ``verify_many``'s worker processes for the answers of one step
            (default: one per available core; ``0``: each env verifies its own answer).
        system_prompt: optional system message at the start of every recorded rollout.
        tool_role: observations whose info has ``"role": "tool"`` are recorded with this role.
        env_kwargs: keyword arguments for ``gymnasium.make``.
    """

    def __init__(
        self,
        env: str | Sequence[Callable[[], gymnasium.Env]],
        num_envs: int | None = None,
        *,
        seed: int = 0,
        autoreset: bool = True,
        max_workers: int | None = None,
        system_prompt: str | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        verify_workers: int | None = None,
    ):
        if isinstance(env, str):
            if num_envs is None or num_envs < 1:
                raise ValueError(f"num_envs must be a positive integer, got {num_envs}")
            kwargs = dict(env_kwargs or {})
            self.envs = [gymnasium.make(env, **kwargs) for _ in range(num_envs)]
        else:
            self.envs = [factory() for factory in env]
            if not self.envs:
                raise ValueError("EnvPool needs at least one environment")
        self.num_envs = len(self.envs)
        self.seed = int(seed)
        self.autoreset = autoreset
        self.system_prompt = system_prompt
        self.verify_workers = verify_workers
        self._episodes = [0] * self.num_envs
        self._rollouts: list[Rollout | None] = [None] * self.num_envs
        self._needs_reset = [True] * self.num_envs
        self._executor = ThreadPoolExecutor(max_workers=max_workers or min(32, self.num_envs))
        self._pending: dict[int, Future[PoolStep]] = {}

    # ---------------------------------------------------------------------------------------

    def reset(
        self, indices: Iterable[int] | None = None, options: dict[str, Any] | None = None
    ) -> dict[int, tuple[str, dict[str, Any]]]:
        """Start a new episode in the given envs (default: all); returns ``{i: (obs, info)}``."""
        targets = list(range(self.num_envs)) if indices is None else self._check_indices(indices)
        return {i: self._reset_one(i, options) for i in targets}

    def _reset_one(self, i: int, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        seed = episode_seed(self.seed, i, self._episodes[i])
        observation, info = self.envs[i].reset(seed=seed, options=options)
        rollout = Rollout(env_index=i, episode=self._episodes[i], seed=seed)
        if self.system_prompt:
            rollout.messages.append({"role": "system", "content": self.system_prompt})
        rollout.messages.append({"role": "user", "content": observation})
        self._rollouts[i] = rollout
        self._episodes[i] += 1
        self._needs_reset[i] = False
        return observation, info

    def step(self, actions: Mapping[int, str]) -> dict[int, PoolStep]:
        """Step the envs named in ``actions`` (any subset) and wait for all of them."""
        self.step_async(actions)
        return self.step_wait()

    def step_async(self, actions: Mapping[int, str]) -> None:
        """Start stepping the given envs in the background; collect with :meth:`step_wait`."""
        indices = self._check_indices(actions)
        for i in indices:
            if i in self._pending:
                raise RuntimeError(f"env {i} is already being stepped")
            if self._needs_reset[i]:
                raise RuntimeError(f"env {i} has no running episode: call reset([{i}]) first")
        if self.verify_workers != 0:
            self._pregrade({i: actions[i] for i in indices})
        for i in indices:
            self._pending[i] = self._executor.submit(self._step_one, i, actions[i])

    def _pregrade(self, actions: Mapping[int, str]) -> None:
        """Verify the answers of single-turn and feedback envs in one ``verify_many`` batch."""
        from palaestra.batch import verify_many
        from palaestra.envs.feedback import FeedbackEnv
        from palaestra.envs.task_env import TaskEnv

        batch: list[tuple[TaskEnv, Task, str]] = []
        for i, action in actions.items():
            env = self.envs[i].unwrapped
            if (
                isinstance(env, TaskEnv)
                and type(env).step in (TaskEnv.step, FeedbackEnv.step)
                and isinstance(action, str)
                and env.task is not None
                and len(action) <= env.max_response_chars
            ):
                batch.append((env, env.task, action))
        if not batch:
            return
        verdicts = verify_many(
            [task for _, task, _ in batch], [a for *_, a in batch], workers=self.verify_workers
        )
        for (env, _, action), verdict in zip(batch, verdicts, strict=True):
            env.pregrade(action, verdict)

    def step_wait(
        self, indices: Iterable[int] | None = None, timeout: float | None = None
    ) -> dict[int, PoolStep]:
        """Results of pending steps (all, or ``indices``); waits up to ``timeout`` seconds each."""
        wanted = list(self._pending) if indices is None else list(indices)
        results = {}
        for i in wanted:
            future = self._pending.pop(i)
            results[i] = future.result(timeout=timeout)
        return results

    def ready(self) -> list[int]:
        """Envs whose pending step has finished (collect them with ``step_wait(indices)``)."""
        return [i for i, future in self._pending.items() if future.done()]

    def _step_one(self, i: int, action: str) -> PoolStep:
        observation, reward, terminated, truncated, info = self.envs[i].step(action)
        rollout = self._rollouts[i]
        assert rollout is not None
        rollout.messages.append({"role": "assistant", "content": action})
        rollout.rewards.append(float(reward))
        result = PoolStep(observation, float(reward), bool(terminated), bool(truncated), info)
        if not (terminated or truncated):
            rollout.messages.append({"role": info.get("role", "user"), "content": observation})
            return result
        rollout.terminated, rollout.truncated, rollout.info = bool(terminated), bool(truncated), info
        result.rollout = rollout
        self._needs_reset[i] = True
        if self.autoreset:
            new_observation, new_info = self._reset_one(i)
            result.final_observation, result.final_info = observation, info
            result.observation, result.info = new_observation, new_info
        return result

    def _check_indices(self, indices: Iterable[int]) -> list[int]:
        checked = list(indices)
        bad = [i for i in checked if not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs]
        if bad:
            raise ValueError(f"env indices must be in 0..{self.num_envs - 1}, got {bad}")
        return [int(i) for i in checked]

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
        for env in self.envs:
            env.close()

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def tokenize_rollout(rollout: Rollout, tokenizer: Any) -> Rollout:
    """Fill ``token_ids`` and ``action_mask`` using the tokenizer's chat template.

    The chat is rendered one message longer at a time; the new tokens belong to the new message.
    Before an assistant message the generation prompt (e.g. ``<|im_start|>assistant``) is
    rendered first and masked 0, so only what the model wrote is marked 1. A template that
    rewrites earlier turns (a longer chat is not an extension of a shorter one) is refused
    rather than mis-masked.
    """
    ids: list[int] = []
    mask: list[int] = []

    def extend(messages: list[dict[str, str]], value: int, generation_prompt: bool = False) -> None:
        rendered = _ids(
            tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=generation_prompt)
        )
        if rendered[: len(ids)] != ids:
            raise ValueError("the chat template is not prefix-stable; cannot build an action mask")
        new = rendered[len(ids) :]
        ids.extend(new)
        mask.extend([value] * len(new))

    for k, message in enumerate(rollout.messages, start=1):
        if message["role"] == "assistant":
            extend(rollout.messages[: k - 1], 0, generation_prompt=True)
            extend(rollout.messages[:k], 1)
        else:
            extend(rollout.messages[:k], 0)
    rollout.token_ids, rollout.action_mask = ids, mask
    return rollout


def _ids(rendered: Any) -> list[int]:
    # transformers returns a list of ids, or a BatchEncoding-like mapping in newer versions
    if isinstance(rendered, Mapping):
        rendered = rendered["input_ids"]
    return [int(t) for t in rendered]
