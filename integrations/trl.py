"""palaestra in TRL: task datasets, verifier reward functions, and a multi-turn tool environment.

    from trl import GRPOConfig, GRPOTrainer
    from palaestra.integrations.trl import task_dataset, palaestra_reward

    dataset = task_dataset(["expression"], n=1000, level=2)
    trainer = GRPOTrainer(model, reward_funcs=[palaestra_reward], train_dataset=dataset, args=GRPOConfig(...))

Each dataset row carries the whole task as JSON in a ``task`` column; TRL passes dataset columns
to reward functions, so :func:`palaestra_reward` rebuilds the task and grades the completion with
its family's exact verifier. Nothing here imports TRL itself: the pieces are plain callables and
classes with the signatures TRL expects, so they also work with other GRPO implementations.

Multi-turn: :class:`PalaestraToolEnv` is an ``environment_factory`` class for TRL's
``GRPOTrainer(environment_factory=...)``: the model calls its ``submit_answer`` tool, gets the
verifier's feedback, may retry (up to ``max_attempts``), and ``get_reward`` returns the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import palaestra
from palaestra.core import Task

TEST_SEED_BASE = 2**40  # test-split seeds; train seeds lie below 2**31 (disjoint, as in the agents)


def task_rows(
    families: Sequence[str],
    n: int,
    *,
    level: int | None = None,
    seed: int = 0,
    split: str = "train",
    system_prompt: str | None = None,
) -> list[dict[str, Any]]:
    """``n`` rows per family in TRL's conversational format plus the task as JSON."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    known = palaestra.families()
    unknown = [f for f in families if f not in known]
    if unknown:
        raise ValueError(f"unknown task famil{'y' if len(unknown) == 1 else 'ies'} {unknown}; known: {known}")
    rng = np.random.default_rng([seed, 0 if split == "train" else 1])
    rows = []
    for family in families:
        for i in range(n):
            task_seed = int(rng.integers(2**31)) if split == "train" else TEST_SEED_BASE + seed * n + i
            task = palaestra.make_task(family, seed=task_seed, level=level)
            messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
            messages.append({"role": "user", "content": task.prompt})
            rows.append(
                {"prompt": messages, "task": task.to_json(), "family": family, "level": task.difficulty.level}
            )
    return rows


def task_dataset(families: Sequence[str], n: int, **kwargs: Any) -> Any:
    """:func:`task_rows` as a ``datasets.Dataset`` (needs the ``datasets`` package)."""
    from datasets import Dataset

    return Dataset.from_list(task_rows(families, n, **kwargs))


def completion_text(completion: Any) -> str:
    """TRL passes a string (standard format) or a list of chat messages (conversational)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    if isinstance(completion, Sequence) and completion:
        # the final assistant message carries the answer
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                return str(message.get("content") or "")
    return ""


def palaestra_reward(completions: list[Any], task: list[str], **kwargs: Any) -> list[float]:
    """TRL reward function: the family verifier's reward for each completion.

    A verifier failure (crash, timeout) scores 0.0 and is never rewarded.
    """
    if len(task) != len(completions):
        raise ValueError(f"{len(completions)} completions but {len(task)} tasks")
    cache: dict[str, Task] = {}
    rewards = []
    for completion, spec in zip(completions, task, strict=True):
        t = cache.get(spec) or cache.setdefault(spec, Task.from_json(spec))
        rewards.append(float(palaestra.verify(t, completion_text(completion)).reward))
    return rewards


def format_reward(completions: list[Any], task: list[str], **kwargs: Any) -> list[float]:
    """1.0 where the verifier could read an answer (right or wrong), else 0.0: a shaping term."""
    rewards = []
    for completion, spec in zip(completions, task, strict=True):
        verdict = palaestra.verify(Task.from_json(spec), completion_text(completion))
        rewards.append(1.0 if verdict.format_ok else 0.0)
    return rewards


def make_reward(families: Sequence[str] | None = None) -> Callable[..., list[float]]:
    """A :func:`palaestra_reward` restricted to ``families`` (returns ``None`` for other rows, which
    TRL excludes from that reward), for runs that mix palaestra with other reward functions."""
    allowed = set(families) if families else None

    def reward(completions: list[Any], task: list[str], **kwargs: Any) -> list[float | None]:
        out: list[float | None] = []
        for completion, spec in zip(completions, task, strict=True):
            t = Task.from_json(spec)
            if allowed is not None and t.family not in allowed:
                out.append(None)
            else:
                out.append(float(palaestra.verify(t, completion_text(completion)).reward))
        return out

    reward.__name__ = "palaestra_" + ("_".join(sorted(allowed)) if allowed else "all")
    return reward


class PalaestraToolEnv:
    """An ``environment_factory`` class for TRL: answer through a tool, get feedback, retry.

    TRL creates one instance per rollout, calls ``reset(**row)`` with the dataset row (which must
    hold the ``task`` column), exposes ``submit_answer`` as a tool to the model and calls
    ``get_reward`` at the end.
    """

    max_attempts = 3

    def __init__(self) -> None:
        self.task: Task | None = None
        self.attempts = 0
        self.reward = 0.0
        self.solved = False

    def reset(self, task: str | None = None, **row: Any) -> str | None:
        if task is None:
            raise ValueError("PalaestraToolEnv needs a 'task' column in the dataset (see task_dataset)")
        self.task = Task.from_json(task)
        self.attempts, self.reward, self.solved = 0, 0.0, False
        return (
            f"Submit your final answer with the submit_answer tool; you have {self.max_attempts} attempts "
            "and get feedback after each."
        )

    def submit_answer(self, answer: str) -> str:
        """Submit an answer to the task and receive the verifier's feedback.

        Args:
            answer: the final answer, written as the task asks (e.g. <answer>42</answer>).

        Returns:
            Whether the answer is correct, or why it is not.
        """
        if self.task is None:
            return "error: no task (reset was not called)"
        if self.solved:
            return "already solved"
        if self.attempts >= self.max_attempts:
            return "no attempts left"
        self.attempts += 1
        text = answer if "<answer>" in answer else f"<answer>{answer}</answer>"
        verdict = palaestra.verify(self.task, text)
        if verdict.correct:
            self.solved = True
            self.reward = float(verdict.reward)
            return "correct"
        left = self.max_attempts - self.attempts
        kind = "wrong" if verdict.format_ok else "unreadable answer"
        return f"{kind} ({verdict.reason}); {left} attempt{'s' if left != 1 else ''} left"

    def get_reward(self) -> float:
        return self.reward
