"""Tools an agent may call inside :class:`ToolEnv`, and the parser for tool calls.

Two call formats are understood:

* JSON function calls in the OpenAI/Qwen style: ``<tool_call>{"name": "python", "arguments":
  {"code": "print(1)"}}</tool_call>``, or a response that is exactly such a JSON object
  (``arguments`` may also be a JSON-encoded string, as OpenAI sends it);
* tags: ``<tool name="python">print(1)</tool>``; the tag body is the tool's main argument.

Every tool runs under a time limit that is enforced outside the model's code: ``python`` and
``calculator`` run in the kernel-enforced sandbox (killed at the limit), ``z3`` uses the
solver's own timeout on a bounded SMT-LIB input that is parsed, never executed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

MAX_TOOL_OUTPUT = 4000
MAX_TOOL_INPUT = 20_000

_QWEN_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_TAG_CALL = re.compile(r"<tool\s+name\s*=\s*[\"']([A-Za-z_][\w-]*)[\"']\s*>(.*?)</tool>", re.DOTALL)


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """What a tool returned: ``status`` is ``ok``, ``error`` or ``timeout``."""

    output: str
    status: str = "ok"
    details: dict[str, Any] = field(default_factory=dict)


class Tool(Protocol):
    name: str
    description: str
    main_argument: str  # the argument a tag body fills

    def schema(self) -> dict[str, Any]: ...

    def __call__(self, arguments: Mapping[str, Any], timeout_s: float) -> ToolResult: ...


class ToolCallError(ValueError):
    """A malformed tool call; the message is shown to the agent."""


def parse_tool_calls(text: str, call_format: str = "both") -> list[ToolCall]:
    """Tool calls in ``text`` (in order); ``[]`` if there are none; ``ToolCallError`` if malformed."""
    calls: list[ToolCall] = []
    if call_format in ("json", "both"):
        calls += [_json_call(body) for body in _QWEN_CALL.findall(text)]
        stripped = text.strip()
        if not calls and stripped.startswith("{") and stripped.endswith("}"):
            calls.append(_json_call(stripped))
    if call_format in ("tag", "both"):
        calls += [ToolCall(name, {"__body__": body}) for name, body in _TAG_CALL.findall(text)]
        if "<tool" in text and not _TAG_CALL.search(text) and "<tool_call>" not in text:
            raise ToolCallError('malformed tool tag: write <tool name="NAME">INPUT</tool>')
    if "<tool_call>" in text and not _QWEN_CALL.search(text):
        raise ToolCallError("unclosed <tool_call>: write <tool_call>{...}</tool_call>")
    return calls


def _json_call(body: str) -> ToolCall:
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ToolCallError(f"the tool call is not valid JSON: {exc.msg} at position {exc.pos}") from None
    if isinstance(data, dict) and "function" in data and isinstance(data["function"], dict):
        data = data["function"]  # {"type": "function", "function": {...}}
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ToolCallError('a tool call needs a "name" string and an "arguments" object')
    arguments = data.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            raise ToolCallError('"arguments" is a string that is not valid JSON') from None
    if not isinstance(arguments, dict):
        raise ToolCallError('"arguments" must be a JSON object')
    return ToolCall(data["name"], arguments)


def resolve_arguments(tool: Tool, call: ToolCall) -> dict[str, Any]:
    """Tag bodies fill the tool's main argument."""
    if "__body__" in call.arguments:
        return {tool.main_argument: call.arguments["__body__"].strip("\n")}
    return dict(call.arguments)


def _clip(text: str) -> str:
    if len(text) <= MAX_TOOL_OUTPUT:
        return text
    return text[:MAX_TOOL_OUTPUT] + f"\n... [{len(text) - MAX_TOOL_OUTPUT} more characters cut]"


def _string_argument(arguments: Mapping[str, Any], name: str) -> str:
    value = arguments.get(name)
    if not isinstance(value, str):
        raise ToolCallError(f'missing string argument "{name}"')
    if len(value) > MAX_TOOL_INPUT:
        raise ToolCallError(f'argument "{name}" is longer than {MAX_TOOL_INPUT} characters')
    return value


class LazySandbox:
    """A sandbox started on first use (envs that never call a tool pay nothing), shareable."""

    def __init__(self, sandbox: Any = None, workers: int = 1):
        self._sandbox, self.workers = sandbox, workers

    def get(self) -> Any:
        if self._sandbox is None:
            from palaestra.sandbox import Sandbox

            self._sandbox = Sandbox(workers=self.workers)
        return self._sandbox

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None


class PythonTool:
    """Run Python in the sandbox and return stdout/stderr."""

    name = "python"
    description = (
        "Run a Python 3 program in a sandbox (no network, no files outside a scratch dir) and see its output."
    )
    main_argument = "code"

    def __init__(self, sandbox: Any = None, memory_mb: int = 256):
        self._sandbox = sandbox if isinstance(sandbox, LazySandbox) else LazySandbox(sandbox)
        self.memory_mb = memory_mb

    @property
    def sandbox(self) -> Any:
        return self._sandbox.get()

    def schema(self) -> dict[str, Any]:
        return _function_schema(self, {"code": {"type": "string", "description": "the program"}})

    def __call__(self, arguments: Mapping[str, Any], timeout_s: float) -> ToolResult:
        code = _string_argument(arguments, "code")
        result = self.sandbox.run(
            code, timeout_s=timeout_s, memory_mb=self.memory_mb, output_limit_bytes=1 << 16
        )
        if result.status == "timeout":
            return ToolResult(f"timeout: the program ran past {timeout_s:g} s and was killed", "timeout")
        text = result.stdout + (f"\n[stderr]\n{result.stderr}" if result.stderr.strip() else "")
        status = "ok" if result.status == "ok" else "error"
        prefix = "" if status == "ok" else f"[{result.status}, exit code {result.exit_code}]\n"
        return ToolResult(_clip(prefix + text), status, {"exec_status": result.status})


# The calculator runs this fixed program in the sandbox; the expression arrives on stdin.
_CALCULATOR = r"""
import ast, math, sys
from fractions import Fraction
OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
       ast.Div: lambda a, b: a / b, ast.Mod: lambda a, b: a % b, ast.FloorDiv: lambda a, b: a // b}
FUNCS = {"sqrt": math.sqrt, "log": math.log, "exp": math.exp, "sin": math.sin, "cos": math.cos,
         "tan": math.tan, "abs": abs}
CONSTS = {"pi": math.pi, "e": math.e}
def ev(n):
    if isinstance(n, ast.Expression): return ev(n.body)
    if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
        return Fraction(str(n.value)) if isinstance(n.value, float) else Fraction(n.value)
    if isinstance(n, ast.Name) and n.id in CONSTS: return CONSTS[n.id]
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        v = ev(n.operand); return -v if isinstance(n.op, ast.USub) else v
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow):
        b, x = ev(n.left), ev(n.right)
        if isinstance(x, Fraction) and x.denominator == 1 and abs(x) <= 10000 and isinstance(b, Fraction):
            return b ** int(x)
        return float(b) ** float(x)
    if isinstance(n, ast.BinOp) and type(n.op) in OPS: return OPS[type(n.op)](ev(n.left), ev(n.right))
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in FUNCS and len(n.args) == 1:
        return FUNCS[n.func.id](float(ev(n.args[0])))
    raise ValueError("unsupported syntax: use numbers, + - * / // % ** ( ), sqrt log exp sin cos tan abs, pi e")
v = ev(ast.parse(sys.stdin.read().replace("^", "**"), mode="eval"))
print(v if not isinstance(v, Fraction) or v.denominator == 1 else f"{v} (= {float(v):.12g})")
"""


class CalculatorTool(PythonTool):
    """Exact rational arithmetic (floats for functions), evaluated in the sandbox."""

    name = "calculator"
    description = (
        "Evaluate an arithmetic expression exactly: + - * / // % ^ ( ), sqrt log exp sin cos tan abs, pi e."
    )
    main_argument = "expression"

    def schema(self) -> dict[str, Any]:
        return _function_schema(self, {"expression": {"type": "string", "description": "e.g. (3/4 + 2)^2"}})

    def __call__(self, arguments: Mapping[str, Any], timeout_s: float) -> ToolResult:
        expression = _string_argument(arguments, "expression")
        result = self.sandbox.run(
            _CALCULATOR, stdin=expression, timeout_s=timeout_s, memory_mb=self.memory_mb
        )
        if result.status == "timeout":
            return ToolResult(f"timeout: the calculation ran past {timeout_s:g} s", "timeout")
        if result.status != "ok":
            last = (result.stderr.strip().splitlines() or ["error"])[-1]
            return ToolResult(_clip(f"error: {last}"), "error")
        return ToolResult(result.stdout.strip(), "ok")


class Z3Tool:
    """Check an SMT-LIB 2 script with z3: sat (with a model), unsat, or unknown."""

    name = "z3"
    description = (
        "Check satisfiability of SMT-LIB 2 assertions with z3; returns sat and a model, unsat, or unknown."
    )
    main_argument = "smtlib"

    def schema(self) -> dict[str, Any]:
        return _function_schema(
            self, {"smtlib": {"type": "string", "description": "declarations and assertions"}}
        )

    def __call__(self, arguments: Mapping[str, Any], timeout_s: float) -> ToolResult:
        import z3

        script = _string_argument(arguments, "smtlib")
        solver = z3.Solver()
        solver.set("timeout", max(1, int(timeout_s * 1000)))
        try:
            solver.add(z3.parse_smt2_string(script))
        except z3.Z3Exception as exc:
            return ToolResult(_clip(f"error: could not parse SMT-LIB: {exc}"), "error")
        outcome = solver.check()
        if outcome == z3.sat:
            return ToolResult(_clip(f"sat\n{solver.model()}"), "ok")
        if outcome == z3.unsat:
            return ToolResult("unsat", "ok")
        reason = solver.reason_unknown()
        return ToolResult(
            f"unknown ({reason})", "timeout" if "timeout" in reason or "canceled" in reason else "ok"
        )


def _function_schema(tool: Any, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": {"type": "object", "properties": properties, "required": list(properties)},
        },
    }


def default_tools(
    names: tuple[str, ...] = ("python", "calculator", "z3"), sandbox: Any = None
) -> dict[str, Tool]:
    """The built-in tools by name (sharing one sandbox)."""
    shared = sandbox if isinstance(sandbox, LazySandbox) else LazySandbox(sandbox)
    builtins: dict[str, Any] = {
        "python": PythonTool(shared),
        "calculator": CalculatorTool(shared),
        "z3": Z3Tool(),
    }
    unknown = sorted(set(names) - set(builtins))
    if unknown:
        raise ValueError(f"unknown tool(s) {unknown}; built-in tools: {sorted(builtins)}")
    return {name: builtins[name] for name in names}
