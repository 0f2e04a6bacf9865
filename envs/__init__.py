"""Gymnasium text environments over palaestra's task families."""

from palaestra.envs.feedback import FeedbackEnv
from palaestra.envs.pool import EnvPool, PoolStep, Rollout, episode_seed, tokenize_rollout
from palaestra.envs.spaces import AnyText
from palaestra.envs.task_env import TaskEnv
from palaestra.envs.tool_env import ToolEnv

__all__ = [
    "AnyText",
    "EnvPool",
    "FeedbackEnv",
    "PoolStep",
    "Rollout",
    "TaskEnv",
    "ToolEnv",
    "episode_seed",
    "tokenize_rollout",
]


FEEDBACK_ENV_ID = "palaestra/Feedback-v0"
TOOL_ENV_ID = "palaestra/Tool-v0"


def register_generic_envs() -> None:
    """Register the family-generic envs: ``gymnasium.make("palaestra/Feedback-v0", family="sudoku")``
    (retry with the verifier's feedback) and ``palaestra/Tool-v0`` (tools before answering)."""
    import gymnasium

    for env_id, entry_point in (
        (FEEDBACK_ENV_ID, "palaestra.envs.feedback:FeedbackEnv"),
        (TOOL_ENV_ID, "palaestra.envs.tool_env:ToolEnv"),
    ):
        if env_id not in gymnasium.registry:
            # family defaults to expression; pass family= to make() for any other
            gymnasium.register(id=env_id, entry_point=entry_point, kwargs={"family": "expression"})
