"""palaestra in OpenRLHF (>= 0.11): a reward function and an agent for multi-turn feedback.

Single turn (OpenRLHF's "reinforced fine-tuning" reward file): pass this module's file as the
reward and the export's ``extra_info`` column as the label::

    REWARD=$(python -c "import palaestra.integrations.openrlhf as m; print(m.__file__)")
    python -m openrlhf.cli.train_ppo_ray ... --data.prompt_dataset $DATA --data.input_key prompt \
        --data.apply_chat_template --data.label_key extra_info --reward.remote_url $REWARD

Multi-turn: :class:`AgentInstance` grades each turn with the verifier and feeds its reason back
until the answer is right or ``max_attempts`` run out; point ``--train.agent_func_path`` at this
module too (OpenRLHF builds ``AgentExecutor()``, a ``MultiTurnAgentExecutor`` over
``AgentInstance``).

OpenRLHF catches every exception a reward raises and logs it at INFO: the sample's reward
becomes ``None``. So a row this module cannot grade (a label without the task record, a query
without its prompt) gets reward 0.0 explicitly, a WARNING with the reason, a count in
:data:`GRADING_ERRORS` and ``extra_logs["palaestra_grading_errors"]``: it never vanishes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from palaestra.core import Task, Verdict
from palaestra.integrations._common import GRADING_ERRORS, verify_batch
from palaestra.rows import task_from_record

try:  # the base classes exist only where OpenRLHF is installed
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor
except ImportError:  # pragma: no cover - exercised where OpenRLHF is installed
    MultiTurnAgentExecutor = None
    AgentInstanceBase = object

MAX_ATTEMPTS = 3
LOG = logging.getLogger(__name__)


def _ungradable(kind: str, exc: Exception) -> Verdict:
    """Reward 0.0 for a sample that cannot be graded, said loudly (OpenRLHF would swallow a raise)."""
    GRADING_ERRORS[kind] += 1
    LOG.warning("palaestra could not grade an OpenRLHF sample (%s): %s", kind, exc)
    return Verdict.failure(error=f"{kind}: {exc}")


def _response(query: str, prompt: str) -> str:
    """OpenRLHF passes ``query`` = prompt + response as decoded text, left padding possibly first:
    keep what follows the prompt. A query without its prompt raises: grading the whole query
    would grade the prompt's text as part of the answer."""
    at = query.find(prompt)
    if at < 0:
        raise ValueError(
            f"a query does not contain its prompt, so its response cannot be told apart: {query[:80]!r}"
        )
    return query[at + len(prompt) :]


class RewardBatch:
    """A batch of OpenRLHF samples split into those to grade and those that cannot be graded.

    A plain class, not a dataclass: OpenRLHF loads this file by path without registering it as a
    module, and dataclasses look their module up while they are built."""

    def __init__(self, size: int) -> None:
        self.verdicts: list[Verdict | None] = [None] * size  # None: still to grade
        self.tasks: list[Task] = []  # the samples to grade, in order
        self.responses: list[str] = []

    def graded(self, verdicts: Sequence[Verdict]) -> list[Verdict]:
        """Every sample's verdict, given the verdicts of :attr:`tasks`."""
        pending = iter(verdicts)
        return [v if v is not None else next(pending) for v in self.verdicts]


def reward_batch(queries: Sequence[Any], prompts: Sequence[Any], labels: Sequence[Any]) -> RewardBatch:
    """Read OpenRLHF's reward inputs (what ``reward_func`` gets and what its remote reward posts as
    ``query``/``prompts``/``labels``). Inputs of different lengths raise, as no reward can be
    matched to them; a single sample that cannot be read is paid 0.0 and counted."""
    if not len(queries) == len(prompts) == len(labels):
        raise ValueError(f"{len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels")
    batch = RewardBatch(len(queries))
    for i, (query, prompt, label) in enumerate(zip(queries, prompts, labels, strict=True)):
        try:
            task = task_from_record(label)
            if not isinstance(query, str) or not isinstance(prompt, str):
                raise ValueError("a query and its prompt must be text")
            response = _response(query, prompt)
        except ValueError as exc:
            batch.verdicts[i] = _ungradable("bad label" if "task record" in str(exc) else "bad query", exc)
            continue
        batch.tasks.append(task)
        batch.responses.append(response)
    return batch


def reward_lists(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """OpenRLHF's reward reply as lists: ``rewards``, ``scores`` and ``extra_logs``."""
    rewards = [float(v.reward) for v in verdicts]
    logs = {
        "format_ok": [1.0 if v.format_ok else 0.0 for v in verdicts],
        "palaestra_grading_errors": [1.0 if v.status == "verifier_error" else 0.0 for v in verdicts],
    }
    return {"rewards": rewards, "scores": list(rewards), "extra_logs": logs}


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> Any:
    """OpenRLHF's reward-function signature; ``labels`` are the rows' ``extra_info`` (or task JSON).

    Returns ``{"rewards", "scores", "extra_logs"}`` as tensors when torch is importable (always the
    case inside OpenRLHF), else as lists. A sample that cannot be graded is paid 0.0 and counted
    (module docstring).
    """
    batch = reward_batch(queries, prompts, labels)
    reply = reward_lists(batch.graded(verify_batch(batch.tasks, batch.responses)))
    try:
        import torch
    except ImportError:
        return reply
    return {
        "rewards": torch.tensor(reply["rewards"], dtype=torch.float32),
        "scores": torch.tensor(reply["scores"], dtype=torch.float32),
        "extra_logs": {key: torch.tensor(values) for key, values in reply["extra_logs"].items()},
    }


class AgentInstance(AgentInstanceBase):
    """OpenRLHF's agent protocol: ``reset(states)`` then ``step(states)`` per model turn.

    ``states["label"]`` is the row's label (``extra_info``); ``step`` reads ``action_text`` (the
    model's turn), grades it, and returns the verifier's reward, feedback text for the next turn,
    and ``done`` once the answer is right or the attempts are used up.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.attempts = 0
        self.max_attempts = int(kwargs.get("max_attempts", MAX_ATTEMPTS))

    async def reset(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        self.attempts = 0
        return {"observation": states["observation"]}

    async def step(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        try:
            task = task_from_record(states["label"])
        except ValueError as exc:  # ends the episode with an explicit 0.0, never a swallowed raise
            verdict, self.attempts = _ungradable("bad label", exc), self.max_attempts
        else:
            verdict = verify_batch([task], [states.get("action_text") or ""], workers=0)[0]
            self.attempts += 1
        done = verdict.correct or self.attempts >= self.max_attempts
        if verdict.correct:
            feedback = ""
        elif done:
            feedback = f"\nWrong: {verdict.reason}. No attempts left.\n"
        else:
            feedback = f"\nWrong: {verdict.reason}. Try again.\n"
        reward = _scalar(float(verdict.reward))
        return {
            "rewards": reward,
            "scores": reward,
            "environment_feedback": feedback,
            "done": done,
            "sampling_params": states.get("sampling_params"),
            "extra_logs": {"attempts": _scalar(float(self.attempts))},
        }


def _scalar(value: float) -> Any:
    try:
        import torch
    except ImportError:
        return value
    return torch.tensor(value)


if MultiTurnAgentExecutor is not None:  # pragma: no cover - needs OpenRLHF

    class AgentExecutor(MultiTurnAgentExecutor):
        """What ``--train.agent_func_path`` loads: OpenRLHF constructs it without arguments."""

        def __init__(self) -> None:
            super().__init__(AgentInstance)
