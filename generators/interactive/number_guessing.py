"""Guess a hidden number from feedback: higher/lower, or Wordle-style per-digit colours.

Single-turn: the prompt lists earlier guesses with their feedback, chosen so exactly one
number fits them all (proven by enumerating every candidate); the answer is that number.
Interactive (``palaestra/NumberGuessing-v0``): the agent guesses and the game answers, within
a guess budget. The reference player bisects (higher/lower) or guesses a random candidate
consistent with every answer so far (Wordle-style).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.extract import extract_answer
from palaestra.verifiers.numbers import fold_lookalikes, read_integer

_NUMBER = re.compile(r"\d+")
MAX_CANDIDATES = 200_000


@dataclass(frozen=True)
class NumberGuessingKnobs(Knobs):
    feedback: str = knob(
        "higher_lower", choices=("higher_lower", "wordle"), help="kind of feedback after a guess"
    )
    size: int = knob(100, low=4, high=10**12, help="higher_lower: numbers 1..size")
    digits: int = knob(3, low=2, high=5, help="wordle: length of the hidden digit string")
    alphabet: int = knob(6, low=2, high=10, help="wordle: digits 0..alphabet-1 may appear")
    slack: int = knob(2, low=0, high=20, help="guesses allowed beyond the reference player's worst case")

    def validate(self) -> None:
        if self.feedback == "wordle" and self.alphabet**self.digits > MAX_CANDIDATES:
            raise ValueError(f"{self.alphabet}**{self.digits} candidates exceed {MAX_CANDIDATES}")


LEVELS = {
    1: NumberGuessingKnobs(size=10, slack=3),
    2: NumberGuessingKnobs(size=50, slack=2),
    3: NumberGuessingKnobs(size=200, slack=2),
    4: NumberGuessingKnobs(size=1000, slack=1),
    5: NumberGuessingKnobs(size=10**5, slack=1),
    6: NumberGuessingKnobs(size=10**6, slack=1),
    7: NumberGuessingKnobs(size=10**7, slack=1),
    8: NumberGuessingKnobs(size=10**8, slack=0),
    9: NumberGuessingKnobs(size=10**10, slack=0),
    10: NumberGuessingKnobs(size=10**12, slack=0),
}
# Wordle-style feedback is a knob (feedback="wordle", digits, alphabet) rather than a level
# band: its weak-solver solve rate restarts high, so mixing the two in one ladder would break
# the calibration's monotone solve rate.


def budget(knobs: NumberGuessingKnobs) -> int:
    """Guess budget: bisection's worst case (higher/lower) or a fixed allowance, plus slack."""
    if knobs.feedback == "higher_lower":
        return math.ceil(math.log2(knobs.size + 1)) + knobs.slack
    return knobs.digits + 2 + knobs.slack


def candidates(knobs: NumberGuessingKnobs) -> np.ndarray:
    """Wordle mode: every digit string as a row of digits (shared, read-only)."""
    return _candidates(knobs.alphabet, knobs.digits)


@functools.lru_cache(maxsize=16)
def _candidates(alphabet: int, digits: int) -> np.ndarray:
    codes = np.indices((alphabet,) * digits).reshape(digits, -1).T.astype(np.int8)
    codes.setflags(write=False)
    return codes


def wordle(secret: list[int] | np.ndarray, guess: list[int] | np.ndarray) -> str:
    """'G' right digit right place, 'Y' present elsewhere (counting multiplicity), '.' absent."""
    secret, guess = list(secret), list(guess)
    marks = ["G" if s == g else "." for s, g in zip(secret, guess, strict=True)]
    unused = [s for s, m in zip(secret, marks, strict=True) if m != "G"]
    for i, g in enumerate(guess):
        if marks[i] != "G" and g in unused:
            marks[i] = "Y"
            unused.remove(g)
    return "".join(marks)


_MARK_VALUES = {".": 0, "Y": 1, "G": 2}


def encode(marks: str) -> int:
    """A feedback string as a base-3 number (what :func:`wordle_all` returns)."""
    return sum(_MARK_VALUES[m] * 3**i for i, m in enumerate(marks))


def wordle_all(codes: np.ndarray, guess: list[int]) -> np.ndarray:
    """Wordle feedback of ``guess`` against every candidate, encoded by :func:`encode`.

    Same rule as :func:`wordle`, vectorised over candidates: greens first, then yellows left
    to right while the candidate still has unmatched copies of that digit.
    """
    guess_array = np.asarray(guess)
    green = codes == guess_array
    digits = int(max(codes.max(initial=0), guess_array.max(initial=0))) + 1
    # copies of each digit in each candidate that are not already matched green
    remaining = np.stack([((codes == d) & ~green).sum(axis=1) for d in range(digits)], axis=1)
    marks = np.where(green, 2, 0)
    rows = np.arange(len(codes))
    for i, g in enumerate(guess):
        yellow = ~green[:, i] & (remaining[:, g] > 0)
        marks[yellow, i] = 1
        remaining[rows[yellow], g] -= 1
    return (marks * 3 ** np.arange(len(guess))).sum(axis=1)


def _fits(codes: np.ndarray, clues: list[dict]) -> np.ndarray:
    alive = np.ones(len(codes), dtype=bool)
    for clue in clues:
        alive &= wordle_all(codes, clue["guess"]) == encode(clue["feedback"])
    return alive


def _digits_text(code: list[int] | np.ndarray) -> str:
    return "".join(str(int(d)) for d in code)


PROMPT_HL = """I am thinking of a whole number from 1 to {size}. Earlier guesses and my answers \
("higher" means the number is higher than the guess):
{clues}

Exactly one number fits all the answers. Which is it? Answer like <answer>42</answer>."""

PROMPT_WORDLE = """I am thinking of a {digits}-digit string using only the digits 0 to {top}. \
For each earlier guess, each position is marked G (right digit, right place), Y (the digit is in \
the string elsewhere) or . (not in the string, beyond the copies already marked):
{clues}

Exactly one string fits all the marks. Which is it? Answer with the {digits} digits, like \
<answer>{example}</answer>."""


@family(
    "number_guessing",
    domain="interactive",
    knobs=NumberGuessingKnobs,
    levels=LEVELS,
    description="Find a hidden number from higher/lower or Wordle-style feedback; interactive: guess it live.",
    verifier_kind="exact (unique answer proven by enumeration)",
)
class NumberGuessing(Family):
    def generate(self, knobs: NumberGuessingKnobs, rng: np.random.Generator) -> TaskDraft:
        if knobs.feedback == "higher_lower":
            return self._higher_lower(knobs, rng)
        return self._wordle(knobs, rng)

    def _higher_lower(self, knobs: NumberGuessingKnobs, rng: np.random.Generator) -> TaskDraft:
        secret = int(rng.integers(1, knobs.size + 1))
        low, high, clues = 1, knobs.size, []
        while low < high:
            guess = int(rng.integers(low, high + 1))
            if guess == secret:
                continue
            answer = "higher" if secret > guess else "lower"
            clues.append({"guess": guess, "feedback": answer})
            low, high = (guess + 1, high) if answer == "higher" else (low, guess - 1)
        order = [clues[int(i)] for i in rng.permutation(len(clues))]  # shuffled: no replay of the search
        text = "\n".join(f"{c['guess']}: {c['feedback']}" for c in order)
        metadata = {"secret": secret, "clues": order, "canonical_hash": content_hash([knobs.size, order])}
        return TaskDraft(PROMPT_HL.format(size=knobs.size, clues=text), str(secret), metadata)

    def _wordle(self, knobs: NumberGuessingKnobs, rng: np.random.Generator) -> TaskDraft:
        codes = candidates(knobs)
        secret = codes[int(rng.integers(len(codes)))].tolist()
        alive, clues = codes, []
        while len(alive) > 1:
            guess = codes[int(rng.integers(len(codes)))].tolist()
            if guess == secret:
                continue
            mark = wordle(secret, guess)
            keep = wordle_all(alive, guess) == encode(mark)
            if not keep.all():
                alive = alive[keep]
                clues.append({"guess": guess, "feedback": mark})
        text = "\n".join(f"{_digits_text(c['guess'])}: {c['feedback']}" for c in clues)
        prompt = PROMPT_WORDLE.format(
            digits=knobs.digits, top=knobs.alphabet - 1, clues=text, example="0" * knobs.digits
        )
        metadata = {
            "secret": secret,
            "clues": clues,
            "canonical_hash": content_hash([knobs.digits, knobs.alphabet, clues]),
        }
        return TaskDraft(prompt, _digits_text(secret), metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=100)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        if task.knobs["feedback"] == "higher_lower":  # a number, read by the shared reader
            value = read_integer(extraction.text)
            if isinstance(value, Verdict):
                return value
            if str(value) == task.answer:
                return Verdict.right(parsed=str(value))
            return Verdict.wrong(f"{value} does not fit every answer", parsed=str(value))
        text = fold_lookalikes(extraction.text).strip()  # a code: a string of digits, leading 0s count
        if not (text.isascii() and text.isdigit()) or len(text) > 12:
            return Verdict.bad_format("the answer must be digits only")
        if text == task.answer:
            return Verdict.right(parsed=text)
        return Verdict.wrong(f"{text} does not fit every answer", parsed=text)

    def solve_exact(self, task: Task) -> SolverRun:
        """Intersect every clue over the whole candidate range."""
        knobs = NumberGuessingKnobs.build(task.knobs)
        clues = task.metadata["clues"]
        if knobs.feedback == "higher_lower":
            low, high = 1, knobs.size
            for c in clues:
                low, high = (
                    (max(low, c["guess"] + 1), high)
                    if c["feedback"] == "higher"
                    else (low, min(high, c["guess"] - 1))
                )
            return SolverRun(f"<answer>{low}</answer>", float(len(clues) * 2 + math.log2(knobs.size)))
        codes = candidates(knobs)
        answer = _digits_text(codes[int(np.flatnonzero(_fits(codes, clues))[0])])
        return SolverRun(f"<answer>{answer}</answer>", float(len(codes) * len(clues)))

    def solve_weak(self, task: Task) -> SolverRun:
        """Reads only the first three clues and answers the smallest number that fits them."""
        knobs = NumberGuessingKnobs.build(task.knobs)
        clues = task.metadata["clues"][:3]
        if knobs.feedback == "higher_lower":
            low = 1
            for c in clues:
                low = max(low, c["guess"] + 1) if c["feedback"] == "higher" else low
            return SolverRun(f"<answer>{low}</answer>", float(len(clues)))
        codes = candidates(knobs)
        answer = _digits_text(codes[int(np.flatnonzero(_fits(codes, clues))[0])])
        return SolverRun(f"<answer>{answer}</answer>", float(len(codes) * len(clues)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        answer = task.answer
        if task.knobs["feedback"] == "higher_lower":
            value = int(answer)
            wrong = {
                str(value + 1),
                str(max(value - 1, 0)),
                str(value + 10),
                str(task.metadata["clues"][0]["guess"]),
            }
        else:
            top = task.knobs["alphabet"] - 1
            bumped = str((int(answer[0]) + 1) % (top + 1)) + answer[1:]
            wrong = {
                bumped,
                answer[::-1],
                answer[1:] + answer[0],
                _digits_text(task.metadata["clues"][0]["guess"]),
            }
        wrong.discard(answer)
        return [f"<answer>{w}</answer>" for w in sorted(wrong)] + [f"<answer>{answer}{answer}</answer>"]

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        return GuessingGame(NumberGuessingKnobs.build(task.knobs), task.metadata["secret"], rng)


class GuessingGame(Episode):
    """The live game: guess, hear the feedback, until found or out of guesses."""

    def __init__(self, knobs: NumberGuessingKnobs, secret: int | list[int], rng: np.random.Generator):
        self.knobs, self.secret, self.rng = knobs, secret, rng
        self.guesses_left = budget(knobs)
        self.max_turns = self.guesses_left + 10
        self.low, self.high = 1, knobs.size
        self.history: list[dict] = []

    def opening(self) -> str:
        k = self.knobs
        if k.feedback == "higher_lower":
            what = f"a whole number from 1 to {k.size}. After each guess I say 'higher' or 'lower'"
        else:
            what = (
                f"a {k.digits}-digit string of the digits 0-{k.alphabet - 1}. After each guess I mark each position "
                "G (right place), Y (elsewhere) or . (absent)"
            )
        return f"Guess {what}. You have {self.guesses_left} guesses; send one guess per message, digits only."

    def act(self, action: str) -> Turn:
        guess = self._parse(action)
        if guess is None:
            return Turn("invalid guess: send digits only, one guess per message.", info={"invalid": True})
        self.guesses_left -= 1
        if guess == self.secret:
            return Turn("correct!", reward=1.0, outcome="solved")
        if self.knobs.feedback == "higher_lower":
            feedback = "higher" if self.secret > guess else "lower"
        else:
            feedback = wordle(self.secret, guess)
        self.history.append({"guess": guess, "feedback": feedback})
        if self.guesses_left == 0:
            return Turn(f"{feedback}. No guesses left.", outcome="failed")
        return Turn(f"{feedback}. {self.guesses_left} guesses left.")

    def _parse(self, action: str) -> int | list[int] | None:
        extraction = extract_answer(action, allow_bare=True, max_chars=40)
        numbers = _NUMBER.findall(extraction.text or "") if extraction.ok else []
        if len(numbers) != 1:
            return None
        text = numbers[0]
        if self.knobs.feedback == "higher_lower":
            return int(text) if 1 <= int(text) <= self.knobs.size else None
        if len(text) != self.knobs.digits or any(int(d) >= self.knobs.alphabet for d in text):
            return None
        return [int(d) for d in text]

    def _alive(self) -> np.ndarray:
        codes = candidates(self.knobs)
        return codes[_fits(codes, self.history)]

    def reference_action(self) -> str:
        if self.knobs.feedback == "higher_lower":
            for clue in self.history[-1:]:
                if clue["feedback"] == "higher":
                    self.low = max(self.low, clue["guess"] + 1)
                else:
                    self.high = min(self.high, clue["guess"] - 1)
            return str((self.low + self.high) // 2)
        alive = self._alive()
        return _digits_text(alive[int(self.rng.integers(len(alive)))])

    def random_action(self, rng: np.random.Generator) -> str:
        if self.knobs.feedback == "higher_lower":
            return str(int(rng.integers(1, self.knobs.size + 1)))
        return "".join(str(int(d)) for d in rng.integers(0, self.knobs.alphabet, size=self.knobs.digits))
