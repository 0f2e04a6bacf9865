"""Helpers shared by the math families: answer reading, exact number verdicts, the calculator
heuristic of the weak solvers, and near-miss answers.

Numbers are read with the shared reader :mod:`palaestra.verifiers.numbers` (exact rationals,
nothing evaluated); answers with radicals, pi or units go to the math equivalence verifier
:mod:`palaestra.verifiers.math`. Every reader here is linear in the (capped) answer length and
never raises on model text.
"""

from __future__ import annotations

import re
from fractions import Fraction

from palaestra.core import Verdict
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.math import MathPolicy, math_equal
from palaestra.verifiers.numbers import format_rational, parse_rational

MAX_ANSWER_CHARS = 2_000  # every math answer here is short; longer text is a format error
_LIST_SPLIT = re.compile(r"\s*[,;]\s*|\s+")


def answer_text(response: str, *, one_line: bool = True) -> str | Verdict:
    """The final answer of ``response`` (tags, box or the bare response), or the format verdict.

    A math answer is one value unless the family says otherwise (``one_line=False`` for a list
    of numbers that may be written one per line): lines stating different values are several
    answers, a format error.
    """
    extraction = extract_answer(response, allow_bare=True, max_chars=MAX_ANSWER_CHARS, one_line=one_line)
    if not extraction.ok or extraction.text is None:
        return Verdict.bad_format(extraction.error or "no answer found")
    return extraction.text


def tagged(text: object) -> str:
    """A model-style response carrying ``text`` as its final answer."""
    return f"<answer>{text}</answer>"


def read_number(text: str) -> Fraction | Verdict:
    """One exact rational number, or the format verdict saying why ``text`` is not one."""
    value = parse_rational(text)
    if value is None:
        return Verdict.bad_format(f"could not read {text[:60]!r} as one exact number")
    return value


def judge_number(value: Fraction, expected: Fraction, what: str) -> Verdict:
    """Right when the exact values agree; the reason names ``what`` was asked."""
    shown = format_rational(value)
    if value == expected:
        return Verdict.right(parsed=shown)
    return Verdict.wrong(f"{shown} is not {what}", parsed=shown)


def verify_number(response: str, expected: Fraction | int, what: str = "the answer") -> Verdict:
    """Grade a response whose answer is one exact rational number (any exact notation)."""
    text = answer_text(response)
    if isinstance(text, Verdict):
        return text
    value = read_number(text)
    if isinstance(value, Verdict):
        return value
    return judge_number(value, Fraction(expected), what)


def read_number_list(text: str, count: int) -> list[Fraction] | Verdict:
    """Exactly ``count`` exact numbers separated by commas, semicolons or spaces, optionally in
    one pair of brackets; anything else is a format error."""
    body = text.strip()
    if len(body) >= 2 and (body[0], body[-1]) in (("(", ")"), ("[", "]")):
        body = body[1:-1].strip()
    body = body.rstrip(".").strip()
    parts = [p for p in _LIST_SPLIT.split(body) if p] if body else []
    if len(parts) != count:
        return Verdict.bad_format(f"expected exactly {count} numbers, read {len(parts)}")
    values = []
    for part in parts:
        value = parse_rational(part)
        if value is None:
            return Verdict.bad_format(f"could not read {part[:40]!r} as an exact number")
        values.append(value)
    return values


def verify_math_answer(response: str, gold: str, policy: MathPolicy, question: str | None = None) -> Verdict:
    """Grade a response whose answer is a closed form (radicals, pi, points, units) with the
    math equivalence verifier under ``policy``; ``question`` is the task's prompt, which the
    written-number rule reads (an answer restating it is not paid)."""
    text = answer_text(response)
    if isinstance(text, Verdict):
        return text
    return math_equal(gold, text, policy=policy, question=question)


# --------------------------------------------------------------------------------------------
# The weak solvers' calculator
# --------------------------------------------------------------------------------------------


def calculator(value: Fraction, digits: int = 8, max_denominator: int = 12) -> Fraction:
    """What a pocket calculator user writes down for ``value``: the decimal display rounded to
    ``digits`` significant digits, recognised as a fraction with a small denominator when one
    is that close (``0.3333333`` -> 1/3), else the displayed decimal itself.

    It is right exactly when ``value`` is a fraction with denominator at most
    ``max_denominator`` whose display loses nothing, so it fails on large values and on fine
    fractions: the weak solvers' solve rate falls as the answers grow.
    """
    if value == 0:
        return Fraction(0)
    if abs(value) >= 10**300:  # past a float's range: the display overflows
        return Fraction(0)
    shown = Fraction(f"{float(value):.{digits - 1}e}")
    guess = shown.limit_denominator(max_denominator)
    tolerance = Fraction(1, 10 ** (digits - 1)) * abs(shown)
    return guess if abs(guess - shown) <= tolerance else shown


# --------------------------------------------------------------------------------------------
# Near misses
# --------------------------------------------------------------------------------------------


def number_near_misses(value: Fraction) -> list[Fraction]:
    """At least three distinct wrong values close to ``value`` (off by one, halved, sign)."""
    candidates = [value + 1, value - 1, value * 2 + 1, -value - 1, value + Fraction(1, 2)]
    if value.denominator > 1:
        candidates += [Fraction(value.denominator, value.numerator or 1), Fraction(value.numerator)]
    out: list[Fraction] = []
    for c in candidates:
        if c != value and c not in out:
            out.append(c)
    return out
