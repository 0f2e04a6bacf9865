"""Shared answer reading for the optimisation families: a list of item / city / set numbers."""

from __future__ import annotations

import re

from palaestra.core import Verdict
from palaestra.verifiers.extract import extract_answer

MAX_ANSWER_CHARS = 2000
# "1, 4, 7", "1 4 7", "[1, 4, 7]", "{1;4;7}", "1 -> 4 -> 7"; an empty list as "[]" or "none"
_SEPARATORS = re.compile(r"(?:->|→|[,;\s])+")
_BRACKETS = {"[": "]", "{": "}", "(": ")"}
_EMPTY = {"none", "nothing", "empty"}
MAX_DIGITS = 4


def read_numbers(response: str, *, labels: tuple[str, ...] = ()) -> list[int] | Verdict:
    """The list of positive integers a response answers with, or the format-error verdict.

    Every character of the answer must belong to the list (numbers, separators, one pair of
    brackets); numbers have at most 4 digits, so hostile input is refused at once.
    """
    extraction = extract_answer(response, labels=labels, max_chars=MAX_ANSWER_CHARS)
    if not extraction.ok or extraction.text is None:
        return Verdict.bad_format(extraction.error or "no answer")
    text = extraction.text.strip().rstrip(".")
    if text.lower() in _EMPTY:
        return []
    if text[:1] in _BRACKETS and text.endswith(_BRACKETS[text[0]]):
        text = text[1:-1]
    parts = [part for part in _SEPARATORS.split(text) if part]
    for part in parts:
        if not (part.isascii() and part.isdigit() and len(part) <= MAX_DIGITS):
            return Verdict.bad_format(f"could not read {part[:20]!r} as a number in a list of numbers")
    return [int(part) for part in parts]


def numbered(values: list[int], limit: int, what: str) -> Verdict | None:
    """A format error when a number is not one of 1..limit, else None."""
    for value in values:
        if not 1 <= value <= limit:
            return Verdict.bad_format(f"there is no {what} {value} (they are numbered 1 to {limit})")
    return None
