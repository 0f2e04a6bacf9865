"""Hangman: deduce a hidden English word from the revealed letters and the missed guesses.

Rules: guessing a letter reveals every position holding it; a letter the word lacks is a miss.
So a blank can hold no letter guessed so far (a guessed letter of the word would have been
revealed there, a missed one is absent).

Single-turn (``make_task``/``verify``): the prompt shows a game in progress, the pattern (e.g.
``_ p p _ e``) and the missed letters; exactly one word of the 63,414-word dictionary (SCOWL up
to size 50, ``generators/words/data/SOURCE.md``) fits them, proven by filtering every dictionary
word of that length; the secret is always a common word (SCOWL sizes 10-20). Interactive
(``palaestra/Hangman-v0``): guess a common word letter by letter (or the whole word) within a
budget of wrong guesses.

Difficulty: the word length (5 to 8) and how many of the secret's distinct letters stay hidden
(1 to 6) rise together, so the pattern alone pins the word less and less; from level 3 on each
such step spans two levels, the second hiding the secret's rarest letters in English (instead of
random ones) and showing more missed letters at least (the generator adds random misses until
the word is unique, and rejects secrets that no set of misses makes unique). The game's budget
of misses (10 for 5 letters, 9 for 6, 8 for 7, 5 for 8) is the least with which the reference
player below solves every common word of the length (checked exhaustively in the tests).

The weak solver reads only the pattern (it ignores the misses and the rule that a blank holds
no guessed letter) and answers the common word fitting it whose hidden letters are the most
frequent in English: it solves 82% at level 1, 11% at level 5, 1% at level 10 (16% at level 4,
1% at 6, 8% at 7: the rare-letter levels are the harder ones; measured/calibration/hangman.json).
The exact solver filters the dictionary position by position, then letter by letter (effort =
words scanned, ~4,900 at level 1 to ~12,600 at level 10). The scripted reference player
guesses the letter found in most common words still possible (the word itself once one is
left); the random player guesses random new letters (it wins 2 of 100 games at level 1, none at
levels 5 and 10). Generation (CPU time, mean over 30 seeds, benchmarks/generation.py, on a
loaded machine): 1,000 to 1,700 tasks per second at levels 1, 5 and 10.
"""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.extract import extract_answer

# the word lists as letter-code arrays, and the answer reader, are Wordle's (same lists, same rules)
from ..words.wordle import codes, dictionary_codes, read_word
from ..words.wordlist import common_words, dictionary

BLANK = "_"
# English letters, most frequent first (the weak solver prefers frequent ones; hide_rare hides rare ones)
FREQUENCY_ORDER = "etaoinshrdlcumwfgypbvkjxqz"
FREQUENCY_RANK = {letter: rank for rank, letter in enumerate(FREQUENCY_ORDER)}
MAX_TRIES = 200


@dataclass(frozen=True)
class HangmanKnobs(Knobs):
    length: int = knob(5, low=4, high=10, help="letters in the secret word")
    hidden: int = knob(2, low=1, high=8, help="distinct letters of the secret still hidden")
    misses: int = knob(2, low=0, high=20, help="least number of missed letters shown")
    hide_rare: bool = knob(False, help="hide the secret's rarest letters (in English) instead of random ones")
    guess_budget: int = knob(6, low=1, high=26, help="wrong guesses allowed in the interactive game")

    def validate(self) -> None:
        if self.hidden >= self.length:
            raise ValueError("at least one letter must be revealed: hidden < length")


LEVELS = {
    1: HangmanKnobs(length=5, hidden=1, misses=1, guess_budget=10),
    2: HangmanKnobs(length=5, hidden=2, misses=2, guess_budget=10),
    3: HangmanKnobs(length=6, hidden=3, misses=2, guess_budget=9),
    4: HangmanKnobs(length=6, hidden=3, misses=5, hide_rare=True, guess_budget=9),
    5: HangmanKnobs(length=6, hidden=4, misses=3, guess_budget=9),
    6: HangmanKnobs(length=6, hidden=4, misses=6, hide_rare=True, guess_budget=9),
    7: HangmanKnobs(length=7, hidden=5, misses=3, guess_budget=8),
    8: HangmanKnobs(length=7, hidden=5, misses=6, hide_rare=True, guess_budget=8),
    9: HangmanKnobs(length=8, hidden=6, misses=3, guess_budget=5),
    10: HangmanKnobs(length=8, hidden=6, misses=6, hide_rare=True, guess_budget=5),
}


# --------------------------------------------------------------------------------------------
# Consistency of words with a game state
# --------------------------------------------------------------------------------------------


@functools.cache
def _common_codes(length: int) -> np.ndarray:
    array = codes(common_words(length))
    array.setflags(write=False)
    return array


def pattern_of(secret: str, guessed: set[str] | frozenset[str]) -> str:
    """The secret with every letter not guessed yet replaced by ``_``."""
    return "".join(ch if ch in guessed else BLANK for ch in secret)


def fits(word: str, pattern: str, guessed: set[str] | frozenset[str]) -> bool:
    """Whether ``word`` could be the secret: same revealed letters, no guessed letter in a blank."""
    return len(word) == len(pattern) and all(
        (p == w) if p != BLANK else (w not in guessed) for p, w in zip(pattern, word, strict=True)
    )


def filter_words(
    words: np.ndarray, pattern: str, guessed: set[str] | frozenset[str]
) -> tuple[np.ndarray, int]:
    """Indices of the rows of ``words`` that fit the state, and the words scanned: filtered
    position by position over the revealed letters, then letter by letter over the blanks."""
    alive = np.arange(len(words))
    scanned = 0
    for pos, ch in enumerate(pattern):
        if ch != BLANK:
            scanned += len(alive)
            alive = alive[words[alive, pos] == ord(ch) - ord("a")]
    blanks = [pos for pos, ch in enumerate(pattern) if ch == BLANK]
    for letter in sorted(guessed):
        scanned += len(alive)
        code = ord(letter) - ord("a")
        alive = alive[(words[alive][:, blanks] != code).all(axis=1)]
    return alive, scanned


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def make_state(secret: str, knobs: HangmanKnobs, rng: np.random.Generator) -> tuple[str, list[str]] | None:
    """(pattern, missed letters) with exactly one dictionary word fitting, or ``None``."""
    letters = sorted(set(secret))
    if len(letters) <= knobs.hidden:
        return None
    if knobs.hide_rare:  # rare letters are the hardest to guess, and no frequency hint helps
        hidden = set(sorted(letters, key=lambda ch: -FREQUENCY_RANK[ch])[: knobs.hidden])
    else:
        hidden = {letters[int(i)] for i in rng.choice(len(letters), size=knobs.hidden, replace=False)}
    revealed = set(letters) - hidden
    absent = [ch for ch in string.ascii_lowercase if ch not in letters]
    order = [absent[int(i)] for i in rng.permutation(len(absent))]
    missed = order[: knobs.misses]
    pattern = pattern_of(secret, revealed)
    words = dictionary_codes(len(secret))
    alive, _ = filter_words(words, pattern, revealed | set(missed))
    for letter in order[knobs.misses :]:
        if len(alive) <= 1:
            break
        # a miss that rules nothing out is still a fine miss, but adding it cannot help
        keep = (
            words[alive][:, [p for p, ch in enumerate(pattern) if ch == BLANK]] != ord(letter) - ord("a")
        ).all(axis=1)
        if keep.all():
            continue
        alive = alive[keep]
        missed.append(letter)
    if len(alive) != 1:
        return None
    return pattern, sorted(missed)


def weak_guess(pattern: str) -> str:
    """The common word matching the revealed letters (ignoring misses and blanks' rule) whose
    letters in the blanks are the most frequent in English; the first such word on ties."""
    words = common_words(len(pattern))
    best, best_score = words[0], None
    for word in words:
        if all(p == BLANK or p == w for p, w in zip(pattern, word, strict=True)):
            score = sum(FREQUENCY_RANK[w] for p, w in zip(pattern, word, strict=True) if p == BLANK)
            if best_score is None or score < best_score:
                best, best_score = word, score
    return best


def show_pattern(pattern: str) -> str:
    return " ".join(pattern)


PROMPT = """Hangman. The secret is an English word of {length} letters. Guessing a letter \
reveals every place it occurs; a letter the word does not contain is a miss. The game so far:

Word:   {pattern}
Misses: {misses}

So a blank (_) holds none of the letters guessed so far (neither a revealed letter nor a miss). \
Exactly one English word fits. What is it? Answer with the word only, inside <answer></answer> \
tags."""


@family(
    "hangman",
    domain="interactive",
    knobs=HangmanKnobs,
    levels=LEVELS,
    description="Deduce a Hangman word from its revealed letters and misses (unique in a 63k-word dictionary); interactive: play Hangman.",
    verifier_kind="exact (unique word proven by filtering the dictionary)",
)
class Hangman(Family):
    def generate(self, knobs: HangmanKnobs, rng: np.random.Generator) -> TaskDraft:
        pool = common_words(knobs.length)
        for _ in range(MAX_TRIES):
            secret = pool[int(rng.integers(len(pool)))]
            state = make_state(secret, knobs, rng)
            if state is not None:
                break
        else:
            raise RuntimeError(f"no unique hangman state found in {MAX_TRIES} tries for {knobs}")
        pattern, missed = state
        metadata = {
            "pattern": pattern,
            "misses": missed,
            "solutions": 1,
            "canonical_hash": content_hash([pattern, missed]),
        }
        prompt = PROMPT.format(
            length=knobs.length,
            pattern=show_pattern(pattern),
            misses=" ".join(m.upper() for m in missed) or "none",
        )
        return TaskDraft(prompt, secret, metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=100)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        length = len(task.answer)
        word = read_word(extraction.text, length)
        if word is None:
            return Verdict.bad_format(f"the answer must be one word of {length} letters")
        if word == task.answer:
            return Verdict.right(parsed=word)
        pattern, missed = task.metadata["pattern"], task.metadata["misses"]
        guessed = {ch for ch in pattern if ch != BLANK} | set(missed)
        if not fits(word, pattern, guessed):
            return Verdict.wrong(f"{word} does not fit the pattern and misses", parsed=word)
        return Verdict.wrong(f"{word} fits but is not in the dictionary", parsed=word)

    def solve_exact(self, task: Task) -> SolverRun:
        """Filters every dictionary word of the length (effort = words scanned)."""
        pattern, missed = task.metadata["pattern"], task.metadata["misses"]
        guessed = {ch for ch in pattern if ch != BLANK} | set(missed)
        alive, scanned = filter_words(dictionary_codes(len(pattern)), pattern, guessed)
        word = dictionary(len(pattern))[int(alive[0])]
        return SolverRun(f"<answer>{word}</answer>", float(scanned))

    def solve_weak(self, task: Task) -> SolverRun:
        """Reads only the pattern; answers the fitting common word with the most frequent letters."""
        pattern = task.metadata["pattern"]
        return SolverRun(f"<answer>{weak_guess(pattern)}</answer>", float(len(common_words(len(pattern)))))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        secret, pattern = task.answer, task.metadata["pattern"]
        blanks = [p for p, ch in enumerate(pattern) if ch == BLANK]
        wrong = {secret[::-1], secret[1:] + secret[0], secret[:-1], weak_guess(pattern)}
        for pos in blanks[:2]:  # a near miss: one hidden letter changed
            other = "e" if secret[pos] != "e" else "a"
            wrong.add(secret[:pos] + other + secret[pos + 1 :])
        wrong.discard(secret)
        return [f"<answer>{w}</answer>" for w in sorted(wrong)]

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        return HangmanGame(HangmanKnobs.build(task.knobs), task.answer)


class HangmanGame(Episode):
    """Guess the secret a letter (or the whole word) at a time, within a budget of misses."""

    def __init__(self, knobs: HangmanKnobs, secret: str):
        self.knobs, self.secret = knobs, secret
        self.guessed: set[str] = set()
        self.wrong_words: set[str] = set()
        self.misses_left = knobs.guess_budget
        self.max_turns = len(set(secret)) + knobs.guess_budget + 10  # room for invalid messages

    def opening(self) -> str:
        k = self.knobs
        return (
            f"Let's play Hangman. I chose a common English word of {k.length} letters: "
            f"{show_pattern(BLANK * k.length)}. Send one letter per message (or the whole word if you "
            "know it). A letter in the word is revealed everywhere it occurs; a letter not in the word, "
            f"or a wrong word, is a miss. You may miss {k.guess_budget} times."
        )

    def _status(self) -> str:
        missed = sorted(ch for ch in self.guessed if ch not in self.secret)
        shown = " ".join(m.upper() for m in missed) or "none"
        return f"Word: {show_pattern(pattern_of(self.secret, self.guessed))}. Misses: {shown}"

    def act(self, action: str) -> Turn:
        extraction = extract_answer(action, allow_bare=True, max_chars=100)
        text = (extraction.text or "").strip().strip(".").strip("`\"'").lower() if extraction.ok else ""
        if len(text) == 1 and "a" <= text <= "z":
            if text in self.guessed:
                return Turn(
                    f"you already guessed {text.upper()}; guess another letter.", info={"invalid": True}
                )
            self.guessed.add(text)
            hit = text in self.secret
        else:
            word = read_word(text, self.knobs.length)
            if word is None:
                return Turn(
                    f"invalid guess: send one letter, or a word of {self.knobs.length} letters.",
                    info={"invalid": True},
                )
            if word == self.secret:
                self.guessed |= set(word)
                return Turn(f"{self._status()}: solved!", reward=1.0, outcome="solved")
            self.wrong_words.add(word)
            hit = False
        if hit and all(ch in self.guessed for ch in self.secret):
            return Turn(f"{self._status()}: solved!", reward=1.0, outcome="solved")
        if not hit:
            self.misses_left -= 1
            if self.misses_left == 0:
                return Turn(
                    f"{self._status()}. No misses left; the word was {self.secret}.", outcome="failed"
                )
        return Turn(f"{self._status()}. {self.misses_left} misses left.")

    def random_action(self, rng: np.random.Generator) -> str:
        letters = [ch for ch in string.ascii_lowercase if ch not in self.guessed]
        return letters[int(rng.integers(len(letters)))]

    def reference_action(self) -> str:
        """The letter in most common words still possible (the word once only one is left)."""
        return best_guess(
            pattern_of(self.secret, self.guessed), frozenset(self.guessed), frozenset(self.wrong_words)
        )


@functools.lru_cache(maxsize=4096)
def best_guess(pattern: str, guessed: frozenset[str], wrong_words: frozenset[str]) -> str:
    words = common_words(len(pattern))
    alive, _ = filter_words(_common_codes(len(pattern)), pattern, guessed)
    alive = [int(i) for i in alive if words[int(i)] not in wrong_words]
    if len(alive) == 1:
        return words[alive[0]]
    if not alive:  # unreachable for a common secret; guess the most frequent new letter
        return next(ch for ch in FREQUENCY_ORDER if ch not in guessed)
    counts = np.zeros(26, dtype=np.int64)
    rows = _common_codes(len(pattern))[alive]
    for code in range(26):
        counts[code] = (rows == code).any(axis=1).sum()
    for letter in guessed:
        counts[ord(letter) - ord("a")] = -1
    return chr(ord("a") + int(np.argmax(counts)))
