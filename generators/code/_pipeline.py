"""List-processing pipelines ``f(xs)`` shared by input_inversion and function_induction.

A pipeline is a list of JSON steps (map, filter, sort, reverse, prefix sums, pairwise sums,
slices). ``render`` writes it as a Python function; ``apply`` evaluates the steps directly
(our own interpreter, the same semantics) and counts element operations as the effort.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Step = dict[str, Any]

_MAPS = ("affine", "mod", "absdiff", "floordiv", "square_mod")
_KINDS = ("map", "map", "filter", "filter", "sort", "reverse", "prefix", "pairwise", "take", "drop")


def draw_step(rng: np.random.Generator, kinds: tuple[str, ...] = _KINDS) -> Step:
    kind = kinds[int(rng.integers(len(kinds)))]
    c = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731
    if kind == "map":
        op = _MAPS[int(rng.integers(len(_MAPS)))]
        return {"kind": "map", "op": op, "a": c(2, 5), "b": c(-5, 5) if op == "affine" else c(1, 9)}
    if kind == "filter":
        if rng.random() < 0.5:
            k = c(2, 4)
            return {"kind": "filter", "op": "mod", "a": k, "b": c(0, k - 1)}
        return {"kind": "filter", "op": "gt", "a": c(-3, 6), "b": 0}
    if kind in ("take", "drop"):
        return {"kind": kind, "a": c(1, 3)}
    return {"kind": kind}


def draw_pipeline(steps: int, rng: np.random.Generator) -> list[Step]:
    """``steps`` steps, no two identical neighbours (e.g. sort after sort does nothing)."""
    out: list[Step] = []
    while len(out) < steps:
        step = draw_step(rng)
        if out and step["kind"] == out[-1]["kind"] and step["kind"] in ("sort", "reverse"):
            continue
        out.append(step)
    return out


def _map_expr(step: Step) -> str:
    a, b, op = step["a"], step["b"], step["op"]
    if op == "affine":
        return f"x * {a} + {b}" if b >= 0 else f"x * {a} - {-b}"
    if op == "mod":
        return f"x % {a + b}"
    if op == "absdiff":
        return f"abs(x - {b})"
    if op == "floordiv":
        return f"x // {a}"
    return f"(x * x) % {10 + b}"


def render(pipeline: list[Step], name: str = "f") -> str:
    """Python source of the pipeline as ``def name(xs)``."""
    lines = [f"def {name}(xs):", "    xs = list(xs)"]
    for step in pipeline:
        kind = step["kind"]
        if kind == "map":
            lines.append(f"    xs = [{_map_expr(step)} for x in xs]")
        elif kind == "filter":
            cond = f"x % {step['a']} == {step['b']}" if step["op"] == "mod" else f"x > {step['a']}"
            lines.append(f"    xs = [x for x in xs if {cond}]")
        elif kind == "sort":
            lines.append("    xs = sorted(xs)")
        elif kind == "reverse":
            lines.append("    xs = xs[::-1]")
        elif kind == "prefix":
            lines.append("    xs = [sum(xs[: i + 1]) for i in range(len(xs))]")
        elif kind == "pairwise":
            lines.append("    xs = [xs[i] + xs[i + 1] for i in range(len(xs) - 1)]")
        elif kind == "take":
            lines.append(f"    xs = xs[: {step['a']} + len(xs) // 2]")
        else:
            lines.append(f"    xs = xs[{step['a']}:]")
    lines.append("    return xs")
    return "\n".join(lines) + "\n"


def _map_value(step: Step, x: int) -> int:
    a, b, op = step["a"], step["b"], step["op"]
    if op == "affine":
        return x * a + b
    if op == "mod":
        return x % (a + b)
    if op == "absdiff":
        return abs(x - b)
    if op == "floordiv":
        return x // a
    return (x * x) % (10 + b)


def apply(pipeline: list[Step], xs: list[int]) -> tuple[list[int], int]:
    """(output, element operations) of the pipeline on ``xs`` (same semantics as ``render``)."""
    xs, work = list(xs), 0
    for step in pipeline:
        kind = step["kind"]
        work += max(len(xs), 1)
        if kind == "map":
            xs = [_map_value(step, x) for x in xs]
        elif kind == "filter":
            if step["op"] == "mod":
                xs = [x for x in xs if x % step["a"] == step["b"]]
            else:
                xs = [x for x in xs if x > step["a"]]
        elif kind == "sort":
            xs = sorted(xs)
        elif kind == "reverse":
            xs = xs[::-1]
        elif kind == "prefix":
            xs = [sum(xs[: i + 1]) for i in range(len(xs))]
        elif kind == "pairwise":
            xs = [xs[i] + xs[i + 1] for i in range(len(xs) - 1)]
        elif kind == "take":
            xs = xs[: step["a"] + len(xs) // 2]
        else:
            xs = xs[step["a"] :]
    return xs, work


def draw_input(rng: np.random.Generator, length: int, high: int) -> list[int]:
    return [int(v) for v in rng.integers(-high, high + 1, size=length)]
