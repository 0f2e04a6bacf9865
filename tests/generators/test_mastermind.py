"""Mastermind: peg scoring, proven-unique deduction tasks, answer formats."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.interactive.mastermind import COLOURS, MastermindKnobs, feedback, parse_code


def _pegs(secret: tuple[int, ...], guess: tuple[int, ...]) -> tuple[int, int]:
    """Textbook scoring, written independently of the vectorised one."""
    black = sum(s == g for s, g in zip(secret, guess, strict=True))
    common = sum((Counter(secret) & Counter(guess)).values())
    return black, common - black


@given(
    st.lists(st.integers(0, 7), min_size=5, max_size=5), st.lists(st.integers(0, 7), min_size=5, max_size=5)
)
@settings(max_examples=300)
def test_vectorised_scoring_matches_the_textbook(secret: list[int], guess: list[int]) -> None:
    assert feedback(secret, guess, 8) == _pegs(tuple(secret), tuple(guess))


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 7))
@settings(max_examples=25, deadline=None)
def test_exactly_one_code_fits_by_brute_force(seed: int, level: int) -> None:
    task = palaestra.make_task("mastermind", seed=seed, level=level)
    knobs = MastermindKnobs.build(task.knobs)
    fits = [
        code
        for code in itertools.product(range(knobs.colours), repeat=knobs.length)
        if (knobs.repeats or len(set(code)) == knobs.length)
        and all(_pegs(code, tuple(c["guess"])) == (c["black"], c["white"]) for c in task.metadata["clues"])
    ]
    assert fits == [tuple(task.metadata["secret"])]


def test_answer_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("mastermind", seed=5, level=4)
    answer = task.answer
    for response in [
        answer,
        " ".join(answer),
        ",".join(answer.lower()),
        f"Code: {answer}",
        f"\\boxed{{{answer}}}",
    ]:
        assert palaestra.verify(
            task, f"<answer>{response}</answer>" if "Code" not in response else response
        ).correct
    knobs = MastermindKnobs.build(task.knobs)
    other = next(
        "".join(p)
        for p in itertools.permutations(COLOURS[: knobs.colours], knobs.length)
        if "".join(p) != answer
    )
    assert not palaestra.verify(task, f"<answer>{other}</answer>").correct
    assert not palaestra.verify(task, f"<answer>{answer}Z</answer>").format_ok
    assert not palaestra.verify(task, "<answer>AAAA</answer>").correct  # repeats are not allowed at level 4


def test_parse_code_rules() -> None:
    knobs = MastermindKnobs(length=4, colours=6)
    assert parse_code("a b c d", knobs) == [0, 1, 2, 3]
    assert parse_code("ABCG", knobs) is None  # G is not among 6 colours
    assert parse_code("AABC", knobs) is None  # no repeats
    assert parse_code("ABC", knobs) is None
