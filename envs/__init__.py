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
