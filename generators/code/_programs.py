"""Random straight-line/loop/recursion Python programs for the code families (our own code only).

``draw_program`` writes a function ``f(x)`` from statement templates: assignments over three
integer variables, ``if``/``else``, bounded ``for`` loops (nested up to a knob), a list and a
dict, and an optional recursive helper ``g``. Every loop is bounded by construction (loops over
the list iterate a copy), so running the program always terminates. ``trace_run`` executes OUR
generated source in-process (never model text) and counts executed lines as the effort.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_STEPS = 5_000
INT_VARS = ("a", "b", "c")
_HELPERS = (
    "def g(n):\n    if n <= 1:\n        return n + {k}\n    return g(n - 1) + g(n - 2)\n",
    "def g(n):\n    if n == 0:\n        return {k}\n    return (g(n - 1) * {m} + n) % {p}\n",
    "def g(n):\n    if n < {m}:\n        return n * {k}\n    return g(n // {m}) + n % {m}\n",
)


@dataclass(frozen=True)
class ProgramSpec:
    statements: int
    loop_depth: int
    data_structures: bool
    recursion: bool


class _Writer:
    def __init__(self, spec: ProgramSpec, rng: np.random.Generator) -> None:
        self.spec, self.rng = spec, rng
        self.lines: list[str] = []
        self.budget = spec.statements
        self.loop_vars: list[str] = []
        self.in_list_loop = False

    def pick(self, options: list[Any] | tuple[Any, ...]) -> Any:
        return options[int(self.rng.integers(len(options)))]

    def const(self, lo: int = 1, hi: int = 9) -> int:
        return int(self.rng.integers(lo, hi + 1))

    def atom(self) -> str:
        choices = list(INT_VARS) + self.loop_vars + ["const"]
        if self.spec.data_structures:
            choices.append("len(ys)")
        if self.spec.recursion:
            choices.append("call")
        choice = self.pick(choices)
        if choice == "const":
            return str(self.const())
        if choice == "call":
            return f"g({self.pick(INT_VARS)} % {self.const(3, 7)})"
        return choice

    def expr(self) -> str:
        kind = int(self.rng.integers(4))
        if kind == 0:
            return self.atom()
        op = self.pick(("+", "-", "*", "+", "-"))
        if kind == 3 or op == "*":  # products stay reduced so values never explode
            return f"({self.atom()} {op} {self.atom()}) % {self.const(5, 97)}"
        return f"{self.atom()} {op} {self.atom()}"

    def cond(self) -> str:
        if self.rng.random() < 0.5:
            return f"{self.atom()} % {self.const(2, 5)} == {self.const(0, 1)}"
        return f"{self.atom()} {self.pick(('<', '>', '<=', '>=', '!='))} {self.atom()}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def block(self, indent: int, depth: int, size: int) -> None:
        for _ in range(size):
            if self.budget <= 0:
                return
            self.statement(indent, depth)

    def statement(self, indent: int, depth: int) -> None:
        self.budget -= 1
        kinds = ["assign", "assign", "aug", "if"]
        if depth < self.spec.loop_depth:
            kinds += ["for", "for"]
        if self.spec.data_structures:
            kinds += ["append", "dict", "setitem"]
            if depth < self.spec.loop_depth and not self.in_list_loop:
                kinds.append("forlist")
        kind = self.pick(kinds)
        target = self.pick(INT_VARS)
        if kind == "assign":
            self.emit(indent, f"{target} = {self.expr()}")
        elif kind == "aug":
            self.emit(indent, f"{target} {self.pick(('+=', '-='))} {self.atom()}")
        elif kind == "if":
            self.emit(indent, f"if {self.cond()}:")
            self.statement(indent + 1, depth)
            self.block(indent + 1, depth, int(self.rng.integers(0, 2)))
            if self.rng.random() < 0.5 and self.budget > 0:
                self.emit(indent, "else:")
                self.statement(indent + 1, depth)
        elif kind == "for":
            var = "ijk"[len(self.loop_vars)]
            bound = "len(ys)" if self.spec.data_structures and self.rng.random() < 0.3 else self.const(2, 4)
            self.emit(indent, f"for {var} in range({bound}):")
            self.loop_vars.append(var)
            self.statement(indent + 1, depth + 1)
            self.block(indent + 1, depth + 1, int(self.rng.integers(0, 3)))
            self.loop_vars.pop()
        elif kind == "forlist":
            var = "vuw"[depth]
            self.emit(indent, f"for {var} in list(ys):")
            self.loop_vars.append(var)
            self.in_list_loop = True
            self.statement(indent + 1, depth + 1)
            self.block(indent + 1, depth + 1, int(self.rng.integers(0, 2)))
            self.in_list_loop = False
            self.loop_vars.pop()
        elif kind == "append":
            self.emit(indent, f"ys.append({self.expr()})")
        elif kind == "setitem":
            self.emit(indent, f"ys[{self.atom()} % len(ys)] = {self.expr()}")
        else:
            self.emit(
                indent, f"d[{self.atom()} % {self.const(3, 6)}] = d.get({self.atom()} % 4, 0) + {self.atom()}"
            )


def draw_program(spec: ProgramSpec, rng: np.random.Generator) -> tuple[str, Any]:
    """Source text defining ``f`` (and maybe ``g``), and an input value for ``f``."""
    writer = _Writer(spec, rng)
    head: list[str] = []
    if spec.recursion:
        template = _HELPERS[int(rng.integers(len(_HELPERS)))]
        head.append(template.format(k=writer.const(1, 5), m=writer.const(2, 4), p=writer.const(11, 97)))
    if spec.data_structures:
        arg: Any = [int(v) for v in rng.integers(-9, 10, size=int(rng.integers(3, 6)))]
        writer.emit(1, "ys = list(x)")
        writer.emit(1, "d = {}")
        writer.emit(1, f"a, b, c = x[0], len(x), {writer.const()}")
    else:
        arg = int(rng.integers(-20, 21))
        writer.emit(1, f"a, b, c = x, {writer.const()}, x % {writer.const(2, 7)}")
    while writer.budget > 0:
        writer.statement(1, 0)
    returned = ["a", "b", "c"][: int(rng.integers(1, 4))]
    if spec.data_structures:
        returned += ["ys", "d"] if rng.random() < 0.5 else ["ys"]
    ret = returned[0] if len(returned) == 1 else "(" + ", ".join(returned) + ")"
    writer.emit(1, f"return {ret}")
    source = "".join(head) + "def f(x):\n" + "\n".join(writer.lines) + "\n"
    return source, arg


class _TooLong(Exception):
    pass


def trace_run(source: str, arg: Any, max_steps: int = MAX_STEPS) -> tuple[Any, int]:
    """Run OUR generated ``source``'s ``f(arg)`` in-process; (result, executed lines).

    Raises ``RuntimeError`` when the program errs or runs past ``max_steps`` lines.
    """
    steps = 0

    def tracer(frame: Any, event: str, _arg: Any) -> Any:
        nonlocal steps
        if event == "line" and frame.f_code.co_filename == "<palaestra-program>":
            steps += 1
            if steps > max_steps:
                raise _TooLong
        return tracer

    namespace: dict[str, Any] = {"__builtins__": {"len": len, "list": list, "range": range}}
    code = compile(source, "<palaestra-program>", "exec")
    exec(code, namespace)  # noqa: S102 - our own generated source, never model text
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        result = namespace["f"](arg if not isinstance(arg, list) else list(arg))
    except (_TooLong, ArithmeticError, IndexError, KeyError, RecursionError) as exc:
        raise RuntimeError(f"program failed: {type(exc).__name__}") from None
    finally:
        sys.settrace(old)
    return result, steps
