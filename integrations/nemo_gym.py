"""palaestra as a NeMo Gym resource server: ``/seed_session``, ``/verify`` and ``/aggregate_metrics`` on ``palaestra serve``.

NeMo Gym's agent servers send a resource server's ``/verify`` the dataset row's fields plus the
policy's ``response`` (an OpenAI Responses-API object) and read ``reward`` from the reply, which
echoes the request. ``palaestra serve`` answers that route; put the palaestra row's
``extra_info`` (or its task record as ``task``) in each NeMo Gym dataset row, and point the
resource server config at the server's URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from palaestra.core import Task
from palaestra.rows import task_from_record


def response_text(response: Any) -> str:
    """The assistant's text in a Responses-API object (its last output message's text parts)."""
    if isinstance(response, str):
        return response
    if not isinstance(response, Mapping):
        raise ValueError("'response' must be a Responses-API object with an 'output' list")
    texts = []
    for item in response.get("output") or []:
        if isinstance(item, Mapping) and item.get("type") == "message":
            parts = item.get("content") or []
            texts = [
                p.get("text", "") for p in parts if isinstance(p, Mapping) and p.get("type") == "output_text"
            ]
    return "".join(texts)


def parse_verify_request(body: Mapping[str, Any]) -> tuple[Task, str]:
    """The task and the response text of a NeMo Gym verify request."""
    record = body.get("extra_info", body.get("task"))
    if record is None:
        raise ValueError("the verify request needs the palaestra row's 'extra_info' (or 'task')")
    return task_from_record(record), response_text(body.get("response"))


# NeMo Gym's rollout collection keys (nemo_gym.global_config): which task and which rollout of it
TASK_INDEX, ROLLOUT_INDEX = "_ng_task_index", "_ng_rollout_index"
STATISTICS = ("mean", "max", "min", "median", "std")


def seed_session_reply(body: Mapping[str, Any]) -> dict[str, Any]:
    """``POST /seed_session``, which NeMo Gym's agents call before every rollout: palaestra keeps no
    per-rollout state (the task travels in the row), so the session is empty, as NeMo's own
    stateless resource servers answer."""
    if not isinstance(body, Mapping):
        raise ValueError("the seed_session body must be a JSON object")
    return {}


def _reward_statistics(rewards: list[float]) -> dict[str, float]:
    """mean, max, min, median and sample standard deviation (0 for one rollout), NeMo Gym's keys."""
    import statistics

    values = {
        "mean": statistics.fmean(rewards),
        "max": max(rewards),
        "min": min(rewards),
        "median": statistics.median(rewards),
        "std": statistics.stdev(rewards) if len(rewards) > 1 else 0.0,
    }
    return {f"{name}/reward": float(values[name]) for name in STATISTICS}


def aggregate_metrics_reply(body: Mapping[str, Any]) -> dict[str, Any]:
    """``POST /aggregate_metrics``, called at the end of every rollout collection: per-task and
    overall reward statistics of the verify responses it is sent (NeMo Gym's AggregateMetrics
    shape and key names). Rewards must be finite numbers."""
    import math

    responses = body.get("verify_responses") if isinstance(body, Mapping) else None
    if not isinstance(responses, list) or not all(isinstance(r, Mapping) for r in responses):
        raise ValueError("'verify_responses' must be a list of verify responses")
    by_task: dict[int, list[float]] = {}
    for response in responses:
        reward, index = response.get("reward"), response.get(TASK_INDEX, 0)
        if isinstance(reward, bool) or not isinstance(reward, int | float) or not math.isfinite(reward):
            raise ValueError(f"a verify response's reward must be a finite number, got {reward!r}")
        if isinstance(index, bool) or not isinstance(index, int):
            raise ValueError(f"{TASK_INDEX} must be an integer, got {index!r}")
        by_task.setdefault(index, []).append(float(reward))
    if not by_task:
        return {"group_level_metrics": [], "agent_metrics": {}, "key_metrics": {}}
    groups = [
        {TASK_INDEX: index, **_reward_statistics(rewards), "num_rollouts": len(rewards)}
        for index, rewards in sorted(by_task.items())
    ]
    overall = _reward_statistics([r for rewards in by_task.values() for r in rewards])
    return {
        "group_level_metrics": groups,
        "agent_metrics": overall,
        "key_metrics": {"mean/reward": overall["mean/reward"]},
    }
