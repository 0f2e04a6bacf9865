"""The exact rational parser used by arithmetic families."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.verifiers.numbers import format_rational, parse_rational


@pytest.mark.parametrize(
    "text,value",
    [
        ("42", Fraction(42)),
        ("-42", Fraction(-42)),
        ("\u22127", Fraction(-7)),
        ("+3", Fraction(3)),
        ("42,000", Fraction(42000)),
        ("1,234,567", Fraction(1234567)),
        ("3.5", Fraction(7, 2)),
        (".5", Fraction(1, 2)),
        ("-0.125", Fraction(-1, 8)),
        ("7/2", Fraction(7, 2)),
        ("-7 / 2", Fraction(-7, 2)),
        ("14/4", Fraction(7, 2)),
        ("\\frac{7}{2}", Fraction(7, 2)),
        ("-\\dfrac{7}{2}", Fraction(-7, 2)),
        ("\\tfrac{1}{3}", Fraction(1, 3)),
        ("3 1/2", Fraction(7, 2)),
        ("-3 1/2", Fraction(-7, 2)),
        ("3\\frac{1}{2}", Fraction(7, 2)),
        ("$3.5$", Fraction(7, 2)),
        ("\\(7/2\\)", Fraction(7, 2)),
        ("12.", Fraction(12)),
    ],
)
def test_exact_forms_parse(text: str, value: Fraction) -> None:
    assert parse_rational(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "",
        "nan",
        "inf",
        "1e3",
        "42,00",
        "1,0000",
        "3 5/2",
        "7/0",
        "\\frac{7}{0}",
        "3..",
        "x = 3",
        "3 or 4",
        "2+2",
        "0x10",
        "½",
        "1_000",
        "--3",
        "3.5.1",
        "9" * 500,
    ],
)
def test_everything_else_is_rejected(text: str) -> None:
    assert parse_rational(text) is None


@given(st.fractions(max_denominator=10**6).filter(lambda f: abs(f) < 10**12))
@settings(max_examples=300)
def test_round_trip_through_every_rendering(value: Fraction) -> None:
    assert parse_rational(format_rational(value)) == value
    assert parse_rational(f"\\frac{{{abs(value.numerator)}}}{{{value.denominator}}}") == abs(value)
    if value.denominator in (1, 2, 4, 5, 8, 10, 20, 25, 50, 100):
        # exact decimal digits from integer arithmetic (a float would round large values)
        scaled = abs(value.numerator) * (10**6 // value.denominator)
        whole, frac = divmod(scaled, 10**6)
        decimal = f"{'-' if value < 0 else ''}{whole}.{frac:06d}"
        assert parse_rational(decimal) == value


@given(st.fractions(max_denominator=1000), st.integers(1, 10**6))
@settings(max_examples=200)
def test_perturbations_are_different(value: Fraction, k: int) -> None:
    assert parse_rational(format_rational(value + Fraction(1, k))) != value
