"""palaestra in TRL: task datasets, verifier reward functions, and multi-turn environments.

    from trl import GRPOConfig, GRPOTrainer
    from palaestra.integrations.trl import task_dataset, palaestra_reward

    dataset = task_dataset(["expression"], n=1000, level=2)
    trainer = GRPOTrainer(model, reward_funcs=[palaestra_reward], train_dataset=dataset, args=GRPOConfig(...))

Rows have the columns of ``palaestra export`` (a conversational ``prompt``, and the whole task
record in ``extra_info``), so an exported dataset and :func:`task_dataset` feed the same reward
functions; TRL passes dataset columns to reward functions as keyword lists. Nothing here imports
TRL itself: the pieces are plain callables and classes with the signatures TRL expects.

Multi-turn: :class:`PalaestraToolEnv` (answer through a ``submit_answer`` tool, get the
verifier's feedback, retry) and :class:`PalaestraGameEnv` (play a game move by move through a
``move`` tool) are ``environment_factory`` classes for ``GRPOTrainer(environment_factory=...)``.
TRL needs a chat template that renders tool calls: :func:`use_tool_chat_template` gives a
tokenizer TRL's own Qwen template when its template cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import palaestra
from palaestra.core import Task
from palaestra.integrations._common import retry_feedback, tagged_answer, verify_batch
from palaestra.rows import (
    TEST_SHARE,
    completion_text,
    dedup_key,
    is_test_content,
    task_from_record,
    task_to_row,
    tasks_from_columns,
)

__all__ = [
    "PalaestraGameEnv",
    "PalaestraToolEnv",
    "completion_text",
    "curriculum_dataset",
    "curriculum_reward",
    "format_reward",
    "game_dataset",
    "game_env_factory",
    "game_rows",
    "make_reward",
    "palaestra_reward",
    "split_of",
    "task_dataset",
    "task_rows",
    "use_tool_chat_template",
]

SPLITS = ("train", "test")
TEST_BUCKETS = round(1 / TEST_SHARE)  # about one task in this many is test content


def split_of(task: Task) -> str:
    """The split a task belongs to, decided by its content alone (palaestra's one split,
    :func:`palaestra.rows.is_test_content`): the same task is never in both, and a test task is
    held out by ``palaestra train`` too."""
    return "test" if is_test_content(task) else "train"


def task_rows(
    families: Sequence[str],
    n: int,
    *,
    level: int | None = None,
    seed: int = 0,
    split: str = "train",
    system_prompt: str | None = None,
) -> list[dict[str, Any]]:
    """``n`` distinct tasks per family as rows with the columns of ``palaestra export``.

    Splits are disjoint by content (a task's split is a function of its canonical hash, so no
    test task can appear in any train call), rows never repeat a task, and the rows for ``n``
    are the first ``n`` of the rows for any larger ``n``. A family-level with fewer distinct
    tasks than asked for raises ``ValueError`` instead of padding with copies.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    known = palaestra.families()
    unknown = [f for f in families if f not in known]
    if unknown:
        raise ValueError(f"unknown task famil{'y' if len(unknown) == 1 else 'ies'} {unknown}; known: {known}")
    rows = []
    for family in families:
        for task in _distinct_tasks(family, n, level, seed, split):
            rows.append(task_to_row(task, split, system_prompt))
    return rows


def _distinct_tasks(family: str, n: int, level: int | None, seed: int, split: str) -> list[Task]:
    # One candidate stream per (seed, family), shared by both splits: each split keeps the
    # candidates whose content hashes into it, so neither split's rows depend on the other's n.
    stream = np.random.SeedSequence([seed, *family.encode()])
    rng = np.random.default_rng(stream)
    kept: list[Task] = []
    seen: set[str] = set()
    budget = TEST_BUCKETS * (3 * n + 64) if split == "test" else 3 * n + 64
    for _ in range(budget):
        if len(kept) == n:
            return kept
        task = palaestra.make_task(family, seed=int(rng.integers(2**62)), level=level)
        key = dedup_key(task)
        if key not in seen and split_of(task) == split:
            seen.add(key)
            kept.append(task)
    if len(kept) == n:
        return kept
    raise ValueError(
        f"{family} at level {level} gave only {len(kept)} distinct {split} tasks in {budget} draws; "
        f"ask for fewer rows or a higher level (it has too few distinct tasks for {n})"
    )


def task_dataset(families: Sequence[str], n: int, **kwargs: Any) -> Any:
    """:func:`task_rows` as a ``datasets.Dataset`` (needs the ``datasets`` package)."""
    from datasets import Dataset

    from palaestra.rows import features

    return Dataset.from_list(task_rows(families, n, **kwargs), features=features())


def palaestra_reward(completions: list[Any], **columns: Any) -> list[float]:
    """TRL reward function: the family verifier's reward for each completion.

    Reads the task from the rows' ``extra_info`` (or an older ``task`` column); a batch without
    either raises ``ValueError``. A verifier failure (crash, timeout) scores 0.0, never 1.0.
    """
    tasks = tasks_from_columns(columns, len(completions))
    verdicts = verify_batch(tasks, [completion_text(c) for c in completions])
    return [float(v.reward) for v in verdicts]


def format_reward(completions: list[Any], **columns: Any) -> list[float]:
    """1.0 where the verifier could read an answer (right or wrong), else 0.0: a shaping term."""
    tasks = tasks_from_columns(columns, len(completions))
    verdicts = verify_batch(tasks, [completion_text(c) for c in completions])
    return [1.0 if v.format_ok else 0.0 for v in verdicts]


def make_reward(families: Sequence[str] | None = None) -> Callable[..., list[float | None]]:
    """A :func:`palaestra_reward` restricted to ``families`` (returns ``None`` for other rows, which
    TRL excludes from that reward), for runs that mix palaestra with other reward functions."""
    allowed = set(families) if families else None

    def reward(completions: list[Any], **columns: Any) -> list[float | None]:
        tasks = tasks_from_columns(columns, len(completions))
        mine = [i for i, t in enumerate(tasks) if allowed is None or t.family in allowed]
        verdicts = verify_batch([tasks[i] for i in mine], [completion_text(completions[i]) for i in mine])
        out: list[float | None] = [None] * len(tasks)
        for i, verdict in zip(mine, verdicts, strict=True):
            out[i] = float(verdict.reward)
        return out

    reward.__name__ = "palaestra_" + ("_".join(sorted(allowed)) if allowed else "all")
    return reward


# --------------------------------------------------------------------------------------------
# Adaptive difficulty: a palaestra.curriculum.Curriculum driving a TRL run
# --------------------------------------------------------------------------------------------


_CURRICULA: dict[int, Any] = {}  # datasets pickles a stream's generator: it gets a key, not the object


def curriculum_dataset(curriculum: Any, system_prompt: str | None = None) -> Any:
    """An endless ``datasets.IterableDataset`` of rows drawn by ``curriculum.next_task()``.

    Give TRL ``max_steps`` (the stream has no length) and ``shuffle_dataset=False`` (a shuffle
    buffer would draw a thousand rows ahead, at the levels of the past).
    """
    from datasets import IterableDataset

    from palaestra.rows import features

    _CURRICULA[id(curriculum)] = curriculum
    kwargs = {"key": id(curriculum), "system_prompt": system_prompt}
    return IterableDataset.from_generator(_curriculum_rows, features=features(), gen_kwargs=kwargs)


def _curriculum_rows(key: int, system_prompt: str | None) -> Any:
    curriculum = _CURRICULA[key]
    while True:
        yield task_to_row(curriculum.next_task(), "train", system_prompt)


def curriculum_reward(
    curriculum: Any, reward: Callable[..., list[float]] | None = None
) -> Callable[..., list[float]]:
    """``reward`` (default :func:`palaestra_reward`) that also records every graded completion in
    ``curriculum``, so its levels follow the policy's solve rate."""
    grade = reward or palaestra_reward

    def recorded(completions: list[Any], **columns: Any) -> list[float]:
        rewards = grade(completions, **columns)
        curriculum.record_batch(tasks_from_columns(columns, len(completions)), rewards)
        return rewards

    recorded.__name__ = getattr(grade, "__name__", "palaestra_reward")
    return recorded


# --------------------------------------------------------------------------------------------
# Multi-turn: environment_factory classes
# --------------------------------------------------------------------------------------------


def _row_task(row: dict[str, Any]) -> Task:
    for name in ("extra_info", "task"):
        if row.get(name) is not None:
            return task_from_record(row[name])
    raise ValueError("the dataset rows need the task record: use task_dataset or a palaestra export")


class PalaestraToolEnv:
    """An ``environment_factory`` class for TRL: answer through a tool, get feedback, retry.

    TRL creates instances, calls ``reset(**row)`` with each dataset row (a row of
    :func:`task_dataset` or of an export), exposes ``submit_answer`` as a tool to the model and
    calls ``get_reward`` at the end of the rollout: the verifier's reward of the first correct
    submission, else 0.0.
    """

    max_attempts = 3

    def __init__(self) -> None:
        self.task: Task | None = None
        self.attempts = 0
        self.reward = 0.0
        self.solved = False

    def reset(self, **row: Any) -> str | None:
        self.task = _row_task(row)
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
        verdict = palaestra.verify(self.task, tagged_answer(answer))
        if verdict.correct:
            self.solved = True
            self.reward = float(verdict.reward)
            return "correct"
        return retry_feedback(verdict, self.max_attempts - self.attempts)

    def get_reward(self) -> float:
        return self.reward


class PalaestraGameEnv:
    """An ``environment_factory`` class for TRL over a Gymnasium env played move by move.

    Set ``env_id`` on a subclass (or use :func:`game_env_factory`) to any palaestra id: a game
    (``palaestra/Nim-v0``), an interactive family (``palaestra/Mastermind-v0``), the feedback env
    (``palaestra/Feedback-v0``) or the tool env (``palaestra/Tool-v0``). ``reset(**row)`` seeds
    the episode from the row's task seed (or ``seed`` column) and returns the opening; the
    ``move`` tool sends one action and returns the env's observation; ``get_reward`` is the sum
    of the episode's rewards.
    """

    env_id = "palaestra/Nim-v0"
    env_kwargs: dict[str, Any] = {}

    def __init__(self) -> None:
        import gymnasium

        self.env = gymnasium.make(self.env_id, **self.env_kwargs)
        self.total = 0.0
        self.done = True

    def reset(self, **row: Any) -> str | None:
        options = {}
        if row.get("extra_info") is not None or row.get("task") is not None:
            task = _row_task(row)
            seed = task.seed % 2**63
            if task.family == self.env.spec.kwargs.get("family"):
                options["task"] = task
        elif row.get("seed") is not None:
            seed = int(row["seed"])
        else:
            # Without a seed every rollout of the run would replay one episode: TRL's placeholder
            # rows (train_dataset=None) carry nothing to tell the groups apart.
            raise ValueError(
                f"{self.env_id}: the dataset rows need a `seed` column (or a palaestra task record); "
                "use palaestra.integrations.trl.game_dataset(n)"
            )
        observation, _ = self.env.reset(seed=seed, options=options or None)
        self.total, self.done = 0.0, False
        return observation

    def move(self, action: str) -> str:
        """Play one move (or send one message) in the environment.

        Args:
            action: the move, written as the rules ask (e.g. "take 2 from A").

        Returns:
            What the environment answers: the new state, or the outcome when the episode ends.
        """
        if self.done:
            return "the episode is over"
        observation, reward, terminated, truncated, _ = self.env.step(action)
        self.total += float(reward)
        self.done = terminated or truncated
        return observation + (f"\nEpisode over; your total reward is {self.total:g}." if self.done else "")

    def get_reward(self) -> float:
        return self.total


def game_rows(n: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` rows for a :class:`PalaestraGameEnv` run: an empty user turn (``reset`` appends the
    episode's opening to it) and a distinct episode ``seed`` per row, drawn from ``seed``; the
    rows for ``n`` are the first ``n`` of the rows for any larger ``n``."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    rng = np.random.default_rng(np.random.SeedSequence([seed, *b"games"]))
    seeds: dict[int, None] = {}  # insertion-ordered set: distinct seeds in draw order
    while len(seeds) < n:
        seeds[int(rng.integers(2**62))] = None
    return [{"prompt": [{"role": "user", "content": ""}], "seed": s} for s in seeds]


def game_dataset(n: int, *, seed: int = 0) -> Any:
    """:func:`game_rows` as a ``datasets.Dataset``: ``GRPOTrainer(train_dataset=game_dataset(1000),
    environment_factory=game_env_factory("palaestra/Nim-v0"))``."""
    from datasets import Dataset

    return Dataset.from_list(game_rows(n, seed=seed))


def game_env_factory(env_id: str, **env_kwargs: Any) -> type[PalaestraGameEnv]:
    """A :class:`PalaestraGameEnv` class bound to ``env_id``: ``environment_factory=game_env_factory(...)``."""
    name = "Palaestra_" + "".join(c if c.isalnum() else "_" for c in env_id)
    return type(name, (PalaestraGameEnv,), {"env_id": env_id, "env_kwargs": dict(env_kwargs)})


def use_tool_chat_template(tokenizer: Any) -> Any:
    """Give ``tokenizer`` a chat template that renders tool calls (TRL's Qwen3 template) when its
    own cannot, and the matching response parser, so ``environment_factory`` works with any
    model, the tiny one included."""
    from trl.chat_template_utils import add_response_schema, qwen3_chat_template, supports_tool_calling

    if not supports_tool_calling(tokenizer):
        tokenizer.chat_template = qwen3_chat_template
    if (
        getattr(tokenizer, "response_template", None) is None
        and getattr(tokenizer, "response_schema", None) is None
    ):
        tokenizer = add_response_schema(tokenizer)
    return tokenizer
