"""palaestra in verl: ``compute_score`` for any export, and a multi-turn feedback interaction.

Single turn: point verl's custom reward function at this module; an exported dataset's rows
already carry the columns verl reads (``prompt`` as chat messages, ``data_source``,
``reward_model.ground_truth`` and ``extra_info`` with the task record)::

    python -m verl.trainer.main_ppo \\
        data.train_files=$DATA/data/train-00000-of-00001.parquet \\
        custom_reward_function.path=$(python -c "import palaestra.integrations.verl as m; print(m.__file__)") \\
        custom_reward_function.name=compute_score

Multi-turn: :class:`PalaestraInteraction` is a verl interaction (the ``BaseInteraction``
protocol: ``start_interaction`` / ``generate_response`` / ``calculate_score`` /
``finalize_interaction``). verl's agent loop calls it after every assistant turn; it grades the
answer with the family's verifier and, while attempts remain, answers with the verifier's reason
so the model can retry. verl passes each row's ``extra_info["interaction_kwargs"]`` to
``start_interaction``; :func:`with_interaction_kwargs` adds them to export rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from palaestra.core import Task
from palaestra.integrations._common import task_from_record, verify_batch

INTERACTION_NAME = "palaestra"


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    curriculum_url: str | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """verl's reward signature: the verifier's reward for ``solution_str`` (a dict verl logs).

    The task comes from ``extra_info`` (an export row's task record); a row without it raises
    ``ValueError`` rather than scoring 0. ``ground_truth`` must agree with the task's answer.
    With ``curriculum_url`` (verl's ``custom_reward_function.reward_kwargs``), each graded
    answer is also recorded in the curriculum of the ``palaestra serve --curriculum`` there.
    """
    task = _task(extra_info)
    if ground_truth is not None and ground_truth != _answer_text(task):
        raise ValueError(
            f"ground_truth {str(ground_truth)[:60]!r} disagrees with the task record of {task.id}"
        )
    if data_source and data_source.startswith("palaestra/") and data_source != f"palaestra/{task.family}":
        raise ValueError(f"data_source {data_source!r} disagrees with the task's family {task.family!r}")
    verdict = verify_batch([task], [solution_str if isinstance(solution_str, str) else ""], workers=0)[0]
    if curriculum_url:
        from palaestra.server import Client

        Client(curriculum_url).record([task], [float(verdict.reward)])
    return {
        "score": float(verdict.reward),
        "acc": bool(verdict.correct),
        "format_ok": bool(verdict.format_ok),
        "status": verdict.status,
    }


def _task(extra_info: Any) -> Task:
    if extra_info is None:
        raise ValueError("palaestra's compute_score needs the row's extra_info (the export's task record)")
    return task_from_record(extra_info)


def _answer_text(task: Task) -> str:
    from palaestra.core import canonical_json

    return canonical_json(task.answer)


def with_interaction_kwargs(row: dict[str, Any], max_attempts: int = 3) -> dict[str, Any]:
    """``row`` with ``extra_info["interaction_kwargs"]`` for :class:`PalaestraInteraction`."""
    info = dict(row["extra_info"])
    info["interaction_kwargs"] = {
        "name": INTERACTION_NAME,
        "task": info["task"],
        "max_attempts": max_attempts,
    }
    return {**row, "extra_info": info}


class PalaestraInteraction:
    """A verl interaction over any palaestra task: grade each answer, give feedback, allow retries.

    Subclass ``verl.interactions.base.BaseInteraction`` in real runs (verl's interaction config
    names a class path; ``palaestra.integrations.verl.PalaestraInteraction`` works as is: verl only
    calls these four methods). Scores: the verifier's reward of the latest answer; the episode
    ends at the first correct answer or after ``max_attempts`` answers.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = dict(config or {})
        self.name = self.config.get("name", INTERACTION_NAME)
        self.default_attempts = int(self.config.get("max_attempts", 3))
        self._episodes: dict[str, dict[str, Any]] = {}

    async def start_interaction(self, instance_id: str | None = None, task: Any = None, **kwargs: Any) -> str:
        instance_id = instance_id or str(uuid.uuid4())
        record = task if task is not None else kwargs.get("extra_info")
        self._episodes[instance_id] = {
            "task": task_from_record(record),
            "attempts": 0,
            "max_attempts": int(kwargs.get("max_attempts", self.default_attempts)),
            "reward": 0.0,
        }
        return instance_id

    async def generate_response(
        self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[bool, str, float, dict[str, Any]]:
        episode = self._episodes[instance_id]
        answer = next(
            (m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), ""
        )
        verdict = verify_batch([episode["task"]], [answer], workers=0)[0]
        episode["attempts"] += 1
        episode["reward"] = float(verdict.reward)
        left = episode["max_attempts"] - episode["attempts"]
        if verdict.correct:
            return True, "Correct.", episode["reward"], {"status": verdict.status}
        if left <= 0:
            return (
                True,
                f"Wrong: {verdict.reason}. No attempts left.",
                episode["reward"],
                {"status": verdict.status},
            )
        feedback = f"Wrong: {verdict.reason}. Try again ({left} attempt{'s' if left != 1 else ''} left)."
        return False, feedback, episode["reward"], {"status": verdict.status}

    async def calculate_score(self, instance_id: str, **kwargs: Any) -> float:
        return self._episodes[instance_id]["reward"]

    async def finalize_interaction(self, instance_id: str, **kwargs: Any) -> None:
        self._episodes.pop(instance_id, None)
