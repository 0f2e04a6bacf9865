"""Judges for the answer-valued code families: inputs, regexes, types, program differences."""

from __future__ import annotations

import ast
import itertools
import random
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from palaestra.core import Task

from ._readers import read_assignment
from ._registry import judge, others

_PROGRAM_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
}


def _program_value(node: list[Any], env: dict[str, int], width: int) -> int:
    mask = (1 << width) - 1
    op = node[0]
    if op == "var":
        return env[node[1]]
    if op == "const":
        return node[1] & mask
    if op == "not":
        return ~_program_value(node[1], env, width) & mask
    if op == "neg":
        return -_program_value(node[1], env, width) & mask
    a = _program_value(node[1], env, width)
    if op in ("shl", "shr"):
        k = node[2]
        return (a << k) & mask if op == "shl" else a >> k
    b = _program_value(node[2], env, width)
    return _PROGRAM_OPS[op](a, b) & mask


@judge("program_equivalence")
def _program_equivalence(task: Task, text: str) -> bool | None:
    meta = task.metadata
    if text.strip().lower().startswith("equivalent"):
        return False if not meta["equivalent"] else None
    names = meta["names"]
    values = read_assignment(text, names, values="int")
    if any(not 0 <= v < 1 << meta["width"] for v in values.values()):
        return False
    return _program_value(meta["f"], values, meta["width"]) != _program_value(
        meta["g"], values, meta["width"]
    )


@others("program_equivalence")
def _other_inputs(task: Task) -> list[str]:
    """Other distinguishing inputs, from a fixed pseudo-random sample of the input space."""
    meta = task.metadata
    if meta["equivalent"]:
        return []
    names, width = meta["names"], meta["width"]
    rng = random.Random(task.seed)
    out = []
    for _ in range(5000):
        env = {n: rng.randrange(1 << width) for n in names}
        if _program_value(meta["f"], env, width) != _program_value(meta["g"], env, width):
            out.append(", ".join(f"{n}={v}" for n, v in env.items()))
            if len(out) == 3:
                break
    return out


@judge("input_inversion")
def _input_inversion(task: Task, text: str) -> bool:
    xs = ast.literal_eval(text)
    if not isinstance(xs, list) or len(xs) > 30 or any(type(v) is not int or abs(v) > 10000 for v in xs):
        return False
    return _run_pipeline(task, xs) == task.metadata["target"]


def _run_pipeline(task: Task, xs: list[int]) -> Any:
    # the task's own generated source (our code, not model text)
    namespace: dict[str, Any] = {}
    exec(compile(task.metadata["source"], "<pipeline>", "exec"), namespace)  # noqa: S102
    return namespace["f"](list(xs))


@others("input_inversion")
def _other_inputs_inversion(task: Task) -> list[str]:
    """The reference input with one extra element that the pipeline drops (searched)."""
    reference = ast.literal_eval(str(task.answer))
    out = []
    if len(reference) >= 30:
        return out
    for v in range(-60, 61):
        for candidate in (reference + [v], [v] + reference):
            if _run_pipeline(task, candidate) == task.metadata["target"]:
                out.append(str(candidate))
                break
        if len(out) == 2:
            break
    return out


@judge("regex_synthesis")
def _regex_synthesis(task: Task, text: str) -> bool | None:
    if not re.fullmatch(r"[a-z.()|*+?\[\]^]*", text):
        return False
    return _language(text, task.metadata["alphabet"], task.metadata["max_len"]) == _language(
        str(task.answer), task.metadata["alphabet"], task.metadata["max_len"]
    )


@lru_cache(maxsize=512)
def _language(pattern: str, alphabet: str, max_len: int) -> frozenset[str]:
    compiled = re.compile(pattern)
    return frozenset(
        "".join(w)
        for n in range(max_len + 1)
        for w in itertools.product(alphabet, repeat=n)
        if compiled.fullmatch("".join(w))
    )


@judge("type_inference")
def _type_inference(task: Task, text: str) -> bool:
    return _type_shape(text) == _type_shape(str(task.answer))


def _type_shape(text: str) -> Any:
    """A type as a tree with variables renamed in order of appearance (equality up to renaming)."""
    tokens = re.findall(r"'\w+|int|bool|->|\*|\(|\)|\S", text)
    pos = 0
    names: dict[str, int] = {}

    def arrow() -> Any:
        nonlocal pos
        left = pair()
        if pos < len(tokens) and tokens[pos] == "->":
            pos += 1
            return ("->", left, arrow())
        return left

    def pair() -> Any:
        nonlocal pos
        parts = [atom()]
        while pos < len(tokens) and tokens[pos] == "*":
            pos += 1
            parts.append(atom())
        node = parts[0]
        for part in parts[1:]:
            node = ("*", node, part)
        return node

    def atom() -> Any:
        nonlocal pos
        token = tokens[pos]
        pos += 1
        if token == "(":
            node = arrow()
            if tokens[pos] != ")":
                raise ValueError("missing )")
            pos += 1
            return node
        if token.startswith("'"):
            return ("var", names.setdefault(token, len(names)))
        if token in ("int", "bool"):
            return token
        raise ValueError(token)

    tree = arrow()
    if pos != len(tokens):
        raise ValueError("trailing text")
    return tree
