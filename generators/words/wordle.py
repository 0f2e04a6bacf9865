"""Wordle: find a hidden English word from coloured letter feedback.

Feedback is exactly Wordle's: a letter in the right place is green; the secret's other letters
are then matched to the guess's remaining letters from left to right (yellow), and a letter the
secret has no unmatched copy of is grey. So a repeated guess letter is coloured at most as many
times as the secret holds it.

Single-turn (``make_task``/``verify``): the prompt lists guesses with their feedback; exactly
one word of the 63,414-word dictionary (SCOWL up to size 50, ``data/SOURCE.md``) fits all of
them, proven by filtering every dictionary word of that length; the answer is that word, always
a common one (SCOWL sizes 10-20). Interactive (``palaestra/Wordle-v0``): guess the secret, a
common word, within a guess budget; every guess must be a dictionary word.

Difficulty: the word length (5, then 6 from level 8), how the clue guesses are chosen (the most
informative of 8 random common words at level 1, the least informative of 16 that still rules
out a word at level 10, so more and vaguer clues must be combined) and the game's guess budget
(8 down to 6). The weak solver reads only the first three clues and answers the first common
word fitting them; the exact solver filters the dictionary clue by clue (effort = word-clue
checks). The scripted reference player guesses the common word whose feedback splits the
remaining candidates with most entropy (solves every secret within the budget: at most 5
guesses for 5 letters, 4 for 6, checked exhaustively in the tests); the
random player guesses random dictionary words. Generation (CPU time, mean over 30 seeds): ~120
tasks per second at level 1, ~215 at level 5, ~17 at level 10, under 50/s there because each
clue is the least informative of 16 random guesses, each scored against every 6-letter
dictionary word still alive (7,113 at first).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.extract import extract_answer

from .wordlist import common_words, dictionary, is_word

GREEN, YELLOW, GREY = 2, 1, 0
SYMBOLS = {GREEN: "G", YELLOW: "Y", GREY: "."}


@dataclass(frozen=True)
class WordleKnobs(Knobs):
    length: int = knob(5, low=4, high=6, help="letters in the secret word")
    clue_pick: int = knob(
        2,
        low=-16,
        high=16,
        help="clue guesses: the most (k > 0) or least (k < 0) informative of |k| random common words",
    )
    guess_budget: int = knob(6, low=1, high=30, help="guesses allowed in the interactive game")


LEVELS = {
    1: WordleKnobs(length=5, clue_pick=8, guess_budget=8),
    2: WordleKnobs(length=5, clue_pick=4, guess_budget=8),
    3: WordleKnobs(length=5, clue_pick=2, guess_budget=8),
    4: WordleKnobs(length=5, clue_pick=1, guess_budget=7),
    5: WordleKnobs(length=5, clue_pick=-2, guess_budget=7),
    6: WordleKnobs(length=5, clue_pick=-4, guess_budget=7),
    7: WordleKnobs(length=5, clue_pick=-8, guess_budget=6),
    8: WordleKnobs(length=6, clue_pick=-8, guess_budget=6),
    9: WordleKnobs(length=6, clue_pick=-12, guess_budget=6),
    10: WordleKnobs(length=6, clue_pick=-16, guess_budget=6),
}


# --------------------------------------------------------------------------------------------
# Feedback
# --------------------------------------------------------------------------------------------


def codes(words: tuple[str, ...] | list[str]) -> np.ndarray:
    """Words as rows of letter codes 0-25."""
    if not words:
        return np.zeros((0, 0), dtype=np.int8)
    return (np.frombuffer("".join(words).encode(), dtype=np.uint8).reshape(len(words), -1) - ord("a")).astype(
        np.int8
    )


def feedback_many(guess: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Feedback of one guess against every row of ``secrets``, as base-3 numbers (position 0
    the most significant digit; digits GREEN/YELLOW/GREY)."""
    n, length = secrets.shape
    green = secrets == guess
    # the secret's letters not matched by a green, counted per letter
    unmatched = np.zeros((n, 26), dtype=np.int8)
    rows = np.arange(n)
    for pos in range(length):  # each row once per position: plain fancy-index += is exact
        unmatched[rows, secrets[:, pos]] += ~green[:, pos]
    colours = np.where(green, GREEN, GREY).astype(np.int8)
    for pos in range(length):
        letter = guess[pos]
        can = ~green[:, pos] & (unmatched[:, letter] > 0)
        colours[can, pos] = YELLOW
        unmatched[can, letter] -= 1
    weights = 3 ** np.arange(length - 1, -1, -1)
    return colours.astype(np.int64) @ weights


def feedback(guess: str, secret: str) -> tuple[int, ...]:
    """Colours of ``guess`` against ``secret`` (one digit per letter)."""
    value = int(feedback_many(codes([guess])[0], codes([secret]))[0])
    return tuple(int(d) for d in np.base_repr(value, 3).zfill(len(guess)))


def feedback_value(colours: tuple[int, ...] | list[int]) -> int:
    value = 0
    for c in colours:
        value = 3 * value + int(c)
    return value


def show(colours: tuple[int, ...] | list[int]) -> str:
    return " ".join(SYMBOLS[int(c)] for c in colours)


@functools.cache
def dictionary_codes(length: int) -> np.ndarray:
    """The dictionary's words of ``length`` letters as a read-only array of letter codes."""
    array = codes(dictionary(length))
    array.setflags(write=False)
    return array


@functools.cache
def _common_matrix(length: int) -> np.ndarray:
    """Feedback of every common word (rows: guesses) against every common word (columns)."""
    words = codes(common_words(length))
    matrix = np.stack([feedback_many(g, words) for g in words]).astype(np.int16)
    matrix.setflags(write=False)
    return matrix


# --------------------------------------------------------------------------------------------
# Generation and solving
# --------------------------------------------------------------------------------------------


def consistent(clues: list[dict], words: np.ndarray) -> tuple[np.ndarray, int]:
    """Mask of the rows of ``words`` that fit every clue, and the word-clue checks made."""
    alive = np.arange(len(words))
    checks = 0
    for clue in clues:
        checks += len(alive)
        values = feedback_many(codes([clue["guess"]])[0], words[alive])
        alive = alive[values == feedback_value(clue["colours"])]
    mask = np.zeros(len(words), dtype=bool)
    mask[alive] = True
    return mask, checks


def make_clues(secret: str, knobs: WordleKnobs, rng: np.random.Generator) -> list[dict]:
    """Clue guesses (common words, never the secret) until only the secret fits them all."""
    words = dictionary_codes(knobs.length)
    pool = common_words(knobs.length)
    target = codes([secret])[0]
    alive = np.arange(len(words))
    clues: list[dict] = []
    while len(alive) > 1:
        options = []
        for _ in range(abs(knobs.clue_pick)):
            guess = pool[int(rng.integers(len(pool)))]
            if guess == secret:
                continue
            colours = int(feedback_many(codes([guess])[0], target[None, :])[0])
            keep = alive[feedback_many(codes([guess])[0], words[alive]) == colours]
            if len(keep) < len(alive):  # rules out at least one word
                options.append((len(keep), guess, keep))
        if not options:
            continue
        options.sort(key=lambda o: (o[0], o[1]))
        _, guess, alive = options[0] if knobs.clue_pick > 0 else options[-1]
        clues.append({"guess": guess, "colours": list(feedback(guess, secret))})
    return clues


WEAK_MEMORY = 3


def weak_guess(clues: list[dict], length: int) -> str:
    """The first common word that fits the first three clues (it reads no further)."""
    words = common_words(length)
    mask, _ = consistent(clues[:WEAK_MEMORY], codes(words))
    guessed = {c["guess"] for c in clues}
    return next((words[i] for i in np.flatnonzero(mask) if words[i] not in guessed), words[0])


def read_word(text: str, length: int) -> str | None:
    word = text.strip().strip(".").strip("`\"'").lower()
    if len(word) != length or not (word.isascii() and word.isalpha()):
        return None
    return word


PROMPT = """Wordle. The secret is an English word of {length} letters. Each guess below is \
followed by its colours, one per letter: G = right letter in the right place, Y = in the \
word but in another place, . = not in the word. As in Wordle, a letter repeated in a guess is \
coloured G or Y only as many times as the secret contains it (greens first, then yellows from \
left to right); other copies are marked "."

{clues}

Exactly one English word fits all of this feedback. What is it? Answer with the word only, \
inside <answer></answer> tags."""


@family(
    "wordle",
    domain="words",
    knobs=WordleKnobs,
    levels=LEVELS,
    description="Deduce a Wordle secret from coloured feedback (unique in a 63k-word dictionary); interactive: play Wordle.",
    verifier_kind="exact (unique word proven by filtering the dictionary)",
)
class Wordle(Family):
    def generate(self, knobs: WordleKnobs, rng: np.random.Generator) -> TaskDraft:
        pool = common_words(knobs.length)
        secret = pool[int(rng.integers(len(pool)))]
        clues = make_clues(secret, knobs, rng)
        shown = "\n".join(f"{c['guess'].upper()}  {show(c['colours'])}" for c in clues)
        metadata = {
            "secret": secret,
            "clues": clues,
            "solutions": 1,
            "canonical_hash": content_hash(sorted((c["guess"], c["colours"]) for c in clues)),
        }
        return TaskDraft(PROMPT.format(length=knobs.length, clues=shown), secret, metadata)

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
        for clue in task.metadata["clues"]:
            if list(feedback(clue["guess"], word)) != clue["colours"]:
                return Verdict.wrong(
                    f"{word} does not fit the feedback of {clue['guess'].upper()}", parsed=word
                )
        return Verdict.wrong(f"{word} fits the feedback but is not in the dictionary", parsed=word)

    def solve_exact(self, task: Task) -> SolverRun:
        """Filters every dictionary word of the length clue by clue (effort = word-clue checks)."""
        length = len(task.answer)
        mask, checks = consistent(task.metadata["clues"], dictionary_codes(length))
        word = dictionary(length)[int(np.flatnonzero(mask)[0])]
        return SolverRun(f"<answer>{word}</answer>", float(checks))

    def solve_weak(self, task: Task) -> SolverRun:
        """Reads only the first three clues; answers the first common word that fits them."""
        word = weak_guess(task.metadata["clues"], len(task.answer))
        return SolverRun(f"<answer>{word}</answer>", float(len(task.metadata["clues"])))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        secret = task.answer
        wrong = {
            task.metadata["clues"][-1]["guess"],  # the last clue guess
            secret[::-1],
            secret[1:] + secret[0],
            secret[:-1],
            weak_guess(task.metadata["clues"], len(secret)),
        }
        wrong.discard(secret)
        return [f"<answer>{w}</answer>" for w in sorted(wrong)]

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        return WordleGame(WordleKnobs.build(task.knobs), task.answer)


class WordleGame(Episode):
    """Guess the secret word; each guess is answered with Wordle colours."""

    def __init__(self, knobs: WordleKnobs, secret: str):
        self.knobs, self.secret = knobs, secret
        self.guesses_left = knobs.guess_budget
        self.max_turns = knobs.guess_budget + 10  # room for a few invalid messages
        self.history: list[tuple[str, int]] = []

    def opening(self) -> str:
        k = self.knobs
        return (
            f"Let's play Wordle. I chose a common English word of {k.length} letters. Guess it: send "
            f"one English word of {k.length} letters per message. I answer with one colour per letter: "
            "G = right letter in the right place, Y = in the word but in another place, . = not in the "
            "word (a repeated letter is coloured only as many times as the secret contains it). "
            f"You have {k.guess_budget} guesses."
        )

    def act(self, action: str) -> Turn:
        extraction = extract_answer(action, allow_bare=True, max_chars=100)
        word = read_word(extraction.text or "", self.knobs.length) if extraction.ok else None
        if word is None or not is_word(word):
            return Turn(
                f"invalid guess: send one English word of {self.knobs.length} letters.",
                info={"invalid": True},
            )
        self.guesses_left -= 1
        colours = feedback(word, self.secret)
        self.history.append((word, feedback_value(colours)))
        if word == self.secret:
            return Turn(f"{show(colours)}: solved!", reward=1.0, outcome="solved")
        if self.guesses_left == 0:
            return Turn(f"{show(colours)}. No guesses left; the word was {self.secret}.", outcome="failed")
        return Turn(f"{show(colours)}. {self.guesses_left} guesses left.")

    def random_action(self, rng: np.random.Generator) -> str:
        words = dictionary(self.knobs.length)
        return words[int(rng.integers(len(words)))]

    def reference_action(self) -> str:
        """The common word whose feedback splits the remaining common candidates with most
        entropy (a remaining candidate wins ties; then the alphabetically first)."""
        return best_guess(self.knobs.length, tuple(self.history))


@functools.lru_cache(maxsize=4096)
def best_guess(length: int, history: tuple[tuple[str, int], ...]) -> str:
    words = common_words(length)
    matrix = _common_matrix(length)
    alive = np.ones(len(words), dtype=bool)
    index = {w: i for i, w in enumerate(words)}
    all_words = codes(words)
    for guess, value in history:
        row = matrix[index[guess]] if guess in index else feedback_many(codes([guess])[0], all_words)
        alive &= row == value
    candidates = np.flatnonzero(alive)
    if len(candidates) <= 2:
        return words[int(candidates[0])]
    sub = matrix[:, candidates]
    best, best_score = 0, -1.0
    for g in range(len(words)):
        counts = np.bincount(sub[g], minlength=1)
        counts = counts[counts > 0] / len(candidates)
        score = float(-(counts * np.log2(counts)).sum()) + (1e-6 if alive[g] else 0.0)
        if score > best_score + 1e-12:
            best, best_score = g, score
    return words[best]
