"""Each shortcut of the verify path gives exactly what the general code gives.

- ``extract_answer`` reads an ASCII response with no reasoning block and no comment without
  ``strip_reasoning`` (it would return the response itself), and finds its lone tag by where
  the first and last ``answer`` are;
- a one-line answer skips the several-answers-in-one check, and an answer without ``*`` or a
  backtick skips the emphasis reader;
- ``Verdict.right``/``wrong``/``bad_format`` build their verdict without ``__post_init__``;
- ``read_grid`` reads a plain grid (``rows`` lines of ``cols`` cells, nothing else) without the
  general reader.

Each is compared with the general code (the shortcut switched off) on generated inputs made of
the pieces that decide the result.
"""

from __future__ import annotations

import dataclasses
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from palaestra.core import Verdict
from palaestra.verifiers import constraints, extract
from palaestra.verifiers.constraints import read_grid
from palaestra.verifiers.extract import extract_answer

PIECES = [
    "<answer>",
    "</answer>",
    "<Answer>",
    "</ANSWER>",
    "<answer>7</answer>",
    "<answer>\\boxed{7}</answer>",
    "<answer>**7**</answer>",
    "<answer>`7`</answer>",
    "<answer>7\n8</answer>",
    "<answer>x\nx</answer>",
    "<think>",
    "</think>",
    "<THINK>",
    "</Thinking>",
    "<thinking>",
    "<reasoning>",
    "</REASONING>",
    "<think>Answer: 9</think>",
    "<!--",
    "-->",
    "<!-- <answer>5</answer> -->",
    "\\boxed{8}",
    "\\fbox{7}",
    "\\boxed",
    "Answer: 7",
    "answer",
    "ANSWER",
    "answers",
    "Answer:\n",
    "```\n",
    "\n",
    " ",
    "7",
    "*",
    "**",
    "`",
    "$7$",
    "K",  # Kelvin sign: lower case "k"
    "ſ",  # long s: matches "s" ignoring case
    "İ",  # lower case is two characters
    "ß",
]
KWARGS = [{}, {"allow_bare": True}, {"one_line": True}, {"allow_bare": True, "one_line": True}]


def general(response: str, **kwargs: object) -> extract.Extraction:
    """``extract_answer`` with every lone-tag shortcut off (the general scan reads everything)."""
    saved = extract._lone_tag
    extract._lone_tag = lambda text: None  # type: ignore[assignment]
    try:
        return extract_answer(response, **kwargs)  # type: ignore[arg-type]
    finally:
        extract._lone_tag = saved


@settings(max_examples=4000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=9), st.sampled_from(KWARGS))
def test_extraction_shortcuts_read_as_the_general_scan(pieces: list[str], kwargs: dict) -> None:
    response = "".join(pieces)
    assert extract_answer(response, **kwargs) == general(response, **kwargs)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="<>/answerthikg!-\\boxedf{} \nAT7*`", max_size=40))
def test_nothing_to_strip_means_strip_reasoning_returns_the_response(text: str) -> None:
    if extract._nothing_to_strip(text):
        assert extract.strip_reasoning(text) == (text, None)


def old_strip_emphasis(answer: str) -> str:
    """The emphasis reader as it was, without its shortcut."""
    answer = answer.strip()
    for mark in ("**", "`"):
        inner = answer[len(mark) : -len(mark)]
        if len(answer) > 2 * len(mark) and answer.startswith(mark) and answer.endswith(mark):
            if "\n" not in inner and "**" not in inner and "`" not in inner and inner.strip("*") == inner:
                return inner.strip()
    return answer


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="*` 7x\n", max_size=12))
def test_strip_emphasis_shortcut(answer: str) -> None:
    assert extract._strip_emphasis(answer) == old_strip_emphasis(answer)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=" 7x.$`*_\\boxed{}()[]", max_size=20))
def test_an_answer_on_one_line_is_its_own_one_line_reading(answer: str) -> None:
    # the shortcut skips _one_line for answers without a newline: it must return them unchanged
    assert "\n" not in extract._bare(answer)
    assert extract._one_line(answer) == (answer, None)


@given(
    st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=3)),
    st.text(max_size=10),
    st.floats(min_value=0, max_value=1),
)
def test_named_verdicts_equal_checked_ones(parsed: object, reason: str, reward: float) -> None:
    pairs = [
        (Verdict.right(parsed=parsed, reason=reason), dict(reward=1.0, correct=True, format_ok=True)),
        (Verdict.right(parsed=parsed), dict(reward=1.0, correct=True, format_ok=True, reason="correct")),
        (
            Verdict.wrong(reason, parsed=parsed, reward=reward),
            dict(reward=reward, correct=False, format_ok=True),
        ),
        (Verdict.bad_format(reason, parsed=parsed), dict(reward=0.0, correct=False, format_ok=False)),
    ]
    for fast, fields in pairs:
        checked = Verdict(**{"parsed": parsed, "reason": reason, **fields})
        assert fast == checked
        assert fast.status == checked.status and fast.to_dict() == checked.to_dict()
        assert repr(fast) == repr(checked) and fast.verifier_failed is False


def test_a_subclass_keeps_its_own_checks() -> None:
    class Strict(Verdict):
        def __post_init__(self) -> None:
            super().__post_init__()
            object.__setattr__(self, "reason", self.reason.upper())

    assert Strict.right(reason="fine").reason == "FINE"


GRID_PIECES = ["1", "2", "0", ".", "#", "r", "R", " ", "|", ",", "-", "\n", "\n", "\n", "Row 1: ", "７", "\t"]


def general_grid(text: str, rows: int, cols: int, cells: str) -> tuple:
    saved = constraints._plain_grid
    constraints._plain_grid = lambda *args: None  # type: ignore[assignment]
    try:
        return read_grid(text, rows, cols, cells)
    finally:
        constraints._plain_grid = saved


@settings(max_examples=4000, deadline=None)
@given(
    st.lists(st.sampled_from(GRID_PIECES), max_size=16),
    st.integers(1, 3),
    st.integers(1, 3),
    st.sampled_from(["012", ".#", ".#01", "012|", "r.#", "r1.#", "0123456789"]),
)
@example(["r", "1", "."], 1, 3, "r1.#")  # a row label where "r" is a cell: not a plain grid
@example(["R", "1", "-", "\n", "r", "2", "-"], 2, 3, "r1.#")
def test_plain_grid_reads_as_the_general_reader(pieces: list[str], rows: int, cols: int, cells: str) -> None:
    text = "".join(pieces)
    assert read_grid(text, rows, cols, cells) == general_grid(text, rows, cols, cells)


@settings(max_examples=1000, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_plain_grids_take_the_shortcut_and_agree(rows: int, cols: int, data: st.DataObject) -> None:
    cells = ".#01"
    grid = [data.draw(st.text(alphabet=cells, min_size=cols, max_size=cols)) for _ in range(rows)]
    text = "\n" + "\n".join(grid) + "\n"
    assert constraints._plain_grid(text, rows, cols, cells) == [list(row) for row in grid]
    assert read_grid(text, rows, cols, cells) == general_grid(text, rows, cols, cells)


WORD_PIECES = [
    "abc",
    "don't",
    "'",
    "7",
    "1234567",
    "house",
    " ",
    "\n",
    "->",
    "=>",
    "-",
    ",",
    ":",
    ".",
    "é",
    "+",
    "→",
    "x'",
]


@settings(max_examples=4000, deadline=None)
@given(st.lists(st.sampled_from(WORD_PIECES), max_size=10))
def test_scan_words_reads_as_the_step_by_step_scan(pieces: list[str]) -> None:
    from palaestra.generators.logic import knights_knaves, ordering_deduction, zebra
    from palaestra.generators.shared import logic_answers

    text = "".join(pieces)
    patterns = (
        zebra._SEPARATORS,
        knights_knaves._SEPARATORS,
        ordering_deduction._SEPARATORS,
        re.compile(r"[ ,]+"),
    )
    for separators in (*patterns, re.compile(r"(?:\s+|-x)+"), re.compile(r"(?:\s+|-(?=\d))+")):
        expected = logic_answers._scan_words_step_by_step(text.lower(), separators)
        assert logic_answers.scan_words(text, separators) == expected


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.text(alphabet="#.", max_size=7), min_size=1, max_size=7),
    st.sampled_from(["", " ", "x", "_1"]),
)
def test_game_of_life_boards_unpack_as_cell_by_cell(lines: list[str], odd: str) -> None:
    from types import SimpleNamespace

    from palaestra.generators.puzzles import game_of_life as gol

    for board in (lines, [lines[0] + odd, *lines[1:]]):
        task = SimpleNamespace(metadata={"size": len(board), "board": board})
        slow = gol.from_rows([[1 if ch == gol.ALIVE else 0 for ch in line] for line in board])
        assert gol._unpack(task) == (len(board), slow)  # type: ignore[arg-type]


def old_to_dict(verdict: Verdict) -> dict:
    """``Verdict.to_dict`` as it was: every ``parsed`` tried as JSON."""
    from palaestra.core import canonical_json

    parsed = verdict.parsed
    try:
        canonical_json(parsed)
    except (TypeError, ValueError):
        parsed = repr(parsed)
    return {**dataclasses.asdict(verdict), "parsed": parsed}


@given(
    st.one_of(
        st.none(),
        st.booleans(),
        st.text(max_size=5),
        st.integers(),
        st.floats(),
        st.lists(st.floats(), max_size=3),
        st.sets(st.integers(), max_size=2),
        st.just(object()),
    )
)
def test_to_dict_shortcut_for_plain_parsed_values(parsed: object) -> None:
    verdict = Verdict.wrong("no", parsed=parsed)
    assert repr(verdict.to_dict()) == repr(old_to_dict(verdict))
