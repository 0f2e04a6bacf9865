"""Gymnasium text environments over palaestra's task families."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from palaestra.envs.feedback import FeedbackEnv
    from palaestra.envs.pool import EnvPool, PoolStep, Rollout, episode_seed, tokenize_rollout
    from palaestra.envs.spaces import AnyText
    from palaestra.envs.task_env import TaskEnv
    from palaestra.envs.tool_env import ToolEnv

# Each public name and the module that defines it, imported on first access: `import palaestra`
# registers the env ids with string entry points and loads no env module (PEP 562).
_LAZY = {
    "FeedbackEnv": "feedback",
    "EnvPool": "pool",
    "PoolStep": "pool",
    "Rollout": "pool",
    "episode_seed": "pool",
    "tokenize_rollout": "pool",
    "AnyText": "spaces",
    "TaskEnv": "task_env",
    "ToolEnv": "tool_env",
}

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


from palaestra.envs.registration import FEEDBACK_ENV_ID, TOOL_ENV_ID, register_generic_envs  # noqa: E402, F401


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later accesses skip this hook
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
