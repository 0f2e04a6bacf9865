"""number_guessing: unique deductions by brute force, Wordle marks, answer formats."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.interactive.number_guessing import NumberGuessingKnobs, encode, wordle, wordle_all


def _textbook_wordle(secret: tuple[int, ...], guess: tuple[int, ...]) -> str:
    """Two-pass Wordle marking, written independently."""
    marks = ["."] * len(guess)
    pool: dict[int, int] = {}
    for i, (s, g) in enumerate(zip(secret, guess, strict=True)):
        if s == g:
            marks[i] = "G"
        else:
            pool[s] = pool.get(s, 0) + 1
    for i, g in enumerate(guess):
        if marks[i] == "." and pool.get(g, 0):
            marks[i] = "Y"
            pool[g] -= 1
    return "".join(marks)


@given(
    st.lists(st.integers(0, 5), min_size=4, max_size=4), st.lists(st.integers(0, 5), min_size=4, max_size=4)
)
@settings(max_examples=300)
def test_wordle_marks_match_the_textbook_and_the_vectorised_version(
    secret: list[int], guess: list[int]
) -> None:
    marks = wordle(secret, guess)
    assert marks == _textbook_wordle(tuple(secret), tuple(guess))
    assert wordle_all(np.array([secret]), guess)[0] == encode(marks)


WORDLE = {"feedback": "wordle", "digits": 4, "alphabet": 5}


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 5), wordle_mode=st.booleans())
@settings(max_examples=30, deadline=None)
def test_exactly_one_answer_fits_by_brute_force(seed: int, level: int, wordle_mode: bool) -> None:
    """Levels 1-5 (up to 10**5 numbers) and Wordle mode are small enough to enumerate."""
    knobs = WORDLE if wordle_mode else {}
    task = palaestra.make_task("number_guessing", seed=seed, level=level, **knobs)
    knobs = NumberGuessingKnobs.build(task.knobs)
    clues = task.metadata["clues"]
    if knobs.feedback == "higher_lower":
        fits = [
            n
            for n in range(1, knobs.size + 1)
            if all((n > c["guess"]) if c["feedback"] == "higher" else (n < c["guess"]) for c in clues)
        ]
        assert fits == [int(task.answer)]
    else:
        fits = [
            code
            for code in itertools.product(range(knobs.alphabet), repeat=knobs.digits)
            if all(_textbook_wordle(code, tuple(c["guess"])) == c["feedback"] for c in clues)
        ]
        assert ["".join(map(str, f)) for f in fits] == [task.answer]


def test_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("number_guessing", seed=3, level=3)
    assert palaestra.verify(task, f"Answer: {task.answer}").correct
    assert palaestra.verify(task, f"\\boxed{{{task.answer}}}").correct
    assert not palaestra.verify(task, f"<answer>{int(task.answer) + 1}</answer>").correct
    assert not palaestra.verify(task, "<answer>forty</answer>").format_ok
    wordle_task = palaestra.make_task("number_guessing", seed=3, level=3, **WORDLE)
    assert palaestra.verify(wordle_task, f"<answer>{wordle_task.answer}</answer>").correct
    assert not palaestra.verify(wordle_task, f"<answer>{wordle_task.answer[::-1]}x</answer>").format_ok


def test_wordle_game_is_won_by_the_reference_player() -> None:
    from palaestra.envs.interactive import InteractiveEnv

    env = InteractiveEnv(
        "number_guessing", knobs={"feedback": "wordle", "digits": 4, "alphabet": 6, "slack": 4}
    )
    for seed in range(8):
        env.reset(seed=seed)
        while True:
            _, reward, terminated, truncated, info = env.step(env.episode.reference_action())
            if terminated or truncated:
                break
        assert info["outcome"] == "solved" and reward == 1.0


def test_the_number_is_read_by_the_shared_reader() -> None:
    task = palaestra.make_task("number_guessing", seed=1, level=3, feedback="higher_lower")
    answer = task.answer
    for written in (answer, f"${answer}$", f"{answer}.0", f"\\boxed{{{answer}}}", f"{answer}."):
        assert palaestra.verify(task, f"<answer>{written}</answer>").correct, written  # refused before
    assert palaestra.verify(task, f"<answer>{answer}.5</answer>").status == "wrong"  # not an integer
    for junk in (f"{answer} or {int(answer) + 1}", f"{answer}x", "nan", "inf"):
        assert palaestra.verify(task, f"<answer>{junk}</answer>").status == "unparseable", junk
