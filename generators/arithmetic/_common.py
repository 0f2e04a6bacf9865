"""Small helpers shared by the arithmetic families: answer extraction and integer parsing."""

from __future__ import annotations

import re

from palaestra.core import Verdict
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import parse_rational

ANSWER_LINE = r"(?im)^\s*(?:final\s+)?answer\s*(?:is)?\s*[:=]\s*(.+?)\s*$"
MAX_SEARCH_DIGITS = 400  # parse_rational's own cap; longer numbers are a format error
_NO_SOLUTION = re.compile(
    r"^\s*(?:there\s+is\s+)?(?:no\s+(?:integer\s+|positive\s+)?solutions?|none|"
    r"no\s+such\s+\w+|inconsistent|unsolvable|impossible)\s*\.?\s*$",
    re.IGNORECASE,
)


def extract(response: str, *, allow_bare: bool = True) -> str | Verdict:
    """The answer text of ``response``, or a bad-format verdict saying why there is none."""
    extraction = extract_answer(response, pattern=ANSWER_LINE, allow_bare=allow_bare)
    if not extraction.ok or extraction.text is None:
        return Verdict.bad_format(extraction.error or "no answer")
    return extraction.text


def parse_int(text: str) -> int | None:
    """An exact integer (``42``, ``-42,000``, ``42.0``, ``$42$``), or ``None``."""
    value = parse_rational(text)
    if value is None or value.denominator != 1:
        return None
    return int(value)


def is_no_solution(text: str) -> bool:
    """Whether ``text`` says that there is no solution (``no solution``, ``none``, ...)."""
    return bool(_NO_SOLUTION.match(text))


def strip_assignment(text: str, names: str = "xyn") -> str:
    """``x = 23`` -> ``23`` (a leading ``name =`` is allowed, nothing else)."""
    return re.sub(rf"^\s*[{names}]\s*=\s*", "", text.strip(), flags=re.IGNORECASE)
