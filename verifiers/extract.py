"""Answer extraction from a model response.

**1. Reasoning is removed first.** ``<think>...</think>`` blocks (also ``<thinking>`` and
``<reasoning>``, any case, nested blocks included) are deleted before anything else is read, so
reasoning text is never taken as the answer and a block that mentions ``<answer>`` is no format
error; so are HTML comments (``<!-- <answer>10</answer> -->`` is no answer; an unclosed
``<!--`` is a format error). Two unfinished forms of a reasoning block:

- a closing ``</think>`` with no opening one (chat templates such as Qwen3's open the block in
  the prompt): everything before it is reasoning and is dropped;
- an opening ``<think>`` that is never closed: the response is a format error. The model never
  finished reasoning, so there is no answer outside the block, and reading one from inside it
  would read reasoning as the answer.

**2. Final-answer marks.** What is left may hold these marks of a final answer:

- ``<answer>...</answer>`` tags (any case);
- ``\\boxed{...}`` and ``\\fbox{...}`` (nested braces allowed) outside the tags;
- *answer lines*: a line that starts with an answer label followed by ``:`` or ``=`` and
  the answer on the same line. The labels are ``Answer`` and ``Final answer`` (also
  ``The final answer is:``), which only ever introduce a final answer. A family may declare
  its own labels (``labels=("path",)`` reads ``Path: A B C``); those count only in a response
  with no tag and no box, because reasoning often uses such words for intermediate values
  (``Input: 5 gives 10, too big``). Markdown around the label is allowed (``**Answer:** 6``,
  ``### Final Answer: 6``, ``- answer = 6``, ``> Answer: 6``). A line whose answer text is
  empty or ends with ``:`` introduces what follows and is no mark; a line that holds a tag or
  a box is that tag's or box's line, not a second mark; lines inside fenced code blocks
  (```` ``` ````) are code, not answer lines;
- an *answer block*: in a response with no tag and no box, the text below a line that holds
  a built-in label and nothing else (``Answer:``, ``**Final answer:**``), as in ``Answer:``
  and a grid below it (a code fence around the whole block is removed). Words after the
  answer are read as part of it (and a family parser, which
  must consume its whole answer, refuses them). A block ends where the next mark or bare label
  starts, and counts as one more mark, so ``Answer:`` / ``7`` then ``Answer: 8`` is two final
  answers;
- matches of a family's own ``pattern`` (a regex with one group, e.g. a fenced program),
  unless they overlap a tag or a box.

Reasoning that mentions an intermediate value ("so x is 5, then ...") is no mark: only these
forms are.

**3. One final answer.** The answer is taken from the strongest kind of mark present: tags,
then boxes, then answer lines and pattern matches; with no mark at all, the whole response
when the family allows bare answers (``allow_bare``), else a format error. Markdown bold or
inline code around a one-line answer (``**10**``, `` `10` ``) is removed where that is the only
reading (never in ``2**3`` or a grid whose cells are ``*``). Every other mark in
the response must state the *same* answer, or the response is a format error ("several
different final answers"), never a silent choice of one. Two marks state the same answer when
they are equal after removing ``\\boxed{}``, ``$...$``/``\\(...\\)``, a code fence, markdown
emphasis (``**``, ``__``, `````), a final full stop and spacing (around punctuation too),
or when both read as the same exact number (``7``, ``7.0``, ``$7$``). Letter case counts
(``SKOLXR`` and ``skolxr`` are two answers where case matters, so they are two everywhere) and
so do leading zeros (``0`` and ``00`` are two bit strings). So
``**Answer:** <answer>7</answer>`` and ``<answer>7</answer> ... Answer: 7.0`` are fine;
``<answer>7</answer> ... Answer: 8`` and ``\\boxed{7} ... \\boxed{8}`` are not. An unclosed or
nested tag, an unclosed box and an empty answer are format errors too.

**4. Single-valued answers.** A family whose answer is one value (a number, a word, a
formula) says so (``one_line=True``); then an answer whose lines state different answers
(``<answer>0`` / ``2/5</answer>``) is several final answers too, never read as one. A family
whose answer is a grid, a list of lines or a program leaves it off.

All scanning is linear in the response length, so a 1 MB response costs milliseconds; a
response over ``MAX_RESPONSE_CHARS`` (2 million characters) is refused by its size before any
scanning.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from palaestra.verifiers.numbers import parse_rational

DEFAULT_MAX_ANSWER_CHARS = 20_000
# A response longer than this is refused before anything reads it: 2 million characters is some
# 500k tokens, beyond any generation budget, and a 10 MB flood then costs nothing to refuse.
MAX_RESPONSE_CHARS = 2_000_000
_OPEN_TAG, _CLOSE_TAG = "<answer>", "</answer>"
_BOX_COMMAND = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])[ \t]*(\{)?")
_WHITESPACE = re.compile(r"\s+")
_THINK_TAG = re.compile(r"<(/?)(?:think|thinking|reasoning)>", re.IGNORECASE)
_FENCE_LINE = re.compile(r"^[ \t]*```", re.MULTILINE)
# Every part is bounded by one line ([ \t], [^\n]), so a scan never backtracks across lines.
_LINE_PREFIX = r"^[ \t]*(?:(?:#{1,6}|>|[-*+])[ \t]+)?[*_]{0,3}[ \t]*"
# after the colon only a closing mark followed by a space ("**Answer:** 6"), never the start of
# the answer itself ("Answer: __init__")
_LINE_SUFFIX = (
    r"[ \t]*[*_]{0,3}[ \t]*(?:is[ \t]*)?[*_]{0,3}[ \t]*(?:[:=](?!=)|\uff1a)[ \t]*"
    r"(?:[*_]{1,3}(?=[ \t]|$))?[ \t]*([^\n]*)"
)
_BUILTIN_LABELS = r"(?:the[ \t]+)?(?:final[ \t]+)?answer"

HOW_TO_ANSWER = "put the final answer inside <answer>...</answer> (or \\boxed{...})"

Span = tuple[int, int, str]  # start, end, content


@dataclass(frozen=True)
class Extraction:
    """The extracted answer text, or an error saying why none could be taken."""

    text: str | None
    source: str | None = None  # "answer_tag", "boxed", "answer_line", "pattern", "answer_block" or "whole"
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _fail(error: str) -> Extraction:
    return Extraction(text=None, source=None, error=error)


def normalize_space(text: str) -> str:
    """Strip and collapse runs of whitespace to one space."""
    return _WHITESPACE.sub(" ", text).strip()


# --------------------------------------------------------------------------------------------
# Reasoning blocks
# --------------------------------------------------------------------------------------------


def strip_reasoning(response: str) -> tuple[str, str | None]:
    """``response`` without its ``<think>`` blocks, or an error for an unclosed one.

    A closing tag with no opening one drops everything before it (the block was opened by the
    chat template); nested blocks are removed whole. See the module docstring for why an
    unclosed block is an error rather than an answer.
    """
    kept: list[str] = []
    depth, pos = 0, 0
    for tag in _THINK_TAG.finditer(response):
        closing = tag.group(1) == "/"
        if not closing:
            if depth == 0:
                kept.append(response[pos : tag.start()])
            depth += 1
        elif depth == 0:  # the block was opened before the response started
            kept.clear()
            pos = tag.end()
        else:
            depth -= 1
            if depth == 0:
                pos = tag.end()
    if depth > 0:
        return "", "unclosed <think> block: no final answer after the reasoning"
    kept.append(response[pos:])
    return _strip_comments("".join(kept))


def _strip_comments(text: str) -> tuple[str, str | None]:
    """``text`` without HTML comments (``<!-- ... -->``): a commented-out answer is no answer."""
    kept, pos = [], 0
    while (start := text.find("<!--", pos)) >= 0:
        end = text.find("-->", start + 4)
        if end < 0:
            return "", "unclosed <!-- comment"
        kept.append(text[pos:start])
        pos = end + 3
    kept.append(text[pos:])
    return "".join(kept), None


# --------------------------------------------------------------------------------------------
# Marks of a final answer
# --------------------------------------------------------------------------------------------


def find_answer_tags(response: str) -> tuple[list[Span], str | None]:
    """Every ``<answer>`` tag (case-insensitive) as (start, end, content), or an error."""
    lowered = response.lower()
    contents: list[Span] = []
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


def find_boxes(text: str) -> tuple[list[Span], str | None]:
    """Every ``\\boxed{...}``/``\\fbox{...}`` as (start, end, content), or an error if unclosed."""
    boxes: list[Span] = []
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


def answer_line_pattern(labels: Sequence[str] = ()) -> re.Pattern[str]:
    """The regex of an answer line: ``Answer: 6``, ``**Final answer:** 6`` (the built-in labels),
    or, when ``labels`` are given, lines that open with one of those labels instead.

    Group 1 is the text after the label up to the end of the line, untrimmed.
    """
    names = "|".join(r"[ \t]+".join(map(re.escape, label.split())) for label in labels)
    return re.compile(
        rf"{_LINE_PREFIX}(?:{names or _BUILTIN_LABELS}){_LINE_SUFFIX}", re.IGNORECASE | re.MULTILINE
    )


_ANSWER_LINE = answer_line_pattern()


def _blank_out(text: str, spans: list[Span]) -> str:
    """``text`` with each span replaced by spaces (positions stay the same)."""
    if not spans:
        return text
    pieces, pos = [], 0
    for start, end, _ in spans:
        pieces += [text[pos:start], " " * (end - start)]
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _fenced_blocks(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks (an unclosed fence runs to the end of the text)."""
    fences = [m.start() for m in _FENCE_LINE.finditer(text)]
    if len(fences) % 2:
        fences.append(len(text))
    return [(fences[i], fences[i + 1]) for i in range(0, len(fences), 2)]


class _Spans:
    """Sorted, disjoint spans with a fast "does this range touch one of them" query."""

    def __init__(self, spans: list[tuple[int, int]]):
        self.spans = sorted(spans)
        self.starts = [s[0] for s in self.spans]

    def overlaps(self, start: int, end: int) -> bool:
        k = bisect.bisect_right(self.starts, end - 1) - 1  # last span starting before `end`
        return k >= 0 and self.spans[k][1] > start

    def contains(self, index: int) -> bool:
        return self.overlaps(index, index + 1)


def _answer_lines(text: str, pattern: re.Pattern[str], blocked: _Spans, code: _Spans) -> list[Span]:
    lines = []
    for match in pattern.finditer(text):
        content = match.group(1).strip()
        for mark in ("**", "__"):  # **Answer: 7**: the closing mark belongs to the opening one
            if text[match.start() : match.start(1)].count(mark) % 2 and content.endswith(mark):
                content = content[: -len(mark)].rstrip()
        line_end = match.end()
        if not content or content.endswith(":") or code.contains(match.start()):
            continue
        if blocked.overlaps(match.start(), line_end):
            continue
        lines.append((match.start(), line_end, content))
    return lines


def _pattern_matches(text: str, pattern: str | re.Pattern[str], blocked: _Spans) -> list[Span]:
    return [
        (m.start(), m.end(), m.group(1))
        for m in re.finditer(pattern, text)
        if not blocked.overlaps(m.start(), m.end())
    ]


# --------------------------------------------------------------------------------------------
# Same answer or not
# --------------------------------------------------------------------------------------------


_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"), ("**", "**"), ("__", "__"), ("`", "`"))
_FENCED = re.compile(r"^```[^\n]*\n(.*?)\n?```$", re.DOTALL)
# spaces next to a punctuation mark (deleted: "a , b" and "a,b" are the same answer); matching
# only where there is a space keeps a megabyte of brackets from costing a substitution each
_SPACE_BY_PUNCTUATION = re.compile(r"\s+(?=[^\w\s])|(?<=[^\w\s])\s+")


def _unbox(content: str) -> str:
    """``\\boxed{3}`` written inside an answer tag means 3."""
    stripped = content.strip()
    if not stripped.startswith(("\\boxed", "\\fbox")):
        return content
    boxes, error = find_boxes(stripped)
    if error is None and len(boxes) == 1 and boxes[0][0] == 0 and boxes[0][1] == len(stripped):
        return boxes[0][2]
    return content


def _bare(text: str) -> str:
    """The answer without notation that does not change it (boxes, math delimiters, emphasis)."""
    text = text.strip()
    for _ in range(4):  # a few layers: **$\boxed{7}$**
        before = text
        text = _unbox(text).strip()
        if fenced := _FENCED.match(text):
            text = fenced.group(1).strip()
        for left, right in _WRAPPERS:
            if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right):
                text = text[len(left) : -len(right)].strip()
        if text.endswith(".") and not text.endswith(".."):
            text = text[:-1].rstrip()
        if text == before:
            break
    return text


def _strip_emphasis(answer: str) -> str:
    """``**10**`` and `` `10` `` around a one-line answer are markdown, not part of it.

    Only where that reading is the only one: one line, and inside no ``**``, backtick, or ``*``
    at either end (``2**3``, a kakuro row ``**12**`` of blocks, a grid on several lines keep
    their stars).
    """
    answer = answer.strip()
    if "*" not in answer and "`" not in answer:  # no emphasis to read (most answers)
        return answer
    for mark in ("**", "`"):
        inner = answer[len(mark) : -len(mark)]
        if len(answer) > 2 * len(mark) and answer.startswith(mark) and answer.endswith(mark):
            if "\n" not in inner and "**" not in inner and "`" not in inner and inner.strip("*") == inner:
                return inner.strip()
    return answer


# digits with a leading zero ("00", "010") are a digit string, not a number: "0" and "00" are
# two different bit strings, "010" and "10" two different codes
_DIGIT_STRING = re.compile(r"[+\-]?0[0-9]")


def _same_key(text: str) -> tuple[str, object]:
    """What two marks must share to state the same answer. Letter case is kept: in a family
    where case matters (``SKOLXR`` is not ``skolxr``) two spellings are two answers, and a model
    that means one answer writes it one way."""
    bare = _bare(text)
    number = None if _DIGIT_STRING.match(bare) else parse_rational(bare)
    if number is not None:
        return ("number", number)
    return ("text", _SPACE_BY_PUNCTUATION.sub("", normalize_space(bare)))


# --------------------------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------------------------


def extract_answer(
    response: str,
    *,
    pattern: str | re.Pattern[str] | None = None,
    labels: Sequence[str] = (),
    allow_bare: bool = False,
    max_chars: int = DEFAULT_MAX_ANSWER_CHARS,
    one_line: bool = False,
) -> Extraction:
    """Extract the one final answer of ``response`` (see the module docstring for the rules).

    ``pattern`` is a family's own answer form (a regex with one group, e.g. a fenced program),
    a mark wherever it appears; ``labels`` are the family's own answer-line labels
    (``("path",)`` reads ``Path: A B C``), read only when there is no tag and no box;
    ``allow_bare`` takes the whole response when it holds no mark at all. ``one_line`` declares
    a single-valued answer kind (a number, a word, a formula): an answer whose lines state
    different answers (``0`` then ``2/5``) is several final answers, a format error. Families
    whose answer is a grid, a list of lines or a program leave it off.
    """
    if not isinstance(response, str):
        return _fail(f"response must be a string, got {type(response).__name__}")
    if len(response) > MAX_RESPONSE_CHARS:
        return _fail(f"the response is longer than {MAX_RESPONSE_CHARS:,} characters")
    # an ASCII response with no reasoning block and no comment is its own text after
    # strip_reasoning: its lone tag is read without that scan (most responses)
    result = _lone_tag(response) if pattern is None and _nothing_to_strip(response) else None
    if result is None:
        text, error = strip_reasoning(response)
        if error:
            return _fail(error)
        if not text.strip():
            return _fail("empty response" if not response.strip() else "nothing after the reasoning block")
        result = _lone_tag(text) if pattern is None else None
        if result is None:
            result = _extract(text, pattern, labels, allow_bare)
    if result.ok and result.text is not None:
        answer = _strip_emphasis(result.text) if result.source != "whole" else result.text.strip()
        if not answer:
            return _fail("the answer is empty")
        if len(answer) > max_chars:
            return _fail(f"the answer is longer than {max_chars} characters")
        if one_line and "\n" in answer:  # a line of its own is one line (_bare only removes text)
            answer, error = _one_line(answer)
            if error:
                return _fail(error)
        return Extraction(text=answer, source=result.source)
    return result


_STRIPPED_MARKS = ("<think", "</think", "<reasoning", "</reasoning")


def _nothing_to_strip(response: str) -> bool:
    """Whether :func:`strip_reasoning` returns ``response`` itself: it is ASCII (so case folding
    is plain) and holds no reasoning tag and no HTML comment."""
    if not response.isascii() or "<!--" in response:
        return False
    lowered = response.lower()
    return not any(mark in lowered for mark in _STRIPPED_MARKS)


def _lone_tag(text: str) -> Extraction | None:
    """The answer of a response whose only mark is one ``<answer>`` tag, read without the
    general scan; ``None`` when the response may hold anything else that :func:`_extract`
    would read.

    Every other mark needs the letters ``answer`` (a tag, an answer line or block) or a box
    command outside the tag, so where neither occurs outside it (nor a nested tag inside it),
    :func:`_extract` finds this tag alone and returns exactly this (a family ``pattern`` is a
    mark of any form, so callers take this path only without one).
    """
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose lower case is longer (İ): positions differ
        return None
    start = lowered.find(_OPEN_TAG)
    if start < 0:
        return None
    end = lowered.find(_CLOSE_TAG, start + len(_OPEN_TAG))
    if end < 0 or lowered.find(_OPEN_TAG, start + len(_OPEN_TAG), end) >= 0:
        return None
    # "answer" cannot run across a tag's "<" or ">": the first and last ones are the tags' own
    # when nothing outside holds one
    if lowered.find("answer") != start + 1 or lowered.rfind("answer") != end + 2:
        return None
    if "\\" in text:
        after = end + len(_CLOSE_TAG)
        for outside in (lowered[:start], lowered[after:]):
            if "\\boxed" in outside or "\\fbox" in outside:
                return None
    return Extraction(text=_unbox(text[start + len(_OPEN_TAG) : end]), source="answer_tag")


def _extract(
    text: str, pattern: str | re.Pattern[str] | None, labels: Sequence[str], allow_bare: bool
) -> Extraction:
    tags, error = find_answer_tags(text)
    if error:
        return _fail(error)
    outside_boxes, box_error = find_boxes(_blank_out(text, tags))  # boxes in a tag are its content
    if box_error:
        return _fail(box_error)
    blocked = _Spans([(s, e) for s, e, _ in tags] + [(s, e) for s, e, _ in outside_boxes])
    code = _Spans(_fenced_blocks(text))
    lines = _answer_lines(text, _ANSWER_LINE, blocked, code)
    if labels and not tags and not outside_boxes:  # a family's own labels: a fallback form only
        lines += _answer_lines(text, answer_line_pattern(labels), blocked, code)
    matches = _pattern_matches(text, pattern, blocked) if pattern is not None else []
    marks = sorted([(*line, "answer_line") for line in lines] + [(*m, "pattern") for m in matches])
    if not tags and not outside_boxes:  # a tag or a box is the answer: prose around it is prose
        marks = sorted(marks + _answer_blocks(text, code, [m[0] for m in marks]))
    kinds = [
        ("answer_tag", [_unbox(t[2]) for t in tags]),
        ("boxed", [_unbox(b[2]) for b in outside_boxes]),
        ("answer_line", [m[2] for m in marks]),
    ]
    for source, candidates in kinds:
        if candidates:
            answer = candidates[-1]
            if error := _disagreement(answer, [c for _, cs in kinds for c in cs]):
                return _fail(error)
            if source == "answer_line" and not lines:
                source = marks[-1][3]  # "pattern" or "answer_block"
            return Extraction(text=answer, source=source)
    if allow_bare:
        return Extraction(text=text, source="whole")
    return _fail(f"no final answer found: {HOW_TO_ANSWER}")


def _one_line(answer: str) -> tuple[str, str | None]:
    """A single-valued answer: its one line, or an error when its lines state different answers
    (the same answer on two lines, ``$$`` delimiters around one line, are one answer)."""
    bare = _bare(answer)
    if "\n" not in bare:
        return answer, None
    lines = [line.strip() for line in bare.splitlines() if line.strip()]
    if error := _disagreement(lines[-1], lines):
        return answer, error.replace("final answers", "final answers in one answer")
    return lines[-1], None


def _answer_blocks(text: str, code: _Spans, mark_starts: list[int]) -> list[tuple[int, int, str, str]]:
    """Answer blocks: the text below a bare label line (``Answer:`` and nothing else) up to the
    next mark, the next bare label or the end; an empty one only introduces the next mark."""
    bare = [
        match
        for match in _ANSWER_LINE.finditer(text)
        if not match.group(1).strip(" \t*_")
        and text.startswith("\n", match.end())
        and not code.contains(match.start())
    ]
    bounds = sorted([*mark_starts, *(m.start() for m in bare), len(text)])
    blocks = []
    for label in bare:
        end = bounds[bisect.bisect_left(bounds, label.end())]
        content = _unfence(text[label.end() : end].strip())
        if content:
            blocks.append((label.start(), end, content, "answer_block"))
    return blocks


def _unfence(block: str) -> str:
    """The inside of a block that is one fenced code block (a grid in a fence), else the block."""
    if block.startswith("```") and block.endswith("```") and block.count("```") == 2:
        first_line_end = block.find("\n")
        if first_line_end != -1:
            return block[first_line_end + 1 : -3].strip()
    return block


def _disagreement(answer: str, candidates: list[str]) -> str | None:
    # the same text states the same answer: only other texts need reading (most responses
    # hold one mark, and reading it as a number is most of what extraction costs)
    others = [other for other in candidates if other != answer]
    if not others:
        return None
    key = _same_key(answer)
    for other in others:
        if _same_key(other) != key:
            shown = ", ".join(repr(c.strip()[:40]) for c in (answer, other))
            return f"several different final answers: {shown}"
    return None
