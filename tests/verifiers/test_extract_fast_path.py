"""The fast paths of answer extraction read every response exactly as the general scan does.

``extract_answer`` reads a response whose only mark is one ``<answer>`` tag without the general
scan, and checks agreement between marks only for marks whose texts differ. Both are checked
here against the general path (the fast path switched off) on responses built from the pieces
that decide extraction: tags of any case, boxes, answer lines and blocks, reasoning blocks,
comments, fences, emphasis, numbers that read alike (``7``, ``7.0``) and letters whose lower
case is longer than they are.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palaestra.verifiers import extract
from palaestra.verifiers.extract import extract_answer

PIECES = [
    "<answer>",
    "</answer>",
    "<ANSWER>",
    "</Answer>",
    "<answer>7</answer>",
    "<answer>7.0</answer>",
    "<answer>\\boxed{7}</answer>",
    "<answer>**7**</answer>",
    "\\boxed{7}",
    "\\boxed{8}",
    "\\fbox{7}",
    "\\boxed",
    "\\FBOX{7}",
    "Answer: 7",
    "answer = 8",
    "**Final answer:** 7",
    "Answer:\n",
    "The answer is: 7",
    "<think>",
    "</think>",
    "<think>Answer: 9</think>",
    "<!-- <answer>5</answer> -->",
    "```\n",
    "\n",
    " ",
    "7",
    "0",
    "00",
    "1/2",
    "x",
    "İ",
    "ß",
    "answers",
    "so the answer",
    "$7$",
    "`",
    "**",
]


def general(response: str, **kwargs: object) -> extract.Extraction:
    """``extract_answer`` with the lone-tag path switched off."""
    saved = extract._lone_tag
    extract._lone_tag = lambda text: None  # type: ignore[assignment]
    try:
        return extract_answer(response, **kwargs)  # type: ignore[arg-type]
    finally:
        extract._lone_tag = saved


KWARGS = [
    {},
    {"allow_bare": True},
    {"one_line": True},
    {"labels": ("path",)},
    {"allow_bare": True, "one_line": True},
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8), st.sampled_from(KWARGS))
def test_the_lone_tag_path_reads_as_the_general_scan(pieces: list[str], kwargs: dict) -> None:
    response = "".join(pieces)
    assert extract_answer(response, **kwargs) == general(response, **kwargs)


@pytest.mark.parametrize(
    "response",
    [
        "<answer>7</answer>",
        "Let me think.\n<answer>  42 </answer>\n",
        "<answer>\\boxed{3/4}</answer>",
        "<answer>**10**</answer>",
        "<think>the answer may be 8</think><answer>7</answer>",
    ],
)
def test_the_lone_tag_path_is_taken_and_agrees(response: str) -> None:
    fast = extract._lone_tag(extract.strip_reasoning(response)[0])
    assert fast is not None  # the fast path reads these
    assert extract_answer(response) == general(response)


@pytest.mark.parametrize(
    "response",
    [
        "<answer>7</answer>\nAnswer: 8",  # a second, different mark
        "<answer>7</answer> \\boxed{8}",
        "<answer>7</answer><answer>8</answer>",
        "<answer><answer>7</answer>",
        "İ<answer>7</answer>",  # lower case changes the positions
    ],
)
def test_the_lone_tag_path_declines_anything_else(response: str) -> None:
    assert extract._lone_tag(response) is None
    assert extract_answer(response) == general(response)


def test_marks_that_agree_or_disagree_are_still_judged() -> None:
    assert extract_answer("<answer>7</answer>\nAnswer: 7.0").text == "7"
    assert not extract_answer("<answer>7</answer>\nAnswer: 8").ok
    assert not extract_answer("<answer>0</answer>\nAnswer: 00").ok  # two bit strings
    assert not extract_answer("<answer>x\n8</answer>", one_line=True).ok
    assert extract_answer("<answer>7\n7.0</answer>", one_line=True).text == "7.0"  # one answer, its last line
