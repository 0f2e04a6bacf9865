"""palaestra in verl: ``compute_score`` for any export, and a multi-turn feedback interaction.

Single turn: point verl's custom reward function at this module; an exported dataset's rows
already carry the columns verl reads (``prompt`` as chat messages, ``data_source``,
``reward_model.ground_truth`` and ``extra_info`` with the task record)::

    python -m verl.trainer.main_ppo \\
        data.train_files=$DATA/data/train-00000-of-00001.parquet \\
        reward.custom_reward_function.path=$(python -c "import palaestra.integrations.verl as m; print(m.__file__)") \\
        reward.custom_reward_function.name=compute_score

Multi-turn, verl >= 0.9: :class:`PalaestraAnswerTool` is a verl tool (``BaseTool``) named
``submit_answer`` for verl's ``ToolAgentLoop``: each call grades one answer and answers with the
verifier's reason, within ``max_attempts`` answers per trajectory. :func:`with_tool_kwargs` adds
the row's ``extra_info["tools_kwargs"]``; for such rows :func:`compute_score` pays the tool's
verdict (the rollout's ``tool_rewards``), never a re-grade of the decoded text, which holds the
tool's feedback too and so could be imitated by the model.

Multi-turn, verl < 0.9: :class:`PalaestraInteraction` implements verl's old interaction protocol
(``verl.interactions``, gone in 0.9): ``start_interaction`` / ``generate_response`` /
``calculate_score`` / ``finalize_interaction``, fed by :func:`with_interaction_kwargs`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from palaestra.core import Task
from palaestra.integrations._common import retry_feedback, tagged_answer, verify_batch
from palaestra.rows import task_from_record

try:  # verl >= 0.9's tool classes exist only where verl is installed
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
except ImportError:  # verl cannot share our training stack's env: minimal stand-ins
    OpenAIFunctionToolSchema = None

    @dataclass
    class ToolResponse:  # type: ignore[no-redef]
        """Stand-in for ``verl.tools.schemas.ToolResponse`` (only ``text`` is used here)."""

        text: str | None = None
        image: list[Any] | None = None
        video: list[Any] | None = None

    class BaseTool:  # type: ignore[no-redef]
        """Stand-in for ``verl.tools.base_tool.BaseTool``'s constructor (schema as a dict)."""

        def __init__(self, config: dict[str, Any], tool_schema: Any) -> None:
            self.config = config
            self.tool_schema = tool_schema or self.get_openai_tool_schema()
            self.name = self.tool_schema["function"]["name"]


INTERACTION_NAME = "palaestra"
TOOL_NAME = "submit_answer"
MAX_ATTEMPTS = 3


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
    A row of :func:`with_tool_kwargs` scores the ``submit_answer`` tool's verdict instead (see
    :func:`_tool_score`). With ``curriculum_url`` (verl's ``reward.custom_reward_function.reward_kwargs``),
    each graded answer is also recorded in the curriculum of the ``palaestra serve --curriculum``
    there.
    """
    task = _task(extra_info)
    if ground_truth is not None and ground_truth != _answer_text(task):
        raise ValueError(
            f"ground_truth {str(ground_truth)[:60]!r} disagrees with the task record of {task.id}"
        )
    if data_source and data_source.startswith("palaestra/") and data_source != f"palaestra/{task.family}":
        raise ValueError(f"data_source {data_source!r} disagrees with the task's family {task.family!r}")
    if _is_tool_row(extra_info):
        result = _tool_score(extra_info)
    else:
        text = solution_str if isinstance(solution_str, str) else ""
        verdict = verify_batch([task], [text], workers=0)[0]
        result = {
            "score": float(verdict.reward),
            "acc": bool(verdict.correct),
            "format_ok": bool(verdict.format_ok),
            "status": verdict.status,
        }
    if curriculum_url:
        from palaestra.client import Client

        Client(curriculum_url).record([task], [result["score"]])
    return result


def _is_tool_row(extra_info: Mapping[str, Any]) -> bool:
    # parquet fills a missing struct field with None in a mixed dataset, hence ``or {}``
    return bool((extra_info.get("tools_kwargs") or {}).get(TOOL_NAME))


def _tool_score(extra_info: Mapping[str, Any]) -> dict[str, Any]:
    """The verdict of a tool episode: 1.0 iff ``submit_answer`` paid its one reward.

    ``tool_rewards`` is what verl's reward loop copies from the rollout (the reward of every tool
    call), never model text. The decoded response is not graded: it holds the tool's feedback
    too, which the model could imitate. Same keys as a single-turn score, so batches can mix.
    """
    rewards = extra_info.get("tool_rewards")
    if rewards is None:
        raise ValueError(
            "a submit_answer row needs the rollout's tool_rewards in extra_info: run it in verl's "
            "ToolAgentLoop with the reward computed in the agent loop (verl's reward loop copies them)"
        )
    solved = any(float(r) == 1.0 for r in rewards)
    status = "correct" if solved else "wrong" if len(rewards) else "unparseable"
    return {"score": float(solved), "acc": solved, "format_ok": bool(len(rewards)), "status": status}


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


def with_tool_kwargs(row: dict[str, Any], max_attempts: int = MAX_ATTEMPTS) -> dict[str, Any]:
    """``row`` with ``extra_info["tools_kwargs"]`` for :class:`PalaestraAnswerTool`.

    verl's RL dataset reads ``tools_kwargs`` from ``extra_info`` and the agent loop hands each
    tool its ``create_kwargs``; the task record stays JSON, so parquet stores it as it is.
    """
    info = dict(row["extra_info"])
    create_kwargs = {"task": info["task"], "max_attempts": int(max_attempts)}
    info["tools_kwargs"] = {TOOL_NAME: {"create_kwargs": create_kwargs}}
    return {**row, "extra_info": info}


class PalaestraAnswerTool(BaseTool):
    """verl >= 0.9's ``submit_answer`` tool: grade an answer, feed the reason back, allow retries.

    verl's ``ToolAgentLoop`` makes a fresh instance per call (``create`` / ``execute`` /
    ``release``), so the attempts of a trajectory live on its ``agent_data``. Per trajectory: up
    to ``max_attempts`` graded answers (create_kwargs, else the tool config, else 3); reward 1.0
    for the first correct one and 0.0 for every other call, so repeats cannot farm reward.
    """

    def __init__(self, config: Mapping[str, Any] | None = None, tool_schema: Any = None) -> None:
        super().__init__(dict(config or {}), tool_schema)
        self.default_attempts = int(self.config.get("max_attempts", MAX_ATTEMPTS))
        self._instances: dict[str, dict[str, Any]] = {}

    def get_openai_tool_schema(self) -> Any:
        schema = {
            "type": "function",
            "function": {
                "name": TOOL_NAME,
                "description": "Submit your final answer to the task; the reply says whether it is correct.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "answer": {
                            "type": "string",
                            "description": "the final answer, written as the task asks (e.g. <answer>42</answer>)",
                        }
                    },
                    "required": ["answer"],
                },
            },
        }
        return OpenAIFunctionToolSchema.model_validate(schema) if OpenAIFunctionToolSchema else schema

    async def create(
        self, instance_id: str | None = None, create_kwargs: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> tuple[str, ToolResponse]:
        create_kwargs = create_kwargs or kwargs  # older verl passed them unpacked
        if create_kwargs.get("task") is None:
            raise ValueError(f"{TOOL_NAME} needs the row's task: build rows with with_tool_kwargs")
        instance_id = instance_id or str(uuid.uuid4())
        self._instances[instance_id] = {
            "task": task_from_record(create_kwargs["task"]),
            "max_attempts": int(create_kwargs.get("max_attempts", self.default_attempts)),
            "attempts": 0,
            "solved": False,
        }
        return instance_id, ToolResponse()

    async def execute(
        self, instance_id: str, parameters: Mapping[str, Any], **kwargs: Any
    ) -> tuple[ToolResponse, float, dict[str, Any]]:
        instance = self._instances[instance_id]
        state = _trajectory_state(kwargs.get("agent_data"), instance)
        text, reward, status = self._grade(
            instance, state, parameters.get("answer") if isinstance(parameters, Mapping) else None
        )
        return ToolResponse(text=text), reward, {"status": status, "attempts": state["attempts"]}

    def _grade(self, instance: dict[str, Any], state: dict[str, Any], answer: Any) -> tuple[str, float, str]:
        # no await between reading and updating ``state``: parallel calls of a turn stay ordered
        if state["solved"]:
            return "already solved; further answers are not graded", 0.0, "already_solved"
        if state["attempts"] >= instance["max_attempts"]:
            return (
                f"no attempts left (all {instance['max_attempts']} used); this answer was not graded",
                0.0,
                "refused",
            )
        state["attempts"] += 1
        text = tagged_answer(answer if isinstance(answer, str) else "")
        verdict = verify_batch([instance["task"]], [text], workers=0)[0]
        if verdict.correct:
            state["solved"] = True
            return "correct", 1.0, verdict.status
        return retry_feedback(verdict, instance["max_attempts"] - state["attempts"]), 0.0, verdict.status

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        return 0.0  # the reward is paid once, by ``execute``; verl's loop does not call this

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        self._instances.pop(instance_id, None)


def _trajectory_state(agent_data: Any, instance: dict[str, Any]) -> dict[str, Any]:
    """The attempts of one trajectory: on verl's ``agent_data`` (shared by all of its calls);
    without it, on the instance (for loops that keep one instance per trajectory)."""
    if agent_data is None:
        return instance
    state = getattr(agent_data, "_palaestra_submit", None)
    if state is None:
        state = {"attempts": 0, "solved": False}
        agent_data._palaestra_submit = state
    return state


class PalaestraInteraction:
    """A verl interaction over any palaestra task: grade each answer, give feedback, allow retries.

    verl's pre-0.9 interaction protocol (``verl.interactions.base.BaseInteraction``, which verl
    0.9 no longer ships; there, use :class:`PalaestraAnswerTool`). verl's interaction config names
    a class path; this class works as is: verl only calls these four methods. Scores: the
    verifier's reward of the latest answer; the episode ends at the first correct answer or after
    ``max_attempts`` answers.
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
