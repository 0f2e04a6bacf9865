"""Gymnasium text environments over palaestra's task families."""

from palaestra.envs.spaces import AnyText
from palaestra.envs.task_env import TaskEnv

__all__ = ["AnyText", "TaskEnv"]
