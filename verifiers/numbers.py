"""A small, exact parser for rational numbers written by a model.

Accepted forms (optionally signed, optionally wrapped in ``$...$`` or ``\\(...\\)``):
integers (``42``, ``42,000`` with proper thousands groups), decimals (``3.5``, ``.5``),
fractions (``7/2``, ``\\frac{7}{2}``, ``\\dfrac``, ``\\tfrac``), and mixed numbers
(``3 1/2``, ``3\\frac{1}{2}``, proper fraction part only). Nothing is evaluated: the text is
matched against fixed patterns and built with :class:`fractions.Fraction`, so the cost is
linear in the (capped) length. Anything else returns ``None``.
"""

from __future__ import annotations

import re
from fractions import Fraction

MAX_NUMBER_CHARS = 400

_SIGN = r"(?P<sign>[+\-\u2212]?)"
_UINT = r"(?:\d{1,3}(?:,\d{3})+|\d+)"
_DECIMAL = re.compile(rf"^{_SIGN}(?P<int>{_UINT})?(?:\.(?P<frac>\d+))?$")
_FRACTION = re.compile(rf"^{_SIGN}(?P<num>\d+)\s*/\s*(?P<den>\d+)$")
_LATEX_FRACTION = re.compile(rf"^{_SIGN}\\[dt]?frac\s*\{{\s*(?P<num>\d+)\s*\}}\s*\{{\s*(?P<den>\d+)\s*\}}$")
_MIXED = re.compile(rf"^{_SIGN}(?P<whole>\d+)\s+(?P<num>\d+)\s*/\s*(?P<den>\d+)$")
_LATEX_MIXED = re.compile(
    rf"^{_SIGN}(?P<whole>\d+)\s*\\[dt]?frac\s*\{{\s*(?P<num>\d+)\s*\}}\s*\{{\s*(?P<den>\d+)\s*\}}$"
)
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


def _unwrap(text: str) -> str:
    text = text.strip()
    for left, right in _WRAPPERS:
        if len(text) >= len(left) + len(right) and text.startswith(left) and text.endswith(right):
            return text[len(left) : len(text) - len(right)].strip()
    return text


def _signed(sign: str, value: Fraction) -> Fraction:
    return -value if sign in ("-", "\u2212") else value


def parse_rational(text: str) -> Fraction | None:
    """Parse ``text`` as an exact rational number, or return ``None`` if it is not one."""
    if not isinstance(text, str) or len(text) > MAX_NUMBER_CHARS:
        return None
    text = _unwrap(text)
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()  # a sentence-final full stop is not a decimal point
    if match := _DECIMAL.match(text):
        whole, frac = match["int"], match["frac"]
        if whole is None and frac is None:
            return None
        digits = (whole or "0").replace(",", "")
        value = Fraction(int(digits + (frac or "")), 10 ** len(frac or ""))
        return _signed(match["sign"], value)
    for pattern in (_FRACTION, _LATEX_FRACTION):
        if match := pattern.match(text):
            den = int(match["den"])
            return None if den == 0 else _signed(match["sign"], Fraction(int(match["num"]), den))
    for pattern in (_MIXED, _LATEX_MIXED):
        if match := pattern.match(text):
            num, den = int(match["num"]), int(match["den"])
            if den == 0 or num >= den:  # "3 5/2" is ambiguous, not a mixed number
                return None
            return _signed(match["sign"], int(match["whole"]) + Fraction(num, den))
    return None


def format_rational(value: Fraction) -> str:
    """Canonical text of a rational: ``7/2``, ``-3``."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
