"""Interactive debugging: repair a buggy program, running experiments in the sandbox first.

``palaestra/InteractiveDebugging-v0`` serves ``bug_repair`` tasks through :class:`ToolEnv` with
the ``python`` tool only: the agent may run any code (the buggy function, its own test cases)
in the kernel-enforced sandbox, under a per-call time limit, before it submits the fixed
function; the family's hidden tests decide the reward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from palaestra.envs.registration import DEBUGGING_ENV_ID as ENV_ID  # noqa: F401 - its public home was here
from palaestra.envs.registration import register_debugging as register  # noqa: F401
from palaestra.envs.tool_env import ToolEnv


def make_debugging_env(
    *,
    level: int | None = None,
    knobs: Mapping[str, Any] | None = None,
    max_tool_calls: int = 8,
    tool_timeout_s: float = 2.0,
    sandbox: Any = None,
    **kwargs: Any,
) -> ToolEnv:
    """A ``bug_repair`` task with a sandboxed python tool (see the module docstring)."""
    return ToolEnv(
        "bug_repair",
        tools=("python",),
        level=level,
        knobs=knobs,
        max_tool_calls=max_tool_calls,
        tool_timeout_s=tool_timeout_s,
        sandbox=sandbox,
        **kwargs,
    )
