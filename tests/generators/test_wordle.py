"""wordle: Wordle colouring checked against a textbook two-pass implementation; every clue set
fits exactly one word of the dictionary read straight from the data file; answer forms; the
live game's rules (invalid guesses, budget, colours sent back)."""

from __future__ import annotations

import functools
import gzip
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.envs.interactive import InteractiveEnv
from palaestra.generators.words import wordlist as _wordlist
from palaestra.generators.words.wordle import WordleGame, feedback

DATA = Path(_wordlist.__file__).resolve().parent / "data"


@functools.cache
def _dictionary(length: int) -> tuple[str, ...]:
    words = gzip.decompress((DATA / "dictionary.txt.gz").read_bytes()).decode().split()
    return tuple(w for w in words if len(w) == length)


def _colours(guess: str, secret: str) -> tuple[int, ...]:
    """Wordle's rule in two passes: greens, then yellows left to right from the unmatched
    secret letters (2 = green, 1 = yellow, 0 = grey)."""
    out = [2 if g == s else 0 for g, s in zip(guess, secret, strict=True)]
    spare = Counter(s for s, c in zip(secret, out, strict=True) if c != 2)
    for i, g in enumerate(guess):
        if out[i] != 2 and spare[g] > 0:
            out[i], spare[g] = 1, spare[g] - 1
    return tuple(out)


@given(st.text("abcde", min_size=5, max_size=5), st.text("abcde", min_size=5, max_size=5))
@settings(max_examples=400)
def test_colouring_matches_the_textbook_rule(guess: str, secret: str) -> None:
    assert feedback(guess, secret) == _colours(guess, secret)


def test_repeated_letters_are_coloured_as_often_as_the_secret_has_them() -> None:
    assert feedback("speed", "abide") == (0, 0, 1, 0, 1)  # one e yellow, the other grey
    assert feedback("eerie", "there") == (1, 0, 1, 0, 2)
    assert feedback("lolly", "hello") == (0, 1, 2, 2, 0)


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=12, deadline=None)
def test_exactly_one_dictionary_word_fits_the_clues(seed: int, level: int) -> None:
    task = palaestra.make_task("wordle", seed=seed, level=level)
    clues = task.metadata["clues"]
    fits = [
        w
        for w in _dictionary(len(task.answer))
        if all(_colours(c["guess"], w) == tuple(c["colours"]) for c in clues)
    ]
    assert fits == [task.answer]
    assert all(c["guess"] != task.answer for c in clues)
    for clue in clues:  # the prompt shows the same colours
        line = f"{clue['guess'].upper()}  " + " ".join(
            "." if c == 0 else "YG"[c - 1] for c in clue["colours"]
        )
        assert line in task.prompt


def test_answer_forms_and_wrong_words() -> None:
    task = palaestra.make_task("wordle", seed=4, level=5)
    secret = task.answer
    for response in (
        f"<answer>{secret.upper()}</answer>",
        f'<answer>"{secret}".</answer>',
        f"Answer: {secret}",
    ):
        assert palaestra.verify(task, response).correct, response
    clue = task.metadata["clues"][0]["guess"]
    verdict = palaestra.verify(task, f"<answer>{clue}</answer>")
    assert not verdict.correct and verdict.format_ok and "feedback" in verdict.reason
    assert not palaestra.verify(task, f"<answer>{secret} {secret}</answer>").format_ok
    assert not palaestra.verify(task, f"<answer>{secret}s</answer>").format_ok
    assert not palaestra.verify(task, f"<answer>{secret[:-1]}3</answer>").format_ok


def test_hostile_answers_are_refused_quickly() -> None:
    task = palaestra.make_task("wordle", seed=1, level=10)
    started = time.process_time()
    for response in ("<answer>" + "a" * 10**6 + "</answer>", "<answer>" + "\u0430" * 6 + "</answer>"):
        assert not palaestra.verify(task, response).format_ok
    assert time.process_time() - started < 0.5


def test_live_game_colours_invalid_guesses_and_budget() -> None:
    env = InteractiveEnv("wordle")
    env.reset(seed=2, options={"level": 7})
    game = env.episode
    secret, budget = game.secret, game.knobs.guess_budget
    guess = next(w for w in _dictionary(len(secret)) if w != secret and w[0] != secret[0])
    observation, reward, terminated, _, info = env.step(f"<answer>{guess}</answer>")
    colours = " ".join("." if c == 0 else "YG"[c - 1] for c in _colours(guess, secret))
    assert observation.startswith(colours) and reward == 0.0 and not terminated
    _, _, terminated, _, info = env.step("qzxjv" if len(secret) == 5 else "qzxjvw")  # not a word
    assert info.get("invalid") and not terminated
    for _ in range(budget - 2):
        env.step(guess)
    observation, reward, terminated, _, info = env.step(guess)
    assert terminated and reward == 0.0 and secret in observation  # budget spent


@pytest.mark.slow
def test_reference_player_solves_every_common_secret_within_the_budget() -> None:
    """Exhaustive over every secret the game can draw, at each level's word length (~7 CPU-s)."""
    for level, knobs in palaestra.get("wordle").levels.items():
        if any(
            k.length == knobs.length and k.guess_budget < knobs.guess_budget
            for k in palaestra.get("wordle").levels.values()
        ):
            continue  # a level with the same length and a smaller budget covers this one
        for secret in _wordlist.common_words(knobs.length):
            game, outcome = WordleGame(knobs, secret), None
            while outcome is None:
                outcome = game.act(game.reference_action()).outcome
            assert outcome == "solved", (level, secret)
