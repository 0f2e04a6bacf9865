"""palaestra: verifiable training tasks for language models.

>>> import palaestra
>>> task = palaestra.make_task("expression", seed=0, level=3)
>>> palaestra.verify(task, f"<answer>{task.answer}</answer>").correct
True
"""

from __future__ import annotations

from typing import Any

from palaestra.batch import verify_many
from palaestra.core import Difficulty, GenerationError, Knobs, Task, Verdict
from palaestra.registry import families, get, make_task, rebuild, verify
from palaestra.version import __version__

__all__ = [
    "Difficulty",
    "GenerationError",
    "Knobs",
    "Task",
    "Verdict",
    "families",
    "get",
    "make",
    "make_task",
    "rebuild",
    "verify",
    "verify_many",
    "__version__",
]


def make(family: str, **kwargs: Any):  # -> gymnasium.Env
    """A single-turn Gymnasium env serving tasks of ``family`` (see :class:`palaestra.envs.TaskEnv`)."""
    from palaestra.envs.task_env import TaskEnv

    return TaskEnv(family=family, **kwargs)


def _register_envs() -> None:
    # Importing palaestra registers every family's and game's Gymnasium id (palaestra/Sudoku-v0, ...)
    # with string entry points: no family or env module is imported until it is used.
    from palaestra.envs.registration import register_all
    from palaestra.registry import register_env_ids

    register_env_ids()
    register_all()


_register_envs()
