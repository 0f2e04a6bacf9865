"""Apply a program of string edits and give the final string.

A random lowercase start string and a numbered program of edits (reverse, rotate, insert,
delete, swap, replace, reverse a slice, change case, shift letters through the alphabet);
positions count from 1. The answer is the final string, compared exactly (case matters): the
program is deterministic, so it is unique. Every edit is checked at generation to change the
string (no no-op steps a solver could skip) and the final string differs from the start.

Difficulty: the number of edits (2 at level 1, 24 at level 10), the start length (6 to 16
letters) and the edit kinds (tier 1: reverse, rotate, insert, delete, swap, append; tier 2 adds
replace-all, remove-letter and slice reversal; tier 3 adds case changes and letter shifts).
The weak solver is careless: it replaces only the first occurrence and reads slice ends as
exclusive.
Generation: ~5,000 tasks per second at level 5 (0.2 ms median).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from palaestra.core import Knobs, Task, Verdict, content_hash, knob
from palaestra.registry import Family, SolverRun, TaskDraft, family
from palaestra.verifiers.extract import extract_answer

LETTERS = string.ascii_lowercase
MAX_ANSWER_CHARS = 400


@dataclass(frozen=True)
class StringOpsKnobs(Knobs):
    length: int = knob(6, low=3, high=40, help="letters in the start string")
    ops: int = knob(2, low=1, high=60, help="edits in the program")
    tier: int = knob(
        1, low=1, high=3, help="edit kinds: 1 positional, 2 + replace/remove/slices, 3 + case/shift"
    )


LEVELS = {
    1: StringOpsKnobs(length=6, ops=2, tier=1),
    2: StringOpsKnobs(length=6, ops=4, tier=1),
    3: StringOpsKnobs(length=8, ops=5, tier=2),
    4: StringOpsKnobs(length=8, ops=7, tier=2),
    5: StringOpsKnobs(length=10, ops=9, tier=2),
    6: StringOpsKnobs(length=10, ops=11, tier=3),
    7: StringOpsKnobs(length=12, ops=13, tier=3),
    8: StringOpsKnobs(length=12, ops=16, tier=3),
    9: StringOpsKnobs(length=14, ops=20, tier=3),
    10: StringOpsKnobs(length=16, ops=24, tier=3),
}

# An edit is [kind, *arguments] (JSON data in the metadata); positions count from 1.
TIER_KINDS = {
    1: ("reverse", "rotate_left", "rotate_right", "insert", "delete", "swap", "append"),
    2: ("replace", "remove", "reverse_slice"),
    3: ("upper_slice", "swapcase", "shift"),
}


def apply_edit(text: str, edit: list, *, careless: bool = False) -> str:
    """The string after one edit. ``careless``: the weak solver's slips (a replace of the first
    occurrence only, slice ends read as exclusive)."""
    kind, args = edit[0], edit[1:]
    if careless and kind in ("reverse_slice", "upper_slice"):
        args = [args[0], args[1] - 1]
    if kind == "reverse":
        return text[::-1]
    if kind == "rotate_left":
        k = args[0] % len(text)
        return text[k:] + text[:k]
    if kind == "rotate_right":
        k = args[0] % len(text)
        return text[len(text) - k :] + text[: len(text) - k]
    if kind == "insert":
        p, s = args
        return text[: p - 1] + s + text[p - 1 :]
    if kind == "delete":
        return text[: args[0] - 1] + text[args[0] :]
    if kind == "swap":
        p, q = sorted(args)
        return text[: p - 1] + text[q - 1] + text[p : q - 1] + text[p - 1] + text[q:]
    if kind == "append":
        return text + args[0]
    if kind == "replace":
        return text.replace(args[0], args[1], 1 if careless else -1)
    if kind == "remove":
        return text.replace(args[0], "")
    if kind == "reverse_slice":
        p, q = args
        return text[: p - 1] + text[p - 1 : q][::-1] + text[q:]
    if kind == "upper_slice":
        p, q = args
        return text[: p - 1] + text[p - 1 : q].upper() + text[q:]
    if kind == "swapcase":
        return text.swapcase()
    if kind == "shift":
        return "".join(_shift(ch, args[0]) for ch in text)
    raise ValueError(f"unknown edit {kind!r}")


def _shift(ch: str, k: int) -> str:
    alphabet = LETTERS if ch.islower() else LETTERS.upper()
    return alphabet[(alphabet.index(ch) + k) % 26]


def describe(edit: list) -> str:
    kind, args = edit[0], edit[1:]
    texts: dict[str, Callable[[], str]] = {
        "reverse": lambda: "Reverse the whole string.",
        "rotate_left": lambda: f"Rotate left by {args[0]} (move the first {args[0]} characters to the end).",
        "rotate_right": lambda: (
            f"Rotate right by {args[0]} (move the last {args[0]} characters to the front)."
        ),
        "insert": lambda: f'Insert "{args[1]}" before the character at position {args[0]}.',
        "delete": lambda: f"Delete the character at position {args[0]}.",
        "swap": lambda: f"Swap the characters at positions {args[0]} and {args[1]}.",
        "append": lambda: f'Append "{args[0]}" at the end.',
        "replace": lambda: f'Replace every "{args[0]}" with "{args[1]}" (left to right, non-overlapping).',
        "remove": lambda: f'Remove every "{args[0]}".',
        "reverse_slice": lambda: f"Reverse the characters from position {args[0]} to {args[1]}.",
        "upper_slice": lambda: f"Uppercase the characters from position {args[0]} to {args[1]}.",
        "swapcase": lambda: "Swap the case of every letter.",
        "shift": lambda: (
            f"Shift every letter {args[0]} places forward in the alphabet (z wraps to a, case kept)."
        ),
    }
    return texts[kind]()


def _random_edit(text: str, kinds: tuple[str, ...], rng: np.random.Generator) -> list | None:
    """A random edit of a kind in ``kinds`` that is valid for ``text`` (None if it drew none)."""
    n = len(text)
    kind = kinds[int(rng.integers(len(kinds)))]

    def pos(low: int = 1, high: int = n) -> int:
        return int(rng.integers(low, high + 1))

    def letters(k: int) -> str:
        return "".join(LETTERS[int(i)] for i in rng.integers(0, 26, size=k))

    if kind in ("rotate_left", "rotate_right"):
        return [kind, pos(1, n - 1)] if n > 1 else None
    if kind == "insert":
        return [kind, pos(1, n + 1), letters(int(rng.integers(1, 3)))]
    if kind == "delete":
        return [kind, pos()] if n > 3 else None
    if kind in ("swap", "reverse_slice", "upper_slice"):
        p, q = sorted(int(x) for x in rng.choice(n, size=2, replace=False) + 1) if n > 1 else (1, 1)
        return [kind, p, q] if q > p else None
    if kind == "append":
        return [kind, letters(int(rng.integers(1, 4)))]
    if kind == "replace":
        start = int(rng.integers(0, n - 1)) if n > 1 else 0
        old = text[start : start + int(rng.integers(1, 3))]
        return [kind, old, letters(int(rng.integers(1, 3)))]
    if kind == "remove":
        return [kind, text[int(rng.integers(n))]] if n > 4 else None
    if kind == "shift":
        return [kind, int(rng.integers(1, 26))]
    return [kind]  # reverse, swapcase


def make_program(knobs: StringOpsKnobs, rng: np.random.Generator) -> tuple[str, list[list], list[str]]:
    """Start string, edits and the string after each edit; every edit changes the string."""
    kinds = tuple(k for tier in range(1, knobs.tier + 1) for k in TIER_KINDS[tier])
    while True:
        start = "".join(LETTERS[int(i)] for i in rng.integers(0, 26, size=knobs.length))
        text, edits, states = start, [], []
        for _ in range(50 * knobs.ops):
            edit = _random_edit(text, kinds, rng)
            if edit is None or (edits and edit[0] == edits[-1][0]):  # no undoing the previous edit
                continue
            after = apply_edit(text, edit)
            if after == text or not 3 <= len(after) <= 2 * knobs.length + 4:
                continue
            text = after
            edits.append(edit)
            states.append(text)
            if len(edits) == knobs.ops:
                break
        if len(edits) == knobs.ops and text != start:
            return start, edits, states


def run(start: str, edits: list[list], *, careless: bool = False) -> str:
    text = start
    for edit in edits:
        text = apply_edit(text, edit, careless=careless)
    return text


PROMPT = """Start with the string "{start}" and apply these edits in order (positions count from \
1, the first character is position 1):

{program}

What is the final string? Case matters. Answer with the string only, inside <answer></answer> \
tags."""


def read_string(text: str) -> str | None:
    """The answer string: letters only, optionally in one pair of quotes or backticks."""
    body = text.strip()
    if len(body) >= 2 and body[0] == body[-1] and body[0] in "\"'`":
        body = body[1:-1]
    if not body or len(body) > MAX_ANSWER_CHARS or not (body.isascii() and body.isalpha()):
        return None
    return body


@family(
    "string_ops",
    domain="words",
    knobs=StringOpsKnobs,
    levels=LEVELS,
    description="Apply a numbered program of string edits (rotate, insert, replace, shift, ...) and give the final string.",
    verifier_kind="exact (deterministic program; case-sensitive string)",
)
class StringOps(Family):
    def generate(self, knobs: StringOpsKnobs, rng: np.random.Generator) -> TaskDraft:
        start, edits, states = make_program(knobs, rng)
        program = "\n".join(f"{i}. {describe(e)}" for i, e in enumerate(edits, 1))
        metadata = {
            "start": start,
            "edits": edits,
            "effort": sum(len(s) for s in states),
            "canonical_hash": content_hash([start, edits]),
        }
        return TaskDraft(PROMPT.format(start=start, program=program), states[-1], metadata)

    def verify(self, task: Task, response: str) -> Verdict:
        extraction = extract_answer(response, max_chars=MAX_ANSWER_CHARS + 2, one_line=True)
        if not extraction.ok or extraction.text is None:
            return Verdict.bad_format(extraction.error or "no answer")
        answer = read_string(extraction.text)
        if answer is None:
            return Verdict.bad_format("the answer must be the final string: letters only, no spaces")
        if answer == task.answer:
            return Verdict.right(parsed=answer)
        if answer.lower() == task.answer.lower():
            return Verdict.wrong("the letters are right but their case is not", parsed=answer)
        return Verdict.wrong("that is not the final string", parsed=answer)

    def solve_exact(self, task: Task) -> SolverRun:
        """Apply every edit in order (effort = characters written over the whole program)."""
        final = run(task.metadata["start"], task.metadata["edits"])
        return SolverRun(f"<answer>{final}</answer>", float(task.metadata["effort"]))

    def solve_weak(self, task: Task) -> SolverRun:
        """A careless reader: replaces only the first occurrence and reads slice ends as exclusive."""
        edits = task.metadata["edits"]
        try:
            final = run(task.metadata["start"], edits, careless=True)
        except IndexError:  # its string came out shorter than a later position
            return SolverRun(None, float(len(edits)))
        return SolverRun(f"<answer>{final}</answer>", float(len(edits)))

    def mutated_responses(self, task: Task, rng: np.random.Generator) -> list[str]:
        answer, edits = task.answer, task.metadata["edits"]
        wrong = {
            run(task.metadata["start"], edits[:-1]),  # the last edit forgotten
            answer[::-1],
            answer.swapcase(),
            answer[:-1],
            answer + "a",
            answer[1:] + answer[0],
        }
        wrong.discard(answer)
        return [f"<answer>{w}</answer>" for w in sorted(wrong) if w]
