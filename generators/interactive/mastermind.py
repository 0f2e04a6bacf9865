"""Mastermind: deduce a hidden code from black/white peg feedback.

Single-turn (``make_task``/``verify``): the prompt lists earlier guesses with their feedback,
chosen so that exactly one code is consistent with all of them (proven by enumerating every
code); the answer is that code. Interactive (``InteractiveEnv``, ``palaestra/Mastermind-v0``):
the agent guesses and the game answers with pegs, up to a guess budget.

Uniqueness is proven by enumerating all ``colours ** length`` codes (at most 10**6 by the knob
limits), vectorised with numpy: about 400 tasks/s at level 1, 150/s at level 5 and 15-20/s at
level 10 (262,144 codes scored against every clue guess) — the proof is the cost there.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Episode, Family, SolverRun, TaskDraft, Turn, family
from palaestra.verifiers.extract import extract_answer

COLOURS = "ABCDEFGHIJ"
MAX_CODES = 10**6
_SEPARATORS = re.compile(r"[\s,;\-|]+")


@dataclass(frozen=True)
class MastermindKnobs(Knobs):
    length: int = knob(3, low=2, high=6, help="pegs in the code")
    colours: int = knob(4, low=2, high=10, help="colours to choose from (letters A, B, ...)")
    repeats: bool = knob(False, help="colours may repeat in the code")
    guess_budget: int = knob(8, low=1, high=30, help="guesses allowed in the interactive game")

    def validate(self) -> None:
        if not self.repeats and self.colours < self.length:
            raise ValueError(f"without repeats a {self.length}-peg code needs at least {self.length} colours")
        if self.colours**self.length > MAX_CODES:
            raise ValueError(f"{self.colours}**{self.length} codes exceed the enumeration limit {MAX_CODES}")


LEVELS = {
    1: MastermindKnobs(length=2, colours=3, guess_budget=6),
    2: MastermindKnobs(length=3, colours=4, guess_budget=8),
    3: MastermindKnobs(length=3, colours=5, guess_budget=8),
    4: MastermindKnobs(length=4, colours=5, guess_budget=9),
    5: MastermindKnobs(length=4, colours=6, guess_budget=10),
    6: MastermindKnobs(length=4, colours=6, repeats=True, guess_budget=10),
    7: MastermindKnobs(length=5, colours=6, repeats=True, guess_budget=11),
    8: MastermindKnobs(length=5, colours=7, repeats=True, guess_budget=12),
    9: MastermindKnobs(length=5, colours=8, repeats=True, guess_budget=12),
    10: MastermindKnobs(length=6, colours=8, repeats=True, guess_budget=14),
}


def all_codes(knobs: MastermindKnobs) -> np.ndarray:
    """Every code as a row of colour indices (without repeats when the knob forbids them)."""
    return _all_codes(knobs.length, knobs.colours, knobs.repeats)


@functools.lru_cache(maxsize=16)
def _all_codes(length: int, colours: int, repeats: bool) -> np.ndarray:
    grids = np.indices((colours,) * length).reshape(length, -1).T.astype(np.int8)
    if not repeats:
        grids = grids[np.array([len(set(row)) == length for row in grids.tolist()], dtype=bool)]
    grids.setflags(write=False)  # shared by every task with these knobs
    return grids


@functools.lru_cache(maxsize=16)
def _all_counts(length: int, colours: int, repeats: bool) -> np.ndarray:
    counts = colour_counts(_all_codes(length, colours, repeats), colours)
    counts.setflags(write=False)
    return counts


def colour_counts(codes: np.ndarray, colours: int) -> np.ndarray:
    """How many pegs of each colour every code has (rows: codes, columns: colours)."""
    return np.stack([(codes == c).sum(axis=1) for c in range(colours)], axis=1).astype(np.int8)


def score(
    codes: np.ndarray, guess: np.ndarray, colours: int, counts: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(black, white) pegs of ``guess`` against every row of ``codes`` (``counts`` speeds it up)."""
    if counts is None:
        counts = colour_counts(codes, colours)
    guess_counts = np.bincount(np.asarray(guess, dtype=np.int64), minlength=colours)
    black = (codes == guess).sum(axis=1)
    common = np.minimum(counts, guess_counts).sum(axis=1)
    return black, common - black


def feedback(secret: list[int], guess: list[int], colours: int) -> tuple[int, int]:
    black, white = score(np.array([secret]), np.array(guess), colours)
    return int(black[0]), int(white[0])


def to_text(code: list[int] | np.ndarray) -> str:
    return "".join(COLOURS[int(c)] for c in code)


def parse_code(text: str, knobs: MastermindKnobs) -> list[int] | None:
    """``"ABCD"``, ``"A B C D"`` or ``"A,B,C,D"`` -> colour indices; ``None`` if invalid."""
    letters = "".join(_SEPARATORS.split(text.strip().upper()))
    if len(letters) != knobs.length or any(ch not in COLOURS[: knobs.colours] for ch in letters):
        return None
    code = [COLOURS.index(ch) for ch in letters]
    if not knobs.repeats and len(set(code)) != len(code):
        return None
    return code


def _clue_guesses(
    secret: np.ndarray, codes: np.ndarray, knobs: MastermindKnobs, rng: np.random.Generator
) -> list[list[int]]:
    """Random guesses (never the secret) until exactly one code fits their feedback."""
    # scoring only the codes still alive keeps later guesses cheap
    alive, counts = codes, _all_counts(knobs.length, knobs.colours, knobs.repeats)
    guesses: list[list[int]] = []
    while len(alive) > 1:
        guess = codes[int(rng.integers(len(codes)))]
        if np.array_equal(guess, secret):
            continue
        black, white = score(alive, guess, knobs.colours, counts)
        b, w = feedback(secret.tolist(), guess.tolist(), knobs.colours)
        keep = (black == b) & (white == w)
        if not keep.all():  # keep only informative guesses
            alive, counts = alive[keep], counts[keep]
            guesses.append(guess.tolist())
    return guesses


def consistent(
    codes: np.ndarray, clues: list[dict], colours: int, counts: np.ndarray | None = None
) -> np.ndarray:
    """Mask of the codes that fit every clue."""
    alive = np.ones(len(codes), dtype=bool)
    counts = colour_counts(codes, colours) if counts is None else counts
    for clue in clues:
        black, white = score(codes, np.array(clue["guess"]), colours, counts)
        alive &= (black == clue["black"]) & (white == clue["white"])
    return alive


PROMPT = """Mastermind. A secret code of {length} pegs uses the colours {palette}{repeat_rule}. \
Each guess below was scored with black pegs (right colour, right place) and white pegs (right \
colour, wrong place):

{clues}

Exactly one code fits every score. What is it? Answer with the {length} letters in order, for \
example <answer>{example}</answer>."""


@family(
    "mastermind",
    domain="interactive",
    knobs=MastermindKnobs,
    levels=LEVELS,
    description="Deduce a hidden Mastermind code from scored guesses; interactive: guess it with peg feedback.",
    verifier_kind="exact (unique code proven by enumeration)",
)
class Mastermind(Family):
    def generate(self, knobs: MastermindKnobs, rng: np.random.Generator) -> TaskDraft:
        codes = all_codes(knobs)
        secret = codes[int(rng.integers(len(codes)))]
        guesses = _clue_guesses(secret, codes, knobs, rng)
        clues = []
        for guess in guesses:
            black, white = feedback(secret.tolist(), guess, knobs.colours)
            clues.append({"guess": guess, "black": black, "white": white})
        clue_text = "\n".join(f"{to_text(c['guess'])}: {c['black']} black, {c['white']} white" for c in clues)
        prompt = PROMPT.format(
            length=knobs.length,
            palette=", ".join(COLOURS[: knobs.colours]),
            repeat_rule=" (colours may repeat)" if knobs.repeats else " (no colour repeats)",
            clues=clue_text,
            example=COLOURS[: knobs.length] if not knobs.repeats or knobs.length > 1 else "A",
        )
        metadata = {
            "secret": secret.tolist(),
            "clues": clues,
            "codes": int(len(codes)),
            "canonical_hash": content_hash(sorted(map(str, clues))),
        }
        return TaskDraft(prompt=prompt, answer=to_text(secret), metadata=metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, labels=("code",))
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        knobs = MastermindKnobs.build(task.knobs)
        code = parse_code(extraction.text, knobs)
        if code is None:
            return Verdict.bad_format(
                f"the answer must be {knobs.length} letters from {COLOURS[: knobs.colours]}"
            )
        if code == task.metadata["secret"]:
            return Verdict.right(parsed=to_text(code))
        for clue in task.metadata["clues"]:
            if feedback(code, clue["guess"], knobs.colours) != (clue["black"], clue["white"]):
                return Verdict.wrong(
                    f"{to_text(code)} does not fit the score of {to_text(clue['guess'])}",
                    parsed=to_text(code),
                )
        return Verdict.wrong(f"{to_text(code)} is not the code", parsed=to_text(code))

    def solve_exact(self, task: Task) -> SolverRun:
        """Enumerate every code and keep the one consistent with all scores."""
        knobs = MastermindKnobs.build(task.knobs)
        codes, counts = all_codes(knobs), _all_counts(knobs.length, knobs.colours, knobs.repeats)
        alive = consistent(codes, task.metadata["clues"], knobs.colours, counts)
        answer = to_text(codes[int(np.flatnonzero(alive)[0])])
        return SolverRun(f"<answer>{answer}</answer>", effort=float(len(codes) * len(task.metadata["clues"])))

    def solve_weak(self, task: Task) -> SolverRun:
        """Uses only the first three scores and answers the first code that fits them."""
        knobs = MastermindKnobs.build(task.knobs)
        codes, counts = all_codes(knobs), _all_counts(knobs.length, knobs.colours, knobs.repeats)
        alive = consistent(codes, task.metadata["clues"][:3], knobs.colours, counts)
        answer = to_text(codes[int(np.flatnonzero(alive)[0])])
        return SolverRun(f"<answer>{answer}</answer>", effort=float(len(codes) * 3))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        knobs = MastermindKnobs.build(task.knobs)
        secret = list(task.metadata["secret"])
        changed = secret.copy()
        changed[0] = next(
            c for c in range(knobs.colours) if c != secret[0] and (knobs.repeats or c not in secret)
        )
        rotated = secret[1:] + secret[:1]
        wrong = [changed, rotated if rotated != secret else changed[::-1], task.metadata["clues"][0]["guess"]]
        texts = {to_text(w) for w in wrong if w != secret}
        texts.add(to_text(secret)[:-1])  # one peg short
        return [f"<answer>{t}</answer>" for t in sorted(texts)]

    def new_episode(self, task: Task, rng: np.random.Generator) -> Episode:
        return MastermindGame(MastermindKnobs.build(task.knobs), task.metadata["secret"], rng)


class MastermindGame(Episode):
    """Guess the secret; each guess is answered with black and white pegs."""

    def __init__(self, knobs: MastermindKnobs, secret: list[int], rng: np.random.Generator):
        self.knobs, self.secret, self.rng = knobs, list(secret), rng
        self.guesses_left = knobs.guess_budget
        self.max_turns = knobs.guess_budget + 10  # room for a few invalid messages
        self.history: list[tuple[list[int], tuple[int, int]]] = []
        # the reference player narrows these incrementally: indices of codes that fit every
        # answer among the first `_seen` guesses
        self._alive: np.ndarray | None = None
        self._seen = 0

    def opening(self) -> str:
        k = self.knobs
        repeats = "colours may repeat" if k.repeats else "no colour repeats"
        return (
            f"Let's play Mastermind. I chose a secret code of {k.length} pegs from the colours "
            f"{', '.join(COLOURS[: k.colours])} ({repeats}). Guess it: send {k.length} letters, for example "
            f"{COLOURS[: k.length] if not k.repeats else 'A' * k.length}. I answer with black pegs (right colour, "
            f"right place) and white pegs (right colour, wrong place). You have {k.guess_budget} guesses."
        )

    def act(self, action: str) -> Turn:
        extraction = extract_answer(action, allow_bare=True, max_chars=100)
        code = parse_code(extraction.text or "", self.knobs) if extraction.ok else None
        if code is None:
            return Turn(
                f"invalid guess: send {self.knobs.length} letters from {COLOURS[: self.knobs.colours]}.",
                info={"invalid": True},
            )
        self.guesses_left -= 1
        black, white = feedback(self.secret, code, self.knobs.colours)
        self.history.append((code, (black, white)))
        if black == self.knobs.length:
            return Turn(f"{black} black, {white} white: solved!", reward=1.0, outcome="solved")
        if self.guesses_left == 0:
            return Turn(
                f"{black} black, {white} white. No guesses left; the code was {to_text(self.secret)}.",
                outcome="failed",
            )
        return Turn(f"{black} black, {white} white. {self.guesses_left} guesses left.")

    def random_action(self, rng: np.random.Generator) -> str:
        codes = all_codes(self.knobs)
        return to_text(codes[int(rng.integers(len(codes)))])

    def reference_action(self) -> str:
        """Guess a random code consistent with every answer so far."""
        k = self.knobs
        codes, counts = all_codes(k), _all_counts(k.length, k.colours, k.repeats)
        if self._alive is None:
            self._alive = np.arange(len(codes))
        for guess, (b, w) in self.history[self._seen :]:
            black, white = score(codes[self._alive], np.array(guess), k.colours, counts[self._alive])
            self._alive = self._alive[(black == b) & (white == w)]
        self._seen = len(self.history)
        return to_text(codes[int(self._alive[int(self.rng.integers(len(self._alive)))])])
