"""Gymnasium text environments over palaestra's task families."""

from palaestra.envs.feedback import FeedbackEnv
from palaestra.envs.pool import EnvPool, PoolStep, Rollout, episode_seed, tokenize_rollout
from palaestra.envs.spaces import AnyText
from palaestra.envs.task_env import TaskEnv

__all__ = [
    "AnyText",
    "EnvPool",
    "FeedbackEnv",
    "PoolStep",
    "Rollout",
    "TaskEnv",
    "episode_seed",
    "tokenize_rollout",
]
