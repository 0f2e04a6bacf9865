"""palaestra in OpenRLHF: a reward function and an agent for multi-turn feedback.

Single turn (OpenRLHF's "reinforced fine-tuning" reward file): pass this module's file as the
reward function and the export's ``extra_info`` column as the label::

    REWARD=$(python -c "import palaestra.integrations.openrlhf as m; print(m.__file__)")
    python -m openrlhf.cli.train_ppo_ray ... --prompt_data $DATA --input_key prompt \\
        --apply_chat_template --label_key extra_info --remote_rm_url $REWARD

Multi-turn: :class:`AgentInstance` grades each turn with the verifier and feeds its reason back
until the answer is right or ``max_attempts`` run out; point ``--agent_func_path`` at this module
too (OpenRLHF loads ``AgentInstance`` and, with OpenRLHF installed, ``AgentExecutor`` from it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from palaestra.integrations._common import verify_batch
from palaestra.rows import task_from_record

try:  # the base classes exist only where OpenRLHF is installed (with vLLM and Ray)
    from openrlhf.utils.agent import AgentExecutorBase, AgentInstanceBase
except ImportError:  # pragma: no cover - exercised where OpenRLHF is installed
    AgentExecutorBase = None
    AgentInstanceBase = object

MAX_ATTEMPTS = 3


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


def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any) -> Any:
    """OpenRLHF's reward-function signature; ``labels`` are the rows' ``extra_info`` (or task JSON).

    Returns ``{"rewards", "scores", "extra_logs"}`` as tensors when torch is importable (always the
    case inside OpenRLHF), else as lists. A label without the task record raises ``ValueError``.
    """
    if not len(queries) == len(prompts) == len(labels):
        raise ValueError(f"{len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels")
    tasks = [task_from_record(label) for label in labels]
    verdicts = verify_batch(tasks, [_response(q, p) for q, p in zip(queries, prompts, strict=True)])
    rewards = [float(v.reward) for v in verdicts]
    format_ok = [1.0 if v.format_ok else 0.0 for v in verdicts]
    try:
        import torch
    except ImportError:
        return {"rewards": rewards, "scores": rewards, "extra_logs": {"format_ok": format_ok}}
    tensor = torch.tensor(rewards, dtype=torch.float32)
    return {"rewards": tensor, "scores": tensor.clone(), "extra_logs": {"format_ok": torch.tensor(format_ok)}}


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
        task = task_from_record(states["label"])
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


if AgentExecutorBase is not None:  # pragma: no cover - needs OpenRLHF

    class AgentExecutor(AgentExecutorBase):
        """Runs :class:`AgentInstance` inside OpenRLHF's rollout (its constructor, unchanged)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(AgentInstance, *args, **kwargs)
