"""List-processing pipelines ``f(xs)`` shared by input_inversion, function_induction, bug_repair.

A pipeline is a list of JSON steps (map, filter, sort, reverse, prefix sums, pairwise sums,
slices). ``render`` writes it as a Python function; ``apply`` evaluates the steps directly
(our own interpreter, the same semantics) and counts element operations as the effort.

Two step spaces: ``draw_step`` (the original small one, used by input_inversion) and
``rich_steps`` / ``draw_rich_pipeline`` (function_induction, bug_repair): every kind has
parameters that all change the function, constants spread with the inputs' value range, and the
parameter-free reorderings/scans are drawn rarely, so that few-step pipelines rarely repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
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


def _signed(value: int) -> str:
    return f"+ {value}" if value >= 0 else f"- {-value}"


def _map_expr(step: Step) -> str:
    a, b, op = step["a"], step.get("b"), step["op"]
    rich = {
        "lin": lambda: f"x * {a} {_signed(b)}",
        "rem": lambda: f"x % {a}",
        "dist": lambda: f"abs(x {_signed(-a)})",
        "div": lambda: f"x // {a}",
        "sqrem": lambda: f"(x * x) % {a}",
        "min": lambda: f"min(x, {a})",
        "max": lambda: f"max(x, {a})",
    }
    if op in rich:
        return rich[op]()
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
            lines.append(f"    xs = [x for x in xs if {_condition(step)}]")
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
        elif kind == "drop":
            lines.append(f"    xs = xs[{step['a']}:]")
        else:
            lines.append(f"    xs = {_RICH_LINES[kind].format(**step)}")
    lines.append("    return xs")
    return "\n".join(lines) + "\n"


def _condition(step: Step) -> str:
    a, b, op = step["a"], step.get("b"), step["op"]
    return {"mod": f"x % {a} == {b}", "modne": f"x % {a} != {b}", "gt": f"x > {a}", "lt": f"x < {a}"}[op]


# rendered lines of the rich non-map, non-filter kinds (``str.format`` with the step's fields)
_RICH_LINES = {
    "sort_desc": "sorted(xs, reverse=True)",
    "sort_abs": "sorted(xs, key=abs)",
    "sort_mod": "sorted(xs, key=lambda x: (x % {a}, x))",
    "rotate": "xs[{a} % len(xs) :] + xs[: {a} % len(xs)] if xs else xs",
    "prefix_max": "[max(xs[: i + 1]) for i in range(len(xs))]",
    "prefix_min": "[min(xs[: i + 1]) for i in range(len(xs))]",
    "adjacent_sum": "[xs[i] + xs[i + {a}] for i in range(len(xs) - {a})]",
    "adjacent_diff": "[xs[i + {a}] - xs[i] for i in range(len(xs) - {a})]",
    "adjacent_max": "[max(xs[i], xs[i + {a}]) for i in range(len(xs) - {a})]",
    "adjacent_min": "[min(xs[i], xs[i + {a}]) for i in range(len(xs) - {a})]",
    "stride": "xs[{b} :: {a}]",
}


def _rich_apply(step: Step, xs: list[int]) -> list[int]:
    kind, a, b = step["kind"], step.get("a"), step.get("b")
    if kind == "sort_desc":
        return sorted(xs, reverse=True)
    if kind == "sort_abs":
        return sorted(xs, key=abs)
    if kind == "sort_mod":
        return sorted(xs, key=lambda x: (x % a, x))
    if kind == "rotate":
        return xs[a % len(xs) :] + xs[: a % len(xs)] if xs else xs
    if kind == "prefix_max":
        return [max(xs[: i + 1]) for i in range(len(xs))]
    if kind == "prefix_min":
        return [min(xs[: i + 1]) for i in range(len(xs))]
    if kind.startswith("adjacent_"):
        pair = {"sum": lambda u, v: u + v, "diff": lambda u, v: v - u, "max": max, "min": min}[kind[9:]]
        return [pair(xs[i], xs[i + a]) for i in range(len(xs) - a)]
    if kind == "stride":
        return xs[b::a]
    raise ValueError(f"unknown step kind {kind!r}")


def element_function(step: Step) -> Callable[[int], Any]:
    """The per-element function of a map step (new value) or a filter step (keep it?)."""
    make = _map_function if step["kind"] == "map" else _filter_function
    return make(step["op"], step["a"], step.get("b"))


@lru_cache(maxsize=4096)
def _map_function(op: str, a: int, b: int | None) -> Callable[[int], int]:
    """The element map of a map step (built once per distinct step: ``apply`` is hot)."""
    return {
        "lin": lambda x: x * a + b,
        "rem": lambda x: x % a,
        "dist": lambda x: abs(x - a),
        "div": lambda x: x // a,
        "sqrem": lambda x: (x * x) % a,
        "min": lambda x: min(x, a),
        "max": lambda x: max(x, a),
        "affine": lambda x: x * a + b,
        "mod": lambda x: x % (a + b),
        "absdiff": lambda x: abs(x - b),
        "floordiv": lambda x: x // a,
        "square_mod": lambda x: (x * x) % (10 + b),
    }[op]


@lru_cache(maxsize=4096)
def _filter_function(op: str, a: int, b: int | None) -> Callable[[int], bool]:
    return {
        "mod": lambda x: x % a == b,
        "modne": lambda x: x % a != b,
        "gt": lambda x: x > a,
        "lt": lambda x: x < a,
    }[op]


def apply(pipeline: list[Step], xs: list[int]) -> tuple[list[int], int]:
    """(output, element operations) of the pipeline on ``xs`` (same semantics as ``render``)."""
    xs, work = list(xs), 0
    for step in pipeline:
        kind = step["kind"]
        work += max(len(xs), 1)
        if kind == "map":
            xs = list(map(element_function(step), xs))
        elif kind == "filter":
            xs = list(filter(element_function(step), xs))
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
        elif kind == "drop":
            xs = xs[step["a"] :]
        else:
            xs = _rich_apply(step, xs)
    return xs, work


def draw_input(rng: np.random.Generator, length: int, high: int) -> list[int]:
    return [int(v) for v in rng.integers(-high, high + 1, size=length)]


# The rich space: groups of step kinds with their draw weights. Parameter-rich maps and filters
# carry most of the weight; reorderings, scans and slices (a few variants each) are rarer.
RICH_WEIGHTS = {"map": 0.62, "filter": 0.22, "order": 0.05, "scan": 0.05, "slice": 0.06}


@lru_cache(maxsize=64)
def rich_steps(spread: int) -> dict[str, list[Step]]:
    """Every step of the rich space by group; constants compared with the values lie in
    [-spread, spread], affine offsets in [-2 spread, 2 spread] (an offset is as easy to read
    off at any size). Each listed parameter changes the function (no unused fields). Cached:
    callers must not mutate the result (``draw_rich_pipeline`` copies the steps it draws)."""
    span = range(-spread, spread + 1)
    maps: list[Step] = [
        {"kind": "map", "op": "lin", "a": a, "b": b}
        for a in (-5, -4, -3, -2, -1, 2, 3, 4, 5, 6, 7)
        for b in range(-2 * spread, 2 * spread + 1)
    ]
    maps += [{"kind": "map", "op": "rem", "a": m} for m in range(2, 13)]
    maps += [{"kind": "map", "op": "div", "a": d} for d in range(2, 10)]
    maps += [{"kind": "map", "op": "sqrem", "a": m} for m in range(5, 20)]
    maps += [{"kind": "map", "op": op, "a": c} for op in ("dist", "min", "max") for c in span]
    # x % k != r only for k > 2 (for k = 2 it is x % 2 == 1 - r, already listed)
    filters: list[Step] = [
        {"kind": "filter", "op": op, "a": k, "b": r}
        for op in ("mod", "modne")
        for k in range(2 if op == "mod" else 3, 7)
        for r in range(k)
    ]
    filters += [{"kind": "filter", "op": op, "a": c} for op in ("gt", "lt") for c in span]
    order: list[Step] = [{"kind": k} for k in ("sort", "sort_desc", "sort_abs", "reverse")]
    order += [{"kind": "sort_mod", "a": k} for k in range(2, 7)] + [
        {"kind": "rotate", "a": k} for k in range(1, 5)
    ]
    scan: list[Step] = [{"kind": k} for k in ("prefix", "prefix_max", "prefix_min")]
    scan += [
        {"kind": f"adjacent_{op}", "a": gap} for op in ("sum", "diff", "max", "min") for gap in (1, 2, 3)
    ]
    slices: list[Step] = [{"kind": k, "a": a} for k in ("take", "drop") for a in range(1, 6)]
    slices += [{"kind": "stride", "a": k, "b": r} for k in (2, 3, 4) for r in range(k)]
    return {"map": maps, "filter": filters, "order": order, "scan": scan, "slice": slices}


def _family_key(step: Step) -> str:
    """Steps of the same key must not be neighbours: two reorderings in a row, two affine maps,
    two thresholds, two drops... collapse into one step (or nearly), a disguised shorter pipeline."""
    kind = step["kind"]
    if kind in ("map", "filter"):
        return f"{kind}:{step['op']}"
    if kind.startswith(("sort", "rotate", "reverse")):
        return "order"
    return "prefix" if kind.startswith("prefix") else kind


def draw_rich_pipeline(steps: int, rng: np.random.Generator, spread: int) -> list[Step]:
    """``steps`` steps of the rich space; no two neighbours of the same family key."""
    space = rich_steps(spread)
    groups = list(RICH_WEIGHTS)
    weights = np.array([RICH_WEIGHTS[g] for g in groups])
    out: list[Step] = []
    while len(out) < steps:
        group = space[groups[int(rng.choice(len(groups), p=weights))]]
        step = dict(group[int(rng.integers(len(group)))])
        if out and _family_key(step) == _family_key(out[-1]):
            continue
        out.append(step)
    return out
