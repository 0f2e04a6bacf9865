"""bitwise: every expression re-read from the prompt and evaluated with numpy's fixed-width
integer types (their own wrap-around, shifts and two's complement), never the family's code."""

from __future__ import annotations

import re
import time

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra

FAMILY = "bitwise"
IMPL = palaestra.get(FAMILY).impl
UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SIGNED = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_TOKEN = re.compile(r"\s*(0x[0-9A-F]+|0b[01]+|\d+|<<|>>|rotl|rotr|sar|[()&|^~+\-,])")


class NumpyEvaluator:
    """A recursive-descent reader of the rendered expression, computing on 1-element arrays."""

    def __init__(self, text: str, width: int):
        self.tokens = _TOKEN.findall(text)
        assert "".join(self.tokens) == re.sub(r"\s+", "", text)
        self.pos, self.width, self.dtype = 0, width, UNSIGNED[width]

    def take(self) -> str:
        self.pos += 1
        return self.tokens[self.pos - 1]

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def value(self) -> np.ndarray:
        result = self.expression()
        assert self.peek() is None
        return result

    def expression(self) -> np.ndarray:
        left = self.atom()
        if self.peek() in ("&", "|", "^", "+", "-"):
            op, right = self.take(), self.atom()
            return {
                "&": np.bitwise_and,
                "|": np.bitwise_or,
                "^": np.bitwise_xor,
                "+": np.add,
                "-": np.subtract,
            }[op](left, right)
        if self.peek() in ("<<", ">>"):
            op, k = self.take(), self.dtype(int(self.take()))
            return np.left_shift(left, k) if op == "<<" else np.right_shift(left, k)
        return left

    def atom(self) -> np.ndarray:
        token = self.take()
        if token == "(":
            inner = self.expression()
            assert self.take() == ")"
            return inner
        if token == "~":
            return np.invert(self.atom())
        if token in ("rotl", "rotr", "sar"):
            assert self.take() == "("
            x = self.expression()
            assert self.take() == ","
            k = int(self.take())
            assert self.take() == ")"
            if token == "sar":
                return np.right_shift(x.view(SIGNED[self.width]), k).view(self.dtype)
            a, b = (k, self.width - k) if token == "rotl" else (self.width - k, k)
            return np.left_shift(x, self.dtype(a)) | np.right_shift(x, self.dtype(b))
        base = 16 if token.startswith("0x") else 2 if token.startswith("0b") else 10
        return np.array([int(token[2:] if base != 10 else token, base)], dtype=self.dtype)


def numpy_answer(task: palaestra.Task) -> int:
    width = int(re.search(r"All values are (\d+)-bit", task.prompt)[1])
    expression = re.search(r"^Expression: (.*)$", task.prompt, re.M)[1]
    with np.errstate(over="ignore"):
        result = NumpyEvaluator(expression, width).value()
    if "signed integer in two's complement" in task.prompt:
        return int(result.view(SIGNED[width])[0])
    if "popcount" in task.prompt:
        return bin(int(result[0])).count("1")
    return int(result[0])


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
def test_answers_agree_with_numpy_fixed_width_evaluation(seed: int, level: int) -> None:
    task = palaestra.make_task(FAMILY, seed=seed, level=level)
    assert int(task.answer) == numpy_answer(task), task.prompt


def test_every_operator_and_question_appears_and_agrees() -> None:
    operators, asks = set(), set()
    for seed in range(200):
        task = palaestra.make_task(FAMILY, seed=seed, level=10)
        assert int(task.answer) == numpy_answer(task)
        operators |= set(task.metadata["operators"])
        asks.add(task.metadata["ask"])
    assert operators == {"&", "|", "^", "<<", ">>", "~", "sar", "rotl", "rotr", "+", "-"}
    assert asks == {"unsigned", "signed", "popcount"}


def _task(ask: str, level: int = 7) -> palaestra.Task:
    for seed in range(300):
        task = palaestra.make_task(FAMILY, seed=seed, level=level)
        if task.metadata["ask"] == ask and (ask != "signed" or int(task.answer) < 0):
            return task
    raise AssertionError(ask)


def test_unsigned_answers_in_any_base() -> None:
    task = _task("unsigned")
    value = int(task.answer)
    for text in (str(value), hex(value), hex(value).upper().replace("0X", "0x"), bin(value), f"{value:,}"):
        assert palaestra.verify(task, f"<answer>{text}</answer>").correct, text
    for text in (str(value + 1), hex(value ^ 1), bin(value)[:-1], f"{value} or {value + 1}", "0x", "0xZZ"):
        assert not palaestra.verify(task, f"<answer>{text}</answer>").correct, text


def test_signed_answers_are_decimal_and_not_the_unsigned_reading() -> None:
    task = _task("signed")
    value, width = int(task.answer), task.metadata["width"]
    assert palaestra.verify(task, f"<answer>{value}</answer>").correct
    assert palaestra.verify(task, f"<answer>\u2212{-value}</answer>").correct  # a typographic minus
    assert not palaestra.verify(task, f"<answer>{value + 2**width}</answer>").correct
    assert not palaestra.verify(task, f"<answer>{hex(value + 2**width)}</answer>").correct


def test_weak_solver_fails_once_the_width_matters() -> None:
    for seed in range(30):
        task = palaestra.make_task(FAMILY, seed=seed, level=9)
        assert not palaestra.verify(task, IMPL.solve_weak(task).response).correct
    task = palaestra.make_task(FAMILY, seed=0, level=1)
    assert palaestra.verify(task, IMPL.solve_weak(task).response).correct


def test_hostile_answers_are_quick_format_errors() -> None:
    task = _task("unsigned")
    for text in ("0x" + "F" * 100_000, "0b" + "1" * 50_000, "1" * 5000, "0x" * 3000):
        started = time.process_time()
        verdict = palaestra.verify(task, f"<answer>{text}</answer>")
        assert not verdict.correct and verdict.error is None
        assert time.process_time() - started < 0.05
