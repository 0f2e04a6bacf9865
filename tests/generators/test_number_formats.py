"""Tests for the number_formats family."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.core import Task
from palaestra.generators.arithmetic.number_formats import (
    float_decode,
    float_encode,
    parse_bits,
    parse_value,
    twos_decode,
    twos_encode,
)
from palaestra.registry import get, make_task, verify

FAMILY = "number_formats"
IMPL = get(FAMILY).impl


@pytest.mark.parametrize("level", range(1, 11))
def test_reference_exact_and_mutations(level: int) -> None:
    for seed in range(10):
        task = make_task(FAMILY, seed=seed, level=level)
        assert verify(task, IMPL.reference_response(task)).correct
        assert verify(task, IMPL.solve_exact(task).response).correct
        mutations = IMPL.mutated_responses(task, np.random.default_rng(seed))
        assert len(set(mutations)) >= 3
        for response in mutations:
            assert not verify(task, response).correct, response
        assert Task.from_json(task.to_json()) == task
        assert make_task(FAMILY, seed=seed, level=level) == task


def _library_bits(x: float, precision: str) -> str:
    """Bits from struct/numpy (double rounding via float64 is innocuous for these short inputs)."""
    if precision == "double":
        return format(struct.unpack(">Q", struct.pack(">d", x))[0], "064b")
    if precision == "single":
        return (
            format(struct.unpack(">I", struct.pack(">f", x))[0], "032b")
            if abs(x) < 3.4e38
            else format(struct.unpack(">I", struct.pack(">f", math.copysign(math.inf, x)))[0], "032b")
        )
    return format(int(np.array([x], dtype=np.float16).view(np.uint16)[0]), "016b")


@settings(max_examples=200, deadline=None)
@given(
    numerator=st.integers(-(10**8), 10**8),
    places=st.integers(0, 6),
    precision=st.sampled_from(["half", "single", "double"]),
)
def test_float_encode_matches_hardware(numerator: int, places: int, precision: str) -> None:
    x = Fraction(numerator, 10**places)
    with np.errstate(over="ignore"):
        assert float_encode(x, precision) == _library_bits(float(x), precision)


@settings(max_examples=200, deadline=None)
@given(pattern=st.integers(0, 2**64 - 1))
def test_float_decode_matches_hardware(pattern: int) -> None:
    bits = format(pattern, "064b")
    value = float_decode(bits, "double")
    hardware = struct.unpack(">d", struct.pack(">Q", pattern))[0]
    if math.isnan(hardware):
        assert value == "nan"
    elif math.isinf(hardware):
        assert value == ("inf" if hardware > 0 else "-inf")
    elif hardware == 0 and math.copysign(1, hardware) < 0:
        assert value == "-0"
    else:
        assert value == Fraction(hardware)
        assert float_encode(Fraction(hardware), "double") == bits  # round trip
    half_bits = bits[:16]
    half = float(np.array([int(half_bits, 2)], dtype=np.uint16).view(np.float16)[0])
    half_value = float_decode(half_bits, "half")
    if not (math.isnan(half) or math.isinf(half) or half == 0):
        assert half_value == Fraction(half)


@settings(max_examples=100, deadline=None)
@given(width=st.sampled_from([4, 8, 16, 32, 64]), data=st.data())
def test_twos_complement_round_trip(width: int, data: st.DataObject) -> None:
    value = data.draw(st.integers(-(2 ** (width - 1)), 2 ** (width - 1) - 1))
    bits = twos_encode(value, width)
    assert len(bits) == width and twos_decode(bits) == value
    assert (
        int.from_bytes(value.to_bytes(max(1, width // 8), "big", signed=True), "big") == int(bits, 2)
        or width == 4
    )


def test_answer_formats() -> None:
    assert parse_bits("0b1111 0000", 8) == "11110000"
    assert parse_bits("1111_0000", 8) == "11110000"
    assert parse_bits("0xF0", 8) == "11110000"
    assert parse_bits("0xF", 8) is None  # hex must give every digit
    assert parse_bits("1111000", 8) is None
    assert parse_value("-13.375") == Fraction(-107, 8)
    assert parse_value("3/1024") == Fraction(3, 1024)
    assert parse_value("1.5e-3") == Fraction(3, 2000)
    assert parse_value("5*2^-10") == Fraction(5, 1024)
    assert parse_value("5 \\times 2^{-10}") == Fraction(5, 1024)
    assert parse_value("-inf") == "-inf" and parse_value("∞") == "inf" and parse_value("NaN") == "nan"
    assert parse_value("-0.0") == "-0" and parse_value("0") == 0
    assert parse_value("2^") is None


def test_verifier_variants_on_a_float_decode() -> None:
    task = next(
        t
        for s in range(200)
        if (t := make_task(FAMILY, seed=s, level=2)).metadata["direction"] == "decode"
        and "." in t.metadata["value"]
    )
    value = Fraction(task.metadata["value"])
    for text in (task.metadata["value"], f"{value.numerator}/{value.denominator}", f"\\boxed{{{value}}}"):
        assert verify(task, f"<answer>{text}</answer>").correct, text
    assert not verify(task, f"<answer>{float(value) + 1e-9}</answer>").correct
    assert not verify(task, "<answer>nan</answer>").correct


def test_negative_zero_and_specials() -> None:
    assert float_encode(Fraction(0), "single", negative_zero=True) == "1" + "0" * 31
    assert float_encode(Fraction(2) ** 200, "single") == "0" + "1" * 8 + "0" * 23  # overflow -> inf
    assert float_decode("0" + "1" * 5 + "0" * 9 + "1", "half") == "nan"
    assert float_decode("0" + "0" * 5 + "0" * 9 + "1", "half") == Fraction(1, 2**24)


def test_weak_solver_falls_and_effort_grows() -> None:
    def rates(level: int) -> tuple[float, float]:
        tasks = [make_task(FAMILY, seed=s, level=level) for s in range(60)]
        weak = np.mean([verify(t, IMPL.solve_weak(t).response or "").correct for t in tasks])
        effort = np.mean([IMPL.solve_exact(t).effort for t in tasks])
        return float(weak), float(effort)

    (weak1, effort1), (weak5, effort5), (weak10, effort10) = rates(1), rates(5), rates(10)
    assert weak1 == 1.0 and weak1 > weak5 and weak10 < 0.5
    assert effort1 < effort5 < effort10
