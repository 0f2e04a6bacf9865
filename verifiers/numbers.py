"""The one exact reader of numbers written by a model; every family that takes a number uses it.

Accepted forms of one rational number, optionally signed:

- integers ``42``, with thousands separators in groups of exactly three: ``42,000``,
  ``42{,}000``, ``42,\\!000`` (MATH's style), ``42\\,000`` (thin spaces U+2009/U+202F too),
  never ``42,00``;
- decimals ``3.5``, ``.5``, ``7.0`` (exact: ``7.0`` *is* 7; no rounding anywhere);
- fractions ``7/2``, ``\\frac{7}{2}`` (``\\dfrac``, ``\\tfrac``, ``\\frac72``, a sign inside:
  ``\\frac{-7}{2}``), vulgar fractions ``½`` ``⅔``, and mixed numbers ``3 1/2``,
  ``3\\frac{1}{2}``, ``3½`` (proper fraction part, on one line: ``0`` and ``2/5`` on two
  lines are two answers, never ``0 2/5``);
- wrapped in ``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``, ``\\boxed{...}`` or one pair
  of parentheses, followed by at most a sentence-final full stop.

Signs: ``+``, ``-`` and the typographic minus U+2212. Look-alikes that mean the same character
read as it (:func:`fold_lookalikes`): fullwidth forms (``７``, ``－７``), decimal digits of any
script (``٧``, ``७``, ``𝟕``). Others keep their own meaning and are refused: superscripts
(``7²`` is not 72), circled digits, en dashes (``7–8`` is a range), letters (``O``, ``l``).

Refused (``None``): anything else, e.g. ``nan``, ``inf``, ``1e3``, ``7 or 8``, ``7, 8``,
``x = 7``, ``7 apples``, ``--7``, ``7/0``, and any text longer than ``max_chars`` (400 by
default), so ``int()`` never meets more than a few hundred digits. Nothing is evaluated: the
text is matched against fixed patterns (linear time) and built with :class:`fractions.Fraction`.

Integer-valued families read with :func:`parse_rational` too and judge a non-integer value
*wrong*, not unparseable: ``7.5`` is a readable answer that is not the integer asked for.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from palaestra.core import Verdict

MAX_NUMBER_CHARS = 400
_PYTHON_INT_DIGITS_LIMIT = 4300  # int(str) raises beyond this (sys.get_int_max_str_digits)

_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_THOUSANDS = re.compile(r"(?<=[0-9])(?:\{,\}|,\\!|\\,|[\u2009\u202f])(?=[0-9]{3}(?![0-9]))")
# A number is read within one line: whitespace between its parts is [ \t], never a line break,
# so "0" and "2/5" on two lines are two answers, not the mixed number 0 2/5.
_SIGN = r"(?P<sign>[+\-\u2212]?)[ \t]*"
_UINT = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)"
_DECIMAL = re.compile(rf"{_SIGN}(?P<int>{_UINT})?(?:\.(?P<frac>[0-9]+))?")
_FRACTION = re.compile(rf"{_SIGN}(?P<num>[0-9]+)[ \t]*/[ \t]*(?P<den>[0-9]+)")
_PLAIN_INTEGER = re.compile(r"[+\-]?[0-9]+")  # ASCII only: no look-alike, wrapper or separator
_SIGNED_INT = r"[+\-\u2212]?[ \t]*[0-9]+"
_NUM_ARG = rf"(?:\{{\s*(?P<num>{_SIGNED_INT})\s*\}}|(?P<num_digit>[0-9]))"  # \frac{12}{5}, \frac12
_DEN_ARG = rf"(?:\{{\s*(?P<den>{_SIGNED_INT})\s*\}}|(?P<den_digit>[0-9]))"
_LATEX_FRACTION = re.compile(rf"{_SIGN}\\[dt]?frac\s*{_NUM_ARG}\s*{_DEN_ARG}")
_MIXED = re.compile(rf"{_SIGN}(?P<whole>[0-9]+)[ \t]+(?P<num>[0-9]+)[ \t]*/[ \t]*(?P<den>[0-9]+)")
_LATEX_MIXED = re.compile(
    rf"{_SIGN}(?P<whole>[0-9]+)[ \t]*\\[dt]?frac\s*(?:\{{\s*(?P<num>[0-9]+)\s*\}}|(?P<num_digit>[0-9]))"
    rf"\s*(?:\{{\s*(?P<den>[0-9]+)\s*\}}|(?P<den_digit>[0-9]))"
)
_VULGAR = {  # the vulgar fraction characters of Latin-1 and Number Forms
    "¼": (1, 4), "½": (1, 2), "¾": (3, 4), "⅐": (1, 7), "⅑": (1, 9), "⅒": (1, 10),
    "⅓": (1, 3), "⅔": (2, 3), "⅕": (1, 5), "⅖": (2, 5), "⅗": (3, 5), "⅘": (4, 5),
    "⅙": (1, 6), "⅚": (5, 6), "⅛": (1, 8), "⅜": (3, 8), "⅝": (5, 8), "⅞": (7, 8),
}  # fmt: skip
_VULGAR_MIXED = re.compile(rf"{_SIGN}(?P<whole>[0-9]*)[ \t]*(?P<frac>[{''.join(_VULGAR)}])")
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"), ("\\boxed{", "}"), ("(", ")"))


def _unwrap(text: str) -> str:
    text = text.strip()
    for left, right in _WRAPPERS:
        if len(text) >= len(left) + len(right) and text.startswith(left) and text.endswith(right):
            return text[len(left) : len(text) - len(right)].strip()
    return text


def fold_lookalikes(text: str) -> str:
    """``text`` with the look-alikes that mean the same character replaced by ASCII.

    Fullwidth forms (U+FF01 to U+FF5E: ``７``, ``－``, ``／``) become their ASCII characters, a
    decimal digit of any script (Unicode category Nd: ``٧``, ``७``, ``𝟕``) becomes 0-9, and the
    minus sign U+2212 becomes ``-``. Nothing else changes: superscripts (``²``), circled digits,
    dashes and letters that look like digits (``O``, ``l``) keep their own meaning.
    """
    text = text.translate(_FULLWIDTH).replace("\u2212", "-")
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in text)


def unwrap_math(text: str) -> str:
    """``text`` without notation around the whole of it: ``$...$``, ``\\(...\\)``, ``\\[...\\]``,
    ``\\boxed{...}``, one pair of parentheses, and a sentence-final full stop (a few layers)."""
    text = text.strip()
    for _ in range(3):  # $\boxed{7}$.
        unwrapped = _unwrap(text)
        if unwrapped.endswith(".") and not unwrapped.endswith(".."):
            unwrapped = unwrapped[:-1].rstrip()  # a sentence-final full stop is not a decimal point
        if unwrapped == text:
            break
        text = unwrapped
    return text


def _normalize(text: str) -> str:
    text = unwrap_math(fold_lookalikes(text))
    return _THOUSANDS.sub(",", text)  # the grouping is then checked like any comma


def _negative(sign: str) -> bool:
    return sign in ("-", "\u2212")


def _int(digits: str) -> int:
    return -int(digits[1:].strip()) if _negative(digits[:1]) else int(digits.lstrip("+").strip())


def _group(match: re.Match[str], name: str) -> str:
    """A fraction's part, written in braces or (``\\frac12``) as one bare digit."""
    digit = match.groupdict().get(f"{name}_digit")
    return digit if digit is not None else match[name]


def parse_rational(text: str, *, max_chars: int = MAX_NUMBER_CHARS) -> Fraction | None:
    """Read ``text`` as one exact rational number, or return ``None`` if it is not one.

    ``max_chars`` may be raised for families whose answers are long integers (it is capped
    below Python's 4,300-digit ``int()`` limit, so this never raises).
    """
    if not isinstance(text, str) or len(text) > min(max_chars, _PYTHON_INT_DIGITS_LIMIT):
        return None
    if _PLAIN_INTEGER.fullmatch(text):  # most answers: what the general reading gives, sooner
        return Fraction(int(text))
    text = _normalize(text)
    if match := _DECIMAL.fullmatch(text):
        whole, frac = match["int"], match["frac"]
        if whole is None and frac is None:
            return None
        digits = (whole or "0").replace(",", "")
        value = Fraction(int(digits + (frac or "")), 10 ** len(frac or ""))
        return -value if _negative(match["sign"]) else value
    if match := _FRACTION.fullmatch(text) or _LATEX_FRACTION.fullmatch(text):
        num, den = _int(_group(match, "num")), _int(_group(match, "den"))
        if den == 0:
            return None
        return -Fraction(num, den) if _negative(match["sign"]) else Fraction(num, den)
    if match := _MIXED.fullmatch(text) or _LATEX_MIXED.fullmatch(text):
        num, den = int(_group(match, "num")), int(_group(match, "den"))
        if den == 0 or num >= den:  # "3 5/2" is ambiguous, not a mixed number
            return None
        value = int(match["whole"]) + Fraction(num, den)
        return -value if _negative(match["sign"]) else value
    if match := _VULGAR_MIXED.fullmatch(text):
        value = int(match["whole"] or 0) + Fraction(*_VULGAR[match["frac"]])
        return -value if _negative(match["sign"]) else value
    return None


def read_integer(text: str, *, max_chars: int = MAX_NUMBER_CHARS) -> int | Verdict:
    """An integer answer: the ``int``, or the verdict on text that is not one.

    ``7``, ``7.0``, ``$7$``, ``7,000`` read as integers; a number that is not an integer
    (``7.5``, ``15/2``) is a *wrong* answer (status ``wrong``); text that is no number at all is
    a format error (status ``unparseable``).
    """
    value = parse_rational(text, max_chars=max_chars)
    if value is None:
        return Verdict.bad_format(f"could not read {text.strip()[:60]!r} as a number")
    if value.denominator != 1:
        return Verdict.wrong(f"{format_rational(value)} is not an integer", parsed=format_rational(value))
    return int(value)


def format_rational(value: Fraction) -> str:
    """Canonical text of a rational: ``7/2``, ``-3``."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
