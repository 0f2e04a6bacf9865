"""Tool use: the agent may call tools (python, calculator, z3) before it answers."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, SupportsFloat

from palaestra.envs.task_env import TaskEnv
from palaestra.envs.tools import (
    LazySandbox,
    Tool,
    ToolCallError,
    ToolResult,
    default_tools,
    parse_tool_calls,
    resolve_arguments,
)

CALL_FORMATS = ("json", "tag", "both")


class ToolEnv(TaskEnv):
    """A task the agent may work on with tools before giving its final answer.

    ## Description
    Serves tasks of any family, like :class:`TaskEnv`, and lets the agent call tools first.
    A response containing tool calls runs them and returns their output; a response without
    tool calls is the final answer and is graded.

    ## Observation
    ``reset``: the prompt followed by the tool instructions (names, descriptions, the call
    format and the budget). After a tool call: the tools' output, one block per call,
    recorded with role ``tool`` (``info["role"] == "tool"``). After the answer: the verdict.

    ## Action
    A ``str``. Tool calls are JSON function calls (``<tool_call>{"name": "python",
    "arguments": {"code": "print(2**10)"}}</tool_call>``, OpenAI/Qwen style) and/or tags
    (``<tool name="python">print(2**10)</tool>``), as ``call_format`` allows.

    ## Rewards
    The verdict's reward for the final answer. A malformed or unknown tool call costs
    ``invalid_call_penalty`` (0 by default; the prompt states it) and counts against the budget.

    ## Episode end
    ``terminated=True`` after the final answer. ``truncated=True`` when the agent calls a tool
    with its ``max_tool_calls`` budget already spent. Never both.

    ## Arguments
    ``family``, ``level``, ``knobs``, ``max_response_chars`` as for :class:`TaskEnv`;
    ``tools``: names of built-in tools or a mapping name -> Tool; ``call_format`` in
    ``("json", "tag", "both")``; ``max_tool_calls``; ``tool_timeout_s``: per-call limit,
    enforced by the sandbox (python, calculator) or the solver (z3);
    ``invalid_call_penalty``; ``sandbox``: a shared :class:`palaestra.sandbox.Sandbox`.

    ## Version history
    * v0: initial version.
    """

    def __init__(
        self,
        family: str,
        *,
        tools: tuple[str, ...] | Mapping[str, Tool] = ("python", "calculator", "z3"),
        call_format: str = "both",
        max_tool_calls: int = 6,
        tool_timeout_s: float = 2.0,
        invalid_call_penalty: float = 0.0,
        sandbox: Any = None,
        level: int | None = None,
        knobs: Mapping[str, Any] | None = None,
        max_response_chars: int = 1 << 20,
        render_mode: str | None = None,
    ):
        if call_format not in CALL_FORMATS:
            raise ValueError(f"call_format must be one of {CALL_FORMATS}, got {call_format!r}")
        if max_tool_calls < 0 or tool_timeout_s <= 0:
            raise ValueError("max_tool_calls must be >= 0 and tool_timeout_s > 0")
        super().__init__(
            family, level=level, knobs=knobs, max_response_chars=max_response_chars, render_mode=render_mode
        )
        self._lazy_sandbox = sandbox if isinstance(sandbox, LazySandbox) else LazySandbox(sandbox)
        self.tools: dict[str, Tool] = (
            dict(tools) if isinstance(tools, Mapping) else default_tools(tuple(tools), self._lazy_sandbox)
        )
        self.call_format, self.max_tool_calls = call_format, max_tool_calls
        self.tool_timeout_s, self.invalid_call_penalty = tool_timeout_s, invalid_call_penalty
        self.tool_calls = 0

    def tool_schemas(self) -> list[dict[str, Any]]:
        """OpenAI-style function schemas, for chat templates that render tools."""
        return [tool.schema() for tool in self.tools.values()]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        prompt, info = super().reset(seed=seed, options=options)
        self.tool_calls = 0
        self._last_observation = f"{prompt}\n\n{self._instructions()}"
        return self._last_observation, {**info, "tool_calls": 0}

    def _instructions(self) -> str:
        lines = [f"You may call these tools (at most {self.max_tool_calls} calls) before answering:"]
        lines += [f"- {name}: {tool.description}" for name, tool in self.tools.items()]
        example = next(iter(self.tools), "python")
        main = self.tools[example].main_argument if self.tools else "code"
        if self.call_format in ("json", "both"):
            lines.append(
                f'Call a tool with <tool_call>{{"name": "{example}", "arguments": {{"{main}": "..."}}}}</tool_call>.'
            )
        if self.call_format in ("tag", "both"):
            lines.append(
                f'{"Or call" if self.call_format == "both" else "Call"} it with <tool name="{example}">...</tool>.'
            )
        lines.append("A response without a tool call is your final answer.")
        if self.invalid_call_penalty:
            lines.append(f"A malformed or unknown tool call costs {self.invalid_call_penalty:g} reward.")
        return "\n".join(lines)

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        if not isinstance(action, str):
            raise TypeError(f"action must be a str (the model's response), got {type(action).__name__}")
        if self.task is None or self._done:
            raise RuntimeError("the episode is over: call reset() before step()")
        try:
            calls = (
                parse_tool_calls(action, self.call_format) if len(action) <= self.max_response_chars else []
            )
            malformed = None
        except ToolCallError as exc:
            calls, malformed = [], f"tool call error: {exc}"
        if not calls and malformed is None:
            return super().step(action)
        if self.tool_calls >= self.max_tool_calls:
            self._done = True
            info = {**self._task_info(), "role": "tool", "tool_calls": self.tool_calls}
            return "tool budget exhausted: no answer was given", 0.0, False, True, info
        if malformed is not None:
            self.tool_calls += 1  # a malformed call still spends budget
            return self._tool_turn(malformed, -self.invalid_call_penalty, [{"status": "invalid"}])
        outputs, records, penalty = [], [], 0.0
        for call in calls[: self.max_tool_calls - self.tool_calls]:
            result, seconds = self._run(call.name, call)
            self.tool_calls += 1
            penalty += self.invalid_call_penalty if result.status == "invalid" else 0.0
            outputs.append(f"[{call.name}] {result.output}")
            records.append({"name": call.name, "status": result.status, "seconds": round(seconds, 3)})
        return self._tool_turn("\n\n".join(outputs), -penalty, records)

    def _run(self, name: str, call: Any) -> tuple[ToolResult, float]:
        tool = self.tools.get(name)
        if tool is None:
            return ToolResult(f"unknown tool {name!r}; available: {', '.join(self.tools)}", "invalid"), 0.0
        started = time.perf_counter()
        try:
            result = tool(resolve_arguments(tool, call), self.tool_timeout_s)
        except ToolCallError as exc:
            result = ToolResult(f"tool call error: {exc}", "invalid")
        return result, time.perf_counter() - started

    def _tool_turn(
        self, observation: str, reward: float, records: list[dict[str, Any]]
    ) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        self._last_observation = observation
        info = {**self._task_info(), "role": "tool", "tool_calls": self.tool_calls, "tool_results": records}
        return observation, float(reward) + 0.0, False, False, info  # + 0.0 turns -0.0 into 0.0

    def close(self) -> None:
        self._lazy_sandbox.close()
        super().close()
