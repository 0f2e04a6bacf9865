"""Private answer parsers shared by the logic families (no eval, linear time).

``scan_words`` splits an answer into words and numbers and refuses any other character that the
family did not declare a separator: a sign it does not understand (``¬``, ``≠``, ``!``) is an
error, never skipped.

``parse_bool_assignment`` reads a truth assignment written in any of the usual ways:
``p=true, q=false``, ``p: T; q: F``, ``p=1 q=0``, JSON ``{"p": true}``, literals
``p, ¬q, ~r, !s, -u, not v``, and (when allowed) DIMACS ``1 -2 3 0``. Every variable must be
given exactly once; anything else is an error message, never a guess.
"""

from __future__ import annotations

import functools
import re

TRUE_WORDS = frozenset({"true", "t", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "f", "0", "no", "off"})
NEGATIONS = frozenset({"¬", "~", "!", "-", "not", "\u2212"})
_STRIP = re.compile(r"[{}\[\]()\"'`]")
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+|[¬~!\-\u2212=:]|[^\s,;]")
_VALUE_WORDS = TRUE_WORDS | FALSE_WORDS
_BINDERS = frozenset({"=", ":", "is"})
_INDEX = re.compile(r"[1-9][0-9]{0,5}")
MAX_CHARS_PER_VARIABLE = 40  # "x80 = false, " is 13: a longer text is not an assignment


def parse_bool_assignment(
    text: str, names: list[str], *, dimacs: bool = False, partial: bool = False
) -> tuple[dict[str, bool] | None, str]:
    """``({name: value}, "")`` or ``(None, why)``; with ``dimacs``, integer i means ``names[i-1]``.

    With ``partial`` some variables may be left out (at least one must be given).
    """
    if len(text) > MAX_CHARS_PER_VARIABLE * len(names) + 100:
        return None, "the assignment is far longer than one value per variable"
    lookup = {name.lower(): name for name in names}
    tokens = [t.lower() for t in _TOKEN.findall(_STRIP.sub(" ", text))]
    if dimacs and tokens and tokens[-1] == "0" and not any(t in _BINDERS for t in tokens):
        tokens = tokens[:-1]  # the DIMACS line terminator
    values: dict[str, bool] = {}
    i = 0
    while i < len(tokens):
        if tokens[i] == "and":
            i += 1
            continue
        negated = False
        while i < len(tokens) and tokens[i] in NEGATIONS:
            negated = not negated
            i += 1
        if i >= len(tokens):
            return None, "a negation sign without a variable"
        name = _name(tokens[i], lookup, names, dimacs)
        if name is None:
            return None, f"unexpected {tokens[i]!r}: expected one of the variables {', '.join(names[:6])}..."
        i += 1
        value = not negated
        if i < len(tokens) and tokens[i] in _BINDERS:
            if negated:
                return None, f"{name} is both negated and given a value"
            if i + 1 >= len(tokens) or tokens[i + 1] not in _VALUE_WORDS:
                return None, f"{name} needs a value true/false"
            value = tokens[i + 1] in TRUE_WORDS
            i += 2
        if name in values:
            return None, f"{name} is given more than once"
        values[name] = value
    missing = [n for n in names if n not in values]
    if partial and values:
        return values, ""
    if missing:
        return None, f"no value for {', '.join(missing[:5])}" + (" ..." if len(missing) > 5 else "")
    return values, ""


def _name(token: str, lookup: dict[str, str], names: list[str], dimacs: bool) -> str | None:
    if token in lookup:
        return lookup[token]
    # ASCII digits of bounded length only: int() raises on '²' and on 4,300+ digits
    if dimacs and _INDEX.fullmatch(token) and int(token) <= len(names):
        return names[int(token) - 1]
    return None


_WORD_OR_NUMBER = re.compile(r"[a-z]+(?:'[a-z]+)*|[0-9]+")
MAX_NUMBER_DIGITS = 6


def scan_words(text: str, separators: re.Pattern[str]) -> tuple[list[str] | None, str]:
    """The lower-cased words and digit runs of ``text`` in order, or ``(None, why)``.

    Every character outside a word or number must be matched by ``separators`` (then skipped);
    anything else (a negation sign, a stray symbol, a letter outside a-z) refuses the answer.
    Numbers longer than ``MAX_NUMBER_DIGITS`` are refused before anyone calls ``int()``.
    """
    lowered = text.lower()
    # the words are those findall reads (no separator holds a letter or digit, no word starts
    # with an apostrophe), and the text is good when every gap between them is separators and
    # no number is too long; anything else is read step by step for the reason
    if _matches_alone(separators):
        tokens = _WORD_OR_NUMBER.findall(lowered)
        gaps = _WORD_OR_NUMBER.split(lowered)
        if all(not gap or separators.fullmatch(gap) for gap in gaps) and not any(
            len(token) > MAX_NUMBER_DIGITS and token.isdigit() for token in tokens
        ):
            return tokens, ""
    return _scan_words_step_by_step(lowered, separators)


@functools.lru_cache(maxsize=64)
def _matches_alone(separators: re.Pattern[str]) -> bool:
    """Whether a run of separators reads the same cut out of its text: the pattern looks at no
    neighbour (no lookaround, no anchor) and holds no letter or digit (a word never runs into
    it). Knights and knaves' ``-(?![a-z])`` does not: its "-" before a word is no separator."""
    text = separators.pattern.replace("\\s", "")
    return not re.search(r"\(\?[=!<]|[A-Za-z0-9^$]|\\[bBAZ]", text)


def _scan_words_step_by_step(lowered: str, separators: re.Pattern[str]) -> tuple[list[str] | None, str]:
    tokens: list[str] = []
    pos = 0
    while pos < len(lowered):
        match = _WORD_OR_NUMBER.match(lowered, pos) or separators.match(lowered, pos)
        if match is None or match.end() == pos:
            return None, f"unexpected {lowered[pos : pos + 12]!r}"
        if match.re is _WORD_OR_NUMBER:
            token = match.group()
            if token.isdigit() and len(token) > MAX_NUMBER_DIGITS:
                return None, f"a number longer than {MAX_NUMBER_DIGITS} digits"
            tokens.append(token)
        pos = match.end()
    return tokens, ""


def format_bool_assignment(names: list[str], values: list[bool]) -> str:
    return ", ".join(f"{n}={'true' if v else 'false'}" for n, v in zip(names, values, strict=True))
