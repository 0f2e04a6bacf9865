"""Hangman: proven-unique deduction tasks (checked by brute force), answer formats, the game."""

from __future__ import annotations

import functools
import gzip
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import palaestra
from palaestra.generators.interactive.hangman import LEVELS, HangmanGame, HangmanKnobs
from palaestra.generators.words.wordlist import common_words
from palaestra.registry import get

DATA = Path(palaestra.__file__).resolve().parent / "generators" / "words" / "data"


@functools.cache
def _words_by_length() -> dict[int, list[str]]:
    """The dictionary read straight from its file, independently of the family's loader."""
    by_length: dict[int, list[str]] = {}
    for word in gzip.decompress((DATA / "dictionary.txt.gz").read_bytes()).decode("ascii").split():
        by_length.setdefault(len(word), []).append(word)
    return by_length


def _could_be(word: str, pattern: str, misses: list[str]) -> bool:
    """The Hangman rule, written plainly: revealed letters match, and a blank holds neither a
    revealed letter (it would have been shown) nor a missed one."""
    shown = set(pattern) - {"_"}
    for p, w in zip(pattern, word, strict=True):
        if p != "_" and p != w:
            return False
        if p == "_" and (w in shown or w in misses):
            return False
    return True


@given(seed=st.integers(0, 2**63 - 1), level=st.integers(1, 10))
@settings(max_examples=40, deadline=None)
def test_exactly_one_dictionary_word_fits_by_brute_force(seed: int, level: int) -> None:
    task = palaestra.make_task("hangman", seed=seed, level=level)
    knobs = HangmanKnobs.build(task.knobs)
    pattern, misses, secret = task.metadata["pattern"], task.metadata["misses"], task.answer
    # the state is a real game state of this secret
    assert len(secret) == knobs.length and len(pattern) == knobs.length
    assert all(p == "_" or p == s for p, s in zip(pattern, secret, strict=True))
    assert not set(misses) & set(secret) and len(misses) >= knobs.misses
    assert len(set(secret) - set(pattern)) == knobs.hidden and set(pattern) - {"_"}
    assert secret in (DATA / "common.txt").read_text().split()
    if knobs.hide_rare:  # every hidden letter is rarer in English than every revealed one
        rank = "etaoinshrdlcumwfgypbvkjxqz".index
        assert min(map(rank, set(secret) - set(pattern))) > max(map(rank, set(pattern) - {"_"}))
    fits = [w for w in _words_by_length()[knobs.length] if _could_be(w, pattern, misses)]
    assert fits == [secret]
    shown_misses = " ".join(m.upper() for m in misses) or "none"
    assert " ".join(pattern) in task.prompt and f"Misses: {shown_misses}" in task.prompt


def test_answer_formats_and_wrong_answers() -> None:
    task = palaestra.make_task("hangman", seed=3, level=5)
    answer = task.answer
    for response in [
        f"<answer>{answer}</answer>",
        f"<answer>{answer.upper()}</answer>",
        f"<answer> {answer}. </answer>",
        f"\\boxed{{{answer}}}",
        f"Answer: {answer}",
    ]:
        assert palaestra.verify(task, response).correct, response
    pattern = task.metadata["pattern"]
    # a word that fits the revealed letters but puts a guessed letter in a blank
    near = next(
        w
        for w in _words_by_length()[len(answer)]
        if w != answer and all(p == "_" or p == c for p, c in zip(pattern, w, strict=True))
    )
    verdict = palaestra.verify(task, f"<answer>{near}</answer>")
    assert verdict.format_ok and not verdict.correct
    for bad in [answer[:-1], answer + "s", "two words", answer[:-1] + "1", ""]:
        verdict = palaestra.verify(task, f"<answer>{bad}</answer>")
        assert not verdict.correct and not verdict.format_ok, bad
    assert not palaestra.verify(task, f"<answer>{answer}</answer> <answer>{near}</answer>").correct
    start = time.process_time()
    for hostile in ["<answer>" + "a" * 10**6 + "</answer>", "_" * 10**6, "\\boxed{" * 10**5]:
        assert not palaestra.verify(task, hostile).correct
    assert time.process_time() - start < 1.0


def test_misses_are_not_all_that_narrows_the_word() -> None:
    """At level 1 a random miss list is shown even when the pattern alone is unique, and at
    level 10 most of the word is hidden."""
    low = [palaestra.make_task("hangman", seed=s, level=1) for s in range(20)]
    high = [palaestra.make_task("hangman", seed=s, level=10) for s in range(20)]
    assert all(len(t.metadata["misses"]) >= 1 for t in low)
    assert np.mean([t.metadata["pattern"].count("_") for t in high]) > 5


def _play(game: HangmanGame, moves: list[str]) -> list:
    return [game.act(m) for m in moves]


def test_game_rules() -> None:
    knobs = HangmanKnobs(length=5, hidden=2, misses=2, guess_budget=3)
    game = HangmanGame(knobs, "apple")
    assert "_ _ _ _ _" in game.opening()
    hit, again, miss = _play(game, ["p", "P", "z"])
    assert "_ p p _ _" in hit.observation and hit.outcome is None
    assert again.info.get("invalid")  # a repeated letter costs nothing
    assert "Misses: Z" in miss.observation and game.misses_left == 2
    wrong_word = game.act("<answer>ample</answer>")
    assert wrong_word.outcome is None and game.misses_left == 1
    assert game.act("two words").info.get("invalid") and game.misses_left == 1
    solved = game.act("apple")
    assert solved.outcome == "solved" and solved.reward == 1.0

    game = HangmanGame(knobs, "apple")
    turns = _play(game, ["x", "y", "z"])
    assert turns[-1].outcome == "failed" and "apple" in turns[-1].observation

    game = HangmanGame(knobs, "apple")
    turns = _play(game, ["a", "p", "l", "e"])
    assert [t.outcome for t in turns] == [None, None, None, "solved"]


@pytest.mark.slow
def test_reference_player_solves_every_common_word_within_the_budget() -> None:
    """Exhaustive over the common words of each level's length (about 6,300 games)."""
    budgets = {k.length: k.guess_budget for k in LEVELS.values()}
    assert len(set(budgets.values())) == len(budgets)  # one budget per length
    for length, budget in budgets.items():
        for secret in common_words(length):
            game = HangmanGame(HangmanKnobs(length=length, hidden=1, misses=0, guess_budget=budget), secret)
            outcome = None
            while outcome is None:
                outcome = game.act(game.reference_action()).outcome
            assert outcome == "solved", (secret, budget)


def test_reference_player_wins_and_random_player_rarely_does() -> None:
    impl = get("hangman").impl
    for level in (1, 5, 10):
        wins = random_wins = 0
        for seed in range(10):
            task = palaestra.make_task("hangman", seed=seed, level=level)
            for player in ("reference", "random"):
                game = impl.new_episode(task, np.random.default_rng(seed))
                rng = np.random.default_rng(seed)
                outcome = None
                for _ in range(game.max_turns):
                    move = game.reference_action() if player == "reference" else game.random_action(rng)
                    outcome = game.act(move).outcome
                    if outcome:
                        break
                if outcome == "solved":
                    wins += player == "reference"
                    random_wins += player == "random"
        assert wins == 10, level
        assert random_wins <= 3, level
