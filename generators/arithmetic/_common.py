"""Small helpers shared by the arithmetic families: answer extraction and "no solution".

Numbers are read by the shared reader, :mod:`palaestra.verifiers.numbers` (``parse_rational``,
``read_integer``), so every arithmetic family accepts and refuses the same number forms.
"""

from __future__ import annotations

import re

from palaestra.core import Verdict
from palaestra.verifiers.extract import extract_answer

MAX_INTEGER_CHARS = 1000  # the longest integer answer read (long_arithmetic's products, with separators)
_NO_SOLUTION = re.compile(
    r"^\s*(?:there\s+is\s+)?(?:no\s+(?:integer\s+|positive\s+)?solutions?|none|"
    r"no\s+such\s+\w+|inconsistent|unsolvable|impossible)\s*\.?\s*$",
    re.IGNORECASE,
)


def extract(response: str, *, allow_bare: bool = True) -> str | Verdict:
    """The answer text of ``response``, or a bad-format verdict saying why there is none."""
    extraction = extract_answer(response, allow_bare=allow_bare)
    if not extraction.ok or extraction.text is None:
        return Verdict.bad_format(extraction.error or "no answer")
    return extraction.text


def is_no_solution(text: str) -> bool:
    """Whether ``text`` says that there is no solution (``no solution``, ``none``, ...)."""
    return bool(_NO_SOLUTION.match(text))
