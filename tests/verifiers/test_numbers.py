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
        # forms every number-taking family must accept (refused by some families before)
        ("7.0", Fraction(7)),
        ("$7$", Fraction(7)),
        ("7,767,531", Fraction(7767531)),
        ("\\frac{-7}{3}", Fraction(-7, 3)),
        ("\\frac{7}{-3}", Fraction(-7, 3)),
        ("-\\frac{-7}{3}", Fraction(7, 3)),
        ("\\boxed{7}", Fraction(7)),
        ("$\\boxed{-7}$.", Fraction(-7)),
        ("(-7)", Fraction(-7)),
        ("- 7", Fraction(-7)),
        ("1{,}000", Fraction(1000)),
        ("1\\,000\\,000", Fraction(10**6)),
        ("1\u2009000", Fraction(1000)),
        ("\uff17\uff10", Fraction(70)),  # fullwidth digits
        ("\uff0d\uff17", Fraction(-7)),  # fullwidth minus
        ("\u2212\\frac{1}{2}", Fraction(-1, 2)),
        ("½", Fraction(1, 2)),
        ("3½", Fraction(7, 2)),
        ("-⅔", Fraction(-2, 3)),
        ("\\frac12", Fraction(1, 2)),  # LaTeX's one-digit shorthand
        ("-\\tfrac34", Fraction(-3, 4)),
        ("3\\frac12", Fraction(7, 2)),
        ("\u0667", Fraction(7)),  # Arabic-Indic seven: a decimal digit of another script
        ("\u096d\u0966", Fraction(70)),  # Devanagari
        ("\U0001d7d5", Fraction(7)),  # mathematical bold seven
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
        "1234{,}567",
        "12{,}34",
        "7 or 8",
        "7, 8",
        "7 apples",
        "(7",
        "\u00b2",  # superscript two: a power, not a digit
        "7\u00b2",
        "\u2466",  # circled seven
        "O",  # a letter, not a zero
        "7\u20138",  # en dash
        "3\u00bd\u00bd",
        "\\frac{7}{3}x",
        "\\frac123",
        "\\frac{-7}{0}",
        "nan.",
        "Infinity",
        "9" * 5000,
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


@given(st.fractions(max_denominator=10**6), st.sampled_from(["{}", "${}$", "\\boxed{{{}}}", "({})", "{}."]))
@settings(max_examples=300)
def test_every_formatted_rational_reads_back_in_every_wrapper(value: Fraction, wrapper: str) -> None:
    assert parse_rational(wrapper.format(format_rational(value))) == value
    latex = f"\\frac{{{value.numerator}}}{{{value.denominator}}}"  # the sign inside the fraction
    assert parse_rational(wrapper.format(latex)) == value
    fullwidth = format_rational(value).translate({ord(c): ord(c) + 0xFEE0 for c in "0123456789-/"})
    assert parse_rational(fullwidth) == value


@given(st.integers(-(10**30), 10**30))
@settings(max_examples=200)
def test_thousands_groups_read_back(n: int) -> None:
    grouped = f"{n:,}"
    assert parse_rational(grouped) == n
    assert parse_rational(grouped.replace(",", "{,}")) == n
    assert parse_rational(f"{n}.0") == n


@given(st.text(max_size=60))
@settings(max_examples=500)
def test_never_raises_and_never_reads_superscripts_as_digits(text: str) -> None:
    value = parse_rational(text)
    if value is not None:
        assert not any(c.isdigit() and not c.isdecimal() for c in text), text


@given(st.fractions(max_denominator=1000), st.integers(1, 10**6))
@settings(max_examples=200)
def test_perturbations_are_different(value: Fraction, k: int) -> None:
    assert parse_rational(format_rational(value + Fraction(1, k))) != value


@pytest.mark.parametrize("text", ["0\n2/5", "373\n3/5", "3\n\\frac12", "-\n7", "3\n½", "7\n/2", "1\r\n1/2"])
def test_a_number_is_never_read_across_a_line_break(text: str) -> None:
    assert parse_rational(text) is None


@pytest.mark.parametrize(
    ("text", "value"), [(r"10,\!000", 10000), (r"1,\!234,\!567", 1234567), ("3 1/2", Fraction(7, 2))]
)
def test_math_thousands_and_mixed_numbers_on_one_line(text: str, value: Fraction) -> None:
    assert parse_rational(text) == value
