"""Answer extraction from a model response.

The final answer is taken from, in order of precedence:

1. ``<answer>...</answer>`` tags,
2. ``\\boxed{...}`` (or ``\\fbox{...}``) with nested braces,
3. a family-declared pattern (a regex with one group, e.g. ``Answer: (.+)``),
4. the whole response, only when the family allows bare answers.

Ambiguity is a format error, never a silent choice: two tags (or boxes) with different
contents, a box outside the tags that disagrees with them, or an unclosed tag or box. All
scanning is linear in the response length, so a 1 MB response costs milliseconds.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

DEFAULT_MAX_ANSWER_CHARS = 20_000
_OPEN_TAG, _CLOSE_TAG = "<answer>", "</answer>"
_BOX_COMMAND = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])[ \t]*(\{)?")
_WHITESPACE = re.compile(r"\s+")

HOW_TO_ANSWER = "put the final answer inside <answer>...</answer> (or \\boxed{...})"


@dataclass(frozen=True)
class Extraction:
    """The extracted answer text, or an error saying why none could be taken."""

    text: str | None
    source: str | None = None  # "answer_tag", "boxed", "pattern" or "whole"
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _fail(error: str) -> Extraction:
    return Extraction(text=None, source=None, error=error)


def normalize_space(text: str) -> str:
    """Strip and collapse runs of whitespace to one space."""
    return _WHITESPACE.sub(" ", text).strip()


def find_answer_tags(response: str) -> tuple[list[tuple[int, int, str]], str | None]:
    """Every ``<answer>`` tag (case-insensitive) as (start, end, content), or an error."""
    lowered = response.lower()
    contents: list[tuple[int, int, str]] = []
    pos = 0
    while True:
        start = lowered.find(_OPEN_TAG, pos)
        if start < 0:
            break
        end = lowered.find(_CLOSE_TAG, start + len(_OPEN_TAG))
        if end < 0:
            return contents, "unclosed <answer> tag"
        nested = lowered.find(_OPEN_TAG, start + len(_OPEN_TAG), end)
        if nested >= 0:
            return contents, "nested <answer> tags"
        pos = end + len(_CLOSE_TAG)
        contents.append((start, pos, response[start + len(_OPEN_TAG) : end]))
    if lowered.find(_CLOSE_TAG, pos) >= 0:
        return contents, "</answer> without an opening <answer>"
    return contents, None


def find_boxes(text: str) -> tuple[list[tuple[int, int, str]], str | None]:
    """Every ``\\boxed{...}``/``\\fbox{...}`` as (start, end, content), or an error if unclosed."""
    boxes: list[tuple[int, int, str]] = []
    pos = 0
    for match in _BOX_COMMAND.finditer(text):
        if match.start() < pos:  # a box nested inside the previous one belongs to it
            continue
        if match.group(1) is None:
            return boxes, "\\boxed must be followed by {...}"
        close = _matching_brace(text, match.end() - 1)
        if close < 0:
            return boxes, "unclosed \\boxed{"
        boxes.append((match.start(), close + 1, text[match.end() : close]))
        pos = close + 1
    return boxes, None


def _matching_brace(text: str, open_index: int) -> int:
    depth = 0
    i = open_index
    while i < len(text):
        ch = text[i]
        if ch == "\\":  # an escaped brace \{ or \} does not count
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _unbox(content: str) -> str:
    """``\\boxed{3}`` written inside an answer tag means 3."""
    boxes, error = find_boxes(content)
    stripped = content.strip()
    if error is None and len(boxes) == 1 and boxes[0][0] == 0 and boxes[0][1] == len(stripped):
        return boxes[0][2]
    return content


def _single(candidates: list[str], what: str) -> tuple[str | None, str | None]:
    distinct = {normalize_space(c) for c in candidates}
    if len(distinct) > 1:
        shown = ", ".join(repr(c[:40]) for c in sorted(distinct)[:3])
        return None, f"several different final answers in {what}: {shown}"
    return candidates[-1], None


def extract_answer(
    response: str,
    *,
    pattern: str | re.Pattern[str] | None = None,
    allow_bare: bool = False,
    max_chars: int = DEFAULT_MAX_ANSWER_CHARS,
) -> Extraction:
    """Extract the final answer from ``response`` (see the module docstring for the rules)."""
    if not isinstance(response, str):
        return _fail(f"response must be a string, got {type(response).__name__}")
    if not response.strip():
        return _fail("empty response")
    result = _extract(response, pattern, allow_bare)
    if result.ok and result.text is not None:
        text = result.text.strip()
        if not text:
            return _fail("the answer is empty")
        if len(text) > max_chars:
            return _fail(f"the answer is longer than {max_chars} characters")
        return Extraction(text=text, source=result.source)
    return result


def _extract(response: str, pattern: str | re.Pattern[str] | None, allow_bare: bool) -> Extraction:
    tags, error = find_answer_tags(response)
    if error:
        return _fail(error)
    boxes, box_error = find_boxes(response)
    if tags:
        answer, error = _single([_unbox(t[2]) for t in tags], "<answer> tags")
        if error:
            return _fail(error)
        starts = [t[0] for t in tags]
        outside = [b[2] for b in boxes if not _inside_any(tags, starts, b[0])]
        if outside and {normalize_space(b) for b in outside} != {normalize_space(answer or "")}:
            return _fail("a \\boxed answer disagrees with the <answer> tag")
        return Extraction(text=answer, source="answer_tag")
    if box_error:
        return _fail(box_error)
    if boxes:
        answer, error = _single([_unbox(b[2]) for b in boxes], "\\boxed{}")
        return _fail(error) if error else Extraction(text=answer, source="boxed")
    if pattern is not None:
        matches = [m.group(1) for m in re.finditer(pattern, response)]
        if matches:
            answer, error = _single(matches, "answer lines")
            return _fail(error) if error else Extraction(text=answer, source="pattern")
    if allow_bare:
        return Extraction(text=response, source="whole")
    return _fail(f"no final answer found: {HOW_TO_ANSWER}")


def _inside_any(spans: list[tuple[int, int, str]], starts: list[int], index: int) -> bool:
    # spans are sorted and disjoint: a binary search keeps many boxes fast
    k = bisect.bisect_right(starts, index) - 1
    return k >= 0 and index < spans[k][1]
